"""Curation from any view: one Curator per session opens the edit, merge, link, relation and
erase dialogs and applies what they return through the undo stack onto the core's journaled
operations (Memory.set_emotions, edit_event_text, edit_entity, merge_entities, split_alias,
link_events, unlink_events, set_link, add_relation, edit_relation, forget).

Dialogs are opened window-modal with open(), never exec(): the caller (and a test) gets the
dialog back and the event loop keeps running.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication, QDialog, QWidget

from core.errors import PulseError
from pulse_desktop.edit_dialogs import (
    EntityEditDialog,
    EventEditDialog,
    FloorDialog,
    LinkDialog,
    LinkEditDialog,
    MergeDialog,
    RelationDialog,
    SplitAliasDialog,
)
from pulse_desktop.erase_dialog import EraseDialog
from pulse_desktop.session import MemorySession
from pulse_desktop.undo_commands import push_edit, push_journaled
from pulse_desktop.write_thread import write_beliefs


def curator(session: MemorySession) -> Curator:
    """The session's Curator (made on first use)."""
    existing = getattr(session, "_curator", None)
    if existing is None:
        existing = Curator(session)
        session._curator = existing
    return existing


class Curator(QObject):
    def __init__(self, session: MemorySession) -> None:
        super().__init__(session)
        self.session = session
        self.dialog: QDialog | None = None      # the last dialog opened (tests drive it)

    # -- helpers ----------------------------------------------------------------------------
    @property
    def conn(self):
        return self.session.require().conn

    def _show(self, dialog: QDialog) -> QDialog:
        self.dialog = dialog
        dialog.open()
        return dialog

    @staticmethod
    def _parent(parent: QWidget | None) -> QWidget | None:
        return parent or QApplication.activeWindow()

    def _writable(self) -> None:
        if self.session.read_only:
            raise PulseError(self.session.read_only_reason or "This memory is open read-only.")

    def event_label(self, event_id: int) -> str:
        row = self.conn.execute("SELECT key, title FROM events WHERE id = ?", (event_id,)).fetchone()
        if row is None:
            return f"event {event_id}"
        return row["key"] or row["title"][:40]

    def entity_name(self, entity_id: int) -> str:
        row = self.conn.execute("SELECT canonical_name FROM entities WHERE id = ?",
                                (entity_id,)).fetchone()
        return row[0] if row else f"entity {entity_id}"

    def event_choices(self, exclude: int | None = None) -> list[tuple[int, str]]:
        return [(int(r["id"]), f"{r['ts'][:10]}  {r['title'][:70]}  #{r['id']}")
                for r in self.conn.execute("SELECT id, ts, title FROM events WHERE absorbed_into"
                                           " IS NULL ORDER BY ts, id") if r["id"] != exclude]

    def entity_choices(self, exclude: int | None = None) -> list[tuple[int, str]]:
        return [(int(r["id"]), f"{r['canonical_name']} ({r['kind'].replace('_', ' ')}) #{r['id']}")
                for r in self.conn.execute("SELECT id, canonical_name, kind FROM entities"
                                           " ORDER BY canonical_name, id") if r["id"] != exclude]

    def _run(self, text: str, fn, what: str) -> Any:
        self._writable()
        return push_journaled(self.session, text, fn, what=what)

    # -- events -----------------------------------------------------------------------------
    def edit_event(self, event_id: int, parent: QWidget | None = None) -> EventEditDialog:
        memory = self.session.require()
        event = memory.event(event_id)
        emo = memory.conn.execute("SELECT * FROM event_emotions WHERE event_id = ?",
                                  (event_id,)).fetchone()
        emotions = dict(emo) if emo is not None else None
        dialog = EventEditDialog(event, emotions, None, self._parent(parent))
        dialog.calls["apply"] = lambda values: self.apply_event_edit(event_id, dialog, values)
        return self._show(dialog)

    def apply_event_edit(self, event_id: int, dialog: EventEditDialog,
                         values: dict[str, Any]) -> None:
        self._writable()
        memory = self.session.require()
        event = dialog.event
        label = event.get("key") or event_id
        steps = []
        if values["domain"] != event["domain"]:
            steps.append("domain")
        if values["emotions"] != dialog.original_emotions:
            steps.append("emotions")
        text_changed = (" ".join(values["title"].split()), values["description"].strip()) != (
            event["title"], event["description"])
        if text_changed:
            if not values["title"].strip():
                raise PulseError("an event needs a title")
            steps.append("text")
        if not steps:
            return
        stack = self.session.undo_stack
        stack.beginMacro(f"Edit {label} ({', '.join(steps)})")
        try:
            if "domain" in steps:
                errors = push_edit(self.session, [event_id], {"domain": values["domain"]},
                                   f"Set domain of {label}")
                if errors:
                    raise PulseError(errors[0])
            if "emotions" in steps:
                push_journaled(self.session, f"Emotions of {label}",
                               lambda: memory.set_emotions(event_id, values["emotions"]),
                               what="events")
            if "text" in steps:
                out = push_journaled(self.session, f"New text for {label}",
                                     lambda: memory.edit_event_text(
                                         event_id, title=values["title"],
                                         description=values["description"]), what="events")
                if out:
                    self.session.select("event", out["event"])
        finally:
            stack.endMacro()
        self.session.message.emit(f"Edited {label}: {', '.join(steps)} (Ctrl+Z undoes it)")

    def add_link(self, event_id: int, parent: QWidget | None = None,
                 other: int | None = None) -> LinkDialog:
        dialog = LinkDialog(self.event_label(event_id), self.event_choices(exclude=event_id),
                            None, self._parent(parent), other=other)

        def apply(values: dict[str, Any]) -> None:
            if values["other"] is None:
                raise PulseError("choose the other event (type part of its title)")
            a, b = ((event_id, values["other"]) if values["direction"] == "from_this"
                    else (values["other"], event_id))
            self.link(a, b, kind=values["kind"], strength=values["strength"], quiet=False)

        dialog.calls["apply"] = apply
        return self._show(dialog)

    def link(self, parent_id: int, child_id: int, *, kind: str = "causal",
             strength: float = 0.6, quiet: bool = True) -> str | None:
        """parent → child, undoable. With quiet=True a refusal is returned (and said in the
        status bar) instead of raised: the graph's shift-drag uses it."""
        memory = self.session.require()
        text = f"Link {self.event_label(parent_id)} → {self.event_label(child_id)}"
        try:
            self._run(text, lambda: memory.link_events(parent_id, child_id, kind=kind,
                                                       strength=strength), "events")
        except PulseError as exc:
            if not quiet:
                raise
            self.session.message.emit(f"Not linked: {exc}")
            return str(exc)
        when = dict(self.conn.execute("SELECT id, ts FROM events WHERE id IN (?, ?)",
                                      (parent_id, child_id)).fetchall())
        later = when.get(parent_id, "") > when.get(child_id, "~")
        self.session.message.emit(f"{text} ({kind}, {strength:.2f})"
                                  + (" — note: the cause is dated after its effect" if later
                                     else "")
                                  + " — Ctrl+Z undoes it; re-weight it in the detail panel")
        return None

    def edit_link(self, parent_id: int, child_id: int,
                  parent: QWidget | None = None) -> LinkEditDialog:
        row = self.conn.execute("SELECT kind, strength FROM event_chains WHERE parent_id = ? AND"
                                " child_id = ?", (parent_id, child_id)).fetchone()
        if row is None:
            raise PulseError(f"there is no chain link {parent_id} → {child_id}")
        label = f"{self.event_label(parent_id)} → {self.event_label(child_id)}"
        memory = self.session.require()
        dialog = LinkEditDialog(label, row["kind"], row["strength"], lambda v: self._run(
            f"Re-weight {label}", lambda: memory.set_link(parent_id, child_id, **v), "events"),
            self._parent(parent))
        return self._show(dialog)

    def remove_link(self, parent_id: int, child_id: int) -> str | None:
        memory = self.session.require()
        text = f"Remove link {self.event_label(parent_id)} → {self.event_label(child_id)}"
        try:
            self._run(text, lambda: memory.unlink_events(parent_id, child_id), "events")
        except PulseError as exc:
            self.session.message.emit(f"Not changed: {exc}")
            return str(exc)
        self.session.message.emit(f"{text} — Ctrl+Z undoes it")
        return None

    # -- entities ---------------------------------------------------------------------------
    def edit_entity(self, entity_id: int, parent: QWidget | None = None) -> EntityEditDialog:
        row = self.conn.execute("SELECT * FROM entities WHERE id = ?", (entity_id,)).fetchone()
        if row is None:
            raise PulseError(f"no entity {entity_id}")
        self.session.require()
        name = row["canonical_name"]
        dialog = EntityEditDialog(dict(row), lambda v: self.apply_entity_edit(entity_id, name, v),
                                  self._parent(parent))
        return self._show(dialog)

    def apply_entity_edit(self, entity_id: int, name: str, values: dict[str, Any]) -> None:
        """The edit (undoable), then the privacy settings if they changed: a flag alone is
        undoable too; a tightening applied backwards is final (an erasure or a rewrite)."""
        memory = self.session.require()
        privacy = values.pop("privacy", None)
        current = memory.policy(entity_id)
        if privacy and privacy["policy"] == "redact" and not (privacy["label"]
                                                              or current["role_label"]):
            raise PulseError("redact needs a role label, e.g. [ex-partner]")
        self._run(f"Edit {name}", lambda: memory.edit_entity(entity_id, **values), "entities")
        if not privacy:
            return
        if (privacy["policy"] == current["policy"]
                and bool(privacy["do_not_probe"]) == current["do_not_probe"]
                and (privacy["label"] or current["role_label"]) == current["role_label"]):
            return
        self._writable()
        out = memory.set_policy(entity_id, privacy["policy"], label=privacy["label"],
                                do_not_probe=privacy["do_not_probe"])
        if out.get("applied_backwards"):
            self.session.notify("all")
            self.session.message.emit(f"{name}: {privacy['policy'].replace('_', ' ')} applied "
                                      "to what was stored (final)")
        else:
            push_journaled(self.session, f"Privacy of {name}",
                           lambda: {"seq": out["journal_seq"]}, what="entities")

    def merge(self, entity_id: int, parent: QWidget | None = None,
              other: int | None = None) -> MergeDialog:
        memory = self.session.require()
        name = self.entity_name(entity_id)

        def pair(other_id: int, keep_this: bool) -> tuple[int, int]:
            return (entity_id, other_id) if keep_this else (other_id, entity_id)

        def apply(values: dict[str, Any]) -> None:
            if values["other"] is None:
                raise PulseError("choose the entity to merge with")
            keep, gone = pair(values["other"], values["keep_this"])
            text = f"Merge {self.entity_name(gone)} into {self.entity_name(keep)}"
            self._run(text, lambda: memory.merge_entities(keep, gone), "entities")
            self.session.select("entity", keep)
            self.session.message.emit(f"{text} — Ctrl+Z undoes it")

        dialog = MergeDialog(name, self.entity_choices(exclude=entity_id),
                             lambda o, k: memory.merge_preview(*pair(o, k)), apply,
                             self._parent(parent), other=other)
        return self._show(dialog)

    def split_alias(self, entity_id: int, parent: QWidget | None = None) -> SplitAliasDialog:
        import json

        row = self.conn.execute("SELECT * FROM entities WHERE id = ?", (entity_id,)).fetchone()
        aliases = [a for a in json.loads(row["aliases"] or "[]") if isinstance(a, str)]
        if not aliases:
            raise PulseError(f"{row['canonical_name']} has no alias to split out")
        memory = self.session.require()

        def apply(values: dict[str, Any]) -> None:
            text = f"Split {values['alias']} out of {row['canonical_name']}"
            self._run(text, lambda: memory.split_alias(entity_id, values["alias"],
                                                       kind=values["kind"],
                                                       events=values["events"]), "entities")
            self.session.message.emit(f"{text} — Ctrl+Z undoes it")

        dialog = SplitAliasDialog(row["canonical_name"], aliases, row["kind"],
                                  lambda alias: memory.split_alias_preview(entity_id, alias),
                                  apply, self._parent(parent))
        return self._show(dialog)

    def add_relation(self, entity_id: int, parent: QWidget | None = None) -> RelationDialog:
        memory = self.session.require()
        name = self.entity_name(entity_id)

        def apply(values: dict[str, Any]) -> None:
            if values["other"] is None:
                raise PulseError("choose the other entity")
            self._run(f"Relation {name} → {self.entity_name(values['other'])}",
                      lambda: memory.add_relation(entity_id, values["other"], values["kind"],
                                                  strength=values["strength"],
                                                  context=values["context"]), "entities")

        dialog = RelationDialog(f"Add a relation from {name}", None, apply, self._parent(parent),
                                entities=self.entity_choices(exclude=entity_id))
        return self._show(dialog)

    def edit_relation(self, relation_id: int, parent: QWidget | None = None) -> RelationDialog:
        row = self.conn.execute("SELECT * FROM relations WHERE id = ?", (relation_id,)).fetchone()
        if row is None:
            raise PulseError(f"no relation {relation_id}")
        memory = self.session.require()
        label = (f"{self.entity_name(row['from_entity'])} —{row['kind'].replace('_', ' ')}→ "
                 f"{self.entity_name(row['to_entity'])}")

        def apply(values: dict[str, Any]) -> None:
            values.pop("other", None)
            self._run(f"Edit relation {label}",
                      lambda: memory.edit_relation(relation_id, **values), "entities")

        dialog = RelationDialog(f"Edit the relation {label}", dict(row), apply,
                                self._parent(parent))
        return self._show(dialog)

    def set_entities(self, ids: list[int], label: str, **fields: Any) -> list[str]:
        """One field (kind or domain) on several entities, as one undoable step."""
        memory = self.session.require()
        stack = self.session.undo_stack
        errors: list[str] = []
        stack.beginMacro(f"{label} ({len(ids)} entities)")
        try:
            for entity_id in ids:
                try:
                    self._run(label, lambda e=entity_id: memory.edit_entity(e, **fields),
                              "entities")
                except PulseError as exc:
                    errors.append(str(exc))
        finally:
            stack.endMacro()
        return errors

    # -- belief fields on several rows (the beliefs table and the navigator) ---------------------
    def set_beliefs(self, items: list[tuple[str, int]], fields: dict[str, Any] | None,
                    label: str, *, pin: bool = False) -> list[str]:
        """One undoable edit over events and/or facts, written on the writer thread
        (pulse_desktop/write_thread.py, as the Beliefs table's own edits): the refusal said at
        once, if any (nothing written then). A refusal the writer meets later is shown in a
        message box (session.refused)."""
        self._writable()
        now: list[str] = []
        write_beliefs(self.session, list(items), fields, label, pin=pin, refused_now=now.append,
                      on_failed=lambda text: self.session.refused.emit("Not changed", text))
        return now

    def floor(self, items: list[tuple[str, int]], parent: QWidget | None = None) -> FloorDialog:
        """The floor dialog, starting at the first (current) row's floor."""
        if not items:
            raise PulseError("select one or more rows first")
        rows = []
        for kind, item_id in items:
            table = "events" if kind == "event" else "facts"
            row = self.conn.execute(f"SELECT confidence_floor, belief_class FROM {table}"
                                    " WHERE id = ?", (item_id,)).fetchone()
            if row is not None:
                rows.append(row)
        current = float(rows[0][0]) if rows else 0.0
        axioms = sum(1 for r in rows if r[1] == "axiom")

        def apply(values: dict[str, Any]) -> None:
            value = values["confidence_floor"]
            errors = self.set_beliefs(items, {"confidence_floor": value},
                                      f"Set floor to {value:.2f}")
            if errors:
                raise PulseError(errors[0])

        return self._show(FloorDialog(len(items), current, axioms, apply, self._parent(parent)))

    # -- erase ------------------------------------------------------------------------------
    def erase(self, refs: list[str], title: str, *, cascade: bool = False,
              parent: QWidget | None = None) -> EraseDialog:
        self._writable()
        can_cascade = len(refs) == 1 and refs[0].startswith("entity:")
        dialog = EraseDialog(self.session, refs, title, cascade=cascade and can_cascade,
                             can_cascade=can_cascade, parent=self._parent(parent))
        return self._show(dialog)
