"""The standalone graph viewer: one HTML file, fully offline, safe with untrusted memory text.

    data = page_data(memory, domains=None, redact=False, include_events=True)
    html = render_page(data)                  # str: write it to a file and load that file
    export_html(memory, "graph.html")         # both, plus a summary dict

The page inlines vis-network (resources/viewer/vis-network.min.js, Apache-2.0 OR MIT) and its
own script and style from resources/viewer/. Memory data travels as JSON inside
``<script type="application/json" id="pulse-data">`` with ``< > &`` and U+2028/2029 escaped,
so no memory text can close the element; the page inserts every string with textContent. A
Content-Security-Policy allows only the two inline scripts (by hash), inline styles and data:
images: nothing can leave the page. Inside the desktop app the page may also load
``qrc:///qtwebchannel/qwebchannel.js`` (only when ``qt.webChannelTransport`` exists).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import tempfile
import time
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

import networkx as nx

from core.beliefs import BELIEF_CLASSES, DOMAINS, ENTITY_KINDS
from core.errors import ValidationError
from core.graph import build_graph, layout, observation_texts
from core.store.locks import refuse_to_overwrite

FORMAT = "pulse-graph/1"
RESOURCES = Path(__file__).resolve().parent.parent.parent / "resources" / "viewer"
PHYSICS_LIMIT = 1500          # above this many nodes the page never offers live physics
DEFAULT_SEED = 7

_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028",
                 "\u2029": "\\u2029"}
_JSON_UNSAFE = re.compile("[<>&\u2028\u2029]")


def safe_json(value: Any) -> str:
    """JSON that can sit inside a <script> element: no `<`, `>`, `&`, U+2028 or U+2029."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return _JSON_UNSAFE.sub(lambda m: _JSON_ESCAPES[m.group(0)], text)


# -- data --------------------------------------------------------------------------------------

def page_data(memory: Any, *, domains: Any = None, redact: bool | str | None = False,
              include_events: bool = True, seed: int = DEFAULT_SEED,
              title: str | None = None) -> dict[str, Any]:
    """Everything the page shows, as one JSON-able dict (format ``pulse-graph/1``).

    `redact`: False/None is the owner's own view (the app's Graph tab: everything as stored);
    a level of core/export/redaction.py (names | no-event-text | titles-only; True means
    no-event-text) is a page that leaves the owner's view: policies and boundaries apply."""
    from core.export.redaction import (
        check_level,
        redact_graph,
        redact_observations,
        withheld_observations,
    )
    from core.privacy.outside import OutsideView

    level = "no-event-text" if redact is True else (check_level(redact) if redact else None)
    graph = build_graph(memory, include_events=include_events, domains=domains)
    withheld: dict[str, int] = {}
    view = None
    hidden_sources: set[int] = set()
    if level is not None:
        view = OutsideView.of(memory)
        withheld = redact_graph(graph, view, level)
        hidden_sources = withheld_observations(view)
    positions = layout(graph, seed=seed)
    observations = observation_texts(memory, graph, exclude=hidden_sources) \
        if level in (None, "names") else {}
    if view is not None:
        observations = redact_observations(observations, view, level)
    if title is None:
        path = getattr(memory, "path", None)
        title = f"Pulse memory · {Path(path).name}" if path else "Pulse memory"
    data = graph_data(graph, positions, observations=observations,
                      redact=level not in (None, "names"), title=title)
    data["meta"]["redaction"] = level
    if withheld:
        data["meta"]["withheld"] = withheld
    return data


def graph_data(graph: nx.MultiDiGraph, positions: dict[Any, tuple[float, float]], *,
               observations: dict[str, list[str]] | None = None, redact: bool = False,
               title: str = "Pulse memory") -> dict[str, Any]:
    """Turn a build_graph() graph and its layout into the page's data."""
    degree: dict[str, int] = dict(graph.degree())
    top = max(degree.values(), default=0) or 1
    nodes = []
    for node, a in graph.nodes(data=True):
        x, y = positions.get(node, (0.0, 0.0))
        # size: stored salience, lifted by how connected the node is (both 0..1)
        size = 0.6 * float(a.get("salience", 0.5)) + 0.4 * (degree.get(node, 0) / top) ** 0.5
        item: dict[str, Any] = {"id": node, "type": a["type"], "label": a.get("label", ""),
                                "kind": a.get("kind", ""), "domain": a.get("domain", "real"),
                                "salience": round(float(a.get("salience", 0.5)), 3),
                                "size": round(size, 3), "x": x, "y": y,
                                "beliefs": sorted(a.get("beliefs", ()))}
        if a["type"] == "entity":
            item.update(key=a.get("key"), aliases=a.get("aliases", []),
                        description=a.get("description", ""), is_self=a.get("is_self", False),
                        facts=[{k: f[k] for k in ("text", "confidence", "belief_class",
                                                  "domain", "verified")}
                               for f in a.get("facts", [])],
                        events=a.get("events", []))
        else:
            item.update(key=a.get("key"), ts=a.get("ts"), user_flag=a.get("user_flag", False))
        nodes.append(item)

    edges = []
    for src, dst, e in graph.edges(data=True):
        edges.append([src, dst, e.get("type", "relation"), e.get("kind", ""),
                      round(float(e.get("strength", 0.5)), 3)])

    events = {}
    for ev in graph.graph.get("events", {}).values():
        events[ev["id"]] = {k: ev[k] for k in (
            "key", "title", "description", "ts", "domain", "belief_class", "confidence_floor",
            "archivable", "user_flag", "provenance", "sentiment", "sentiment_label",
            "entities") if k in ev}
        if "emotion" in ev:
            events[ev["id"]]["emotion"] = ev["emotion"]

    kinds = sorted({n["kind"] for n in nodes})
    return {
        "format": FORMAT,
        "meta": {"title": title,
                 "generated_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                 "domains": list(graph.graph.get("domains", DOMAINS)),
                 "include_events": bool(graph.graph.get("include_events", False)),
                 "redacted": bool(redact),
                 "physics": len(nodes) <= PHYSICS_LIMIT,
                 "large": len(nodes) > PHYSICS_LIMIT,
                 "kinds": [k for k in (*ENTITY_KINDS, "event") if k in kinds],
                 "belief_classes": list(BELIEF_CLASSES),
                 "counts": {"nodes": len(nodes), "edges": len(edges),
                            "entities": sum(1 for n in nodes if n["type"] == "entity"),
                            "events": len(events)}},
        "nodes": nodes,
        "edges": edges,
        "events": events,
        "observations": {} if redact else (observations or {}),
    }


# -- page --------------------------------------------------------------------------------------

@lru_cache(maxsize=1)
def _assets() -> dict[str, str]:
    assets = {name: (RESOURCES / file).read_text(encoding="utf-8").replace("\r\n", "\n")
              for name, file in (
        ("template", "viewer.html"), ("css", "viewer.css"), ("js", "viewer.js"),
        ("vis", "vis-network.min.js"))}
    for name in ("css", "js", "vis"):
        low = assets[name].lower()
        if "</script" in low or "<!--" in low or "</style" in low:
            raise RuntimeError(f"resources/viewer: the {name} asset cannot be inlined safely")
    return assets


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


def render_page(graph_data: dict[str, Any]) -> str:
    """The whole page as one string. Load it from a file (QUrl.fromLocalFile) or a custom
    scheme: at several MB it is past QWebEngineView.setHtml's 2 MB limit."""
    assets = _assets()
    payload = safe_json(graph_data)
    scripts = [assets["vis"], assets["js"]]
    csp = ("default-src 'none'; "
           f"script-src {' '.join(_sha256(s) for s in scripts)} qrc:; "
           "style-src 'unsafe-inline'; img-src data:; font-src 'none'; connect-src 'none'; "
           "frame-src 'none'; worker-src 'none'; object-src 'none'; base-uri 'none'; "
           "form-action 'none'")
    parts = {"csp": csp, "css": assets["css"], "vis": assets["vis"], "js": assets["js"],
             "data": payload}
    # single pass: a placeholder that appears inside an inserted part is never re-expanded
    return re.sub(r"@@(csp|css|vis|js|data)@@", lambda m: parts[m.group(1)],
                  assets["template"])


def export_html(memory: Any, out_path: str | os.PathLike[str], *, domains: Any = None,
                redact: bool | str = "names", include_events: bool = True,
                seed: int = DEFAULT_SEED, lock: str | None = None) -> dict[str, Any]:
    """Write the standalone viewer for `memory` to `out_path` (atomically); return a summary.
    An export leaves the owner's view: policies always apply, `redact` is the level (names |
    no-event-text | titles-only). `lock` (a passphrase) writes a page holding only ciphertext
    (core/export/locked.py)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValidationError(f"seed must be a whole number ≥ 0, got {seed!r}")
    started = time.perf_counter()
    level = "no-event-text" if redact is True else ("names" if not redact else redact)
    data = page_data(memory, domains=domains, redact=level, include_events=include_events,
                     seed=seed)
    if lock is not None:
        from core.export.locked import render_locked_page

        page = render_locked_page(data, lock)
    else:
        page = render_page(data)
    out = Path(out_path)
    refuse_to_overwrite(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".pulse-viewer-", suffix=".html", dir=out.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(page)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    counts = data["meta"]["counts"]
    return {"path": str(out), "bytes": out.stat().st_size, **counts,
            "domains": data["meta"]["domains"], "redaction": data["meta"]["redaction"],
            "redacted": data["meta"]["redaction"] != "names", "locked": lock is not None,
            "withheld": data["meta"].get("withheld", {}),
            "include_events": bool(include_events), "physics": data["meta"]["physics"],
            "seconds": round(time.perf_counter() - started, 3)}
