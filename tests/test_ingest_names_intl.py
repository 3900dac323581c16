"""Names in other scripts, through real imports (core/ingest/names.py, core/ingest/known.py):
capitals mark names in every cased script; in an uncased one only the names the memory already
knows are found, and nothing is invented."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from core.ingest import ingest_files
from core.store import records


def chat(tmp_path: Path, *texts: str, speaker: str = "Nadia") -> Path:
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps({"id": str(i), "speaker": speaker, "role": "user",
                                        "ts": f"2024-04-{10 + i}T10:00:00Z", "text": text},
                                       ensure_ascii=False) + "\n"
                            for i, text in enumerate(texts)), encoding="utf-8")
    return path


def entities(memory) -> dict[str, str]:
    return {r[0]: r[1] for r in memory.conn.execute("SELECT canonical_name, kind FROM entities")}


def linked(memory, name: str) -> int:
    """How many events are linked to the entity of this name."""
    return memory.conn.execute(
        "SELECT COUNT(*) FROM event_entities x JOIN entities e ON e.id = x.entity_id"
        " WHERE e.canonical_name = ?", (name,)).fetchone()[0]


def test_a_russian_chat_makes_its_people_and_places_once_whatever_their_case(memory, tmp_path):
    ingest_files(memory, [chat(
        tmp_path,
        "Вчера звонила Баба Вера: она не хочет переезжать в Москву.",
        "Мы с Катей поехали к Бабе Вере на дачу, и Катя весь вечер молчала.",
        "Я вернулась из Москвы, а Москва без Бабы Веры пустая.")], me="Nadia")
    assert entities(memory) == {"Nadia": "person", "Баба Вера": "person",
                                "Москва": "place", "Катя": "person"}
    assert linked(memory, "Баба Вера") == 3     # "Бабе Вере", "Бабы Веры": the same person


def test_a_russian_note_links_to_the_people_the_demo_memory_knows(demo_db, tmp_path):
    db = tmp_path / "demo.db"
    shutil.copy(demo_db, db)
    from core.memory import Memory

    with Memory.open(db) as memory:
        before = entities(memory)
        links = linked(memory, "Katya Lind"), linked(memory, "Zoya Lind")
        ingest_files(memory, [chat(tmp_path, "Вечером мы с Катей и Зоей пекли пирог.")],
                     me="Nadia")
        assert entities(memory) == before               # "Катей" is Katya, "Зоей" is Zoya
        assert (linked(memory, "Katya Lind"), linked(memory, "Zoya Lind")) == (
            links[0] + 1, links[1] + 1)


def test_a_greek_note_makes_its_people_and_places(memory, tmp_path):
    ingest_files(memory, [chat(tmp_path, "Χθες μίλησα με τη Μαρία. Πήγαμε στην Αθήνα με τον "
                                         "Γιώργο την Κυριακή.")], me="Nadia")
    assert entities(memory) == {"Nadia": "person", "Μαρία": "person", "Αθήνα": "place",
                                "Γιώργο": "person"}


def test_uncased_names_are_found_only_when_the_memory_knows_them(memory, tmp_path):
    for name, kind, aliases in (("Wang Fang", "person", ["王芳"]), ("Beijing", "place", ["北京"]),
                                ("Ahmed", "person", ["أحمد"])):
        records.add_entity(memory.conn, actor="manual", name=name, kind=kind, aliases=aliases)
    ingest_files(memory, [chat(tmp_path, "昨天我和王芳在北京见面。她说她很想念李娜。",
                               "أمس التقيت بأحمد وخالد في القاهرة.")], me="Nadia")
    # 李娜, خالد and القاهرة are names too, but nothing in the text says so: none is made
    assert entities(memory) == {"Wang Fang": "person", "Beijing": "place", "Ahmed": "person",
                                "Nadia": "person"}
    assert linked(memory, "Wang Fang") == linked(memory, "Beijing") == 1
    assert linked(memory, "Ahmed") == 1             # "بأحمد": "with Ahmed"
