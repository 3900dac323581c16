"""`pulse upkeep`: run the checks and record what they propose.

1. near-duplicate events → event merge proposals (core/upkeep/duplicates.py);
2. old, low-salience operational events → archival proposals (archival.py);
3. hypotheses past their TTL → dismissal proposals (questions.py);
4. pending proposals that went stale → obsolete;
5. distilled patterns with an old "recurring —" title → a readable title and summary;
then storyline summaries that are missing or stale are written (offline, or by the model alias
`extractor`), and the knowledge gaps and the review queue are reported.

Steps 1-5 are ONE journaled change set (op `upkeep`), undoable as a whole. `dry_run` computes
the same and writes nothing. Proposals are never acted on here: a person decides each one.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from core.scoring.scorer import format_iso
from core.store.commands import execute, transaction
from core.upkeep import archival, proposals, questions
from core.upkeep.duplicates import find_pairs
from core.upkeep.settings import load


def _apart(days: float) -> str:
    hours = days * 24
    return f"{hours:.0f} h apart" if hours < 48 else f"{days:.1f} days apart"


def _proposals(memory: Any, now: datetime, settings: Any, notes: list[str]
               ) -> list[dict[str, Any]]:
    conn = memory.conn
    index = memory.scorer.index()
    threshold = settings.duplicate_threshold(index.model)
    merges: list[dict[str, Any]] = []
    if threshold is None:
        notes.append(f"near-duplicates not checked: no calibrated cosine for {index.model} "
                     "(set the duplicate_cosine setting)")
    else:
        cosine, words = threshold
        for pair in find_pairs(conn, index, cosine, words, settings.duplicate_window_days):
            merges.append({"kind": "event_merge", "event_id": pair.absorb,
                           "keep_event": pair.keep, "score": pair.cosine,
                           "reason": f"cosine {pair.cosine:.3f} ≥ {cosine:g}, shared words "
                                     f"{pair.overlap:.2f}, same people, "
                                     f"{_apart(pair.days_apart)}"})
    in_merges = {m["event_id"] for m in merges} | {m["keep_event"] for m in merges}
    archives = [a for a in archival.candidates(conn, now, after_days=settings.archive_after_days,
                                               below=settings.archive_below)
                if a["event_id"] not in in_merges]
    dismissals = questions.expired_candidates(memory, now, settings.question_ttl_days)
    return merges + archives + dismissals


def run_upkeep(memory: Any, *, dry_run: bool = False, now: datetime | str | None = None,
               extractor: str | None = None, overrides: dict[str, Any] | None = None,
               actor: str = "manual") -> dict[str, Any]:
    from core.storylines.patterns import retitle_changes
    from core.storylines.store import stale_keys
    from core.upkeep.gaps import knowledge_gaps
    from core.upkeep.review import queue

    now = questions.as_time(now)
    settings = load(memory, overrides)
    if extractor and not dry_run:
        from core.llm.extractor import LLMRunner

        LLMRunner(memory, extractor)   # an unknown alias or unset key fails before any write
    stamp = format_iso(now)
    notes: list[str] = []
    conn = memory.conn
    seq = None
    if dry_run:
        new = _proposals(memory, now, settings, notes)
        obsolete = proposals.obsolete_changes(conn, stamp)
        retitled = retitle_changes(memory)
    else:
        with transaction(conn):
            new = _proposals(memory, now, settings, notes)
            obsolete = proposals.obsolete_changes(conn, stamp)
            retitled = retitle_changes(memory)
            changes = obsolete + proposals.insert_changes(conn, new, stamp) + retitled
            if changes:
                seq = execute(conn, actor=actor, op="upkeep", subject="memory", changes=changes,
                              extra={"now": stamp, "proposed": len(new),
                                     "obsolete": len(obsolete)})
    graph = memory.storyline_graph()
    stale = stale_keys(memory, graph)
    storylines = {"total": len(graph.storylines), "stale": len(stale), "written": 0}
    if not dry_run and stale:
        memory.storylines(stale)
        storylines["written"] = len(stale)
    llm = None
    if extractor and not dry_run:
        llm = memory.summarise_storylines(extractor)
    elif extractor:
        notes.append(f"dry run: no call to {extractor}")
    by_kind: dict[str, list[dict[str, Any]]] = {k: [] for k in proposals.KINDS}
    for item in new:
        by_kind[item["kind"]].append({k: item[k] for k in ("event_id", "keep_event", "score",
                                                           "reason")})
    pending: dict[str, int] = {}
    for item in queue(memory, now=now):
        pending[item["kind"]] = pending.get(item["kind"], 0) + 1
    return {"now": stamp, "dry_run": dry_run, "seq": seq, "settings": settings.as_dict(),
            "proposed": by_kind, "obsolete": len(obsolete),
            "patterns_retitled": sorted({c["pk"]["id"] for c in retitled
                                         if c["t"] == "events"}),
            "storylines": storylines, "llm": llm,
            "knowledge_gaps": knowledge_gaps(memory, limit=20),
            "review": {"pending": sum(pending.values()), "by_kind": pending},
            "notes": notes}
