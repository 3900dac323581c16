"""Retrieval by storyline (`pulse retrieve --storylines`, MCP `recall` with storylines: true):
one entry per storyline, ranked by its best member, with the storyline's summary, the span of
its dates and that member's breakdown. An event in no storyline is an entry of its own (kind
"event"), so nothing the plain retrieval would surface is lost.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from core.errors import PulseError

WIDEN = 5           # rank this many events per wanted entry (members of one story crowd in)
WIDEN_MIN = 30


def retrieve_storylines(memory: Any, request: Any,
                        rank: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    """`rank` is the plain retrieval with the memory's policies applied (Memory.retrieve)."""
    if request.chain:
        raise PulseError("choose chain mode or storylines, not both")
    wanted = request.top_k
    wide = replace(request, top_k=min(1000, max(WIDEN_MIN, WIDEN * wanted)))
    out = rank(wide)
    graph = memory.storyline_graph()
    groups: dict[str, list[dict[str, Any]]] = {}
    for result in out["results"]:
        key = graph.of_event.get(result["id"]) or f"event:{result['id']}"
        if key not in groups and len(groups) >= wanted:
            continue
        groups.setdefault(key, []).append(result)
    lines = [k for k in groups if k in graph.storylines]
    stories = {s["key"]: s for s in memory.storylines(lines)} if lines else {}
    entries = []
    for key, hits in groups.items():
        best = hits[0]
        story = stories.get(key)
        if story is None:   # an event of its own
            story = {"key": key, "kind": "event", "title": best["title"], "summary": best["text"],
                     "method": "event", "span": {"from": best["ts"], "to": best["ts"]},
                     "members": [best["id"]], "size": 1, "anchor": best["id"]}
        entries.append({"storyline": story["key"], "kind": story["kind"],
                        "title": story["title"], "summary": story["summary"],
                        "method": story["method"], "span": story["span"],
                        "members": story["members"], "size": story["size"],
                        "score": best["score"], "matched": [h["id"] for h in hits],
                        "best": best})
    envelope = {k: v for k, v in out.items() if k != "results"}
    return envelope | {"storylines": entries}
