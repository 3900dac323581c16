"""Abstention (docs/scoring.md): an honest "nothing relevant".

Per-query normalisation gives the best match a relevance of 1 whatever it is, so the ranking
alone can never say that nothing answers. This test looks at absolute evidence instead, before
any normalisation:
- dense: the best raw cosine of the query against the allowed events;
- lexical: how much of the query's information (IDF-weighted content words) occurs anywhere
  in the memory (core.scoring.lexical.term_coverage).
The query abstains only when both are below their thresholds (calibrated on the tuning
conversations of LoCoMo, bench/abstention.py): a strong match on either channel answers. With
pulse and a state that carries a body, a third channel answers too: an event lived in the same
body and mood (the state channel, core.scoring.signature) at least abstain_state.
Cosines live on a different scale for each embedding model, so a memory embedded with another
model than the one the thresholds were calibrated for never abstains (except when empty).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.scoring.settings import ScorerSettings


@dataclass(frozen=True)
class Evidence:
    max_cosine: float
    median_cosine: float
    term_coverage: float
    words_found: int
    words: int
    events: int
    calibrated: bool   # the thresholds were calibrated for this memory's embedding model
    state_match: float | None = None   # the best state-channel match (None: no body to match)

    def to_dict(self) -> dict[str, Any]:
        return {"max_cosine": self.max_cosine, "median_cosine": self.median_cosine,
                "term_coverage": self.term_coverage, "words_found": self.words_found,
                "words": self.words, "events": self.events, "calibrated": self.calibrated,
                "state_match": self.state_match}


def abstain_reason(evidence: Evidence, settings: ScorerSettings) -> str | None:
    """A one-line reason when nothing in the memory answers the query, else None."""
    if evidence.events == 0:
        return "nothing relevant: no event to search (the memory, or the allowed domains, " \
               "holds no event with a vector of this model)"
    if not evidence.calibrated or evidence.max_cosine >= settings.abstain_cosine:
        return None
    if evidence.words == 0:  # function words only: nothing to judge the words by
        return None
    if evidence.state_match is not None and evidence.state_match >= settings.abstain_state:
        return None      # the person's body and mood answer, whatever the words
    if evidence.term_coverage >= settings.abstain_coverage:
        return None
    return (f"nothing relevant: the closest event's cosine {evidence.max_cosine:.3f} is below "
            f"{settings.abstain_cosine:g}, and {evidence.words_found} of {evidence.words} query "
            f"words occur in this memory (coverage {evidence.term_coverage:.2f} < "
            f"{settings.abstain_coverage:g})")
