"""Names found without capitals: what the memory already knows, in any script, and the case
forms of a Russian name.

Capitals mark a name only in a cased script (core/ingest/names.py). In Chinese, Japanese,
Arabic, Hebrew, Devanagari … nothing in the text says "this is a name", so the offline
extractor finds there only the names the memory already has — an entity's name or alias, a
glossary term — written exactly as stored. It never guesses a new one.

Russian declines names: "Катя", "Кати", "Кате", "Катю", "Катей" are one person. A Cyrillic
name is matched by its stem (the word without one case ending) to a name the memory knows, or
to the one known name that has it as a word ("Веры" → "Бабушка Вера" when no other known name
has "Вера" in it), and
within one import the case forms of a name are written as one: its bare or nominative-looking
form when the import has it ("Борис" for "Бориса", "Вера" for "Веру"), else its most frequent
form. No form is made up: "Катей" alone stays "Катей" (its nominative could be "Катя" or
"Катея"), and "Москву" with "Москвы" is one place written "Москву".
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping

from core.ingest.names import LOWER, UPPER
from core.ingest.person_evidence import KIN_TITLES

_CASED = re.compile(rf"[{UPPER}{LOWER}]")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
# case endings, longest first; a stem keeps at least two letters ("Зоя", "Зоей": "Зо")
_ENDINGS = sorted("ами ями ою ею ой ей ом ем ам ям ах ях а я у ю е ы и ь й о".split(),
                  key=len, reverse=True)
_NOMINATIVE = ("", "а", "я", "ь", "й", "о")    # preferred in this order for a group's name
_PROCLITICS = "\u0648\u0641\u0628\u0644\u0643\u0627\u05d5\u05d4\u05d1\u05dc\u05de\u05e9\u05db"
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def has_cyrillic(text: str) -> bool:
    return _CYRILLIC.search(text) is not None


def stem(word: str) -> str:
    """A Cyrillic word without its case ending; any other word as it is."""
    if not _CYRILLIC.search(word):
        return word
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 2:
            return word[:-len(ending)]
    return word


def form_key(name: str) -> str:
    """Equal for the case forms of one Cyrillic name ("Баба Вера", "Бабы Веры")."""
    return " ".join(stem(w) for w in name.split()).casefold()


def uncased(name: str) -> bool:
    """No letter of a cased script: capitals cannot mark this name."""
    return any(c.isalpha() for c in name) and not _CASED.search(name)


def case_forms(names: Iterable[str]) -> dict[str, str]:
    """For one import's Cyrillic names (with repeats): form → the form the group is written as,
    for the forms that change."""
    counts = Counter(n for n in names if _CYRILLIC.search(n))
    groups: dict[str, list[str]] = {}
    for name in counts:
        groups.setdefault(form_key(name), []).append(name)
    out: dict[str, str] = {}
    order = {name: i for i, name in enumerate(counts)}   # first seen first

    def rank(form: str) -> tuple[int, int, int]:
        last = form.split()[-1]
        ending = last[len(stem(last)):]
        nominative = _NOMINATIVE.index(ending) if ending in _NOMINATIVE else len(_NOMINATIVE)
        return nominative, -counts[form], order[form]

    for forms in groups.values():
        if len(forms) > 1:
            best = min(forms, key=rank)
            out.update({f: best for f in forms if f != best})
    return out


class KnownNames:
    """The memory's names (entities' names and aliases, glossary terms) → kind, for what
    capitals cannot find: uncased names in a text, and Cyrillic case forms."""

    def __init__(self, names: Mapping[str, str]) -> None:
        self.by_key: dict[str, str] = {}
        plain: list[str] = []
        self.kind_of: dict[str, str] = {}
        by_word: dict[str, set[str]] = {}
        for name, kind in names.items():
            if " (of " in name or not name.strip():
                continue
            if _CYRILLIC.search(name):
                self.by_key.setdefault(form_key(name), name)
                if " " in name:
                    for word in name.split():
                        if word not in KIN_TITLES:   # "Бабушка" alone is anyone's grandmother
                            by_word.setdefault(form_key(word), set()).add(name)
            if uncased(name):
                plain.append(name)
                self.kind_of.setdefault(name, kind)
        # one word of one known name stands for it: "бабушки Веры" is "Бабушка Вера"
        for key, full in by_word.items():
            if len(full) == 1 and _CASED.match(key[:1]) and key not in self.by_key:
                self.by_key[key] = next(iter(full))
        plain.sort(key=len, reverse=True)
        cjk = [re.escape(n) for n in plain if _CJK.search(n)]          # no spaces between words
        spaced = [re.escape(n) for n in plain if not _CJK.search(n)]
        # Arabic and Hebrew write "and", "with", "to", "the" … as a letter before the name:
        # "بأحمد" is "with Ahmed", "ולדנה" "and to Dana"
        parts = ([f"(?P<a>{'|'.join(cjk)})"] if cjk else []) + (
            [rf"(?<!\w)[{_PROCLITICS}]{{0,2}}(?P<b>{'|'.join(spaced)})(?!\w)"] if spaced else [])
        self.pattern = re.compile("|".join(parts)) if parts else None

    def canonical(self, name: str) -> str | None:
        """The known name a Cyrillic case form stands for ("Катей" → "Катя")."""
        if not _CYRILLIC.search(name):
            return None
        return self.by_key.get(form_key(name))

    def found_in(self, text: str) -> list[tuple[str, str]]:
        """(name, kind) of every known uncased name the text contains, in order, once each."""
        if self.pattern is None:
            return []
        seen = dict.fromkeys(m.group("a") or m.group("b") for m in self.pattern.finditer(text))
        return [(n, self.kind_of[n]) for n in seen]
