"""The offline storyline summary: extractive, no model, deterministic.

A storyline's members are cut into sentences; each sentence is scored by how central it is to
the storyline (a LexRank-style centrality over TF-IDF cosines between all its sentences), by how
central its event is (the event vector's cosine to the storyline's centroid), and by whether it
names one of the storyline's people. Up to three sentences are chosen greedily, each one unlike
those already chosen and preferably from another event, then put back in story order with the
month they happened ("In March 2021, …"), so the people's names and the dates survive.

Weights were tuned on the tuning half of bench/storylines/reference_summaries.json and are
reported on the other half (docs/benchmarks.md, bench/storyline_summaries.py).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.ingest.offline import STOPWORDS, sentences

MAX_SENTENCES = 3
MAX_CHARS = 480          # a summary stays readable in a list (about three sentences)
SENTENCE_CHARS = 240     # a longer sentence is cut at a word boundary
TITLE_CHARS = 72


@dataclass(frozen=True)
class Weights:
    """The summariser's constants: score = centrality + each weight × its signal, and the
    size of what is picked (tuned on the tuning half)."""
    event: float = 0.35        # the event's cosine to the storyline's centroid
    first: float = 0.15        # the first sentence of an event (its gist, in curated memories)
    name: float = 0.10         # names one of the storyline's people
    title: float = 0.25        # shares words with its event's title
    length: float = 0.15       # minus this per 100 characters (shorter units read better)
    redundant: float = 0.5     # a sentence this similar to a chosen one is not chosen
    same_event: float = 0.6    # a second sentence from an already used event counts this much
    dates: bool = True         # "In March 2021, …"
    clauses: bool = True       # units are clauses (split at ; : and dashes), not sentences
    headlines: bool = True     # an event's own title (when it is a headline) is a unit too
    units: int = 4             # at most this many units, joined into at most 3 sentences
    chars: int = MAX_CHARS     # … and about this many characters


DEFAULT_WEIGHTS = Weights()

_WORD = re.compile(r"[^\W\d_][\w'’\-]*", re.UNICODE)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")


@dataclass
class Member:
    """One event of a storyline, as the summariser needs it."""
    id: int
    ts: str
    title: str
    description: str
    people: Sequence[str] = ()             # names (and aliases) of the people it links to
    names: Sequence[str] = ()              # names and aliases of every entity it links to
    centrality: float | None = None        # cosine of its vector to the storyline's centroid


@dataclass
class Summary:
    title: str
    text: str
    picked: list[tuple[int, str]] = field(default_factory=list)   # (event id, sentence)


@dataclass
class _Unit:
    member: int                 # index into members
    pos: int                    # sentence position in its event
    text: str
    speaker: str
    tokens: list[str]
    score: float = 0.0


def speaker_of(title: str, description: str) -> tuple[str, str]:
    """("Dana", body) for an imported chat turn ("Dana: …" in both title and description),
    else ("", description)."""
    label, sep, body = description.partition(": ")
    if sep and 0 < len(label) <= 40 and "\n" not in label and title.startswith(label + ": "):
        return label, body.strip()
    return "", description.strip()


def tokens(text: str) -> list[str]:
    """Content words, lower-cased, a plural "s" dropped."""
    out = []
    for word in _WORD.findall(text.lower()):
        word = word.strip("'’-")
        if len(word) < 2 or word in STOPWORDS:
            continue
        out.append(word[:-1] if len(word) > 4 and word.endswith("s") else word)
    return out


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(",;:—-") + "…"


# a clause ends at ; or at a colon that does not introduce a quote, or at a spaced dash
_CLAUSE = re.compile(r"\s*(?:;|:(?=\s+[^\s'\"«“‘])|\s[–—-]\s)\s*")


def is_headline(title: str, description: str) -> bool:
    """A title written as a headline, not the head of the text (as an importer writes it)."""
    head = title.rstrip().removesuffix("…").rstrip()
    speaker, body = speaker_of(title, description)
    return bool(head) and not speaker and not body.startswith(head)


def _units(members: Sequence[Member], clauses: bool, headlines: bool) -> list[_Unit]:
    units = []
    for m, member in enumerate(members):
        speaker, body = speaker_of(member.title, member.description)
        parts = sentences(body) if body else []
        if clauses:
            parts = [c for p in parts for c in _CLAUSE.split(p) if len(c.split()) >= 2]
        if headlines and is_headline(member.title, member.description):
            parts = [member.title.strip(), *parts]
        if not parts:
            parts = [member.title]
        for pos, text in enumerate(parts):
            text = _clip(text, SENTENCE_CHARS)
            units.append(_Unit(m, pos, text, speaker, tokens(text)))
    return units


def _tfidf(units: list[_Unit]) -> list[dict[str, float]]:
    df = Counter(t for u in units for t in set(u.tokens))
    n = len(units)
    vectors = []
    for u in units:
        counts = Counter(u.tokens)
        vec = {t: (1 + math.log(c)) * math.log((n + 1) / (df[t] + 0.5)) for t, c in counts.items()}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        vectors.append({t: v / norm for t, v in vec.items()})
    return vectors


def _cos(a: dict[str, float], b: dict[str, float]) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(v * b.get(t, 0.0) for t, v in a.items())


def _centrality(sim: list[list[float]], damping: float = 0.85, rounds: int = 30) -> list[float]:
    """LexRank with continuous weights: the stationary score of a walk over sentence
    similarities, scaled so the mean is 1."""
    n = len(sim)
    if n == 1:
        return [1.0]
    out_weight = [sum(row) - row[i] for i, row in enumerate(sim)]
    score = [1.0 / n] * n
    for _ in range(rounds):
        score = [(1 - damping) / n + damping * sum(
            score[j] * sim[j][i] / out_weight[j] for j in range(n) if j != i and out_weight[j] > 0)
            for i in range(n)]
    mean = sum(score) / n or 1.0
    return [s / mean for s in score]


def _names_pattern(members: Sequence[Member]) -> re.Pattern[str] | None:
    names = sorted({n.strip() for m in members for n in m.people if len(n.strip()) >= 2},
                   key=len, reverse=True)
    if not names:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(n) for n in names) + r")(?!\w)",
                      re.IGNORECASE)


def month_of(ts: str) -> str:
    """'2021-03-13T…' → 'March 2021'."""
    try:
        return f"{_MONTHS[int(ts[5:7]) - 1]} {ts[:4]}"
    except (ValueError, IndexError):
        return ts[:10]


def _bare(word: str) -> str:
    return re.sub(r"['’]s$", "", word)


def name_words(members: Sequence[Member]) -> set[str]:
    """Words that are names here: in a linked entity's name or alias, or written capitalised
    inside a sentence. A sentence opening with any other word is lower-cased after
    "In March 2021, "; "Tobias", "Nadia's" and "Christmas" keep their capital."""
    found = {"I"}
    for m in members:
        for name in m.names:
            found.update(_WORD.findall(name))
        for sentence in sentences(f"{m.title}. {m.description}"):
            found.update(_bare(w) for w in _WORD.findall(sentence)[1:] if w[:1].isupper())
    return {w for w in found if w.lower() not in STOPWORDS}


def _sentence_end(text: str) -> str:
    if text.endswith((".", "!", "?", "…")) or re.search(r"[.!?…]['\"”’»]+$", text):
        return text
    return text + "."


def summarise(members: Sequence[Member], *, max_sentences: int = MAX_SENTENCES,
              weights: Weights = DEFAULT_WEIGHTS) -> Summary:
    """The storyline's title and a summary of 1..max_sentences sentences (members in story
    order: by time, then id)."""
    if not members:
        return Summary("", "")
    units = _units(members, weights.clauses, weights.headlines)
    vectors = _tfidf(units)
    sim = [[_cos(a, b) for b in vectors] for a in vectors]
    central = _centrality(sim)
    names = _names_pattern(members)
    for i, u in enumerate(units):
        member = members[u.member]
        title_tokens = set(tokens(member.title))
        overlap = (len(title_tokens & set(u.tokens)) / len(title_tokens)) if title_tokens else 0.0
        u.score = (central[i]
                   + weights.event * (member.centrality if member.centrality is not None else 0)
                   + weights.first * (u.pos == 0)
                   + weights.name * bool(names is not None and names.search(u.text))
                   + weights.title * overlap
                   - weights.length * len(u.text) / 100)
    chosen = _choose(units, sim, weights)
    chosen.sort(key=lambda i: (members[units[i].member].ts, members[units[i].member].id,
                               units[i].pos))
    text = _render([units[i] for i in chosen], members, max_sentences, weights.dates)
    top = max(chosen, key=lambda i: (units[i].score, -i)) if chosen else 0
    return Summary(title=_title(members[units[top].member], units[top]), text=text,
                   picked=[(members[units[i].member].id, units[i].text) for i in chosen])


def _choose(units: list[_Unit], sim: list[list[float]], weights: Weights) -> list[int]:
    """Greedy: the best unit not too like those chosen, a used event's units discounted, while
    the units and characters allow."""
    chosen: list[int] = []
    used_members: set[int] = set()
    length = 0
    order = sorted(range(len(units)), key=lambda i: (-units[i].score, i))
    while len(chosen) < weights.units:
        best, best_value = None, None
        for i in order:
            if i in chosen or any(sim[i][j] >= weights.redundant for j in chosen):
                continue
            value = units[i].score * (weights.same_event if units[i].member in used_members
                                      else 1.0)
            if best_value is None or value > best_value:
                best, best_value = i, value
        if best is None:
            break
        extra = len(units[best].text) + 20
        if chosen and length + extra > weights.chars:
            break
        chosen.append(best)
        used_members.add(units[best].member)
        length += extra
    return chosen


def _render(picked: list[_Unit], members: Sequence[Member], max_sentences: int,
            dates: bool) -> str:
    """Story order, at most max_sentences sentences (consecutive units joined by "; "), the
    month said wherever it changes."""
    if not picked:
        return ""
    k = min(max_sentences, len(picked))
    sizes = [len(picked) // k + (1 if i < len(picked) % k else 0) for i in range(k)]
    names = name_words(members)
    out, last_month, pos = [], None, 0
    for size in sizes:
        parts = []
        for u in picked[pos:pos + size]:
            month = month_of(members[u.member].ts)
            shown = month if dates and month != last_month else None
            last_month = month
            text = u.text.rstrip(" .;:,")
            if u.speaker:
                text = f"{u.speaker}: {text}"
            elif parts or shown:
                text = _lower_first(text, names)
            parts.append(f"in {shown}, {text}" if shown else text)
        pos += size
        sentence = "; ".join(parts)
        out.append(_sentence_end(sentence[0].upper() + sentence[1:]))
    return " ".join(out)


def _lower_first(text: str, names: set[str]) -> str:
    words = _WORD.findall(text[:40])
    if words and text.startswith(words[0]) and _bare(words[0]) not in names \
            and not words[0].isupper():
        return text[0].lower() + text[1:]
    return text


def _title(member: Member, unit: _Unit) -> str:
    """The central event's own title when it is a headline; an imported turn's title is only
    the head of its text, so the central sentence's head stands in."""
    if not is_headline(member.title, member.description):
        speaker = unit.speaker
        text = _clip(unit.text, TITLE_CHARS - len(speaker) - 2)
        return f"{speaker}: {text}" if speaker else text
    return _clip(member.title, TITLE_CHARS)
