"""When did it happen? The date a segment's own words give, resolved against the message's
timestamp: "yesterday", "three weeks ago", "last Friday", "on 7 May 2023", "вчера",
"два года назад".

Only the past is resolved: "tomorrow" or "next week" name a plan, and the memory of the plan
is the moment it was said. A date without a year ("on May 7") that would lie after the message
is left alone for the same reason. The first resolvable mention wins; the result keeps the
message's time of day, so events of one message stay in their order.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

ISO = "%Y-%m-%dT%H:%M:%SZ"


@dataclass(frozen=True)
class DateMention:
    ts: str          # ISO-8601 UTC
    phrase: str      # the words it came from
    precision: str   # day | week | month | year


_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2,
    "couple of": 2, "a few": 3, "few": 3, "several": 3,
    "один": 1, "одну": 1, "одна": 1, "два": 2, "две": 2, "три": 3, "четыре": 4, "пять": 5,
    "шесть": 6, "семь": 7, "восемь": 8, "девять": 9, "десять": 10, "пару": 2, "несколько": 3,
}
_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
_WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
_NUM = "|".join(sorted((re.escape(k) for k in _NUMBERS), key=len, reverse=True))
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))

_UNIT_EN = {"day": "day", "week": "week", "month": "month", "year": "year"}
_UNIT_RU = {"д": "day", "сут": "day", "нед": "week", "мес": "month", "год": "year", "лет": "year"}

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("iso", re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")),
    ("dmy", re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?(?: of)? ({_MONTH})\.?,? (\d{{4}})\b", re.I)),
    ("mdy", re.compile(rf"\b({_MONTH})\.? (\d{{1,2}})(?:st|nd|rd|th)?,? (\d{{4}})\b", re.I)),
    ("md", re.compile(rf"\bon (?:the )?(?:(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?({_MONTH})|"
                      rf"({_MONTH}) (\d{{1,2}})(?:st|nd|rd|th)?)\b(?!,? \d{{4}})", re.I)),
    ("before_yesterday", re.compile(r"\b(?:the day before yesterday|позавчера)\b", re.I)),
    ("yesterday", re.compile(r"\b(?:yesterday|last night|вчера|прошлой ночью)\b", re.I)),
    ("ago", re.compile(rf"\b(\d+|{_NUM}) (day|week|month|year)s? ago\b", re.I)),
    ("ago_ru", re.compile(rf"(?<!\w)(\d+|{_NUM}) (д|сут|нед|мес|год|лет)\w* назад(?!\w)", re.I)),
    ("last_unit", re.compile(r"\blast (week|weekend|month|year)\b", re.I)),
    ("last_unit_ru", re.compile(r"(?<!\w)(?:на прошлой (неделе)|в прошлом (месяце|году)|"
                                r"на прошлых (выходных))(?!\w)", re.I)),
    ("last_weekday", re.compile(r"\blast (monday|tuesday|wednesday|thursday|friday|saturday|"
                                r"sunday)\b", re.I)),
    ("in_year", re.compile(r"\b(?:in|back in) ((?:19|20)\d\d)\b", re.I)),
]


def parse_ts(value: str) -> datetime:
    return datetime.strptime(value, ISO).replace(tzinfo=timezone.utc)


def resolve(text: str, anchor_ts: str) -> DateMention | None:
    """The earliest date mention in `text` that resolves to a moment at or before the anchor."""
    try:
        anchor = parse_ts(anchor_ts)
    except ValueError:
        return None
    found: list[tuple[int, DateMention]] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            moment, precision = _moment(kind, match, anchor)
            if moment is not None and moment <= anchor:
                found.append((match.start(), DateMention(moment.strftime(ISO), match.group(0),
                                                         precision)))
                break
    return min(found, key=lambda item: item[0])[1] if found else None


def _moment(kind: str, m: re.Match[str], anchor: datetime) -> tuple[datetime | None, str]:
    try:
        if kind == "iso":
            return _on(anchor, int(m[1]), int(m[2]), int(m[3])), "day"
        if kind == "dmy":
            return _on(anchor, int(m[3]), _MONTHS[m[2].lower()], int(m[1])), "day"
        if kind == "mdy":
            return _on(anchor, int(m[3]), _MONTHS[m[1].lower()], int(m[2])), "day"
        if kind == "md":
            day, month = (m[1], m[2]) if m[1] else (m[4], m[3])
            return _on(anchor, anchor.year, _MONTHS[month.lower()], int(day)), "day"
        if kind == "before_yesterday":
            return anchor - timedelta(days=2), "day"
        if kind == "yesterday":
            return anchor - timedelta(days=1), "day"
        if kind in ("ago", "ago_ru"):
            count = int(m[1]) if m[1].isdigit() else _NUMBERS[m[1].lower()]
            unit = _UNIT_EN.get(m[2].lower()) or _UNIT_RU[m[2].lower()]
            return _back(anchor, unit, count), unit
        if kind in ("last_unit", "last_unit_ru"):
            word = next(g for g in m.groups() if g).lower()
            unit = {"weekend": "weekend", "неделе": "week", "месяце": "month", "году": "year",
                    "выходных": "weekend"}.get(word, word)
            if unit == "weekend":   # the Saturday before the anchor's week
                return anchor - timedelta(days=anchor.weekday() + 2), "day"
            return _back(anchor, unit, 1), unit
        if kind == "last_weekday":
            days = (anchor.weekday() - _WEEKDAYS[m[1].lower()]) % 7 or 7
            return anchor - timedelta(days=days), "day"
        if kind == "in_year":
            year = int(m[1])
            return (_on(anchor, year, 1, 1), "year") if year < anchor.year else (None, "")
    except (ValueError, KeyError, OverflowError):
        return None, ""
    return None, ""


def _on(anchor: datetime, year: int, month: int, day: int) -> datetime:
    return anchor.replace(year=year, month=month, day=day)


def _back(anchor: datetime, unit: str, count: int) -> datetime:
    if unit == "day":
        return anchor - timedelta(days=count)
    if unit == "week":
        return anchor - timedelta(weeks=count)
    months = count * (12 if unit == "year" else 1)
    total = anchor.year * 12 + anchor.month - 1 - months
    year, month = divmod(total, 12)
    day = min(anchor.day, calendar.monthrange(year, month + 1)[1])
    return anchor.replace(year=year, month=month + 1, day=day)
