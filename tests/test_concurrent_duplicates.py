"""The same words stored by two programs at once (real processes): a companion's `remember`
through `pulse mcp`, or `pulse import` of a file, while another program is storing the very same
observation. Each checks "already stored?" before it takes the write lock, so both saw "new" and
the second one's write failed on the observations' UNIQUE key with "unexpected error:
IntegrityError". The one that comes second must answer "duplicate" and store nothing twice.
Likewise a person another program has just met is the same person, not a second entity, and
one it has just erased is not linked ("FOREIGN KEY constraint failed" before).

The race is made deterministic: a holder process stores the observation inside an open write
transaction and commits only once the other program is waiting for the lock.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from core.memory import Memory

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from mcp_client import McpProcess  # noqa: E402

NOTE = "Lunch with Ines at the harbour; she finally told me about the new job."
TS = "2026-11-20T12:30:00Z"
CHAT = [{"id": f"m{i}", "speaker": "Ann", "text": f"Week {i} at the pottery studio, glaze day.",
         "ts": f"2026-10-{10 + i}T18:00:00Z"} for i in range(1, 5)]
CORPUS = {"format": "pulse-corpus/1", "events": [
    {"key": "e1", "title": "Ordinary day", "description": "Work and groceries.",
     "ts": "2026-10-01T09:00:00Z"}]}
LOCK_WAIT_S = 4   # the other program is waiting for the lock by then (it waits up to 30 s)

HOLDER = """
import sys
from core.memory import Memory
memory = Memory.open(sys.argv[1])
with memory.atomic():
    if sys.argv[2] == "remember":
        memory.remember(sys.argv[3], sys.argv[4])
    elif sys.argv[2] == "forget":
        memory.forget(sys.argv[3], vacuum=False)
    else:
        memory.import_files([sys.argv[3]], fmt="chat")
    print("holding", flush=True)
    sys.stdin.readline()        # commit when told
memory.close()
"""


def env() -> dict[str, str]:
    out = {**os.environ, "PYTHONPATH": str(ROOT)}
    out.pop("PULSE_DB", None)
    return out


def hold(db: Path, *args: str) -> subprocess.Popen:
    """A process that has stored the observation and holds the write lock until told."""
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db), *args], env=env(),
                              cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "holding", holder.stderr.read()
    return holder


def release(holder: subprocess.Popen) -> None:
    holder.stdin.write("\n")
    holder.stdin.flush()
    assert holder.wait(timeout=60) == 0, holder.stderr.read()


def call_while_held(companion: McpProcess, holder: subprocess.Popen, tool: str,
                    arguments: dict) -> tuple[bool, dict]:
    """The companion's call, made while `holder` keeps the write lock; the holder lets go once
    the call is waiting for it. (is_error, answer)."""
    answers: list = []
    call = threading.Thread(target=lambda: answers.append(
        companion.call(tool, arguments, timeout=120)))
    call.start()
    time.sleep(LOCK_WAIT_S)
    release(holder)
    call.join(timeout=150)
    return answers[0]


def test_remember_while_another_program_stores_the_same_note(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory.open(db, create=True) as memory:
        memory.import_corpus(CORPUS)
    companion = McpProcess(db, "test-companion")
    try:  # warm: the embedder is loaded, so the call reaches the lock at once
        assert companion.call("remember", {"text": "A quiet morning.", "ts": TS})[0] is False
        is_error, answer = call_while_held(companion, hold(db, "remember", NOTE, TS),
                                           "remember", {"text": NOTE, "ts": TS})
        assert is_error is False, answer
        assert answer["duplicate"] is True and answer["events"] == []
        assert companion.close() == 0
    finally:
        if companion.proc.poll() is None:
            companion.proc.kill()
    with Memory.open(db) as memory:
        rows = memory.conn.execute("SELECT COUNT(*) FROM observations WHERE source_kind ="
                                   " 'remember' AND content_text = ?", (NOTE,)).fetchone()[0]
        assert rows == 1 and answer["observation"] == memory.conn.execute(
            "SELECT id FROM observations WHERE content_text = ?", (NOTE,)).fetchone()[0]
        assert memory.verify() == []


def test_import_while_another_program_imports_the_same_file(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(CHAT), encoding="utf-8")
    with Memory.open(db, create=True) as memory:
        memory.import_corpus(CORPUS)
        before = memory.stats()["counts"]["observations"]
    holder = hold(db, "import", str(chat))
    second = subprocess.Popen([sys.executable, "-m", "core.cli", "--db", str(db), "--json",
                               "import", str(chat), "--format", "chat"], env=env(), cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(LOCK_WAIT_S)
        release(holder)
        out, err = second.communicate(timeout=120)
    finally:
        if second.poll() is None:
            second.kill()
    assert second.returncode == 0, err
    summary = json.loads(out)["total"]["observations"]
    assert (summary["new"], summary["duplicate"]) == (0, len(CHAT))
    with Memory.open(db) as memory:
        assert memory.stats()["counts"]["observations"] == before + len(CHAT)
        assert memory.verify() == []


def remember_while_held(db: Path, note: str, *holding: str) -> None:
    """The companion remembers `note` while a holder, having done `holding`, keeps the lock."""
    companion = McpProcess(db, "test-companion")
    try:
        assert companion.call("remember", {"text": "A quiet morning.", "ts": TS})[0] is False
        is_error, answer = call_while_held(companion, hold(db, *holding), "remember",
                                           {"text": note, "ts": TS})
        assert is_error is False, answer
        assert companion.close() == 0
    finally:
        if companion.proc.poll() is None:
            companion.proc.kill()


def zoltans(db: Path) -> list[int]:
    with Memory.open(db) as memory:
        assert memory.verify() == []
        return [r[0] for r in memory.conn.execute(
            "SELECT id FROM entities WHERE canonical_name = 'Zoltan'")]


def test_a_person_met_by_another_program_meanwhile_is_not_made_twice(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory.open(db, create=True) as memory:
        memory.import_corpus(CORPUS)
    remember_while_held(db, "I had dinner with Zoltan tonight.",
                        "remember", "I had lunch with Zoltan today.", TS)
    assert len(zoltans(db)) == 1


def test_a_person_erased_by_another_program_meanwhile_is_not_linked(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory.open(db, create=True) as memory:
        memory.import_corpus(CORPUS)
        memory.remember("I had lunch with Zoltan today.", TS)
    [erased] = zoltans(db)
    remember_while_held(db, "I had dinner with Zoltan tonight.", "forget", "entity:Zoltan")
    assert zoltans(db) not in ([], [erased])    # met again, as someone new


def test_an_event_erased_by_another_program_meanwhile_is_not_pooled_with(tmp_path: Path) -> None:
    """Three like notes make a distilled event of the pool; one of them erased meanwhile must not
    be drawn on (before: "FOREIGN KEY constraint failed"; so did a CLI import while events were
    forgotten)."""
    walks = ["Walked the dog along the river at dawn, calm and happy.",
             "Walked the dog along the river at dawn again, calm and happy.",
             "Walked the dog along the river at dawn today, calm and happy."]
    db = tmp_path / "m.db"
    with Memory.open(db, create=True) as memory:
        memory.import_corpus(CORPUS)
        memory.remember(walks[0], "2026-11-20T07:00:00Z")
        [erased] = memory.remember(walks[1], "2026-11-21T07:00:00Z")["events"]
    remember_while_held(db, walks[2], "forget", f"event:{erased}")
    with Memory.open(db) as memory:
        assert memory.verify() == []
        assert memory.conn.execute("SELECT COUNT(*) FROM events WHERE id = ?", (erased,)
                                   ).fetchone()[0] == 0
        assert memory.conn.execute("SELECT COUNT(*) FROM events WHERE title LIKE"
                                   " 'Walked the dog%'").fetchone()[0] == 2


def test_an_event_erased_while_a_recall_is_logged_stays_out_of_the_log(tmp_path: Path) -> None:
    """A recall scored before a forget committed and logged after it: the record must not keep
    the erased event (forget had already cleaned the log, so nothing would clean it later)."""
    db = tmp_path / "m.db"
    with Memory.open(db, create=True) as memory:
        memory.import_corpus({"format": "pulse-corpus/1", "events": [
            {"key": "e1", "title": "Zanzibar station argument",
             "description": "At the Zanzibar station Dana shouted that I never listen.",
             "ts": "2026-10-20T10:00:00Z"},
            {"key": "e2", "title": "Hiking trip", "description": "A calm day in the hills.",
             "ts": "2026-09-01T10:00:00Z"}]})
        [erased] = [r[0] for r in memory.conn.execute("SELECT id FROM events WHERE key = 'e1'")]
    companion = McpProcess(db, "test-companion")
    try:
        assert companion.call("recall", {"query": "a calm day", "top_k": 1})[0] is False
        is_error, served = call_while_held(companion, hold(db, "forget", "event:e1"), "recall",
                                           {"query": "the Zanzibar station argument", "top_k": 2})
        assert is_error is False, served
        assert erased in [r["id"] for r in served["results"]]   # scored before the erasure
        assert companion.close() == 0
    finally:
        if companion.proc.poll() is None:
            companion.proc.kill()
    with Memory.open(db) as memory:
        [record] = [r for r in memory.recalls() if r["tool"] == "recall"
                    and "calm" not in r["query"]]
        full = json.dumps(memory.recall_record(record["id"]))
        assert "Zanzibar" not in full and f'"id": {erased}' not in full
        assert memory.conn.execute("SELECT COUNT(*) FROM recall_log_events WHERE event_id = ?",
                                   (erased,)).fetchone()[0] == 0
        assert memory.verify() == []
