"""Fiction stays fiction (INGEST §2.3, docs/cli.md "Fiction and the glossary").

A name that the glossary or a fiction-domain entity already knows is never made a real-life
entity. A new capitalised name that occurs (mostly) inside fiction passages is proposed for the
glossary (a glossary candidate a person accepts or rejects) instead of being made an entity.

A fiction passage is a message (a chat turn, a paragraph) that
  - belongs to a fiction item (a novel's chapter or character note), or
  - says so ("in my novel", "the protagonist", "my characters", "the villain", "a new
    character", "the final chapter", …), or
  - names something fictional: a glossary term, a fiction-domain entity, or a name this scan
    has already found to be fictional (so a novel's names carry each other: "Ilse" marks the
    message in which "Greywick" appears).
The scan runs over a whole import before anything is written (every file is parsed first), so
its answer depends on the input only: a rerun after a crash proposes the same names.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence, Set
from typing import Any

from core.ingest import names as name_rules
from core.ingest.formats import Message
from core.store.sqlite import sqlite3

FICTION_DOMAINS = ("fiction_content", "fiction_meta", "meta_authorial")
CUES = re.compile(
    r"(?i)\b(?:in|from|for|of) (?:my|the|this|her|his) (?:novel|book|story|manuscript|"
    r"screenplay|script|draft|chapter|scene)\b|"
    r"\b(?:my|the|a|her|his) (?:protagonist|antagonist|heroine|villain|narrator|"
    r"main character)s?\b|\bmy characters?\b|\b(?:a|the) new character\b|"
    r"\b(?:the|a|this) (?:climax|opening scene|last scene|final scene|final chapter|"
    r"first chapter|last chapter|rewrite|plot|subplot)\b|\bchapter (?:\d+|one|two|three|four|"
    r"five|six|seven|eight|nine|ten)\b|\bthe (?:novel|book|story) (?:opens|ends|begins)\b")
# "the Drowned Chapel chapter": a part of a work named by its title
_CAP = name_rules.UPPER
_NAME = rf"[{_CAP}][{name_rules.LOWER}]+"   # a capitalised name word, accents and all
TITLED_PART = re.compile(rf"\b[{_CAP}][\w'’]+(?: [{_CAP}][\w'’]+)* (?:chapter|scene|storyline|"
                         r"subplot)s?\b")
ROUNDS = 4           # propagation through co-occurring names stops after this many rounds
_REL_NAMED = re.compile(r"(?i)\b(?:my|our)\s+(?:\w+\s+)?(?:mom|mother|mum|dad|father|sister|"
                        r"brother|husband|wife|partner|boyfriend|girlfriend|son|daughter|aunt|"
                        r"uncle|cousin|niece|nephew|friend|boss|therapist|coworker|colleague|"
                        r"mentor|roommate|agent|editor|neighbou?r|teacher|doctor)"
                        rf"(?-i:,?\s+({_NAME}))")


def fold(name: str) -> str:
    text = " ".join(name.casefold().replace("’", "'").split())
    return text[4:] if text.startswith("the ") else text


def _looks_like_name(name: str) -> bool:
    return bool(name) and name[0].isupper() and any(c.isalpha() for c in name)


def known_names(conn: sqlite3.Connection) -> tuple[dict[str, tuple[str, str]], set[str],
                                                     list[re.Pattern[str]]]:
    """What the memory already knows: fictional names (name → (domain, kind)) from the
    glossary and the fiction-domain entities, the folded names of real-life entities, and the
    glossary's patterns."""
    fiction: dict[str, tuple[str, str]] = {}
    patterns: list[re.Pattern[str]] = []
    for term, is_pattern, domain, kind in conn.execute(
            "SELECT term, is_pattern, domain, kind FROM glossary ORDER BY id"):
        if is_pattern:
            patterns.append(re.compile(term))
        else:
            fiction.setdefault(term, (domain, kind))
    real: set[str] = set()
    for name, aliases, domain, kind in conn.execute(
            "SELECT canonical_name, aliases, domain, kind FROM entities ORDER BY id"):
        for n in [name, *json.loads(aliases or "[]")]:
            if domain in FICTION_DOMAINS:
                bare = n[4:] if n[:4].lower() == "the " else n   # "the Tallyman"
                if _looks_like_name(bare):
                    fiction.setdefault(bare, (domain, kind))
            else:
                real.add(fold(n))
    return fiction, real, patterns


def rejected_candidates(conn: sqlite3.Connection) -> set[str]:
    return {fold(r[0]) for r in conn.execute(
        "SELECT term FROM glossary_candidates WHERE status = 'rejected'")}


def _name_regex(names: Sequence[str]) -> re.Pattern[str] | None:
    if not names:
        return None
    alternatives = sorted({re.escape(n) for n in names}, key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b")


def scan(messages: Sequence[Message], *, fiction: Mapping[str, tuple[str, str]],
         real: Set[str], patterns: Sequence[re.Pattern[str]] = (),
         rejected: Set[str] = frozenset(),
         common: Set[str] | None = None) -> dict[str, str]:
    """The import's glossary candidates: name → kind guess (fictional_character or place).

    A passage is one message (a chat turn, a paragraph). A name is a candidate when most of the
    passages that mention it (anywhere, a sentence's first word too) are marked as fiction by
    something other than the name itself (a cue, a known fictional name, another candidate, its
    own longer or shorter form), and it is not a real-life name the memory knows,
    not a speaker, not named as someone's relative ("my sister Anna"), and not a name a person
    rejected. Candidates mark sentences in turn, for ROUNDS rounds (a novel's names carry each
    other)."""
    from core.ingest.offline import sentences

    known = _name_regex(list(fiction))
    never: set[str] = set(real) | set(rejected)     # folded names that are real
    places: set[str] = set()
    texts: list[str] = []
    marked: list[bool] = []                         # per passage: a cue or a known name
    caps: list[set[str]] = []                       # per passage: its capitalised words
    found: set[str] = set()
    for msg in messages:
        if msg.role == "assistant":
            continue
        if msg.speaker:
            never.add(fold(msg.speaker))
        whole = msg.domain in FICTION_DOMAINS
        for m in _REL_NAMED.finditer(msg.text):
            never.add(fold(m.group(1)))
        places.update(m.group(1) for m in _IN_PLACE.finditer(msg.text))
        texts.append(msg.text)
        marked.append(whole or bool(CUES.search(msg.text) or TITLED_PART.search(msg.text))
                      or bool(known and known.search(msg.text))
                      or any(p.search(msg.text) for p in patterns))
        caps.append(set(_CAPS.findall(msg.text)))
        for sent in sentences(msg.text) or [msg.text]:
            found.update(name_rules.name_candidates(sent, common=common))
    by_head: dict[str, list[str]] = {}
    for name in found:
        if fold(name) not in never and name not in fiction and name.split()[0] not in fiction:
            by_head.setdefault(name.split()[0], []).append(name)
    where: dict[str, list[int]] = {}                # name → every passage that mentions it
    for index, words in enumerate(caps):
        for head in words & by_head.keys():
            for name in by_head[head]:
                if " " not in name or name in texts[index]:
                    where.setdefault(name, []).append(index)
    candidates: dict[str, str] = {}
    for _ in range(ROUNDS):
        heads: dict[str, set[str]] = {}              # first word → candidates with it
        for name in candidates:
            heads.setdefault(name.split()[0], set()).add(name)
        new: dict[str, str] = {}
        for name, sents in where.items():
            # another candidate marks a sentence ("Ilse Marrow" marks "Ilse refuses …" for
            # "Ilse"); a name never marks its own sentences
            others = {h for h, names in heads.items() if names - {name}}
            inside = sum(1 for i in sents if marked[i] or caps[i] & others)
            if 2 * inside > len(sents):
                new[name] = "place" if name in places else "fictional_character"
        if new.keys() == candidates.keys():
            break
        candidates = new
    return dict(sorted(candidates.items()))


_IN_PLACE = re.compile(r"\b(?:in|at|near|from|visited|visiting)\s+(?:the\s+)?"
                       rf"({_NAME}(?:\s+{_NAME})?)")
_CAPS = re.compile(rf"\b[{_CAP}][{_CAP}{name_rules.LOWER}'’\-]*")


# -- glossary candidates: a person decides --------------------------------------------------

def list_candidates(memory: Any, status: str | None = "pending") -> list[dict[str, Any]]:
    """Glossary candidates with how many observations mention them."""
    sql = ("SELECT c.*, (SELECT COUNT(*) FROM evidence v WHERE v.row_kind = 'glossary_candidate'"
           " AND v.row_id = c.id) AS observations FROM glossary_candidates c")
    args: tuple[Any, ...] = ()
    if status:
        sql += " WHERE c.status = ?"
        args = (status,)
    return [dict(r) for r in memory.conn.execute(sql + " ORDER BY c.id", args)]


def resolve_candidate(memory: Any, candidate_id: int, accept: bool, *,
                      actor: str = "manual") -> dict[str, Any]:
    """Accept (the name joins the glossary as a term of the candidate's kind and domain, in the
    same journaled step) or reject (later imports treat the name as real). Undoable."""
    from core.errors import PulseError
    from core.store.commands import execute, next_id, transaction

    memory._writable()
    conn = memory.conn
    with transaction(conn):
        row = conn.execute("SELECT * FROM glossary_candidates WHERE id = ?",
                           (candidate_id,)).fetchone()
        if row is None:
            raise PulseError(f"no glossary candidate {candidate_id}")
        if row["status"] != "pending":
            raise PulseError(f"glossary candidate {candidate_id} is already {row['status']}")
        status = "accepted" if accept else "rejected"
        changes: list[dict[str, Any]] = [{
            "t": "glossary_candidates", "a": "update", "pk": {"id": candidate_id},
            "set": {"status": status}, "old": {"status": "pending"}}]
        glossary_id = None
        if accept:
            term = conn.execute("SELECT id FROM glossary WHERE term = ? AND is_pattern = 0",
                                (row["term"],)).fetchone()
            if term is not None:
                glossary_id = int(term[0])
            else:
                glossary_id = next_id(conn, "glossary")
                changes.append({"t": "glossary", "a": "insert", "row": {
                    "id": glossary_id, "term": row["term"], "is_pattern": 0,
                    "domain": row["domain"], "kind": row["kind"],
                    "note": f"accepted glossary candidate {candidate_id}"}})
        seq = execute(conn, actor=actor,
                      op="glossary.accept" if accept else "glossary.reject",
                      subject=f"glossary_candidate:{candidate_id}", changes=changes)
    return {"candidate": candidate_id, "term": row["term"], "status": status,
            "glossary": glossary_id, "seq": seq}
