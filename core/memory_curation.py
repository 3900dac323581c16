"""Memory's import, curation and export operations: files in, merge proposals, the glossary,
the graph viewer out.

These are methods of `core.memory.Memory` (kept in their own module for size); use them through
a Memory, never by importing this module.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


class CurationOps:
    """Mixed into Memory: needs `conn`, `path`, `read_only`, `_writable()`."""

    # -- import ---------------------------------------------------------------------------------

    def import_files(self, paths: Sequence[str | Path] | str | Path, *, fmt: str = "auto",
                     extractor: str = "offline", progress: Callable[[int, int], None] | None = None,
                     cancel: Any = None) -> dict[str, Any]:
        """Import chats, exports, notes or corpora (format auto-detected; a re-import adds
        nothing). `extractor` is "offline" or a model alias; `cancel` a threading.Event."""
        from core.ingest import ingest_files

        return ingest_files(self, paths, fmt=fmt, extractor=extractor, progress=progress,
                            cancel=cancel)

    def remember(self, text: str, ts: str | None = None, *, extractor: str = "offline",
                 actor: str = "import") -> dict[str, Any]:
        """Store one thing said now (the MCP `remember` tool)."""
        from core.ingest import remember

        return remember(self, text, ts, extractor=extractor, actor=actor)

    @staticmethod
    def detect_format(path: str | Path) -> str:
        """chat | chatgpt | claude | text | obsidian | corpus, from the content."""
        from core.ingest import detect_format

        return detect_format(path)

    def full_text(self, observation_id: int) -> str:
        """An observation's whole text (a light chapter's file is read on demand)."""
        from core.ingest import load_full_text

        return load_full_text(self, observation_id)

    # -- merge proposals and the glossary ------------------------------------------------------

    def merge_proposals(self, status: str | None = "pending") -> list[dict[str, Any]]:
        """Entity merge proposals (status None: all), with both names and kinds."""
        from core.ingest import list_merge_proposals

        return list_merge_proposals(self, status)

    def resolve_merge(self, proposal_id: int, approve: bool, *, actor: str = "manual"
                      ) -> dict[str, Any]:
        """Approve (merge, journaled, undoable) or reject a proposal."""
        from core.ingest import resolve_merge_proposal

        return resolve_merge_proposal(self, proposal_id, approve, actor=actor)

    def glossary(self) -> list[dict[str, Any]]:
        from core.ingest import list_glossary

        return list_glossary(self)

    def add_glossary_term(self, term: str, *, domain: str = "fiction_content",
                          pattern: bool = False, kind: str = "fictional_character",
                          note: str = "", actor: str = "manual") -> int:
        """A fictional name (or a regex): later imports give what mentions it its domain."""
        from core.ingest import add_glossary_term

        return add_glossary_term(self, term, domain=domain, pattern=pattern, kind=kind,
                                 note=note, actor=actor)

    def apply_glossary_term(self, glossary_id: int, *, actor: str = "manual") -> list[int]:
        """Give the term's domain to stored real-life events that mention it."""
        from core.ingest import apply_glossary_term

        return apply_glossary_term(self, glossary_id, actor=actor)

    # -- the graph viewer ---------------------------------------------------------------------

    REDACTION_LEVELS = ("names", "no-event-text", "titles-only")

    def export_html(self, out: str | Path, *, domains: Any = None, redact: bool | str = "names",
                    include_events: bool = True, seed: int = 7,
                    lock: str | None = None) -> dict[str, Any]:
        """The standalone offline graph viewer, one HTML file. It leaves the owner's view, so
        policies and boundaries always apply; `redact` adds a level (names | no-event-text |
        titles-only; True = no-event-text); `lock` (a passphrase) writes a page that holds only
        ciphertext, opened in the browser (docs/privacy.md)."""
        from core.export import export_html
        from core.graph import parse_domains

        if isinstance(domains, str):
            domains = parse_domains(domains)
        return export_html(self, out, domains=domains, redact=redact,
                           include_events=include_events, seed=seed, lock=lock)

    def graph_page(self, *, title: str | None = None, domains: Any = None,
                   redact: bool = False) -> tuple[str, dict[str, Any]]:
        """The viewer page as HTML text, and its meta (counts): what the app's Graph tab
        loads."""
        from core.export import page_data, render_page

        data = page_data(self, title=title, domains=domains, redact=redact)
        return render_page(data), data["meta"]
