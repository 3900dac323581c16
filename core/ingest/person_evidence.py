"""Is a capitalised name a person? Only when the words around it say so.

A capitalised phrase that is no place, organisation or project is a person for the offline
extractor only with person evidence somewhere in the import (docs/cli.md, "Which names become
entities"): someone does something only people do ("Dana said", "Jean, who …", "Sam's wife"),
something is done with or to them ("dinner with Sam", "I told Priya", "звонила Баба Вера"),
they are introduced as a person or a pet ("a woman named Jean", "this amazing woman, Jean",
"her name's Coco", "Oscar, my guinea pig"), credited as an author ("Dune by Frank Herbert"),
or given a title or a kinship word ("Dr. Patel", "Aunt May", "Mama", "Baba Vera"). Without
it — "Breaking Bad", "Doritos", "Fortnite" — no entity is made. Evidence found for a name in
one message counts in every message of the import, so "Priya" is a person all along once
"Priya said" appears once. The cues are words, not understanding: "fun with Nintendo" is
still evidence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from core.ingest.names import LOWER, NOT_NAMES, UPPER

_NAME = rf"[{UPPER}][{UPPER}{LOWER}'’\-]*(?:\s+[{UPPER}][{UPPER}{LOWER}'’\-]*){{0,2}}"

_KIN = (r"mom|mother|dad|father|wife|husband|son|daughter|kids|children|sister|brother|family|"
        r"birthday|wedding|funeral|girlfriend|boyfriend|partner|friends?|baby|parents|grandma|"
        r"grandmother|grandpa|grandfather|aunt|uncle|cousin|fianc[eé]e?|boss")
# things only people (and pets) do, right after the name: "Dana said", "Mel and I"
_DOES = (r"said|says|told|tells|asked|asks|texted|texts|messaged|emailed|replied|answered|"
         r"laughed|cried|smiled|hugged|kissed|thinks|thought|feels|felt|wants|wanted|loves|"
         r"loved|hates|hated|knows|knew|came|comes|visited|visits|helped|helps|died|passed away|"
         r"was born|was diagnosed|got married|married|moved|lives|lived|works|worked|wrote|sent|"
         r"gave|brought|"
         # what someone did to the person: the people a therapy memory most needs to know
         r"hurt me|hurt us|hit me|hit us|abused|betrayed|cheated|lied|yelled|shouted|screamed|"
         r"threatened|"
         r"invited|introduced|admitted|agreed|promised|apologi[sz]ed|decided|suggested|"
         r"recommended|showed|taught|joined|left me|called me|called us|called to|"
         r"(?:is|was) my (?:\w+ )?(?:" + _KIN + r"|neighbou?r|coworker|colleague|mentor)|"
         r"and I|and me|& I|who|herself|himself|"
         # Russian and Greek: "Катя сказала", "η Μαρία είπε"
         r"сказал\w*|говорит|говорил\w*|написал\w*|пишет|позвонил\w*|звонил\w*|звонит|"
         r"спросил\w*|ответил\w*|пришёл|пришла|приехал\w*|умер\w*|плакал\w*|смеял\w*|думает|"
         r"хочет|любит|живёт|переехал\w*|пытал\w*|обнял\w*|είπε|ρώτησε|ήρθε|τηλεφώνησε|έγραψε|"
         r"μου είπε")
# what only a person (or a pet) has: "Mama's letters", "at Baba Vera's bedside"
_OWNS = (_KIN + r"|voice|face|hands?|eyes|hair|smile|laugh|bedside|bed|kitchen|letters?|"
         r"death|grave|illness|stroke|health|diagnosis|shopping|advice|mood|feelings")
# a person introduced: "a woman named Jean", "this amazing woman, Jean", "one of the residents,
# Cindy", "her name's Coco"
_HUMAN = (r"woman|man|guy|girl|boy|lady|kid|friend|neighbou?r|resident|coworker|colleague|"
          r"teacher|coach|doctor|nurse|student|author|artist|singer|actor|actress|player|buddy|"
          r"person|someone|somebody|puppy|pup|kitten|dog|cat|pet|named|name's|name is")
_REL = (r"my (?:\w+ )?(?:" + _KIN + r"|guinea pig|puppy|pup|kitten|dog|cat|pet|neighbou?r|"
        r"coworker|colleague|mentor|roommate|therapist|teacher|coach)")
# done with or to a person: "dinner with Sam", "I told Priya", "by Frank Herbert" (an author)
_WITH = (r"with|met|meet|meeting|told|tell|telling|asked|texted|messaged|hugged|married|said|"
         r"(?:married|engaged|talked|talking|spoke|speaking|wrote|writing|listened|explained|"
         r"lied|apologi[sz]ed|reached out|introduced me|waved|lent it|sent it) to|"
         r"dating|thanked|invited|helped|by|named|name's|name is|Mr\.?|Mrs\.?|Ms\.?|Dr\.?|"
         r"Prof\.?|Aunt|Auntie|Uncle|Grandma|Grandpa|Coach|" + _KIN)
# …and the name ends there: "dinner with Sam." or "with Sam and Jo", not "with Harry Potter
# trivia" (the name of a thing, said before the thing)
_ENDS = (r"(?=\s*(?:[,.!?;:)…\"“”]|$)|['’]s\b|\s+(?:and|or|at|in|on|to|for|from|about|who|"
         r"which|whom|whose|when|while|after|before|because|since|there|here|again|yesterday|"
         r"today|tonight|"
         r"last|next|this|that|once|twice|recently|earlier|later|but|so|the|a|an|is|was|has|"
         r"had|said|says|told|too|over|back|out|up|by|with|during|until|till|around|near|into|"
         r"now|then|tomorrow|all|just|every|each|as|if|will|would|can|could|did|does)\b)")
# Russian: with, at, to, from, for, about someone ("с Катей", "у Веры", "к Бабе Вере"); a
# relative before the name, any case ("бабушку Веру", "подруга Аня"); a human verb before its
# subject ("звонила Баба Вера"); Greek "with" + article ("με τον Γιώργο")
_WITH_INFLECTED = (
    r"(?i:с|со|у|к|ко|от|для|про|бабушк\w*|дедушк\w*|мам\w*|пап\w*|сестр\w*|брат\w*|"
    r"подруг\w*|друг\w*|муж\w*|жен\w*|доч\w*|сын\w*|тёт\w*|тет\w*|дяд\w*|внук\w*|внучк\w*|"
    r"племянни\w*|коллег\w*|сосед\w*|сказал\w*|звонил\w*|позвонил\w*|написал\w*|"
    r"приехал\w*|пришл\w*|пришёл|με τον|με την|με τη|είπε ο|είπε η)")
PERSON = re.compile(
    rf"(?:\b(?:{_WITH})\s+|\b(?i:an?|the|this|that|one of the)\s+(?:\w+\s+)?(?:{_HUMAN})s?,?\s+)"
    rf"(?P<a>{_NAME}){_ENDS}"
    rf"|\b{_WITH_INFLECTED}\s+(?P<c>{_NAME})"
    rf"|(?P<b>{_NAME})(?=,\s*(?:{_REL}|who)\b|['’]s\s+(?:{_OWNS})\b|\s+(?:{_DOES})\b)")


# a person cue right after a name: "Dana said", "Dana texted", "Катя сказала", "Sam's wife" —
# what lets a name begin a sentence alone (core/ingest/openers.py); not "Thankfully, my son …"
CUE_AFTER = re.compile(rf"(?P<b>{_NAME})(?=['’]s\s+(?:{_OWNS})\b|\s+(?:{_DOES})\b)")


_PETS = (r"dog|cat|puppy|pup|kitten|guinea pig|hamster|rabbit|bunny|parrot|horse|pony|pet|"
         r"turtle|tortoise|ferret|lizard|snake|bird|собак\w*|пёс|пса|кот\w*|кошк\w*|щен\w*")
# a pet: "my dog Rex", "a puppy named Coco", "Oscar, my guinea pig", "she walks Biscuit"
PET = re.compile(
    rf"\b(?i:my|our|her|his|their|a|the|new|мой|моя|наш|наша)\s+(?:\w+\s+)?(?:{_PETS})s?"
    rf"(?:\s+named|\s+called|,)?\s+(?P<a>{_NAME})"
    rf"|(?P<b>{_NAME}),\s*(?:my|our|her|his|the)\s+(?:\w+\s+)?(?:{_PETS})\b"
    rf"|\b(?:walk(?:s|ed|ing)?|fed|feed(?:s|ing)?|adopted)\s+(?P<c>{_NAME})")
# a kinship word that is said as a name is a person's: "Mama", "Baba Vera", "Aunt May"
KIN_TITLES = set("""Mama Papa Mamma Pappa Baba Babushka Nana Nan Granny Gran Grandma Grandpa
Grandmother Grandfather Aunt Auntie Uncle Abuela Abuelo Abuelita Oma Opa Nonna Nonno Mamie Papi
Мама Папа Баба Бабушка Дедушка Деда Дед Тётя Тетя Дядя""".split())
# a kinship word in any form, one person or many: "Sisters said", "Сёстры говорили", "Маме"
KIN_WORD = re.compile(
    rf"(?i:(?:{_KIN}|grandparents|(?:sister|brother|cousin|aunt|uncle|daughter|son|parent|"
    r"grandma|grandpa|wife|husband)s|"
    r"мам(?:а|ы|е|у|ой|очка|очки|уля)?|пап(?:а|ы|е|у|ой)?|с[её]стр\w*|брат\w*|бабушк\w*|"
    r"дедушк\w*|подруг\w*|друз\w*|т[её]т[яиеюь]\w*|дяд\w*|внук\w*|внучк\w*|племянни\w*|"
    r"коллег\w*|сосед\w*|муж(?:ья|ьям|ем|у|а|е|ей)?|жен(?:а|ы|е|у|ой)|доч(?:ь|ери|ерью|ка|ки|ке|ку)|"
    r"сын(?:а|у|ом|е|овья|ок)?|родител\w*|дети|детей|мать|матери|отец|отца|отцу|отцом))")


def evidence(texts: Iterable[str]) -> dict[str, str]:
    """The names with evidence in these texts → "person" or "pet" (a pet's evidence wins), with
    the first word of each longer name ("Dana" for "Dana Whitfield said")."""
    out: dict[str, str] = {}
    for text in texts:
        for pattern, kind in ((PERSON, "person"), (PET, "pet")):
            for m in pattern.finditer(text):
                words = re.sub(r"['’]s$", "", next(g for g in m.groups() if g)).split()
                while len(words) > 1 and words[0] in NOT_NAMES:   # "Yesterday Dana said"
                    words.pop(0)
                for key in (" ".join(words), words[0]):
                    if kind == "pet" or key not in out:
                        out[key] = kind
    return out


def cued(texts: Iterable[str]) -> set[str]:
    """The one-word names right before a person cue in these texts ("Dana said")."""
    out: set[str] = set()
    for text in texts:
        for m in CUE_AFTER.finditer(text):
            words = re.sub(r"['’]s$", "", m.group("b")).split()
            while len(words) > 1 and words[0] in NOT_NAMES:   # "Yesterday Dana said"
                words.pop(0)
            if len(words) == 1:
                out.add(words[0])
    return out


def kind_of(name: str, evidence: Mapping[str, str]) -> str | None:
    """"person", "pet", or None when nothing says this name is either. Evidence for a name
    counts for its first word and the other way round ("Dana" for "Dana Whitfield")."""
    if name.split()[0] in KIN_TITLES:
        return "person"
    return evidence.get(name) or evidence.get(name.split()[0])
