"""Who is speaking (INGEST §1, docs/cli.md "Speaker roles"): the person whose memory this is
(`user`), an AI assistant (`assistant`), or somebody else (no role: another person in a chat).

- A chat file says it per message (`role`); ChatGPT and Claude exports always do. Without a
  role, the speaker named by `--me` is the user, and a speaker named like an assistant
  ("assistant", "AI", "Companion", "ChatGPT", …) is the assistant.
- The user's turns are spoken by the person: `--me NAME` names them, else the memory's own person
  (the entity marked is_self) does, else the name the file gives ("User").
- An assistant's turns are context, not life events: they are stored as observations (so they
  stay traceable and erasable) but make no event and no entity. A short answer to an assistant's
  question ("How did that feel?" → "Awful") keeps the question beside it: the question is quoted
  in the event's text and its observation is evidence of the event.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.errors import ValidationError
from core.ingest.formats import Message
from core.store.sqlite import sqlite3

# Speaker names that only an AI is given (not "Claude" or "Gemini": people are called that).
ASSISTANT_NAMES = frozenset({"assistant", "ai", "bot", "companion", "chatgpt", "gpt",
                             "ai assistant", "ai companion", "chatbot", "system"})
GENERIC_USER = frozenset({"user", "human", "me"})
PRIOR_TURNS = 6              # what the LLM extractor sees before a message
CONTEXT_MAX_WORDS = 6        # a user turn this short needs the question it answers
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Person:
    """The person this memory is about: the is_self entity if there is one, and the name that
    labels the user's turns."""
    entity_id: int | None
    name: str | None
    names: tuple[str, ...] = ()


def _fold(name: str) -> str:
    return " ".join(name.casefold().split())


def memory_person(conn: sqlite3.Connection, me: str | None) -> Person:
    """The memory's person, checked against `--me`: a name that is not theirs is refused with
    one line (importing someone else's chats into this memory is a mistake to stop, not to
    guess about)."""
    if me is not None:
        if not isinstance(me, str) or not me.strip() or len(me.strip()) > 100:
            raise ValidationError("--me: give the person's name (1-100 characters)")
        me = " ".join(me.split())
    row = conn.execute("SELECT id, canonical_name, aliases FROM entities WHERE is_self = 1"
                       " ORDER BY id LIMIT 1").fetchone()
    if row is None:
        return Person(None, me, (me,) if me else ())
    names = (row[1], *json.loads(row[2] or "[]"))
    if me is not None and _fold(me) not in {_fold(n) for n in names}:
        known = ", ".join(repr(n) for n in names[:4])
        raise ValidationError(f"--me {me!r}: this memory's person is {row[1]!r}; give one of "
                              f"their names ({known})")
    return Person(int(row[0]), me or row[1], tuple(names))


def assign_roles(messages: Sequence[Message], person: Person, *, me_given: bool,
                 label: str = "") -> None:
    """Set each message's role and speaker, and link each one to the turns before it in its
    conversation (`prior`, for the LLM's prompt) and, for a short answer to an assistant's
    question, to that question (`context`). A user whose name is not the memory's person's is
    refused unless `--me` says who they are (me_given)."""
    mine = {_fold(n) for n in person.names}
    previous: dict[tuple[str, str], list[Message]] = {}
    for msg in messages:
        speaker = _fold(msg.speaker)
        if not msg.role and msg.speaker:
            if speaker in mine:
                msg.role = "user"
            elif speaker in ASSISTANT_NAMES:
                msg.role = "assistant"
        if msg.role == "user" and person.name and _fold(person.name) != speaker:
            if not (me_given or speaker in GENERIC_USER or speaker in mine or not speaker):
                raise ValidationError(
                    f"{label}: the user in this file is {msg.speaker!r} but this memory's person"
                    f" is {person.name!r}; say who the user is with --me")
            msg.speaker = person.name
        key = (msg.source_kind, str(msg.metadata.get("conversation", "")))
        before = previous.setdefault(key, [])
        msg.prior = tuple(before[-PRIOR_TURNS:])
        if msg.role == "user" and before and needs_context(msg.text, before[-1]):
            msg.context = before[-1]
        before.append(msg)


def needs_context(text: str, previous: Message) -> bool:
    """A user turn answers an assistant's question and is too short to stand on its own."""
    return (previous.role == "assistant" and "?" in previous.text
            and len(_WORD.findall(text)) <= CONTEXT_MAX_WORDS)


def assistant_names(messages: Sequence[Message]) -> set[str]:
    """The assistant speakers of an import, folded: never made an entity."""
    return {_fold(m.speaker) for m in messages if m.role == "assistant" and m.speaker}


def context_line(context: Message, limit: int = 200) -> str:
    """How a question appears under the answer it gives meaning to."""
    text = " ".join(context.text.split())
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0] + "…"
    who = context.speaker or "assistant"
    return f"(in reply to {who}: “{text}”)"
