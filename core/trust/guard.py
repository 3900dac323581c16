"""check, lint and guard (JOURNAL §4): text against the binding corrections.

Three verdicts per input: BLOCKED (it states a withdrawn term), verified (it states a
replacement and no withdrawn term), no-evidence (neither — never reported as a pass).

Matching: case-insensitive (casefold), on token boundaries ("$49" does not match "$490" nor
"$49.50"), numbers normalised ("1,000" = "1000"). A sentence that names a withdrawn term and a
replacement term of the same correction is a comparison and passes; a replacement elsewhere in
the text does not excuse a bare withdrawn term. A journal that does not verify blocks every
verdict. Overrides (`guard allow TERM --path PREFIX --reason R`) are journaled and release one
term under one path prefix.
"""

from __future__ import annotations

import bisect
import json
import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.errors import PulseError, ValidationError
from core.store import journal
from core.store.commands import execute, next_id, transaction
from core.store.locks import held_in_process
from core.store.sqlite import sqlite3
from core.trust.corrections import Correction, conn_of, writable

BLOCKED, VERIFIED, NO_EVIDENCE = "BLOCKED", "verified", "no-evidence"
HOOK_TOOLS = ("Edit", "Write", "MultiEdit")
DEFAULT_LINT_PATHS = ("CLAUDE.md", "AGENTS.md", ".claude/rules", ".cursorrules", ".cursor/rules",
                      ".github/copilot-instructions.md", ".codex/AGENTS.md")
SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox"}
MAX_FILE_BYTES = 4_000_000

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n")
_THOUSANDS = re.compile(r"(?<=\d)[,\u00a0\u202f'](?=\d{3}(?!\d))")


def normalise(text: str) -> str:
    """Drop thousands separators between digits (before the no-break spaces among them become
    plain spaces), then NFKC (one spelling for "é" typed as e + combining accent, full-width
    signs, no-break spaces) and casefold."""
    text = _THOUSANDS.sub("", text)
    return unicodedata.normalize("NFKC", text).casefold()


def term_pattern(term: str) -> re.Pattern[str]:
    body = re.escape(normalise(" ".join(term.split()))).replace(r"\ ", r"\s+")
    return re.compile(r"(?<!\w)(?<!\d[.,])" + body + r"(?!\w)(?![.,]\d)")


def contains(text: str, term: str) -> bool:
    """Whether `term` occurs in `text` on token boundaries (both sides normalised)."""
    return term_pattern(term).search(normalise(text)) is not None


def _pieces(text: str) -> list[tuple[int, int, int]]:
    """(line number, start, end) of each sentence piece: lines cut after . ! or ?"""
    out: list[tuple[int, int, int]] = []
    offset = 0
    for number, line in enumerate(text.splitlines(keepends=True) or [text], start=1):
        body = line.rstrip("\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
        cuts = [0, *(m.end() for m in _SENTENCE_END.finditer(body)), len(body)]
        for start, end in zip(cuts, cuts[1:]):
            if body[start:end].strip():
                out.append((number, offset + start, offset + end))
        offset += len(line)
    return out


@dataclass(frozen=True)
class Override:
    id: int
    term: str
    path_prefix: str
    reason: str
    journal_seq: int | None


@dataclass
class Context:
    """What a verdict is judged against: binding corrections, overrides, and journal health."""
    corrections: list[Correction]
    overrides: list[Override]
    breaks: list[journal.Break]
    all_corrections: list[Correction] = field(default_factory=list)

    @property
    def broken(self) -> bool:
        return bool(self.breaks)


def load_context(memory: Any) -> Context:
    from core.trust.corrections import list_corrections

    conn = conn_of(memory)
    everything = list_corrections(conn)
    return Context(corrections=[c for c in everything if c.binding],
                   overrides=list_overrides(conn), breaks=journal.verify(conn),
                   all_corrections=everything)


def list_overrides(memory: Any) -> list[Override]:
    conn = conn_of(memory)
    if not _has_table(conn, "guard_overrides"):
        return []
    return [Override(int(r["id"]), r["term"], r["path_prefix"], r["reason"], r["journal_seq"])
            for r in conn.execute("SELECT * FROM guard_overrides ORDER BY id")]


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?",
                        (name,)).fetchone() is not None


def _under(path: str | None, prefix: str) -> bool:
    if path is None:
        return False
    candidates = {path, Path(path).as_posix()}
    try:
        candidates.add(str(Path(path).resolve()))
    except OSError:
        pass
    prefixes = {prefix, Path(prefix).as_posix()}
    try:
        prefixes.add(str(Path(prefix).resolve()))
    except OSError:
        pass
    for c in candidates:
        for p in prefixes:
            p = p.rstrip("/" + os.sep) or p
            if c == p or c.startswith(p + "/") or c.startswith(p + os.sep):
                return True
    return False


def _overridden(ctx: Context, term: str, path: str | None) -> Override | None:
    for o in ctx.overrides:
        if normalise(o.term) == normalise(term) and _under(path, o.path_prefix):
            return o
    return None


def check_text(ctx: Context, text: str, path: str | None = None) -> dict[str, Any]:
    """The verdict for one text: {"verdict", "hits": [...], "replacements": [...],
    "overridden": [...], "reason"}."""
    if ctx.broken:
        first = ctx.breaks[0]
        return {"verdict": BLOCKED, "hits": [], "replacements": [], "overridden": [],
                "reason": f"the journal does not verify ({first}); a memory whose history is "
                          "in question cannot vouch for anything"}
    hits: list[dict[str, Any]] = []
    overridden: list[dict[str, Any]] = []
    normalised = normalise(text)
    pieces = _pieces(normalised)
    starts = [start for _, start, _ in pieces]
    for c in ctx.corrections:
        replacement_patterns = [term_pattern(r) for r in c.replacement]
        for term in c.withdrawn:
            seen: set[int] = set()
            # over the whole text, not line by line: a term wrapped onto the next line of a
            # Markdown paragraph is still stated (not across a blank line: another paragraph)
            for match in term_pattern(term).finditer(normalised):
                if _PARAGRAPH_BREAK.search(match.group()):
                    continue
                first = last = max(0, bisect.bisect_right(starts, match.start()) - 1)
                while last + 1 < len(pieces) and pieces[last + 1][1] < match.end():
                    last += 1
                if first in seen:
                    continue
                seen.add(first)
                sentence = normalised[pieces[first][1]:pieces[last][2]]
                if any(p.search(sentence) for p in replacement_patterns):
                    continue  # a comparison: "was $49, now $29"
                number = pieces[first][0]
                override = _overridden(ctx, term, path)
                if override is not None:
                    overridden.append({"term": term, "line": number, "override": override.id,
                                       "journal_seq": override.journal_seq})
                    continue
                hits.append({"term": term, "line": number, "correction": c.id,
                             "journal_seq": c.journal_seq, "note": c.note,
                             "replacement": list(c.replacement)})
    replacements = sorted({r for c in ctx.corrections for r in c.replacement
                           if term_pattern(r).search(normalised)})
    verdict = BLOCKED if hits else VERIFIED if replacements else NO_EVIDENCE
    return {"verdict": verdict, "hits": hits, "replacements": replacements,
            "overridden": overridden, "reason": _reason(hits) if hits else None}


def _reason(hits: list[dict[str, Any]]) -> str:
    parts = []
    for h in hits[:5]:
        use = f" — use {', '.join(h['replacement'])}" if h["replacement"] else ""
        note = f": {h['note']}" if h["note"] else ""
        parts.append(f"line {h['line']}: {h['term']!r} was withdrawn by correction {h['correction']}"
                     f" (journal row {h['journal_seq']}){note}{use}")
    if len(hits) > 5:
        parts.append(f"and {len(hits) - 5} more")
    return "; ".join(parts)


# -- lint ---------------------------------------------------------------------------------------

def _read_text(path: Path) -> str | None:
    if held_in_process(path):   # a memory open here: a plain read would drop its locks
        return None
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def expand_paths(paths: list[str]) -> tuple[list[Path], list[str]]:
    """Files to lint (folders walked, binary and non-UTF-8 files skipped) and the skipped."""
    files: list[Path] = []
    skipped: list[str] = []
    for name in paths:
        path = Path(name)
        if not path.exists():
            raise ValidationError(f"{name}: no such file or folder")
        if path.is_dir():
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
                for n in sorted(names):
                    files.append(Path(root) / n)
        else:
            files.append(path)
    return files, skipped


def lint_paths(ctx: Context, paths: list[str]) -> dict[str, Any]:
    files, skipped = expand_paths(paths)
    results = []
    for path in files:
        text = _read_text(path)
        if text is None:
            skipped.append(str(path))
            continue
        results.append({"path": str(path), **check_text(ctx, text, str(path))})
    counts = {v: sum(1 for r in results if r["verdict"] == v)
              for v in (BLOCKED, VERIFIED, NO_EVIDENCE)}
    return {"files": results, "skipped": skipped, "counts": counts, "checked": len(results),
            "binding_corrections": len(ctx.corrections),
            "not_enforceable": [c.journal_seq for c in ctx.all_corrections if not c.enforceable],
            "journal_ok": not ctx.broken}


def default_lint_paths(root: str | Path = ".") -> list[str]:
    root = Path(root)
    return [str(root / p) for p in DEFAULT_LINT_PATHS if (root / p).exists()]


# -- guard (a coding agent's PreToolUse hook) -----------------------------------------------------

def hook_texts(raw: str) -> tuple[str, list[str]] | None:
    """(file_path, new texts) from a PreToolUse hook JSON, or None when there is nothing to
    judge (unparseable input, another tool, no content)."""
    try:
        data = json.loads(raw)
    except (ValueError, TypeError):
        return None
    if not isinstance(data, dict) or data.get("tool_name") not in HOOK_TOOLS:
        return None
    tool_input = data.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    path = tool_input.get("file_path")
    if not isinstance(path, str):
        path = ""
    texts: list[str] = []
    for key in ("new_string", "content"):
        if isinstance(tool_input.get(key), str):
            texts.append(tool_input[key])
    edits = tool_input.get("edits")
    if isinstance(edits, list):
        texts += [e["new_string"] for e in edits
                  if isinstance(e, dict) and isinstance(e.get("new_string"), str)]
    if not texts:
        return None
    return path, texts


def guard_hook(ctx: Context, raw: str) -> tuple[int, str]:
    """(exit status, message) for one hook call: 2 blocks with a message citing the correction
    and its journal row; 0 allows (silently)."""
    parsed = hook_texts(raw)
    if parsed is None:
        return 0, ""
    path, texts = parsed
    if ctx.broken:
        return 2, ("pulse guard: blocked — " + check_text(ctx, "", path)["reason"])
    results = [check_text(ctx, text, path or None) for text in texts]
    results.append(_edit_result(ctx, raw, path))
    for result in results:
        if result["verdict"] == BLOCKED:
            where = f" in {path}" if path else ""
            return 2, (f"pulse guard: blocked{where}: {result['reason']}. If this is a "
                       "comparison, name the replacement in the same sentence; if the block is "
                       "wrong, record `pulse guard allow TERM --path PREFIX --reason R`.")
    return 0, ""


def _edit_result(ctx: Context, raw: str, path: str) -> dict[str, Any]:
    """An Edit or MultiEdit judged on the file it leaves: BLOCKED when that file states a
    withdrawn term more often than the file before (the edit completed it: "terrier breed" →
    "terrier mix" by replacing "breed"). Nothing to judge (not an edit, the file unreadable, an
    old_string not found): no-evidence, and the edit's own text is what was judged."""
    nothing = {"verdict": NO_EVIDENCE, "hits": [], "replacements": [], "overridden": [],
               "reason": None}
    data = json.loads(raw)
    tool_input = data["tool_input"]
    if data["tool_name"] == "Edit":
        edits = [tool_input]
    elif data["tool_name"] == "MultiEdit" and isinstance(tool_input.get("edits"), list):
        edits = tool_input["edits"]
    else:
        return nothing
    before = _read_text(Path(path)) if path else None
    if before is None:
        return nothing
    after = before
    for edit in edits:
        old, new = (edit.get("old_string"), edit.get("new_string")) \
            if isinstance(edit, dict) else (None, None)
        if not isinstance(old, str) or not isinstance(new, str) or not old or old not in after:
            return nothing
        after = after.replace(old, new) if edit.get("replace_all") is True \
            else after.replace(old, new, 1)
    was = check_text(ctx, before, path)["hits"]
    now = check_text(ctx, after, path)
    counts: dict[tuple[int, str], int] = {}
    for hit in was:
        counts[(hit["correction"], hit["term"])] = counts.get((hit["correction"], hit["term"]),
                                                                0) + 1
    added = []
    for hit in now["hits"]:
        key = (hit["correction"], hit["term"])
        if counts.get(key, 0) > 0:
            counts[key] -= 1
        else:
            added.append(hit)
    if not added:
        return nothing
    return {**now, "verdict": BLOCKED, "hits": added, "reason": _reason(added)}


def allow(memory: Any, term: str, path_prefix: str, reason: str, *,
          actor: str = "manual") -> dict[str, Any]:
    """Record an override (journaled): `term` is not blocked under `path_prefix`."""
    conn = writable(memory)
    values = {"term": term, "path": path_prefix, "reason": reason}
    for name, value in values.items():
        if not isinstance(value, str) or not value.strip():
            raise ValidationError(f"guard allow: {name} must be a non-empty string")
        if len(value) > 1000:
            raise ValidationError(f"guard allow: {name} is longer than 1000 characters")
    with transaction(conn):
        override_id = next_id(conn, "guard_overrides")
        seq = journal.head(conn)[0] + 1
        row = {"id": override_id, "term": " ".join(term.split()), "path_prefix": path_prefix.strip(),
               "reason": reason.strip(), "journal_seq": seq}
        got = execute(conn, actor=actor, op="guard.allow", subject=f"override:{override_id}",
                      changes=[{"t": "guard_overrides", "a": "insert", "row": row}])
        assert got == seq
    return row


def open_context(path: str | Path | None) -> tuple[Context | None, str | None]:
    """Open a memory read-only for a verdict. (None, why) when there is no memory."""
    from core.memory import Memory

    try:
        memory = Memory.open(path, read_only=True)
    except PulseError as exc:
        return None, str(exc)
    try:
        return load_context(memory), None
    except sqlite3.Error as exc:
        return None, f"cannot read the memory ({exc})"
    finally:
        memory.close()
