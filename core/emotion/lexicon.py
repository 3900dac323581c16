"""Offline Plutchik-10 tagger from a word lexicon: the query gate's tagger and the default
event tagger (ENGINE §4).

Matching is on whole tokens (and known multi-word phrases), never on substrings. A negator up to
three words before an emotion word in the same clause cancels it ("not happy"); an intensifier
just before it raises it ("so ashamed"), a softener lowers it ("a bit sad"). The hits of one
emotion combine by noisy-or, so the score stays in 0..1 and grows with evidence without a cap
to tune. Seed words carry 0.55-0.9 (alone they open the gate at 0.5); everyday words with a
factual sense, and the words learnt from GoEmotions, carry less than 0.5 and never open it alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from core.emotion.plutchik import EMOTION_INDEX, EMOTIONS
from core.emotion.text_tokens import is_russian, normalise, ru_stem

NEGATION_WINDOW = 3
INTENSIFIER_WINDOW = 2
MAX_PHRASE_LEN = 3
_TOKEN = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")
_CLAUSE_BREAK = re.compile(r"[.,;:!?()\[\]\n—–]|\s-\s")


def lexicon_path() -> Path:
    """resources/emotion/lexicon.json beside core/, or the installed `resources` package."""
    local = Path(__file__).resolve().parents[2] / "resources" / "emotion" / "lexicon.json"
    if local.is_file():
        return local
    return Path(str(resources.files("resources") / "emotion" / "lexicon.json"))


@lru_cache(maxsize=4)
def load_lexicon(path: str | None = None) -> dict:
    return json.loads(Path(path or lexicon_path()).read_text(encoding="utf-8"))


def _vectorise(entries: Mapping[str, Mapping[str, float]]) -> dict[str, np.ndarray]:
    table = {}
    for key, weights in entries.items():
        vec = np.zeros(len(EMOTIONS))
        for emotion, weight in weights.items():
            vec[EMOTION_INDEX[emotion]] = weight
        table[key] = vec
    return table


class LexiconTagger:
    """Token-level lexicon tagger; `include_learnt=False` keeps only the hand-curated words."""

    def __init__(self, path: str | Path | None = None, include_learnt: bool = True) -> None:
        data = load_lexicon(str(path) if path else None)
        self.name = "lexicon" if include_learnt else "lexicon-seeds"
        self.version = str(data["version"])
        words = dict(data["learnt_words"]) if include_learnt else {}
        words.update(data["words"])  # a curated entry overrides a learnt one
        self._words = _vectorise(words)
        self._stems = _vectorise(data["ru_stems"])
        self._phrases = {tuple(k.split()): v for k, v in _vectorise(data["phrases"]).items()}
        self._negators = set(data["negators"])
        self._modifiers: dict[str, float] = dict(data["modifiers"])

    def _lookup(self, token: str) -> np.ndarray | None:
        vec = self._words.get(token)
        if vec is None and is_russian(token):
            vec = self._stems.get(ru_stem(token))
        return vec

    def _is_negator(self, token: str) -> bool:
        return token in self._negators or token.endswith("n't")

    def _scan(self, text: str) -> tuple[list[str], list[int]]:
        """Tokens and a clause number for each, so negation does not cross a comma."""
        text = normalise(text)
        words, clauses, clause, last_end = [], [], 0, 0
        for match in _TOKEN.finditer(text):
            if _CLAUSE_BREAK.search(text, last_end, match.start()):
                clause += 1
            words.append(match.group())
            clauses.append(clause)
            last_end = match.end()
        return words, clauses

    def _modifier(self, words: list[str], clauses: list[int], at: int) -> float:
        """1.0, or 0 when negated, or the nearest intensifier/softener factor before `at`."""
        for back in range(1, NEGATION_WINDOW + 1):
            i = at - back
            if i < 0 or clauses[i] != clauses[at]:
                break
            if self._is_negator(words[i]):
                return 0.0
        for back in range(1, INTENSIFIER_WINDOW + 1):
            i = at - back
            if i < 0 or clauses[i] != clauses[at]:
                break
            if words[i] in self._modifiers:
                return self._modifiers[words[i]]
        return 1.0

    def tag(self, text: str) -> np.ndarray:
        words, clauses = self._scan(text)
        missing = np.ones(len(EMOTIONS))  # product of (1 - hit) per emotion: noisy-or
        i = 0
        while i < len(words):
            vec, length = None, 1
            for n in range(min(MAX_PHRASE_LEN, len(words) - i), 1, -1):
                vec = self._phrases.get(tuple(words[i : i + n]))
                if vec is not None:
                    length = n
                    break
            if vec is None and not self._is_negator(words[i]):
                vec = self._lookup(words[i])
            if vec is not None:
                factor = self._modifier(words, clauses, i)
                missing *= 1.0 - np.minimum(vec * factor, 1.0)
            i += length
        return np.clip(1.0 - missing, 0.0, 1.0)

    def tag_many(self, texts: Iterable[str]) -> np.ndarray:
        rows = [self.tag(t) for t in texts]
        return np.stack(rows) if rows else np.zeros((0, len(EMOTIONS)))

    def explain(self, text: str) -> list[tuple[str, dict[str, float]]]:
        """The words that drove the tag, for the playground's breakdown."""
        words, _ = self._scan(text)
        hits = []
        for word in words:
            vec = self._lookup(word)
            if vec is not None:
                hits.append((word, {EMOTIONS[i]: float(v) for i, v in enumerate(vec) if v}))
        return hits
