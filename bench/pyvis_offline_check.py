"""Why the viewer does not use pyvis: count the network requests its pages would make.

The exported viewer must make no network request at all (APP.md §2). This builds the same tiny
graph with pyvis in each of its resource modes and lists the external URLs in the page.
Run: .venv/bin/python bench/pyvis_offline_check.py   (pyvis is in the `bench` extra)
"""

from __future__ import annotations

import argparse
import re


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="same thing (it is quick)")
    parser.parse_args(argv)
    try:
        from pyvis.network import Network
    except ImportError:
        print("pyvis is not installed (pip install pyvis): nothing to measure")
        return 0
    print("| pyvis resource mode | page bytes | external URLs | which |")
    print("|---|---|---|---|")
    for mode in ("remote", "in_line"):
        net = Network(cdn_resources=mode)
        net.add_node(1, label="a")
        net.add_node(2, label="b")
        net.add_edge(1, 2)
        html = net.generate_html()
        urls = sorted(set(re.findall(r'(?:src|href)="(https?://[^"]+)', html)))
        hosts = sorted({u.split("/")[2] for u in urls})
        print(f"| {mode} | {len(html):,} | {len(urls)} | {', '.join(hosts) or '—'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
