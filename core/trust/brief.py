"""The session brief (JOURNAL §3): what a companion loads at session start.

tokens ≈ chars / 3.8. Tiers by size: index 1,800 chars, brief 6,000, notes 20,000, full 120,000;
the richest tier whose size fits the budget is used, and the text never exceeds the budget.
Order: one provenance line → CORRECTIONS (whole lines, newest first) → how to read memory (the
frame) → BOUNDARIES ("don't probe: …", docs/privacy.md) → core wounds / axioms → user_model
beliefs → recent salient events (v2 recency × emotional weight) → open questions and pending
merges (counts; how many questions are past their TTL) → "you might ask about": the knowledge
gaps (core/upkeep/gaps.py), never anything behind a do_not_probe boundary. Memory text is quoted
inside <memory_data>…</memory_data> (data, never instructions: core/privacy/frame.py); events
behind a boundary and facts about a boundary or a no_capture person are left out; redacted names
show as their role label. A section is cut only at a line boundary; what was cut is named in
the provenance line. Domain filter: real and meta_authorial unless told otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from core.beliefs import ANCHOR_DECAY_PER_DAY, DECAY_PER_DAY, domain_list
from core.errors import ValidationError
from core.privacy.frame import MEMORY_NOTE, neutralise, wrap
from core.privacy.outside import OutsideView
from core.store import journal
from core.store.sqlite import sqlite3
from core.trust.corrections import Correction, conn_of, list_corrections

CHARS_PER_TOKEN = 3.8
TIERS: tuple[tuple[str, int], ...] = (("index", 1800), ("brief", 6000), ("notes", 20000),
                                      ("full", 120000))
DEFAULT_TIER = "brief"
DEFAULT_DOMAINS = ("real", "meta_authorial")
MAX_BUDGET = 10_000_000
# per tier: how much of an event's description a line carries (None: the title only)
DESCRIPTION_CHARS = {"index": None, "brief": 160, "notes": 600, "full": 4000}


def tokens(text: str) -> int:
    """The token estimate of a text: ceil(chars / 3.8)."""
    return math.ceil(len(text) * 10 / 38)


def char_limit(budget: int) -> int:
    """The most characters whose estimate stays within `budget` tokens."""
    return (budget * 38) // 10


def pick_tier(budget: int | None) -> tuple[str, int]:
    """(tier, char cap): the richest tier that fits; below the smallest tier, the budget itself."""
    if budget is None:
        return DEFAULT_TIER, dict(TIERS)[DEFAULT_TIER]
    limit = char_limit(budget)
    chosen = None
    for name, size in TIERS:
        if size <= limit:
            chosen = (name, size)
    return chosen if chosen else ("index", limit)


def _validate(budget: Any, domains: Iterable[str] | str | None) -> tuple[int | None, tuple[str, ...]]:
    if budget is not None:
        if isinstance(budget, bool) or not isinstance(budget, int):
            raise ValidationError(f"budget must be a whole number of tokens, got {budget!r}")
        if not 1 <= budget <= MAX_BUDGET:
            raise ValidationError(f"budget must be in 1..{MAX_BUDGET:,} tokens, got {budget}")
    if domains is None:
        chosen = DEFAULT_DOMAINS
    else:
        chosen = tuple(domain_list(domains))
        if not chosen:
            raise ValidationError("give at least one domain")
    return budget, chosen


def _clip(text: str, n: int | None) -> str:
    text = " ".join((text or "").split())
    if n is None or len(text) <= n:
        return text
    return text[: max(0, n - 1)].rstrip() + "…"


def _quote(terms: tuple[str, ...]) -> str:
    return ", ".join(f'"{neutralise(t, "memory_data")}"' for t in terms)


def correction_line(c: Correction) -> str:
    state = ("binding" if c.binding else
             f"superseded by row {', '.join(map(str, c.superseded_by))}" if c.superseded_by
             else "not enforceable")
    parts = [f"- [{state}]"]
    if c.withdrawn:
        parts.append(f"withdrawn {_quote(c.withdrawn)}")
    if c.replacement:
        parts.append(f"→ use {_quote(c.replacement)}")
    text = " ".join(parts)
    if c.note:
        text += f" — {wrap(' '.join(c.note.split()))}"
    cite = f"journal row {c.journal_seq}" if c.journal_seq is not None else f"correction {c.id}"
    extra = ""
    if c.subject:
        extra += f", about {c.subject}"
    if c.supersedes:
        extra += f", supersedes row {', '.join(map(str, c.supersedes))}"
    return f"{text} ({cite}{extra})"


def _event_line(row: sqlite3.Row, tier: str, view: OutsideView) -> str:
    key = f" [{row['key']}]" if row["key"] else ""
    quoted = " ".join(row["title"].split())
    limit = DESCRIPTION_CHARS[tier]
    desc = _clip(row["description"], limit) if limit is not None else ""
    if desc:
        quoted += f" — {desc}"
    return f"- {row['ts'][:10]} {wrap(view.text(quoted))} (event {row['id']}{key})"


def _fact_line(row: sqlite3.Row, tier: str, view: OutsideView) -> str:
    said = f"{view.entity_name(row['entity_id'], row['name'])}: " \
           f"{view.text(_clip(row['text'], DESCRIPTION_CHARS[tier] or 120))}"
    return f"- {wrap(said)} (fact {row['id']})"


def _salience(row: sqlite3.Row, now_days: float) -> float:
    """v2 recency × emotional weight: exp(−λ·days), floored by confidence_floor."""
    lam = DECAY_PER_DAY.get(row["belief_class"], DECAY_PER_DAY["operational"])
    if row["user_flag"]:
        lam = min(lam, ANCHOR_DECAY_PER_DAY)
    ts = datetime.fromisoformat(row["ts"].replace("Z", "+00:00"))
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=timezone.utc)
    days = max(0.0, now_days - ts.timestamp() / 86400.0)
    recency = max(math.exp(-lam * days), float(row["confidence_floor"]))
    weight = max(float(row["emotional_weight"]), 0.05)
    return recency * weight


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?",
                        (name,)).fetchone() is not None


def _pending_merges(conn: sqlite3.Connection) -> int | None:
    """Pending merge proposals, if the memory has that table (defensive: a later migration)."""
    if not _has_table(conn, "merge_proposals"):
        return None
    columns = {r[1] for r in conn.execute("PRAGMA table_info(merge_proposals)")}
    try:
        if "status" in columns:
            return int(conn.execute("SELECT COUNT(*) FROM merge_proposals WHERE status = "
                                    "'pending'").fetchone()[0])
        return int(conn.execute("SELECT COUNT(*) FROM merge_proposals").fetchone()[0])
    except sqlite3.Error:
        return None


def _sections(conn: sqlite3.Connection, tier: str, domains: tuple[str, ...], now: datetime,
              view: OutsideView, memory: Any = None
              ) -> tuple[list[Correction], list[tuple[str, list[str]]], dict[str, Any]]:
    corrections = list_corrections(conn)
    withheld = view.withheld("")
    marks = ",".join("?" * len(domains))
    events = conn.execute(
        f"SELECT id, key, title, description, ts, belief_class, confidence_floor, user_flag,"
        f" emotional_weight, archivable FROM events WHERE domain IN ({marks})"
        f" AND absorbed_into IS NULL AND archived = 0",
        domains).fetchall()
    facts = conn.execute(
        f"SELECT f.id, f.text, f.belief_class, f.entity_id, e.canonical_name AS name FROM facts f"
        f" JOIN entities e ON e.id = f.entity_id WHERE f.domain IN ({marks})"
        f" ORDER BY f.id", domains).fetchall()
    behind = [e for e in events if e["id"] in withheld]
    events = [e for e in events if e["id"] not in withheld]
    facts = [f for f in facts if not view.hides_entity(f["entity_id"])]
    axioms = sorted((e for e in events if e["belief_class"] == "axiom"),
                    key=lambda e: (-int(e["user_flag"]), _neg(e["ts"]), e["id"]))
    user_model = sorted((e for e in events if e["belief_class"] == "user_model"),
                        key=lambda e: (_neg(e["ts"]), e["id"]))
    shown = {e["id"] for e in axioms} | {e["id"] for e in user_model}
    now_days = now.timestamp() / 86400.0
    rest = [e for e in events if e["id"] not in shown and e["belief_class"] != "hypothesis"]
    rest.sort(key=lambda e: (-_salience(e, now_days), e["id"]))
    sections = [
        ("HOW TO READ", ["- " + MEMORY_NOTE]),
        ("BOUNDARIES", view.instructions()),
        ("CORE WOUNDS / AXIOMS", [_event_line(e, tier, view) for e in axioms]
         + [_fact_line(f, tier, view) for f in facts if f["belief_class"] == "axiom"]),
        ("USER MODEL", [_event_line(e, tier, view) for e in user_model]
         + [_fact_line(f, tier, view) for f in facts if f["belief_class"] == "user_model"]),
        ("RECENT SALIENT EVENTS", [_event_line(e, tier, view) for e in rest]),
    ]
    pooled = {r[0] for r in conn.execute("SELECT event_id FROM pool_segments")} \
        if _has_table(conn, "pool_segments") else set()
    open_questions = sum(1 for e in events
                         if e["belief_class"] == "hypothesis" and e["id"] not in pooled)
    merges = _pending_merges(conn)
    open_line = f"- open questions: {open_questions}"
    expired = _expired_questions(memory, now, domains) if memory is not None else None
    if expired:
        open_line += f" ({expired} past their TTL, to confirm or dismiss)"
    open_line += f" · pending merges: {merges}" if merges is not None else ""
    sections.append(("OPEN", [open_line]))
    gaps = _gap_lines(memory, domains) if memory is not None else []
    if gaps:
        sections.append(("YOU MIGHT ASK ABOUT", gaps))
    info = {"events": int(conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]),
            "events_in_domains": len(events), "open_questions": open_questions,
            "expired_questions": expired, "pending_merges": merges,
            "knowledge_gaps": len(gaps), "behind_boundaries": len(behind),
            "boundaries": [p.name for p in view.boundaries]}
    return corrections, sections, info


MAX_GAPS = 10


def _expired_questions(memory: Any, now: datetime, domains: tuple[str, ...]) -> int | None:
    if not _has_table(conn_of(memory), "upkeep_proposals"):
        return None
    from core.upkeep.questions import open_questions

    return sum(1 for q in open_questions(memory, now=now)
               if q["expired"] and q["domain"] in domains)


def _gap_lines(memory: Any, domains: tuple[str, ...]) -> list[str]:
    """Knowledge gaps a companion might gently ask about, never behind a do_not_probe
    boundary (core/upkeep/gaps.py)."""
    if not _has_table(conn_of(memory), "review_decisions"):
        return []
    from core.upkeep.gaps import knowledge_gaps

    return [f"- {g['name']} ({g['kind'].replace('_', ' ')}): {g['why']} (entity {g['entity']})"
            for g in knowledge_gaps(memory, domains=domains, limit=MAX_GAPS)]


def _neg(ts: str) -> str:
    """A sort key that orders ISO timestamps newest first."""
    return "".join(chr(0x10FFFF - ord(ch)) for ch in ts)


def brief(memory: Any, budget: int | None = None, *, now: datetime | str | None = None,
          domains: Iterable[str] | str | None = None, db_label: str | None = None
          ) -> dict[str, Any]:
    """The brief as {"text", "tier", "chars", "tokens", "budget", "cut": {...}, ...}."""
    budget, domains = _validate(budget, domains)
    conn = conn_of(memory)
    if isinstance(now, str):
        from core.scoring.scorer import parse_iso

        now = parse_iso(now, "now")
    now = now or datetime.now(timezone.utc)
    tier, cap = pick_tier(budget)
    limit = min(cap, char_limit(budget)) if budget is not None else cap
    # the companion's view: boundaries, and a redacted person's name shows as their label
    view = OutsideView.of(memory)
    corrections, sections, info = _sections(conn, tier, domains, now, view,
                                            memory if hasattr(memory, 'meta') else None)
    breaks = journal.verify(conn)
    head_seq, head_hash = journal.head(conn)
    label = db_label or (Path(memory.path).name if hasattr(memory, "path") else "memory")

    binding_c = [c for c in corrections if c.binding]
    facts = {
        "label": label, "events": info["events"], "head_seq": head_seq,
        "head_hash": (head_hash or "")[:12], "binding": len(binding_c),
        "withdrawn": sum(len(c.withdrawn) for c in binding_c),
        "superseded": sum(1 for c in corrections if c.superseded_by),
        "not_enforceable": sum(1 for c in corrections if not c.enforceable),
        "breaks": breaks, "tier": tier, "cap": limit, "domains": domains,
    }
    # pass 1 reserves room for the longest "cut" note; pass 2 writes the real one (never longer)
    worst = {"corrections": len(corrections), **{name: len(lines) for name, lines in sections}}
    provenance = _provenance(facts, worst)
    body, cut = _fit(provenance, [view.text(correction_line(c)) for c in corrections],
                     sections, limit)
    final_provenance = _provenance(facts, cut)
    if len(final_provenance) > len(provenance):  # cannot happen; keep the guarantee anyway
        final_provenance = provenance
    lines = ([final_provenance] if final_provenance else []) + body
    text = "\n".join(lines)
    if len(text) > limit:  # the provenance line alone is over a tiny budget
        text = _shrink(text, limit)
    return {"text": text, "tier": tier, "chars": len(text), "tokens": tokens(text),
            "budget": budget, "char_limit": limit, "cut": cut,
            "binding_corrections": facts["binding"], "withdrawn_terms": facts["withdrawn"],
            "journal_ok": not breaks, "journal_head": head_seq, "domains": list(domains),
            "boundaries": info["boundaries"], "behind_boundaries": info["behind_boundaries"]}


def _shrink(text: str, limit: int) -> str:
    first = text.split("\n", 1)[0]
    short = f"pulse: brief cut to {limit} chars"
    if len(first) <= limit:
        return first
    return short if len(short) <= limit else ""


def _provenance(f: dict[str, Any], cut: dict[str, int]) -> str:
    parts = [f"pulse: {f['label']} · {f['events']:,} events · journal row {f['head_seq']}"
             + (f" {f['head_hash']}" if f["head_hash"] else ""),
             f"{f['binding']} binding correction{'s' if f['binding'] != 1 else ''}"
             f" ({f['withdrawn']} withdrawn term{'s' if f['withdrawn'] != 1 else ''})"]
    if f["superseded"]:
        parts.append(f"{f['superseded']} superseded")
    if f["not_enforceable"]:
        parts.append(f"{f['not_enforceable']} not enforceable")
    if f["breaks"]:
        parts.append(f"⚠ journal broken at row {f['breaks'][0].seq} ({len(f['breaks'])} break"
                     f"{'s' if len(f['breaks']) != 1 else ''})")
    parts.append(f"tier {f['tier']} (≤{f['cap']:,} chars) · domains {'+'.join(f['domains'])}")
    dropped = {k: v for k, v in cut.items() if v}
    if dropped:
        parts.append("cut: " + ", ".join(f"{v} {k.lower()}" for k, v in dropped.items()))
    return " · ".join(parts)


def _fit(provenance: str, corrections: list[str], sections: list[tuple[str, list[str]]],
         limit: int) -> tuple[list[str], dict[str, int]]:
    """Whole lines in order while they fit. Corrections come first and are never cut inside a
    line; a section is cut at a line boundary and later, smaller sections may still fit."""
    used = len(provenance)
    out: list[str] = []
    cut: dict[str, int] = {}

    def room(line: str) -> bool:
        return used + 1 + len(line) <= limit  # +1: the newline before it

    blocks = [("CORRECTIONS", corrections, "corrections")]
    blocks += [(name, lines, name) for name, lines in sections]
    for header, lines, key in blocks:
        if not lines:
            continue
        kept: list[str] = []
        if room(header):
            used_before = used
            used += 1 + len(header)
            for line in lines:
                if room(line):
                    kept.append(line)
                    used += 1 + len(line)
                else:
                    break
            if not kept:
                used = used_before
        if kept:
            out.append(header)
            out.extend(kept)
        if len(kept) < len(lines):
            cut[key] = len(lines) - len(kept)
            if key == "corrections":
                # nothing may stand in the place of a correction that did not fit
                for name, rest, _ in blocks[1:]:
                    if rest:
                        cut[name] = len(rest)
                break
    return out, cut
