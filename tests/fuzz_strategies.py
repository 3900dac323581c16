"""Hypothesis strategies for the reliability fuzz tests: random JSON, structure-aware mutations of
valid documents (drop a key, add an unknown one, swap a value for one of another type, push a
number out of range, corrupt a string), and byte-level damage of a valid file (cut it, flip
bytes, splice in invalid UTF-8 or NUL, insert JSON syntax)."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import strategies as st

# -- scalar and JSON values ----------------------------------------------------------------------

NASTY_STRINGS = [
    "", " ", "\x00", "\u202e", "null", "NaN", "1e309", "-0", "Z", "2026-13-45",
    "2026-02-30T25:61:00Z", "0000-00-00", "9999-12-31T23:59:59Z", "1970-01-01", "<script>",
    "'; DROP TABLE events; --", "../../etc/passwd", "e001", "x" * 5000, "é" * 300, "\n\n\n",
    "{", "[", "\\", "\ufeff", "🙂" * 50, "pulse-corpus/1", "pulse-corpus/2",
]

scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40), st.sampled_from(NASTY_STRINGS),
)

json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(st.one_of(st.text(max_size=12), st.sampled_from(
            ["key", "ts", "title", "events", "format", "models", "mood_vector", "id", "text",
             "speaker", "mapping", "chat_messages"])), children, max_size=5)),
    max_leaves=25,
)


def _paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (tuple of keys / indexes) into a JSON document, the root included."""
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _paths(v, prefix + (i,))
    return out


def _get(doc: Any, path: tuple) -> Any:
    for step in path:
        doc = doc[step]
    return doc


@st.composite
def mutated(draw: st.DrawFn, seed_doc: Any, max_mutations: int = 3) -> Any:
    """`seed_doc` with 1..max_mutations structure-aware mutations."""
    doc = copy.deepcopy(seed_doc)
    for _ in range(draw(st.integers(1, max_mutations))):
        paths = _paths(doc)
        path = draw(st.sampled_from(paths))
        op = draw(st.sampled_from(["replace", "delete", "add_key", "out_of_range", "retype",
                                   "duplicate", "empty"]))
        if not path:  # the root
            if op in ("replace", "retype"):
                doc = draw(json_values)
            continue
        parent, last = _get(doc, path[:-1]), path[-1]
        value = parent[last]
        if op == "replace":
            parent[last] = draw(json_values)
        elif op == "delete":
            del parent[last]
        elif op == "add_key" and isinstance(value, dict):
            value[draw(st.sampled_from(["bogus", "KEY", "key ", "api_key", "__proto__"]))] = \
                draw(scalars)
        elif op == "out_of_range" and isinstance(value, (int, float)) and not isinstance(value, bool):
            parent[last] = draw(st.sampled_from([-1, 1.0000001, 2, 1e308, -1e308, 10**30, -0.0001,
                                                 float("inf"), float("nan")]))
        elif op == "retype":
            parent[last] = draw(st.sampled_from([None, True, 0, 1.5, "", "x", [], {}, [None],
                                                 {"a": 1}, [[]], [{}], -1, 1e300]))
        elif op == "duplicate" and isinstance(parent, list):
            parent.append(copy.deepcopy(value))
        elif op == "empty":
            parent[last] = type(value)() if isinstance(value, (dict, list, str)) else None
    return doc


# -- bytes ---------------------------------------------------------------------------------------

@st.composite
def damaged_bytes(draw: st.DrawFn, good: bytes) -> bytes:
    """A valid file's bytes, damaged the ways files get damaged."""
    data = bytearray(good)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["cut", "flip", "insert", "utf8", "nul", "syntax", "bom"]))
        at = draw(st.integers(0, max(0, len(data))))
        if op == "cut":
            data = data[:at]
        elif op == "flip" and data:
            i = min(at, len(data) - 1)
            data[i] ^= draw(st.integers(1, 255))
        elif op == "insert":
            data[at:at] = draw(st.binary(max_size=16))
        elif op == "utf8":
            data[at:at] = draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf8\x88"]))
        elif op == "nul":
            data[at:at] = b"\x00"
        elif op == "syntax":
            data[at:at] = draw(st.sampled_from([b"{", b"}", b"[", b"]", b",", b":", b'"', b"\n",
                                                b"---\n", b"\n\n"]))
        elif op == "bom":
            data[0:0] = b"\xef\xbb\xbf"
    return bytes(data)


def json_bytes(doc: Any) -> bytes:
    """JSON as a careless program would write it (NaN allowed, non-ASCII kept)."""
    return json.dumps(doc, ensure_ascii=False, allow_nan=True).encode("utf-8", "surrogatepass")
