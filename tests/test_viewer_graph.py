"""The graph builder, the layout and the page's data and escaping (no browser needed)."""

from __future__ import annotations

import json
import re

import networkx as nx
import pytest

from core.cli import main
from core.errors import ValidationError
from core.export import export_html, page_data, render_page, safe_json
from core.graph import build_graph, layout
from core.memory import Memory

IMG = '<img src=x onerror="window.__pwned=1">'
SCRIPT = "</script><script>window.__pwned=2</script>"

CORPUS = {
    "format": "pulse-corpus/1",
    "entities": [
        {"key": "ana", "name": "Ana", "kind": "person"},
        {"key": "bo", "name": IMG, "kind": "person"},
        {"key": "cafe", "name": "Cafe Lumen", "kind": "place"},
        {"key": "hero", "name": "Captain Vela", "kind": "fictional_character",
         "domain": "fiction_content"},
        {"key": "book", "name": "The Lighthouse Draft", "kind": "project",
         "domain": "fiction_meta"},
    ],
    "relations": [
        {"from": "ana", "to": "bo", "kind": "sibling", "strength": 0.9},
        {"from": "ana", "to": "cafe", "kind": "works_at", "strength": 0.4},
        {"from": "ana", "to": "book", "kind": "writes", "strength": 0.7},
        {"from": "book", "to": "hero", "kind": "features", "strength": 0.6},
    ],
    "events": [
        {"key": "e1", "title": "Ana starts at Cafe Lumen", "ts": "2026-03-01T09:00:00Z",
         "entities": ["ana", "cafe"], "belief_class": "operational"},
        {"key": "e2", "title": SCRIPT, "description": IMG, "ts": "2026-03-02T09:00:00Z",
         "entities": ["ana", "bo"], "parents": ["e1"], "belief_class": "self_model"},
        {"key": "e3", "title": "Vela sails at dawn", "ts": "2026-03-03T09:00:00Z",
         "entities": ["hero"], "domain": "fiction_content", "belief_class": "hypothesis"},
    ],
    "facts": [
        {"entity": "ana", "text": "Ana takes her coffee black"},
        {"entity": "bo", "text": SCRIPT},
        {"entity": "hero", "text": "Vela fears still water", "domain": "fiction_content"},
    ],
}


@pytest.fixture(scope="module")
def small_db(tmp_path_factory):
    path = tmp_path_factory.mktemp("graph") / "memory.db"
    with Memory.open(path, create=True) as mem:
        mem.import_corpus(CORPUS)
    return path


@pytest.fixture
def small(small_db):
    mem = Memory.open(small_db, read_only=True)
    yield mem
    mem.close()


def test_build_graph_entities_only(small):
    g = build_graph(small)
    assert isinstance(g, nx.MultiDiGraph)
    assert g.number_of_nodes() == 5
    assert {d["type"] for _, d in g.nodes(data=True)} == {"entity"}
    assert g.number_of_edges() == 4
    ana = next(n for n, d in g.nodes(data=True) if d["label"] == "Ana")
    attrs = g.nodes[ana]
    assert attrs["kind"] == "person" and attrs["domain"] == "real"
    assert [f["text"] for f in attrs["facts"]] == ["Ana takes her coffee black"]
    assert len(attrs["events"]) == 2                       # listed even without event nodes
    assert attrs["beliefs"] == {"operational", "self_model"}
    strengths = sorted(d["strength"] for _, _, d in g.edges(data=True))
    assert strengths == [0.4, 0.6, 0.7, 0.9]


def test_build_graph_with_events_and_chains(small):
    g = build_graph(small, include_events=True)
    types = [d["type"] for _, _, d in g.edges(data=True)]
    assert types.count("mention") == 5 and types.count("chain") == 1
    assert sum(1 for _, d in g.nodes(data=True) if d["type"] == "event") == 3


def test_build_graph_domains(small):
    g = build_graph(small, include_events=True, domains=["real"])
    assert {d["domain"] for _, d in g.nodes(data=True)} == {"real"}
    assert all(g.nodes[a]["domain"] == "real" and g.nodes[b]["domain"] == "real"
               for a, b in g.edges())
    assert build_graph(small, domains="real,fiction_meta").number_of_nodes() == 4
    with pytest.raises(ValidationError):
        build_graph(small, domains=["nope"])


def test_build_graph_accepts_a_connection(small):
    assert build_graph(small.conn).number_of_nodes() == 5


def test_layout_is_deterministic_and_zoned(small):
    g = build_graph(small, include_events=True)
    a, b = layout(g, seed=3), layout(g, seed=3)
    assert a == b and set(a) == set(g.nodes)
    assert layout(g, seed=4) != a


def test_layout_large_graph_is_seeded_and_spread():
    g = nx.MultiDiGraph()
    n = 3000                                   # above the exact-repulsion limit: the grid path
    for i in range(n):
        g.add_node(f"en:{i}", domain="real" if i % 3 else "fiction_content")
    for i in range(n):
        g.add_edge(f"en:{i}", f"en:{(i * 7 + 1) % n}", strength=0.5)
    p1 = layout(g, seed=1)
    assert p1 == layout(g, seed=1)
    xs = sorted(x for x, _ in p1.values())
    assert xs[-1] - xs[0] > 1000               # spread out, not collapsed
    assert len(set(p1.values())) == n          # no two nodes on the same spot


def test_safe_json_escapes_script_breakers():
    text = safe_json({"t": SCRIPT + "&\u2028\u2029<!--"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert "\u2028" not in text and "\u2029" not in text
    assert json.loads(text) == {"t": SCRIPT + "&\u2028\u2029<!--"}


def test_render_page_embeds_untrusted_text_safely(small):
    page = render_page(page_data(small))
    # the only script closers are the page's own three
    assert len(re.findall(r"</script", page, re.I)) == 3
    assert "window.__pwned" in page                    # the data is there, escaped
    assert IMG not in page and "<img" not in page
    data_text = page.split('id="pulse-data">', 1)[1].split("</script>", 1)[0]
    data = json.loads(data_text)
    assert any(n["label"] == IMG for n in data["nodes"])
    assert any(e["title"] == SCRIPT for e in data["events"].values())
    # offline: no external references at all
    for pattern in (r"\bsrc\s*=\s*[\"']?https?:", r"<link\b", r"@import", r"url\(\s*[\"']?https?:"):
        assert not re.search(pattern, page, re.I), pattern
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    assert "default-src 'none'" in csp and "connect-src 'none'" in csp
    assert "'unsafe-inline'" not in csp.split("script-src", 1)[1].split(";", 1)[0]


def test_redact_drops_observation_text(small, tmp_path):
    full = page_data(small)
    assert full["observations"] and not full["meta"]["redacted"]
    red = page_data(small, redact=True)
    assert red["observations"] == {} and red["meta"]["redacted"]
    summary = export_html(small, tmp_path / "r.html", redact=True)
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert summary["redacted"] and "Ana starts at Cafe Lumen\\n" not in page


def test_export_summary_and_options(small, tmp_path):
    out = tmp_path / "sub" / "graph.html"
    summary = export_html(small, out, domains=["real", "fiction_content"], include_events=False)
    assert out.exists() and summary["bytes"] == out.stat().st_size
    assert summary["entities"] == 4 and summary["nodes"] == 4
    assert summary["domains"] == ["real", "fiction_content"]


def test_cli_export_html(small_db, tmp_path, capsys):
    db_path = small_db
    out = tmp_path / "cli.html"
    assert main(["--db", str(db_path), "export-html", "--out", str(out), "--domains", "real",
                 "--redact", "--no-events", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["nodes"] == 3 and summary["redacted"] and not summary["include_events"]
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert main(["--db", str(db_path), "export-html", "--out", str(out),
                 "--domains", "real,bogus"]) == 1
    assert "unknown domain 'bogus'" in capsys.readouterr().err
