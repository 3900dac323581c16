"""Crash safety of `pulse import` (issue 7 §1): SIGKILL at random (seeded) moments.

A LoCoMo conversation is converted to the `chat` format (bench/locomo_to_chat.py) in a temp
folder, optionally cut to its first N turns, and imported with the offline extractor:

1. reference: one uninterrupted import → its content digest;
2. crash cycles: start `pulse import` on a fresh memory, SIGKILL it at a random moment, then
   - `pulse verify` must pass (exit 0);
   - what the killed run had committed — every observation (kind, id, version, content hash)
     and every journal row (seq, hash) present right after the kill — is recorded as "reported
     stored" (the CLI prints nothing until its final JSON, so the committed rows ARE the report);
   - every observation has its journal row (a batch commits whole observations or nothing);
   restart the import and kill again, until a run completes; then every recorded observation
   must still be there, every recorded journal row must still be the same row (the journal
   after a crash is a prefix of the final one), `pulse verify` passes, and the digest equals
   the reference. Repeat with a fresh memory until `kills` kills have landed mid-run.

The importer commits every BATCH (128) observations; to give the killer more commit points the
child process sets core.ingest.pipeline.BATCH from --batch (the reference run uses the same
value, and a second reference with the default batch checks batching does not change the
digest).

    .venv/bin/python bench/crash_harness.py                       # full conv-26, 20 kills
    .venv/bin/python bench/crash_harness.py --turns 60 --kills 20 # the size `make test` uses
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent

# The real CLI, with a smaller commit batch so a kill has more moments to land between commits.
CHILD = ("import os, sys\n"
         "import core.ingest.pipeline as pipeline\n"
         "pipeline.BATCH = int(os.environ.get('PULSE_CRASH_BATCH') or pipeline.BATCH)\n"
         "from core.cli import main\n"
         "sys.exit(main(sys.argv[1:]))\n")


def locomo_chat(out_dir: Path, conversation: str = "conv-26", turns: int = 0) -> Path:
    """The conversation as a `chat` JSON Lines file in out_dir (first `turns` turns; 0 = all)."""
    sys.path.insert(0, str(BENCH))
    from locomo_to_chat import convert  # noqa: E402

    conv_dir = out_dir / "locomo-chat"
    paths = {p.stem: p for p in convert(conv_dir)}
    if conversation not in paths:
        raise SystemExit(f"no conversation {conversation!r} (have {', '.join(sorted(paths))})")
    lines = paths[conversation].read_text(encoding="utf-8").splitlines()
    if turns:
        lines = lines[:turns]
    target = out_dir / f"{conversation}-{len(lines)}.jsonl"
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    shutil.rmtree(conv_dir)
    return target


def _env(batch: int | None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PULSE_DB", None)
    if batch:
        env["PULSE_CRASH_BATCH"] = str(batch)
    return env


def _import_cmd(db: Path, chat: Path) -> list[str]:
    return [sys.executable, "-c", CHILD, "--db", str(db), "--json", "import", str(chat),
            "--format", "chat", "--extractor", "offline"]


def _pulse(db: Path, *args: str) -> tuple[int, str, str]:
    """`pulse --db DB ARGS…` through the CLI's own main(), in this process (cheaper than a
    process per check; the killed importer is the only process that needs to be separate)."""
    import contextlib
    import io

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from core.cli import main as cli_main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(["--db", str(db), *args])
    return code, out.getvalue(), err.getvalue()


def import_once(db: Path, chat: Path, batch: int | None) -> tuple[float, dict[str, Any]]:
    start = time.perf_counter()
    proc = subprocess.run(_import_cmd(db, chat), capture_output=True, text=True,
                          env=_env(batch), cwd=ROOT, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"import failed: {proc.stderr.strip()}")
    return time.perf_counter() - start, json.loads(proc.stdout)


def digest(db: Path) -> str:
    code, out, err = _pulse(db, "digest")
    if code != 0:
        raise RuntimeError(f"digest failed: {err.strip()}")
    return out.strip()


def verify(db: Path) -> tuple[bool, str]:
    code, out, err = _pulse(db, "verify")
    return code == 0, (out + err).strip()


def committed(db: Path) -> dict[str, Any]:
    """What is durably in the file now (SQLite recovers the WAL of the killed writer)."""
    if not db.exists() or db.stat().st_size == 0:
        return {"observations": set(), "journal": [], "ingest_rows": 0}
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "journal" not in tables:
            return {"observations": set(), "journal": [], "ingest_rows": 0}
        obs = set(conn.execute("SELECT source_kind, source_id, version, content_hash "
                               "FROM observations").fetchall())
        rows = conn.execute("SELECT seq, hash FROM journal ORDER BY seq").fetchall()
        ingest_rows = conn.execute("SELECT COUNT(*) FROM journal WHERE op = 'ingest.observation'"
                                   ).fetchone()[0]
        return {"observations": obs, "journal": rows, "ingest_rows": ingest_rows}
    finally:
        conn.close()


def run(chat: Path, work: Path, *, kills: int = 20, seed: int = 7, batch: int = 8,
        log=print) -> dict[str, Any]:
    rng = random.Random(seed)
    work.mkdir(parents=True, exist_ok=True)

    ref_db = work / "reference.db"
    ref_time, ref_summary = import_once(ref_db, chat, batch)
    ref_digest = digest(ref_db)
    default_db = work / "reference-default-batch.db"
    import_once(default_db, chat, None)
    default_digest = digest(default_db)
    log(f"reference: {ref_summary['total']['observations']['new']} observations in "
        f"{ref_time:.1f} s, digest {ref_digest[:16]}; default batch digest {default_digest[:16]}")

    # Importing only the first turn into a fresh memory measures the fixed cost of a run (start
    # Python, load the embedder and tagger, create the file); the rest of a run's time is spread
    # over the observations.
    one = work / "first-turn.jsonl"
    one.write_text(chat.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    startup, _ = import_once(work / "first-turn.db", chat=one, batch=batch)
    # a rerun also reloads what is already stored (entities, the pool, vectors) before it writes
    noop, _ = import_once(ref_db, chat, batch)
    resume = max(startup, noop)
    per_obs = max(0.0, ref_time - startup) / max(1, ref_summary["total"]["observations"]["new"])

    report: dict[str, Any] = {
        "chat": chat.name, "seed": seed, "batch": batch, "reference_seconds": round(ref_time, 2),
        "observations": ref_summary["total"]["observations"]["new"],
        "reference_digest": ref_digest, "default_batch_digest_matches": default_digest == ref_digest,
        "startup_seconds": round(startup, 2), "resume_seconds": round(resume, 2), "kills": [], "cycles": 0, "runs": 0,
        "completed_runs": 0, "failures": []}

    def fail(msg: str) -> None:
        report["failures"].append(msg)
        log(f"FAIL: {msg}")

    landed = 0
    while landed < kills:
        report["cycles"] += 1
        db = work / f"crash-{report['cycles']}.db"
        reported_obs: set = set()
        reported_journal: list = []
        while True:  # kill, check, restart … until a run completes
            # a random moment of this run: from half-way through start-up to 1.5 × its expected
            # end (start-up + the observations still to import; re-estimated as whole runs
            # complete), so some runs finish and the cycle ends with a digest check
            left = report["observations"] - len(committed(db)["observations"])
            fixed = startup if left == report["observations"] else resume
            delay = rng.uniform(0.5 * startup, 1.5 * (fixed + left * per_obs))
            proc = subprocess.Popen(_import_cmd(db, chat), stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, env=_env(batch), cwd=ROOT)
            report["runs"] += 1
            started = time.perf_counter()
            finished = None
            try:
                proc.wait(timeout=delay)
                finished = True
            except subprocess.TimeoutExpired:
                finished = False
                proc.send_signal(signal.SIGKILL)
            finally:
                if proc.poll() is None and not finished:
                    proc.kill()
            proc.wait()
            out, err = proc.communicate()
            if finished and left == report["observations"]:  # a whole run: refresh the estimate
                elapsed = time.perf_counter() - started
                per_obs = 0.5 * per_obs + 0.5 * max(0.0, elapsed - startup) / max(1, left)
            if finished:
                if proc.returncode != 0:
                    fail(f"cycle {report['cycles']}: an import run failed: {err.decode()[-500:]}")
                report["completed_runs"] += 1
                break
            landed += 1
            now = committed(db)
            ok, text = verify(db)
            kill = {"n": landed, "cycle": report["cycles"], "after_s": round(delay, 2),
                    "observations": len(now["observations"]), "journal_rows": len(now["journal"]),
                    "new_since_last": len(now["observations"] - reported_obs),
                    "wal_left": Path(f"{db}-wal").exists(), "verify": ok}
            report["kills"].append(kill)
            log(f"kill {landed:>2} at {delay:5.1f} s: {kill['observations']} observations, "
                f"{kill['journal_rows']} journal rows, verify {'ok' if ok else 'FAILED'}")
            if not ok:
                fail(f"kill {landed}: pulse verify failed: {text}")
            if now["ingest_rows"] != len(now["observations"]):
                fail(f"kill {landed}: {len(now['observations'])} observations but "
                     f"{now['ingest_rows']} ingest journal rows (a half-written observation)")
            if not reported_obs <= now["observations"]:
                fail(f"kill {landed}: observations stored before an earlier kill are gone")
            if now["journal"][:len(reported_journal)] != reported_journal:
                fail(f"kill {landed}: the journal stored before an earlier kill changed")
            reported_obs |= now["observations"]
            reported_journal = now["journal"]
            if landed >= kills:
                # finish this memory without more kills
                import_once(db, chat, batch)
                report["runs"] += 1
                report["completed_runs"] += 1
                break
        final = committed(db)
        ok, text = verify(db)
        if not ok:
            fail(f"cycle {report['cycles']}: verify after the rerun failed: {text}")
        missing = reported_obs - final["observations"]
        if missing:
            fail(f"cycle {report['cycles']}: {len(missing)} observations reported stored are "
                 f"missing after the rerun, e.g. {sorted(missing)[:3]}")
        if final["journal"][:len(reported_journal)] != reported_journal:
            fail(f"cycle {report['cycles']}: the rerun rewrote journal rows written before a kill")
        got = digest(db)
        if got != ref_digest:
            fail(f"cycle {report['cycles']}: digest {got[:16]} differs from the uninterrupted "
                 f"run's {ref_digest[:16]}")
        log(f"cycle {report['cycles']}: complete, {len(final['observations'])} observations, "
            f"digest {'matches' if got == ref_digest else 'DIFFERS'}")
    return report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conversation", default="conv-26")
    ap.add_argument("--turns", type=int, default=0, help="first N turns (0: all)")
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--batch", type=int, default=16, help="observations per commit in the child")
    ap.add_argument("--keep", help="keep the memories in this folder")
    args = ap.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="pulse-crash-"))
    started = time.perf_counter()
    try:
        chat = locomo_chat(work, args.conversation, args.turns)
        report = run(chat, work, kills=args.kills, seed=args.seed, batch=args.batch,
                     log=lambda m: print(m, file=sys.stderr, flush=True))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    report["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(report, indent=2))
    return 1 if report["failures"] or not report["default_batch_digest_matches"] else 0


if __name__ == "__main__":
    sys.exit(main())
