"""The open memory, shared by every view: one Memory for the UI thread, the undo stack, the
current selection, the time brush and the item filter (kind, domain, class, search: set by the
navigator, followed by every view). Views listen to its signals instead of to each other."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from core.errors import PulseError
from core.memory import Memory


class MemorySession(QObject):
    opened = Signal()                 # a memory was opened (or closed: memory is None)
    changed = Signal(str)             # what changed: "events", "entities", "beliefs",
                                      # "corrections", "journal" or "all"
    selected = Signal(str, int)       # ("event" | "entity" | "fact", id); selecting anywhere
                                      # selects everywhere
    brushed = Signal(object, object)  # (start ISO | None, end ISO | None) from the timeline
    message = Signal(str)             # a status-bar message for the user
    filtered = Signal(object)         # the filter's result (Memory.filter_items) or None
    refused = Signal(str, str)        # (title, text): an action refused, shown in a dialog
    show_recall = Signal(int)         # open one recall-log record in the Recalls tab
    reading = Signal(str, int, int)   # (what, rows read, of about): a view reads its rows off
                                      # the UI thread (pulse_desktop/view_reads.py); done ==
                                      # total when it has them all, (what, 0, 0) if dropped

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.memory: Memory | None = None
        self.read_only_reason: str | None = None
        self.undo_stack = QUndoStack(self)
        self.selection: tuple[str, int] | None = None
        self.brush: tuple[str | None, str | None] = (None, None)
        self.item_filter: dict[str, str] = {}
        self.filter_result: dict | None = None
        # connected before any view: the result is fresh when the views reload on a change
        self.changed.connect(self._refilter)
        # (journal head, newest recall record) as this window last saw them
        # (pulse_desktop/live_refresh.py tells another program's changes from its own)
        self.marks: tuple[int, int] = (0, 0)
        # the rows a "beliefs" change touched, while `changed` is being emitted (None: unknown,
        # re-read everything); views of 100k rows update only these (bench/desktop_responsiveness.py)
        self.changed_items: list[tuple[str, int]] | None = None
        # journal rows this window wrote from its writer thread (pulse_desktop/write_thread.py),
        # and how many of its writes are in flight: live refresh must not take them for another
        # program's
        self.own_seqs: set[int] = set()
        self.writes_in_flight = 0
        # this window's long jobs that write through their own Memory (an import), by name →
        # what live refresh says while they run ("the import is adding to this memory")
        self.own_work: dict[str, str] = {}

    @property
    def path(self) -> Path | None:
        return self.memory.path if self.memory else None

    @property
    def read_only(self) -> bool:
        return self.memory is not None and self.memory.read_only

    def open(self, path: str | Path, *, create: bool = False,
             passphrase: str | None = None) -> None:
        """Open a memory; a journal that does not verify opens it read-only, with the reason.
        An encrypted one needs `passphrase` (PassphraseError otherwise, nothing touched); while
        it is open, the app's workers open it again without it."""
        memory = Memory.open(path, create=create, passphrase=passphrase)
        breaks = memory.verify()
        reason = None
        if breaks:
            memory.close()
            memory = Memory.open(path, read_only=True, passphrase=passphrase)
            reason = (f"The journal does not verify ({breaks[0]}); this memory is open "
                      "read-only until its history is repaired.")
        self.close()
        self.memory = memory
        self.read_only_reason = reason
        self.undo_stack.clear()
        self.own_seqs.clear()
        self._compute_filter()
        self.opened.emit()

    def close(self) -> None:
        if self.memory is not None:
            self.memory.close()
        self.memory = None
        self.selection = None
        self.brush = (None, None)
        self.filter_result = None

    def require(self) -> Memory:
        if self.memory is None:
            raise PulseError("no memory is open")
        return self.memory

    def select(self, kind: str, item_id: int) -> None:
        if self.selection == (kind, item_id):
            return
        self.selection = (kind, item_id)
        self.selected.emit(kind, item_id)

    def set_brush(self, start: str | None, end: str | None) -> None:
        self.brush = (start, end)
        self.brushed.emit(start, end)

    def notify(self, what: str = "all", items: list[tuple[str, int]] | None = None) -> None:
        """Tell every view what changed; `items` ("event" | "fact", id) narrows a "beliefs"
        change to those rows (read as `changed_items` while the signal is emitted)."""
        previous = self.changed_items
        self.changed_items = [(str(k), int(i)) for k, i in items] if items is not None else None
        try:
            self.changed.emit(what)
        finally:
            self.changed_items = previous

    # -- one filter for every view ------------------------------------------------------------
    def set_filter(self, *, kind: str | None = None, domain: str | None = None,
                   belief_class: str | None = None, text: str = "") -> bool:
        """The navigator's filter; every view shows what passes (see core/filters.py).
        Returns whether it changed (and `filtered` was emitted)."""
        wanted = {k: v for k, v in (("kind", kind), ("domain", domain),
                                    ("belief_class", belief_class),
                                    ("text", (text or "").strip())) if v}
        if wanted == self.item_filter and (self.filter_result is not None) == bool(wanted):
            return False
        self.item_filter = wanted
        self._compute_filter()
        self.filtered.emit(self.filter_result)
        return True

    def _compute_filter(self) -> None:
        result = None
        if self.memory is not None and self.item_filter:
            try:
                result = self.memory.filter_items(**self.item_filter)
            except PulseError as exc:
                self.message.emit(f"Filter: {exc}")
            if result is not None and not result["active"]:
                result = None
        self.filter_result = result

    def _refilter(self, what: str) -> None:
        if self.item_filter and what in ("all", "events", "entities", "beliefs"):
            self._compute_filter()
            self.filtered.emit(self.filter_result)
