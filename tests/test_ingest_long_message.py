"""One long message imports in time linear in its length (docs/benchmarks.md, "One huge
message"), with the same result as before.

A letter pasted as one line is one long sentence. Deciding whether each name in it is someone
spoken to ("Thanks, Mel!") searched all of the sentence before the name, so the work grew with
the square of the length (24.5 s for 160 KB against 4.7 s for the same text in many messages).
The work is counted here in characters handed to the searches, not timed."""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

import pytest

from core.ingest import ingest_files, names
from core.memory import Memory

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from big_message import chat_lines, journal  # noqa: E402


def reference_vocative(sent: str, start: int, end: int, words: int, previous_end: int = 0) -> bool:
    """The decision as it was first written: the whole sentence before the name searched."""
    before, after = sent[:start], sent[end:]
    if names._GREETING.search(before):
        return True
    if names._INTERJECTIONS.fullmatch(before) and re.match(r"\s*[,!?]", after):
        return True
    if re.search(r",\s*$", before) and re.match(r"\s*[!?]", after):
        return True
    return bool(re.search(r",\s*$", before) and re.fullmatch(r"\s*[.…]*\s*[\"'’”)]*\s*", after)
                and words <= 6)


class Counted:
    """A compiled pattern that counts the characters its searches are given."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern, self.chars = pattern, 0

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize):
        self.chars += min(endpos, len(string)) - pos
        return self.pattern.search(string, pos, endpos)

    def __getattr__(self, name: str):
        return getattr(self.pattern, name)


def run_on_letter(kb: int, seed: int = 3) -> str:
    return chat_lines(journal(kb, seed, "run-on"), "one", "run-on")[0]["text"]


TRICKY = [
    "Hey Mel, how are you?", "Thanks, Anna!", "Wow, Mel, that's great.", "Yeah Jon, let's go.",
    "congratulations   Dana, you did it", "good evening Tom .", "I met Dana, my friend, at noon.",
    "x-hey, Zed came", "5hey, Kim", "thanks ,\t Lou", "Sorry, Ann…", "Dear Mo,", "LOL Ben",
    "they, Max said", "I saw them, Sam!", "and then, Lena.\"", "ok so, Bruno ) ",
    "thanK you, Max", "ſorry Nadia", "It was late, Priya\n", "Congratulations, Ingrid Novak",
    "We were, as Felix said, tired", "Hi\u00a0Oskar", "heyy Jonah", "well, Hana, it's fine",
]


@pytest.mark.parametrize("text", TRICKY)
def test_the_vocative_decision_is_the_one_first_written(text):
    for sentence in [text, "A long lead in, with words and, commas " * 40 + text]:
        tokens = list(names._TOKEN.finditer(sentence))
        for i, token in enumerate(tokens):
            for j in range(i + 1, min(i + 4, len(tokens)) + 1):
                args = (sentence, token.start(), tokens[j - 1].end(), len(tokens))
                previous_end = tokens[i - 1].end() if i else 0
                assert names._vocative(*args, previous_end) == reference_vocative(*args), \
                    (sentence[:80], token.group(0))


def test_mentions_of_a_long_letter_are_the_ones_first_found(monkeypatch):
    texts = [run_on_letter(12), "\n\n".join(journal(12, 5)), " ".join(TRICKY * 20)]
    found = [names.mentions(t) for t in texts]
    monkeypatch.setattr(names, "_vocative", reference_vocative)
    assert found == [names.mentions(t) for t in texts]
    assert any(m.vocative for m in found[2]) and len(found[0]) > 150


def test_quoted_spans_are_found_by_bisection_as_by_scanning():
    rng = random.Random(4)
    pieces = ["\"Go home,\" she said. ", "“Dune” ", "'Lena' ", "it's Anna's ", "x ", "\n"]
    for _ in range(200):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        spans = names.quoted_spans(text)
        for pos in range(len(text) + 1):
            assert names.inside(spans, pos) == any(a <= pos < b for a, b in spans)


def test_work_on_a_one_sentence_letter_grows_with_its_length_not_its_square(monkeypatch):
    greeting = Counted(names._GREETING)
    monkeypatch.setattr(names, "_GREETING", greeting)
    comma = Counted(getattr(names, "_COMMA_BEFORE", re.compile(r",\s*$")))
    monkeypatch.setattr(names, "_COMMA_BEFORE", comma, raising=False)
    scanned = {}
    for kb in (8, 32):
        text = run_on_letter(kb)
        assert len(names.SENTENCE_BREAK.split(text)) == 1     # one sentence, as pasted
        greeting.chars = comma.chars = 0
        found = names.mentions(text, common=set())
        scanned[kb] = (greeting.chars + comma.chars) / len(text)
        assert len(found) > 10 * kb      # hundreds of names, each looked at once
    # each name looks back to the word before it: a few characters per character of text, the
    # same at 8 KB as at 32 KB (searching from the sentence's start: ~half the text per name)
    assert scanned[32] < 3 and scanned[32] < 1.2 * scanned[8], scanned


def test_a_long_letter_imports_as_it_did_in_many_ways(tmp_path, monkeypatch):
    """The same message, imported into fresh memories with the decision as first written and
    as it is now: the same events, entities, relations and facts."""
    letter = run_on_letter(16) + "\n\n" + "\n\n".join(journal(16, 9)) + " " + " ".join(TRICKY)
    chat = tmp_path / "letter.jsonl"
    chat.write_text(json.dumps({"id": "m1", "speaker": "Nadia", "role": "user", "text": letter,
                                "ts": "2026-01-01T12:00:00Z"}) + "\n", encoding="utf-8")

    def imported(db: Path) -> dict[str, list]:
        with Memory.open(db, create=True) as memory:
            ingest_files(memory, [chat], captured_at="2026-01-01T12:00:00Z")
            tables = {"events": "SELECT title, description, ts, intensity, sentiment, domain,"
                                " belief_class FROM events ORDER BY id",
                      "entities": "SELECT canonical_name, kind, domain, aliases, salience"
                                  " FROM entities ORDER BY id",
                      "relations": "SELECT from_entity, to_entity, kind, strength FROM relations"
                                   " ORDER BY id",
                      "facts": "SELECT entity_id, text, confidence FROM facts ORDER BY id",
                      "event_entities": "SELECT * FROM event_entities ORDER BY 1, 2"}
            return {k: [tuple(r) for r in memory.conn.execute(q)] for k, q in tables.items()}

    now = imported(tmp_path / "now.db")
    monkeypatch.setattr(names, "_vocative", reference_vocative)
    first = imported(tmp_path / "first.db")
    assert now == first
    assert len(now["events"]) > 50 and len(now["entities"]) > 50 and now["facts"]


def write_letter(path: Path, kb: int) -> Path:
    path.write_text(json.dumps({"id": "m1", "speaker": "Nadia", "role": "user",
                                "text": run_on_letter(kb), "ts": "2026-01-01T12:00:00Z"}) + "\n",
                    encoding="utf-8")
    return path


def test_one_long_message_reports_how_far_it_is_prepared(memory, tmp_path):
    """A 40 KB letter is one message and one batch: the count is sent at the start (the total)
    and moves once, at its end; the share prepared moves in many steps before it (one per run of the embedder's windows), and
    the vectors are the same bits as an import that asks for no steps."""
    letter = write_letter(tmp_path / "letter.jsonl", 40)
    counts: list[tuple[int, int]] = []
    shares: list[float] = []
    summary = memory.import_files([letter],
                                  progress=lambda done, total: counts.append((done, total)),
                                  preparing=shares.append)
    assert counts == [(0, 1), (1, 1)] and summary["total"]["observations"]["new"] == 1
    assert len(shares) >= 10 and shares == sorted(shares) and 0 < shares[0] and shares[-1] == 1
    with Memory.open(tmp_path / "plain.db", create=True) as plain:
        plain.import_files([letter])
        vectors = [plain.conn.execute("SELECT vector FROM event_embeddings ORDER BY event_id"
                                      ).fetchall(),
                   memory.conn.execute("SELECT vector FROM event_embeddings ORDER BY event_id"
                                       ).fetchall()]
    assert [tuple(r) for r in vectors[0]] == [tuple(r) for r in vectors[1]] and vectors[0]


def test_cancel_is_honoured_inside_one_long_message(tmp_path):
    """Cancel set while the letter's vectors are computed: the import stops there, before the
    rest of its runs, with nothing of it written; a rerun imports it whole, as an
    uninterrupted import does."""
    import threading

    letter = write_letter(tmp_path / "letter.jsonl", 40)
    cancel = threading.Event()
    shares: list[float] = []

    def preparing(share: float) -> None:
        shares.append(share)
        if share > 0.3:
            cancel.set()

    with Memory.open(tmp_path / "cancelled.db", create=True) as memory:
        summary = ingest_files(memory, [letter], cancel=cancel, preparing=preparing,
                               captured_at="2026-01-01T12:00:00Z")
        assert summary["cancelled"] is True
        assert shares[-1] < 0.6            # stopped at the next run, not at the message's end
        assert memory.conn.execute("SELECT COUNT(*) FROM observations").fetchone()[0] == 0
        assert memory.verify() == []
        again = ingest_files(memory, [letter], captured_at="2026-01-01T12:00:00Z")
        assert again["total"]["observations"]["new"] == 1
        rerun = [tuple(r) for r in memory.conn.execute(
            "SELECT title, description, intensity FROM events ORDER BY id")]
    with Memory.open(tmp_path / "whole.db", create=True) as memory:
        ingest_files(memory, [letter], captured_at="2026-01-01T12:00:00Z")
        whole = [tuple(r) for r in memory.conn.execute(
            "SELECT title, description, intensity FROM events ORDER BY id")]
    assert rerun == whole and whole


def test_the_cli_line_says_how_far_a_long_message_is_prepared():
    import io

    from core.cli.output import Progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    term = Terminal()
    line = Progress("import", stream=term)
    line(0, 1)
    for share in (0.0, 0.37, 0.371, 0.5, 1.0):
        line.preparing(share)
    line(1, 1)
    drawn = [d.replace("\x1b[K", "") for d in term.getvalue().split("\r") if d]
    assert drawn == ["import [..............................] 0/1",
                     *(f"import [..............................] 0/1 (preparing {p:2d} %)"
                       for p in (0, 37, 50, 99)),
                     "import [##############################] 1/1\n"]
