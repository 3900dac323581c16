"""Plain-language explanations of every term in a retrieval breakdown (ENGINE §3), used as
tooltips by the playground, the detail panel and anywhere a score is shown.

score = relevance × recency_factor × emotion × state × anchor × date (state is shown as
"Body day": ENGINE's state factor)
"""

from __future__ import annotations

TERM_HELP: dict[str, str] = {
    "cosine": "Cosine similarity between the query's embedding and the event's embedding "
              "(−1..1): how close the two texts are in meaning.",
    "relevance": "How well the event answers the question. Meaning only: the cosine rescaled "
                 "against this memory's typical match (median → 0, best → 1), clipped at 0. "
                 "The default scorer (pulse) adds up five parts: meaning (w × dense), shared "
                 "words ((1 − w) × BM25), what was said beside it (λ × context), linked events "
                 "(μ × chain context) and how closely it matches the person's mood and body "
                 "now (κ × state match).",
    "days_ago": "How many days before “now” the event happened.",
    "lambda": "λ, the decay rate per day of the event's belief class (axioms never decay; "
              "hypotheses fade fastest). Anchored events (user flag) decay at most 0.001/day.",
    "recency": "exp(−λ × days_ago): how fresh the memory still is, from 1 (today) toward 0.",
    "confidence_floor": "The belief's floor: recency can never fall below it. Core wounds are "
                        "pinned at 0.85 or more, so they never fade.",
    "recency_eff": "max(recency, confidence_floor): the recency actually used.",
    "floor_applied": "Yes when the floor, not the decay, set the effective recency.",
    "alpha": "α, the share of relevance that time cannot take away (0.75 by default): even a "
             "very old memory keeps α of its relevance.",
    "recency_factor": "α + (1 − α) × recency_eff: the time multiplier, between α and 1.",
    "emotion": "Emotion boost (pulse, dense): 1 + β × emotional similarity between the query's or the "
               "mood's emotions and the event's, when the emotion gate is open; else 1.",
    "state": "Body-day boost (pulse, dense; ENGINE's state factor): 1 + γ × fit — above 1 "
             "when the event happened on a day like the person's today: a draining day for a "
             "stressed, short-slept body, a restoring one for a rested body (stress, sleep, "
             "HRV, recent life events); 1 when no body state is given. Not the mood + body "
             "part of relevance, which is how closely the event's own feelings and body match.",
    "anchor": "Anchor boost (pulse, dense): a small lift for user-flagged anchor events that are among "
              "the top candidates; else 1.",
    "date": "Date boost (pulse, dense): when the query names a time (“last month”), events "
            "near that date get up to ×3 (1 + δ with δ = 2); else 1.",
    "dense_relevance": "pulse only: the relevance from the embedding (dense) channel alone.",
    "bm25": "pulse only: the raw BM25 keyword score of the event for the query's words.",
    "bm25_norm": "pulse only: BM25 divided by the best BM25 of this query (0..1).",
    "fusion_dense_weight": "pulse only: the weight of the dense channel in the mix "
                           "(relevance = w × dense + (1 − w) × bm25_norm + λ × context "
                           "+ μ × chain context + κ × state match).",
    "context_relevance": "pulse only: the mixed relevance of the message said just before or "
                         "after this one (within an hour): an answer carries its question's "
                         "words.",
    "context_weight": "pulse only: λ, the share of that neighbour's relevance an event gains.",
    "chain_context": "pulse only: the relevance (meaning, words, mood + body) of the best of the "
                     "events directly linked to this one in a chain — what led to it or came of "
                     "it. A moment's cause or consequence says what it meant.",
    "chain_context_weight": "pulse only: μ, the share of a linked event's relevance this event "
                            "gains (relevance += μ × chain context).",
    "state_relevance": "pulse, with a body state given: body match × mood match — how closely "
                       "the event's day and feelings match how the person is now (0..1). "
                       "Relevance gains κ × this: the mood + body part.",
    "body_similarity": "How close the event's body signals (stress, sleep, heart-rate "
                       "variability and their trends) are to the person's now (0..1). An event "
                       "without its own uses the nearest day within a week that has them, "
                       "counted at 0.75.",
    "mood_similarity": "How close the event's feelings are to the mood given (0..1; 1 when no "
                       "mood is given).",
    "state_weight": "pulse only: κ, how much the mood + body match adds to relevance "
                    "(relevance += κ × state match).",
    "via_chain": "Chain mode: the event came with the story as a cause of the best match, "
                 "not because the query ranked it.",
    "base": "relevance × recency_factor: the score before the mood, body, anchor and date "
            "boosts.",
    "median_cosine": "The median cosine of all events for this query (the relevance zero).",
    "max_cosine": "The best cosine of any event for this query (the relevance one).",
    "score": "The final score: relevance × recency_factor × emotion × state × anchor × date. "
             "Results are ranked by it.",
}


# The plain name a column or a line shows, and the spec's symbol (in the tooltip).
TERM_NAMES: dict[str, tuple[str, str]] = {
    "score": ("Score", "score"),
    "relevance": ("Relevance", "relevance"),
    "recency_factor": ("Recency", "recency_factor = α + (1 − α)·recency_eff"),
    "emotion": ("Emotion", "1 + β·similarity"),
    "state": ("Body day", "state = 1 + γ·fit"),
    "anchor": ("Anchor", "1 + δ_anchor"),
    "date": ("Date", "1 + δ_date·nearness"),
    "cosine": ("Closeness", "cosine"),
    "dense_relevance": ("Meaning", "dense_relevance"),
    "bm25": ("Keyword score", "BM25"),
    "bm25_norm": ("Shared words", "bm25_norm = BM25 ÷ best BM25"),
    "context_relevance": ("Said beside it", "context_relevance"),
    "fusion_dense_weight": ("Meaning share", "w"),
    "context_weight": ("Beside-it share", "λ_context"),
    "chain_context": ("Linked events", "chain_context"),
    "chain_context_weight": ("Linked share", "μ"),
    "state_relevance": ("Mood + body match", "state_relevance = body × mood"),
    "body_similarity": ("Body match", "body_similarity"),
    "mood_similarity": ("Mood match", "mood_similarity"),
    "state_weight": ("Mood + body share", "κ"),
    "days_ago": ("Days ago", "days_ago"),
    "lambda": ("Fades per day", "λ"),
    "recency": ("Freshness", "recency = exp(−λ·days_ago)"),
    "confidence_floor": ("Floor", "confidence_floor"),
    "recency_eff": ("Freshness used", "recency_eff = max(recency, floor)"),
    "floor_applied": ("Floor used", "floor_applied"),
    "alpha": ("Kept share", "α"),
    "base": ("Before boosts", "base = relevance × recency_factor"),
    "median_cosine": ("Typical closeness", "median cosine"),
    "max_cosine": ("Best closeness", "max cosine"),
    "via_chain": ("Via chain", "via_chain"),
}


def term_name(term: str) -> str:
    """The plain name of a breakdown term ("Recency" for recency_factor)."""
    return TERM_NAMES.get(term, (term.replace("_", " ").capitalize(), term))[0]


def term_tooltip(term: str) -> str:
    """The plain name, the spec's symbol and the explanation."""
    name, symbol = TERM_NAMES.get(term, (term, term))
    head = f"{name} ({symbol})" if symbol and symbol != name.lower() else name
    text = TERM_HELP.get(term, "")
    return f"{head}\n{text}" if text else head


def term_help(term: str) -> str:
    """The explanation of a breakdown term, or an empty string for an unknown one."""
    return TERM_HELP.get(term, "")
