"""Dates from the text, resolved against the message's timestamp (INGEST §3 offline)."""

from __future__ import annotations

import pytest

from core.ingest import ingest_files
from core.ingest.dates import resolve

SAID = "2023-05-08T13:56:00Z"   # a Monday


@pytest.mark.parametrize("text, ts, precision", [
    ("I went to the support group yesterday.", "2023-05-07T13:56:00Z", "day"),
    ("the day before yesterday we argued", "2023-05-06T13:56:00Z", "day"),
    ("We moved here 3 years ago", "2020-05-08T13:56:00Z", "year"),
    ("a couple of weeks ago I ran my first 10k", "2023-04-24T13:56:00Z", "week"),
    ("last Friday was rough", "2023-05-05T13:56:00Z", "day"),
    ("last Monday", "2023-05-01T13:56:00Z", "day"),           # not today
    ("last weekend we camped", "2023-05-06T13:56:00Z", "day"),
    ("last month I quit", "2023-04-08T13:56:00Z", "month"),
    ("on 7 May 2021 we married", "2021-05-07T13:56:00Z", "day"),
    ("March 3rd, 2020 was the day", "2020-03-03T13:56:00Z", "day"),
    ("on May 7 we met", "2023-05-07T13:56:00Z", "day"),
    ("I painted this in 2019", "2019-01-01T13:56:00Z", "year"),
    ("Вчера я ходила в поход", "2023-05-07T13:56:00Z", "day"),
    ("два года назад мы переехали", "2021-05-08T13:56:00Z", "year"),
    ("на прошлой неделе было тяжело", "2023-05-01T13:56:00Z", "week"),
])
def test_past_mentions_resolve(text, ts, precision):
    mention = resolve(text, SAID)
    assert mention is not None and (mention.ts, mention.precision) == (ts, precision)


@pytest.mark.parametrize("text", [
    "My interview is tomorrow", "next week we fly", "on May 20 we will meet", "in 2030 I will",
    "I have three dogs", "on 31 February 2020 nothing", "",
])
def test_plans_and_non_dates_stay_with_the_message(text):
    assert resolve(text, SAID) is None


def test_month_arithmetic_clamps_the_day():
    assert resolve("a month ago", "2023-03-31T08:00:00Z").ts == "2023-02-28T08:00:00Z"


def test_the_first_mention_wins():
    assert resolve("Yesterday I remembered what happened in 2019", SAID).phrase == "Yesterday"


def test_imported_events_carry_the_date_their_words_give(memory, tmp_path):
    import json

    rows = [{"id": 1, "speaker": "Caroline", "ts": SAID,
             "text": "I went to a LGBTQ support group yesterday and it was so powerful."},
            {"id": 2, "speaker": "Caroline", "ts": SAID,
             "text": "My job interview is tomorrow and I am terrified."}]
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    ingest_files(memory, [path])
    by_text = {r["description"]: r["ts"] for r in memory.conn.execute(
        "SELECT description, ts FROM events")}
    assert by_text["Caroline: " + rows[0]["text"]] == "2023-05-07T13:56:00Z"
    assert by_text["Caroline: " + rows[1]["text"]] == SAID
    observed = {r[0] for r in memory.conn.execute("SELECT observed_at FROM observations")}
    assert observed == {SAID}
