"""What the UI thread did in the longest gaps of bench/desktop_responsiveness.py, from a Linux
`perf` recording of that thread (native stacks: Qt's C++ shows, which cProfile and the bench's
own late-beat sampler cannot see).

    # the bench in the background; once it says "first question", record its UI thread
    PULSE_BENCH_CACHE=var/bench-cache nice -n 15 .venv/bin/python \\
        bench/desktop_responsiveness.py --json > run.json 2> run.err &
    perf record -F 400 --call-graph dwarf,16384 -t $! -o run.perf -- sleep 22
    perf script -i run.perf -F time,ip,sym > run.txt
    python bench/perf_gaps.py run.txt run.json

perf's timestamps and time.perf_counter() are both CLOCK_MONOTONIC, so the bench's
`series_clock` and each worst gap's `at_s` place the gap among the samples. For each gap it
prints how many samples fell in it and how many of those passed through a few telling frames
(a table's paint, a list's relayout, a button's synchronous repaint…); --top N also prints the
N frames most often on the stack over all the gaps.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

MARKS = ("QTableView::paintEvent", "QListView::paintEvent", "QListView::doItemsLayout",
         "QAbstractButton::mousePressEvent", "QWidget::repaint", "QTextDocument::setHtml",
         "QAbstractItemModel::modelReset", "QSortFilterProxyModel", "QHeaderView",
         "QAbstractItemView::edit", "QUndoStack::push", "QFontMetrics::horizontalAdvance",
         "sqlite3VdbeExec", "gc_collect_main")
NOISE = ("_Py", "PyObject", "PyEval", "vectorcall", "cfunction", "slot_", "Shiboken",
         "[unknown]", "Py_", "method_", "call_attribute", "do_call_core", "pymain", "run_mod",
         "run_eval", "pyrun", "_start", "libc_start", "PySide::", "type_call")


def samples(path: str) -> list[tuple[float, list[str]]]:
    out: list[tuple[float, list[str]]] = []
    for line in open(path, encoding="utf-8", errors="replace"):
        if not line.strip():
            continue
        if not line[0].isspace():
            out.append((float(line.split(":")[0]), []))
        elif out:
            parts = line.split(None, 1)
            out[-1][1].append(parts[1].strip() if len(parts) > 1 else "?")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("perf_script", help="the output of `perf script -F time,ip,sym`")
    ap.add_argument("bench_json", help="bench/desktop_responsiveness.py --json of that run")
    ap.add_argument("--top", type=int, default=0)
    args = ap.parse_args()
    run = json.load(open(args.bench_json, encoding="utf-8"))
    start = run["series_clock"]
    stacks = samples(args.perf_script)
    every: Counter[str] = Counter()
    for gap in run["worst_gaps"]:
        a = start + gap["at_s"]
        b = a + gap["gap_ms"] / 1000
        inside = [st for t, st in stacks if a <= t <= b]
        marks = Counter(m for st in inside for m in MARKS if any(m in f for f in st))
        for st in inside:
            every.update({f for f in st if not any(n in f for n in NOISE)})
        print(f"gap at {gap['at_s']} s: {gap['gap_ms']} ms wall, {gap['ui_cpu_ms']} ms UI CPU, "
              f"{len(inside)} samples: {dict(marks.most_common())}")
    if args.top:
        print("frames most often on the stack in these gaps:")
        for frame, n in every.most_common(args.top):
            print(f"{n:6d}  {frame[:140]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
