"""Names in a text, for the offline extractor (INGEST §3) and the fiction scan.

A name is a run of capitalised words (joined by a space or " & ") that are not common words.
Left out: a sentence's first word unless a second capitalised word follows it ("Dana Whitfield
said") or something beyond its capital says it is a name ("Dana said": core/ingest/openers.py); anything inside quotes (titles of books, songs and paintings, and other people's
speech); and vocatives ("Thanks, Mel!", "Hey Caroline"): the one addressed is the person being
talked to, already known as a speaker.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Container, Iterable, Set
from dataclasses import dataclass

# Capitalised words that are not names (sentence starters, interjections, calendar words,
# languages and nationalities, platforms …).
NOT_NAMES = set("""
I I'm I've I'd I'll Im OK Ok Okay Yes Yeah Yep No Nope Oh Ah Wow Hey Hi Hello Thanks Thank
Sure Well So And But Or Yet Because Also Then Now Today Tomorrow Yesterday Tonight Anyway
Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June
July August September October November December Mr Mrs Ms Dr St The A An This That These Those
It Its It's He She They We You Your My Our His Her Their Them What When Where Why How Who Which
Whatever Wherever God Lord Jesus Christmas Easter Halloween Thanksgiving English Internet TV
LGBTQ LGBT LGBTQ+ USA US UK EU AI DIY Mom Dad Mum Grandma Grandpa Haha Lol LOL Omg OMG Aww Ugh
Cool Great Nice Awesome Amazing Good Bad Congrats Congratulations Absolutely Definitely Totally
Just Really Very Please Sorry Hmm Um Uh Bye Goodbye Cheers Love Dear Happy Merry New Old
Let Let's Can Could Would Should Will Did Do Does Is Are Was Were Have Has Had Being Been Not
Instagram Facebook Twitter YouTube Google Netflix Spotify Zoom Pride Black White Asian
Mon Tue Tues Wed Thu Thur Thurs Fri Sat Sun Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec
Month Week Weekend Spring Summer Autumn Fall Winter Year Year's Eve Day Night Morning Evening
Here There Someone Somebody Everyone Everybody Anyone Nobody Nothing Everything Something
Sounds Seems Looks Maybe Perhaps Still Even Ever Never Always Again Wait Look See Yay Woah Whoa
TikTok Snapchat WhatsApp LinkedIn Reddit Pinterest Amazon Uber Lyft Etsy Discord Twitch
Russian American British French German Spanish Italian Chinese Japanese Korean Indian Mexican
Canadian Australian Swedish Dutch Polish Ukrainian Irish Scottish African European Latino Latina
Hispanic Jewish Muslim Christian Catholic Buddhist Hindu Arabic Portuguese Brazilian Greek
Turkish Persian Filipino Vietnamese Thai Norwegian Danish Finnish
People Kids Guys Folks Parents Both Others Neither Either Each
""".split()) | set("""
Вы Вас Вам Вами Ваш Ваша Ваше Ваши Вашего Вашей Вашу Вашим Бог Бога Богу Богом Боже Господи
Господь Рождество Рождества Пасха Пасху Пасхи Без В Во С Со К Ко У О Об На За По Под Над Из От До
Для При Про Через После Перед Между И А Но Или Что Как Когда Где Это Этот Эта Эти Там Тут Здесь Вот
Все Всё Мы Я Ты Он Она Они Оно Мой Моя Моё Мои Наш Наша Наши Его Её Их Вчера Сегодня Завтра Потом
Теперь Ну Да Нет Привет Спасибо Пожалуйста Ой Ах Ох
Δευτέρα Τρίτη Τετάρτη Πέμπτη Παρασκευή Σάββατο Κυριακή Ιανουάριος Φεβρουάριος Μάρτιος Απρίλιος
Μάιος Ιούνιος Ιούλιος Αύγουστος Σεπτέμβριος Οκτώβριος Νοέμβριος Δεκέμβριος Ιανουαρίου
Φεβρουαρίου Μαρτίου Απριλίου Μαΐου Ιουνίου Ιουλίου Αυγούστου Σεπτεμβρίου Οκτωβρίου Νοεμβρίου
Δεκεμβρίου Ιανουάριο Φεβρουάριο Μάρτιο Απρίλιο Μάιο Ιούνιο Ιούλιο Αύγουστο Σεπτέμβριο Οκτώβριο
Νοέμβριο Δεκέμβριο Δευτέρας Τρίτης Τετάρτης Πέμπτης Παρασκευής Σαββάτου Κυριακής Θεέ Θεός Θεού
Χριστούγεννα Πάσχα Ο Η Το Οι Τα Τον Την Τη Του Της Των Και Αλλά Ή Στην Στη Στο Στον Με Για Από Σε
Χθες Σήμερα Αύριο Εγώ Εσύ Εμείς Αυτός Αυτή Αυτό Ναι Όχι Γεια Ευχαριστώ
""".split())   # Russian's polite "Вы"; Greek capitalises days and months; words that begin
#                 a sentence before a name ("Без Бабы Веры", "Με τον Γιώργο")

# Countries and continents: a place whatever the words around them say.
COUNTRIES = set("""
Afghanistan Albania Algeria Argentina Armenia Australia Austria Belgium Bolivia Brazil Bulgaria
Cambodia Canada Chile China Colombia Croatia Cuba Cyprus Czechia Denmark Ecuador Egypt England
Estonia Ethiopia Finland France Germany Ghana Greece Hungary Iceland India Indonesia Iran
Iraq Ireland Israel Italy Jamaica Japan Kazakhstan Kenya Korea Latvia Lebanon Lithuania
Malaysia Mexico Morocco Nepal Netherlands Nigeria Norway Pakistan Peru Philippines Poland
Portugal Romania Russia Scotland Serbia Singapore Slovakia Slovenia Spain Sweden Switzerland
Syria Taiwan Thailand Tunisia Turkey Ukraine Uruguay Venezuela Vietnam Wales Africa Asia Europe
America Antarctica Hawaii Alaska Texas California Florida
""".split())


def _cased_letters(test) -> str:
    """A character-class body (as ranges) of the letters of every cased script for which `test`
    holds: Latin ("José", "Zoë", "Łukasz" are names whole), Cyrillic, Greek, Armenian,
    Georgian, Cherokee, Deseret, Adlam … Uncased scripts (Chinese, Arabic, Hebrew, Devanagari)
    have neither, so capitalisation never marks a name there (see known_names_in)."""
    body, start, prev = [], None, None
    for code in range(0x41, 0x1F000):
        if test(chr(code)):
            if start is None:
                start = code
            prev = code
            continue
        if start is not None:
            body.append(re.escape(chr(start)) if start == prev
                        else f"{re.escape(chr(start))}-{re.escape(chr(prev))}")
            start = None
    return "".join(body)


def _upper(c: str) -> bool:   # "Ǆ" and the title-case digraph "ǅ"; not "Ⅳ" or "Ⓐ"
    return (c.isupper() and c.isalpha()) or unicodedata.category(c) == "Lt"


def _lower(c: str) -> bool:
    return c.islower() and c.isalpha()


UPPER = _cased_letters(_upper)   # for regexes: [{UPPER}] is a capital letter, in any script
LOWER = _cased_letters(_lower)
MARKS = "\u0300-\u036f"          # combining accents: a decomposed "José" is one word too
_TOKEN = re.compile(rf"[{UPPER}{LOWER}][{UPPER}{LOWER}{MARKS}'’\-]*")
_QUOTED = re.compile(r"\"[^\"\n]{1,300}\"|“[^”\n]{1,300}”|«[^»\n]{1,300}»|„[^“”\n]{1,300}[“”]|"
                     r"(?<!\w)['‘][^'’‘\n]{1,300}['’](?!\w)")
_GREETING = re.compile(r"(?i)(?:^|\W)(?:hey|hi|hello|thanks|thank you|thx|congrats|"
                       r"congratulations|bye|dear|good (?:morning|night|evening)|sorry|"
                       r"love you|miss you|yo)\s*[,!]?\s*$")
_INTERJECTIONS = re.compile(
    r"(?i)\W*(?:(?:wow|yeah|yes|yep|yup|oh|ah|aw+|whoa|woah|omg|ok|okay|well|hmm+|haha|lol|hey|"
    r"hi|hello|thanks|yay|oops|ugh|so|and|but|sure|great|nice|cool|awesome|right|um|congrats|"
    r"dear|sorry|gosh|geez|nope|no|man|aha|alright|wait|look|listen|honestly|seriously)"
    r"[,!.]?\s+){0,2}")
# a title's full stop ("Dr. Patel", "St. Mary's") does not end the sentence
_TITLES = "".join(rf"(?<!\b{t}\.)" for t in ("Dr", "Mr", "Mrs", "Ms", "St", "Prof"))
# a sentence ends at . ! ? …, Armenian's full stop "։" and Greek's question mark (U+037E)
SENTENCE_BREAK = re.compile(
    rf"(?<=[.!?…։\u037e]){_TITLES}[\"')\]»]*\s+(?=[\"'(\[«]?[{UPPER}0-9])|\n+")
_SENTENCE = SENTENCE_BREAK


@dataclass(frozen=True)
class Mention:
    name: str
    start: int              # offset in the text
    vocative: bool = False  # "Thanks, Mel!"
    quoted: bool = False    # inside quotes: a title, or someone else's words
    initial: bool = False   # begins its sentence


def quoted_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _QUOTED.finditer(text)]


def inside(spans: list[tuple[int, int]], pos: int) -> bool:
    """`spans` in order and apart, as quoted_spans gives them: only the last one that starts at
    or before `pos` can hold it (a letter full of quoted speech asks this once per name)."""
    last = bisect_right(spans, (pos, float("inf"))) - 1
    return last >= 0 and spans[last][0] <= pos < spans[last][1]


def common_word(token: str) -> bool:
    """A common word, its possessive, or a contraction of one ("I’ll", "You're")."""
    token = token.replace("’", "'")
    return token in NOT_NAMES or token.rstrip("'s") in NOT_NAMES \
        or token.split("'")[0] in NOT_NAMES


_COMMA_BEFORE = re.compile(r",\s*$")
_MARK_AFTER = re.compile(r"\s*[,!?]")
_CALL_AFTER = re.compile(r"\s*[!?]")
_CLOSE_AFTER = re.compile(r"\s*[.…]*\s*[\"'’”)]*\s*")
# How far before the end of the previous word a greeting's match can begin: the longest
# greeting ("congratulations", 15 letters) and the non-word character before it.
GREETING_REACH = 16


def _vocative(sent: str, start: int, end: int, words: int, previous_end: int = 0) -> bool:
    """Is the name at sent[start:end] someone spoken to? `previous_end` is where the word
    before it ends (0 for none). What comes before the name is searched from there, not from
    the sentence's start: a greeting ends with that word, and a comma comes after it. Searched
    from the start, a letter pasted as one sentence made every name in it re-read all the text
    before it (quadratic: 24.5 s for a 160 KB letter, bench/big_message.py). The patterns end
    at the name (endpos) and begin where the search does (pos): nothing is sliced either."""
    reach = max(0, previous_end - GREETING_REACH)
    if _GREETING.search(sent, reach, start):
        return True
    if _INTERJECTIONS.fullmatch(sent, 0, start) and _MARK_AFTER.match(sent, end):
        return True   # "Wow, Mel, that's …", "Yeah Mel, let's …"
    comma = _COMMA_BEFORE.search(sent, previous_end, start)
    if comma and _CALL_AFTER.match(sent, end):
        return True
    return bool(comma and _CLOSE_AFTER.fullmatch(sent, end) and words <= 6)


# A weekday or a month can begin a name ("Thursday Ink", "May Parker") but is not one alone.
CALENDAR = set("""Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March
April May June July August September October November December""".split())
# Common words that begin place names, also where a sentence begins: "New York" is not "York"
# (another city), nor "Old Town" a "Town"
PLACE_STARTS = {"New", "Old", "Good", "Great"}


def lowercase_words(texts: Iterable[str]) -> set[str]:
    """Words seen in lower case: a capitalised one of them that begins a sentence is most likely
    the ordinary word ("After Nadia's shift", "Remember Jon?"), not the start of a name."""
    out: set[str] = set()
    for text in texts:
        out.update(w for w in _TOKEN.findall(text) if w.islower())
    return out


def mentions(text: str, *, common: Set[str] | None = None,
             opens: Container[str] = frozenset()) -> list[Mention]:
    """Every name-like run in the text, with what kind of mention it is. `common` holds the
    words the whole import uses in lower case (default: this text's own); `opens` the words
    that are names even where they begin a sentence alone (core/ingest/openers.py)."""
    out: list[Mention] = []
    quotes = quoted_spans(text)
    if common is None:
        common = lowercase_words([text])
    offset = 0
    for part in _SENTENCE.split(text):
        if not part:
            continue
        base = text.find(part, offset)
        offset = base + len(part)
        sent = part
        toks = list(_TOKEN.finditer(sent))
        words = len(toks)
        i = 0
        while i < len(toks):
            tok = toks[i].group(0)
            follows = (i + 1 < len(toks) and toks[i + 1].group(0)[0].isupper()
                       and not common_word(toks[i + 1].group(0))
                       and sent[toks[i].end():toks[i + 1].start()] in (" ", " & "))
            starts_place = tok in PLACE_STARTS and follows
            named = tok[0].isupper() and len(tok) > 1 and not tok.isupper() and (
                not common_word(tok) or (tok in CALENDAR and follows and i > 0) or starts_place)
            if i == 0 and not starts_place and (tok.lower() in common
                                                or tok.rstrip("'’s").lower() in common):
                named = False
            if not named or (i == 0 and not follows
                             and re.sub(r"['’]s$", "", tok) not in opens):
                i += 1
                continue
            j = i + 1
            while j < len(toks) and toks[j].group(0)[0].isupper() \
                    and not common_word(toks[j].group(0)) \
                    and sent[toks[j - 1].end():toks[j].start()] in (" ", " & "):
                j += 1
            start, end = toks[i].start(), toks[j - 1].end()
            name = re.sub(r"['’]s$", "", sent[start:end]).rstrip("'’-")
            if name and not common_word(name):
                out.append(Mention(name, base + start,
                                   vocative=_vocative(sent, start, end, words,
                                                      toks[i - 1].end() if i else 0),
                                   quoted=inside(quotes, base + start), initial=i == 0))
            i = j
    return out


def name_candidates(text: str, *, common: Set[str] | None = None,
                    opens: Container[str] = frozenset()) -> list[str]:
    """Names that may be entities: not quoted, not a vocative."""
    return [m.name for m in mentions(text, common=common, opens=opens)
            if not m.vocative and not m.quoted]
