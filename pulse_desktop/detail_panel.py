"""The detail panel: everything about the selected entity, event or fact — facts, events,
relations, evidence with the observation text it came from, emotions, provenance, how often the
companion recalled it (the recall log) and the journal history of that item. Links select other
items (and so every view follows).

Curation starts here too: buttons above the text edit, link, merge, split or erase the item,
and each chain link and relation has its own "weight / remove" or "edit / erase" links. They
all go through the session's Curator (pulse_desktop/curation.py), onto the undo stack."""

from __future__ import annotations

import html
import json
from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtWidgets import (
    QMenu,
    QMessageBox,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.emotion.plutchik import EMOTIONS
from core.errors import PulseError, is_database_error
from pulse_desktop.detail_storyline import StorylineSection
from pulse_desktop.flow_layout import flow_row
from pulse_desktop.session import MemorySession
from pulse_desktop.style import (
    CLASS_COLORS,
    CLASS_NAMES,
    DOMAIN_COLORS,
    DOMAIN_NAMES,
    EMOTION_COLORS,
)

MAX_LIST = 150
MAX_OBS_CHARS = 1500
CSS = """
h2 { font-size: 15pt; margin: 0 0 4px 0; color: #1f2733; }
h3 { font-size: 9pt; color: #5b6678; margin: 14px 0 4px 0; text-transform: uppercase; }
p { margin: 3px 0; }
.note { color: #6b7585; }
.recall { color: #0f6f64; }
.chip { color: #ffffff; }
.quote { background: #f5f6fa; color: #2d3645; }
a { color: #3455c9; text-decoration: none; }
td { padding: 1px 4px; }
"""


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def chip(text: str, colour: str = "#7a8594") -> str:
    # one piece: a narrow panel (220 px at 1024) moves a chip to the next line, never splits it
    whole = esc(text).replace(" ", "&nbsp;")
    return f'<span style="background:{colour}; color:#ffffff;">&nbsp;{whole}&nbsp;</span>'


def link(kind: str, item_id: int, text: str) -> str:
    return f'<a href="pulse://{kind}/{int(item_id)}">{esc(text)}</a>'


def action(name: str, *ids: int, text: str) -> str:
    """A curation link (pulse-act://NAME/ID/…) handled by the panel, not a selection."""
    return (f'<a href="pulse-act://{name}/{"/".join(str(int(i)) for i in ids)}">'
            f'{esc(text)}</a>')


class DetailPanel(QWidget):
    def __init__(self, session: MemorySession, parent=None) -> None:
        super().__init__(parent)
        self.session = session
        self.browser = QTextBrowser()
        self.browser.setAccessibleName("Details of the selection")
        self.browser.setOpenLinks(False)
        self.browser.setOpenExternalLinks(False)
        self.browser.document().setDefaultStyleSheet(CSS)
        self.browser.anchorClicked.connect(self._follow)
        self.edit_button = self._button("Edit…", "Change what the importer got wrong", self.edit)
        self.link_button = self._button("Link…", "Add a cause → effect link to another event",
                                        self.add_link)
        self.merge_button = self._button("Merge…", "Merge another entity into this one (or this "
                                         "one into it), with a preview", self.merge)
        self.more_button = QToolButton(text="More")
        self.more_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        more = QMenu(self.more_button)
        self.split_action = more.addAction("Split an alias out…", self.split_alias)
        self.relation_action = more.addAction("Add a relation…", self.add_relation)
        self.more_button.setMenu(more)
        self.erase_button = self._button("Erase…", "Erase it everywhere, for good (a preview "
                                         "shows what goes first)", self.erase)
        # the buttons wrap onto a second row when the panel is narrow (never cut off)
        bar = flow_row(self.edit_button, self.link_button, self.merge_button, self.more_button,
                       None, self.erase_button, spacing=4)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 8, 8, 8)
        layout.addWidget(bar)
        layout.addWidget(self.browser)
        self.storyline = StorylineSection(session, self)
        self.storyline.ready.connect(self._storyline_ready)
        # bound methods, not lambdas: Qt drops them when this widget is deleted
        session.selected.connect(self.refresh)
        session.changed.connect(self.refresh)
        session.opened.connect(self.refresh)
        self.refresh()

    def text(self) -> str:
        return self.browser.toPlainText()

    def _button(self, text: str, tip: str, slot) -> QToolButton:
        button = QToolButton(text=text)
        button.setToolTip(tip)
        button.clicked.connect(lambda _checked=False: slot())
        return button

    def _update_buttons(self) -> None:
        selection = self.session.selection if self.session.memory is not None else None
        kind = selection[0] if selection else None
        writable = selection is not None and not self.session.read_only
        self.edit_button.setVisible(kind in ("event", "entity"))
        self.link_button.setVisible(kind == "event")
        self.merge_button.setVisible(kind == "entity")
        self.more_button.setVisible(kind == "entity")
        self.erase_button.setVisible(kind is not None)
        for w in (self.edit_button, self.link_button, self.merge_button, self.more_button,
                  self.erase_button):
            w.setEnabled(writable)

    # -- curation -------------------------------------------------------------------------------
    def _curate(self, fn, *args):
        """Run a Curator call; a refusal is a message box, never a crash."""
        from pulse_desktop.curation import curator

        try:
            return fn(curator(self.session), *args)
        except PulseError as exc:
            self.session.message.emit(f"Not changed: {exc}")
            QMessageBox.warning(self, "Not changed", str(exc))
            return None

    def edit(self):
        kind, item_id = self.session.selection
        if kind == "event":
            return self._curate(lambda c: c.edit_event(item_id, self))
        return self._curate(lambda c: c.edit_entity(item_id, self))

    def add_link(self):
        return self._curate(lambda c: c.add_link(self.session.selection[1], self))

    def merge(self):
        return self._curate(lambda c: c.merge(self.session.selection[1], self))

    def split_alias(self):
        return self._curate(lambda c: c.split_alias(self.session.selection[1], self))

    def add_relation(self):
        return self._curate(lambda c: c.add_relation(self.session.selection[1], self))

    def erase(self):
        kind, item_id = self.session.selection
        conn = self.session.require().conn
        if kind == "entity":
            name = conn.execute("SELECT canonical_name FROM entities WHERE id = ?",
                                (item_id,)).fetchone()
            title = name[0] if name else f"entity {item_id}"
            return self._curate(lambda c: c.erase([f"entity:{item_id}"], title, cascade=True,
                                                  parent=self))
        table = {"event": "SELECT title FROM events", "fact": "SELECT text FROM facts"}[kind]
        row = conn.execute(f"{table} WHERE id = ?", (item_id,)).fetchone()
        title = f"“{row[0][:60]}”" if row else f"{kind} {item_id}"
        return self._curate(lambda c: c.erase([f"{kind}:{item_id}"], title, parent=self))

    def _act(self, url: QUrl) -> None:
        name = url.host()
        try:
            ids = [int(p) for p in url.path().strip("/").split("/")]
        except ValueError:
            return
        if name == "unlink":
            self._curate(lambda c: c.remove_link(*ids))
        elif name == "link":
            self._curate(lambda c: c.edit_link(*ids, parent=self))
        elif name == "relation":
            self._curate(lambda c: c.edit_relation(ids[0], self))
        elif name == "erase-relation":
            self._curate(lambda c: c.erase([f"relation:{ids[0]}"], "a relation", parent=self))

    def _follow(self, url: QUrl) -> None:
        if url.scheme() == "pulse-act":
            self._act(url)
            return
        if url.scheme() != "pulse":
            return
        kind = url.host()
        try:
            item_id = int(url.path().strip("/"))
        except ValueError:
            return
        if kind == "restore":
            self.restore(item_id)
            return
        if kind == "recall":
            self.session.show_recall.emit(item_id)
            return
        self.session.select(kind, item_id)

    def restore(self, event_id: int) -> None:
        """Unarchive an event (one journaled step, on the undo stack)."""
        from pulse_desktop.undo_commands import JournalCommand

        memory = self.session.memory
        if memory is None or self.session.read_only:
            return
        try:
            out = memory.restore(event_id)
        except PulseError as exc:
            self.session.message.emit(f"Cannot restore event {event_id}: {exc}")
            return
        self.session.undo_stack.push(JournalCommand(self.session, out["seq"],
                                                    f"Restore event {event_id}", "all"))
        self.session.message.emit(f"Event {event_id} restored — Ctrl+Z archives it again")
        self.session.notify("all")

    def _storyline_ready(self, event_id: int) -> None:
        if self.session.selection == ("event", event_id):
            self.refresh()

    def refresh(self, *_args) -> None:
        self._update_buttons()
        memory = self.session.memory
        if memory is None:
            self.browser.setHtml("")
            return
        if self.session.selection is None:
            self.browser.setHtml(
                '<p class="note">Select an entity or an event — in the navigator, the graph, the '
                "timeline or the beliefs table — to see its facts, events, relations, the "
                "observations it came from, its emotions and its journal history.</p>")
            return
        kind, item_id = self.session.selection
        conn = memory.conn
        try:
            body = {"event": self._event, "entity": self._entity, "fact": self._fact}.get(
                kind, lambda c, i: f"<p>Unknown item {esc(kind)} {item_id}</p>")(conn, item_id)
        except Exception as exc:  # the file changed under us: say so, don't crash
            if not is_database_error(exc):
                raise
            body = f'<p class="note">Cannot read this item: {esc(exc)}</p>'
        self.browser.setHtml(body)

    # -- sections --------------------------------------------------------------------------------
    def _event(self, conn: Any, event_id: int) -> str:
        ev = conn.execute("SELECT * FROM events WHERE id = ?", (event_id,)).fetchone()
        if ev is None:
            return f'<p class="note">Event {event_id} is no longer in this memory.</p>'
        out = [f"<h2>{esc(ev['title'])}</h2>"]
        chips = [chip(ev["key"] or f"#{ev['id']}", "#5f6b7a"),
                 chip(DOMAIN_NAMES.get(ev["domain"], ev["domain"]), DOMAIN_COLORS.get(ev["domain"], "#777")),
                 chip(CLASS_NAMES.get(ev["belief_class"], ev["belief_class"]),
                      CLASS_COLORS.get(ev["belief_class"], "#777"))]
        if ev["user_flag"]:
            chips.append(chip("anchor", "#b07a10"))
        if not ev["archivable"]:
            chips.append(chip("pinned", "#b03a48"))
        archived = "archived" in ev.keys() and bool(ev["archived"])
        if archived:
            chips.append(chip("archived", "#7a8594"))
        out.append("<p>" + " ".join(chips) + "</p>")
        out.append(f'<p class="note">{esc(ev["ts"].replace("T", " ").replace("Z", " UTC"))}'
                   f" · floor {ev['confidence_floor']:.2f} · provenance "
                   f"{esc(ev['provenance'].replace('_', ' '))}"
                   + (f" · {esc(ev['sentiment_label'])}" if ev["sentiment_label"] else "")
                   + f" · sentiment {ev['sentiment']:+.2f} · intensity {ev['intensity']:.2f}</p>")
        out.append(self._recalled(event_id))
        if ev["description"]:
            out.append(f"<p>{esc(ev['description'])}</p>")
        if archived:
            out.append("<p class=\"note\">Archived: no longer recalled or briefed. "
                       + link("restore", event_id, "Restore it") + "</p>")
        if ev["absorbed_into"]:
            into = conn.execute("SELECT provenance FROM events WHERE id = ?",
                                (ev["absorbed_into"],)).fetchone()
            edited = conn.execute("SELECT 1 FROM journal WHERE subject = ? AND op = 'event.text'"
                                  " LIMIT 1", (f"event:{ev['absorbed_into']}",)).fetchone()
            # a distilled pattern absorbs its members; a later version of a message replaces
            # what the earlier one said (core/ingest/pipeline.py Writer._supersede); a text
            # edited here makes a new version too (core/curate/events.py)
            verb = ("Replaced by the edited text, now" if edited else
                    "Absorbed into the pattern" if into is None or into[0] == "memory_pattern"
                    else "Replaced by the edited message's")
            out.append(f"<p class=\"note\">{verb} "
                       + link("event", ev["absorbed_into"], f"event {ev['absorbed_into']}") + "</p>")

        emo = conn.execute("SELECT * FROM event_emotions WHERE event_id = ?", (event_id,)).fetchone()
        if emo is not None:
            values = sorted(((name, float(emo[name])) for name in EMOTIONS), key=lambda x: -x[1])
            values = [v for v in values if v[1] > 0.01]
            if values:
                out.append("<h3>Emotions</h3><table cellspacing='0'>")
                for name, value in values[:6]:
                    width = max(2, int(value * 110))
                    out.append(
                        f"<tr><td nowrap>{esc(name)}&nbsp;</td><td><table cellspacing='0' cellpadding='0'><tr>"
                        f"<td width='{width}' height='9' bgcolor='{EMOTION_COLORS.get(name, '#999')}'>"
                        f"</td></tr></table></td><td class='note'>{value:.2f}</td></tr>")
                out.append("</table>")
                if emo["derivation"] == "user_confirmed":
                    out.append('<p class="note">confirmed by you (no import overwrites them)</p>')
                else:
                    out.append(f'<p class="note">{esc(emo["derivation"])} by '
                               f"{esc(emo['tagger'])} {esc(emo['tagger_version'])}</p>")
        try:
            bio = json.loads(ev["biometrics"] or "{}")
        except ValueError:
            bio = {}
        if bio:
            out.append("<h3>Biometrics</h3><p class='note'>"
                       + esc(", ".join(f"{k} {v}" for k, v in sorted(bio.items()))) + "</p>")

        out.append(self.storyline.html(ev))     # read on the query thread
        ents = conn.execute(
            "SELECT n.id, n.canonical_name, n.kind FROM event_entities x JOIN entities n"
            " ON n.id = x.entity_id WHERE x.event_id = ? ORDER BY n.canonical_name",
            (event_id,)).fetchall()
        if ents:
            out.append(f"<h3>Entities ({len(ents)})</h3><p>" + ", ".join(
                link("entity", r["id"], r["canonical_name"]) for r in ents) + "</p>")
        chain = conn.execute(
            "SELECT 'after' AS dir, c.parent_id AS other, c.kind, c.strength, e.title, e.ts"
            " FROM event_chains c JOIN events e ON e.id = c.parent_id WHERE c.child_id = ?"
            " UNION ALL SELECT 'led to', c.child_id, c.kind, c.strength, e.title, e.ts"
            " FROM event_chains c JOIN events e ON e.id = c.child_id WHERE c.parent_id = ?"
            " ORDER BY 6", (event_id, event_id)).fetchall()
        if chain:
            out.append("<h3>Chain</h3>")
            for r in chain:
                pair = ((r["other"], event_id) if r["dir"] == "after" else (event_id, r["other"]))
                tools = "" if self.session.read_only else (
                    " · " + action("link", *pair, text="weight") + " · "
                    + action("unlink", *pair, text="remove"))
                out.append(f"<p>{esc(r['dir'])} {link('event', r['other'], r['title'])}"
                           f" <span class='note'>· {esc(r['kind'])} {r['strength']:.2f}"
                           f"{tools}</span></p>")
        obs_ids = [ev["source_observation"]] if ev["source_observation"] else []
        obs_ids += [r[0] for r in conn.execute(
            "SELECT observation_id FROM evidence WHERE row_kind = 'event' AND row_id = ?",
            (event_id,)) if r[0] not in obs_ids]
        out.append(self._observations(conn, obs_ids))
        out.append(self._history(conn, f"event:{event_id}"))
        return "".join(out)

    def _entity(self, conn: Any, entity_id: int) -> str:
        n = conn.execute("SELECT * FROM entities WHERE id = ?", (entity_id,)).fetchone()
        if n is None:
            return f'<p class="note">Entity {entity_id} is no longer in this memory.</p>'
        out = [f"<h2>{esc(n['canonical_name'])}</h2>"]
        chips = [chip(n["kind"].replace("_", " "), "#5f6b7a"),
                 chip(DOMAIN_NAMES.get(n["domain"], n["domain"]), DOMAIN_COLORS.get(n["domain"], "#777")),
                 chip(f"salience {n['salience']:.2f}", "#7a8594")]
        if n["is_self"]:
            chips.append(chip("self", "#4f6fe0"))
        if n["do_not_probe"]:
            chips.append(chip("do not probe", "#b03a48"))
        out.append("<p>" + " ".join(chips) + "</p>")
        try:
            aliases = [str(a) for a in json.loads(n["aliases"] or "[]")]
        except ValueError:
            aliases = []
        if aliases:
            out.append(f'<p class="note">also: {esc(", ".join(aliases))}</p>')
        seen = " → ".join(x[:10] for x in (n["first_seen"], n["last_seen"]) if x)
        if seen:
            out.append(f'<p class="note">seen {esc(seen)}</p>')
        if n["description"]:
            out.append(f"<p>{esc(n['description'])}</p>")

        facts = conn.execute("SELECT * FROM facts WHERE entity_id = ? ORDER BY confidence DESC, id",
                             (entity_id,)).fetchall()
        if facts:
            out.append(f"<h3>Facts ({len(facts)})</h3>")
            for f in facts:
                out.append(f"<p>{link('fact', f['id'], f['text'])}<br><span class='note'>"
                           f"{esc(CLASS_NAMES.get(f['belief_class'], f['belief_class']))} · "
                           f"confidence {f['confidence']:.2f}"
                           + (" · verified" if f["verified"] else "") + "</span></p>")
        events = conn.execute(
            "SELECT e.id, e.title, e.ts, e.belief_class, e.user_flag FROM event_entities x"
            " JOIN events e ON e.id = x.event_id WHERE x.entity_id = ? AND e.absorbed_into IS NULL"
            " ORDER BY e.ts", (entity_id,)).fetchall()
        if events:
            out.append(f"<h3>Events ({len(events)})</h3>")
            for e in events[:MAX_LIST]:
                out.append(f"<p><span class='note'>{esc(e['ts'][:10])}</span> "
                           f"{link('event', e['id'], e['title'])}"
                           + (" ⚓" if e["user_flag"] else "") + "</p>")
            if len(events) > MAX_LIST:
                out.append(f'<p class="note">… and {len(events) - MAX_LIST} more</p>')
        rels = conn.execute(
            "SELECT '→' AS dir, r.kind, r.strength, r.context, n.id AS other, n.canonical_name,"
            " r.id AS rel FROM relations r JOIN entities n ON n.id = r.to_entity"
            " WHERE r.from_entity = ?"
            " UNION ALL SELECT '←', r.kind, r.strength, r.context, n.id, n.canonical_name, r.id"
            " FROM relations r JOIN entities n ON n.id = r.from_entity WHERE r.to_entity = ?"
            " ORDER BY 3 DESC", (entity_id, entity_id)).fetchall()
        if rels:
            out.append(f"<h3>Relations ({len(rels)})</h3>")
            for r in rels[:MAX_LIST]:
                ctx = f" — {esc(r['context'])}" if r["context"] else ""
                tools = "" if self.session.read_only else (
                    " · " + action("relation", r["rel"], text="edit") + " · "
                    + action("erase-relation", r["rel"], text="erase"))
                out.append(f"<p>{r['dir']} {esc(r['kind'].replace('_', ' '))} "
                           f"{link('entity', r['other'], r['canonical_name'])}"
                           f" <span class='note'>· strength {r['strength']:.2f}{ctx}"
                           f"{tools}</span></p>")
        obs_ids = [r[0] for r in conn.execute(
            "SELECT observation_id FROM evidence WHERE row_kind = 'entity' AND row_id = ?"
            " UNION SELECT v.observation_id FROM evidence v JOIN facts f ON f.id = v.row_id"
            " WHERE v.row_kind = 'fact' AND f.entity_id = ?", (entity_id, entity_id))]
        out.append(self._observations(conn, obs_ids[:5]))
        out.append(self._history(conn, f"entity:{entity_id}"))
        return "".join(out)

    def _fact(self, conn: Any, fact_id: int) -> str:
        f = conn.execute("SELECT f.*, n.canonical_name FROM facts f JOIN entities n"
                         " ON n.id = f.entity_id WHERE f.id = ?", (fact_id,)).fetchone()
        if f is None:
            return f'<p class="note">Fact {fact_id} is no longer in this memory.</p>'
        out = [f"<h2>{esc(f['text'])}</h2>",
               "<p>" + " ".join([
                   chip("fact", "#5f6b7a"),
                   chip(DOMAIN_NAMES.get(f["domain"], f["domain"]), DOMAIN_COLORS.get(f["domain"], "#777")),
                   chip(CLASS_NAMES.get(f["belief_class"], f["belief_class"]),
                        CLASS_COLORS.get(f["belief_class"], "#777"))]) + "</p>",
               f"<p>about {link('entity', f['entity_id'], f['canonical_name'])}</p>",
               f'<p class="note">confidence {f["confidence"]:.2f} · floor '
               f'{f["confidence_floor"]:.2f} · {"archivable" if f["archivable"] else "pinned"} · '
               f'{esc(f["provenance"].replace("_", " "))}'
               + (" · verified" if f["verified"] else "") + "</p>"]
        obs_ids = [r[0] for r in conn.execute(
            "SELECT observation_id FROM evidence WHERE row_kind = 'fact' AND row_id = ?", (fact_id,))]
        out.append(self._observations(conn, obs_ids))
        out.append(self._history(conn, f"fact:{fact_id}"))
        return "".join(out)

    def _recalled(self, event_id: int) -> str:
        """"recalled 7 times, last on 2026-11-20 for 'feeling abandoned'" (the recall log)."""
        memory = self.session.memory
        summary = memory.recall_summary(event_id)
        if summary is None:
            if not memory.recall_log_settings()["enabled"]:
                return '<p class="note">↺ the recall log is off for this memory</p>'
            return '<p class="note">↺ not recalled by a companion yet</p>'
        return (f'<p class="recall">↺ {esc(summary["line"])} '
                f'<span class="note">by {esc(summary["last_client"])} · </span>'
                f'<a href="pulse://recall/{int(summary["last_id"])}">show</a></p>')

    def _observations(self, conn: Any, ids: list[int]) -> str:
        if not ids:
            return ""
        marks = ",".join("?" * len(ids))
        rows = conn.execute(
            "SELECT id, source_kind, source_id, version, observed_at, captured_at, content_text,"
            f" redacted FROM observations WHERE id IN ({marks}) ORDER BY id", ids).fetchall()
        if not rows:
            return ""
        out = [f"<h3>Evidence ({len(rows)})</h3>"]
        for o in rows:
            when = (o["observed_at"] or o["captured_at"] or "")[:16].replace("T", " ")
            out.append(f'<p class="note">{esc(o["source_kind"])} · {esc(o["source_id"])}'
                       f" v{o['version']} · {esc(when)}</p>")
            if o["redacted"]:
                out.append('<p class="note"><i>The text of this observation was erased.</i></p>')
            else:
                text = o["content_text"] or ""
                if len(text) > MAX_OBS_CHARS:
                    text = text[:MAX_OBS_CHARS] + "…"
                out.append("<table width='100%' cellpadding='6' bgcolor='#f3f5fa'><tr><td>"
                           + esc(text).replace("\n", "<br>") + "</td></tr></table>")
        return "".join(out)

    def _history(self, conn: Any, subject: str) -> str:
        rows = conn.execute("SELECT seq, ts, actor, op, payload FROM journal WHERE subject = ?"
                            " ORDER BY seq", (subject,)).fetchall()
        if not rows:
            return ""
        out = [f"<h3>History ({len(rows)})</h3><table cellspacing='0'>"]
        for r in rows[-MAX_LIST:]:
            # one cell that wraps between its words: four narrow columns broke the time and
            # the operation in the middle ('2026-12-0' / '2 11:38') in a 269 px panel
            when = esc(r["ts"][:16]).replace("T", "&nbsp;")
            out.append(f"<tr><td class='note'>#{r['seq']}&nbsp;</td><td><span class='note'>"
                       f"{when}</span> <b>{esc(r['op'])}</b> <span class='note'>"
                       f"{esc(r['actor'])}</span></td></tr>")
            summary = summarise(r["payload"])
            if summary:
                out.append(f"<tr><td></td><td class='note'>{esc(summary)}</td></tr>")
        out.append("</table>")
        return "".join(out)


def summarise(payload: str) -> str:
    """One line for a journal payload: which fields moved from what to what."""
    try:
        data = json.loads(payload)
    except ValueError:
        return ""
    if data.get("redacted"):
        return "(erased)"
    parts: list[str] = []
    added: dict[str, int] = {}
    removed: dict[str, int] = {}
    for change in data.get("changes", []):
        table = str(change.get("t", "")).replace("_", " ")
        if change.get("a") == "update":
            old = change.get("old", {})
            parts += [f"{k} {_short(old.get(k))} → {_short(v)}"
                      for k, v in change.get("set", {}).items()]
        elif change.get("a") == "insert":
            added[table] = added.get(table, 0) + 1
        elif change.get("a") == "delete":
            removed[table] = removed.get(table, 0) + 1
    for verb, counts in (("added", added), ("removed", removed)):
        if counts:
            parts.append(f"{verb} " + ", ".join(f"{n} {t}" if n > 1 else t
                                                for t, n in counts.items()))
    return "; ".join(parts[:6])


def _short(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    text = str(value)
    return text if len(text) <= 30 else text[:29] + "…"
