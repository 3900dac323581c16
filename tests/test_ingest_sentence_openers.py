"""A name that begins a sentence alone (core/ingest/openers.py): taken when more than its
capital says it is a name — the memory has it, the import writes it mid-sentence, or a person
cue follows it — and never when it is an ordinary word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.ingest import ingest_files, names
from core.ingest.openers import openers
from core.store import records


def chat(tmp_path: Path, *texts: str) -> Path:
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps({"id": str(i), "speaker": "Nadia", "role": "user",
                                        "ts": f"2024-04-{10 + i}T10:00:00Z", "text": text},
                                       ensure_ascii=False) + "\n"
                            for i, text in enumerate(texts)), encoding="utf-8")
    return path


def entities(memory) -> dict[str, str]:
    return {r[0]: r[1] for r in memory.conn.execute(
        "SELECT canonical_name, kind FROM entities WHERE is_self = 0")}


def linked(memory, name: str) -> int:
    return memory.conn.execute(
        "SELECT COUNT(*) FROM event_entities x JOIN entities e ON e.id = x.entity_id"
        " WHERE e.canonical_name = ?", (name,)).fetchone()[0]


def found(*texts: str, known: tuple[str, ...] = ()) -> list[str]:
    common = names.lowercase_words(texts)
    opens = openers(texts, common=common, known=known)
    return [n for t in texts for n in names.name_candidates(t, common=common, opens=opens)]


@pytest.mark.parametrize("texts, expected", [
    (["Dana said she'd come."], ["Dana"]),                       # a person cue follows
    (["Dana texted me at midnight."], ["Dana"]),
    (["Катя сказала, что приедет."], ["Катя"]),
    (["Dana is coming over.", "Dana said so."], ["Dana", "Dana"]),  # the cue counts everywhere
    (["Leo is funny.", "I met Leo at the gym."], ["Leo", "Leo"]),   # named mid-sentence elsewhere
    (["Кате я позвонила вечером.", "Катя сказала, что устала."], ["Кате", "Катя"]),  # a case form
    (["Dana is coming over."], []),                              # nothing but a capital
    (["Someone said it would rain."], []),                       # ordinary words, cue or not
    (["Everyone told me to rest."], []),
    (["Nobody asked me about it."], []),
    (["Maybe said too much, honestly."], []),
    (["People said it was fine."], []),
    (["Kids texted me all day."], []),
    (["Rose said hi.", "The sun rose early."], []),              # a word used in lower case
    (["Sam's wife called.", "I love her."], ["Sam"]),             # what only people have
    (["Thankfully, my son is fine."], []),                      # an apposition is no cue here
    (["Fully agreed with you."], []),                            # an adverb before a verb
    (["Emily said hi.", "I saw Emily at school."], ["Emily", "Emily"]),
    (["Мама сказала, что придёт."], []),                         # a kinship word at the start
    (["Братья сказали, что придут."], []),                       # in any form
    (["Sisters said no."], []),
    (["Женя сказала, что придёт."], ["Женя"]),                   # a name, not "жена"
])
def test_a_sentence_start(texts, expected):
    assert found(*texts) == expected


def test_a_name_the_memory_has_may_begin_a_sentence():
    assert found("Priya is coming over tonight.", known=("Priya", "Priya Nair")) == ["Priya"]
    assert found("Мама сказала, что придёт.", known=("Мама",)) == ["Мама"]


def test_an_import_finds_a_person_only_named_at_sentence_starts(memory, tmp_path):
    ingest_files(memory, [chat(tmp_path, "Dana said she'd come to the party.",
                               "Dana texted me later. Someone said it would rain.",
                               "Катя сказала, что приедет. Everyone told me to rest.",
                               "Nobody asked. Мама сказала, что придёт.")], me="Nadia")
    assert entities(memory) == {"Dana": "person", "Катя": "person"}
    assert linked(memory, "Dana") == 2


def test_a_known_name_at_a_sentence_start_is_linked(memory, tmp_path):
    records.add_entity(memory.conn, actor="manual", name="Priya Nair", kind="person",
                       aliases=["Priya"])
    ingest_files(memory, [chat(tmp_path, "Priya is coming over tonight.")], me="Nadia")
    assert entities(memory) == {"Priya Nair": "person"}
    assert linked(memory, "Priya Nair") == 1


def test_a_single_note_takes_a_name_before_a_person_cue(memory):
    memory.remember("Dana said she'd come. Someone said it would rain.",
                    "2024-04-10T10:00:00Z")
    assert entities(memory) == {"Dana": "person"}


def test_the_demo_memory_links_mama_at_a_sentence_start(demo_copy, tmp_path):
    from core.memory import Memory

    with Memory.open(demo_copy) as memory:
        before = entities(memory)
        links = linked(memory, "Irina Volkova")
        ingest_files(memory, [chat(tmp_path, "Мама сказала, что придёт в субботу.")],
                     me="Nadia")
        assert entities(memory) == before
        assert linked(memory, "Irina Volkova") == links + 1
