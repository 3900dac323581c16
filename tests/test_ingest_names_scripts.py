"""One person in two scripts (core/ingest/romanise.py, the writer in core/ingest/pipeline.py):
a Cyrillic name and a Latin romanisation of it are one entity, within an import and against
the memory's names; two people are never made one on a spelling."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.ingest import ingest_files
from core.ingest.romanise import same_name
from core.store import records


def chat(tmp_path: Path, *texts: str, name: str = "chat.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps({"id": f"{name}-{i}", "speaker": "Nadia", "role": "user",
                                        "ts": f"2024-04-{10 + i}T10:00:00Z", "text": text},
                                       ensure_ascii=False) + "\n"
                            for i, text in enumerate(texts)), encoding="utf-8")
    return path


def people(memory) -> dict[str, list[str]]:
    """The real-life people other than the memory's own, with their aliases."""
    return {r[0]: json.loads(r[1]) for r in memory.conn.execute(
        "SELECT canonical_name, aliases FROM entities WHERE kind = 'person' AND is_self = 0"
        " AND domain = 'real'")}


def linked(memory, name: str) -> int:
    return memory.conn.execute(
        "SELECT COUNT(*) FROM event_entities x JOIN entities e ON e.id = x.entity_id"
        " WHERE e.canonical_name = ?", (name,)).fetchone()[0]


@pytest.mark.parametrize("cyrillic, latin", [
    ("Катя", "Katya"), ("Катя", "Katia"), ("Катя", "KATJA"), ("Зоя", "Zoya"), ("Зоя", "Zoia"),
    ("Наташа", "Natasha"), ("Вера", "Vera"), ("Мария", "Maria"), ("Дарья", "Dar'ya"),
    ("Алексей", "Alexei"), ("Алексей", "Aleksey"), ("Дмитрий", "Dmitry"), ("Женя", "Zhenya"),
    ("Юля", "Julia"), ("Баба Вера", "Baba Vera"),
    ("Катей", "Katya"), ("Зоей", "Zoia"), ("Наташей", "Natasha"), ("Бабы Веры", "Baba Vera"),
])
def test_a_romanisation_is_the_same_name(cyrillic, latin):
    assert same_name(cyrillic, latin) and same_name(latin, cyrillic)


@pytest.mark.parametrize("a, b", [
    ("Катя", "Kate"), ("Катей", "Katy"), ("Вера", "Veronica"), ("Катя", "Катя"),
    ("Katya", "Katya"), ("Ян", "Yan"),          # two letters: too many people
    ("Бабушка Вера", "Baba Vera"), ("Катя", "Katya Lind"),
])
def test_other_spellings_are_not(a, b):
    assert not same_name(a, b)


def test_one_import_in_two_scripts_makes_one_person(memory, tmp_path):
    ingest_files(memory, [chat(
        tmp_path,
        "I had lunch with Katya today and she looked tired.",
        "Вечером мы с Катей пекли пирог.",
        "Вчера мне звонила Катя, и мы долго говорили.")], me="Nadia")
    assert people(memory) == {"Katya": ["Катя"]}       # "Катей" is written as "Катя" here
    assert linked(memory, "Katya") == 3


def test_a_cyrillic_name_first_keeps_its_spelling(memory, tmp_path):
    ingest_files(memory, [chat(
        tmp_path,
        "Я купила книгу для Зои.",
        "My niece Zoya started school this week.",
        "I walked Zoia to the bus.")], me="Nadia")
    # "Zoia" alone has no person evidence, but it is the memory's Зоя
    assert list(people(memory)) == ["Зои"]
    assert people(memory)["Зои"][:1] == ["Zoya"]
    assert linked(memory, "Зои") == 2


def test_a_case_form_alone_links_to_the_latin_name(memory, tmp_path):
    ingest_files(memory, [chat(tmp_path, "I had lunch with Katya today.")], me="Nadia")
    ingest_files(memory, [chat(tmp_path, "Вечером мы с Катей пекли пирог.", name="ru.jsonl")],
                 me="Nadia")
    assert people(memory) == {"Katya": ["Катей"]}      # only what was written
    assert linked(memory, "Katya") == 2


def test_the_memorys_person_needs_no_evidence_in_the_other_script(memory, tmp_path):
    records.add_entity(memory.conn, actor="manual", name="Katya", kind="person")
    ingest_files(memory, [chat(tmp_path, "Весь вечер я думала о Кате.")], me="Nadia")
    assert people(memory) == {"Katya": ["Кате"]}
    assert linked(memory, "Katya") == 1


def test_a_name_two_people_may_have_links_to_neither(memory, tmp_path):
    for name in ("Yulia", "Julia"):
        records.add_entity(memory.conn, actor="manual", name=name, kind="person")
    ingest_files(memory, [chat(tmp_path, "Вечером я гуляла с Юлей.")], me="Nadia")
    assert people(memory) == {"Yulia": [], "Julia": [], "Юлей": []}
    assert linked(memory, "Yulia") == linked(memory, "Julia") == 0


def test_kind_and_domain_must_agree(memory, tmp_path):
    records.add_entity(memory.conn, actor="manual", name="Vera", kind="thing")   # the dog
    records.add_entity(memory.conn, actor="manual", name="Katya", kind="person",
                       domain="fiction_content")
    ingest_files(memory, [chat(tmp_path, "Вечером я гуляла с Верой.",
                               "Вчера мне звонила Катя.")], me="Nadia")
    assert people(memory) == {"Верой": [], "Катя": []}
    assert linked(memory, "Vera") == linked(memory, "Katya") == 0


def test_a_short_name_never_links(memory, tmp_path):
    records.add_entity(memory.conn, actor="manual", name="Yan", kind="person")
    ingest_files(memory, [chat(tmp_path, "Вчера мне звонил Ян.")], me="Nadia")
    assert people(memory) == {"Yan": [], "Ян": []}
