"""Encryption at rest: which library, and what it costs (issue 13, docs/benchmarks.md §Encryption).

Two measurements, each side by side in one run:

1. Candidates (`--candidates`): the SQL that Pulse runs to import the demo memory and to answer
   40 retrievals is captured once (sqlite3's trace callback, parameters expanded), then every
   candidate library runs exactly those statements — unencrypted and keyed — in its own venv
   (the SQLCipher bindings all install a module called `sqlcipher3`, so they cannot share one).
   Plain SQLite (this Python's sqlite3) is the baseline. Wall and CPU time, median of --repeat.
   apsw-sqlite3mc has no DB-API, which is why the workload is SQL text rather than Pulse itself.

       python bench/encryption.py --candidates /tmp/pulse-enc-venvs --repeat 5

   makes (once) one venv per candidate under that folder with `pip install NAME==VERSION`.

2. Pulse itself (`--pulse`): the real import of the demo corpus and 40 retrievals through
   Memory, on a plain memory and on an encrypted one, plus the cost of opening an encrypted
   memory the first time in a process (the key derivation) and again (the cached key).

       .venv/bin/python bench/encryption.py --pulse --repeat 3

Nothing here is imported by core/ or the app.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path("/tmp/pulse-bench-cache")
WORKLOAD = CACHE / "encryption-workload.json"
KEY = "bench passphrase"
CANDIDATES = {                      # name → (pip requirement, import kind)
    "sqlcipher3": ("sqlcipher3==0.6.4", "dbapi"),
    "sqlcipher3-binary": ("sqlcipher3-binary==0.6.0", "dbapi"),
    "sqlcipher3-wheels": ("sqlcipher3-wheels==0.5.7", "dbapi"),
    "apsw-sqlite3mc": ("apsw-sqlite3mc==3.54.0.0", "apsw"),
}
QUERIES = ["feeling abandoned", "my father", "argument with my sister", "the novel's villain",
           "running a race", "money worries", "the dog's surgery", "moving to a new flat",
           "burnout at work", "my grandmother", "the café job", "writing group feedback",
           "a letter from Papa", "panic at night", "Sam's family", "my agent called",
           "the dacha in summer", "grief", "shame about money", "a good day"]


# -- capture (project venv) --------------------------------------------------------------------

def capture() -> dict[str, list[str]]:
    """The SQL of importing the demo memory and of 40 retrievals, as the store ran it."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from core.memory import Memory, demo_corpus_path

    statements: list[str] = []

    def keep(sql: str) -> None:
        # this Python reports each trigger a write fires as the write's own text again: those
        # repeats are not sent twice (the candidate's triggers run them)
        if sql.lstrip().startswith("--"):
            return
        if statements and sql == statements[-1] and sql.split(None, 1)[0].upper() in (
                "INSERT", "UPDATE", "DELETE"):
            return
        statements.append(sql)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "capture.db"
        with Memory.open(path, create=True) as memory:
            memory.conn.set_trace_callback(keep)
            memory.import_corpus(demo_corpus_path())
            memory.conn.set_trace_callback(None)
            write = list(statements)
            statements.clear()
        with Memory.open(path) as memory:
            memory.conn.set_trace_callback(keep)
            for i in range(40):
                memory._scorer = None if i % 10 == 0 else memory._scorer  # reload the index
                memory.retrieve(QUERIES[i % len(QUERIES)], scorer="hybrid", top_k=10,
                                now="2026-11-01T12:00:00Z")
            memory.conn.set_trace_callback(None)
            read = list(statements)
        schema = [r[0] for r in __import__("sqlite3").connect(path).execute(
            "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'"
            " AND name NOT LIKE '%fts_%' ORDER BY CASE type WHEN 'table' THEN 0 ELSE 1 END,"
            " rowid")]
    return {"schema": schema, "import": write, "retrieve": read}


# -- worker (any venv, no Pulse imports) --------------------------------------------------------

def _connect(kind: str, path: str, key: str | None):
    if kind == "sqlite3":
        import sqlite3
        conn = sqlite3.connect(path, isolation_level=None)
        return conn, conn.execute
    if kind == "dbapi":
        from sqlcipher3 import dbapi2
        conn = dbapi2.connect(path, isolation_level=None)
        conn.execute("PRAGMA cipher_log_level = NONE")
        if key:
            conn.execute(f"PRAGMA key = '{key}'")
        return conn, conn.execute
    import apsw
    conn = apsw.Connection(path)
    if key:
        conn.execute(f"PRAGMA key = '{key}'")
    return conn, conn.execute


def worker(kind: str, key: str | None) -> dict[str, float]:
    work = json.loads(WORKLOAD.read_text(encoding="utf-8"))
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "w.db")
        conn, run = _connect(kind, path, key)
        for sql in ("PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL"):
            list(run(sql))
        for sql in work["schema"]:
            run(sql)
        cpu, wall = time.process_time(), time.perf_counter()
        for sql in work["import"]:
            list(run(sql) or ())
        out["import_wall_ms"] = (time.perf_counter() - wall) * 1000
        out["import_cpu_ms"] = (time.process_time() - cpu) * 1000
        conn.close()
        # a fresh connection, as a reader would; its first read derives the key from the
        # passphrase (timed apart: Pulse derives it once per process and reuses it)
        cpu, wall = time.process_time(), time.perf_counter()
        conn, run = _connect(kind, path, key)
        list(run("SELECT COUNT(*) FROM sqlite_master"))
        out["open_wall_ms"] = (time.perf_counter() - wall) * 1000
        out["open_cpu_ms"] = (time.process_time() - cpu) * 1000
        cpu, wall = time.process_time(), time.perf_counter()
        for sql in work["retrieve"]:
            list(run(sql) or ())
        out["retrieve_wall_ms"] = (time.perf_counter() - wall) * 1000
        out["retrieve_cpu_ms"] = (time.process_time() - cpu) * 1000
        conn.close()
        size = os.path.getsize(path)
        with open(path, "rb") as fh:                   # our own scratch file, closed above
            header = fh.read(16)
    out["file_kib"] = size / 1024
    out["plain_header"] = header == b"SQLite format 3\x00"
    return out


def probe(kind: str) -> dict[str, object]:
    """Versions, FTS5, and whether the library can key a database at all."""
    with tempfile.TemporaryDirectory() as tmp:
        conn, run = _connect(kind, os.path.join(tmp, "p.db"), KEY if kind != "sqlite3" else None)
        version = list(run("select sqlite_version()"))[0][0]
        try:
            run("CREATE VIRTUAL TABLE f USING fts5(a, tokenize='porter unicode61')")
            fts5 = True
        except Exception:   # noqa: BLE001 - a missing module is the answer
            fts5 = False
        cipher = ""
        if kind == "dbapi":
            cipher = list(run("PRAGMA cipher_version"))[0][0]
        elif kind == "apsw":
            cipher = "sqlite3mc " + str(list(run("PRAGMA cipher"))[0][0])
        conn.close()
    return {"sqlite": version, "fts5": fts5, "cipher": cipher}


# -- driver ------------------------------------------------------------------------------------

def _median(runs: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def candidates(folder: Path, repeat: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    pythons = {"plain sqlite3 (baseline)": (sys.executable, "sqlite3")}
    for name, (requirement, kind) in CANDIDATES.items():
        venv = folder / name
        python = venv / "bin" / "python"
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            subprocess.run([str(python), "-m", "pip", "install", "-q", requirement], check=True)
        pythons[name] = (str(python), kind)
    rows = []
    base: dict[str, float] = {}
    for label, (python, kind) in pythons.items():
        info = json.loads(subprocess.run([python, __file__, "--probe", kind], check=True,
                                         capture_output=True, text=True).stdout)
        keys = [None] if kind == "sqlite3" else [None, KEY]
        for key in keys:
            runs = []
            for _ in range(repeat):
                args = [python, __file__, "--worker", kind] + (["--key", key] if key else [])
                done = subprocess.run(args, check=True, capture_output=True, text=True)
                runs.append(json.loads(done.stdout))
            row = {"library": label, "keyed": bool(key), **info,
                   **{k: _median(runs, k) for k in ("import_wall_ms", "import_cpu_ms",
                                                     "retrieve_wall_ms", "retrieve_cpu_ms",
                                                     "open_cpu_ms", "file_kib")},
                   "plain_header": runs[0]["plain_header"]}
            if kind == "sqlite3":
                base = row
            rows.append(row)
    print(f"workload: {len(_workload()['import'])} import statements, "
          f"{len(_workload()['retrieve'])} retrieval statements; median of {repeat}")
    print("| library | keyed | SQLite | cipher | FTS5 | import wall ms (×) | import CPU ms (×) |"
          " retrieve wall ms (×) | retrieve CPU ms (×) | open with passphrase, CPU ms |"
          " file KiB | header readable |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        cells = []
        for k in ("import_wall_ms", "import_cpu_ms", "retrieve_wall_ms", "retrieve_cpu_ms"):
            cells.append(f"{r[k]:.0f} ({r[k] / base[k]:.2f})")
        print(f"| {r['library']} | {'yes' if r['keyed'] else 'no'} | {r['sqlite']} | "
              f"{r['cipher'] or '—'} | {'yes' if r['fts5'] else 'no'} | {' | '.join(cells)} | "
              f"{r['open_cpu_ms']:.0f} | {r['file_kib']:.0f} | "
              f"{'yes' if r['plain_header'] else 'no'} |")


def _workload() -> dict[str, list[str]]:
    return json.loads(WORKLOAD.read_text(encoding="utf-8"))


def pulse(repeat: int) -> None:
    """Pulse's own import and retrieval, plain vs encrypted, in this process."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from core.memory import Memory, demo_corpus_path

    def one(encrypted: bool, tmp: Path, i: int) -> dict[str, float]:
        path = tmp / f"{'enc' if encrypted else 'plain'}-{i}.db"
        secret = KEY if encrypted else None
        out: dict[str, float] = {}
        cpu, wall = time.process_time(), time.perf_counter()
        memory = Memory.open(path, create=True, passphrase=secret, encrypt=encrypted)
        out["create_ms"] = (time.perf_counter() - wall) * 1000
        cpu, wall = time.process_time(), time.perf_counter()
        memory.import_corpus(demo_corpus_path())
        out["import_wall_ms"] = (time.perf_counter() - wall) * 1000
        out["import_cpu_ms"] = (time.process_time() - cpu) * 1000
        memory.close()
        wall = time.perf_counter()
        memory = Memory.open(path, passphrase=secret)
        out["reopen_ms"] = (time.perf_counter() - wall) * 1000
        cpu, wall = time.process_time(), time.perf_counter()
        for q in range(40):
            memory.retrieve(QUERIES[q % len(QUERIES)], scorer="hybrid", top_k=10,
                            now="2026-11-01T12:00:00Z")
        out["retrieve_wall_ms"] = (time.perf_counter() - wall) * 1000
        out["retrieve_cpu_ms"] = (time.process_time() - cpu) * 1000
        memory.close()
        return out

    with tempfile.TemporaryDirectory() as tmp:
        Memory.open(Path(tmp) / "warm.db", create=True).close()   # models loaded outside
        warm = Memory.open(Path(tmp) / "warm.db")
        warm.embed_texts(["warm up"])
        warm.close()
        results: dict[bool, list[dict[str, float]]] = {False: [], True: []}
        for i in range(repeat):
            for encrypted in (False, True):
                results[encrypted].append(one(encrypted, Path(tmp), i))
        first_open = _first_open_ms(Path(tmp) / "enc-0.db")
    plain, enc = results[False], results[True]
    print(f"Pulse, demo corpus (197 events), 40 hybrid retrievals; median of {repeat}")
    print("| measure | plain | encrypted | × |")
    print("|---|---|---|---|")
    for key in ("import_wall_ms", "import_cpu_ms", "retrieve_wall_ms", "retrieve_cpu_ms",
                "reopen_ms"):
        a, b = _median(plain, key), _median(enc, key)
        print(f"| {key} | {a:.0f} | {b:.0f} | {b / a:.2f} |")
    print(f"| first open of an encrypted memory in a new process (key derivation) | — | "
          f"{first_open:.0f} | — |")


def _first_open_ms(path: Path) -> float:
    code = ("import sys, time; sys.path.insert(0, sys.argv[2]); from core.memory import Memory;"
            "t = time.perf_counter(); m = Memory.open(sys.argv[1], passphrase=sys.argv[3]);"
            "print((time.perf_counter() - t) * 1000); m.close()")
    done = subprocess.run([sys.executable, "-c", code, str(path), str(ROOT), KEY], check=True,
                          capture_output=True, text=True)
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--candidates", type=Path, help="folder for one venv per candidate")
    parser.add_argument("--pulse", action="store_true", help="Pulse plain vs encrypted")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--probe", help=argparse.SUPPRESS)
    parser.add_argument("--key", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.key)))
        return
    if args.probe:
        print(json.dumps(probe(args.probe)))
        return
    if args.candidates:
        if not WORKLOAD.exists():
            CACHE.mkdir(parents=True, exist_ok=True)
            WORKLOAD.write_text(json.dumps(capture()), encoding="utf-8")
        candidates(args.candidates, args.repeat)
    if args.pulse:
        pulse(args.repeat)
    if not (args.candidates or args.pulse):
        parser.error("give --candidates FOLDER and/or --pulse")


if __name__ == "__main__":
    main()
