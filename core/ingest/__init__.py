"""Ingestion: importers, the offline and LLM extractors, the pipeline (INGEST.md).

Public API (the CLI, the desktop app and the MCP server call these):
  ingest_files(memory, paths, *, fmt="auto", extractor="offline", me=None, progress=None,
               cancel=None)
  remember(memory, text, ts=None, *, extractor="offline", actor="import")
  detect_format(path)
  list_merge_proposals(memory), resolve_merge_proposal(memory, proposal_id, approve)
  add_glossary_term(memory, term, ...), list_glossary(memory), apply_glossary_term(memory, id)
  list_candidates(memory), resolve_candidate(memory, candidate_id, accept)  (glossary candidates)
  load_full_text(memory, observation_id)  (a chapter's text, read from disk on demand)
"""

from __future__ import annotations

from typing import Any

from core.ingest.fiction import list_candidates, resolve_candidate
from core.ingest.formats import detect_format
from core.ingest.pipeline import (
    add_glossary_term,
    apply_glossary_term,
    ingest_files,
    list_glossary,
    list_merge_proposals,
    remember,
    resolve_merge_proposal,
)

__all__ = ["add_glossary_term", "apply_glossary_term", "detect_format", "ingest_files", "list_glossary",
           "list_candidates", "list_merge_proposals", "load_full_text", "remember",
           "resolve_candidate", "resolve_merge_proposal"]


def load_full_text(memory: Any, observation_id: int) -> str:
    """The full text behind an observation: a light chapter's file, else its stored text."""
    from core.errors import PulseError
    from core.ingest import formats

    row = memory.conn.execute("SELECT content_text, metadata FROM observations WHERE id = ?",
                              (int(observation_id),)).fetchone()
    if row is None:
        raise PulseError(f"no observation {observation_id}")
    meta = formats.json.loads(row[1] or "{}")
    if meta.get("light") and meta.get("path"):
        return formats.load_full_text(meta)
    return row[0]
