"""Names in a text (core/ingest/names.py): what may become an entity, and what is a word, a
title, or the person being spoken to."""

from __future__ import annotations

import pytest

from core.ingest import names


def candidates(text: str, common: set[str] | None = None) -> list[str]:
    return names.name_candidates(text, common=common)


@pytest.mark.parametrize("text, expected", [
    ("Thanks, Mel! Tomorrow I see Dana.", ["Dana"]),            # the addressee is no entity
    ("Wow, Mel, that is great news about Anna.", ["Anna"]),
    ("Yeah Mel, stoked! Sounds great, Caroline!", []),
    ("I met Dana, my friend, at the market.", ["Dana"]),        # not a vocative
    ("I loved \"Becoming Nicole\" by Amy Ellis Nutt.", ["Amy Ellis Nutt"]),   # a title
    ("Our group, 'Connected LGBTQ Activists', meets on Fridays.", []),
    ("Dana Whitfield came over with soup.", ["Dana Whitfield"]),   # a full name may begin
    ("After Nadia's shift we walked home after dark.", ["Nadia"]),   # a common word may not
    ("I told him I’ll go, and You're right, said Tom.", ["Tom"]),  # contractions are words
    ("We joined Thursday Ink last week.", ["Thursday Ink"]),      # a weekday begins a name
    ("See you on Friday at the park.", []),
    ("I went to a workshop last Tues and a party last Fri.", []),
])
def test_name_candidates(text, expected):
    assert candidates(text) == expected


def test_words_the_import_uses_in_lower_case_do_not_begin_a_name():
    text = "Remember Jon from school? He moved away."
    assert candidates(text) == ["Remember Jon"]
    assert candidates(text, common={"remember"}) == ["Jon"]


def test_mentions_carry_their_kind():
    found = {m.name: m for m in names.mentions("Hey Sam, \"Dune\" was great; Leo loved it.")}
    assert found["Sam"].vocative and found["Dune"].quoted and not found["Leo"].vocative


@pytest.mark.parametrize("text, expected", [
    ("I had coffee with José and Zoë yesterday.", ["José", "Zoë"]),
    ("My colleague Björn Ångström was promoted.", ["Björn Ångström"]),
    ("We met Łukasz and Chloé at the party.", ["Łukasz", "Chloé"]),
])
def test_a_name_with_accented_letters_is_whole(text, expected):
    assert candidates(text) == expected


def test_an_import_stores_accented_names_whole(memory, tmp_path):
    from core.ingest import ingest_files

    chat = tmp_path / "chat.jsonl"
    chat.write_text(
        '{"id": "1", "speaker": "Nadia", "role": "user", "ts": "2024-04-10T10:00:00Z",'
        ' "text": "I had coffee with my friend José and his wife Zoë in Malmö."}\n'
        '{"id": "2", "speaker": "Nadia", "role": "user", "ts": "2024-04-11T10:00:00Z",'
        ' "text": "My sister Éléonore moved to Genève. I met Björn Ångström there."}\n',
        encoding="utf-8")
    ingest_files(memory, [chat], me="Nadia")
    stored = {(r[0], r[1]) for r in memory.conn.execute(
        "SELECT canonical_name, kind FROM entities")}
    assert stored == {("Nadia", "person"), ("José", "person"), ("Zoë", "person"),
                      ("Malmö", "place"), ("Éléonore", "person"), ("Genève", "place"),
                      ("Björn Ångström", "person")}


@pytest.mark.parametrize("text, expected", [
    ("I flew to New York last week.", ["New York"]),      # not "York", another city
    ("We live in New Zealand now.", ["New Zealand"]),
    ("New Orleans was loud and warm.", ["New Orleans"]),  # also where a sentence begins
    ("We drove through Old Town after dinner.", ["Old Town"]),
    ("We met at Good Samaritan Hospital.", ["Good Samaritan Hospital"]),
    ("I moved to Great Barrington.", ["Great Barrington"]),
    ("The new neighbour is nice. New plans for June!", []),  # an ordinary "New" begins nothing
])
def test_a_place_that_begins_with_a_common_word_keeps_it(text, expected):
    assert candidates(text) == expected


def test_a_title_s_full_stop_does_not_end_the_sentence():
    from core.ingest import offline

    text = "I saw Dr. Patel on Tuesday. Then we went to St. Mary's Hospital. Mrs. Brown was there."
    assert offline.sentences(text) == ["I saw Dr. Patel on Tuesday.",
                                       "Then we went to St. Mary's Hospital.",
                                       "Mrs. Brown was there."]
    assert candidates(text) == ["Patel", "Mary's Hospital", "Brown"]


def test_a_hospital_named_for_a_saint_is_no_person(memory, tmp_path):
    from core.ingest import ingest_files

    chat = tmp_path / "chat.jsonl"
    chat.write_text('{"id": "1", "speaker": "Nadia", "role": "user", "ts": "2024-04-10T10:00:00Z",'
                    ' "text": "Dr. Patel sent me to St. Mary\'s Hospital for a scan."}\n',
                    encoding="utf-8")
    ingest_files(memory, [chat], me="Nadia")
    kinds = {r[0]: r[1] for r in memory.conn.execute("SELECT canonical_name, kind FROM entities")}
    assert kinds == {"Nadia": "person", "Patel": "person", "Mary's Hospital": "org"}


# -- other scripts: every cased script marks names with capitals; uncased ones do not --------

@pytest.mark.parametrize("text, expected", [
    ("Вчера звонила Баба Вера, а потом мы с Катей поехали в Москву.",
     ["Баба Вера", "Катей", "Москву"]),
    ("Χθες είδα τη Μαρία στην Αθήνα με τον Γιώργο.", ["Μαρία", "Αθήνα", "Γιώργο"]),
    ("Երեկ ես տեսա Արամին։ Նա ասաց, որ Անին լավ է։", ["Արամին", "Անին"]),
    ("Спасибо, Вера! Завтра увижу Павла.", ["Павла"]),            # the addressee is no entity
    ("Мама написала: «Павел умер». Я позвонила Кате.", ["Кате"]),  # «quoted» speech
    ("Я знаю, что Вы правы, и Бог с ним.", []),                     # polite "Вы", "Бог"
    ("Την Δευτέρα και τον Μάιο είδα τον Νίκο.", ["Νίκο"]),          # Greek days and months
    ("Ich traf Jose\u0301 in Köln.", ["Jose\u0301", "Köln"]),         # a decomposed accent
    ("昨天我和王芳在北京见面。", []),                                  # no capitals, no guess
    ("أمس التقيت بأحمد في القاهرة.", []),
])
def test_names_in_other_scripts(text, expected):
    assert candidates(text) == expected


def test_a_sentence_ends_at_armenian_and_greek_stops():
    from core.ingest import offline

    assert offline.sentences("Երեկ ես տեսա Արամին։ Նա ասաց բարև։") == [
        "Երեկ ես տեսա Արամին։", "Նա ասաց բարև։"]
    assert offline.sentences("Πού είναι η Μαρία\u037e Η Μαρία είναι εδώ.") == [
        "Πού είναι η Μαρία\u037e", "Η Μαρία είναι εδώ."]
