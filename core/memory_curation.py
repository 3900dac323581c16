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
                     extractor: str = "offline", me: str | None = None,
                     progress: Callable[[int, int], None] | None = None,
                     cancel: Any = None,
                     preparing: Callable[[float], None] | None = None) -> dict[str, Any]:
        """Import chats, exports, notes or corpora (format auto-detected; a re-import adds
        nothing). `me` names the person whose memory this is: their turns are the user's; an
        assistant's turns are kept as context only, never events or an entity. `extractor` is
        "offline", "llm" (models.json's triage and extract aliases) or one model alias;
        `cancel` a threading.Event. `progress(done, total)` counts messages; `preparing(share)`
        how far the batch being prepared is (one long message can take seconds)."""
        from core.ingest import ingest_files

        return ingest_files(self, paths, fmt=fmt, extractor=extractor, me=me,
                            progress=progress, cancel=cancel, preparing=preparing)

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

    def glossary_candidates(self, status: str | None = "pending") -> list[dict[str, Any]]:
        """Names an import found only inside fiction passages, proposed for the glossary
        instead of being made real-life entities (status None: all)."""
        from core.ingest import list_candidates

        return list_candidates(self, status)

    def resolve_glossary_candidate(self, candidate_id: int, accept: bool, *,
                                   actor: str = "manual") -> dict[str, Any]:
        """Accept a candidate (it becomes a glossary term) or reject it (later imports treat
        the name as real). Journaled, undoable."""
        from core.ingest import resolve_candidate

        return resolve_candidate(self, candidate_id, accept, actor=actor)

    # -- events -------------------------------------------------------------------------------

    def set_emotions(self, event: str | int, values: dict[str, float], *,
                     actor: str = "manual") -> int | None:
        """Set an event's emotions (names absent are 0), marked user-confirmed: no import or
        re-tagging overwrites them. Journaled, undoable; None when nothing changed."""
        from core.curate.events import set_emotions

        self._writable()
        return set_emotions(self, self.resolve_event(event), values, actor=actor)

    def edit_event_text(self, event: str | int, *, title: str | None = None,
                        description: str | None = None, actor: str = "manual"
                        ) -> dict[str, Any] | None:
        """A new version of the event with this text; the old one is superseded (kept,
        traceable, no longer ranked). Returns {"event": new id, "replaces", "seq"}."""
        from core.curate.events import edit_event_text

        self._writable()
        return edit_event_text(self, self.resolve_event(event), title=title,
                               description=description, actor=actor)

    # -- entities -----------------------------------------------------------------------------

    def resolve_entity(self, entity: str | int) -> int:
        """An entity id from a number, "entity:ID", a key or a name/alias only one entity has."""
        from core.curate.entities import resolve_entity

        return resolve_entity(self.conn, entity)

    def edit_entity(self, entity: str | int, *, name: str | None = None,
                    aliases: Sequence[str] | None = None, kind: str | None = None,
                    domain: str | None = None, description: str | None = None,
                    keep_old_name: bool = True, actor: str = "manual") -> int | None:
        """Rename (the old name stays an alias unless keep_old_name=False), set aliases, kind,
        domain, description. Journaled, undoable; None when nothing changed."""
        from core.curate.entities import edit_entity

        self._writable()
        return edit_entity(self, self.resolve_entity(entity), name=name, aliases=aliases,
                           kind=kind, domain=domain, description=description,
                           keep_old_name=keep_old_name, actor=actor)

    def merge_preview(self, keep: str | int, gone: str | int) -> dict[str, Any]:
        """What merging `gone` into `keep` would move (nothing is written)."""
        from core.curate.entities import merge_preview

        return merge_preview(self, self.resolve_entity(keep), self.resolve_entity(gone))

    def merge_entities(self, keep: str | int, gone: str | int, *, actor: str = "manual"
                       ) -> dict[str, Any]:
        """Merge `gone` into `keep` by hand (a fictional character never merges with a real
        entity). Journaled, undoable."""
        from core.curate.entities import merge_entities

        self._writable()
        return merge_entities(self, self.resolve_entity(keep), self.resolve_entity(gone),
                              actor=actor)

    def split_alias_preview(self, entity: str | int, alias: str) -> dict[str, Any]:
        """Which linked events and facts name `alias` (they would move)."""
        from core.curate.entities import split_alias_preview

        return split_alias_preview(self, self.resolve_entity(entity), alias)

    def split_alias(self, entity: str | int, alias: str, *, kind: str | None = None,
                    events: Sequence[int] | None = None, actor: str = "manual") -> dict[str, Any]:
        """Make an alias an entity of its own, with the events and facts that name it."""
        from core.curate.entities import split_alias

        self._writable()
        return split_alias(self, self.resolve_entity(entity), alias, kind=kind, events=events,
                           actor=actor)

    # -- links --------------------------------------------------------------------------------

    def link_events(self, parent: str | int, child: str | int, *, kind: str = "causal",
                    strength: float = 0.5, actor: str = "manual") -> int:
        """A cause → effect chain link (no self-links, no cycles, no duplicates)."""
        from core.curate.links import link_events

        self._writable()
        return link_events(self, self.resolve_event(parent), self.resolve_event(child),
                           kind=kind, strength=strength, actor=actor)

    def unlink_events(self, parent: str | int, child: str | int, *,
                      actor: str = "manual") -> int:
        from core.curate.links import unlink_events

        self._writable()
        return unlink_events(self, self.resolve_event(parent), self.resolve_event(child),
                             actor=actor)

    def set_link(self, parent: str | int, child: str | int, *, strength: float | None = None,
                 kind: str | None = None, actor: str = "manual") -> int | None:
        """Re-weight or re-kind a chain link."""
        from core.curate.links import set_link

        self._writable()
        return set_link(self, self.resolve_event(parent), self.resolve_event(child),
                        strength=strength, kind=kind, actor=actor)

    def add_relation(self, source: str | int, target: str | int, kind: str, *,
                     strength: float = 0.5, context: str = "", actor: str = "manual"
                     ) -> dict[str, int]:
        """A relation a person states: {"relation": id, "seq": journal row}."""
        from core.curate.links import add_relation

        self._writable()
        return add_relation(self, self.resolve_entity(source), self.resolve_entity(target),
                            kind, strength=strength, context=context, actor=actor)

    def edit_relation(self, relation_id: int, *, kind: str | None = None,
                      strength: float | None = None, context: str | None = None,
                      reverse: bool = False, actor: str = "manual") -> int | None:
        from core.curate.links import edit_relation

        self._writable()
        return edit_relation(self, int(relation_id), kind=kind, strength=strength,
                             context=context, reverse=reverse, actor=actor)

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
