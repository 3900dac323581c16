"""How the 27 GoEmotions labels map onto Pulse's Plutchik-10 (for training and evaluation).

Plutchik's own wheel guides the choices: admiration is intense trust, love is joy + trust (we
keep its trust side, the bond), interest/optimism lean towards anticipation, remorse is the
"I did bad" regret of guilt and embarrassment the "I am seen as bad" of shame. Labels with no
clean Plutchik home (approval, disapproval, confusion, curiosity, realization) and neutral map
to None: a tagger should give them no emotion.
"""

from __future__ import annotations

GOEMOTIONS_TO_PLUTCHIK: dict[str, str | None] = {
    "joy": "joy",
    "amusement": "joy",
    "pride": "joy",
    "relief": "joy",
    "sadness": "sadness",
    "grief": "sadness",
    "disappointment": "sadness",
    "anger": "anger",
    "annoyance": "anger",
    "fear": "fear",
    "nervousness": "fear",
    "admiration": "trust",
    "caring": "trust",
    "gratitude": "trust",
    "love": "trust",
    "disgust": "disgust",
    "optimism": "anticipation",
    "excitement": "anticipation",
    "desire": "anticipation",
    "surprise": "surprise",
    "embarrassment": "shame",
    "remorse": "guilt",
    "approval": None,
    "disapproval": None,
    "confusion": None,
    "curiosity": None,
    "realization": None,
    "neutral": None,
}

#: Ekman's six, the subset on which published lexicon baselines are usually compared.
EKMAN6: tuple[str, ...] = ("joy", "sadness", "anger", "fear", "disgust", "surprise")


def read_goemotions(path) -> list[tuple[str, str | None]]:
    """(text, Plutchik label or None) rows of a Glean-style GoEmotions TSV (text<TAB>label)."""
    rows = []
    with open(path, encoding="utf-8") as handle:
        next(handle)  # header
        for line in handle:
            text, _, label = line.rstrip("\n").rpartition("\t")
            if label not in GOEMOTIONS_TO_PLUTCHIK:
                raise ValueError(f"{path}: unknown GoEmotions label {label!r}")
            rows.append((text, GOEMOTIONS_TO_PLUTCHIK[label]))
    return rows
