"""The abstention evidence judges at most a query's first 16 distinct content words
(docs/scoring.md, "Nothing relevant"): a pasted paragraph is judged by its opening words, and
function words and repeats do not use up the 16."""

from __future__ import annotations

import numpy as np

from core.memory import Memory
from core.store import records
from tests.test_scoring_formula import NOW, iso

KNOWN = ("harbour lantern brother kitchen garden market river bridge winter letter piano"
         " orchard station ferry meadow chapel").split()                 # 16 words
UNKNOWN = "zanzibarite"                                                  # in no event


def _memory_with_the_known_words(memory: Memory) -> None:
    for word in KNOWN:
        vec = memory.embedder().embed_passages([word])[0]
        records.add_event(memory.conn, actor="import",
                          fields={"title": f"walked to the {word}", "ts": iso(NOW)},
                          vectors=[records.Vector(memory.embedding_model,
                                                  np.asarray(vec, np.float32))])


def _evidence(memory: Memory, query: str) -> dict:
    return memory.retrieve(query, scorer="pulse", now=NOW, abstain=False)["evidence"]


def test_a_word_after_the_first_16_is_not_judged(memory: Memory) -> None:
    _memory_with_the_known_words(memory)
    assert len(KNOWN) == 16
    # function words and a repeat before the 17th content word do not count
    query = "the " + " and the ".join(KNOWN) + f" and {KNOWN[0]} then {UNKNOWN}"
    got = _evidence(memory, query)
    assert (got["words"], got["words_found"], got["term_coverage"]) == (16, 16, 1.0)
    # the same word among the first 16 is judged, and weighs most (no event holds it)
    inside = _evidence(memory, " ".join(KNOWN[:15] + [UNKNOWN]))
    assert (inside["words"], inside["words_found"]) == (16, 15)
    assert inside["term_coverage"] < 15 / 16
