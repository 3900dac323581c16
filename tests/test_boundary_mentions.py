"""A topic boundary holds for every event whose own words name the topic, not only the events
linked to it (docs/privacy.md, "Topic boundaries"): the demo's e160 ("… Papa died in February
…", linked only to Nadia, Baba Vera and Papa) is withheld from recall, MCP, the brief and the
export; a question naming the topic gets it; an alias added or an event re-worded later counts
at the next query, without reading every event's text again; an alias inside another word
does not match; the owner's own views still show everything."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.memory import Memory
from core.privacy.outside import OutsideView

NOW = "2026-11-01T12:00:00Z"
FEBRUARY = "why is February so hard for her"


def _keys(out: dict) -> list[str]:
    return [r["key"] for r in out["results"]]


# -- the demo memory ---------------------------------------------------------------------------

def test_an_event_naming_the_topic_is_withheld_from_recall_and_mcp(demo_db: Path) -> None:
    from core.mcp_server import PulseTools, ToolError

    with Memory.open(demo_db, read_only=True) as memory:
        e160 = memory.resolve_event("e160")
        assert "n_boundary_papa" not in {e["key"] for e in memory.event_detail(e160)["entities"]}
        out = memory.retrieve(FEBRUARY, now=NOW, top_k=10)
        assert "e160" not in _keys(out) and out["withheld"]["behind_boundary"] >= 1
        assert e160 in memory.withheld_events(FEBRUARY)
        [boundary] = memory.boundaries()
        assert e160 in boundary["events"]
        tools = PulseTools(memory)
        recalled = tools.call("recall", {"query": FEBRUARY, "top_k": 10})
        assert "Papa died in February" not in json.dumps(recalled)
        with pytest.raises(ToolError) as err:
            tools.call("get_event", {"id": "e160"})
        assert "behind a boundary" in str(err.value) and "Papa's death" in str(err.value)
        with pytest.raises(ToolError):
            tools.call("why", {"event": "e160"})
        # a question that names the topic (an alias, any case) opens it, as for linked events
        assert "e160" in _keys(memory.retrieve("how papa died in February", now=NOW, top_k=10))


def test_the_brief_and_the_export_leave_it_out(demo_db: Path, tmp_path: Path) -> None:
    with Memory.open(demo_db, read_only=True) as memory:
        brief = memory.brief(4000, now=NOW)
        assert brief["behind_boundaries"] == 5          # the four linked events and e160
        assert "February is heavy" not in brief["text"]
        out = tmp_path / "nadia.html"
        summary = memory.export_html(out, redact="names")
        assert summary["withheld"]["events_behind_boundaries"] == 5
        raw = out.read_text(encoding="utf-8")
        assert "February is heavy" not in raw and "Papa died in February" not in raw


def test_the_owners_views_still_show_it(demo_db: Path) -> None:
    from pulse_desktop.timeline_data import load_dots

    with Memory.open(demo_db, read_only=True) as memory:
        e160 = memory.resolve_event("e160")
        assert "February is heavy for Nadia" in {d.title for d in load_dots(memory.conn)}
        assert memory.event_detail(e160)["event"]["title"] == "February is heavy for Nadia"


# -- staying current -----------------------------------------------------------------------------

def test_an_event_reworded_later_counts_at_the_next_query(demo_copy: Path) -> None:
    with Memory.open(demo_copy) as memory:
        query = "Sunday pancakes with Sam"
        assert memory.retrieve(query, now=NOW, top_k=10).get("withheld") is None
        memory.withheld_events(query)
        scans = memory.topic_mentions.scans
        best = _keys(memory.retrieve(query, now=NOW, top_k=1))[0]
        edited = memory.edit_event_text(best, description="Pancakes, and then we talked about "
                                                          "how Papa died.")["event"]
        assert edited in memory.withheld_events(query)
        assert memory.retrieve(query, now=NOW, top_k=10)["withheld"]["behind_boundary"] >= 1
        # the edit was read from the change log, not by reading every event's text again
        assert memory.topic_mentions.scans == scans
        again = memory.edit_event_text(edited, description="Pancakes, and a long walk.")
        assert again["event"] not in memory.withheld_events(query)


def test_an_alias_added_later_and_a_boundary_lifted(demo_copy: Path) -> None:
    with Memory.open(demo_copy) as memory:
        e137 = memory.resolve_event("e137")         # "The blue suitcase arrives", not linked
        assert e137 not in memory.withheld_events("")
        memory.edit_entity("n_boundary_papa", aliases=["Papa's funeral", "Papa died",
                                                       "how Papa died", "папа умер",
                                                       "the blue suitcase"])
        assert e137 in memory.withheld_events("")
        assert "e137" not in _keys(memory.retrieve("a parcel from Yekaterinburg", now=NOW))
        memory.set_policy("n_boundary_papa", do_not_probe=False)
        assert memory.withheld_events("") == set()
        assert "e160" in _keys(memory.retrieve(FEBRUARY, now=NOW, top_k=10))


# -- the matcher ---------------------------------------------------------------------------------

def test_whole_words_any_case_any_script(tmp_path: Path) -> None:
    corpus = {"format": "pulse-corpus/1",
              "entities": [{"key": "me", "name": "Nadia", "kind": "person"},
                           {"key": "papa", "name": "Papa's death", "kind": "safety_boundary",
                            "aliases": ["Papa died", "папа умер"], "do_not_probe": True}],
              "events": [
                  {"key": "ru", "title": "Письмо от мамы", "ts": "2026-01-10T09:00:00Z",
                   "description": "Мама написала: Папа умер. Сердце.", "entities": ["me"]},
                  {"key": "inside", "title": "A play about Papa Diedre",
                   "description": "Papa diedre is a character; we laughed.",
                   "ts": "2026-01-11T09:00:00Z", "entities": ["me"]},
                  {"key": "upper", "title": "PAPA DIED, she wrote", "ts": "2026-01-12T09:00:00Z",
                   "description": "", "entities": ["me"]},
                  {"key": "plain", "title": "A walk", "description": "Papa would have liked it.",
                   "ts": "2026-01-13T09:00:00Z", "entities": ["me"]}]}
    with Memory.open(tmp_path / "m.db", create=True) as memory:
        memory.import_corpus(corpus)
        withheld = memory.withheld_events("")
        assert withheld == {memory.resolve_event("ru"), memory.resolve_event("upper")}
        # the question's matcher is the event's matcher: "папа умер" opens both
        assert memory.withheld_events("когда папа умер?") == set()


def test_a_bare_connection_reads_the_same(demo_db: Path) -> None:
    """brief(conn) and page_data(conn) have no Memory to keep the mentions in: the view then
    reads them once, the same."""
    with Memory.open(demo_db, read_only=True) as memory:
        assert OutsideView(memory.conn).withheld("") == memory.withheld_events("")


def test_a_source_text_naming_the_topic_is_in_no_export(tmp_path: Path) -> None:
    """An event re-worded so that it no longer names the topic keeps its source entry, which
    still does: the viewer shows an event's source text beside it, so that text stays out."""
    journal = tmp_path / "journal.txt"
    journal.write_text("2026-02-03\n\nMama called at six. Papa died last night, a heart attack "
                       "at the dacha.\n\n2026-02-10\n\nCoffee with Dana Whitfield at Juniper. "
                       "We laughed about the espresso machine.\n", encoding="utf-8")
    corpus = {"format": "pulse-corpus/1",
              "entities": [{"key": "papa", "name": "Papa's death", "kind": "safety_boundary",
                            "aliases": ["Papa died"], "do_not_probe": True}]}
    with Memory.open(tmp_path / "m.db", create=True) as memory:
        memory.import_corpus(corpus)
        memory.import_files(journal, fmt="text", me="Nadia")
        named = [r[0] for r in memory.conn.execute(
            "SELECT id FROM events WHERE title || description LIKE '%Papa died%'")]
        assert named
        for event_id in named:
            memory.edit_event_text(event_id, title="A call from Mama",
                                   description="Mama called at six.")
        # the old wording is erased; the entry it was cut from stays
        memory.forget([f"event:{e}" for e in named], keep=[])
        assert memory.withheld_events("") == set()
        out = tmp_path / "names.html"
        memory.export_html(out, redact="names")
        raw = out.read_text(encoding="utf-8")
        assert "A call from Mama" in raw
        assert "a heart attack at the dacha" not in raw
        assert "We laughed about the espresso machine." in raw


def test_an_entity_known_only_from_events_behind_it_is_no_knowledge_gap(tmp_path: Path) -> None:
    """Aunt Olga appears only in events that say "Papa died": asking about her is asking
    about the topic, so she is not offered as a gap; Dana, in other events, is."""
    events = [{"key": f"olga{i}", "title": f"Call {i} with Aunt Olga",
               "description": "She talked again about the night Papa died.",
               "ts": f"2026-01-1{i}T09:00:00Z", "entities": ["me", "olga"]} for i in range(4)]
    events += [{"key": f"dana{i}", "title": f"Coffee {i} with Dana",
                "description": "We laughed about the espresso machine.",
                "ts": f"2026-02-1{i}T09:00:00Z", "entities": ["me", "dana"]} for i in range(4)]
    corpus = {"format": "pulse-corpus/1",
              "entities": [{"key": "me", "name": "Nadia", "kind": "person", "is_self": True},
                           {"key": "olga", "name": "Aunt Olga", "kind": "person"},
                           {"key": "dana", "name": "Dana Whitfield", "kind": "person"},
                           {"key": "papa", "name": "Papa's death", "kind": "safety_boundary",
                            "aliases": ["Papa died"], "do_not_probe": True}],
              "events": events}
    with Memory.open(tmp_path / "m.db", create=True) as memory:
        memory.import_corpus(corpus)
        names = {g["name"] for g in memory.knowledge_gaps()}
        assert "Dana Whitfield" in names and "Aunt Olga" not in names


def test_a_storyline_summary_naming_the_topic_gives_way_to_its_best_match(demo_db: Path) -> None:
    """A summary is written over several events; one that names the topic in its own words
    (an LLM's paraphrase can, with no member naming it) is not shown: the best match is."""
    with Memory.open(demo_db, read_only=True) as memory:
        e157 = memory.resolve_event("e157")
        entry = {"title": "Winters", "summary": "Every winter since Papa died she sleeps less.",
                 "members": [e157], "size": 1, "method": "llm",
                 "best": {"id": e157, "title": "Energy dips", "text": "Energy dips in December."}}
        view = OutsideView.of(memory)
        shown = view.storyline(entry, set())
        assert shown["summary"] == "Energy dips in December." and shown["method"] == "event"
        assert view.storyline(entry, set(), "since Papa died")["summary"] == entry["summary"]


def test_a_write_from_another_process_counts_too(demo_copy: Path) -> None:
    """The MCP server keeps its Memory open while the app edits: the change log carries it."""
    with Memory.open(demo_copy) as server, Memory.open(demo_copy) as app:
        before = server.withheld_events("")
        edited = app.edit_event_text("e137", description="Papa's things; how Papa died, "
                                                         "in the letter.")["event"]
        assert server.withheld_events("") == before | {edited}
        assert server.topic_mentions.scans == 1
