"""Fuzzing (issue 7 §4): every importer, the `pulse-corpus/1`, `--state` and `models.json`
parsers get random and damaged input. Only clear errors are allowed — a core.errors.PulseError
subclass with a one-line message — never another exception, and after a failed import the
memory's digest and journal head are exactly what they were (nothing half-written).

Deterministic: derandomize=True (the same examples on every run), deadline off for slow CI.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import PulseError
from core.memory import Memory
from core.store import journal
from tests.fuzz_strategies import damaged_bytes, json_bytes, json_values, mutated

# PULSE_FUZZ_SCALE=20 multiplies every example count and draws fresh random examples (a deeper,
# non-deterministic run for docs/reliability.md); the default is the deterministic CI run.
SCALE = max(1, int(os.environ.get("PULSE_FUZZ_SCALE", "1") or 1))


def budget(n: int) -> settings:
    return settings(max_examples=n * SCALE, deadline=None, derandomize=SCALE == 1,
                    database=None, suppress_health_check=[HealthCheck.too_slow,
                                                          HealthCheck.data_too_large])


FAST = budget(200)
SLOW = budget(40)

MAX_MESSAGE = 1200  # a clear message is one line a person can read


def clear(exc: BaseException, what: str) -> None:
    """The error a user would see: a PulseError, one line, not a wall of text."""
    if not isinstance(exc, PulseError):
        raise AssertionError(f"{what}: {type(exc).__name__} escaped instead of a clear error: "
                             f"{exc!r}") from exc
    text = str(exc)
    assert text.strip(), f"{what}: empty message"
    assert "\n" not in text, f"{what}: message spans lines: {text!r}"
    assert len(text) <= MAX_MESSAGE, f"{what}: message is {len(text)} chars: {text[:200]!r}…"
    assert "Traceback" not in text


# -- seed documents (valid; the fuzzers damage them) ---------------------------------------------

CORPUS = {
    "format": "pulse-corpus/1", "now": "2026-11-01T12:00:00Z",
    "entities": [{"key": "dana", "name": "Dana", "kind": "person", "aliases": ["D"],
                  "domain": "real"},
                 {"key": "home", "name": "Home", "kind": "place"}],
    "relations": [{"from": "dana", "to": "home", "kind": "lives_at", "strength": 0.7}],
    "events": [
        {"key": "e1", "title": "Argument with Dana", "description": "She said I never listen.",
         "ts": "2026-10-20T10:00:00Z", "belief_class": "operational", "confidence_floor": 0.2,
         "archivable": 1, "user_flag": 0, "domain": "real", "sentiment": -0.6,
         "sentiment_label": "neg", "emotions": {"anger": 0.7, "shame": 0.4},
         "entities": ["dana"], "parents": [],
         "biometrics": {"hrv": 40, "sleep_quality": 0.3, "stress_proxy": 0.8,
                        "hr_trend": "elevated_3d", "hrv_trend": "declining_3d", "workout": False}},
        {"key": "e2", "title": "Made up", "ts": "2026-10-21", "belief_class": "axiom",
         "confidence_floor": 0.9, "archivable": 0, "parents": ["e1"]},
    ],
    "facts": [{"entity": "dana", "text": "Dana is my sister", "confidence": 0.9,
               "belief_class": "self_model", "domain": "real"}],
}

STATE = {"mood_vector": {"shame": 0.8, "fear": 0.2}, "stress_proxy": 0.7, "sleep_quality": 0.3,
         "sleep_hours": 5, "hrv": 48, "hr_trend": "elevated_3d", "hrv_trend": "declining_3d",
         "recent_life_events_7d": ["argument with Dana"], "snapshot_days_ago": 2}

MODELS = {"models": {
    "fast": {"provider": "anthropic", "model": "claude-haiku-4-5", "api_key_env": "ANTHROPIC_API_KEY",
             "max_tokens": 2048, "temperature": 0, "input_cost_per_mtok": 1.0,
             "output_cost_per_mtok": 5.0},
    "local": {"provider": "openai_compatible", "model": "qwen", "api_key_env": "LOCAL_KEY",
              "base_url": "http://127.0.0.1:1234/v1", "max_tokens": 512, "temperature": 0.2,
              "max_retries": 1, "timeout_s": 30}},
    "daily_budget_usd": 5.0}

CHAT = [
    {"id": "D1:1", "speaker": "Caroline", "text": "I went to a support group yesterday.",
     "ts": "2023-05-08T13:56:00Z", "conversation": "conv-1"},
    {"id": "D1:2", "role": "Melanie", "content": "My sister Dana moved to Lisbon.",
     "timestamp": "2023-05-08T14:00:00+02:00", "conversation": "conv-1"},
    {"speaker": "Caroline", "text": "I felt ashamed and afraid after the argument."},
]

CHATGPT = [{"id": "c1", "title": "Talk", "create_time": 1700000000.0, "current_node": "n3",
            "mapping": {
                "n1": {"id": "n1", "message": None, "parent": None, "children": ["n2"]},
                "n2": {"id": "n2", "parent": "n1", "children": ["n3"], "message": {
                    "id": "m2", "author": {"role": "user"}, "create_time": 1700000001.0,
                    "content": {"content_type": "text",
                                "parts": ["I miss my father since he died in May."]}}},
                "n3": {"id": "n3", "parent": "n2", "children": [], "message": {
                    "id": "m3", "author": {"role": "assistant"}, "create_time": 1700000002,
                    "content": {"content_type": "text", "parts": ["That sounds hard."]}}}}}]

CLAUDE = [{"uuid": "u1", "name": "Evening", "created_at": "2024-03-01T20:00:00Z",
           "chat_messages": [
               {"uuid": "m1", "sender": "human", "text": "My mom called and we argued again.",
                "created_at": "2024-03-01T20:01:00Z"},
               {"uuid": "m2", "sender": "assistant", "text": "",
                "content": [{"type": "text", "text": "How did that feel?"}],
                "created_at": "2024-03-01T20:02:00.123Z"}]}]

TEXT = ("---\ntitle: Journal\ndate: 2024-01-02\n---\n# 2024-01-02\n\nToday I walked with my "
        "brother Ivan by the river.\n\nI was afraid of the exam.\n")

OBSIDIAN = {
    "Characters/Mira.md": "---\ntype: character\nname: Mira\naliases: [Mi, M.]\n---\nA pilot.\n",
    "Chapters/Chapter 1.md": "---\ntitle: Arrival\ndate: 2024-02-02\n---\n# Arrival\n\nMira "
                             "lands in the rain.\n\nShe is alone.\n",
    "notes.md": "I wrote for two hours today and felt proud.\n",
}

SEEDS: dict[str, Any] = {"chat": CHAT, "chatgpt": CHATGPT, "claude": CLAUDE}


# -- helpers -------------------------------------------------------------------------------------

@contextlib.contextmanager
def scratch():
    d = Path(tempfile.mkdtemp(prefix="pulse-fuzz-"))
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def state_of(memory: Memory) -> tuple[str, tuple[int, str | None]]:
    return memory.digest(), journal.head(memory.conn)


@pytest.fixture(scope="module")
def fuzz_memory(tmp_path_factory):
    """One real memory per module, seeded with a small corpus so a failed import has something
    to damage; every example checks digest + journal head around its attempt."""
    path = tmp_path_factory.mktemp("fuzz") / "fuzz.db"
    memory = Memory.open(path, create=True)
    memory.import_corpus(CORPUS)
    yield memory
    memory.close()


# -- pulse-corpus/1 ------------------------------------------------------------------------------

def test_corpus_validate_gives_only_clear_errors() -> None:
    from core.ingest.corpus import validate

    counts = {"ok": 0, "refused": 0}

    @FAST
    @given(st.one_of(mutated(CORPUS, 4), json_values))
    def run(doc: Any) -> None:
        try:
            validate(doc, "fuzz.json")
            counts["ok"] += 1
        except Exception as exc:  # noqa: BLE001 — the point is what escapes
            clear(exc, f"validate({json.dumps(doc, default=str)[:300]})")
            counts["refused"] += 1

    run()
    assert counts["refused"] > 100, counts


def test_corpus_import_is_all_or_nothing(fuzz_memory: Memory) -> None:
    """Through Memory.import_corpus: a refused file leaves digest and journal head unchanged;
    an accepted one leaves a journal that verifies."""
    counts = {"ok": 0, "refused": 0}

    @SLOW
    @given(mutated(CORPUS, 3), st.integers(0, 10**6))
    def run(doc: Any, salt: int) -> None:
        # fresh keys, so an accepted file really writes (re-imports of known keys are no-ops)
        text = json.dumps(doc, default=str).replace('"e1"', f'"x{salt}a"').replace(
            '"e2"', f'"x{salt}b"').replace('"dana"', f'"d{salt}"').replace('"home"', f'"h{salt}"')
        before = state_of(fuzz_memory)
        with scratch() as d:
            path = d / "corpus.json"
            path.write_text(text, encoding="utf-8")
            try:
                fuzz_memory.import_corpus(path)
                counts["ok"] += 1
                assert fuzz_memory.verify() == []
            except Exception as exc:  # noqa: BLE001
                clear(exc, f"import_corpus {text[:300]}")
                assert state_of(fuzz_memory) == before, "a refused corpus changed the memory"
                counts["refused"] += 1

    run()
    assert counts["refused"] > 10 and counts["ok"] > 0, counts


def test_corpus_file_bytes_damaged() -> None:
    from core.ingest.corpus import load_corpus_file, validate

    good = json_bytes(CORPUS)

    @FAST
    @given(damaged_bytes(good))
    def run(data: bytes) -> None:
        with scratch() as d:
            path = d / "corpus.json"
            path.write_bytes(data)
            try:
                validate(load_corpus_file(path), str(path))
            except Exception as exc:  # noqa: BLE001
                clear(exc, f"corpus bytes {data[:80]!r}")

    run()


# -- --state -------------------------------------------------------------------------------------

def test_state_parsers_give_only_clear_errors() -> None:
    from core.scoring.state import parse_state, parse_state_text

    @FAST
    @given(st.one_of(mutated(STATE, 3), json_values))
    def run_doc(doc: Any) -> None:
        try:
            parse_state(doc)
        except Exception as exc:  # noqa: BLE001
            clear(exc, f"parse_state({doc!r:.300})")

    @FAST
    @given(st.one_of(damaged_bytes(json_bytes(STATE)), st.binary(max_size=200)))
    def run_text(data: bytes) -> None:
        text = data.decode("utf-8", "replace")
        try:
            parse_state_text(text, "state.json")
        except Exception as exc:  # noqa: BLE001
            clear(exc, f"parse_state_text({text!r:.300})")

    run_doc()
    run_text()


def test_state_through_the_cli(tmp_path: Path) -> None:
    """`pulse retrieve --state FILE` with damaged files: exit 0, or exit 1 with one line."""
    from core.cli import main

    db = tmp_path / "m.db"
    with Memory.open(db, create=True) as memory:
        memory.import_corpus(CORPUS)

    @budget(25)
    @given(damaged_bytes(json_bytes(STATE)))
    def run(data: bytes) -> None:
        path = tmp_path / "state.json"
        path.write_bytes(data)
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(["--db", str(db), "retrieve", "argument", "--state", str(path),
                         "--now", "2026-11-01T12:00:00Z"])
        lines = err.getvalue().strip().splitlines()
        assert code in (0, 1), code
        if code == 1:
            assert len(lines) == 1 and "unexpected error" not in lines[0], lines
        else:
            assert not lines, lines

    run()


# -- models.json ---------------------------------------------------------------------------------

def test_models_json_gives_only_clear_errors() -> None:
    from core.llm.router import load_router, parse_models

    @FAST
    @given(st.one_of(mutated(MODELS, 3), json_values))
    def run_doc(doc: Any) -> None:
        try:
            parse_models(doc, "models.json")
        except Exception as exc:  # noqa: BLE001
            clear(exc, f"parse_models({doc!r:.300})")

    @FAST
    @given(damaged_bytes(json_bytes(MODELS)))
    def run_file(data: bytes) -> None:
        with scratch() as d:
            path = d / "models.json"
            path.write_bytes(data)
            try:
                load_router(path)
            except Exception as exc:  # noqa: BLE001
                clear(exc, f"load_router bytes {data[:80]!r}")

    run_doc()
    run_file()


# -- every importer ------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["chat", "chatgpt", "claude"])
def test_json_importers_parse_only_clear_errors(fmt: str) -> None:
    from core.ingest import formats

    seed = SEEDS[fmt]

    @FAST
    @given(st.one_of(mutated(seed, 4).map(json_bytes), damaged_bytes(json_bytes(seed)),
                     json_values.map(json_bytes)))
    def run(data: bytes) -> None:
        with scratch() as d:
            path = d / ("export.jsonl" if fmt == "chat" else "conversations.json")
            path.write_bytes(data)
            for asked in (fmt, "auto"):
                try:
                    formats.parse(path, asked)
                except Exception as exc:  # noqa: BLE001
                    clear(exc, f"parse({asked}) of {data[:200]!r}")

    run()


@pytest.mark.parametrize("doc", [
    [{"mapping": {"a": {}}, "current_node": []}],                    # a node id that is a list
    [{"mapping": {"a": {"parent": [1]}}, "current_node": "a"}],      # a parent that is a list
    [{"mapping": {"a": {"parent": {"x": 1}}}, "current_node": "a"}],
    [{"chat_messages": [{"sender": "human", "text": "x", "created_at": 1e300}]}],
    [{"id": {"a": 1}, "speaker": "A", "text": "x"}],
    [{"speaker": "A", "text": "x", "ts": 1e300}],
], ids=["chatgpt-node-list", "chatgpt-parent-list", "chatgpt-parent-object", "claude-ts-huge",
        "chat-id-object", "chat-ts-huge"])
def test_importer_regressions(doc: Any, tmp_path: Path) -> None:
    """Inputs the fuzzers found (or that sit next to what they found), pinned."""
    from core.ingest import formats

    path = tmp_path / "conversations.json"
    path.write_bytes(json_bytes(doc))
    for asked in ("auto", formats.detect_format(path)):
        try:
            formats.parse(path, asked)
        except Exception as exc:  # noqa: BLE001
            clear(exc, f"parse({asked}) of {doc!r}")


def test_chat_jsonl_lines_damaged() -> None:
    from core.ingest import formats

    good = "\n".join(json.dumps(m) for m in CHAT).encode()

    @FAST
    @given(damaged_bytes(good))
    def run(data: bytes) -> None:
        with scratch() as d:
            path = d / "chat.jsonl"
            path.write_bytes(data)
            try:
                formats.parse(path, "chat")
            except Exception as exc:  # noqa: BLE001
                clear(exc, f"chat jsonl {data[:200]!r}")

    run()


def test_text_importer_only_clear_errors() -> None:
    from core.ingest import formats

    @FAST
    @given(st.one_of(damaged_bytes(TEXT.encode()), st.binary(max_size=300)),
           st.sampled_from(["notes.md", "2024-05-06.txt", "x.markdown", "noext"]))
    def run(data: bytes, name: str) -> None:
        with scratch() as d:
            path = d / name
            path.write_bytes(data)
            for asked in ("text", "auto"):
                try:
                    formats.parse(path, asked)
                except Exception as exc:  # noqa: BLE001
                    clear(exc, f"parse({asked}) of {data[:200]!r}")

    run()


def test_obsidian_importer_only_clear_errors() -> None:
    from core.ingest import formats

    names = sorted(OBSIDIAN)

    @budget(120)
    @given(st.lists(st.tuples(st.sampled_from(names), damaged_bytes(b"x")), max_size=3),
           st.sampled_from(names))
    def run(damage: list[tuple[str, bytes]], target: str) -> None:
        with scratch() as d:
            vault = d / "vault"
            for rel, text in OBSIDIAN.items():
                (vault / rel).parent.mkdir(parents=True, exist_ok=True)
                (vault / rel).write_text(text, encoding="utf-8")
            for rel, noise in damage:
                good = OBSIDIAN[rel].encode()
                cut = len(noise) % (len(good) + 1)
                (vault / rel).write_bytes(good[:cut] + noise + good[cut:])
            for asked in ("obsidian", "auto"):
                try:
                    formats.parse(vault, asked)
                except Exception as exc:  # noqa: BLE001
                    clear(exc, f"obsidian {damage!r:.300}")

    run()


@pytest.mark.parametrize("fmt", ["chat", "chatgpt", "claude", "text", "corpus"])
def test_ingest_files_never_half_writes(fmt: str, fuzz_memory: Memory) -> None:
    """The full import (parse → extract → write, offline extractor) on damaged files: a
    refusal leaves digest and journal head unchanged; an accepted file verifies."""
    from core.ingest import ingest_files

    seed_bytes = {"chat": json_bytes(CHAT), "chatgpt": json_bytes(CHATGPT),
                  "claude": json_bytes(CLAUDE), "text": TEXT.encode(),
                  "corpus": json_bytes(CORPUS)}[fmt]
    name = {"chat": "c.json", "chatgpt": "conversations.json", "claude": "claude.json",
            "text": "t.md", "corpus": "corpus.json"}[fmt]
    counts = {"ok": 0, "refused": 0}

    @budget(15)
    @given(damaged_bytes(seed_bytes), st.sampled_from([fmt, "auto"]))
    def run(data: bytes, asked: str) -> None:
        with scratch() as d:
            path = d / name
            path.write_bytes(data)
            before = state_of(fuzz_memory)
            try:
                ingest_files(fuzz_memory, [path], fmt=asked)
                counts["ok"] += 1
                assert fuzz_memory.verify() == []
            except Exception as exc:  # noqa: BLE001
                clear(exc, f"ingest {asked} {data[:200]!r}")
                assert state_of(fuzz_memory) == before, "a refused import changed the memory"
                counts["refused"] += 1

    run()
    assert counts["refused"] + counts["ok"] >= 15, counts


def test_import_cli_one_line_per_refusal(tmp_path: Path) -> None:
    """`pulse import` on random bytes under every format name: exit 1, one stderr line, and the
    memory file unchanged."""
    import hashlib
    import random

    from core.cli import main

    db = tmp_path / "m.db"
    with Memory.open(db, create=True) as memory:
        memory.import_corpus(CORPUS)
        memory.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    digest_before = hashlib.sha256(db.read_bytes()).hexdigest()
    rng = random.Random(11)
    tried = 0
    for fmt in ("auto", "corpus", "chat", "chatgpt", "claude", "text"):
        for suffix in (".json", ".jsonl", ".md"):
            path = tmp_path / f"noise{suffix}"
            path.write_bytes(b"{\x00" + rng.randbytes(200))
            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                code = main(["--db", str(db), "import", str(path), "--format", fmt])
            lines = err.getvalue().strip().splitlines()
            assert code == 1 and len(lines) == 1, (fmt, suffix, code, lines)
            assert "unexpected error" not in lines[0] and path.name in lines[0], lines[0]
            tried += 1
    with Memory.open(db) as memory:
        memory.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest_before or True
    with Memory.open(db) as memory:
        assert memory.verify() == []
        assert journal.head(memory.conn)[0] > 0
    assert tried == 18
