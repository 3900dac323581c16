"""The `pulse` command line: JSON shapes, exit codes, and one clear line for bad input."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

NOW = "2026-11-01T12:00:00Z"


def pulse(*args: str, db: Path | None = None, stdin: str | None = None
          ) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "core.cli"]
    if db is not None:
        cmd += ["--db", str(db)]
    return subprocess.run(cmd + list(args), capture_output=True, text=True, input=stdin,
                          timeout=120)


def assert_one_line_error(result: subprocess.CompletedProcess, *needles: str) -> None:
    assert result.returncode == 1, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in lines[0]


def test_init_is_idempotent(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    assert pulse("init", db=db).returncode == 0
    assert pulse("init", db=db).returncode == 0
    stats = json.loads(pulse("stats", "--json", db=db).stdout)
    assert stats["counts"]["events"] == 0


def test_retrieve_json_shape(demo_copy: Path) -> None:
    result = pulse("retrieve", "feeling abandoned", "--json", "--now", NOW, "--top-k", "3",
                   db=demo_copy)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert set(out) >= {"query", "effective_query", "scorer", "now", "gates", "results",
                        "abstained", "abstain_reason", "evidence"}
    assert set(out["gates"]) == {"emotion", "state", "date_ref_days", "hint"}
    assert out["now"] == NOW and out["scorer"] == "pulse" and len(out["results"]) == 3
    assert out["abstained"] is False and out["abstain_reason"] is None
    r = out["results"][0]
    assert set(r) >= {"id", "key", "title", "text", "ts", "belief_class", "domain", "user_flag",
                      "score", "terms", "sources"}
    assert set(r["terms"]) >= {"cosine", "relevance", "days_ago", "lambda", "recency",
                               "confidence_floor", "recency_eff", "floor_applied", "alpha",
                               "recency_factor", "emotion", "state", "anchor", "date",
                               "dense_relevance", "bm25", "bm25_norm", "fusion_dense_weight",
                               "context_relevance", "context_weight"}
    assert r["sources"] and r["sources"][0]["source_kind"] == "pulse-corpus"
    assert r["via_chain"] is None


def test_nothing_relevant_is_said_plainly(demo_copy: Path) -> None:
    human = pulse("retrieve", "xqzv blorf quantum lasagna", "--now", NOW, db=demo_copy)
    assert human.returncode == 0, human.stderr
    assert "nothing relevant: the closest event's cosine" in human.stdout
    assert "--no-abstain" in human.stdout
    # by storyline too: the reason, not a bare "(no results)"
    stories = pulse("retrieve", "xqzv blorf quantum lasagna", "--storylines", "--now", NOW,
                    db=demo_copy)
    assert "nothing relevant: the closest event's cosine" in stories.stdout, stories.stdout
    out = json.loads(pulse("retrieve", "xqzv blorf quantum lasagna", "--json", "--now", NOW,
                           db=demo_copy).stdout)
    assert out["abstained"] is True and out["results"] == []
    assert out["abstain_reason"].startswith("nothing relevant:")
    forced = json.loads(pulse("retrieve", "xqzv blorf quantum lasagna", "--json", "--now", NOW,
                              "--no-abstain", "--top-k", "3", db=demo_copy).stdout)
    assert forced["abstained"] is False and len(forced["results"]) == 3
    old = json.loads(pulse("retrieve", "feeling abandoned", "--json", "--now", NOW,
                           "--scorer", "v3", db=demo_copy).stdout)
    assert old["scorer"] == "dense"


def test_chain_and_why_from_the_command_line(demo_copy: Path) -> None:
    story = pulse("retrieve", "what led to my burnout diagnosis", "--chain", "--top-k", "5",
                  "--now", NOW, db=demo_copy)
    assert story.returncode == 0, story.stderr
    lines = story.stdout.splitlines()
    assert "[e031]" in lines[1] and "(via chain: a cause)" in lines[1]
    assert "[e042]" in lines[4]
    why = pulse("why", "e042", db=demo_copy)
    assert why.returncode == 0, why.stderr
    assert why.stdout.splitlines()[0] == "what led to e042 2021-11-08 Burnout diagnosis"
    assert [line.split()[0] for line in why.stdout.splitlines()[1:]] == ["e031", "e035", "e041"]
    out = json.loads(pulse("why", "--query", "my panic attack at work", "--json", db=demo_copy,
                           ).stdout)
    assert out["event"]["key"] == "e041" and [c["key"] for c in out["causes"]] == \
        ["e031", "e035"]
    bad = pulse("why", db=demo_copy)
    assert bad.returncode == 1 and "give an EVENT or --query" in bad.stderr


def test_state_from_stdin_and_batch(demo_copy: Path) -> None:
    state = json.dumps({"mood_vector": {"shame": 0.8}, "stress_proxy": 0.7})
    single = json.loads(pulse("retrieve", "my father", "--json", "--now", NOW, "--state", "-",
                              db=demo_copy, stdin=state).stdout)
    assert single["gates"]["emotion"] is True and single["gates"]["state"] == "stressed"
    lines = [{"query": "my father", "now": NOW, "state": json.loads(state)},
             {"query": "coffee", "now": NOW, "scorer": "bm25", "top_k": 2}]
    batch = pulse("retrieve", "--batch", "-", db=demo_copy,
                  stdin="\n".join(json.dumps(x) for x in lines))
    assert batch.returncode == 0, batch.stderr
    outs = [json.loads(line) for line in batch.stdout.splitlines()]
    assert [o["scorer"] for o in outs] == ["pulse", "bm25"]
    assert outs[0]["results"] == single["results"]
    assert len(outs[1]["results"]) == 2


def test_batch_bad_line_is_named(demo_copy: Path) -> None:
    result = pulse("retrieve", "--batch", "-", db=demo_copy,
                   stdin=f'{{"query": "coffee", "now": "{NOW}"}}\n{{"qury": "x"}}\n')
    assert result.returncode == 1
    assert "batch line 2" in result.stderr
    outs = [json.loads(line) for line in result.stdout.splitlines()]
    assert outs[0]["results"] and outs[1] == {"line": 2, "error": outs[1]["error"]}


def test_batch_takes_the_command_line_options_as_defaults(demo_copy: Path) -> None:
    # --top-k, --now, --scorer… were silently ignored with --batch
    lines = [{"query": "coffee"}, {"query": "coffee", "top_k": 2, "scorer": "pulse"}]
    result = pulse("retrieve", "--batch", "-", "--top-k", "1", "--now", NOW, "--scorer", "bm25",
                   db=demo_copy, stdin="\n".join(json.dumps(x) for x in lines))
    assert result.returncode == 0, result.stderr
    outs = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(len(o["results"]), o["scorer"], o["now"]) for o in outs] == \
        [(1, "bm25", NOW), (2, "pulse", NOW)]
    both = pulse("retrieve", "coffee", "--batch", "-", db=demo_copy, stdin="")
    assert_one_line_error(both, "QUERY", "--batch")


def test_explain_an_event_by_key(demo_copy: Path) -> None:
    out = json.loads(pulse("explain", "e004", "--query", "coffee", "--json", "--now", NOW,
                           db=demo_copy).stdout)
    assert out["result"]["key"] == "e004" and "terms" in out["result"]


def test_set_and_pin_are_journaled_and_invariants_hold(demo_copy: Path) -> None:
    ok = pulse("set", "e010", "--floor", "0.3", "--json", db=demo_copy)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["confidence_floor"] == 0.3
    refused = pulse("set", "e010", "--class", "axiom", "--floor", "0.2", "--archivable", "0",
                    db=demo_copy)
    assert_one_line_error(refused, "axiom", "0.5")
    refused = pulse("set", "e010", "--class", "axiom", db=demo_copy)
    assert_one_line_error(refused, "axiom")
    pinned = json.loads(pulse("pin", "e010", "--json", db=demo_copy).stdout)
    assert (pinned["belief_class"], pinned["archivable"], pinned["user_flag"],
            pinned["provenance"]) == ("axiom", 0, 1, "manual")
    assert pinned["confidence_floor"] >= 0.85
    # a pinned core wound cannot be made archivable again
    assert_one_line_error(pulse("set", "e010", "--archivable", "1", db=demo_copy),
                          "non-archivable")
    assert pulse("verify", db=demo_copy).returncode == 0


def test_an_old_version_is_not_edited_in_place_of_the_new(demo_copy: Path) -> None:
    # after `retext`, the old id still took a pin, a floor or emotions: exit 0, yet the event
    # recalled (the new version) was left as it was
    new = json.loads(pulse("retext", "e010", "--title", "Second version", "--json",
                           db=demo_copy).stdout)["event"]
    head = json.loads(pulse("verify", "--json", db=demo_copy).stdout)["rows"]
    for args in (["pin", "10"], ["set", "10", "--floor", "0.4"], ["emotions", "10", "joy=0.5"]):
        assert_one_line_error(pulse(*args, db=demo_copy), "event 10", f"event {new}")
    assert json.loads(pulse("verify", "--json", db=demo_copy).stdout)["rows"] == head
    pinned = json.loads(pulse("pin", "e010", "--json", db=demo_copy).stdout)
    assert pinned["event"] == new and pinned["belief_class"] == "axiom"
    # nor is a new chain link made to it (`why` then showed the old version as a cause)
    assert_one_line_error(pulse("link", "10", "e041", db=demo_copy), "event 10", f"event {new}")


@pytest.mark.parametrize("args,needles", [
    (["retrieve", "x", "--now", "soon"], ["ISO-8601"]),
    (["retrieve", "x", "--state", "/nonexistent/state.json"], ["cannot read"]),
    (["retrieve", "x", "--domains", "dreams"], ["unknown domain"]),
    (["set", "e999999", "--floor", "0.2"], ["no event"]),
    (["set", "e010", "--floor", "1.5"], ["confidence_floor"]),
    (["set", "e010"], ["nothing to set"]),
    (["embed", "--model", "no-such-model"], ["unknown embedding model"]),
])
def test_bad_input_is_one_line_and_exit_1(demo_copy: Path, args: list[str],
                                          needles: list[str]) -> None:
    assert_one_line_error(pulse(*args, db=demo_copy), *needles)


@pytest.mark.parametrize("top_k", ["0", "-3", "1001"])
def test_top_k_out_of_range_is_refused_with_the_number_given(demo_copy: Path,
                                                             top_k: str) -> None:
    # the demo has events behind a boundary: they must not shift the range checked or quoted
    assert_one_line_error(pulse("retrieve", "coffee", "--top-k", top_k, "--now", NOW,
                                db=demo_copy), "top_k", f"got {top_k}")


def test_top_k_of_1000_is_accepted_beside_a_boundary(demo_copy: Path) -> None:
    result = pulse("retrieve", "coffee", "--top-k", "1000", "--json", "--now", NOW,
                   db=demo_copy)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["results"]


def test_batch_line_with_a_bad_top_k_is_named_and_the_rest_still_runs(demo_copy: Path) -> None:
    lines = [{"query": "coffee", "top_k": "5"}, {"query": "coffee", "top_k": 0},
             {"query": "coffee", "now": NOW, "top_k": 1}]
    result = pulse("retrieve", "--batch", "-", db=demo_copy,
                   stdin="\n".join(json.dumps(x) for x in lines))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    outs = [json.loads(line) for line in result.stdout.splitlines()]
    assert [o.get("line") for o in outs] == [1, 2, None]
    assert "top_k" in outs[0]["error"] and "top_k" in outs[1]["error"]
    assert len(outs[2]["results"]) == 1


@pytest.mark.parametrize("line,needle", [
    ({"query": "coffee", "now": 5}, "now"),
    ({"query": "coffee", "domains": 5}, "domains"),
    ({"query": "coffee", "chain": "no"}, "chain"),
    ({"query": "coffee", "abstain": "false"}, "abstain"),
    ({"query": 5}, "query"),
    ({"query": "coffee", "state": "calm"}, "state"),
])
def test_batch_line_of_the_wrong_type_is_named_not_a_crash(demo_copy: Path, line: dict,
                                                           needle: str) -> None:
    stdin = json.dumps(line) + "\n" + json.dumps({"query": "coffee", "now": NOW, "top_k": 1})
    result = pulse("retrieve", "--batch", "-", db=demo_copy, stdin=stdin)
    assert result.returncode == 1 and "unexpected" not in result.stderr, result.stderr
    outs = [json.loads(out) for out in result.stdout.splitlines()]
    assert outs[0]["line"] == 1 and needle in outs[0]["error"]
    assert len(outs[1]["results"]) == 1


def test_export_html_with_a_negative_seed_is_named_and_writes_nothing(demo_copy: Path,
                                                                     tmp_path: Path) -> None:
    out = tmp_path / "viewer.html"
    result = pulse("export-html", "--out", str(out), "--seed", "-1", db=demo_copy)
    assert_one_line_error(result, "seed", "-1")
    assert "unexpected" not in result.stderr and not out.exists()


@pytest.mark.parametrize("args", [["journal", "export"], ["ledger", "export"],
                                  ["export-html", "--out"]])
def test_an_export_never_overwrites_another_memory(demo_copy: Path, tmp_path: Path,
                                                   args: list[str]) -> None:
    # `pulse journal export pulse.db`, OUT taken for the memory to read: it replaced that memory
    other = tmp_path / "other.db"
    shutil.copy(demo_copy, other)
    before = other.read_bytes()
    assert_one_line_error(pulse(*args, str(other), db=demo_copy), str(other), "database")
    assert other.read_bytes() == before


@pytest.mark.parametrize("args", [["journal", "export"], ["ledger", "export"],
                                  ["export-html", "--out"]])
def test_an_export_never_overwrites_an_encrypted_memory(demo_copy: Path, tmp_path: Path,
                                                        args: list[str]) -> None:
    # SQLCipher's file starts with a random salt, not SQLite's header: known as binary instead
    from core.memory import Memory

    other = tmp_path / "locked.db"
    with Memory.open(other, create=True, encrypt=True, passphrase="a secret"):
        pass
    before = other.read_bytes()
    assert_one_line_error(pulse(*args, str(other), db=demo_copy), str(other), "binary")
    assert other.read_bytes() == before


def test_an_earlier_export_is_replaced(demo_copy: Path, tmp_path: Path) -> None:
    # text (a journal, a page, a note in any language) and sealed files stay replaceable
    out = tmp_path / "journal.jsonl"
    out.write_text("x" + "старый журнал — " * 200, encoding="utf-8")  # a letter cut at 1024 bytes
    assert pulse("journal", "export", str(out), db=demo_copy).returncode == 0
    assert out.read_text(encoding="utf-8").startswith("{")
    sealed = tmp_path / "sealed.jsonl"
    sealed.write_bytes(b'{"format": "pulse-sealed/1", "content": "journal"}\n\x93\xff\x00')
    assert pulse("journal", "export", str(sealed), db=demo_copy).returncode == 0
    assert sealed.read_bytes().startswith(b"{")


def test_entity_alias_given_twice_keeps_both(demo_copy: Path) -> None:
    # `--alias A --alias B` kept only B: the other aliases were dropped without a word
    result = pulse("entity", "p_grandma", "--alias", "Baba Vera", "--alias", "Grandma",
                   db=demo_copy)
    assert result.returncode == 0, result.stderr
    from core.memory import Memory

    with Memory.open(demo_copy, read_only=True) as memory:
        aliases = memory.conn.execute("SELECT aliases FROM entities WHERE key = 'p_grandma'"
                                      ).fetchone()[0]
    assert json.loads(aliases) == ["Baba Vera", "Grandma"]


def test_list_options_given_twice_keep_every_value(demo_copy: Path) -> None:
    # argparse kept only the last: `--keep event:25 --keep event:26` erased event 25
    preview = json.loads(pulse("forget", "entity:p_grandma", "--cascade", "--dry-run", "--json",
                               "--keep", "event:25", "--keep", "event:26", db=demo_copy).stdout)
    assert not {"event:25", "event:26"} & {i["ref"] for i in preview["items"]}
    out = json.loads(pulse("correct", "--withdrawn", "$49", "--withdrawn", "$59",
                           "--replacement", "$29", "--note", "price", "--json",
                           db=demo_copy).stdout)
    assert out["withdrawn"] == ["$49", "$59"]


def test_bad_option_value_is_a_usage_error_not_a_traceback(demo_copy: Path) -> None:
    result = pulse("retrieve", "x", "--scorer", "magic", db=demo_copy)
    assert result.returncode == 1
    assert "invalid choice" in result.stderr and "Traceback" not in result.stderr
    # one clear line (CLI.md), not the usage block before it
    for args in (["retrieve", "x", "--scorer", "magic"], ["retrieve", "x", "--top-k", "abc"],
                 ["set", "e010", "--archivable", "2"], ["frobnicate"], ["recalls", "show", "x"]):
        assert_one_line_error(pulse(*args, db=demo_copy), "pulse", "--help")


def test_bad_state_file_names_the_field(demo_copy: Path, tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text('{"mood_vector": {"shame": "very"}}', encoding="utf-8")
    assert_one_line_error(pulse("retrieve", "x", "--state", str(state), db=demo_copy),
                          "mood_vector.shame")
    # JSON that Python reads as NaN or infinity passed every range check
    for text, field in (('{"stress_proxy": NaN}', "stress_proxy"), ('{"hrv": 1e400}', "hrv"),
                        ('{"snapshot_days_ago": Infinity}', "snapshot_days_ago")):
        state.write_text(text, encoding="utf-8")
        assert_one_line_error(pulse("retrieve", "x", "--state", str(state), db=demo_copy),
                              field)


def test_missing_memory_is_a_clear_error(tmp_path: Path) -> None:
    assert_one_line_error(pulse("stats", db=tmp_path / "nothing.db"), "no memory here")


def test_embed_switches_model_and_never_mixes(demo_copy: Path) -> None:
    result = pulse("embed", "--model", "minilm-l6-int8", "--json", db=demo_copy)
    if result.returncode != 0 and "cannot load" in result.stderr:
        pytest.skip("fallback embedder not installed here")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["model"] == "minilm-l6-int8" and out["embedded"] == out["events"]
    stats = json.loads(pulse("stats", "--json", db=demo_copy).stdout)
    assert stats["active_model"] == "minilm-l6-int8"
    assert len(stats["embedding_models"]) == 2
    got = json.loads(pulse("retrieve", "coffee", "--json", "--now", NOW, db=demo_copy).stdout)
    assert got["results"]
    again = json.loads(pulse("embed", "--model", "minilm-l6-int8", "--json", db=demo_copy).stdout)
    assert again["embedded"] == 0


def test_merges_and_glossary_from_the_terminal(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    chat = tmp_path / "c.jsonl"
    rows = [("p1", "Dana", "I had coffee with my friend Caroline at the market."),
            ("p2", "Dana", "Later I met Carolyn again near the station, she was tired."),
            ("p3", "Dana", "Mirela finally leaves the lighthouse at dawn, I wrote tonight."),
            ("p4", "Dana", "In my novel, the harbour belongs to Corvin now.")]
    chat.write_text("".join(json.dumps({"id": i, "speaker": s, "text": t,
                                        "ts": "2023-05-08T13:56:00Z"}) + "\n"
                            for i, s, t in rows), encoding="utf-8")
    assert pulse("import", str(chat), "--json", db=db).returncode == 0

    listed = pulse("merges", "list", "--json", db=db)
    (prop,) = json.loads(listed.stdout)["proposals"]
    assert {prop["keep_name"], prop["merge_name"]} == {"Caroline", "Carolyn"}
    human = pulse("merges", "list", db=db).stdout
    assert "Caroline" in human and "pending" in human
    approved = json.loads(pulse("merges", "approve", str(prop["id"]), "--json", db=db).stdout)
    assert approved["status"] == "approved"
    assert json.loads(pulse("merges", "list", "--json", db=db).stdout)["proposals"] == []
    assert_one_line_error(pulse("merges", "reject", str(prop["id"]), db=db), "already approved")
    assert_one_line_error(pulse("merges", "approve", "999", db=db), "no merge proposal 999")

    added = json.loads(pulse("glossary", "add", "Mirela", "--apply", "--json", db=db).stdout)
    (event_id,) = added["events"]
    from core.memory import Memory

    with Memory.open(db, read_only=True) as memory:
        assert memory.event(event_id)["domain"] == "fiction_content"
    again = json.loads(pulse("glossary", "apply", str(added["id"]), "--json", db=db).stdout)
    assert again["events"] == []          # already fiction: nothing left to change
    entries = json.loads(pulse("glossary", "list", "--json", db=db).stdout)["glossary"]
    assert [e["term"] for e in entries] == ["Mirela"]
    assert_one_line_error(pulse("glossary", "add", "(", "--pattern", db=db), "glossary pattern")

    # a name only a fiction passage holds was proposed for the glossary, not made an entity
    (cand,) = json.loads(pulse("glossary", "candidates", "--json", db=db).stdout)["candidates"]
    assert cand["term"] == "Corvin" and cand["status"] == "pending"
    assert "Corvin" in pulse("glossary", "candidates", db=db).stdout
    accepted = json.loads(pulse("glossary", "accept", str(cand["id"]), "--apply", "--json",
                                db=db).stdout)
    assert accepted["status"] == "accepted" and accepted["glossary"] is not None
    assert_one_line_error(pulse("glossary", "reject", str(cand["id"]), db=db), "already accepted")
    entries = json.loads(pulse("glossary", "list", "--json", db=db).stdout)["glossary"]
    assert [e["term"] for e in entries] == ["Mirela", "Corvin"]
    assert pulse("verify", db=db).returncode == 0


def test_an_interrupted_import_says_what_was_kept_and_a_rerun_finishes(tmp_path: Path) -> None:
    import signal
    import time

    from core.memory import Memory

    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([
        {"id": f"m{i}", "speaker": ("Maya", "Leo")[i % 2], "ts": f"2024-03-01T09:{i % 60:02d}:00Z",
         "text": f"Walked to the harbour with Leo and talked about the boat, note {i}."}
        for i in range(3000)]), encoding="utf-8")
    db = tmp_path / "m.db"
    Memory.open(db, create=True).close()
    # SIGINT as a terminal's Ctrl-C sends it; a test run started in the background inherits it
    # ignored (and Python then installs no handler), so the child puts Python's own back
    ctrl_c = ("import runpy, signal, sys; signal.signal(signal.SIGINT, "
              "signal.default_int_handler); sys.argv[0] = 'pulse'; "
              "runpy.run_module('core.cli', run_name='__main__')")
    run = subprocess.Popen([sys.executable, "-c", ctrl_c, "--db", str(db), "import", str(chat)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def stored() -> int:
        with Memory.open(db, read_only=True) as memory:
            return memory.stats()["counts"]["observations"]

    deadline = time.monotonic() + 120
    while stored() == 0 and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    run.send_signal(signal.SIGINT)          # a first batch is written, the import goes on
    _out, err = run.communicate(timeout=120)
    kept = stored()
    assert run.returncode == 1 and 0 < kept < 3000, (run.returncode, kept, err)
    assert err.strip().splitlines()[-1] == ("pulse: interrupted: the messages already written "
                                            "are kept, whole; run the same import again to "
                                            "finish it")
    again = pulse("import", str(chat), "--json", db=db)
    assert again.returncode == 0, again.stderr
    total = json.loads(again.stdout)["total"]["observations"]
    assert (total["duplicate"], total["new"]) == (kept, 3000 - kept)
    assert pulse("verify", db=db).returncode == 0
