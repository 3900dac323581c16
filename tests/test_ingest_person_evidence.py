"""A capitalised name is a person only with person evidence (core/ingest/person_evidence.py):
shows, brands and games make no entity; people, pets and places still do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.ingest import ingest_files
from core.ingest.pipeline import remember


def chat(tmp_path: Path, *texts: str) -> Path:
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps({"id": str(i), "speaker": "Nadia", "role": "user",
                                        "ts": f"2024-04-{10 + i}T10:00:00Z", "text": text}) + "\n"
                            for i, text in enumerate(texts)), encoding="utf-8")
    return path


def entities(memory) -> dict[str, str]:
    return {r[0]: r[1] for r in memory.conn.execute("SELECT canonical_name, kind FROM entities")}


def test_shows_brands_and_games_are_no_people(memory, tmp_path):
    ingest_files(memory, [chat(
        tmp_path,
        "Last night I binged Stranger Things and ate a whole bag of Doritos.",
        "My favourite show is still Breaking Bad, and I play Fortnite on weekends.",
        "I watched The Crown with Priya yesterday.",
        "Work was long, so Priya brought soup.")], me="Nadia")
    assert entities(memory) == {"Nadia": "person", "Priya": "person"}


@pytest.mark.parametrize("text, person", [
    ("Yesterday Dana said the soup was cold.", "Dana"),          # does what people do
    ("I had lunch with Priya.", "Priya"),                          # with someone
    ("At the shelter I met a woman named Jean.", "Jean"),          # introduced as a person
    ("One of the residents, Cindy, wrote us a letter.", "Cindy"),
    ("I am reading Dune by Frank Herbert.", "Frank Herbert"),      # an author
    ("We sat at Baba Vera's bedside all night.", "Baba Vera"),      # a kinship title
    ("I finally called Dr. Patel about the scan.", "Patel"),
    ("I never told anyone that Quillborvek hurt me.", "Quillborvek"),  # what was done to her
    ("Then Marrick yelled at me in front of everyone.", "Marrick"),
])
def test_person_evidence(memory, tmp_path, text, person):
    ingest_files(memory, [chat(tmp_path, text)], me="Nadia")
    assert entities(memory).get(person) == "person"


def test_a_named_pet_is_a_thing_not_a_person(memory, tmp_path):
    ingest_files(memory, [chat(tmp_path, "I got a puppy! Her name's Coco and she is wild.",
                               "Then Oscar, my guinea pig, ate the parsley.",
                               "I walk Coco every morning.")], me="Nadia")
    assert entities(memory) == {"Nadia": "person", "Coco": "thing", "Oscar": "thing"}


def test_evidence_in_one_message_counts_for_the_whole_import(memory, tmp_path):
    ingest_files(memory, [chat(tmp_path, "Priya wrote to me today.",       # a first word, cued
                               "I think about Priya a lot.",               # no cue here
                               "Lunch with Priya on Friday!")], me="Nadia")  # the cue
    rows = memory.conn.execute(
        "SELECT COUNT(*) FROM event_entities x JOIN entities e ON e.id = x.entity_id"
        " WHERE e.canonical_name = 'Priya'").fetchone()[0]
    assert entities(memory)["Priya"] == "person" and rows == 3


def test_a_single_note_needs_its_own_evidence(memory):
    remember(memory, "Nintendo announced a new Zelda game and I want it.",
             ts="2024-02-01T10:00:00Z")
    remember(memory, "Coffee with Leonie at noon, she loved the draft.",
             ts="2024-02-02T10:00:00Z")
    assert entities(memory) == {"Leonie": "person"}


def test_the_name_of_a_thing_said_before_the_thing_is_no_evidence():
    from core.ingest import person_evidence

    assert person_evidence.evidence(["a charity event with Harry Potter trivia"]) == {}
    assert person_evidence.evidence(["deals with Nike, and Iron Man is my top pick"]) == {
        "Nike": "person"}   # "with" a brand still counts: the limit of a cue
