"""Upkeep (docs/upkeep.md): every proposal kind with accept, undo and reject; archivable 0 and
axioms never proposed; dry runs write nothing; open questions with a TTL; knowledge gaps that
respect do_not_probe; the review queue with later."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.cli import main as cli
from core.errors import PulseError
from core.memory import Memory
from core.store.commands import execute

NOW = "2026-11-01T12:00:00Z"
DINNER = ("Ana and I had fish and chips at the harbour and talked for hours about her new job "
          "at the library.")


def upkeep_corpus() -> dict:
    ev = [
        {"key": "d1", "title": "Dinner with Ana at the harbour", "description": DINNER,
         "ts": "2026-05-10T18:00:00Z", "entities": ["p_ana"],
         "emotions": {"joy": 0.3, "trust": 0.5}},
        {"key": "d2", "title": "Harbour dinner with Ana", "ts": "2026-05-10T22:00:00Z",
         "description": "Had fish and chips with Ana at the harbour tonight; we talked for "
                        "hours about her new library job.", "entities": ["p_ana"],
         "emotions": {"joy": 0.9}},
        {"key": "d3", "title": "Dinner with Ana at the harbour", "description": DINNER,
         "ts": "2026-05-11T09:00:00Z", "entities": ["p_ana"], "archivable": 0},
        {"key": "a1", "title": "Dinner with Ana at the harbour", "description": DINNER,
         "ts": "2026-05-11T10:00:00Z", "entities": ["p_ana"], "belief_class": "axiom",
         "confidence_floor": 0.9},
        {"key": "c3", "title": "Ana starts at the library", "ts": "2026-06-01T09:00:00Z",
         "description": "Ana's first day at the library; she sent a photo of the stacks.",
         "entities": ["p_ana"], "parents": ["d2"]},
        {"key": "o1", "title": "Bought a new kettle", "ts": "2020-01-05T10:00:00Z",
         "description": "The old kettle finally broke."},
        {"key": "o2", "title": "Paid the gas bill", "ts": "2020-01-06T10:00:00Z",
         "description": "Paid it online.", "archivable": 0},
        {"key": "o3", "title": "Moved to the coast", "ts": "2020-01-07T10:00:00Z",
         "description": "Everything changed.", "belief_class": "axiom",
         "confidence_floor": 0.9},
        {"key": "o5", "title": "Repainted the hallway", "ts": "2026-10-01T10:00:00Z",
         "description": "Pale green."},
        {"key": "h1", "title": "Maybe the harbour dinners are how I rest",
         "ts": "2025-01-01T10:00:00Z", "belief_class": "hypothesis",
         "description": "A guess: the dinners may be my way of resting."},
        {"key": "h2", "title": "Maybe I miss the city", "ts": "2026-10-15T10:00:00Z",
         "belief_class": "hypothesis", "description": "A guess: I may miss the city."},
        {"key": "h3", "title": "Maybe the move was running away", "ts": "2024-01-01T10:00:00Z",
         "belief_class": "hypothesis", "archivable": 0,
         "description": "A guess, kept on purpose."},
    ]
    for i, who in enumerate(("n_cafe", "n_cafe", "n_cafe", "p_greg", "n_secret", "n_secret",
                             "n_secret", "p_kim", "p_kim", "p_kim", "p_ben")):
        ev.append({"key": f"m{i}", "title": f"Mention {i}", "ts": f"2026-0{1 + i % 8}-0{1 + i % 9}",
                   "description": f"An ordinary day number {i}.", "entities": [who]})
    return {"format": "pulse-corpus/1", "entities": [
        {"key": "p_me", "name": "Robin Vale", "kind": "person"},
        {"key": "p_ana", "name": "Ana Ruiz", "kind": "person"},
        {"key": "p_ben", "name": "Ben Vale", "kind": "person"},
        {"key": "p_greg", "name": "Greg Holm", "kind": "person"},
        {"key": "p_kim", "name": "Kim Sato", "kind": "person"},
        {"key": "n_cafe", "name": "The Blue Cup", "kind": "place"},
        {"key": "n_secret", "name": "Elm Clinic", "kind": "place"},
        {"key": "b_kim", "name": "Boundary: Kim", "kind": "safety_boundary"}],
        "relations": [{"from": "p_ben", "to": "p_me", "kind": "sibling_of"},
                      {"from": "p_ana", "to": "p_me", "kind": "friend_of"},
                      {"from": "b_kim", "to": "p_kim", "kind": "protects"}],
        "facts": [{"entity": "p_ben", "text": "Ben is Robin's brother."},
                  {"entity": "p_ana", "text": "Ana works at the library."}],
        "events": ev}


def set_entity(memory: Memory, key: str, **fields) -> None:
    row = memory.conn.execute("SELECT * FROM entities WHERE key = ?", (key,)).fetchone()
    execute(memory.conn, actor="manual", op="test.entity", subject=f"entity:{row['id']}",
            changes=[{"t": "entities", "a": "update", "pk": {"id": row["id"]}, "set": fields,
                      "old": {k: row[k] for k in fields}}])


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("upkeep") / "base.db"
    with Memory.open(path, create=True) as memory:
        memory.import_corpus(upkeep_corpus())
        set_entity(memory, "p_me", is_self=1)
        set_entity(memory, "n_secret", do_not_probe=1)
        set_entity(memory, "b_kim", do_not_probe=1)
        memory.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


@pytest.fixture
def mem(built: Path, tmp_path: Path):
    path = tmp_path / "m.db"
    shutil.copy(built, path)
    with Memory.open(path) as memory:
        yield memory


def eid(memory: Memory, key: str) -> int:
    return memory.resolve_event(key)


def proposals(memory: Memory, status: str | None = "pending") -> dict:
    out: dict = {}
    for p in memory.upkeep_proposals(status):
        out.setdefault(p["kind"], []).append(p)
    return out


def test_dry_run_writes_nothing_then_upkeep_is_one_undoable_row(mem: Memory) -> None:
    digest, head = mem.digest(), mem.stats()["journal_head"]
    dry = mem.upkeep(dry_run=True, now=NOW)
    assert mem.digest() == digest and mem.stats()["journal_head"] == head
    merges = dry["proposed"]["event_merge"]
    assert [(m["keep_event"], m["event_id"]) for m in merges] == [(eid(mem, "d1"), eid(mem, "d2"))]
    assert {a["event_id"] for a in dry["proposed"]["archive"]} == {eid(mem, "o1")}
    assert [d["event_id"] for d in dry["proposed"]["dismiss"]] == [eid(mem, "h1")]
    out = mem.upkeep(now=NOW)
    assert out["proposed"] == dry["proposed"]
    ops = [r[0] for r in mem.conn.execute("SELECT op FROM journal WHERE seq > ?", (head,))]
    assert ops[0] == "upkeep" and set(ops[1:]) <= {"storyline.refresh"}
    assert sum(len(v) for v in proposals(mem).values()) == 3
    again = mem.upkeep(now=NOW)                         # nothing new the second time
    assert all(v == [] for v in again["proposed"].values())
    mem.undo()
    assert proposals(mem) == {}


def test_archivable_zero_and_axioms_are_never_proposed(mem: Memory) -> None:
    pinned = {eid(mem, k) for k in ("d3", "a1", "o2", "o3", "h3")}
    mem.upkeep(now=NOW)
    touched = {p[c] for p in mem.upkeep_proposals(None) for c in ("event_id", "keep_event")}
    assert not touched & pinned
    # pinning an event after it was proposed: the proposal goes obsolete, never acts
    mem.set_belief("d2", archivable=0)
    (merge,) = proposals(mem)["event_merge"]
    with pytest.raises(PulseError, match="out of date"):
        mem.review(f"event_merge:{merge['id']}", "accept", now=NOW)
    assert mem.event("d2")["absorbed_into"] is None
    assert proposals(mem, "obsolete")["event_merge"][0]["id"] == merge["id"]
    # the store itself refuses to archive a pinned row
    from core.store.commands import execute as run

    with pytest.raises(Exception, match="CHECK"):
        run(mem.conn, actor="manual", op="x", subject="x", changes=[
            {"t": "events", "a": "update", "pk": {"id": eid(mem, "o2")}, "set": {"archived": 1},
             "old": {"archived": 0}}])


def test_demo_upkeep_never_touches_pinned_rows(demo_db: Path, tmp_path: Path) -> None:
    path = tmp_path / "demo.db"
    shutil.copy(demo_db, path)
    with Memory.open(path) as memory:
        memory.upkeep(now=NOW)
        pinned = {r[0] for r in memory.conn.execute(
            "SELECT id FROM events WHERE archivable = 0 OR belief_class = 'axiom'")}
        touched = {p[c] for p in memory.upkeep_proposals(None)
                   for c in ("event_id", "keep_event")}
        assert pinned and not touched & pinned
        assert proposals(memory).get("archive") and proposals(memory).get("dismiss")


def test_event_merge_accept_moves_everything_and_undo_restores(mem: Memory) -> None:
    mem.upkeep(now=NOW)
    d1, d2, c3 = eid(mem, "d1"), eid(mem, "d2"), eid(mem, "c3")
    (merge,) = proposals(mem)["event_merge"]
    digest = mem.digest()
    evidence = {r[0] for r in mem.conn.execute(
        "SELECT observation_id FROM evidence WHERE row_kind = 'event' AND row_id IN (?, ?)",
        (d1, d2))}
    out = mem.review(f"event_merge:{merge['id']}", "accept", now=NOW)
    assert out["status"] == "accepted"
    assert mem.event(d2)["absorbed_into"] == d1 and mem.event(d1)["absorbed_into"] is None
    assert {r[0] for r in mem.conn.execute("SELECT observation_id FROM evidence WHERE "
                                           "row_kind = 'event' AND row_id = ?", (d1,))} == evidence
    emo = mem.conn.execute("SELECT joy, trust FROM event_emotions WHERE event_id = ?",
                           (d1,)).fetchone()
    assert tuple(emo) == (pytest.approx(0.9), pytest.approx(0.5))
    links = {tuple(r) for r in mem.conn.execute("SELECT parent_id, child_id FROM event_chains")}
    assert (d1, c3) in links and not any(d2 in link for link in links)
    hits = [r["id"] for r in mem.retrieve("harbour dinner with Ana", top_k=10, now=NOW)["results"]]
    assert d2 not in hits and d1 in hits
    mem.undo()
    assert mem.digest() == digest and mem.event(d2)["absorbed_into"] is None
    mem.redo()
    assert mem.event(d2)["absorbed_into"] == d1


def test_event_merge_reject_is_remembered(mem: Memory) -> None:
    mem.upkeep(now=NOW)
    (merge,) = proposals(mem)["event_merge"]
    mem.review(f"event_merge:{merge['id']}", "reject", now=NOW)
    assert mem.event("d2")["absorbed_into"] is None
    assert mem.upkeep(now=NOW)["proposed"]["event_merge"] == []       # not proposed again
    mem.undo()                                    # the upkeep run (nothing) … then the reject
    assert proposals(mem)["event_merge"][0]["status"] == "pending"


def test_archive_accept_undo_reject(mem: Memory) -> None:
    mem.upkeep(now=NOW)
    o1 = eid(mem, "o1")
    (archive,) = proposals(mem)["archive"]
    digest = mem.digest()
    mem.review(f"archive:{archive['id']}", "accept", now=NOW)
    assert mem.event(o1)["archived"] == 1
    assert o1 not in [r["id"] for r in mem.retrieve("new kettle", top_k=20,
                                                    scorer="hybrid")["results"]]
    assert "Bought a new kettle" not in mem.brief(20000, now=NOW)["text"]
    with pytest.raises(PulseError, match="archived"):
        mem.pin(o1)                                   # restore it before pinning it
    mem.undo()
    assert mem.digest() == digest and mem.event(o1)["archived"] == 0
    mem.review(f"archive:{archive['id']}", "accept", now=NOW)
    mem.set_belief("o5", user_flag=1)              # a later action: undo would take that first
    assert mem.restore(o1)["seq"] and mem.event(o1)["archived"] == 0
    with pytest.raises(PulseError, match="not archived"):
        mem.restore(o1)
    mem.undo()                                     # the restore
    assert mem.event(o1)["archived"] == 1


def test_archive_reject(mem: Memory) -> None:
    mem.upkeep(now=NOW)
    o1 = eid(mem, "o1")
    (archive,) = proposals(mem)["archive"]
    mem.review(f"archive:{archive['id']}", "reject", now=NOW)
    assert mem.event(o1)["archived"] == 0 and proposals(mem, "rejected")["archive"]


def test_open_questions_expire_into_dismissal_proposals(mem: Memory) -> None:
    qs = {q["key"]: q for q in mem.open_questions(now=NOW)}
    assert set(qs) == {"h1", "h2", "h3"}
    assert qs["h1"]["expired"] and not qs["h2"]["expired"] and qs["h3"]["pinned"]
    assert qs["h2"]["ttl_days"] == 90 and qs["h2"]["expires_at"].startswith("2027-01-13")
    mem.upkeep(now=NOW)
    (dismiss,) = proposals(mem)["dismiss"]
    assert dismiss["event_id"] == eid(mem, "h1")        # the pinned h3 is never proposed
    digest = mem.digest()
    mem.review(f"dismiss:{dismiss['id']}", "accept", now=NOW)
    assert mem.event("h1")["archived"] == 1 and mem.event("h1")["belief_class"] == "hypothesis"
    assert "h1" not in {q["key"] for q in mem.open_questions(now=NOW)}
    mem.undo()
    assert mem.digest() == digest
    # keeping it open restarts its clock: no proposal until another TTL has passed
    mem.review(f"dismiss:{dismiss['id']}", "reject", now=NOW)
    h1 = {q["key"]: q for q in mem.open_questions(now=NOW)}["h1"]
    assert not h1["expired"] and h1["clock_from"] == NOW
    assert mem.upkeep(now="2026-12-01T12:00:00Z")["proposed"]["dismiss"] == []
    later = mem.upkeep(now="2027-03-15T12:00:00Z")["proposed"]["dismiss"]
    assert [d["event_id"] for d in later] == [eid(mem, "h1"), eid(mem, "h2")]
    # the TTL is a setting
    out = mem.set_upkeep_settings(question_ttl_days=10)
    assert out["question_ttl_days"] == 10 and out["journal_seq"]
    assert {q["key"]: q for q in mem.open_questions(now=NOW)}["h2"]["expired"]
    assert mem.set_upkeep_settings(question_ttl_days=10)["journal_seq"] is None   # no change
    mem.undo()                                      # a settings change is journaled, undoable
    assert mem.upkeep_settings()["question_ttl_days"] == 90
    mem.redo()
    with pytest.raises(PulseError):
        mem.set_upkeep_settings(question_ttl_days=-1)
    # a count is a whole number: 2.5 is refused, not quietly stored as 2
    with pytest.raises(PulseError, match="gap_min_events must be a whole number"):
        mem.set_upkeep_settings(gap_min_events=2.5)
    assert mem.set_upkeep_settings(gap_min_events=2.0)["gap_min_events"] == 2


def test_an_unknown_extractor_alias_writes_nothing(mem: Memory, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # the proposals were written, then the alias failed: exit 1 over a changed memory
    models = tmp_path / "models.json"
    models.write_text('{"models": {"x": {"provider": "anthropic", "model": "m", '
                      '"api_key_env": "S9_TEST_KEY", "max_tokens": 10, "temperature": 0}}}')
    monkeypatch.setenv("PULSE_MODELS_PATH", str(models))
    monkeypatch.setenv("S9_TEST_KEY", "k")
    head, digest = mem.stats()["journal_head"], mem.digest()
    with pytest.raises(PulseError, match="no model alias 'nope'"):
        mem.upkeep(now=NOW, extractor="nope")
    assert (mem.stats()["journal_head"], mem.digest()) == (head, digest)


def test_confirm_and_dismiss_directly(mem: Memory) -> None:
    out = mem.confirm_question("h2", "self_model")
    assert mem.event("h2")["belief_class"] == "self_model" and out["seq"]
    mem.undo()
    assert mem.event("h2")["belief_class"] == "hypothesis"
    mem.dismiss_question("h2", now=NOW)
    assert mem.event("h2")["archived"] == 1
    mem.undo()
    with pytest.raises(PulseError, match="not an open question"):
        mem.confirm_question("d1")
    with pytest.raises(PulseError, match="user_model or self_model|one of"):
        mem.confirm_question("h2", "axiom")
    with pytest.raises(PulseError, match="pinned"):
        mem.dismiss_question("h3")


def test_knowledge_gaps_respect_do_not_probe(mem: Memory) -> None:
    gaps = {g["name"]: g for g in mem.knowledge_gaps()}
    assert gaps["The Blue Cup"]["reasons"] == ["no_facts"]
    assert gaps["Greg Holm"]["reasons"] == ["no_relation"]
    assert "Ben Vale" not in gaps and "Ana Ruiz" not in gaps        # related, facts known
    assert "Elm Clinic" not in gaps                                  # do_not_probe
    assert "Kim Sato" not in gaps                                    # behind a boundary
    text = mem.brief(20000, now=NOW)["text"]
    section = text.split("YOU MIGHT ASK ABOUT", 1)[1]
    assert "The Blue Cup" in section and "Greg Holm" in section
    assert "Elm Clinic" not in section and "Kim Sato" not in section
    assert "don't probe: Elm Clinic" in text       # a boundary is stated, never asked about
    mem.review(f"gap:{gaps['Greg Holm']['entity']}", "reject", now=NOW)
    assert mem.conn.execute("SELECT do_not_probe FROM entities WHERE key = 'p_greg'"
                            ).fetchone()[0] == 1
    text = mem.brief(20000, now=NOW)["text"]
    assert "Greg Holm" not in text.split("YOU MIGHT ASK ABOUT", 1)[-1]
    assert "don't probe: Greg Holm" in text        # rejected: a boundary from now on
    mem.undo()
    assert "Greg Holm" in {g["name"] for g in mem.knowledge_gaps()}


@pytest.mark.parametrize("limit", [0, -1])
def test_a_gap_limit_below_one_is_refused(mem: Memory, limit: int) -> None:
    # 0 read as "no knowledge gaps", -1 as "all but the last"
    assert len(mem.knowledge_gaps(limit=1)) == 1
    with pytest.raises(PulseError, match=f"limit must be at least 1, got {limit}"):
        mem.knowledge_gaps(limit=limit)


@pytest.mark.parametrize("ttl", [0, -5])
def test_a_question_ttl_out_of_range_is_refused_when_listing(mem: Memory, ttl: int) -> None:
    # as `upkeep --ttl-days` and the stored setting are: 1..36500 days
    with pytest.raises(PulseError, match="question_ttl_days must be in 1..36500"):
        mem.open_questions(now=NOW, ttl_days=ttl)


def test_review_queue_kinds_later_and_count(mem: Memory) -> None:
    mem.upkeep(now=NOW)
    items = mem.review_queue(now=NOW)
    kinds = [i["kind"] for i in items]
    assert kinds == sorted(kinds, key=["entity_merge", "event_merge", "dismiss", "archive",
                                       "gap", "glossary"].index)
    assert {"event_merge", "dismiss", "archive", "gap"} <= set(kinds)
    assert mem.review_count(now=NOW) == len(items)
    ref = next(i["ref"] for i in items if i["kind"] == "archive")
    out = mem.review(ref, "later", now=NOW)
    assert out["until"] == "2026-11-08T12:00:00Z"
    assert ref not in {i["ref"] for i in mem.review_queue(now=NOW)}
    assert ref in {i["ref"] for i in mem.review_queue(now="2026-11-09T00:00:00Z")}
    mem.undo()
    assert ref in {i["ref"] for i in mem.review_queue(now=NOW)}
    wrong_kind = "dismiss:" + ref.split(":")[1]          # an archive proposal's id
    for bad, action in (("event_merge:999", "later"), ("nonsense", "accept"),
                        (ref, "maybe"), (wrong_kind, "accept")):
        with pytest.raises(PulseError):
            mem.review(bad, action, now=NOW)
    # a kind that does not exist is named, not answered with an empty queue
    with pytest.raises(PulseError, match="unknown review kind 'archives'"):
        mem.review_queue(now=NOW, kinds=["archives"])


def test_entity_merge_from_the_queue(mem: Memory) -> None:
    ids = {r[0]: r[1] for r in mem.conn.execute("SELECT key, id FROM entities")}
    execute(mem.conn, actor="import", op="test.propose", subject="x", changes=[
        {"t": "merge_proposals", "a": "insert", "row": {
            "id": 1, "keep_entity": ids["p_ben"], "merge_entity": ids["p_greg"],
            "similarity": 0.8, "status": "pending", "reason": "test"}}])
    (item,) = mem.review_queue(now=NOW, kinds=["entity_merge"])
    assert item["ref"] == "entity_merge:1" and "Greg Holm" in item["title"]
    mem.review("entity_merge:1", "accept", now=NOW)
    assert mem.conn.execute("SELECT COUNT(*) FROM entities WHERE key = 'p_greg'"
                            ).fetchone()[0] == 0
    mem.undo()
    mem.review("entity_merge:1", "reject", now=NOW)
    assert mem.merge_proposals("rejected")[0]["id"] == 1


def test_cli_upkeep_review_questions_gaps(mem: Memory, capsys) -> None:
    import json

    path = str(mem.path)
    mem.close()
    assert cli(["--db", path, "upkeep", "--dry-run", "--now", NOW, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dry_run"] is True
    assert cli(["--db", path, "upkeep", "--now", NOW]) == 0
    assert "proposed: 1 event merges" in capsys.readouterr().out
    assert cli(["--db", path, "review", "list", "--now", NOW, "--json"]) == 0
    items = json.loads(capsys.readouterr().out)["items"]
    assert cli(["--db", path, "review", "accept", items[0]["ref"], "--now", NOW]) == 0
    capsys.readouterr()
    assert cli(["--db", path, "questions", "list", "--now", NOW, "--json"]) == 0
    assert {q["key"] for q in json.loads(capsys.readouterr().out)["questions"]} >= {"h2"}
    assert cli(["--db", path, "questions", "confirm", "h2", "--as", "self_model"]) == 0
    assert cli(["--db", path, "gaps", "--json"]) == 0
    assert "The Blue Cup" in capsys.readouterr().out
    assert cli(["--db", path, "upkeep-settings", "question_ttl_days=30", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["question_ttl_days"] == 30
    assert cli(["--db", path, "upkeep-settings", "nonsense=1"]) == 1
    assert "unknown upkeep setting" in capsys.readouterr().err
    assert cli(["--db", path, "review", "accept", "archive:999"]) == 1
    assert cli(["--db", path, "verify"]) == 0
