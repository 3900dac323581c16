"""Memory's storylines and upkeep (docs/upkeep.md): storyline summaries and retrieval by
storyline, `upkeep` (near-duplicates, archival, expired open questions, readable patterns),
open questions, knowledge gaps and the review queue.

These are methods of `core.memory.Memory` (kept in their own module for size); use them through
a Memory, never by importing this module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any


class UpkeepOps:
    """Mixed into Memory: needs `conn`, `read_only`, `scorer`, `_writable()`."""

    # -- storylines -------------------------------------------------------------------------

    def storyline_graph(self) -> Any:
        """Every storyline (chains and patterns), its members and centroid, as of now."""
        from core.storylines.graph import GraphCache

        cache = getattr(self, "_storyline_cache", None)
        if cache is None:
            cache = self._storyline_cache = GraphCache()
        return cache.get(self.conn, self.scorer.index())

    def storylines(self, keys: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """Storylines with title, summary (written now where missing or stale), span of dates
        and members, newest first: [{"key", "kind", "title", "summary", "method", "span":
        {"from", "to"}, "members", "size", "anchor"}]."""
        from core.storylines.store import summaries

        graph = self.storyline_graph()
        out = summaries(self, graph, self.scorer.index(), keys)
        return sorted(out.values(), key=lambda s: (s["span"]["to"] or "", s["key"]),
                      reverse=True)

    def storyline(self, ref: str | int) -> dict[str, Any]:
        """One storyline by key ("chain:12", "pattern:40") or by any event in it, with its
        members' id, key, date and title."""
        from core.errors import PulseError
        from core.storylines.graph import member_rows

        graph = self.storyline_graph()
        key = str(ref)
        if key not in graph.storylines:
            if key.startswith(("chain:", "pattern:")):
                raise PulseError(f"no storyline {key!r} (`pulse storylines` lists them; an "
                                 "event id or key also names the storyline it is in)")
            event_id = self.resolve_event(ref)
            key = graph.of_event.get(event_id)
            if key is None:
                raise PulseError(f"event {event_id} is in no storyline (no chain links, not a "
                                 "distilled pattern)")
        entry = self.storylines([key])[0]
        rows = member_rows(self.conn, list(entry["members"]))
        entry["events"] = [{"id": i, "key": rows[i]["key"], "ts": rows[i]["ts"],
                            "title": rows[i]["title"]} for i in entry["members"] if i in rows]
        return entry

    def summarise_storylines(self, extractor: str, keys: Iterable[str] | None = None, *,
                             progress: Any = None) -> dict[str, Any]:
        """Abstractive summaries through the model alias `extractor` (models.json), with the
        router's budget gate, retries and dead letters; each one journaled (undoable). Stories
        whose call died keep their offline summary."""
        from core.storylines.llm import summarise_with_model

        self._writable()
        return summarise_with_model(self, extractor, keys, progress=progress)

    def _retrieve_storylines(self, request: Any,
                             rank: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
        from core.storylines.retrieve import retrieve_storylines

        return retrieve_storylines(self, request, rank)

    # -- settings -----------------------------------------------------------------------------

    def upkeep_settings(self) -> dict[str, Any]:
        """The memory's upkeep settings (open-question TTL, duplicate threshold, …)."""
        from core.upkeep.settings import load

        return load(self).as_dict()

    def set_upkeep_settings(self, *, actor: str = "manual", **changes: Any) -> dict[str, Any]:
        """Change upkeep settings of this memory (validated; unknown names refused). Journaled
        and undoable; the result is the settings now plus `journal_seq` (None: no change)."""
        from core.upkeep.settings import save

        self._writable()
        settings, seq = save(self, changes, actor=actor)
        return {**settings.as_dict(), "journal_seq": seq}

    # -- upkeep -------------------------------------------------------------------------------

    def upkeep(self, *, dry_run: bool = False, now: datetime | str | None = None,
               extractor: str | None = None, settings: dict[str, Any] | None = None
               ) -> dict[str, Any]:
        """Run the checks (`pulse upkeep`): near-duplicate merges, archival of old low-salience
        events, dismissal of hypotheses past their TTL — all proposals, never automatic —,
        readable titles for old distilled patterns and stale storyline summaries (with
        `extractor`, abstractive ones from that model). `dry_run` writes nothing."""
        from core.upkeep.run import run_upkeep

        if not dry_run:
            self._writable()
        return run_upkeep(self, dry_run=dry_run, now=now, extractor=extractor,
                          overrides=settings)

    # -- open questions -----------------------------------------------------------------------

    def open_questions(self, *, now: datetime | str | None = None,
                       ttl_days: float | None = None) -> list[dict[str, Any]]:
        """Hypotheses still open, oldest first, with age, TTL and whether they expired."""
        from core.upkeep.questions import open_questions

        return open_questions(self, now=now, ttl_days=ttl_days)

    def confirm_question(self, event: str | int, as_class: str = "user_model", *,
                         actor: str = "manual") -> dict[str, Any]:
        """Promote a hypothesis to user_model or self_model (journaled, undoable)."""
        from core.upkeep.questions import confirm

        self._writable()
        return confirm(self, self.resolve_event(event), as_class, actor=actor)

    def dismiss_question(self, event: str | int, *, actor: str = "manual",
                         now: datetime | str | None = None) -> dict[str, Any]:
        """Dismiss a hypothesis: it is archived, not deleted (journaled, undoable)."""
        from core.upkeep.questions import dismiss

        self._writable()
        return dismiss(self, self.resolve_event(event), actor=actor, now=now)

    def restore(self, event: str | int, *, actor: str = "manual") -> dict[str, Any]:
        """Bring an archived event back (journaled, undoable)."""
        from core.upkeep.proposals import restore

        self._writable()
        return restore(self, self.resolve_event(event), actor=actor)

    # -- knowledge gaps -----------------------------------------------------------------------

    def knowledge_gaps(self, *, domains: Iterable[str] | str | None = None,
                       limit: int | None = None) -> list[dict[str, Any]]:
        """Entities mentioned in ≥ 3 events with no facts, and people with no relation to the
        memory's own person; never anything behind a do_not_probe boundary."""
        from core.upkeep.gaps import knowledge_gaps

        return knowledge_gaps(self, domains=domains, limit=limit)

    # -- the review queue ---------------------------------------------------------------------

    def review_queue(self, *, now: datetime | str | None = None,
                     kinds: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """What needs a person's decision, due now: [{"ref", "kind", "title", "detail",
        "events", "entities", "score", "actions"}]."""
        from core.upkeep.review import queue

        return queue(self, now=now, kinds=kinds)

    def review_count(self, *, now: datetime | str | None = None) -> int:
        from core.upkeep.review import queue

        return len(queue(self, now=now))

    def review(self, ref: str, action: str, *, now: datetime | str | None = None,
               later_days: float | None = None, actor: str = "manual") -> dict[str, Any]:
        """Decide one queue item: action "accept", "reject" or "later" (hidden for
        `later_days`, default the setting). Journaled, undoable."""
        from core.upkeep.review import decide

        self._writable()
        return decide(self, ref, action, now=now, later_days=later_days, actor=actor)

    def upkeep_proposals(self, status: str | None = "pending",
                         kind: str | None = None) -> list[dict[str, Any]]:
        """Event merge, archival and dismissal proposals (status None: all)."""
        from core.upkeep.proposals import list_proposals

        return list_proposals(self.conn, status=status, kind=kind)
