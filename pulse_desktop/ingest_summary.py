"""An import's summary in words a person reads at once ("12 moments kept, 150 passing remarks
pooled, 3 patterns found"), instead of the pipeline's counters. The counters stay in the
summary's tooltip and in ``pulse ingest --json``.

The pipeline's words, and what they are to a reader (docs/cli.md, the ingest summary):
vivid → a moment kept as an event of its own; pooled → a passing remark, kept in the pool;
distilled → a pattern found among pooled remarks; absorbed → a pooled remark folded into a
pattern; superseded → an event replaced by an edited message; assistant_turns → the
assistant's replies, kept as context only; glossary_candidates → names proposed for the
fiction glossary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _n(count: int, one: str, many: str | None = None) -> str:
    return f"{count:,} {one if count == 1 else (many or one + 's')}"


def _join(parts: list[str]) -> str:
    parts = [p for p in parts if p]
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def messages_read(d: dict[str, Any]) -> int:
    """Messages an import read (new, already there, or a new version of an edited one)."""
    obs = d.get("observations") or {}
    return int(obs.get("new", 0)) + int(obs.get("duplicate", 0)) + int(obs.get("versioned", 0))


def counts_sentence(d: dict[str, Any]) -> str:
    """One file's (or the total's) counters as sentences."""
    if "observations" not in d:                      # a pulse-corpus/1 file
        made = _join([_n(int(d.get(k, 0)), one) for k, one in (
            ("entities", "person, place or thing"), ("events", "event"), ("facts", "fact"),
            ("relations", "relation")) if d.get(k)])
        return f"{made or 'Nothing new'} added from the corpus."
    obs, ev = d.get("observations") or {}, d.get("events") or {}
    read = messages_read(d)
    lead = [_n(int(ev.get("vivid", 0)), "moment") + " kept",
            _n(int(ev.get("pooled", 0)), "passing remark") + " pooled",
            _n(int(ev.get("distilled", 0)), "pattern") + " found"]
    first = ", ".join(lead)
    if ev.get("absorbed"):
        first += f" ({_n(int(ev['absorbed']), 'remark')} folded into patterns)"
    sentences = [first + "."]
    learned = _join([_n(int(d.get(k, 0)), one, many) for k, one, many in (
        ("entities", "new person, place or thing", "new people, places and things"),
        ("facts", "fact", None), ("relations", "relation", None),
        ("links", "link between events", "links between events")) if d.get(k)])
    if learned:
        sentences.append(f"Learned {learned}.")
    seen = f"{_n(read, 'message')} read: {obs.get('new', 0):,} new"
    if obs.get("duplicate"):
        seen += f", {obs['duplicate']:,} already there"
    if obs.get("versioned"):
        seen += f", {_n(int(obs['versioned']), 'edited message')} kept as a new version"
    if obs.get("assistant_turns"):
        seen += (f"; {_n(int(obs['assistant_turns']), 'reply', 'replies')} of the assistant "
                 "kept as context only")
    sentences.append(seen + ".")
    if d.get("glossary_candidates"):
        sentences.append(f"{_n(int(d['glossary_candidates']), 'new name')} proposed for the "
                         "fiction glossary.")
    if ev.get("curated"):
        sentences.append(f"{_n(int(ev['curated']), 'curated event')} added from a corpus.")
    if ev.get("superseded"):
        sentences.append(f"{_n(int(ev['superseded']), 'event')} replaced by edited messages.")
    if d.get("merge_proposals"):
        sentences.append(f"{_n(int(d['merge_proposals']), 'possible duplicate')} to review "
                         "below (same person under two names?).")
    if d.get("skipped"):
        sentences.append(f"{_n(int(d['skipped']), 'message')} skipped (empty or not text).")
    errors = d.get("errors") or []
    if errors:
        sentences.append(f"{_n(len(errors), 'problem')}: {errors[0]}"
                         + (" …" if len(errors) > 1 else ""))
    return " ".join(sentences)


def summary_text(summary: dict[str, Any]) -> str:
    """The whole import: a sentence for the total, then one paragraph per file."""
    lines: list[str] = []
    if summary.get("cancelled"):
        lines.append("Cancelled — import again to finish (what is already there is skipped).")
    total = summary.get("total") or {}
    files = summary.get("files", [])
    if total and (len(files) != 1 or "observations" in files[0]):
        lines.append(counts_sentence(total))
    if len(files) > 1 or (files and "observations" not in files[0]):
        for f in files:
            name = f"{Path(f.get('file', '?')).name} ({f.get('format', '?')})"
            if f.get("cancelled") and "observations" not in f and "events" not in f:
                lines.append(f"{name}: not started (cancelled).")
                continue
            lines.append(f"{name}{' — cancelled' if f.get('cancelled') else ''}: "
                         f"{counts_sentence(f)}")
    return "\n\n".join(lines)
