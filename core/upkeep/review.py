"""The review queue: everything that waits for a person's decision, in one list, each item with
accept, reject and later.

Kinds (in queue order): entity merges the importer proposed, near-duplicate event merges,
hypotheses past their TTL, archival of old faint events, knowledge gaps, and fictional names
an import found (glossary candidates, where the memory has them). A kind is one `Kind` entry in
KINDS: how to list its pending items and what accept and reject do — a new kind is one more
entry. "later" hides an item until a date (review_decisions, journaled like the decisions).
Refs name items as "KIND:ID", e.g. "event_merge:4", "gap:12".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from core.errors import PulseError
from core.scoring.scorer import format_iso
from core.store.changes import row_dict
from core.store.commands import execute, transaction
from core.upkeep import proposals
from core.upkeep.questions import as_time

ACTIONS = ("accept", "reject", "later")

Items = Callable[[Any, datetime], list[dict[str, Any]]]
Decide = Callable[[Any, int, datetime, str], dict[str, Any]]


@dataclass(frozen=True)
class Kind:
    name: str
    label: str                         # what the app calls the group
    accept_label: str                  # what accepting does, in words
    reject_label: str
    items: Items
    accept: Decide
    reject: Decide
    available: Callable[[Any], bool] = lambda memory: True


def _day(ts: str | None) -> str:
    return (ts or "")[:10]


def _quote(text: str | None, limit: int = 70) -> str:
    text = " ".join((text or "").split())
    return f"“{text if len(text) <= limit else text[:limit - 1].rstrip() + '…'}”"


# -- entity merges (the importer's proposals) -------------------------------------------------

def _entity_merges(memory: Any, now: datetime) -> list[dict[str, Any]]:
    return [{"id": int(p["id"]), "title": f"Same {p['keep_kind'] or 'entity'}? "
                                          f"{p['merge_name']} → {p['keep_name']}",
             "detail": f"Merging moves {p['merge_name']}'s events, facts and names onto "
                       f"{p['keep_name']} (similarity {p['similarity']:.2f}).",
             "events": [], "entities": [int(p["keep_entity"]), int(p["merge_entity"])],
             "score": float(p["similarity"])} for p in memory.merge_proposals("pending")]


# -- upkeep proposals ------------------------------------------------------------------------

def _upkeep(kind: str) -> Items:
    def items(memory: Any, now: datetime) -> list[dict[str, Any]]:
        out = []
        for p in proposals.list_proposals(memory.conn, status="pending", kind=kind):
            if kind == "event_merge":
                title = f"Said twice? {_quote(p['event_title'], 50)} ({_day(p['event_ts'])})"
                detail = (f"Keep the earlier {_quote(p['keep_title'], 60)} "
                          f"({_day(p['keep_ts'])}) and absorb the later one into it: its "
                          f"sources, emotions and links move over. {p['reason']}.")
                events = [int(p["keep_event"]), int(p["event_id"])]
            elif kind == "dismiss":
                title = f"Still open? {_quote(p['event_title'])}"
                detail = (f"A hypothesis from {_day(p['event_ts'])}, {p['reason']}. Dismissing "
                          f"archives it; keeping it restarts its clock.")
                events = [int(p["event_id"])]
            else:
                title = f"Archive? {_quote(p['event_title'])} ({_day(p['event_ts'])})"
                detail = (f"An old, faint memory: {p['reason']}. Archived events stay in the "
                          f"memory but are no longer recalled or briefed.")
                events = [int(p["event_id"])]
            out.append({"id": int(p["id"]), "title": title, "detail": detail,
                        "events": events, "entities": [], "score": float(p["score"])})
        return out
    return items


def _resolve(kind: str, accept: bool) -> Decide:
    def decide(memory: Any, item_id: int, now: datetime, actor: str) -> dict[str, Any]:
        row = memory.conn.execute("SELECT kind FROM upkeep_proposals WHERE id = ?",
                                  (item_id,)).fetchone()
        if row is None or row[0] != kind:
            raise PulseError(f"review: there is no {kind} proposal {item_id}")
        return proposals.resolve(memory, item_id, accept, now=now, actor=actor)
    return decide


# -- knowledge gaps --------------------------------------------------------------------------

def _gaps(memory: Any, now: datetime) -> list[dict[str, Any]]:
    from core.upkeep.gaps import knowledge_gaps

    return [{"id": g["entity"], "title": f"You might ask about {g['name']}",
             "detail": f"{g['kind'].replace('_', ' ').capitalize()}: {g['why']}.",
             "events": [], "entities": [g["entity"]], "score": float(g["mentions"])}
            for g in knowledge_gaps(memory) if not g["accepted"]]


def _decision_change(conn: Any, ref: str, decision: str, until: str | None, decided: str
                     ) -> dict[str, Any]:
    row = {"ref": ref, "decision": decision, "until": until, "decided_at": decided}
    old = row_dict(conn, "review_decisions", {"ref": ref})
    if old is None:
        return {"t": "review_decisions", "a": "insert", "row": row}
    return {"t": "review_decisions", "a": "update", "pk": {"ref": ref},
            "set": {k: row[k] for k in ("decision", "until", "decided_at")},
            "old": {k: old[k] for k in ("decision", "until", "decided_at")}}


def _gap_accept(memory: Any, entity_id: int, now: datetime, actor: str) -> dict[str, Any]:
    conn = memory.conn
    with transaction(conn):
        ref = f"gap:{entity_id}"
        seq = execute(conn, actor=actor, op="gap.accept", subject=f"entity:{entity_id}",
                      changes=[_decision_change(conn, ref, "accepted", None, format_iso(now))])
    return {"ref": ref, "status": "accepted", "seq": seq}


def _gap_reject(memory: Any, entity_id: int, now: datetime, actor: str) -> dict[str, Any]:
    """Never ask about it: do_not_probe on the entity, in the same step."""
    conn = memory.conn
    with transaction(conn):
        row = conn.execute("SELECT do_not_probe FROM entities WHERE id = ?",
                           (entity_id,)).fetchone()
        if row is None:
            raise PulseError(f"no entity {entity_id}")
        ref = f"gap:{entity_id}"
        changes = [_decision_change(conn, ref, "rejected", None, format_iso(now))]
        if not row["do_not_probe"]:
            changes.append({"t": "entities", "a": "update", "pk": {"id": entity_id},
                            "set": {"do_not_probe": 1}, "old": {"do_not_probe": 0}})
        seq = execute(conn, actor=actor, op="gap.reject", subject=f"entity:{entity_id}",
                      changes=changes)
    return {"ref": ref, "status": "rejected", "do_not_probe": True, "seq": seq}


# -- glossary candidates (names an import found only inside fiction) ---------------------------

def _glossary(memory: Any, now: datetime) -> list[dict[str, Any]]:
    return [{"id": int(c["id"]), "title": f"A fictional name? {_quote(c['term'], 40)}",
             "detail": f"Found only inside fiction ({c.get('mentions', 0)} mentions). "
                       f"Accepting adds it to the glossary as {c.get('kind', 'fictional')}; "
                       f"rejecting treats the name as real.",
             "events": [], "entities": [], "score": float(c.get("mentions", 0))}
            for c in memory.glossary_candidates("pending")]


def _glossary_decide(accept: bool) -> Decide:
    def decide(memory: Any, item_id: int, now: datetime, actor: str) -> dict[str, Any]:
        return memory.resolve_glossary_candidate(item_id, accept, actor=actor)
    return decide


KINDS: tuple[Kind, ...] = (
    Kind("entity_merge", "Same person or place?", "merge them", "keep both",
         _entity_merges,
         lambda m, i, now, actor: m.resolve_merge(i, True, actor=actor),
         lambda m, i, now, actor: m.resolve_merge(i, False, actor=actor)),
    Kind("event_merge", "Said twice?", "merge into the earlier one", "keep both",
         _upkeep("event_merge"), _resolve("event_merge", True),
         _resolve("event_merge", False)),
    Kind("dismiss", "Open questions past their time", "dismiss (archive)", "keep it open",
         _upkeep("dismiss"), _resolve("dismiss", True), _resolve("dismiss", False)),
    Kind("archive", "Old, faint memories", "archive", "keep it",
         _upkeep("archive"), _resolve("archive", True), _resolve("archive", False)),
    Kind("gap", "Knowledge gaps", "worth asking about", "never ask (do not probe)",
         _gaps, _gap_accept, _gap_reject),
    Kind("glossary", "Fictional names", "add to the glossary", "it is real",
         _glossary, _glossary_decide(True), _glossary_decide(False),
         available=lambda memory: hasattr(memory, "glossary_candidates")),
)
BY_NAME = {k.name: k for k in KINDS}


def parse_ref(ref: str) -> tuple[Kind, int]:
    name, sep, ident = str(ref).partition(":")
    kind = BY_NAME.get(name)
    if not sep or kind is None or not ident.strip().isdigit():
        raise PulseError(f"review item {ref!r}: give KIND:ID with KIND one of "
                         f"{', '.join(BY_NAME)} (e.g. event_merge:3, gap:12)")
    return kind, int(ident)


def _hidden(conn: Any, now: datetime) -> set[str]:
    stamp = format_iso(now)
    return {r[0] for r in conn.execute(
        "SELECT ref FROM review_decisions WHERE decision = 'later' AND until > ?", (stamp,))}


def queue(memory: Any, *, now: datetime | str | None = None,
          kinds: Iterable[str] | None = None) -> list[dict[str, Any]]:
    now = as_time(now)
    wanted = set(kinds) if kinds is not None else None
    for name in sorted(wanted or ()):
        if name not in BY_NAME:
            raise PulseError(f"unknown review kind {name!r} (one of {', '.join(BY_NAME)})")
    hidden = _hidden(memory.conn, now)
    out = []
    for kind in KINDS:
        if (wanted is not None and kind.name not in wanted) or not kind.available(memory):
            continue
        items = sorted(kind.items(memory, now), key=lambda i: (-i["score"], i["id"]))
        for item in items:
            ref = f"{kind.name}:{item['id']}"
            if ref in hidden:
                continue
            out.append({"ref": ref, "kind": kind.name, "group": kind.label, **item,
                        "accept": kind.accept_label, "reject": kind.reject_label})
    return out


def decide(memory: Any, ref: str, action: str, *, now: datetime | str | None = None,
           later_days: float | None = None, actor: str = "manual") -> dict[str, Any]:
    from core.upkeep.settings import load

    if action not in ACTIONS:
        raise PulseError(f"review: action must be one of {', '.join(ACTIONS)}, not {action!r}")
    kind, item_id = parse_ref(ref)
    if not kind.available(memory):
        raise PulseError(f"review: this memory has no {kind.name} items")
    now = as_time(now)
    if action == "accept":
        return {"ref": ref, "action": action, **kind.accept(memory, item_id, now, actor)}
    if action == "reject":
        return {"ref": ref, "action": action, **kind.reject(memory, item_id, now, actor)}
    if item_id not in {i["id"] for i in kind.items(memory, now)}:
        raise PulseError(f"review: {ref} is not waiting for a decision")
    days = later_days if later_days is not None else load(memory).later_days
    if isinstance(days, bool) or not isinstance(days, (int, float)) or not 0 < days <= 3650:
        raise PulseError(f"review: later takes 0 < days <= 3650, not {days!r}")
    until = format_iso(now + timedelta(days=float(days)))
    conn = memory.conn
    with transaction(conn):
        seq = execute(conn, actor=actor, op="review.later", subject=ref,
                      changes=[_decision_change(conn, ref, "later", until, format_iso(now))])
    return {"ref": ref, "action": action, "until": until, "seq": seq}
