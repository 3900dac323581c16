"""The offline extractor (INGEST §3): deterministic heuristics, no network.

decompose(): sentences → intensity ι = significance × certainty (× a first-person weight) and a
valence; adjacent sentences on the same side of θ are kept together, so an ordinary chat turn
is one segment and a turn that mentions a life event in passing becomes two.
mentions(): speakers, capitalised names in any cased script (not common words, and at a
sentence's start alone only with more than a capital to go on: openers.py), relationship phrases ("my sister", "mom"), places after in/at/to/from (в/из,
στο), projects and orgs; a name that is none of these is a person or a pet only with evidence
(person_evidence.py), and the memory's own names are found without capitals (known.py).
"""

from __future__ import annotations

import re
from collections.abc import Container, Mapping, Sequence, Set
from dataclasses import dataclass

from core.ingest import person_evidence
from core.ingest.extraction import EntitySpec, Extraction, FactSpec, RelationSpec, SegmentSpec
from core.ingest.known import KnownNames, has_cyrillic
from core.ingest.names import (
    COUNTRIES,
    LOWER,
    MARKS,
    NOT_NAMES,
    SENTENCE_BREAK,
    UPPER,
    inside,
    lowercase_words,
    name_candidates,
    quoted_spans,
)
from core.ingest.openers import openers
from core.ingest.romanise import same_name

THETA = 0.6
PASTED_MIN_WORDS = 100
PASTED_MAX_FIRST_PERSON = 0.02
PASTED_INTENSITY = 0.05

_SENTENCE = SENTENCE_BREAK
_WORD = re.compile(rf"[{UPPER}{LOWER}][{UPPER}{LOWER}{MARKS}'’\-]*")
# a capitalised name word in any cased script, accents and all ("José", "Malmö", "Москва")
_NAME = rf"[{UPPER}][{LOWER}]+"

# Life events: (stem regex, polarity, structural anchor → user_flag suggestion)
LIFE_EVENTS: list[tuple[str, str, bool]] = [
    (r"died|passed away|death|funeral|lost my|killed", "neg", True),
    (r"diagnos\w*|cancer|tumou?r|surgery|hospitali[sz]ed|chemo\w*", "neg", True),
    (r"divorc\w*|separated", "neg", True),
    (r"married|marry|marrying|wedding|engaged|proposed to", "pos", True),
    (r"fired|laid off|layoff|lost (?:my|the) job|unemployed", "neg", False),
    (r"pregnan\w*|expecting a baby|miscarriage", "pos", True),
    (r"moved (?:to|out|in|away|house)|relocat\w*|moving to", "neu", False),
    (r"quit (?:my|the)|resign\w*", "neu", False),
    (r"graduat\w*|degree|diploma", "pos", False),
    (r"was born|gave birth|birth of|newborn", "pos", True),
    (r"accident|crash(?:ed)?|injur\w*", "neg", False),
    (r"broke up|breakup|break-up|dumped", "neg", False),
    (r"adopt\w*", "pos", True),
    (r"promot\w*|new job|hired|got the job", "pos", False),
    (r"came out|coming out|transition\w*|identity", "pos", True),
    (r"abus\w*|assault\w*|trauma\w*|attack(?:ed)?", "neg", True),
    (r"умер|умерла|развод|свадьб|уволил|беремен|переехал|диагноз", "neu", True),
]
_LIFE = [(re.compile(rf"\b(?:{p})\b", re.I), pol, anchor) for p, pol, anchor in LIFE_EVENTS]

RELATIONSHIPS = {
    "mom": "mother", "mother": "mother", "mum": "mother", "mommy": "mother", "dad": "father",
    "father": "father", "daddy": "father", "sister": "sister", "brother": "brother",
    "husband": "husband", "wife": "wife", "partner": "partner", "boyfriend": "boyfriend",
    "girlfriend": "girlfriend", "son": "son", "daughter": "daughter", "grandma": "grandmother",
    "grandmother": "grandmother", "grandpa": "grandfather", "grandfather": "grandfather",
    "aunt": "aunt", "uncle": "uncle", "cousin": "cousin", "niece": "niece", "nephew": "nephew",
    "friend": "friend", "best friend": "best friend", "boss": "boss", "therapist": "therapist",
    "fiance": "fiancé", "fiancé": "fiancé", "fiancée": "fiancée", "kids": "children",
    "children": "children", "parents": "parents", "coworker": "coworker",
    "colleague": "colleague", "mentor": "mentor", "roommate": "roommate", "dog": "dog",
    "cat": "cat", "baby": "baby",
}
_REL_WORDS = sorted(RELATIONSHIPS, key=len, reverse=True)
_REL_PHRASE = re.compile(
    r"\b(?:my|our)\s+(?:(?:little|big|older|younger|late|new|old|best|dear)\s+)?("
    + "|".join(re.escape(w) for w in _REL_WORDS) + rf")\b(?-i:,?\s+({_NAME}))?", re.I)
_BARE_PARENT = re.compile(r"\b(Mom|Dad|Mum|Grandma|Grandpa)\b")
RELATION_WORDS = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in _REL_WORDS)
                            + r"|family|love|relationship|together)\b", re.I)

HEDGES = re.compile(r"\b(?:maybe|perhaps|probably|possibly|might|may be|i think|i guess|"
                    r"not sure|kind of|sort of|i suppose|could be|seems?|if)\b", re.I)
FIRST_PERSON = {"i", "i'm", "im", "i've", "i'd", "i'll", "me", "my", "mine", "myself", "we",
                "we're", "we've", "our", "ours", "us", "я", "мне", "меня", "мой", "моя", "мы"}

# "to" names a place only where someone goes: "moved to Boston", not "married to Sam"
_GOING = (r"(?:mov(?:e|ed|es|ing)|relocat\w*|emigrat\w*|went|go|goes|going|gone|came|come|"
          r"comes|coming|back|return\w*|travel\w*|flew|fly|flying|flight|drove|driv\w+|rode|been|"
          r"ride|walk\w*|head\w*|trip|journey|vacation|holiday|way|off|tickets?|train|bus)")
# Russian: "в Москве", "из Екатеринбурга" ("от", "к", "у" and "с" name people); Greek: the
# neuter "στο Ηράκλειο", or a going or living verb before "στην Αθήνα" ("στη Μαρία" is "to Maria")
_PLACE_CUES = (rf"in|{_GOING}\s+to|from|visited|visiting|near|(?i:в|во|из|под|возле|около|στο|"
               r"(?:πήγα|πήγε|πήγαμε|πάω|πάμε|ταξίδεψα|ταξιδέψαμε|μετακόμισα|μετακομίσαμε|"
               r"ζω|ζούμε|ζει|μένω|μένουμε|μένει|γεννήθηκα)\s+(?:στην|στη|στον|στο))")
PLACE_PREP = re.compile(rf"\b(?:{_PLACE_CUES})\s+(?:the\s+)?((?:{_NAME})(?:\s+{_NAME})?)")
_WORD_ANY_CASE = rf"[{UPPER}][{UPPER}{LOWER}]+"
AT_PREP = re.compile(rf"\bat\s+((?:{_WORD_ANY_CASE})(?:(?:\s+&)?\s+{_WORD_ANY_CASE})*)")
ORG_SUFFIX = re.compile(rf"\b((?:[{UPPER}][{UPPER}{LOWER}&'’]+\s+)+(?:Inc|Corp|Ltd|LLC|University|"
                        r"College|School|Hospital|Company|Club|Center|Centre|Foundation|Institute|"
                        r"Bank|Church|Academy|Studio|Agency|Group))\b")
PROJECT = re.compile(r"\b(?:project|working on|building|writing|my (?:book|novel|app|startup|"
                     r"band|podcast|blog|channel|business))\s+(?:called\s+|named\s+)?"
                     rf"[\"“']?([{UPPER}][\w\-]*(?:\s+[{UPPER}][\w\-]*)*)")
STOPWORDS = set("""
a an the and or but if so to of in on at for with from by about as into like through after over
between out against during without before under around among is are was were be been being am
do does did have has had having i me my myself we our ours us you your yours he him his she her
hers it its they them their what which who whom this that these those there here then than too
very can will just don't should now not no nor only own same some such both each few more most
other any all also really yeah yes oh wow hey hi hello thanks thank great good nice cool lot
much many get got go going gone went make made know think thought feel felt want wanted way
thing things one ones time times day days still even well back would could might must shall
i'm i've it's that's you're we're they're can't didn't isn't wasn't let let's sure right maybe
awesome amazing wonderful glad happy sounds sound totally definitely absolutely super cool
congrat congrats congratulations thanks thank appreciate inspiring inspire proud kind words
love lovely sweet special means mean lots keep doing done doing take taking talk talking
always never something anything everything nothing someone anyone really pretty little
""".split())


@dataclass
class Sentence:
    text: str
    intensity: float
    valence: str
    sentiment: float
    anchor: bool
    life: bool


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def words(text: str) -> list[str]:
    return _WORD.findall(text)


def first_person_ratio(tokens: Sequence[str]) -> float:
    return sum(1 for t in tokens if t.lower() in FIRST_PERSON) / max(1, len(tokens))


def topic_words(text: str, limit: int = 8) -> list[str]:
    seen: dict[str, None] = {}
    for w in words(text):
        if w[:1].isupper():
            continue  # names are entities, not topics
        low = w.lower().strip("'’-")
        if len(low) >= 4 and low not in STOPWORDS:
            seen.setdefault(low[:-1] if low.endswith("s") and len(low) > 4 else low, None)
    return list(seen)[:limit]


_POS = ("joy", "trust", "anticipation")
_NEG = ("sadness", "anger", "fear", "disgust", "shame", "guilt")


def score_sentence(text: str, emotions: dict[str, float], *, role: str = "",
                   context: str = "") -> Sentence:
    """ι = significance × certainty × person weight, in 0..1. `context` is the question a short
    answer replies to: what it asks about counts for the answer's significance ("Did your dad
    die?" → "Yes."), and a short answer is not discounted for being short."""
    tokens = words(text)
    cue_text = f"{context} {text}" if context else text
    life_pol, anchor, life = "neu", False, False
    for pattern, pol, is_anchor in _LIFE:
        if pattern.search(cue_text):
            life, anchor = True, anchor or is_anchor
            life_pol = pol if life_pol == "neu" else life_pol
    strongest = max(emotions.values(), default=0.0)
    significance = 0.2
    if life:
        significance = 0.85
    if RELATION_WORDS.search(cue_text):
        significance += 0.15
    significance += 0.35 * strongest
    if len(tokens) <= 3 and not context:
        significance *= 0.5  # "Thanks!", "Wow, cool."
    certainty = 1.0
    if HEDGES.search(text):
        certainty *= 0.6
    if text.rstrip().endswith("?"):
        certainty *= 0.5
    person = 1.0 if any(t.lower() in FIRST_PERSON for t in tokens) else 0.75
    if role == "assistant":
        person *= 0.5
    intensity = max(0.0, min(1.0, significance * certainty * person))
    pos = sum(emotions.get(e, 0.0) for e in _POS)
    neg = sum(emotions.get(e, 0.0) for e in _NEG)
    if life_pol == "pos":
        pos += 0.5
    elif life_pol == "neg":
        neg += 0.5
    sentiment = max(-1.0, min(1.0, pos - neg))
    valence = "pos" if sentiment > 0.15 else "neg" if sentiment < -0.15 else "neu"
    return Sentence(text, round(intensity, 4), valence, round(sentiment, 4), anchor, life)


def is_pasted(text: str) -> bool:
    tokens = words(text)
    return len(tokens) >= PASTED_MIN_WORDS and first_person_ratio(tokens) < PASTED_MAX_FIRST_PERSON


def group(scored: list[Sentence], theta: float = THETA) -> list[list[Sentence]]:
    """Adjacent sentences on the same side of θ stay together."""
    groups: list[list[Sentence]] = []
    for s in scored:
        if groups and (groups[-1][-1].intensity >= theta) == (s.intensity >= theta):
            groups[-1].append(s)
        else:
            groups.append([s])
    return groups


# -- mentions ----------------------------------------------------------------------------------

FICTION_KINDS = ("fictional_character", "fictionalized_self", "narrative_device")
PLACE_WORDS = re.compile(r"\b(?:Street|St|Road|Rd|Lane|Avenue|Ave|Boulevard|Park|Beach|Lake|"
                         r"River|Mountain|Mount|Bay|Point|Trail|Square|Bridge|Island|Hill|Valley|"
                         r"Canyon|City|Town|Village|Station|Airport|Harbou?r|Caf[eé]|Bar|"
                         r"Restaurant|Market|Mall|Gym|Museum|Gallery|Theat(?:er|re)|Stadium|"
                         r"Cathedral|Palace|Castle|Forest|Falls|Coast|County|Heights)$")


def _possessive(text: str, end: int) -> bool:
    return text[end:end + 2] in ("'s", "’s")


def _fiction_kind(kind: str) -> str:
    """A glossary name is a fictional character unless its entry says it is another fiction
    kind; a fictional place keeps its kind (the writer gives it the fiction domain)."""
    return kind if kind in FICTION_KINDS or kind == "place" else "fictional_character"


def _known_in_latin(name: str, known_people: Set[str]) -> str | None:
    """"person" for a Cyrillic name that is one of the memory's people in Latin letters
    ("о Кате" when the memory has Katya): the memory's people need no evidence."""
    if not has_cyrillic(name):
        return None
    return "person" if any(same_name(name, k) for k in known_people) else None


def extract_offline(text: str, *, speaker: str, role: str, sentence_emotions: list[dict[str, float]],
                    sents: list[str], known_people: set[str] = frozenset(),
                    glossary: Mapping[str, str] | Sequence[str] = (), light: bool = False,
                    skip: Set[str] = frozenset(), context: str = "",
                    common: Set[str] | None = None, known_names: KnownNames | None = None,
                    forms: Mapping[str, str] | None = None,
                    people: Mapping[str, str] | None = None,
                    opens: Container[str] | None = None) -> Extraction:
    """One observation's extraction. `sents` are sentences(text) (or [text] when pasted) and
    `sentence_emotions` their lexicon tags, computed in one batch by the caller.

    `glossary` maps fictional names (the glossary's, the fiction-domain entities', the fiction
    scan's candidates) to their kind: they become fiction-kind entities, which the writer links
    to what it knows or proposes for the glossary. `skip` holds folded names that are never an
    entity (the assistant's). `context` is the assistant's question a short answer replies to.
    The user's turns (role "user") are spoken by the person: their speaker entity is is_self.
    `known_names` finds the memory's names that capitals cannot (uncased scripts, Russian case forms);
    `forms` writes one import's case forms of a Cyrillic name as one (core/ingest/known.py).
    `people` maps the names with person or pet evidence in the whole import to "person" or
    "pet" (default: this text's); a name with neither, and no other kind, makes no entity
    (core/ingest/person_evidence.py). `opens` holds the words that are names even where they
    begin a sentence alone (default: from this text and `known_people`: core/ingest/openers.py)."""
    ex = Extraction()
    if role == "assistant":
        return ex  # context, not life events (core/ingest/roles.py)
    refs: dict[tuple[str, str], str] = {}
    ref_names: set[str] = set()      # the names of refs, lower case, of any kind

    def entity(name: str, kind: str, *, is_self: bool = False, aliases: Sequence[str] = ()) -> str:
        key = (name.lower(), kind)
        if key not in refs:
            refs[key] = f"n{len(refs)}"
            ref_names.add(key[0])
            ex.entities.append(EntitySpec(refs[key], name, kind, list(aliases), is_self))
        return refs[key]

    speaker_ref = entity(speaker, "person", is_self=role == "user") if speaker else None
    seen_as: dict[str, set[str]] = {}   # ref → the forms the text wrote it in ("Веру")

    def canon(name: str) -> str:
        name = forms.get(name, name) if forms else name
        return (known_names.canonical(name) if known_names is not None else None) or name

    # places, orgs, projects first (so a name after "in" is a place, not a person)
    places = {canon(m.group(1)) for m in PLACE_PREP.finditer(text)}
    at_places = {canon(m.group(1)) for m in AT_PREP.finditer(text)
                 if not _possessive(text, m.end(1))}
    orgs = {m.group(1) for m in ORG_SUFFIX.finditer(text)}
    projects = {m.group(1) for m in PROJECT.finditer(text)}
    if people is None:
        people = person_evidence.evidence([text])
    if opens is None:
        opens = openers([text], common=lowercase_words([text]) if common is None else common,
                        known=known_people)
    gloss = dict(glossary) if isinstance(glossary, Mapping) else dict.fromkeys(
        glossary, "fictional_character")
    mentioned: list[str] = []
    for written in dict.fromkeys(name_candidates(text, common=common, opens=opens)):
        name = canon(written)
        first = name.split()[0]
        before = len(mentioned)
        if name.casefold() in skip or any(w.casefold() in skip for w in name.split()):
            continue
        if name in gloss or first in gloss:
            known = name if name in gloss else first
            mentioned.append(entity(known, _fiction_kind(gloss[known])))
        elif name == speaker:
            continue
        elif name in orgs or any(name in o for o in orgs):
            mentioned.append(entity(next(o for o in orgs if name in o), "org"))
        elif name in projects:
            mentioned.append(entity(name, "project"))
        elif name in COUNTRIES or PLACE_WORDS.search(name) or (
                (name in places or name in at_places) and name not in known_people):
            mentioned.append(entity(name, "place"))
        elif " & " in name:
            mentioned.append(entity(name, "org"))
        elif len(name.split()) <= 3 and (kind := "person" if name in known_people else (
                person_evidence.kind_of(name, people) or person_evidence.kind_of(written, people)
                or _known_in_latin(name, known_people))):
            mentioned.append(entity(name, "thing" if kind == "pet" else "person"))
        if len(mentioned) > before:
            seen_as.setdefault(mentioned[-1], set()).add(written)
    if known_names is not None:   # names capitals cannot show: "王芳", "أحمد"
        for name, kind in known_names.found_in(text):
            if name.casefold() not in skip and name != speaker:
                mentioned.append(entity(name, _fiction_kind(gloss[name]) if name in gloss
                                        else kind))
    quotes = quoted_spans(text)
    for at in AT_PREP.finditer(text):
        name = at.group(1)
        if _possessive(text, at.end(1)):
            continue  # "at Baba Vera's dacha": the place is hers, she is not a place
        if name not in NOT_NAMES and name not in known_people and name != speaker \
                and name.split()[0] not in NOT_NAMES and not inside(quotes, at.start(1)) \
                and name.casefold() not in skip and name not in gloss:
            kind = "org" if ORG_SUFFIX.search(name) else "place"
            if name.lower() not in ref_names:
                mentioned.append(entity(name, kind))
    # relationship phrases: "my sister" → sister (of Speaker); "my sister Anna" → Anna
    owner = speaker or "the user"
    for m in _REL_PHRASE.finditer(text):
        if inside(quotes, m.start()):
            continue  # someone else's words: "You are my daughter"
        rel = RELATIONSHIPS[m.group(1).lower()]
        named = m.group(2)
        if named and named not in NOT_NAMES:
            ref = entity(named, "thing" if rel in ("dog", "cat") else "person")
            ex.facts.append(FactSpec(ref, f"{owner}'s {rel}", 0.7))
        else:
            kind = "thing" if rel in ("dog", "cat") else "person"
            ref = entity(f"{rel} (of {owner})", kind)
        mentioned.append(ref)
        if speaker_ref:
            ex.relations.append(RelationSpec(speaker_ref, ref, rel, 0.6))
    for m in _BARE_PARENT.finditer(text):
        if inside(quotes, m.start()):
            continue
        rel = RELATIONSHIPS[m.group(1).lower()]
        ref = entity(f"{rel} (of {owner})", "person")
        mentioned.append(ref)
        if speaker_ref:
            ex.relations.append(RelationSpec(speaker_ref, ref, rel, 0.6))
    if speaker_ref:
        related = {r.to_ref for r in ex.relations}
        for ref in dict.fromkeys(mentioned):
            if ref != speaker_ref and ref not in related:
                ex.relations.append(RelationSpec(speaker_ref, ref, "mentions", 0.3))
        for m in re.finditer(rf"\bI (?:live|grew up|was born) in ((?:{_NAME})(?:\s+{_NAME})?)",
                             text):
            ex.facts.append(FactSpec(speaker_ref, f"{m.group(0)[2:]}", 0.6))
        for m in re.finditer(r"\bI(?:'m| am) (?:a|an) ([a-z]+(?: [a-z]+){0,3})", text):
            ex.facts.append(FactSpec(speaker_ref, f"is a {m.group(1)}" if m.group(1)[0] not in "aeiou" else f"is an {m.group(1)}", 0.5))
        for m in re.finditer(r"\bI work (?:as|at|for) ([^.,!?;]{3,40})", text):
            ex.facts.append(FactSpec(speaker_ref, f"works {m.group(0)[7:]}", 0.6))

    # segments
    if light or (len(sents) == 1 and is_pasted(text)):
        seg = SegmentSpec(text=text, intensity=PASTED_INTENSITY if not light else 0.3,
                          entities=[r for r in dict.fromkeys([speaker_ref, *mentioned]) if r],
                          topic=topic_words(text))
        emo = sentence_emotions[0] if sentence_emotions else {}
        seg.emotions = None
        seg.valence = score_sentence(text[:2000], emo, role=role).valence
        ex.segments.append(seg)
        return ex
    scored = [score_sentence(s, e, role=role, context=context)
              for s, e in zip(sents, sentence_emotions)]
    # each mentioned entity once, with what finds it in a segment (a relative named by
    # relation, "sister (of Nadia)", is in every one): worked out once per message, not once
    # per segment and mention (a long message has thousands of both)
    ent_names = {spec.ref: spec.name for spec in ex.entities}
    seekers = [(r, ent_names.get(r, "").split(" (of ")[0].lower(),
                " (of " in ent_names.get(r, ""), [w.lower() for w in seen_as.get(r, ())])
               for r in dict.fromkeys(mentioned)]
    for chunk in group(scored):
        seg_text = " ".join(s.text for s in chunk)
        intensity = max(s.intensity for s in chunk)
        sentiment = max((s.sentiment for s in chunk), key=abs)
        seg_lower = seg_text.lower()
        in_seg = [r for r, needle, everywhere, forms in seekers
                  if needle in seg_lower or everywhere or any(w in seg_lower for w in forms)]
        seg = SegmentSpec(text=seg_text, intensity=intensity,
                          valence="pos" if sentiment > 0.15 else "neg" if sentiment < -0.15 else "neu",
                          sentiment=sentiment, user_flag=any(s.anchor for s in chunk)
                          and intensity >= THETA,
                          entities=[r for r in dict.fromkeys([speaker_ref, *in_seg]) if r],
                          topic=topic_words(seg_text))
        if ex.segments and re.match(r"(?i)^(so|that's why|because of (?:that|this)|as a result|"
                                    r"which is why)\b", seg_text):
            seg.parents = [len(ex.segments) - 1]
        ex.segments.append(seg)
    return ex
