"""Memory's trust operations (JOURNAL.md): erasure, corrections, the brief, verdicts against
corrections, undo/redo, journal export and replay, the memory-pulse ledger.

These are methods of `core.memory.Memory` (kept in their own module for size); use them through
a Memory, never by importing this module. Each is a thin call into `core.trust`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any


class TrustOps:
    """Mixed into Memory: needs `conn`, `path`, `read_only`."""

    # -- erasure -----------------------------------------------------------------------------

    def forget(self, refs: str | Sequence[str], *, cascade: bool = False,
               keep: Iterable[str] = (), actor: str = "manual", vacuum: bool = True
               ) -> dict[str, Any]:
        """Erase one or more items (``event:ID``, ``fact:ID``, ``relation:ID``,
        ``entity:ID|KEY|NAME``, ``observation:ID``) everywhere, as ONE journaled erasure, then
        checkpoint and VACUUM. ``cascade=True`` on an entity erases everything about it (see
        `forget_preview`); ``keep`` lists items of the preview the user unticked. Irreversible."""
        from core.trust.forget import forget

        return forget(self, refs, cascade=cascade, keep=keep, actor=actor, vacuum=vacuum)

    def forget_preview(self, refs: str | Sequence[str], *, cascade: bool = False,
                       keep: Iterable[str] = ()) -> dict[str, Any]:
        """What `forget` would erase, without writing: {"items": [{"ref", "kind", "label",
        "root", "reason"}...], "counts": {kind: n}, "rows": {table: n}, "names": [...],
        "kept_mentions": [...]} — kept_mentions lists what stays and still names the person."""
        from core.trust.forget import preview

        return preview(self, refs, cascade=cascade, keep=keep)

    # -- corrections and the brief -------------------------------------------------------------

    def correct(self, *, withdrawn: Sequence[str] | None = (),
                replacement: Sequence[str] | None = (), note: str = "",
                subject: str | None = None, supersedes: Sequence[int] | None = (),
                actor: str = "manual") -> dict[str, Any]:
        """Record a correction (journaled); returns it as a dict with its journal seq."""
        from core.trust.corrections import correct

        return correct(self, withdrawn=withdrawn, replacement=replacement, note=note,
                       subject=subject, supersedes=supersedes, actor=actor)

    def corrections(self) -> list[Any]:
        """Every correction, newest first (objects with .to_dict(), .binding, .line)."""
        from core.trust.corrections import list_corrections

        return list_corrections(self)

    @staticmethod
    def correction_line(correction: Any) -> str:
        """The one-line form of a correction, as the brief prints it."""
        from core.trust.brief import correction_line

        return correction_line(correction)

    def brief(self, budget: int | None = None, *, now: datetime | str | None = None,
              domains: Iterable[str] | str | None = None, log: str | None = None
              ) -> dict[str, Any]:
        """The session brief within `budget` tokens (JOURNAL §3); with `log` (the client's
        name) it is written to the recall log."""
        from core.trust.brief import brief

        out = brief(self, budget, now=now, domains=domains)
        if log is not None:
            self.log_recall("brief", log, request={"budget": budget}, output=out)
        return out

    # -- verdicts against the corrections ------------------------------------------------------

    def guard_context(self) -> Any:
        """Binding corrections, overrides and journal health: what every verdict uses."""
        from core.trust.guard import load_context

        return load_context(self)

    def check_text(self, text: str, path: str | None = None, *, context: Any = None
                   ) -> dict[str, Any]:
        """BLOCKED / verified / no-evidence for one text (JOURNAL §4)."""
        from core.trust.guard import check_text

        return check_text(context or self.guard_context(), text, path)

    def lint(self, paths: Sequence[str | Path], *, context: Any = None) -> dict[str, Any]:
        """Verdicts for files (folders are walked)."""
        from core.trust.guard import lint_paths

        return lint_paths(context or self.guard_context(), [str(p) for p in paths])

    @staticmethod
    def default_lint_paths(root: str | Path = ".") -> list[str]:
        from core.trust.guard import default_lint_paths

        return default_lint_paths(root)

    @staticmethod
    def is_guard_hook(raw: str) -> bool:
        """Whether `raw` is a coding-agent PreToolUse hook the guard can judge (Edit / Write /
        MultiEdit with content); anything else is allowed silently."""
        from core.trust.guard import hook_texts

        return hook_texts(raw) is not None

    def guard_hook(self, raw: str) -> tuple[int, str]:
        """(exit status, message) for a PreToolUse hook: 2 blocks an edit that reintroduces a
        withdrawn term."""
        from core.trust.guard import guard_hook

        return guard_hook(self.guard_context(), raw)

    def guard_allow(self, term: str, path_prefix: str, reason: str, *,
                    actor: str = "manual") -> dict[str, Any]:
        """Record a guard override (journaled)."""
        from core.trust.guard import allow

        return allow(self, term, path_prefix, reason, actor=actor)

    # -- undo / redo over the journal ----------------------------------------------------------

    def undo(self, seq: int | None = None, *, actor: str = "manual") -> dict[str, Any]:
        """Append the inverse of the latest action still in effect (or of journal row `seq`;
        inverting an undo row is a redo). Erasures are final and a barrier."""
        from core.trust.undo import undo

        return undo(self, seq, actor=actor)

    def redo(self, *, actor: str = "manual") -> dict[str, Any]:
        from core.trust.undo import redo

        return redo(self, actor=actor)

    def history(self, limit: int = 50, *, subject: str | None = None) -> list[dict[str, Any]]:
        """Journal rows, newest first, with their undo state; `subject` (e.g. "event:12")
        limits them to one item."""
        from core.trust.undo import history

        return history(self, limit, subject=subject)

    # -- journal files -------------------------------------------------------------------------

    def export_journal(self, out: str | Path) -> dict[str, Any]:
        """Write the journal as JSON Lines (it can rebuild the memory with `replay`)."""
        from core.trust.replay import export_journal

        return export_journal(self, out)

    @staticmethod
    def replay(journal_path: str | Path, target: str | Path, passphrase: Any = None
               ) -> dict[str, Any]:
        """Rebuild the memory at `target` from an exported journal, offline. A sealed journal
        (an encrypted memory's) needs its passphrase; the new memory is encrypted with it."""
        from core.trust.replay import replay

        return replay(journal_path, target, passphrase)

    def import_ledger(self, path: str | Path) -> dict[str, Any]:
        from core.trust.ledger import import_ledger

        return import_ledger(self, path)

    def export_ledger(self, path: str | Path) -> dict[str, Any]:
        from core.trust.ledger import export_ledger

        return export_ledger(self, path)
