"""Embedding beside writing (core/ingest/overlap.py): a batch's second half is embedded on
another thread while the first half is written, and the memory is the same as with one
thread, to the digest; a cancel or a crash during it leaves a memory a rerun completes."""

from __future__ import annotations

import threading

import pytest

from core.ingest import ingest_files, overlap, pipeline
from core.memory import Memory
from tests.test_ingest_pipeline import _rows, write_chat


@pytest.fixture
def chat(tmp_path):
    # 3 batches of 20: each split in two halves (OVERLAP_MIN is 16)
    return write_chat(tmp_path / "c.jsonl", _rows(60))


def _finish_threads(monkeypatch) -> list[tuple[str, int]]:
    seen: list[tuple[str, int]] = []
    real = pipeline.Writer.finish

    def finish(self, items, extractions, **kw):
        seen.append((threading.current_thread().name, len(items)))
        return real(self, items, extractions, **kw)

    monkeypatch.setattr(pipeline.Writer, "finish", finish)
    return seen


def test_overlap_writes_what_one_thread_writes(tmp_path, chat, monkeypatch):
    monkeypatch.setattr(pipeline, "BATCH", 20)
    monkeypatch.delenv("PULSE_EMBED_THREADS", raising=False)
    seen = _finish_threads(monkeypatch)
    monkeypatch.setattr(overlap.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(pipeline, "embed_beside_writing", lambda memory: None)
    with Memory.open(tmp_path / "one.db", create=True) as one:
        ingest_files(one, [chat])
        expected = one.digest()
    assert {name for name, _ in seen} == {threading.current_thread().name}
    assert [n for _, n in seen] == [20, 20, 20]

    seen.clear()
    monkeypatch.setattr(pipeline, "embed_beside_writing", overlap.embed_beside_writing)
    with Memory.open(tmp_path / "two.db", create=True) as two:
        summary = ingest_files(two, [chat])
        assert two.digest() == expected
        assert two.verify() == []
    assert summary["total"]["observations"]["new"] == 60
    # each batch: its first half here, its second half on the overlap's thread
    assert [n for _, n in seen] == [10, 10] * 3
    assert [name.startswith("pulse-prep") for name, _ in seen] == [False, True] * 3


def test_overlap_is_off_when_a_core_is_kept_free(tmp_path, monkeypatch):
    monkeypatch.setenv("PULSE_EMBED_THREADS", "1")
    with Memory.open(tmp_path / "m.db", create=True) as memory:
        assert overlap.embed_beside_writing(memory) is None
    monkeypatch.delenv("PULSE_EMBED_THREADS")
    with Memory.open(tmp_path / "m.db") as memory:
        monkeypatch.setattr(overlap.os, "cpu_count", lambda: 2)
        assert overlap.embed_beside_writing(memory) is not None
        monkeypatch.setattr(overlap.os, "cpu_count", lambda: 1)
        assert overlap.embed_beside_writing(memory) is None


def test_cancel_during_the_first_half_then_rerun_converges(tmp_path, chat, monkeypatch):
    monkeypatch.setattr(pipeline, "BATCH", 20)
    monkeypatch.delenv("PULSE_EMBED_THREADS", raising=False)
    monkeypatch.setattr(overlap.os, "cpu_count", lambda: 2)
    with Memory.open(tmp_path / "a.db", create=True) as a:
        ingest_files(a, [chat])
        clean = a.digest()
    with Memory.open(tmp_path / "b.db", create=True) as b:
        cancel = threading.Event()

        def progress(done, total):
            if done >= 25:          # inside the second batch's first half
                cancel.set()

        summary = ingest_files(b, [chat], progress=progress, cancel=cancel)
        assert summary["cancelled"] is True
        assert b.conn.execute("SELECT COUNT(*) FROM observations").fetchone()[0] == 25
        assert b.verify() == []
        ingest_files(b, [chat])
        assert b.digest() == clean
    assert [t.name for t in threading.enumerate() if t.name.startswith("pulse-prep")] == []


def test_crash_while_the_second_half_embeds_then_rerun_converges(tmp_path, chat, monkeypatch):
    monkeypatch.setattr(pipeline, "BATCH", 20)
    monkeypatch.delenv("PULSE_EMBED_THREADS", raising=False)
    monkeypatch.setattr(overlap.os, "cpu_count", lambda: 2)
    with Memory.open(tmp_path / "a.db", create=True) as a:
        ingest_files(a, [chat])
        clean = a.digest()
    real = pipeline.Writer.write
    calls = {"n": 0}

    def crashing(self, prep, counts):
        calls["n"] += 1
        if calls["n"] == 25:
            raise KeyboardInterrupt("simulated kill")
        return real(self, prep, counts)

    with Memory.open(tmp_path / "b.db", create=True) as b:
        monkeypatch.setattr(pipeline.Writer, "write", crashing)
        with pytest.raises(KeyboardInterrupt):
            ingest_files(b, [chat])
        monkeypatch.setattr(pipeline.Writer, "write", real)
        # the batch being written rolled back whole: only the first batch stays
        assert b.conn.execute("SELECT COUNT(*) FROM observations").fetchone()[0] == 20
        assert b.verify() == []
        ingest_files(b, [chat])
        assert b.digest() == clean
    assert [t.name for t in threading.enumerate() if t.name.startswith("pulse-prep")] == []
