"""Memory's operations for living beside other programs (issue 11): the recall log (what a
companion recalled, when, for which question), the change marks a view watches to notice
another process's change, and several edits as one transaction.

These are methods of `core.memory.Memory` (kept in their own module for size); use them through
a Memory, never by importing this module. Each is a thin call into `core.trust.recall_log` or
the store.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any


class LiveOps:
    """Mixed into Memory: needs `conn`, `read_only`, `_writable()`."""

    # -- the recall log ------------------------------------------------------------------------

    def log_recall(self, tool: str, client: str, *, query: str = "", state: Any = None,
                   request: dict[str, Any] | None = None, output: dict[str, Any] | None = None,
                   now: datetime | str | None = None) -> int | None:
        """Record one served read — tool "recall", "why", "brief", "get_event" or "retrieve", the
        client's name, the question, the user state, the options and what was returned (its
        ranks, scores and breakdowns are kept, the memory's text is not). None when the log is
        off for this memory, or the memory is open read-only."""
        from core.trust import recall_log

        if self.read_only:
            return None
        return recall_log.record(self.conn, tool=tool, client=client, query=query, state=state,
                                 request=request, output=output, now=now)

    def recalls(self, *, since: str | None = None, limit: int | None = None,
                event: str | int | None = None, full: bool = False,
                now: datetime | str | None = None) -> list[dict[str, Any]]:
        """Recall records, newest first, within the retention; `since` is ISO or a span back
        from now ("7d", "12h", "30m"); `event` keeps the records that returned it."""
        from core.store import records
        from core.trust import recall_log

        event_id = records.resolve_event(self.conn, event) if event is not None else None
        return recall_log.list_records(self.conn, since=recall_log.parse_since(since, now),
                                       limit=limit, event_id=event_id, full=full, now=now)

    def recall_record(self, log_id: int) -> dict[str, Any]:
        """One record with its ranked results and their breakdowns as recorded."""
        from core.trust import recall_log

        return recall_log.get_record(self.conn, log_id)

    def recall_summary(self, event: str | int, *, now: datetime | str | None = None
                       ) -> dict[str, Any] | None:
        """How often an event was recalled: {"count", "last_ts", "last_query", "last_client",
        "last_id", "line": "recalled 7 times, last on 2026-11-20 for 'feeling abandoned'"}, or
        None when it never was."""
        from core.store import records
        from core.trust import recall_log

        return recall_log.event_summary(self.conn, records.resolve_event(self.conn, event), now)

    def recall_moments(self, *, now: datetime | str | None = None) -> list[dict[str, Any]]:
        """Every record's time, tool, client, question and result count, oldest first."""
        from core.trust import recall_log

        return recall_log.moments(self.conn, now)

    def recall_log_settings(self) -> dict[str, Any]:
        """{"enabled": bool, "retention_days": int}."""
        from core.trust import recall_log

        return recall_log.settings(self.conn)

    def set_recall_log(self, *, enabled: bool | None = None, retention_days: int | None = None,
                       actor: str = "manual", now: datetime | str | None = None
                       ) -> dict[str, Any]:
        """Switch the recall log on/off for this memory and/or set its retention (journaled);
        records past the new retention are deleted at once."""
        from core.trust import recall_log

        self._writable()
        return recall_log.set_settings(self.conn, enabled=enabled, retention_days=retention_days,
                                       actor=actor, now=now)

    # -- watching for other processes' changes --------------------------------------------------

    def change_marks(self) -> tuple[int, int]:
        """(journal head seq, newest recall record id): the first moves on every memory change
        (each is a journal row), the second on every logged recall — from any process. Two
        indexed lookups; why a view polls these: docs/reliability.md §8."""
        from core.store import journal
        from core.trust import recall_log

        return journal.head(self.conn)[0], recall_log.head(self.conn)

    def data_version(self) -> int:
        """SQLite's data_version of this Memory's own connection: it moves when any other
        connection (another process, or another Memory here) commits or checkpoints, never for
        this one's own writes — so a view can tell its own changes from others'."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    @contextmanager
    def atomic(self) -> Iterator[Any]:
        """Several edits as one transaction: all land, or (on any error) none does."""
        from core.store.commands import transaction

        self._writable()
        with transaction(self.conn):
            yield self
