"""Which words are names even where they begin a sentence alone.

A sentence's first word has a capital whatever it is, so the capital says nothing there
(core/ingest/names.py): "Dana said she'd come." is taken only when something else says "Dana"
is a name — the memory has it (an entity's name or alias), the import writes it elsewhere
in the middle of a sentence, or a person cue follows it right away somewhere in the import
("Dana said", "Катя сказала", "Sam's wife": person_evidence.CUE_AFTER; not "Thankfully, my
son …"), unless it ends in "-ly" ("Fully agreed", "Finally came": an adverb before a verb). Never an ordinary word: one of NOT_NAMES
("Someone said", "Everyone told me") or a word the import uses in lower case. A kinship word
in any form ("Мама сказала", "Сёстры говорили", "Sisters said") opens a sentence as a name only
when the memory or the import already has it as one: at a sentence's start it is most often
the ordinary word.
"""

from __future__ import annotations

from collections.abc import Iterable, Set

from core.ingest.known import form_key, has_cyrillic
from core.ingest.names import common_word, name_candidates
from core.ingest.person_evidence import KIN_TITLES, KIN_WORD, cued


class Openers:
    """A set of single-word names; a Cyrillic case form of one is in it too ("Кате" when
    "Катя" is)."""

    def __init__(self, names: Iterable[str]) -> None:
        self.names = set(names)
        self.forms = {form_key(n) for n in self.names if has_cyrillic(n)}

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and (
            word in self.names or (has_cyrillic(word) and form_key(word) in self.forms))

    def __len__(self) -> int:
        return len(self.names)


def openers(texts: Iterable[str], *, common: Set[str], known: Iterable[str] = ()) -> Openers:
    """The words that may be a name at a sentence's start in these texts: `known` (the
    memory's names), the names the texts write in mid-sentence, and the names right before a
    person cue in them, except kinship words and "-ly" words ("Fully agreed", "Finally came":
    an adverb before a verb); never a common word nor one of `common` (the words the texts use
    in lower case)."""
    texts = list(texts)
    found = {n for n in known if n and " " not in n}
    for text in texts:
        found.update(n for n in name_candidates(text, common=common) if " " not in n)
    found.update(n for n in cued(texts) if n not in KIN_TITLES and not KIN_WORD.fullmatch(n)
                 and not n.endswith("ly"))
    return Openers(n for n in found if n[:1].isupper() and not common_word(n)
                   and n.lower() not in common)
