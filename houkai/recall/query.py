"""Query understanding for recall: read the question before ranking (no LLM, no I/O).

:func:`parse_query` turns a question into a :class:`QueryParse`:

* **time**: "yesterday", "last week", "3 days ago", "in May 2023", "on 8 May 2023",
  "before/after <date>", "this month" become a window on ``created_at``,
  resolved against the caller's ``as_of`` (default: the clock). Recall uses
  it as a soft proximity boost, never as a filter, so memories that carry no
  meaningful date (all written "now") are all boosted alike: the ranking does
  not move.
* **recency intent**: "latest", "current(ly)", "now", "most recent" raise the
  recency weight; "first time", "earliest", "originally" favour the oldest.
* **exact tokens**: ids (``ORN-4821``, ``E1042``, a commit hash), quoted phrases, code
  identifiers (``snake_case``, ``camelCase``, ``a.b``), numbers: the lexical weight rises.
* **names**: capitalised words (not a short acronym: "CI", "API"), matched later
  against candidates' tags and sources.

The ``kind`` (``keyword``, ``temporal``, ``recency`` or ``general``) selects
the fitted fusion weights (:data:`FITTED`).
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from ..domain import numbers
from ..domain.text import singular_acronyms, without_date_stamp

if TYPE_CHECKING:
    from ..store.lexstats import TermStats

DAY = 86_400.0
QUERY_KINDS: tuple[str, ...] = ("keyword", "temporal", "recency", "general")

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTHS.pop("may", None)
_MONTHS["may"] = 5
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_UNITS = {"day": 1.0, "week": 7.0, "month": 30.0, "year": 365.0}
_NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "couple of": 2,
    "few": 3,
}

_AGO = re.compile(
    r"\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|couple of|few)\s+"
    r"(day|week|month|year)s?\s+ago\b",
    re.I,
)
_LAST = re.compile(r"\b(last|past|previous|this)\s+(day|week|month|year)\b", re.I)
_DAY_WORD = re.compile(r"\b(yesterday|today|tonight|this morning)\b", re.I)
_DAY_MONTH_YEAR = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH_RE})\.?,?\s+(\d{{4}})\b", re.I
)
_MONTH_DAY_YEAR = re.compile(
    rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I
)
_MONTH_YEAR = re.compile(rf"\b({_MONTH_RE})\.?,?\s+(\d{{4}})\b", re.I)
_IN_MONTH = re.compile(rf"\b(?:in|during|since|before|after|by)\s+({_MONTH_RE})\b", re.I)
_YEAR = re.compile(r"\b(?:in|during|since|before|after|by)\s+((?:19|20)\d{2})\b", re.I)
_ISO_DATE = re.compile(r"\b((?:19|20)\d{2})-(\d{2})-(\d{2})\b")
#: "3/14/2026", "14.03.2026": a window only when one order of day and month is a date;
#: an exact token either way, as an ISO date's numbers are (ADR 0118)
_NUMERIC_DATE = re.compile(numbers.DATE_WITH_YEAR)
_DIRECTION = re.compile(r"\b(before|after|since|until|by)\b(?:\s+[\w-]+){0,4}\s*$", re.I)

_LATEST = re.compile(
    r"\b(latest|most recent(?:ly)?|currently|current|right now|now|nowadays|these days|"
    r"at the moment|recently|newest|still)\b",
    re.I,
)
#: A question in the past tense that asks what something started with: its first value
#: ("What replica count did search-indexer start with?"; not "… start with now?", ADR 0115).
STARTED_WITH = r"started (?:out )?with|began with|did\b[^?.!]*\bstart (?:out )?with"
_FIRST = re.compile(
    r"\b(first time|first|earliest|originally|initially|oldest|" + STARTED_WITH + r")\b", re.I
)
_WHEN = re.compile(r"^\s*(when|what (?:year|month|date|day|time)|how long ago)\b", re.I)

# A single quote opens or closes a phrase only outside a word: "What's Tom's" quotes nothing.
_QUOTED = re.compile(r"[\"“”]([^\"“”]{2,80})[\"“”]|(?<!\w)['‘]([^'‘’]{2,80})['’](?!\w)")
_ID = re.compile(
    r"\b(?=[A-Za-z0-9_.\-]*\d)(?=[A-Za-z0-9_.\-]*[A-Za-z])[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)+\b"
)
#: a word of letters and digits, both: a commit hash, a booking code, an error code
_MIXED = re.compile(r"\b(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{5,}\b")
_CODE = re.compile(r"\b(?:[a-z]+_[a-z0-9_]+|[a-z]+[A-Z][A-Za-z0-9]+|[A-Za-z]+\.[A-Za-z_]+\(?\)?)\b")
_NUMBER = re.compile(r"(?<![\w.])\d{2,}(?:\.\d+)?(?![\w.])")
#: A time of day ("2:30pm", "9 am", "14:30"): the memory holding it is the one asked for,
#: found by its form on either clock (ADR 0117).
CLOCK = re.compile(
    r"(?<![\w:.])\d{1,2}(?:[:.][0-5]\d)?\s?[ap]\.?m\b|(?<![\w:.])\d{1,2}[:h][0-5]\d\b", re.I
)
#: What a question names after these is its reference point, not whom it is about: "Who
#: was our babysitter before **Luz**?" asks for the one before her (ADR 0118). The
#: ``current`` stage's named things end at "after" and "than" too (``asking._REFERENCE``).
REFERENCE_WORDS = ("before", "instead of", "rather than", "other than")
_REFERENCE_POINT = re.compile(rf"\b(?:{'|'.join(REFERENCE_WORDS)})\b", re.I)
_CAPITAL = re.compile(r"\b[A-Z][a-zA-Z]+(?:'s)?\b")
_NOT_NAMES = (
    frozenset(
        """what when where who whom whose which why how did does do is are was were will would can
    could should has have had the a an i in on at my our your their his her its this that these
    those last next first yesterday today tonight latest current currently before after since
    until during tell give list name find show remember recall please any anything""".split()
    )
    | frozenset(_MONTHS)
    | frozenset(d.lower() for d in calendar.day_name)
    | frozenset(d.lower() + "s" for d in calendar.day_name)  # "Is the sync on Tuesdays?"
)


@dataclass
class QueryParse:
    """What the question asks for, as recall's stages read it (returned in ``explain``)."""

    kind: str = "general"
    window: tuple[float, float] | None = None  # created_at range; ±inf for open ends
    time_text: str = ""
    recency: str = ""  # "latest", "first" or ""
    exact: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    when_question: bool = False
    unseen: list[str] = field(default_factory=list)  # names no memory's text mentions (ADR 0061)
    stems: bool = False  # the lexical leg scored this recall over stems (recall sets it)
    cased: str = ""  # the question as the ``casing`` stage read it, when it capitalised a name

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.window is not None:
            lo, hi = self.window
            out["time"] = {
                "text": self.time_text,
                "since": None if lo == float("-inf") else round(lo, 3),
                "until": None if hi == float("inf") else round(hi, 3),
            }
        if self.recency:
            out["recency"] = self.recency
        if self.exact:
            out["exact"] = list(self.exact)
        if self.names:
            out["names"] = list(self.names)
        if self.when_question:
            out["when_question"] = True
        if self.unseen:
            out["names_unseen"] = list(self.unseen)
        if self.cased:
            out["cased"] = self.cased
        if self.stems:
            out["stems"] = True  # the lexical leg matched stems (ADR 0056): the question
            # names something the collection mentions, and the collection counts stems
        return out


def _day_start(ts: float) -> float:
    d = datetime.fromtimestamp(ts, UTC)
    return datetime(d.year, d.month, d.day, tzinfo=UTC).timestamp()


def _month_range(year: int, month: int) -> tuple[float, float]:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return start.timestamp(), end.timestamp()


def _date(year: int, month: int, day: int) -> tuple[float, float] | None:
    try:
        start = datetime(year, month, day, tzinfo=UTC)
    except ValueError:
        return None
    return start.timestamp(), (start + timedelta(days=1)).timestamp()


def _count(word: str) -> int:
    word = word.lower()
    return int(word) if word.isdigit() else _NUMBER_WORDS.get(word, 1)


def _time_window(text: str, now: float) -> tuple[tuple[float, float], str] | None:
    """The first time expression in *text* as a ``(since, until)`` window, or None."""
    found: list[tuple[int, tuple[float, float], str]] = []
    for m in _ISO_DATE.finditer(text):
        window = _date(int(m[1]), int(m[2]), int(m[3]))
        if window:
            found.append((m.start(), window, m[0]))
    for m in _NUMERIC_DATE.finditer(text):
        readings = numbers.day_orders(int(m["dmy_a"]), int(m["dmy_b"]))
        window = _date(int(m["dmy_year"]), *readings[0]) if len(readings) == 1 else None
        if window:  # "4/5/2026" is April 5 or 4 May: no window
            found.append((m.start(), window, m[0]))
    for m in _DAY_MONTH_YEAR.finditer(text):
        window = _date(int(m[3]), _MONTHS[m[2].lower()], int(m[1]))
        if window:
            found.append((m.start(), window, m[0]))
    for m in _MONTH_DAY_YEAR.finditer(text):
        window = _date(int(m[3]), _MONTHS[m[1].lower()], int(m[2]))
        if window:
            found.append((m.start(), window, m[0]))
    if not found:
        for m in _MONTH_YEAR.finditer(text):
            found.append((m.start(), _month_range(int(m[2]), _MONTHS[m[1].lower()]), m[0]))
    if not found:
        for m in _YEAR.finditer(text):
            year = int(m[1])
            year_window = (
                datetime(year, 1, 1, tzinfo=UTC).timestamp(),
                datetime(year + 1, 1, 1, tzinfo=UTC).timestamp(),
            )
            found.append((m.start(1), year_window, m[1]))
    if not found:
        for m in _IN_MONTH.finditer(text):
            month = _MONTHS[m[1].lower()]
            current = datetime.fromtimestamp(now, UTC)
            year = current.year if month <= current.month else current.year - 1
            found.append((m.start(1), _month_range(year, month), m[1]))
    today = _day_start(now)
    for m in _DAY_WORD.finditer(text):
        word = m[1].lower()
        window = (today - DAY, today) if word == "yesterday" else (today, today + DAY)
        found.append((m.start(), window, m[0]))
    for m in _AGO.finditer(text):
        days = _count(m[1]) * _UNITS[m[2].lower()]
        half = max(1.0, _UNITS[m[2].lower()] / 2)
        found.append((m.start(), (now - (days + half) * DAY, now - (days - half) * DAY), m[0]))
    for m in _LAST.finditer(text):
        span = _UNITS[m[2].lower()] * DAY
        if m[1].lower() == "this":
            found.append((m.start(), (now - span, now + DAY), m[0]))
        else:
            found.append((m.start(), (now - 2 * span, now), m[0]))
    if not found:
        return None
    start, (lo, hi), phrase = min(found, key=lambda f: f[0])
    direction = _DIRECTION.search(text[:start])  # "before the launch in March"
    if direction:
        word = direction[1].lower()
        if word in ("before", "until", "by"):
            return (float("-inf"), lo), f"{word} {phrase}"
        return (hi if word == "after" else lo, float("inf")), f"{word} {phrase}"
    return (lo, hi), phrase


def _exact_tokens(text: str) -> list[str]:
    out: list[str] = []
    for pattern in (_QUOTED, CLOCK, _NUMERIC_DATE, _ID, _MIXED, _CODE, _NUMBER):
        for m in pattern.finditer(text):
            token = ((m[1] or m[2]) if pattern is _QUOTED else m[0]).strip()
            if pattern is _NUMBER and len(token) == 4 and token[:2] in ("19", "20"):
                continue  # a year is a time expression, not an identifier
            if token and not any(token in found for found in out):
                out.append(token)  # a number inside an id already found is not a new token
    return out


def _names(text: str) -> list[str]:
    out: list[str] = []
    for m in _CAPITAL.finditer(text):
        word = singular_acronyms(m[0].removesuffix("'s"))  # "TODOs" names the TODO
        if word.lower() in _NOT_NAMES or word in out or acronym(word):
            continue
        out.append(word)
    return out


def acronym(word: str) -> bool:
    """A short all-capitals word ("CI", "PR", "API", "ETL", or a plural: "PRs", "APIs"):
    a term of the trade many memories share, not the name of someone or something in
    particular (ADR 0085), as the ``entity`` stage reads it too."""
    if word.endswith("s") and len(word) > 2:
        word = word[:-1]
    return word.isupper() and len(word) <= 3


def question_names(text: str) -> list[str]:
    """The capitalised words of *text* that may name someone or something."""
    return _names(text)


def has_exact_tokens(text: str) -> bool:
    """Does *text* hold an id, a quoted phrase, a code identifier or a number?"""
    return bool(_exact_tokens(text))


def parse_query(text: str, now: float) -> QueryParse:
    """Read *text* against the clock *now* (the caller's ``as_of``)."""
    parse = QueryParse()
    found = _time_window(text, now)
    if found:
        parse.window, parse.time_text = found
    latest, first = _LATEST.search(text), _FIRST.search(text)
    if first and not latest:
        parse.recency = "first"
    elif latest:
        parse.recency = "latest"
    parse.exact = _exact_tokens(text)
    parse.names = _names(_REFERENCE_POINT.split(text, maxsplit=1)[0])
    parse.when_question = asks_when(text)
    if parse.exact:
        parse.kind = "keyword"
    elif parse.window is not None or parse.when_question:
        parse.kind = "temporal"
    elif parse.recency:
        parse.kind = "recency"
    return parse


# How a memory says when: a relative time ("last week", "two days ago"), a month after
# "in" or "since", a year; and as agents' notes write it (ADR 0104), a day of a month ("2
# November", "Oct 20th", "Sept 15"), a clock time ("9:15", "10am", "2 pm") or a weekday
# ("Thursdays at 1pm", "last Monday"). A bare "3/4" is a fraction, not a date; "1:1" is a
# meeting, not a time; "5 may join" is no day of May.
_STATES_TIME = re.compile(
    r"\b(yesterday|today|tonight|tomorrow|recently|lately|the other day|"
    r"last (?:week|month|year|night|weekend|time|summer|winter|spring|fall|autumn)|"
    r"(?:\d+|a|an|one|two|three|four|five|six|few|couple of) (?:days?|weeks?|months?|years?) ago|"
    r"next (?:week|month|year|weekend)|this (?:week|month|weekend|year|morning)|"
    rf"(?:in|since|last) (?:{_MONTH_RE})|(?:19|20)\d\d|"
    r"just (?:got|finished|started|had|went|did|made)|"
    rf"(?:{_MONTH_RE}|sept)\.? \d{{1,2}}(?:st|nd|rd|th)?|"
    rf"\d{{1,2}}(?:st|nd|rd|th)? (?:of )?(?:{_MONTH_RE}|sept)(?<!may)|"
    r"\d{1,2}(?:st|nd|rd|th)? (?:of )?may(?! [a-z])|"
    r"\d{1,2}:\d\d|\d{1,2}(?::\d\d)? ?(?:am|pm)|noon|midnight|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?)\b",
    re.I,
)


def asks_when(text: str) -> bool:
    """Does the question open by asking when ("When is …", "What date …", "How long ago
    …")? Only its opening words are read: "When I joined, who was my SE?" asks when by this
    test, and "And when is it due?" does not."""
    return _WHEN.search(text) is not None


def states_time(text: str) -> bool:
    """Does the memory say when something happened or happens ("last week", "in May",
    "2022", "2 November", "Thursdays at 1pm")?

    A leading ``[8 May 2023]`` stamp (what a dated log import writes) does not
    count: every such memory carries one, so it tells nothing about the answer.
    """
    return bool(_STATES_TIME.search(without_date_stamp(text)))


def time_proximity(created_at: float, window: tuple[float, float], scale: float) -> float:
    """1 inside the window, then ``exp(-distance / scale)`` outside it."""
    import math

    lo, hi = window
    if lo <= created_at <= hi:
        return 1.0
    distance = lo - created_at if created_at < lo else created_at - hi
    return math.exp(-distance / max(scale, 1.0))


def name_seen(name: str, stats: TermStats) -> bool:
    """Does some memory's text mention *name* (lower-cased)? Read from the query's
    term statistics, which hold its frequency.
    A name that does not tokenize to one word cannot be checked and counts as seen."""
    from ..domain.text import tokenize

    if tokenize(name) != [name]:
        return True
    return stats.df.get(name, 0) > 0
