"""Graph viewer benchmark: export and first render of synthetic memories.

For each size N (entities; 4·N relations): build a memory file (rows inserted directly with SQL,
not journaled: this measures the viewer, not the importer), run `export_html`, then load the file
in QtWebEngine (offscreen) and wait for `window.pulseViewer.ready`. Reports export seconds, file
size, the page's own `drawnAt` (ms from navigation start to vis-network's first afterDrawing),
the wall time from load() to ready, and how long a search and cluster-by-domain take.

    nice .venv/bin/python bench/viewer_render.py                 # 1000 5000 20000
    nice .venv/bin/python bench/viewer_render.py --sizes 5000 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if hasattr(os, "geteuid") and os.geteuid() == 0:
    os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")

KINDS = ["person", "place", "project", "org", "concept", "thing", "skill", "community"]
DOMAINS = ["real"] * 6 + ["fiction_content"] * 2 + ["fiction_meta", "meta_authorial"]
WORDS = ("amber birch cedar delta ember fjord grove harbor iris juniper kestrel lumen meadow "
         "nova orchid pine quill river sable tide umber violet willow xenon yarrow zephyr").split()


def build_memory(path: Path, n: int, seed: int = 1) -> None:
    from core.memory import Memory

    rng = random.Random(seed)
    with Memory.open(path, create=True) as mem:
        conn = mem.conn
        entities = []
        for i in range(1, n + 1):
            name = f"{rng.choice(WORDS).title()} {rng.choice(WORDS).title()} {i}"
            entities.append((i, f"k{i}", name, rng.choice(KINDS), DOMAINS[i % len(DOMAINS)],
                             round(rng.random(), 3)))
        conn.executemany("INSERT INTO entities (id, key, canonical_name, kind, domain, salience)"
                         " VALUES (?, ?, ?, ?, ?, ?)", entities)
        rels, seen = [], set()
        while len(rels) < 4 * n:
            a = rng.randint(1, n)
            # mostly local links inside the same domain (communities), some long ones
            if rng.random() < 0.85:
                b = a + len(DOMAINS) * rng.randint(-40, 40)
                if not 1 <= b <= n:
                    continue
            else:
                b = rng.randint(1, n)
            if a == b or (a, b) in seen:
                continue
            seen.add((a, b))
            rels.append((a, b, rng.choice(("knows", "part_of", "near", "about")),
                         round(rng.random(), 3)))
        conn.executemany("INSERT INTO relations (from_entity, to_entity, kind, strength)"
                         " VALUES (?, ?, ?, ?)", rels)
        conn.executemany("INSERT INTO facts (entity_id, text) VALUES (?, ?)",
                         [(i, f"fact about {rng.choice(WORDS)} number {i}")
                          for i in range(1, n + 1, 3)])
        conn.commit()


class Browser:
    def __init__(self) -> None:
        from PySide6.QtWebEngineWidgets import QWebEngineView  # noqa: F401 (before the app)
        from PySide6.QtWidgets import QApplication

        self.app = QApplication.instance() or QApplication(sys.argv[:1])

    def screenshot(self, path: Path, out: Path, select: str | None = None,
                   size: tuple[int, int] = (1600, 1000)) -> None:
        """Load the page, wait until drawn, optionally select a node by label, save a PNG."""
        from PySide6.QtCore import QEventLoop, QTimer, QUrl
        from PySide6.QtWebEngineWidgets import QWebEngineView

        view = QWebEngineView()
        view.resize(*size)
        view.show()
        loop = QEventLoop()

        def js(expr: str):
            got: list = []
            view.page().runJavaScript(f"JSON.stringify([({expr})])", 0,
                                      lambda v: (got.append(v), loop.quit()))
            loop.exec()
            return json.loads(got[0])[0] if got and isinstance(got[0], str) else None

        view.page().loadFinished.connect(lambda ok: loop.quit())
        view.load(QUrl.fromLocalFile(str(path)))
        loop.exec()
        while not js("!!(window.pulseViewer && window.pulseViewer.ready)"):
            QTimer.singleShot(50, loop.quit)
            loop.exec()
        if select:
            js("pulseViewer.select(pulseViewer.visibleNodeIds().filter(function (id) {"
               " return pulseViewer.network.body.nodes[id].options.label === "
               + json.dumps(select) + "; })[0], {focus: false})")
        QTimer.singleShot(1000, loop.quit)
        loop.exec()
        out.parent.mkdir(parents=True, exist_ok=True)
        view.grab().save(str(out))
        view.close()

    def render(self, path: Path, timeout: float = 180.0) -> dict:
        from PySide6.QtCore import QEventLoop, QTimer, QUrl
        from PySide6.QtWebEngineWidgets import QWebEngineView

        view = QWebEngineView()
        view.resize(1400, 900)
        view.show()
        loop = QEventLoop()

        def js(expr: str):
            out: list = []
            view.page().runJavaScript(f"JSON.stringify([({expr})])", 0,
                                      lambda v: (out.append(v), loop.quit()))
            QTimer.singleShot(int(timeout * 1000), loop.quit)
            loop.exec()
            return json.loads(out[0])[0] if out and isinstance(out[0], str) else None

        started = time.perf_counter()
        view.page().loadFinished.connect(lambda ok: loop.quit())
        view.load(QUrl.fromLocalFile(str(path)))
        loop.exec()
        while not js("!!(window.pulseViewer && window.pulseViewer.ready)"):
            if time.perf_counter() - started > timeout:
                raise TimeoutError(f"{path} not drawn in {timeout} s")
            QTimer.singleShot(20, loop.quit)
            loop.exec()
        wall = time.perf_counter() - started
        timings = js("pulseViewer.timings")
        t = time.perf_counter()
        narrowed = js("pulseViewer.search('amber')")
        search_s = time.perf_counter() - t
        js("pulseViewer.search('')")
        t = time.perf_counter()
        clusters = js("pulseViewer.setClustered(true)")
        cluster_s = time.perf_counter() - t
        t = time.perf_counter()
        js("pulseViewer.setClustered(false)")
        uncluster_s = time.perf_counter() - t
        t = time.perf_counter()
        js("(pulseViewer.network.redraw(), pulseViewer.network.body.nodeIndices.length)")
        view.close()
        view.deleteLater()
        return {"drawn_ms": round(timings["drawn"], 1), "ready_wall_s": round(wall, 2),
                "parse_ms": round(timings["dataReady"] - timings["scriptStart"], 1),
                "network_ms": round(timings["networkCreated"] - timings["dataReady"], 1),
                "search_s": round(search_s, 3), "search_hits": narrowed,
                "cluster_s": round(cluster_s, 3), "clusters": clusters,
                "uncluster_s": round(uncluster_s, 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 20000])
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--keep", help="keep the exported files in this folder")
    parser.add_argument("--screenshot", nargs=2, metavar=("HTML", "PNG"),
                        help="only save a screenshot of an exported page")
    parser.add_argument("--select", help="with --screenshot: open the panel of this label")
    args = parser.parse_args(argv)
    if args.screenshot:
        Browser().screenshot(Path(args.screenshot[0]), Path(args.screenshot[1]), args.select)
        return 0

    from core.export import export_html
    from core.memory import Memory

    browser = Browser()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for n in args.sizes:
            db = Path(tmp) / f"bench-{n}.db"
            build_memory(db, n)
            out = folder / f"viewer-{n}.html"
            with Memory.open(db, read_only=True) as mem:
                t = time.perf_counter()
                summary = export_html(mem, out)
                export_s = time.perf_counter() - t
            row = {"entities": n, "edges": summary["edges"], "nodes": summary["nodes"],
                   "export_s": round(export_s, 2), "mb": round(summary["bytes"] / 1e6, 2),
                   **browser.render(out)}
            rows.append(row)
            print(json.dumps(row), flush=True)
    print()
    print("| entities | edges | export s | file MB | drawn (ms after navigation) | "
          "load→ready s | search s | cluster s |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['entities']:,} | {r['edges']:,} | {r['export_s']:.2f} | {r['mb']:.1f} | "
              f"{r['drawn_ms']:,.0f} | {r['ready_wall_s']:.2f} | {r['search_s']:.2f} | "
              f"{r['cluster_s']:.2f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
