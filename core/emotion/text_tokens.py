"""Word tokens for the lexicon tagger: whole Unicode words, never substrings.

"radio" is one token and never matches "rad"; "therapist" never splits into "the rapist".
Russian tokens are reduced by a tiny suffix stripper so that inflected forms share one key.
"""

from __future__ import annotations

import re

# Letters only (no digits or underscores), with inner apostrophes kept: "don't", "i'm".
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")
_CYRILLIC = re.compile(r"[а-я]")

# Russian inflectional endings, longest first. Stripping stops when fewer than
# MIN_RU_STEM letters would remain, so short words ("гора", "рад") are only ever matched whole.
_RU_ENDINGS = sorted(
    """ившись ывшись ешься ишься ются ятся ется ится ться ала ало али ала ыми ими ого его ому ему
    ешь ишь ете ите ает яет ают яют ует уют ит ат ят ут ют ет ем им ой ей ий ый ая яя ое ее ые ие
    ую юю ым ом ых их ами ями ах ях ам ям ов ев ью ла ло ли ть ся сь ую юсь ась ось ись ешь ал ял ил
    ыл ел л а я о е ы и у ю ь""".split(),
    key=len,
    reverse=True,
)
MIN_RU_STEM = 4


def normalise(text: str) -> str:
    return text.lower().replace("’", "'").replace("ё", "е")


def tokens(text: str) -> list[str]:
    return _WORD.findall(normalise(text))


def is_russian(token: str) -> bool:
    return bool(_CYRILLIC.search(token))


def ru_stem(token: str) -> str:
    """Strip one inflectional ending if a stem of at least MIN_RU_STEM letters remains."""
    for ending in _RU_ENDINGS:
        if token.endswith(ending) and len(token) - len(ending) >= MIN_RU_STEM:
            return token[: -len(ending)]
    return token
