"""QUndoCommands over the core's journaled belief commands.

Every redo and undo is itself a core command (``Memory.set_belief`` / ``Memory.pin``), so each
step writes one journal row and the store enforces the invariants. The edit is tried against
the core *before* the command is pushed (``apply_first``): a refusal never reaches the stack,
and the first ``redo()`` that QUndoStack.push makes is then a no-op.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QUndoCommand

from core import beliefs
from core.beliefs import BELIEF_FIELDS
from core.errors import PulseError
from pulse_desktop.session import MemorySession


def belief_fields(session: MemorySession, event_id: int) -> dict[str, Any]:
    row = session.require().event(event_id)
    return {k: row[k] for k in BELIEF_FIELDS}


class BeliefCommand(QUndoCommand):
    """Set belief fields of one event (or pin it as a core wound); undo restores the old ones."""

    def __init__(self, session: MemorySession, event_id: int, new: dict[str, Any] | None,
                 old: dict[str, Any], text: str, *, pin: bool = False) -> None:
        super().__init__(text)
        self.session = session
        self.event_id = int(event_id)
        self.new = dict(new or {})
        self.old = dict(old)
        self.pin = pin
        self._skip_redo = False
        self.error: str | None = None

    def apply_first(self) -> bool:
        """Do the edit now; False (and `error`) when the core refuses it. Nothing is pushed."""
        try:
            self._forward()
        except PulseError as exc:
            self.error = str(exc)
            return False
        self._skip_redo = True
        return True

    def _forward(self) -> int | None:
        memory = self.session.require()
        if self.pin:
            return memory.pin(self.event_id)
        return memory.set_belief(self.event_id, **self.new)

    def redo(self) -> None:
        if self._skip_redo:
            self._skip_redo = False
        else:
            self._run(self._forward, "redo")
        self.session.notify("beliefs")

    def undo(self) -> None:
        memory = self.session.require()
        self._run(lambda: memory.set_belief(self.event_id, **self.old), "undo")
        self.session.notify("beliefs")

    def _run(self, fn, what: str) -> None:
        # Another program may have changed the event meanwhile: say so, drop the command.
        try:
            fn()
        except PulseError as exc:
            self.error = f"Cannot {what} “{self.text()}”: {exc}"
            self.session.message.emit(self.error)
            self.setObsolete(True)


def push_edit(session: MemorySession, event_ids: list[int], new: dict[str, Any] | None, text: str,
              *, pin: bool = False) -> list[str]:
    """Apply one edit to several events as one undoable step; returns the refusals.

    All-or-nothing: if the core refuses any event, the ones already applied are put back and
    nothing reaches the undo stack."""
    if not event_ids:
        return []
    # Check every event first, so a refusal writes nothing at all (not even a roll-back row).
    olds: dict[int, dict[str, Any]] = {}
    for event_id in event_ids:
        try:
            olds[event_id] = belief_fields(session, event_id)
            after = beliefs.core_wound(olds[event_id]) if pin else (new or {})
            beliefs.check_belief({**olds[event_id], **after}, _label(session, event_id))
        except PulseError as exc:
            return [str(exc)]
    done: list[BeliefCommand] = []
    for event_id in event_ids:
        cmd = BeliefCommand(session, event_id, new, olds[event_id], text, pin=pin)
        if not cmd.apply_first():
            return _roll_back(done, [cmd.error or "refused"])
        done.append(cmd)
    if len(done) == 1:
        session.undo_stack.push(done[0])
    else:
        session.undo_stack.beginMacro(f"{text} ({len(done)} events)")
        for cmd in done:
            session.undo_stack.push(cmd)
        session.undo_stack.endMacro()
    return []


def _label(session: MemorySession, event_id: int) -> str:
    row = session.require().conn.execute("SELECT key FROM events WHERE id = ?",
                                          (event_id,)).fetchone()
    return f"event {row[0] if row and row[0] else event_id}"


def _roll_back(done: list[BeliefCommand], errors: list[str]) -> list[str]:
    for cmd in reversed(done):
        try:
            cmd.session.require().set_belief(cmd.event_id, **cmd.old)
        except PulseError as exc:  # pragma: no cover - the old values were valid a moment ago
            errors.append(f"could not put event {cmd.event_id} back: {exc}")
    if done:
        done[0].session.notify("beliefs")
    return errors
