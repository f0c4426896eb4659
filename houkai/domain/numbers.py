"""One form for a number written several ways (ADR 0117, 0118).

Agents copy identifiers as tools print them and users ask as they type them: a phone
number grouped or not ("+1 (415) 555-0134", "4155550134"), a UUID with or without its
dashes, a time on a 12- or a 24-hour clock or in words ("2:30pm", "14:30", "half past
two"), a date as ISO, in words or in digits ("2026-03-14", "March 14", "14th of March",
"3/14/2026", "14.03.2026"). :func:`number_forms` gives each of them one more word, the
same however it was written, which the index and the questions both read
(:func:`houkai.domain.text.word_parts`): a grouped number's digits joined, and each
shorter tail of at least :data:`JOINED_DIGITS` digits ("5550134" for the local number); a
UUID's hex joined; a time as ``14h30`` (a range's start too: "3–7pm" holds ``15h00``; a
time said in words without am/pm, both halves of the day); a day of the year as ``mar14``
(both ends of "Aug 21–29"; an ISO timestamp's time too; a date in digits whose day and
month could swap, "4/5/2026", both days; without its year only where the text says it is
a day, "due 3/14": a log's "1/1 Running" or "Epoch 5/20" is a count); an amount's digits
without their thousands separators ("$1,950": ``1950``); a code glued to its number by
its two parts ("OPS1423": ``ops``, ``1423``).

One scan of the text reads them all (an alternation, in the order below: a date before the
digit groups it is written with, a 12-hour time before a 24-hour one), after quick scans
that most texts fail: a digit and a hint of some form, a word for noon or midnight, or a
time said in words, whose branches only then join the alternation.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterator

#: Fewer digits than this joined are no identifier (an IP's "10.0.0.1", "3 4 5").
JOINED_DIGITS = 7
#: More than this is no phone, card or order number either: prose that lists years.
MOST_DIGITS = 19
#: A time written without am/pm and without a leading zero up to this hour ("3:10") is
#: also read as the afternoon's: people meet at 3:10 in the afternoon, not in the night.
AFTERNOON_UNTIL = 6

#: Without a year, "3/14" is a day only after one of these words (or opening the text or
#: a bracket): "due 3/14", "Tues 3/14"; not "Epoch 5/20", "Step 3/14", "1/1 Running".
_DATE_CUES = frozenset(
    """on by due from until till to since before after for of through thru and or
    mon tue tues wed thu thur thurs fri sat sun""".split()
) | frozenset(name.lower() for name in calendar.day_name)
#: Written like a day of the year, said as something else.
_NO_DAY = frozenset({"24/7"})
#: What may follow a time said with a digit hour without am/pm ("quarter to 5."): not
#: "a quarter to 5 million", "half past 2 March".
_TIME_FOLLOWER = (
    r"(?=\s*(?:$|[.,;:!?)]|(?:on|at|in|tomorrow|today|tonight|this|every|each|and|or|sharp"
    r"|then)\b))"
)
#: Counted, not a time: "a quarter to five million".
_NOT_A_TIME = r"(?!\s+(?:million|billion|thousand|hundred|percent)\b)"

_ABBR = [name.lower() for name in calendar.month_abbr]
_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): i for i, name in enumerate(calendar.month_abbr) if name}
_MONTHS["sept"] = 9
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ORDINAL = "(?:st|nd|rd|th)?"
#: Times said in words: midnight is 00h00, the others 12h00.
_NOON_WORDS = ("noon", "midday", "midnight")
_HOURS = {
    word: i
    for i, word in enumerate(
        "one two three four five six seven eight nine ten eleven twelve".split(), start=1
    )
}
_HOUR_DIGITS = r"1[0-2]|0?[1-9]"
_HOUR_WORD = "|".join([*_HOURS, _HOUR_DIGITS])
#: A time said in words ("half past two", "seven o'clock"): no digit in it.
_WORD_TIME = re.compile(r"o['’]?clock|\b(?:half[\s-]+past|quarter\s+(?:past|to))\s")
#: A date in digits with its year (the questions' time windows read it too).
DATE_WITH_YEAR = (
    r"(?<![\w./:-])(?P<dmy_a>\d{1,2})(?P<dmy_sep>[-/.])(?P<dmy_b>\d{1,2})(?P=dmy_sep)"
    r"(?P<dmy_year>(?:19|20)\d\d)(?![\w/]|[-.:]\d)"
)

#: An ISO timestamp's time and zone, after its day: "2026-03-14t10:00:00z".
_ISO_TIME = (
    r"(?:t(?P<iso_hour>[01]\d|2[0-3]):(?P<iso_minute>[0-5]\d)"
    r"(?::\d\d(?:[.,]\d+)?)?(?:z|[+-]\d\d:?\d\d)?)?"
)
#: "half past two", "half-past 2pm", "quarter to noon", "seven o'clock"
_SAID = (
    rf"\b(?:(?P<half>half)[\s-]+past|quarter\s+(?P<part_to>past|to))\s+"
    rf"(?:(?P<part_hour>(?:{_HOUR_WORD}))\s?(?P<part_ap>[ap])\.?m\b"
    rf"|(?P<part_said>{'|'.join(_HOURS)}|noon|midnight)\b{_NOT_A_TIME}"
    rf"|(?P<part_digits>{_HOUR_DIGITS})\b{_TIME_FOLLOWER})"
    rf"|\b(?P<oclock>{_HOUR_WORD})\s*o['’]?clock\b"
)
_BRANCHES = (
    # "2026-03-14", "2026/3/14", "2026-03-14T10:00:00Z"
    r"(?<![\w.-])(?P<year>\d{4})(?P<sep>[-/.])(?P<iso_month>\d{1,2})(?P=sep)"
    rf"(?P<iso_day>\d{{1,2}}){_ISO_TIME}(?![\w]|[-/.]\d)",
    # "14.03.2026", "3/14/2026", "14-03-2026": day and month in either order
    DATE_WITH_YEAR,
    # "3/14", "14/3/26", "3/14-3/16": a slash, a year of two digits or none
    r"(?<![\w./:$€£#=-])(?P<dm_a>\d{1,2})/(?P<dm_b>\d{1,2})(?:/(?P<dm_year>\d\d))?"
    r"(?:\s?[-–]\s?(?P<dm_a2>\d{1,2})/(?P<dm_b2>\d{1,2})(?:/\d\d)?)?(?![\w/]|[-.:]\d)",
    # "3–7pm", "2:00–2:30pm": the start of a range takes its end's am/pm
    r"(?<![\w:.])(?P<range_hour>\d{1,2})(?:[:.](?P<range_minute>[0-5]\d))?\s?[-–]\s?"
    r"(?=(?P<range_end>\d{1,2})(?:[:.][0-5]\d)?\s?(?P<range_ap>[ap])\.?m\b)",
    # a UUID, or another id of hex groups joined by dashes (a letter in it)
    r"(?<![\w-])(?P<hex>(?=[0-9a-f-]*[a-f])[0-9a-f]{4,}(?:-[0-9a-f]{4,}){2,})(?![\w-])",
    # "2:30pm", "9 am", "11:15 p.m.", "9.30am"
    r"(?<![\w:.])(?P<hour12>\d{1,2})(?:[:.](?P<minute12>[0-5]\d))?\s?(?P<ap>[ap])\.?m\b\.?",
    # "14:30", "09:05:00", "9h30", "10:00:00+02:00"
    r"(?<![\w:.])(?P<hour24>[01]?\d|2[0-3])(?::|h(?=[0-5]\d))(?P<minute24>[0-5]\d)"
    r"(?::\d\d(?:[.,]\d+)?(?:z|[+-]\d\d:?\d\d)?)?(?!\w|:\d)",
    _SAID,
    # "noon", "12 noon", "midnight"
    rf"\b(?:12\s?)?(?P<noon>{'|'.join(_NOON_WORDS)})\b",
    # "14 March", "14th of March", "14-Mar-2026", "16–18 June"
    rf"(?<![\w:.])(?:(?P<first_day>\d{{1,2}}){_ORDINAL}\s?[-–]\s?)?"
    rf"(?P<day>\d{{1,2}}){_ORDINAL}(?:\s+of\s+|\s+|-)(?P<day_month>{_MONTH})\b",
    # "OPS1423", "E1024": a code glued to its number, found by both as typed apart
    # ("OPS-1423", "e 1024"); not "mp3", "ipv6", "p99", "x86" (fewer than 3 digits)
    r"(?<![\w-])(?P<code_letters>[a-z]{1,6})(?P<code_digits>\d{3,})(?!\w)",
    # "$1,950", "12,500.00", "1,234,567": the digits without their thousands separators
    r"(?<![\w.,])(?P<thousands>\d{1,3}(?:,\d{3})+)(?![\w]|,\d)",
    # "+14155550134", as a tool prints it
    r"(?<![\w+])\+(?P<plus_digits>\d{8,15})(?!\w)",
    # "+1 (415) 555-0134", "(415)555-0134", "020 7946 0958", "4111 1111 1111 1111";
    # not inside a word, a version ("v2.9.0"), a time or across a full stop
    r"(?<![\w.:/-])(?P<groups>\+?\(?\d{1,5}"
    r"(?:(?:\)?(?:[ -]{1,2}|\.)\(?|\)|\()\d{1,5}){1,6})(?!\w|[.:-]\d)",
    # "March 14", "Mar. 14th", "Aug 21–29"
    rf"\b(?P<month>{_MONTH})\.?\s+(?P<month_day>\d{{1,2}}){_ORDINAL}"
    rf"(?:\s?[-–]\s?(?P<month_last_day>\d{{1,2}}){_ORDINAL})?\b(?!:)",
)
#: One alternation of every form; the same without the times said in words (their
#: branches are tried at every word: most texts hold none, :data:`_WORD_TIME` says).
_FORMS_SAID = re.compile("|".join(_BRANCHES))
_FORMS = re.compile("|".join(b for b in _BRANCHES if b is not _SAID))
_DIGIT = re.compile(r"\d")
_M3 = "|".join(_ABBR[1:])
#: What a text holds when some number of it has a form: one quicker scan, which most texts
#: with a digit fail ("$20", "v1.3", "25 seats"), before the one that reads the forms.
_HINT = re.compile(
    r"[a-z]\d{3}"
    rf"|\d(?:\)?[ ./-]{{1,2}}\(?\d|,\d{{3}}|\s?[ap]\.?m\b|:\d\d|h[0-5]\d"
    rf"|{_ORDINAL}[\s-]+(?:of\s+)?(?:{_M3}))"
    rf"|(?:{_M3})[a-z]{{0,6}}\.?\s+\d|\+\d{{8}}"
)
_HEX_HINT = re.compile(r"[0-9a-f]{4}-[0-9a-f]{4}")
_DIGITS = re.compile(r"\d+")
#: An IPv4 address is asked with its dots.
_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")


def _forms_of(lowered: str) -> re.Pattern[str] | None:
    """The alternation to scan *lowered* with, or None after quick scans most texts fail:
    a time said in words (then :data:`_FORMS_SAID`), a word for noon or midnight, or a
    digit and a hint of some form (:data:`_HINT`, or a dashed hex id)."""
    if ("clock" in lowered or "half" in lowered or "quarter" in lowered) and _WORD_TIME.search(
        lowered
    ):
        return _FORMS_SAID
    if "noon" in lowered or "midday" in lowered or "midnight" in lowered:  # _NOON_WORDS
        return _FORMS
    if not _DIGIT.search(lowered):
        return None
    if _HINT.search(lowered) or ("-" in lowered and _HEX_HINT.search(lowered)):
        return _FORMS
    return None


def number_forms(lowered: str) -> list[str]:
    """The forms of the numbers written in *lowered* (a text already lower-cased)."""
    forms = _forms_of(lowered)
    if forms is None:  # most texts: no generator, no list built
        return []
    return list(dict.fromkeys(form for _, form in _scan(forms, lowered)))


def names_a_day(lowered: str) -> bool:
    """Does *lowered* name a day of the year ("March 14", "14.03.2026", "due 3/14")? A
    question that does asks about that day, not about the present."""
    forms = _forms_of(lowered)
    return forms is not None and any(kind == DAY for kind, _ in _scan(forms, lowered))


DAY, TIME, DIGITS, PART = "day", "time", "digits", "part"


def _scan(forms: re.Pattern[str], lowered: str) -> Iterator[tuple[str, str]]:
    """``(kind, form)`` for each number of *lowered* that has a form (see the module
    docstring), in the order written; *forms*: the alternation :func:`_forms_of` chose."""
    for m in forms.finditer(lowered):
        for kind, form in _read(m, lowered):
            if form:
                yield kind, form


def _read(m: re.Match[str], lowered: str) -> Iterator[tuple[str, str]]:
    """The forms of one match of :data:`_FORMS` ("" for a day that is none)."""
    if m["year"]:
        yield DAY, _day(int(m["iso_month"]), int(m["iso_day"]))
        if m["iso_hour"]:
            yield TIME, _clock(int(m["iso_hour"]), int(m["iso_minute"]))
    elif m["dmy_year"]:
        for day in _either_order(int(m["dmy_a"]), int(m["dmy_b"])):
            yield DAY, day
    elif m["dm_a"]:
        yield from _slashed(m, lowered)
    elif m["range_hour"]:
        start, end, pm = int(m["range_hour"]), int(m["range_end"]), m["range_ap"] == "p"
        if 1 <= start <= 12 and 1 <= end <= 12:
            if start % 12 > end % 12:  # "11-1pm": the morning's 11
                pm = not pm
            yield TIME, _clock_12(start, int(m["range_minute"] or 0), pm)
    elif m["code_letters"]:
        yield PART, m["code_letters"]
        yield PART, m["code_digits"]
    elif m["thousands"]:
        yield DIGITS, m["thousands"].replace(",", "")
    elif m["plus_digits"]:  # its tails: the number without its country code
        digits = m["plus_digits"]
        for i in range(1, len(digits)):
            if JOINED_DIGITS <= len(digits) - i <= 11:
                yield DIGITS, digits[i:]
    elif m["hex"]:
        yield DIGITS, m["hex"].replace("-", "")
    elif m["hour12"]:
        hour = int(m["hour12"])
        if 1 <= hour <= 12:
            yield TIME, _clock_12(hour, int(m["minute12"] or 0), m["ap"] == "p")
    elif m["hour24"]:
        hour, minute = int(m["hour24"]), int(m["minute24"])
        form = _clock(hour, minute)
        if form != m.group():  # "09h30" written so is its own word already
            yield TIME, form
        if len(m["hour24"]) == 1 and 1 <= hour <= AFTERNOON_UNTIL:
            yield TIME, _clock(hour + 12, minute)  # "kids out at 3:10": 15h10 too
    elif m["noon"]:
        yield TIME, "00h00" if m["noon"] == "midnight" else "12h00"
    elif m["groups"]:
        for joined in _joined(m["groups"]):
            yield DIGITS, joined
    elif m["day"]:
        if m["first_day"]:
            yield DAY, _day(_MONTHS[m["day_month"]], int(m["first_day"]))
        yield DAY, _day(_MONTHS[m["day_month"]], int(m["day"]))
    elif m["month"]:
        yield DAY, _day(_MONTHS[m["month"]], int(m["month_day"]))
        if m["month_last_day"]:
            yield DAY, _day(_MONTHS[m["month"]], int(m["month_last_day"]))
    else:  # a time said in words (only :data:`_FORMS_SAID` has the branch)
        yield from _said(m)


def _slashed(m: re.Match[str], lowered: str) -> Iterator[tuple[str, str]]:
    """ "3/14" (and a range's end, "3/14-3/16"): a day when the text says it is one (a year
    of two digits, or one of :data:`_DATE_CUES` before it) and only one order of the two
    numbers is a date: "1/2" may be a half, "3/3" a count."""
    before = lowered[max(0, m.start() - 12) : m.start()].split()
    cue = not before or before[-1].lstrip("(") in _DATE_CUES or before[-1] == "("
    if not (m["dm_year"] or cue) or m.group() in _NO_DAY:
        return
    for first, second in ((m["dm_a"], m["dm_b"]), (m["dm_a2"], m["dm_b2"])):
        if first is None or first == second:
            continue
        days = _either_order(int(first), int(second))
        if len(days) == 1:
            yield DAY, days[0]


def _said(m: re.Match[str]) -> Iterator[tuple[str, str]]:
    """A time said in words: "half past two", "quarter to noon", "seven o'clock". Without
    am/pm it is on the 12-hour clock and says neither half of the day: both."""
    said = m["part_hour"] or m["part_said"] or m["part_digits"] or m["oclock"]
    ap = m["part_ap"]
    minutes = 0 if m["oclock"] else 30 if m["half"] else 15
    if m["part_to"] == "to":
        minutes = -minutes
    if said in ("noon", "midnight"):
        total = (720 if said == "noon" else 0) + minutes
        yield TIME, _clock(*divmod(total % 1440, 60))
        return
    total = (_hour(said) % 12) * 60 + minutes  # "quarter to one": 00h45 (and 12h45)
    hour, minute = divmod(total % 720, 60)
    halves = (ap == "p",) if ap else (False, True)
    for pm in halves:
        yield TIME, _clock(hour + (12 if pm else 0), minute)


def _joined(written: str) -> list[str]:
    """A grouped number's digits joined, and each shorter tail of at least
    :data:`JOINED_DIGITS` digits; none for an IP address or more than :data:`MOST_DIGITS`."""
    groups = _DIGITS.findall(written)
    if sum(map(len, groups)) > MOST_DIGITS or _IPV4.fullmatch(written):
        return []
    tails = ("".join(groups[i:]) for i in range(len(groups) - 1))
    return [tail for tail in tails if len(tail) >= JOINED_DIGITS]


def _clock(hour: int, minute: int) -> str:
    return f"{hour:02d}h{minute:02d}"


def _clock_12(hour: int, minute: int, pm: bool) -> str:
    """:func:`_clock` of a time on the 12-hour clock (*hour* from 1 to 12)."""
    return _clock(hour % 12 + (12 if pm else 0), minute)


def _hour(said: str) -> int:
    """The hour of "two" or "2"."""
    return _HOURS.get(said) or int(said)


def day_orders(first: int, second: int) -> list[tuple[int, int]]:
    """``(month, day)`` of each reading of a numeric date that is a day: month first
    ("3/14") or day first ("14.03.2026"); both when both can ("4/5/2026": April 5 or
    4 May), once when both readings are one day ("3/3")."""
    readings = ((first, second), (second, first))
    return list(dict.fromkeys(r for r in readings if _day(*r)))


def _either_order(first: int, second: int) -> list[str]:
    """The forms of :func:`day_orders`."""
    return [_day(*reading) for reading in day_orders(first, second)]


def _day(month: int, day: int) -> str:
    """``mar14``; "" for no day of the year ("2026-13-40", "2/30"; February has 29)."""
    if not 1 <= month <= 12 or not 1 <= day <= calendar.monthrange(2024, month)[1]:
        return ""
    return f"{_ABBR[month]}{day}"
