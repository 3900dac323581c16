"""Importers (INGEST §1): every format is parsed and validated WHOLE before anything is written,
so a malformed file gives one error naming the file and the line or field, and nothing of it is
stored. Each parser returns a list of `Message`s in file order.

Formats: text / Markdown (paragraphs), an Obsidian-style folder (chapters as light
observations), generic `chat` JSON / JSONL, the ChatGPT `conversations.json` export, the Claude
conversations export, and `pulse-corpus/1` (handled by core/ingest/corpus.py).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from core.errors import ValidationError
from core.files import read_text
from core.isotime import utc_iso
from core.store.locks import refuse_if_held

FORMATS = ("corpus", "chat", "chatgpt", "claude", "text", "obsidian")
TEXT_SUFFIXES = (".txt", ".md", ".markdown", ".text")


@dataclass
class Message:
    """One future observation."""

    source_kind: str
    source_id: str
    text: str
    ts: str                      # ISO-8601 UTC 'YYYY-MM-DDTHH:MM:SSZ'
    speaker: str = ""
    role: str = ""               # user | assistant | "" (unknown)
    metadata: dict[str, Any] = field(default_factory=dict)
    light: bool = False          # a chapter: the full text stays on disk
    domain: str | None = None    # forced domain (a novel's chapters)
    glossary: list[str] = field(default_factory=list)  # fictional names this item defines
    # set by core/ingest/roles.py: the turns before this one in its conversation, and the
    # assistant's question a short answer needs beside it
    prior: tuple[Message, ...] = field(default=(), repr=False, compare=False)
    context: Message | None = field(default=None, repr=False, compare=False)


def iso(moment: datetime) -> str:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return utc_iso(moment)


def parse_ts(value: Any, label: str) -> str:
    """ISO-8601 strings or Unix seconds → ISO UTC; ValidationError naming `label`."""
    if isinstance(value, bool):
        raise ValidationError(f"{label}: timestamp must be ISO-8601 or Unix seconds, got {value!r}")
    if isinstance(value, (int, float)):
        try:
            return iso(datetime.fromtimestamp(float(value), timezone.utc))
        except (OverflowError, OSError, ValueError):
            raise ValidationError(f"{label}: timestamp {value!r} is out of range") from None
    if isinstance(value, str) and value.strip():
        text = value.strip().replace("Z", "+00:00")
        try:
            return iso(datetime.fromisoformat(text))
        except ValueError:
            pass
        except OverflowError:  # "9999-12-31T23:00-05:00" is past the calendar in UTC
            raise ValidationError(f"{label}: timestamp {value!r} is out of range") from None
    raise ValidationError(f"{label}: timestamp {value!r} is not ISO-8601")


def _conversations(path: Path, app: str) -> list[Any]:
    """An export's conversations: a list of them, or one conversation on its own."""
    data = _load_json(path, read_text(path))
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise ValidationError(f"{path}: a {app} export is a list of conversations")
    return data


def _load_json(path: Path, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValidationError(f"{path}: line {exc.lineno}: not valid JSON ({exc.msg})") from None


def _mtime_iso(path: Path) -> str:
    return iso(datetime.fromtimestamp(int(os.stat(path).st_mtime), timezone.utc))


# -- detection ---------------------------------------------------------------------------------

def detect_format(path: str | os.PathLike) -> str:
    """By content, not only by extension: corpus | chat | chatgpt | claude | text | obsidian."""
    path = Path(path)
    if path.is_dir():
        return "obsidian"
    if not path.exists():
        raise ValidationError(f"{path}: no such file")
    _refuse_archive(path)
    head = read_text(path)
    stripped = head.lstrip()
    if stripped.startswith("{") or stripped.startswith("["):
        try:
            data = json.loads(stripped)
        except ValueError:
            data = None
            first = stripped.splitlines()[0] if stripped else ""
            try:
                if isinstance(json.loads(first), dict):
                    return "chat"  # JSON Lines
            except ValueError:
                pass
            if path.suffix.lower() in (".json", ".jsonl"):
                return "chat"  # malformed JSON: let the chat parser name the line
        if isinstance(data, dict):
            if data.get("format") == "pulse-corpus/1" or {"events", "entities"} & set(data):
                return "corpus"
            if "mapping" in data:
                return "chatgpt"
            if "chat_messages" in data:
                return "claude"
            return "chat"
        if isinstance(data, list):
            first = next((x for x in data if isinstance(x, dict)), {})
            if "mapping" in first:
                return "chatgpt"
            if "chat_messages" in first:
                return "claude"
            return "chat"
    if path.suffix.lower() in (".json", ".jsonl"):
        return "chat"  # not an export, nor a note: the chat parser names what is wrong
    return "text"


def _refuse_archive(path: Path) -> None:
    """A ChatGPT or Claude export arrives as a ZIP: say what to import instead of 'not UTF-8'.
    A memory open here is refused first: closing a plain handle on it drops its locks."""
    refuse_if_held(path)
    try:
        with open(path, "rb") as handle:
            magic = handle.read(4)
    except OSError:
        return  # read_text names the problem
    if magic == b"PK\x03\x04":
        raise ValidationError(f"{path}: a ZIP archive; unpack it and import what it holds (an "
                              "export's conversations.json, or the folder of notes)")


# -- text / Markdown ---------------------------------------------------------------------------

_DATE_IN_TEXT = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_FRONTMATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.S)


def _date_in(text: str) -> str | None:
    m = _DATE_IN_TEXT.search(text)
    if not m:
        return None
    try:
        return iso(datetime(int(m.group(1)), int(m.group(2)), int(m.group(3)), tzinfo=timezone.utc))
    except ValueError:
        return None


def paragraphs(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]


def parse_text(path: Path) -> list[Message]:
    text = read_text(path)
    if "\x00" in text:
        raise ValidationError(f"{path}: line {text[:text.index(chr(0))].count(chr(10)) + 1}:"
                              " binary data in a text file")
    _, body = _split_frontmatter(text)
    fallback = _date_in(path.name) or _mtime_iso(path)
    out, current = [], fallback
    source = str(path.resolve())
    for i, para in enumerate(paragraphs(body)):
        if para.startswith("#"):
            current = _date_in(para) or current  # a dated heading dates what follows
        out.append(Message("text", f"{source}#{i + 1}", para, _date_in(para) or current,
                           metadata={"file": source, "paragraph": i + 1}))
    return out


# -- Obsidian-style folder ---------------------------------------------------------------------

def _split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    m = _FRONTMATTER.match(text)
    if not m:
        return {}, text
    meta: dict[str, Any] = {}
    for line in m.group(1).splitlines():
        if ":" in line:
            key, _, value = line.partition(":")
            value = value.strip().strip("'\"")
            if value.startswith("[") and value.endswith("]"):
                meta[key.strip().lower()] = [v.strip().strip("'\"") for v in value[1:-1].split(",")
                                             if v.strip()]
            else:
                meta[key.strip().lower()] = value
    return meta, text[m.end():]


def _as_list(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    if isinstance(value, str) and value:
        return [v.strip() for v in value.split(",") if v.strip()]
    return []


def parse_obsidian(folder: Path) -> list[Message]:
    """Character notes (frontmatter `type: character`, or under a `Characters` folder) define
    glossary names; chapters (`type: chapter`, a `Chapters` folder, or a 'Chapter N' name) become
    light observations: title, main characters, first paragraph; the text stays on disk. Other
    notes are read as text (paragraphs)."""
    notes = sorted(p for p in folder.rglob("*") if p.suffix.lower() in TEXT_SUFFIXES
                   and p.is_file()
                   and not any(part.startswith(".") for part in p.relative_to(folder).parts))
    if not notes:
        raise ValidationError(f"{folder}: no notes in this folder (Markdown or text files: "
                              f"{', '.join(TEXT_SUFFIXES)})")
    characters: list[tuple[Path, dict[str, Any], str]] = []
    chapters: list[tuple[Path, dict[str, Any], str]] = []
    others: list[Path] = []
    root_meta: dict[str, Any] = {}
    for note in notes:
        text = read_text(note)
        meta, body = _split_frontmatter(text)
        rel = note.relative_to(folder)
        folders = [p.lower() for p in rel.parts[:-1]]
        kind = str(meta.get("type", "")).lower()
        if kind == "character" or any(f in ("characters", "character") for f in folders):
            characters.append((note, meta, body))
        elif kind == "chapter" or any(f in ("chapters", "chapter") for f in folders) \
                or re.match(r"(?i)^(chapter|глава)\b", note.stem):
            chapters.append((note, meta, body))
        else:
            if kind in ("novel", "book"):
                root_meta = meta
            others.append(note)
    novel = bool(characters or chapters) or str(root_meta.get("fiction", "")).lower() == "true"
    names: list[str] = []
    out: list[Message] = []
    for note, meta, body in characters:
        name = str(meta.get("name") or note.stem).strip()
        aliases = _as_list(meta.get("aliases"))
        names.extend([name, *aliases])
        first = paragraphs(body)[:1]
        out.append(Message("obsidian", str(note.relative_to(folder)),
                           f"Character: {name}" + (f" ({', '.join(aliases)})" if aliases else "")
                           + (f"\n{first[0]}" if first else ""),
                           _date_in(str(meta.get("date", ""))) or _mtime_iso(note),
                           metadata={"folder": str(folder.resolve()), "path": str(note.resolve()),
                                     "type": "character"},
                           light=True, domain="fiction_content", glossary=[name, *aliases]))
    for note, meta, body in chapters:
        paras = [p for p in paragraphs(body) if not p.startswith("#")]
        heading = next((p.lstrip("# ").strip() for p in paragraphs(body) if p.startswith("#")), "")
        title = str(meta.get("title") or heading or note.stem)
        counts = {n: len(re.findall(rf"\b{re.escape(n)}\b", body)) for n in names}
        main = [n for n, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if c > 0][:5]
        light = f"Chapter: {title}"
        if main:
            light += f"\nMain characters: {', '.join(main)}"
        if paras:
            light += f"\n{paras[0]}"
        out.append(Message("obsidian", str(note.relative_to(folder)), light,
                           _date_in(str(meta.get("date", ""))) or _mtime_iso(note),
                           metadata={"folder": str(folder.resolve()), "path": str(note.resolve()),
                                     "type": "chapter", "title": title, "characters": main,
                                     "words": len(body.split())},
                           light=True, domain="fiction_content" if novel else None))
    for note in others:
        for msg in parse_text(note):
            msg.source_kind = "obsidian"
            msg.source_id = f"{note.relative_to(folder)}#{msg.metadata['paragraph']}"
            msg.metadata = {"folder": str(folder.resolve()), "path": str(note.resolve()),
                            "paragraph": msg.metadata["paragraph"]}
            out.append(msg)
    return out


def load_full_text(metadata: dict[str, Any] | str) -> str:
    """The full text of a light observation (a chapter), read from disk on demand."""
    meta = json.loads(metadata) if isinstance(metadata, str) else metadata
    path = meta.get("path")
    if not path:
        raise ValidationError("this observation has no file behind it")
    _, body = _split_frontmatter(read_text(Path(path)))
    return body


# -- chat JSON / JSONL -------------------------------------------------------------------------

CHAT_KEYS = {"id", "speaker", "role", "text", "content", "ts", "timestamp", "conversation"}


def parse_chat(path: Path) -> list[Message]:
    text = read_text(path)
    stripped = text.lstrip()
    items: list[tuple[str, Any]] = []
    if stripped.startswith("["):
        data = _load_json(path, text)
        if not isinstance(data, list):
            raise ValidationError(f"{path}: a chat file is a JSON array or JSON Lines")
        # locate each item's line for error messages
        items = [(f"item {i}", item) for i, item in enumerate(data)]
    else:
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                items.append((f"line {n}", json.loads(line)))
            except json.JSONDecodeError as exc:
                raise ValidationError(f"{path}: line {n}: not valid JSON ({exc.msg})") from None
    out: list[Message] = []
    positions: dict[str, int] = {}
    seen: set[tuple[str, str]] = set()
    fallback = None
    for where, item in items:
        label = f"{path}: {where}"
        if not isinstance(item, dict):
            raise ValidationError(f"{label}: a message must be an object")
        unknown = sorted(set(item) - CHAT_KEYS)
        if unknown:
            raise ValidationError(f"{label}: unknown field {unknown[0]!r}")
        speaker, role = _chat_speaker_and_role(item, label)
        body = item.get("text", item.get("content"))
        if not isinstance(body, str):
            raise ValidationError(f"{label}: field 'text' (or 'content') must be a string")
        conv = item.get("conversation")
        if conv is not None and not isinstance(conv, (str, int)):
            raise ValidationError(f"{label}: field 'conversation' must be a string")
        conv = str(conv) if conv is not None else ""
        ident = item.get("id")
        if ident is not None and not isinstance(ident, (str, int)):
            raise ValidationError(f"{label}: field 'id' must be a string")
        positions[conv] = positions.get(conv, 0) + 1
        source_id = str(ident) if ident is not None else f"{conv or path.stem}#{positions[conv]}"
        source_kind = f"chat:{conv}" if conv else "chat"
        if (source_kind, source_id) in seen:
            raise ValidationError(f"{label}: field 'id' {source_id!r} repeats an earlier message")
        seen.add((source_kind, source_id))
        raw_ts = item.get("ts", item.get("timestamp"))
        if raw_ts is None:
            fallback = fallback or _mtime_iso(path)
            ts = out[-1].ts if out else fallback
        else:
            ts = parse_ts(raw_ts, f"{label}: field 'ts'")
        if not body.strip() or role == "system":
            continue
        meta = {"conversation": conv} if conv else {}
        out.append(Message(source_kind, source_id, body, ts, speaker=speaker.strip(), role=role,
                           metadata={**meta, "file": str(path.resolve())}))
    return out


ROLES = ("user", "assistant", "system")


def _chat_speaker_and_role(item: dict[str, Any], label: str) -> tuple[str, str]:
    """`speaker` names who wrote the message, `role` says whether that is the person (user), the
    assistant, or the system prompt. A file with a role and no speaker names the speaker after
    the role; an older file that put a name in `role` and had no `speaker` still imports (the
    name is the speaker, the role unknown)."""
    speaker, role = item.get("speaker"), item.get("role")
    if speaker is not None and (not isinstance(speaker, str) or not speaker.strip()):
        raise ValidationError(f"{label}: field 'speaker' must be a non-empty string")
    if role is not None and (not isinstance(role, str) or not role.strip()):
        raise ValidationError(f"{label}: field 'role' must be one of {', '.join(ROLES)}")
    if speaker is None and role is None:
        raise ValidationError(f"{label}: field 'speaker' (or 'role') must be a non-empty string")
    if role is not None and role.strip().lower() in ROLES:
        role = role.strip().lower()
    elif role is not None and speaker is not None:
        raise ValidationError(f"{label}: field 'role' must be one of {', '.join(ROLES)}, "
                              f"got {role!r}")
    elif role is not None:              # the older form: a name in `role`
        speaker, role = role, ""
    if speaker is None:
        speaker = role.capitalize()
    elif not role and speaker.strip().lower() in ROLES:
        role = speaker.strip().lower()
    return speaker.strip(), role or ""


# -- ChatGPT conversations.json -----------------------------------------------------------------

def _chatgpt_parts(content: Any, label: str) -> str:
    if not isinstance(content, dict):
        raise ValidationError(f"{label}: field 'content' must be an object")
    parts = content.get("parts")
    if parts is None:
        text = content.get("text")
        return text if isinstance(text, str) else ""
    if not isinstance(parts, list):
        raise ValidationError(f"{label}: field 'content.parts' must be a list")
    return "\n".join(p if isinstance(p, str) else str(p.get("text", "")) if isinstance(p, dict)
                     else "" for p in parts).strip()


def parse_chatgpt(path: Path) -> list[Message]:
    out: list[Message] = []
    for ci, conv in enumerate(_conversations(path, "ChatGPT")):
        label = f"{path}: conversations[{ci}]"
        if not isinstance(conv, dict) or not isinstance(conv.get("mapping"), dict):
            raise ValidationError(f"{label}: field 'mapping' must be an object")
        mapping = conv["mapping"]
        conv_id = str(conv.get("id") or conv.get("conversation_id") or f"{path.stem}-{ci}")
        title = str(conv.get("title") or "")
        # the thread that was shown: current_node back to the root, else the longest path
        node = conv.get("current_node")
        if node is not None and not isinstance(node, str):
            raise ValidationError(f"{label}: field 'current_node' must be a string")
        if node is not None and node not in mapping:
            raise ValidationError(f"{label}: field 'current_node' {node!r} is not in mapping")
        if node is None:
            leaves = [k for k, v in mapping.items() if isinstance(v, dict) and not v.get("children")]
            node = sorted(leaves)[-1] if leaves else None
        chain, guard = [], set()
        while node is not None:
            if node in guard:
                raise ValidationError(f"{label}: mapping has a cycle at {node!r}")
            guard.add(node)
            entry = mapping.get(node)
            if not isinstance(entry, dict):
                raise ValidationError(f"{label}: mapping[{node!r}] must be an object")
            chain.append((node, entry))
            node = entry.get("parent")
            if node is not None and not isinstance(node, str):
                raise ValidationError(f"{label}: mapping[{chain[-1][0]!r}].parent must be a string")
            if node is not None and node not in mapping:
                raise ValidationError(f"{label}: mapping[{chain[-1][0]!r}].parent names no node")
        default_ts = conv.get("create_time")
        for node_id, entry in reversed(chain):
            msg = entry.get("message")
            if msg is None:
                continue
            mlabel = f"{label}: mapping[{node_id!r}].message"
            if not isinstance(msg, dict):
                raise ValidationError(f"{mlabel}: must be an object")
            author = msg.get("author") or {}
            role = author.get("role") if isinstance(author, dict) else None
            if not isinstance(role, str):
                raise ValidationError(f"{mlabel}: field 'author.role' must be a string")
            if role not in ("user", "assistant"):
                continue
            text = _chatgpt_parts(msg.get("content", {}), mlabel)
            if not text:
                continue
            when = msg.get("create_time") or default_ts
            ts = parse_ts(when, f"{mlabel}: field 'create_time'") if when is not None \
                else _mtime_iso(path)
            out.append(Message("chatgpt", str(msg.get("id") or node_id), text, ts,
                               speaker="User" if role == "user" else "ChatGPT", role=role,
                               metadata={"conversation": conv_id, "title": title}))
    return out


# -- Claude conversations export -----------------------------------------------------------------

def parse_claude(path: Path) -> list[Message]:
    out: list[Message] = []
    for ci, conv in enumerate(_conversations(path, "Claude")):
        label = f"{path}: conversations[{ci}]"
        if not isinstance(conv, dict) or not isinstance(conv.get("chat_messages"), list):
            raise ValidationError(f"{label}: field 'chat_messages' must be a list")
        conv_id = str(conv.get("uuid") or f"{path.stem}-{ci}")
        for mi, msg in enumerate(conv["chat_messages"]):
            mlabel = f"{label}.chat_messages[{mi}]"
            if not isinstance(msg, dict):
                raise ValidationError(f"{mlabel}: must be an object")
            sender = msg.get("sender")
            if sender not in ("human", "assistant"):
                raise ValidationError(f"{mlabel}: field 'sender' must be 'human' or 'assistant'")
            text = msg.get("text")
            if text is None or text == "":
                blocks = msg.get("content") or []
                if not isinstance(blocks, list):
                    raise ValidationError(f"{mlabel}: field 'content' must be a list")
                text = "\n".join(str(b.get("text", "")) for b in blocks
                                 if isinstance(b, dict) and b.get("type") == "text")
            if not isinstance(text, str):
                raise ValidationError(f"{mlabel}: field 'text' must be a string")
            when = msg.get("created_at") or conv.get("created_at")
            ts = parse_ts(when, f"{mlabel}: field 'created_at'") if when else _mtime_iso(path)
            if not text.strip():
                continue
            role = "user" if sender == "human" else "assistant"
            out.append(Message("claude", str(msg.get("uuid") or f"{conv_id}#{mi + 1}"), text, ts,
                               speaker="User" if role == "user" else "Claude", role=role,
                               metadata={"conversation": conv_id,
                                         "title": str(conv.get("name") or "")}))
    return out


PARSERS = {"chat": parse_chat, "chatgpt": parse_chatgpt, "claude": parse_claude,
           "text": parse_text, "obsidian": parse_obsidian}


def parse(path: str | os.PathLike, fmt: str = "auto") -> tuple[str, list[Message]]:
    path = Path(path)
    if not path.exists():
        raise ValidationError(f"{path}: no such file or folder")
    if path.is_file():
        _refuse_archive(path)
    fmt = detect_format(path) if fmt == "auto" else fmt
    if fmt not in FORMATS:
        raise ValidationError(f"{path}: unknown format {fmt!r} (one of {', '.join(FORMATS)})")
    if fmt == "obsidian" and not path.is_dir():
        raise ValidationError(f"{path}: the obsidian format is a folder of notes")
    if fmt != "obsidian" and path.is_dir():
        raise ValidationError(f"{path}: a folder (use --format obsidian)")
    if fmt == "corpus":
        return fmt, []
    return fmt, PARSERS[fmt](path)
