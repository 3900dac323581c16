"""Curation by a person, through Memory: emotions (user-confirmed, never overwritten by a
re-import), a new text version, entity rename/aliases/kind/domain, a merge by hand with its
preview, an alias split back out, chain links and relations. Each is one journal row on the
item, and undo puts the memory back exactly (same content digest)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.errors import PulseError
from core.memory import Memory

CORPUS = {
    "format": "pulse-corpus/1",
    "entities": [
        {"key": "me", "name": "Nadia", "kind": "person"},
        {"key": "mark", "name": "Mark", "kind": "person", "aliases": ["Marek"]},
        {"key": "marc", "name": "Marc", "kind": "person"},
        {"key": "ilse", "name": "Ilse", "kind": "fictional_character", "domain": "fiction_content"},
        {"key": "cafe", "name": "Juniper", "kind": "place"},
    ],
    "relations": [{"from": "me", "to": "mark", "kind": "friend", "strength": 0.6},
                  {"from": "me", "to": "marc", "kind": "friend", "strength": 0.3}],
    "events": [
        {"key": "e1", "title": "Mark called about the flat", "ts": "2025-01-05",
         "entities": ["me", "mark"], "emotions": {"joy": 0.4}},
        {"key": "e2", "title": "Marek left for Krakow", "description": "Marek did not say goodbye.",
         "ts": "2025-02-01", "entities": ["mark"], "parents": ["e1"]},
        {"key": "e3", "title": "Coffee with Marc at Juniper", "ts": "2025-03-01",
         "entities": ["marc", "cafe"], "parents": ["e2"]},
        {"key": "e4", "title": "Wrote Ilse's first chapter", "ts": "2025-04-01",
         "entities": ["ilse"]},
    ],
    "facts": [{"entity": "mark", "text": "Mark grew up in Gdansk", "confidence": 0.8},
              {"entity": "marc", "text": "Marc roasts his own coffee", "confidence": 0.7}],
}


@pytest.fixture
def mem(memory: Memory) -> Memory:
    memory.import_corpus(CORPUS)
    return memory


def last_row(memory: Memory) -> dict:
    return dict(memory.conn.execute("SELECT seq, op, subject, actor FROM journal ORDER BY seq"
                                    " DESC LIMIT 1").fetchone())


def undo_restores(memory: Memory, before: str, op: str) -> None:
    out = memory.undo()
    assert out["target_op"] == op
    assert memory.digest() == before
    assert memory.verify() == []


def emotion_row(memory: Memory, key: str) -> dict:
    event_id = memory.resolve_event(key)
    return dict(memory.conn.execute("SELECT * FROM event_emotions WHERE event_id = ?",
                                    (event_id,)).fetchone())


# -- emotions ------------------------------------------------------------------------------------

def test_emotions_are_user_confirmed_journaled_and_undone(mem: Memory) -> None:
    before = mem.digest()
    seq = mem.set_emotions("e2", {"sadness": 0.8, "anger": 0.3})
    row = emotion_row(mem, "e2")
    assert row["sadness"] == 0.8 and row["anger"] == 0.3 and row["joy"] == 0.0
    assert row["derivation"] == "user_confirmed" and row["tagger"] == "manual"
    assert mem.event("e2")["emotional_weight"] == 0.8
    assert last_row(mem) == {"seq": seq, "op": "event.emotions",
                             "subject": f"event:{mem.resolve_event('e2')}", "actor": "manual"}
    assert mem.set_emotions("e2", {"sadness": 0.8, "anger": 0.3}) is None   # no change, no row
    undo_restores(mem, before, "event.emotions")
    assert emotion_row(mem, "e2")["derivation"] != "user_confirmed"


@pytest.mark.parametrize("values, message", [
    ({"sorrow": 0.5}, "unknown emotion"), ({"fear": 1.5}, "0..1"), ({"fear": True}, "0..1"),
    ({"fear": "high"}, "0..1")])
def test_bad_emotions_change_nothing(mem: Memory, values: dict, message: str) -> None:
    before = mem.digest()
    with pytest.raises(PulseError, match=message):
        mem.set_emotions("e1", values)
    assert mem.digest() == before


def test_a_reimport_never_overwrites_confirmed_emotions(mem: Memory, tmp_path: Path) -> None:
    mem.set_emotions("e1", {"fear": 0.7})
    mem.import_corpus(CORPUS)                           # the corpus says joy 0.4 for e1
    assert emotion_row(mem, "e1")["fear"] == 0.7 and emotion_row(mem, "e1")["joy"] == 0.0
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([{"id": "m1", "speaker": "Nadia", "ts": "2025-05-01T10:00:00Z",
                                 "text": "I am so happy the garden is finally finished."}]),
                    encoding="utf-8")
    mem.import_files([chat])
    event = mem.conn.execute("SELECT e.id FROM events e JOIN observations o ON"
                             " o.id = e.source_observation WHERE o.source_id = 'm1'").fetchone()[0]
    mem.set_emotions(event, {"sadness": 0.6})
    confirmed = emotion_row(mem, event)
    summary = mem.import_files([chat])                  # the same file again
    assert summary["total"]["observations"]["new"] == 0
    assert emotion_row(mem, event) == confirmed
    mem.embed(all_events=True)                          # re-embedding does not re-tag either
    assert emotion_row(mem, event) == confirmed


# -- a new text version ----------------------------------------------------------------------------

def test_editing_text_makes_a_new_version(mem: Memory) -> None:
    mem.set_emotions("e2", {"sadness": 0.9})
    before = mem.digest()
    old = mem.resolve_event("e2")
    out = mem.edit_event_text("e2", title="Marek moved to Warsaw",
                              description="He texted from the train.")
    new = out["event"]
    assert out["replaces"] == old and new != old
    assert mem.resolve_event("e2") == new                # the key follows the current text
    assert mem.event(new)["title"] == "Marek moved to Warsaw"
    assert mem.event(old)["absorbed_into"] == new and mem.event(old)["key"] is None
    conn = mem.conn
    assert {r[0] for r in conn.execute("SELECT entity_id FROM event_entities WHERE event_id = ?",
                                       (new,))} == {mem.resolve_entity("mark")}
    assert conn.execute("SELECT parent_id FROM event_chains WHERE child_id = ?",
                        (new,)).fetchone()[0] == mem.resolve_event("e1")
    assert conn.execute("SELECT child_id FROM event_chains WHERE parent_id = ?",
                        (new,)).fetchone()[0] == mem.resolve_event("e3")
    assert conn.execute("SELECT COUNT(*) FROM event_chains WHERE ? IN (parent_id, child_id)",
                        (old,)).fetchone()[0] == 0
    assert emotion_row(mem, new)["sadness"] == 0.9      # confirmed emotions travel
    assert conn.execute("SELECT COUNT(*) FROM event_embeddings WHERE event_id = ?",
                        (new,)).fetchone()[0] == 1
    # retrieval sees the new text and no longer the old one
    found = mem.retrieve("Warsaw train", scorer="bm25", top_k=3)["results"]
    assert found and found[0]["id"] == new
    assert not [r for r in mem.retrieve("Krakow", scorer="bm25")["results"] if r["id"] == old]
    assert last_row(mem)["op"] == "event.text" and last_row(mem)["subject"] == f"event:{new}"
    assert mem.edit_event_text("e2", title="Marek moved to Warsaw",
                               description="He texted from the train.") is None
    with pytest.raises(PulseError, match="already replaced"):
        mem.edit_event_text(old, title="again")
    with pytest.raises(PulseError, match="title"):
        mem.edit_event_text("e2", title="   ")
    undo_restores(mem, before, "event.text")
    assert mem.resolve_event("e2") == old


# -- entities ----------------------------------------------------------------------------------

def test_rename_aliases_kind_domain(mem: Memory) -> None:
    before = mem.digest()
    mem.edit_entity("cafe", name="Juniper & Grind", kind="place", domain="real",
                    aliases=["the café"])
    row = mem.conn.execute("SELECT * FROM entities WHERE key = 'cafe'").fetchone()
    assert row["canonical_name"] == "Juniper & Grind"
    assert json.loads(row["aliases"]) == ["the café", "Juniper"]   # the old name stays findable
    assert mem.resolve_entity("Juniper") == row["id"]
    assert last_row(mem)["op"] == "entity.edit"
    undo_restores(mem, before, "entity.edit")
    mem.edit_entity("ilse", kind="fictionalized_self", domain="meta_authorial")
    row = mem.conn.execute("SELECT kind, domain FROM entities WHERE key = 'ilse'").fetchone()
    assert tuple(row) == ("fictionalized_self", "meta_authorial")
    for bad, message in (({"kind": "alien"}, "unknown kind"), ({"domain": "dream"}, "domain"),
                         ({"name": "  "}, "empty"), ({"aliases": [""]}, "empty")):
        with pytest.raises(PulseError, match=message):
            mem.edit_entity("cafe", **bad)
    assert mem.edit_entity("cafe", name="Juniper") is None


def test_merge_by_hand_with_preview(mem: Memory) -> None:
    before = mem.digest()
    preview = mem.merge_preview("mark", "marc")
    assert preview["keep"]["name"] == "Mark" and preview["gone"]["name"] == "Marc"
    assert preview["moves"]["events"] == 1 and preview["moves"]["facts"] == 1
    assert preview["moves"]["relations_folded"] == 1     # both were Nadia's friends
    assert preview["aliases_added"] == ["Marc"] and preview["note"] is None
    assert mem.digest() == before                         # a preview writes nothing
    out = mem.merge_entities("mark", "marc")
    mark = mem.resolve_entity("mark")
    assert out["kept"] == mark
    assert mem.conn.execute("SELECT COUNT(*) FROM entities WHERE key = 'marc'").fetchone()[0] == 0
    assert mem.conn.execute("SELECT entity_id FROM event_entities WHERE event_id = ? AND"
                            " entity_id = ?", (mem.resolve_event("e3"), mark)).fetchone()
    assert mem.conn.execute("SELECT COUNT(*) FROM facts WHERE entity_id = ?",
                            (mark,)).fetchone()[0] == 2
    assert [tuple(r) for r in mem.conn.execute(
        "SELECT strength FROM relations WHERE kind = 'friend'")] == [(0.6,)]
    assert last_row(mem)["op"] == "entity.merge"
    undo_restores(mem, before, "entity.merge")


def test_merge_refusals(mem: Memory) -> None:
    before = mem.digest()
    with pytest.raises(PulseError, match="never merged"):
        mem.merge_preview("mark", "ilse")
    with pytest.raises(PulseError, match="never merged"):
        mem.merge_entities("ilse", "me")
    with pytest.raises(PulseError, match="itself"):
        mem.merge_entities("mark", "Marek")
    with pytest.raises(PulseError, match="no such entity") as refused:
        mem.merge_entities("mark", "Nobody")
    assert "forget" not in str(refused.value)     # a merge is not a forget
    assert mem.digest() == before
    note = mem.merge_preview("me", "cafe")["note"]
    assert "kinds differ" in note and "stays a person" in note


def test_merge_closes_the_importers_proposal(mem: Memory) -> None:
    from core.store.commands import execute

    mark, marc = mem.resolve_entity("mark"), mem.resolve_entity("marc")
    execute(mem.conn, actor="import", op="merge.propose", subject=f"entity:{mark}",
            changes=[{"t": "merge_proposals", "a": "insert", "row": {
                "id": 1, "keep_entity": mark, "merge_entity": marc, "similarity": 0.8,
                "status": "pending", "reason": ""}}])
    mem.merge_entities("marc", "mark")                     # the other way round, by hand
    assert mem.merge_proposals(None)[0]["status"] == "approved"


def test_split_an_alias_back_out(mem: Memory) -> None:
    before = mem.digest()
    preview = mem.split_alias_preview("mark", "marek")
    assert preview["alias"] == "Marek"
    assert [e["title"] for e in preview["events"]] == ["Marek left for Krakow"]
    assert preview["facts"] == []
    out = mem.split_alias("mark", "Marek")
    conn = mem.conn
    new = conn.execute("SELECT * FROM entities WHERE id = ?", (out["new_entity"],)).fetchone()
    assert new["canonical_name"] == "Marek" and new["kind"] == "person"
    assert json.loads(conn.execute("SELECT aliases FROM entities WHERE key = 'mark'"
                                   ).fetchone()[0]) == []
    linked = {r[0] for r in conn.execute("SELECT entity_id FROM event_entities WHERE"
                                         " event_id = ?", (mem.resolve_event("e2"),))}
    assert linked == {out["new_entity"]}
    assert last_row(mem)["op"] == "entity.split"
    undo_restores(mem, before, "entity.split")
    with pytest.raises(PulseError, match="no alias"):
        mem.split_alias("mark", "Mirek")


# -- chain links and relations ---------------------------------------------------------------------

def test_chain_links_add_reweight_remove(mem: Memory) -> None:
    before = mem.digest()
    mem.link_events("e1", "e3", kind="causal", strength=0.7)
    assert mem.conn.execute("SELECT kind, strength FROM event_chains WHERE parent_id = ? AND"
                            " child_id = ?", (mem.resolve_event("e1"), mem.resolve_event("e3"))
                            ).fetchone()[:] == ("causal", 0.7)
    assert last_row(mem)["op"] == "chain.add"
    undo_restores(mem, before, "chain.add")
    with pytest.raises(PulseError, match="cycle"):
        mem.link_events("e3", "e1")                       # e1 → e2 → e3 already
    with pytest.raises(PulseError, match="cycle"):
        mem.link_events("e2", "e2")
    with pytest.raises(PulseError, match="already exists"):
        mem.link_events("e1", "e2")
    with pytest.raises(PulseError, match="0..1"):
        mem.link_events("e1", "e4", strength=2)
    with pytest.raises(PulseError, match="link kind"):
        mem.link_events("e1", "e4", kind="because")
    assert mem.digest() == before
    mem.set_link("e1", "e2", strength=0.25, kind="temporal")
    assert last_row(mem)["op"] == "chain.set"
    undo_restores(mem, before, "chain.set")
    mem.unlink_events("e2", "e3")
    assert mem.conn.execute("SELECT COUNT(*) FROM event_chains").fetchone()[0] == 1
    assert last_row(mem)["op"] == "chain.remove"
    undo_restores(mem, before, "chain.remove")
    with pytest.raises(PulseError, match="no chain link"):
        mem.unlink_events("e1", "e4")


def test_relations_add_and_edit(mem: Memory) -> None:
    before = mem.digest()
    rel = mem.add_relation("mark", "cafe", "regular at", strength=0.4,
                           context="every Sunday")["relation"]
    row = mem.conn.execute("SELECT * FROM relations WHERE id = ?", (rel,)).fetchone()
    assert row["kind"] == "regular_at" and row["strength"] == 0.4
    undo_restores(mem, before, "relation.add")
    friend = mem.conn.execute("SELECT id FROM relations WHERE to_entity = ?",
                              (mem.resolve_entity("mark"),)).fetchone()[0]
    mem.edit_relation(friend, kind="ex partner of", strength=0.9, reverse=True)
    row = mem.conn.execute("SELECT * FROM relations WHERE id = ?", (friend,)).fetchone()
    assert row["kind"] == "ex_partner_of" and row["strength"] == 0.9
    assert row["from_entity"] == mem.resolve_entity("mark")
    assert last_row(mem)["op"] == "relation.edit"
    undo_restores(mem, before, "relation.edit")
    with pytest.raises(PulseError, match="already says"):
        mem.add_relation("me", "mark", "friend")
    with pytest.raises(PulseError, match="two different"):
        mem.add_relation("mark", "Marek", "friend")
    with pytest.raises(PulseError, match="0..1"):
        mem.edit_relation(friend, strength=-0.1)
    assert mem.digest() == before


def test_edits_show_in_the_items_history(mem: Memory) -> None:
    mem.set_emotions("e1", {"trust": 0.5})
    mem.set_belief("e1", domain="meta_authorial")
    event = mem.resolve_event("e1")
    ops = [r["op"] for r in mem.history(subject=f"event:{event}")]
    assert ops[:2] == ["event.set", "event.emotions"] and ops[-1] == "event.add"
    mem.undo()
    history = mem.history(subject=f"event:{event}")
    assert history[0]["op"] == "undo" and history[1]["undone"]
