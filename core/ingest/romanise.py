"""One name in two scripts: is a Latin spelling a romanisation of a Cyrillic one?

People write a Russian name in Latin letters by several schemes at once — BGN/PCGN ("Katya",
"Zoya"), the everyday and older ones ("Katia", "Katja", "Zoia", "Jenya", "Aleksei",
"Alexej"). `same_name("Катя", "Katia")` asks whether any of them turns the one into the
other, ignoring case. A Cyrillic case form also stands for its nominative-looking forms
("Катей" for "Катя", "Наташей" for "Наташа"), so it matches their romanisations too; no other
letters are guessed. Names of two letters or fewer never match: "Ян" is too many people.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# each Cyrillic letter (lower case) → the Latin spellings people write for it
_LETTERS = {
    "а": ["a"], "б": ["b"], "в": ["v", "w"], "г": ["g"], "д": ["d"],
    "е": ["e", "ye", "je", "ie"], "ё": ["e", "yo", "jo", "io", "ye"], "ж": ["zh", "j", "zj"],
    "з": ["z"], "и": ["i", "y"], "й": ["y", "i", "j", ""], "к": ["k", "c"], "л": ["l"],
    "м": ["m"], "н": ["n"], "о": ["o"], "п": ["p"], "р": ["r"], "с": ["s", "ss"], "т": ["t"],
    "у": ["u", "ou"], "ф": ["f", "ph"], "х": ["kh", "h", "ch"], "ц": ["ts", "c", "tz", "tc"],
    "ч": ["ch", "tch"], "ш": ["sh", "sch"], "щ": ["shch", "sch", "sh", "shh"], "ъ": [""],
    "ы": ["y", "i"], "ь": [""], "э": ["e"], "ю": ["yu", "iu", "ju", "you"],
    "я": ["ya", "ia", "ja"],
}
# after a softening letter, "я" and "ю" are often written bare: "Мария" Maria, "Дарья" Daria
_SOFT = "иьъй"
_BARE_AFTER_SOFT = {"я": "a", "ю": "u"}

# a case ending → the endings of the nominative it may stand for (the form itself counts too):
# "Бориса" Борис, "Веру" Вера, "Катю" Катя, "Игорю" Игорь, "Кате" Катя, "Наташей" Наташа
_NOMINATIVE_OF = {
    "а": [""], "я": ["ь", "й"], "у": ["", "а"], "ю": ["я", "ь", "й"], "е": ["а", "я", "", "ь"],
    "и": ["я", "ь", "а"], "ы": ["а"], "ой": ["а"], "ей": ["я", "а"], "ом": [""],
    "ем": ["ь", "й"], "ою": ["а"], "ею": ["я"], "ью": ["ь"],
}
_CYRILLIC_WORD = re.compile(r"[\u0400-\u04ff]+(?:-[\u0400-\u04ff]+)*")
_LATIN_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")
MIN_LETTERS = 3


def _letters(name: str) -> int:
    return sum(c.isalpha() for c in name)


def _words(name: str, pattern: re.Pattern[str]) -> list[str] | None:
    """The name's words in lower case when every one is written in this script, else None."""
    words = name.split()
    if not words or not all(pattern.fullmatch(w) for w in words):
        return None
    return words


def _latin(name: str) -> list[str] | None:
    """A Latin name folded for comparison: accents and apostrophes ("Dar'ya") left out."""
    plain = unicodedata.normalize("NFKD", name.casefold())
    plain = "".join(c for c in plain if not unicodedata.combining(c) and c not in "'’")
    return _words(plain, _LATIN_WORD)


def _forms(word: str) -> list[str]:
    """The word, and the nominative-looking forms a case form of it may stand for."""
    out = [word]
    for ending, nominatives in _NOMINATIVE_OF.items():
        if word.endswith(ending) and len(word) - len(ending) >= 2:
            out.extend(word[:-len(ending)] + n for n in nominatives)
    return list(dict.fromkeys(out))


def _spellings(word: str) -> str:
    """A regex of every romanisation of one Cyrillic word."""
    parts, i = [], 0
    while i < len(word):
        if word.startswith("кс", i):       # "Алексей" Alexei: "кс" is also one "x"
            options, i = ["ks", "x", "cs"], i + 2
        else:
            letter = word[i]
            options = list(_LETTERS.get(letter, [re.escape(letter)]))
            if letter in _BARE_AFTER_SOFT and i and word[i - 1] in _SOFT:
                options.append(_BARE_AFTER_SOFT[letter])
            i += 1
        parts.append("(?:" + "|".join(sorted(options, key=len, reverse=True)) + ")")
    return "".join(parts)


@lru_cache(maxsize=4096)
def _pattern(name: str) -> re.Pattern[str] | None:
    words = _words(name.casefold(), _CYRILLIC_WORD)
    if words is None:
        return None
    return re.compile(" ".join("(?:" + "|".join(_spellings(f) for f in _forms(w)) + ")"
                               for w in words))


@lru_cache(maxsize=16384)
def same_name(a: str, b: str) -> bool:
    """Is one of these a Cyrillic name and the other a romanisation of it (or of the
    nominative a case form of it stands for)? Never for names of two letters or fewer."""
    if min(_letters(a), _letters(b)) < MIN_LETTERS:
        return False
    for cyrillic, latin in ((a, b), (b, a)):
        pattern = _pattern(cyrillic)
        if pattern is None:
            continue
        words = _latin(latin)
        return words is not None and pattern.fullmatch(" ".join(words)) is not None
    return False
