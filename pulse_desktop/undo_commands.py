"""QUndoCommands over the core's journaled belief commands.

Every redo and undo is itself a core command (``Memory.set_belief`` / ``Memory.pin`` for events,
``Memory.set_fact_belief`` for facts), so each step writes one journal row and the store
enforces the invariants. The edit is tried against
the core *before* the command is pushed (``apply_first``): a refusal never reaches the stack,
and the first ``redo()`` that QUndoStack.push makes is then a no-op.

Another program (the companion through ``pulse mcp``, the CLI) may change the same row between
an edit and its undo. Each undo and redo therefore passes ``expect=`` the fields as this command
left them; when the row has moved since, the core refuses (ConflictError), nothing is
overwritten, the user is told why and the command leaves the stack.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QUndoCommand

from core import beliefs
from core.beliefs import BELIEF_FIELDS
from core.errors import ConflictError, PulseError
from pulse_desktop.session import MemorySession

Item = tuple[str, int]      # ("event" | "fact", id)
FACT_FIELDS = tuple(f for f in BELIEF_FIELDS if f != "user_flag")


def belief_fields(session: MemorySession, item_id: int, kind: str = "event") -> dict[str, Any]:
    return item_fields(session.require(), item_id, kind)


def item_fields(memory: Any, item_id: int, kind: str = "event") -> dict[str, Any]:
    """The belief fields of one event or fact, read through `memory` (any thread's own)."""
    if kind == "fact":
        row = memory.conn.execute("SELECT * FROM facts WHERE id = ?", (int(item_id),)).fetchone()
        if row is None:
            raise PulseError(f"no fact {item_id}")
        return {k: row[k] for k in FACT_FIELDS}
    row = memory.event(item_id)
    return {k: row[k] for k in BELIEF_FIELDS}


class BeliefCommand(QUndoCommand):
    """Set belief fields of one event or fact (or pin an event as a core wound); undo restores
    the old ones."""

    def __init__(self, session: MemorySession, item_id: int, new: dict[str, Any] | None,
                 old: dict[str, Any], text: str, *, pin: bool = False,
                 kind: str = "event") -> None:
        super().__init__(text)
        if kind not in ("event", "fact"):
            raise ValueError(f"kind must be 'event' or 'fact', not {kind!r}")
        if pin and kind != "event":
            raise ValueError("only events can be pinned as core wounds")
        self.session = session
        self.kind = kind
        self.item_id = int(item_id)
        self.new = dict(new or {})
        self.old = dict(old)
        self.pin = pin
        self._skip_redo = False
        self.error: str | None = None
        self.after: dict[str, Any] | None = None   # the fields as the forward edit left them

    @property
    def event_id(self) -> int:        # the older name (events only)
        return self.item_id

    def apply_first(self) -> bool:
        """Do the edit now; False (and `error`) when the core refuses it. Nothing is pushed."""
        try:
            self._forward()
        except PulseError as exc:
            self.error = str(exc)
            return False
        self._skip_redo = True
        return True

    def _set(self, fields: dict[str, Any], expect: dict[str, Any] | None = None) -> int | None:
        memory = self.session.require()
        if self.kind == "fact":
            return memory.set_fact_belief(self.item_id, expect=expect, **fields)
        return memory.set_belief(self.item_id, expect=expect, **fields)

    def _forward(self, expect: dict[str, Any] | None = None) -> int | None:
        if self.pin:
            seq = self.session.require().pin(self.item_id, expect=expect)
        else:
            seq = self._set(self.new, expect)
        self.after = belief_fields(self.session, self.item_id, self.kind)
        return seq

    def redo(self) -> None:
        if self._skip_redo:
            self._skip_redo = False
        else:   # the row must still be as the undo left it
            self._run(lambda: self._forward(expect=self.old), "redo")
        self.session.notify("beliefs", [self.item])

    def undo(self) -> None:   # the row must still be as the edit left it
        self._run(lambda: self._set(self.old, expect=self.after), "undo")
        self.session.notify("beliefs", [self.item])

    @property
    def item(self) -> Item:
        return (self.kind, self.item_id)

    def _run(self, fn, what: str) -> None:
        # Another program may have changed the row meanwhile: say so, drop the command.
        try:
            fn()
        except ConflictError as exc:
            self.error = f"Cannot {what} “{self.text()}”: {exc}."
            self.session.message.emit(self.error)
            self.session.refused.emit(f"Cannot {what}", self.error)
            self.setObsolete(True)
        except PulseError as exc:
            self.error = f"Cannot {what} “{self.text()}”: {exc}"
            self.session.message.emit(self.error)
            self.setObsolete(True)


def _items(ids: list[Any], kind: str) -> list[Item]:
    """Plain ids (of `kind`) or ("event" | "fact", id) pairs → pairs."""
    out: list[Item] = []
    for item in ids:
        if isinstance(item, tuple):
            out.append((str(item[0]), int(item[1])))
        else:
            out.append((kind, int(item)))
    return out


def push_edit(session: MemorySession, ids: list[Any], new: dict[str, Any] | None, text: str,
              *, pin: bool = False, kind: str = "event") -> list[str]:
    """Apply one edit to several events and/or facts as one undoable step; returns the refusals.

    `ids` are event ids (or fact ids with kind="fact"), or ("event" | "fact", id) pairs.
    All-or-nothing: if the core refuses any row, the ones already applied are put back and
    nothing reaches the undo stack."""
    items = _items(ids, kind)
    if not items:
        return []
    if pin and any(k != "event" for k, _ in items):
        return ["Only events can be pinned as core wounds; facts have no pin."]
    # Check every row first, so a refusal writes nothing at all (not even a roll-back row).
    olds: dict[Item, dict[str, Any]] = {}
    for item in items:
        item_kind, item_id = item
        try:
            olds[item] = belief_fields(session, item_id, item_kind)
            after = beliefs.core_wound(olds[item]) if pin else (new or {})
            if item_kind == "fact" and "user_flag" in after:
                raise PulseError(f"fact {item_id}: facts have no anchor (user flag)")
            beliefs.check_belief({**olds[item], **after}, _label(session, item))
        except PulseError as exc:
            return [str(exc)]
    done: list[BeliefCommand] = []
    for item in items:
        cmd = BeliefCommand(session, item[1], new, olds[item], text, pin=pin, kind=item[0])
        if not cmd.apply_first():
            return _roll_back(done, [cmd.error or "refused"])
        done.append(cmd)
    _push(session, done, text)
    return []


def _push(session: MemorySession, done: list[BeliefCommand], text: str) -> None:
    """Put edits already applied on the undo stack, as one step (its first redo does nothing)."""
    if len(done) == 1:
        session.undo_stack.push(done[0])
    else:
        kinds = {c.kind for c in done}
        noun = "events" if kinds == {"event"} else "facts" if kinds == {"fact"} else "rows"
        session.undo_stack.push(BulkCommand(session, done, f"{text} ({len(done)} {noun})"))


# -- the same edit, written off the UI thread -----------------------------------------------------
# At 100k events the UI thread must not wait on SQLite (a busy file, a checkpoint): the Beliefs
# table writes through pulse_desktop/write_thread.py. `apply_edit` runs there, on that thread's
# own Memory; `push_applied` then runs on the UI thread with what it returned.

def check_edit(memory: Any, items: list[Item], new: dict[str, Any] | None, *,
               pin: bool = False) -> dict[Item, dict[str, Any]]:
    """The rows' belief fields now; PulseError when the edit would break a rule (reads only)."""
    if pin and any(k != "event" for k, _ in items):
        raise PulseError("Only events can be pinned as core wounds; facts have no pin.")
    olds: dict[Item, dict[str, Any]] = {}
    for kind, item_id in items:
        olds[(kind, item_id)] = old = item_fields(memory, item_id, kind)
        after = beliefs.core_wound(old) if pin else (new or {})
        if kind == "fact" and "user_flag" in after:
            raise PulseError(f"fact {item_id}: facts have no anchor (user flag)")
        beliefs.check_belief({**old, **after}, _memory_label(memory, (kind, item_id)))
    return olds


def apply_edit(memory: Any, items: list[Item], new: dict[str, Any] | None, *,
               pin: bool = False) -> dict[str, Any]:
    """Check every row, then write them all in one transaction (all or nothing: a refusal raises
    PulseError and nothing is written). Returns {"applied": [(item, old, after)], "seqs": the
    journal rows written}."""
    with memory.atomic():
        head = memory.conn.execute("SELECT COALESCE(MAX(seq), 0) FROM journal").fetchone()[0]
        olds = check_edit(memory, items, new, pin=pin)
        applied = []
        for kind, item_id in items:
            if pin:
                memory.pin(item_id)
            elif kind == "fact":
                memory.set_fact_belief(item_id, **(new or {}))
            else:
                memory.set_belief(item_id, **(new or {}))
            applied.append(((kind, item_id), olds[(kind, item_id)],
                            item_fields(memory, item_id, kind)))
        seqs = [int(r[0]) for r in memory.conn.execute(
            "SELECT seq FROM journal WHERE seq > ?", (head,))]
    return {"applied": applied, "seqs": seqs}


def push_applied(session: MemorySession, applied: list[tuple[Item, dict, dict]],
                 new: dict[str, Any] | None, text: str, *, pin: bool = False) -> None:
    """The undo step for an edit apply_edit made (UI thread); tells the views which rows moved."""
    done = []
    for (kind, item_id), old, after in applied:
        cmd = BeliefCommand(session, item_id, new, old, text, pin=pin, kind=kind)
        cmd.after = dict(after)
        cmd._skip_redo = True
        done.append(cmd)
    if done:
        _push(session, done, text)


class BulkCommand(QUndoCommand):
    """One undoable step over several rows, undone and redone in one transaction: when another
    program changed any of the rows since, none of them is touched."""

    def __init__(self, session: MemorySession, commands: list[BeliefCommand], text: str) -> None:
        super().__init__(text)
        self.session = session
        self.commands = commands
        self._skip_redo = True      # the edits were applied before the push
        self.error: str | None = None

    def redo(self) -> None:
        if self._skip_redo:
            self._skip_redo = False
        else:
            self._run(lambda: [c._forward(expect=c.old) for c in self.commands], "redo")
        self.session.notify("beliefs", [c.item for c in self.commands])

    def undo(self) -> None:
        self._run(lambda: [c._set(c.old, expect=c.after) for c in reversed(self.commands)],
                  "undo")
        self.session.notify("beliefs", [c.item for c in self.commands])

    def _run(self, fn, what: str) -> None:
        try:
            with self.session.require().atomic():
                fn()
        except ConflictError as exc:
            self.error = f"Cannot {what} “{self.text()}”: {exc}."
            self.session.message.emit(self.error)
            self.session.refused.emit(f"Cannot {what}", self.error)
            self.setObsolete(True)
        except PulseError as exc:
            self.error = f"Cannot {what} “{self.text()}”: {exc}"
            self.session.message.emit(self.error)
            self.setObsolete(True)


def _label(session: MemorySession, item: Item) -> str:
    return _memory_label(session.require(), item)


def _memory_label(memory: Any, item: Item) -> str:
    kind, item_id = item
    if kind == "fact":
        return f"fact {item_id}"
    row = memory.conn.execute("SELECT key FROM events WHERE id = ?", (item_id,)).fetchone()
    return f"event {row[0] if row and row[0] else item_id}"


def _roll_back(done: list[BeliefCommand], errors: list[str]) -> list[str]:
    for cmd in reversed(done):
        try:
            cmd._set(cmd.old)
        except PulseError as exc:  # pragma: no cover - the old values were valid a moment ago
            errors.append(f"could not put {cmd.kind} {cmd.item_id} back: {exc}")
    if done:
        done[0].session.notify("beliefs", [c.item for c in done])
    return errors


# -- any journaled core operation ---------------------------------------------------------------

class JournalCommand(QUndoCommand):
    """One journaled core operation (a merge, a link, an emotion edit, a new text version…) on
    the undo stack. Undo appends the core's inverse of its journal row (Memory.undo(seq)); redo
    inverts that undo row in turn. The operation itself ran before the push, so the first
    redo() that QUndoStack.push makes does nothing."""

    def __init__(self, session: MemorySession, seq: int, text: str, what: str) -> None:
        super().__init__(text)
        self.session = session
        self.seq = int(seq)          # the journal row now in effect (the op, then undo, redo…)
        self.what = what             # which views refresh: "events", "entities", "beliefs"
        self._first = True
        self.error: str | None = None

    def redo(self) -> None:
        if self._first:
            self._first = False
        else:
            self._flip("redo")
        self.session.notify(self.what)

    def undo(self) -> None:
        self._flip("undo")
        self.session.notify(self.what)

    def _flip(self, what: str) -> None:
        try:   # the core refuses when a later change (here or in another program) touched it
            self.seq = int(self.session.require().undo(self.seq)["seq"])
        except PulseError as exc:
            self.error = f"Cannot {what} “{self.text()}”: {exc}"
            self.session.message.emit(self.error)
            self.session.refused.emit(f"Cannot {what}", self.error)
            self.setObsolete(True)


def journal_seq(result: Any) -> int | None:
    """The journal seq a core operation returned (an int, a dict with "seq", or None)."""
    if isinstance(result, dict):
        result = result.get("seq")
    return None if result is None or isinstance(result, bool) else int(result)


def push_journaled(session: MemorySession, text: str, fn: Any, *, what: str = "all") -> Any:
    """Run one journaled core operation and put it on the undo stack. Returns what fn returned
    (None when nothing changed); PulseError propagates, and nothing is pushed."""
    if session.read_only:
        raise PulseError(session.read_only_reason or "This memory is open read-only.")
    result = fn()
    seq = journal_seq(result)
    if seq is not None:
        session.undo_stack.push(JournalCommand(session, seq, text, what))
    else:
        session.notify(what)
    return result
