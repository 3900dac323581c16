"""The curation dialogs: an event (text, domain, emotions), an entity (name, aliases, kind,
domain), a merge with its preview, an alias split, a chain link, a relation, a floor.

Each dialog says the invariant it enforces before the user hits it (a blue note at the top),
and hands its values to an `apply` callback when OK is pressed: a refusal from the core
shows in the dialog, which stays open; success closes it. Nothing here writes to the memory
itself.

Callbacks live in a dict (`calls`), and are never assigned as attributes: with PySide6 6.11.3
setting a Python callable as an attribute of a QDialog (even through a property) makes its
open() crash.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from core.beliefs import AXIOM_MIN_FLOOR, CHAIN_KINDS, DOMAINS, ENTITY_KINDS
from core.emotion.plutchik import EMOTIONS
from core.errors import PulseError
from pulse_desktop.dialog_fit import grow_to_fit
from pulse_desktop.style import DOMAIN_NAMES

Apply = Callable[[dict[str, Any]], None]

# The sensitivity policies (docs/privacy.md): (menu label, what it does)
POLICY_TEXT = {
    "full": ("Full", "Stored as said."),
    "summary_only": ("Summary only", "What happened is kept in neutral words, never their "
                                     "quoted words."),
    "redact": ("Redact with a role label", "Their names are replaced by the role label in "
                                           "everything stored; only this editor shows the name."),
    "no_capture": ("No capture", "Nothing about them is stored: what is already here is "
                                 "erased, and imports only count what they leave out."),
}


class CurationDialog(QDialog):
    """Title, the invariant, a form, an error line, OK/Cancel. OK calls apply(values())."""

    def __init__(self, title: str, invariant: str, apply: Apply | None,
                 parent: QWidget | None = None, ok_text: str = "Save") -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.calls: dict[str, Callable[..., Any]] = {}
        if apply is not None:
            self.calls["apply"] = apply
        self.invariant = QLabel(invariant)
        self.invariant.setObjectName("invariant")
        self.invariant.setWordWrap(True)
        self.form = QFormLayout()
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.error = QLabel()
        self.error.setObjectName("dialogError")
        self.error.setWordWrap(True)
        self.error.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok.setText(ok_text)
        self.ok.setDefault(True)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.invariant)
        layout.addLayout(self.form)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(460)

    def values(self) -> dict[str, Any]:
        return {}

    def fail(self, text: str) -> None:
        self.error.setText(f"Not changed: {text}")
        self.error.show()
        grow_to_fit(self)

    def accept(self) -> None:
        if "apply" in self.calls:
            try:
                self.calls["apply"](self.values())
            except PulseError as exc:
                self.fail(str(exc))
                return
        super().accept()


def choice_box(values: tuple[str, ...], current: str | None, names: dict[str, str] | None = None
               ) -> QComboBox:
    box = QComboBox()
    for value in values:
        box.addItem((names or {}).get(value, value.replace("_", " ")), value)
    if current is not None:
        box.setCurrentIndex(max(0, box.findData(current)))
    return box


def unit_spin(value: float, step: float = 0.05) -> QDoubleSpinBox:
    spin = QDoubleSpinBox()
    spin.setRange(0.0, 1.0)
    spin.setSingleStep(step)
    spin.setDecimals(2)
    spin.setValue(float(value))
    return spin


def picker(items: list[tuple[int, str]], current: int | None = None) -> QComboBox:
    """An editable combo over (id, label) with a substring completer (type part of a name)."""
    box = QComboBox()
    box.setEditable(True)
    box.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
    for item_id, label in items:
        box.addItem(label, item_id)
    completer = QCompleter([label for _, label in items], box)
    completer.setFilterMode(Qt.MatchFlag.MatchContains)
    completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
    box.setCompleter(completer)
    box.setCurrentIndex(box.findData(current) if current is not None else -1)
    return box


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def picked(box: QComboBox) -> int | None:
    """The id of the item whose label is typed or chosen."""
    index = box.findText(box.currentText(), Qt.MatchFlag.MatchExactly)
    return None if index < 0 else int(box.itemData(index))


# -- events -------------------------------------------------------------------------------------

class EventEditDialog(CurationDialog):
    def __init__(self, event: dict[str, Any], emotions: dict[str, float] | None,
                 apply: Apply | None, parent: QWidget | None = None) -> None:
        super().__init__(
            f"Edit event {event.get('key') or event['id']}",
            "Emotions you set here are marked confirmed by you: no later import overwrites them. "
            "Changing the text makes a new version of the event; the old one stays in the "
            "history. Each value is 0 (absent) to 1 (defining). Ctrl+Z undoes the whole edit.",
            apply, parent)
        self.event = event
        self.title_edit = QLineEdit(event["title"])
        self.description_edit = QPlainTextEdit(event["description"])
        self.description_edit.setFixedHeight(90)
        self.domain_box = choice_box(DOMAINS, event["domain"], DOMAIN_NAMES)
        self.form.addRow("Title", self.title_edit)
        self.form.addRow("Description", self.description_edit)
        self.form.addRow("Domain", self.domain_box)
        grid = QGridLayout()
        grid.setHorizontalSpacing(14)
        self.emotion_spins: dict[str, QDoubleSpinBox] = {}
        for i, name in enumerate(EMOTIONS):
            spin = unit_spin((emotions or {}).get(name, 0.0))
            spin.setToolTip(f"{name}: 0 absent · 0.1–0.3 trace · 0.4–0.6 present · "
                            "0.7–0.9 dominant · 1 defining")
            self.emotion_spins[name] = spin
            grid.addWidget(QLabel(name), i // 2, (i % 2) * 2)
            grid.addWidget(spin, i // 2, (i % 2) * 2 + 1)
        box = QWidget()
        box.setLayout(grid)
        self.form.addRow("Emotions", box)
        self.original_emotions = {k: round(float((emotions or {}).get(k, 0.0)), 2)
                                  for k in EMOTIONS}

    def values(self) -> dict[str, Any]:
        return {"title": self.title_edit.text(),
                "description": self.description_edit.toPlainText(),
                "domain": self.domain_box.currentData(),
                "emotions": {k: round(s.value(), 2) for k, s in self.emotion_spins.items()}}


class LinkDialog(CurationDialog):
    """A cause→effect link between this event and another one."""

    def __init__(self, event_label: str, events: list[tuple[int, str]], apply: Apply | None,
                 parent: QWidget | None = None, other: int | None = None) -> None:
        super().__init__(
            "Add a cause → effect link",
            "A link joins two different events and never closes a cycle (an effect cannot "
            "lead back to its own cause). Strength 0..1: how sure the link is. Ctrl+Z undoes it.",
            apply, parent, ok_text="Link")
        self.other = picker(events, other)
        self.direction = QComboBox()
        self.direction.addItem(f"“{event_label[:40]}” led to the other", "from_this")
        self.direction.addItem(f"the other led to “{event_label[:40]}”", "to_this")
        self.kind = choice_box(CHAIN_KINDS, "causal")
        self.strength = unit_spin(0.6)
        self.form.addRow("Other event", self.other)
        self.form.addRow("Direction", self.direction)
        self.form.addRow("Kind", self.kind)
        self.form.addRow("Strength", self.strength)
        self.other.setFocus()

    def values(self) -> dict[str, Any]:
        return {"other": picked(self.other), "direction": self.direction.currentData(),
                "kind": self.kind.currentData(), "strength": round(self.strength.value(), 2)}


class LinkEditDialog(CurationDialog):
    def __init__(self, label: str, kind: str, strength: float, apply: Apply | None,
                 parent: QWidget | None = None) -> None:
        super().__init__("Re-weight a link", f"{label}\nStrength 0..1: how sure the link is. "
                         "Ctrl+Z undoes the change.", apply, parent)
        self.kind = choice_box(CHAIN_KINDS, kind)
        self.strength = unit_spin(strength)
        self.form.addRow("Kind", self.kind)
        self.form.addRow("Strength", self.strength)

    def values(self) -> dict[str, Any]:
        return {"kind": self.kind.currentData(), "strength": round(self.strength.value(), 2)}


# -- entities -----------------------------------------------------------------------------------

class EntityEditDialog(CurationDialog):
    def __init__(self, entity: dict[str, Any], apply: Apply | None,
                 parent: QWidget | None = None) -> None:
        super().__init__(
            f"Edit {entity['canonical_name']}",
            "A name can't be empty. Renaming keeps the old name as an alias (untick below to "
            "drop it), so searches and later imports still find this entity. A fictional "
            "character is never merged with a real person. Ctrl+Z undoes the edit.",
            apply, parent)
        self.entity = entity
        try:
            aliases = [a for a in json.loads(entity["aliases"] or "[]") if isinstance(a, str)]
        except ValueError:
            aliases = []
        self.name_edit = QLineEdit(entity["canonical_name"])
        self.aliases_edit = QPlainTextEdit("\n".join(aliases))
        self.aliases_edit.setFixedHeight(80)
        self.aliases_edit.setToolTip("One alias per line")
        self.kind_box = choice_box(ENTITY_KINDS, entity["kind"])
        self.domain_box = choice_box(DOMAINS, entity["domain"], DOMAIN_NAMES)
        self.description_edit = QLineEdit(entity["description"] or "")
        self.keep_old = QCheckBox("Keep the old name as an alias")
        self.keep_old.setChecked(True)
        self.form.addRow("Name", self.name_edit)
        self.form.addRow("Aliases", self.aliases_edit)
        self.form.addRow("Kind", self.kind_box)
        self.form.addRow("Domain", self.domain_box)
        self.form.addRow("Description", self.description_edit)
        self.form.addRow("", self.keep_old)
        self._privacy(entity)

    # -- privacy (docs/privacy.md) ------------------------------------------------------------
    def _privacy(self, entity: dict[str, Any]) -> None:
        self.policy_before = entity.get("policy") or "full"
        self.policy_box = choice_box(tuple(POLICY_TEXT), self.policy_before,
                                     {k: v[0] for k, v in POLICY_TEXT.items()})
        self.label_edit = QLineEdit(entity.get("role_label") or "")
        self.label_edit.setPlaceholderText("[ex-partner]")
        self.label_edit.setToolTip("Shown instead of their names outside your own view")
        self.probe_box = QCheckBox("Do not probe: a topic boundary (what is linked to it "
                                   "surfaces only when a question names it)")
        self.probe_box.setChecked(bool(entity.get("do_not_probe")))
        self.policy_note = QLabel()
        self.policy_note.setObjectName("hint")
        self.policy_note.setWordWrap(True)
        self.form.addRow("Privacy", self.policy_box)
        self.form.addRow("Role label", self.label_edit)
        self.form.addRow("", self.probe_box)
        self.form.addRow("", self.policy_note)
        self.policy_box.currentIndexChanged.connect(self._policy_changed)
        self._policy_changed()

    def _policy_changed(self) -> None:
        policy = self.policy_box.currentData()
        self.label_edit.setEnabled(policy == "redact")
        text = POLICY_TEXT[policy][1]
        if policy != self.policy_before and policy != "full":
            text += (" This applies to what is already stored too, and cannot be undone.")
        self.policy_note.setText(text)

    def values(self) -> dict[str, Any]:
        return {"name": self.name_edit.text(),
                "aliases": [a.strip() for a in self.aliases_edit.toPlainText().splitlines()
                            if a.strip()],
                "kind": self.kind_box.currentData(), "domain": self.domain_box.currentData(),
                "description": self.description_edit.text(),
                "keep_old_name": self.keep_old.isChecked(),
                "privacy": {"policy": self.policy_box.currentData(),
                            "label": self.label_edit.text().strip() or None,
                            "do_not_probe": self.probe_box.isChecked()}}


class MergeDialog(CurationDialog):
    """Merge another entity into this one (or this one into it), with a live preview."""

    def __init__(self, name: str, entities: list[tuple[int, str]],
                 preview: Callable[[int, bool], dict[str, Any]], apply: Apply | None,
                 parent: QWidget | None = None, other: int | None = None) -> None:
        super().__init__(
            f"Merge {name} with…",
            "Merging moves the relations, events, facts and evidence to the entity you keep, "
            "folds duplicates, and keeps the other's names as aliases. A fictional character is "
            "never merged with a real person. One step: Ctrl+Z undoes it.",
            apply, parent, ok_text="Merge")
        self.calls["preview"] = preview
        self.other = picker(entities, other)
        self.keep_this = QComboBox()
        self.keep_this.addItem(f"keep {name}", True)
        self.keep_this.addItem("keep the other one", False)
        self.preview = QLabel()
        self.preview.setWordWrap(True)
        self.preview.setMinimumHeight(64)
        self.preview.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.form.addRow("Other entity", self.other)
        self.form.addRow("Keep", self.keep_this)
        self.form.addRow("What moves", self.preview)
        self.other.currentIndexChanged.connect(self.refresh)
        self.other.editTextChanged.connect(self.refresh)
        self.keep_this.currentIndexChanged.connect(self.refresh)
        self.other.setFocus()
        self.refresh()

    def refresh(self, *_args) -> None:
        other = picked(self.other)
        if other is None:
            self.preview.setText("Choose the other entity (type part of its name).")
            self.ok.setEnabled(False)
            return
        try:
            out = self.calls["preview"](other, self.keep_this.currentData())
        except PulseError as exc:
            self.preview.setText(f"⚠ {exc}")
            self.ok.setEnabled(False)
            return
        moves = out["moves"]
        parts = [plural(moves["events"], "event link"), plural(moves["relations"], "relation"),
                 plural(moves["facts"], "fact")]
        folded = moves["relations_folded"] + moves["facts_folded"]
        text = (f"{out['gone']['name']} goes into {out['keep']['name']}: " + ", ".join(parts)
                + (f"; {plural(folded, 'duplicate')} fold" if folded else "")
                + (f"; new aliases: {', '.join(out['aliases_added'])}" if out["aliases_added"]
                   else "") + ".")
        if out.get("note"):
            text += f"\nNote: {out['note']}."
        self.preview.setText(text)
        self.ok.setEnabled(True)

    def values(self) -> dict[str, Any]:
        return {"other": picked(self.other), "keep_this": bool(self.keep_this.currentData())}


class SplitAliasDialog(CurationDialog):
    def __init__(self, name: str, aliases: list[str], kind: str,
                 preview: Callable[[str], dict[str, Any]], apply: Apply | None,
                 parent: QWidget | None = None) -> None:
        super().__init__(
            f"Split an alias out of {name}",
            "The alias becomes an entity of its own. The ticked events (those that name it) and "
            "the facts that name only it move to the new entity. One step: Ctrl+Z undoes it.",
            apply, parent, ok_text="Split")
        self.calls["preview"] = preview
        self.alias = QComboBox()
        self.alias.addItems(aliases)
        self.kind_box = choice_box(ENTITY_KINDS, kind)
        self.events = QListWidget()
        self.events.setMinimumHeight(140)
        self.form.addRow("Alias", self.alias)
        self.form.addRow("Kind of the new entity", self.kind_box)
        self.form.addRow("Events that move", self.events)
        self.alias.currentIndexChanged.connect(self.refresh)
        self.refresh()

    def refresh(self, *_args) -> None:
        self.events.clear()
        if not self.alias.currentText():
            self.ok.setEnabled(False)
            return
        try:
            out = self.calls["preview"](self.alias.currentText())
        except PulseError as exc:
            self.fail(str(exc))
            self.ok.setEnabled(False)
            return
        for ev in out["events"]:
            item = QListWidgetItem(f"{ev['ts'][:10]}  {ev['title']}")
            item.setData(Qt.ItemDataRole.UserRole, ev["id"])
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            if ev["also_names_the_rest"]:
                item.setToolTip("This event also names the entity by another name")
            self.events.addItem(item)
        self.ok.setEnabled(True)

    def values(self) -> dict[str, Any]:
        ticked = [int(self.events.item(i).data(Qt.ItemDataRole.UserRole))
                  for i in range(self.events.count())
                  if self.events.item(i).checkState() == Qt.CheckState.Checked]
        return {"alias": self.alias.currentText(), "kind": self.kind_box.currentData(),
                "events": ticked}


class RelationDialog(CurationDialog):
    """Add a relation from an entity (entities given), or edit one (relation given)."""

    def __init__(self, title: str, relation: dict[str, Any] | None, apply: Apply | None,
                 parent: QWidget | None = None,
                 entities: list[tuple[int, str]] | None = None) -> None:
        super().__init__(
            title, "A relation joins two different entities; there is one relation of a kind "
            "in each direction; strength 0..1. Ctrl+Z undoes the change.", apply, parent)
        relation = relation or {}
        self.other = picker(entities) if entities is not None else None
        if self.other is not None:
            self.form.addRow("To", self.other)
        self.kind = QLineEdit(str(relation.get("kind", "")).replace("_", " "))
        self.kind.setPlaceholderText("e.g. sister of, works with, ex partner of")
        self.strength = unit_spin(float(relation.get("strength", 0.5)))
        self.context = QLineEdit(relation.get("context", ""))
        self.reverse = QCheckBox("Turn it around (swap the two ends)")
        self.form.addRow("Kind", self.kind)
        self.form.addRow("Strength", self.strength)
        self.form.addRow("Context", self.context)
        if relation:
            self.form.addRow("", self.reverse)

    def values(self) -> dict[str, Any]:
        return {"other": picked(self.other) if self.other is not None else None,
                "kind": self.kind.text(), "strength": round(self.strength.value(), 2),
                "context": self.context.text(), "reverse": self.reverse.isChecked()}


# -- the floor ----------------------------------------------------------------------------------

class FloorDialog(CurationDialog):
    """The confidence floor of the selected rows, starting at their current value."""

    def __init__(self, count: int, current: float, axioms: int, apply: Apply | None,
                 parent: QWidget | None = None) -> None:
        super().__init__(
            "Confidence floor",
            f"The floor (0..1) is how low recency can ever take this memory. An axiom is never "
            f"archivable and its floor is at least {AXIOM_MIN_FLOOR}."
            + (f" {axioms} of the selected rows {'is an axiom' if axioms == 1 else 'are axioms'}."
               if axioms else ""), apply, parent, ok_text="Set floor")
        self.axioms = axioms
        self.spin = unit_spin(current)
        self.spin.setToolTip("Confidence floor, 0..1")
        self.form.addRow(f"Floor for {count} row{'s' if count != 1 else ''}", self.spin)
        self.warning = QLabel()
        self.warning.setObjectName("dialogError")
        self.warning.setWordWrap(True)
        self.form.addRow("", self.warning)
        self.spin.valueChanged.connect(self._check)
        self.spin.setFocus()
        self.spin.selectAll()
        self._check()

    def _check(self, *_args) -> None:
        bad = self.axioms and self.spin.value() < AXIOM_MIN_FLOOR
        self.warning.setText(f"An axiom's floor can't go below {AXIOM_MIN_FLOOR}: choose "
                             f"{AXIOM_MIN_FLOOR} or more, or change their class first."
                             if bad else "")
        self.warning.setVisible(bool(bad))
        self.ok.setEnabled(not bad)
        if bad:
            grow_to_fit(self)

    def values(self) -> dict[str, Any]:
        return {"confidence_floor": round(self.spin.value(), 4)}
