"""memory-pulse ledger (JOURNAL §5): the two test vectors, JSON.stringify's canonical form,
import/export round trip, tamper refused with the row number."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from core.errors import PulseError
from core.memory import Memory
from core.trust.corrections import correct, list_corrections
from core.trust.ledger import (
    canonical,
    export_ledger,
    import_ledger,
    js_number,
    parse_ledger,
    read_ledger,
    row_hash,
    verify_ledger,
)

H1 = "e53b005ad2cb922546761274ffdb033d7b908b851c1fe8eb2b2925a325f030d0"
H2 = "88b29f5865add835bf5292c885eb1c5f9b958bcbbd38fe38520b318dadcd94fe"
EMPTY = hashlib.sha256(b"").hexdigest()

ROW1 = {"t": 1, "cause": "pricing-shipped", "effect": "price-corrected", "kind": "correction",
        "note": "measured willingness to pay is $29", "withdrawn": ["$49"],
        "replacement": ["$29"], "legacy_digest": EMPTY, "prev": None}
ROW2 = {"t": 2, "cause": "a", "effect": "b", "kind": "event", "prev": H1}


def test_vectors() -> None:
    assert row_hash(ROW1) == H1
    assert row_hash(ROW2) == H2


def test_js_canonical_form() -> None:
    assert canonical({"b": 1, "a": [1.0, 0.5, None, True]}) == '{"a":[1,0.5,null,true],"b":1}'
    # keys by UTF-16 code unit: U+1F600 (surrogates D83D…) sorts before U+FF5E
    assert canonical({"\uff5e": 1, "\U0001F600": 2}) == '{"\U0001F600":2,"\uff5e":1}'
    assert canonical("é\n\x01\"") == '"é\\n\\u0001\\""'
    for value, text in ((1e21, "1e+21"), (1e-7, "1e-7"), (123456789012345680000.0,
                        "123456789012345680000"), (0.000001, "0.000001"), (-0.0, "0"),
                        (1.5e-7, "1.5e-7"), (2.5, "2.5"), (100.0, "100")):
        assert js_number(value) == text


def write(path: Path, rows: list[dict] | list[str]) -> Path:
    lines = [r if isinstance(r, str) else canonical(r) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def chain(rows: list[dict], legacy: list[str] = ()) -> list[dict]:
    out, prev = [], None
    for i, row in enumerate(rows):
        row = {**row, "prev": prev}
        if i == 0:
            row["legacy_digest"] = hashlib.sha256("\n".join(legacy).encode()).hexdigest()
        row["hash"] = row_hash(row)
        prev = row["hash"]
        out.append(row)
    return out


def test_the_vector_ledger_verifies_and_imports(memory: Memory, tmp_path: Path) -> None:
    path = write(tmp_path / "events.jsonl", [{**ROW1, "hash": H1}, {**ROW2, "hash": H2}])
    assert verify_ledger(read_ledger(path)) == []
    out = import_ledger(memory, path)
    assert out["corrections"] == 1 and out["events"] == 1
    [c] = list_corrections(memory)
    assert c.withdrawn == ("$49",) and c.replacement == ("$29",) and c.binding
    again = import_ledger(memory, path)
    assert again["imported"] == 0 and again["already_present"] == 2
    assert len(list_corrections(memory)) == 1


def test_legacy_rows_and_supersedes(memory: Memory, tmp_path: Path) -> None:
    legacy = ['{"t":1,"cause":"x","effect":"y"}', '{"t":2,"cause":"y","effect":"z"}']
    rows = chain([
        {"t": 3, "cause": "c", "effect": "d", "kind": "correction", "withdrawn": ["v1"],
         "replacement": ["v2"], "note": "first"},
        {"t": 4, "cause": "c", "effect": "e", "kind": "correction", "withdrawn": ["v2"],
         "replacement": ["v3"], "supersedes": [3], "note": "second"},
    ], legacy)
    path = write(tmp_path / "events.jsonl", [*legacy, *rows])
    assert verify_ledger(read_ledger(path)) == []
    import_ledger(memory, path)
    items = list_corrections(memory)
    assert [c.binding for c in items] == [True, False]


def test_tampered_ledger_refused_with_row_number(memory: Memory, tmp_path: Path) -> None:
    rows = chain([{"t": i, "cause": "a", "effect": "b", "kind": "event"} for i in range(1, 5)])
    rows[2]["note"] = "edited quietly"
    path = write(tmp_path / "events.jsonl", rows)
    with pytest.raises(PulseError, match="row 3"):
        import_ledger(memory, path)
    assert memory.stats()["journal_head"] == 0
    rows = chain([{"t": i, "cause": "a", "effect": "b", "kind": "event"} for i in range(1, 5)])
    del rows[1]
    with pytest.raises(PulseError, match="row 2"):
        import_ledger(memory, write(tmp_path / "e2.jsonl", rows))
    rows = chain([{"t": i, "cause": "a", "effect": "b", "kind": "event"} for i in range(1, 3)])
    lines = [canonical(r) for r in rows] + ['{"t":9,"cause":"late","effect":"row"}']
    with pytest.raises(PulseError, match="row 3.*unchained"):
        import_ledger(memory, write(tmp_path / "e3.jsonl", lines))
    legacy = ['{"t":1}']
    rows = chain([{"t": 2, "kind": "event"}], legacy)
    with pytest.raises(PulseError, match="legacy_digest"):
        import_ledger(memory, write(tmp_path / "e4.jsonl", ['{"t":1,"x":2}', *rows]))
    with pytest.raises(PulseError, match="row 1 is not valid JSON"):
        import_ledger(memory, write(tmp_path / "e5.jsonl", ["{oops"]))


def test_export_verifies_and_round_trips(memory: Memory, tmp_path: Path) -> None:
    src = write(tmp_path / "in.jsonl", [{**ROW1, "hash": H1}, {**ROW2, "hash": H2}])
    import_ledger(memory, src)
    first = list_corrections(memory)[0]
    correct(memory, withdrawn=["€12"], replacement=["€15"], note="prix corrigé",
            supersedes=[first.journal_seq])
    memory_out = tmp_path / "out" / "events.jsonl"
    summary = export_ledger(memory, memory_out)
    assert summary["kept"] == 2 and summary["added"] == 1
    rows = read_ledger(memory_out)
    assert verify_ledger(rows) == []
    text = memory_out.read_text(encoding="utf-8")
    assert text.startswith(src.read_text(encoding="utf-8"))  # imported rows verbatim
    new = rows[-1].data
    assert new["prev"] == H2 and new["supersedes"] == [1] and "€12" in text
    # importing our own export into the same memory doubles nothing
    import_ledger(memory, memory_out)
    assert len(list_corrections(memory)) == 2
    # and into a fresh memory it reproduces the corrections
    with Memory.open(tmp_path / "fresh.db", create=True) as fresh:
        import_ledger(fresh, memory_out)
        got = [(c.withdrawn, c.binding) for c in list_corrections(fresh)]
        assert got == [(("€12",), True), (("$49",), False)]


def test_a_round_trip_through_the_ledger_doubles_no_override(memory: Memory,
                                                             tmp_path: Path) -> None:
    from core.trust.guard import allow

    correct(memory, withdrawn=["$49"], replacement=["$29"], note="n")
    allow(memory, "$49", "docs/", "changelog")
    allow(memory, "$49", "docs/", "changelog")     # the same override twice stays twice
    out = tmp_path / "events.jsonl"
    first = export_ledger(memory, out)
    import_ledger(memory, out)      # the other tool reads it back after Pulse wrote it
    again = export_ledger(memory, out)
    rows = read_ledger(out)
    assert verify_ledger(rows) == []
    assert [r.data["kind"] for r in rows] == ["correction", "override", "override"]
    assert (again["rows"], again["added"]) == (first["rows"], 0)


def test_export_of_a_memory_without_ledger(memory: Memory, tmp_path: Path) -> None:
    correct(memory, withdrawn=["$49"], replacement=["$29"], note="n")
    from core.trust.guard import allow

    allow(memory, "$49", "docs/", "changelog")
    out = tmp_path / "events.jsonl"
    export_ledger(memory, out)
    rows = parse_ledger(out.read_text(encoding="utf-8"))
    assert verify_ledger(rows) == []
    assert rows[0].data["legacy_digest"] == EMPTY and rows[0].data["prev"] is None
    assert [r.data["kind"] for r in rows] == ["correction", "override"]
    assert all(json.loads(r.raw) == r.data for r in rows)
