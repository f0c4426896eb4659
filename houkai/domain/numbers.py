"""One form for a number written several ways (ADR 0117).

Agents copy identifiers as tools print them and users ask as they type them: a phone
number grouped or not ("+1 (415) 555-0134", "4155550134"), a UUID with or without its
dashes, a time on a 12- or a 24-hour clock ("2:30pm", "14:30"), a date as ISO or in words
("2026-03-14", "March 14", "14th of March", "3/14", "14.03.2026"), a time in words
("half past two", "seven o'clock"). :func:`number_forms` gives each of them one
more word, the same however it was written, which the index and the questions both read
(:func:`houkai.domain.text.word_parts`): a grouped number's digits joined, and each
shorter tail of at least :data:`JOINED_DIGITS` digits ("5550134" for the local number); a
UUID's hex joined; a time as ``14h30`` (a range's start too: "3–7pm" holds ``15h00``; a
time said in words both halves of the day); a day of the year as ``mar14`` (both ends of
"Aug 21–29"; an ISO timestamp's time too; a numeric date whose day and month could swap,
"4/5/2026", both days, and without its year none: "1/2" may be a half).

One scan of the text reads them all (an alternation, in the order below: a date before the
digit groups it is written with, a 12-hour time before a 24-hour one); a text without a
digit (nor a word for noon or midnight, nor a time in words) is not scanned.
"""

from __future__ import annotations

import calendar
import re

#: Fewer digits than this joined are no identifier (an IP's "10.0.0.1", "3 4 5").
JOINED_DIGITS = 7
#: More than this is no phone, card or order number either: prose that lists years.
MOST_DIGITS = 19
#: A time written without am/pm and without a leading zero up to this hour ("3:10") is
#: also read as the afternoon's: people meet at 3:10 in the afternoon, not in the night.
AFTERNOON_UNTIL = 6

#: Written like a day of the year, said as something else.
_NO_DAY = frozenset({"24/7"})

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
_HOUR_WORD = "|".join([*_HOURS, r"1[0-2]|0?[1-9]"])
#: A time said in words ("half past two", "seven o'clock"): no digit in it.
_WORD_TIME = re.compile(r"o['’]?clock|\b(?:half|quarter)\s+(?:past|to)\s")

#: An ISO timestamp's time and zone, after its day: "2026-03-14t10:00:00z".
_ISO_TIME = (
    r"(?:t(?P<iso_hour>[01]\d|2[0-3]):(?P<iso_minute>[0-5]\d)"
    r"(?::\d\d(?:[.,]\d+)?)?(?:z|[+-]\d\d:?\d\d)?)?"
)
_FORMS = re.compile(
    "|".join(
        (
            # "2026-03-14", "2026/3/14", "2026-03-14T10:00:00Z"
            r"(?<![\w.-])(?P<year>\d{4})(?P<sep>[-/.])(?P<iso_month>\d{1,2})(?P=sep)"
            rf"(?P<iso_day>\d{{1,2}}){_ISO_TIME}(?![\w]|[-/.]\d)",
            # "14.03.2026", "3/14/2026", "14-03-2026": day and month in either order
            r"(?<![\w./:-])(?P<dmy_a>\d{1,2})(?P<dmy_sep>[-/.])(?P<dmy_b>\d{1,2})(?P=dmy_sep)"
            r"(?P<dmy_year>\d{4})(?![\w/]|[-.:]\d)",
            # "3/14", "14/3/26": a slash, a year of two digits or none
            r"(?<![\w./:-])(?P<dm_a>\d{1,2})/(?P<dm_b>\d{1,2})(?:/\d\d)?(?![\w/]|[-.:]\d)",
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
            # "half past two", "quarter to 5", "seven o'clock"
            rf"\b(?P<part>half|quarter)\s+(?P<part_to>past|to)\s+(?P<part_hour>{_HOUR_WORD})\b"
            rf"|\b(?P<oclock>{_HOUR_WORD})\s*o['’]?clock\b",
            # "noon", "12 noon", "midnight"
            rf"\b(?:12\s?)?(?P<noon>{'|'.join(_NOON_WORDS)})\b",
            # "14 March", "14th of March", "14-Mar-2026", "16–18 June"
            rf"(?<![\w:.])(?:(?P<first_day>\d{{1,2}}){_ORDINAL}\s?[-–]\s?)?"
            rf"(?P<day>\d{{1,2}}){_ORDINAL}(?:\s+of\s+|\s+|-)(?P<day_month>{_MONTH})\b",
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
    )
)
_DIGIT = re.compile(r"\d")
_M3 = "|".join(_ABBR[1:])
#: What a text holds when some number of it has a form: one quicker scan, which most texts
#: with a digit fail ("$20", "v1.3", "25 seats"), before the one that reads the forms.
_HINT = re.compile(
    rf"\d(?:\)?[ ./-]{{1,2}}\(?\d|\s?[ap]\.?m\b|:\d\d|h[0-5]\d|{_ORDINAL}[\s-]+(?:of\s+)?(?:{_M3}))"
    rf"|(?:{_M3})[a-z]{{0,6}}\.?\s+\d|\+\d{{8}}"
)
_HEX_HINT = re.compile(r"[0-9a-f]{4}-[0-9a-f]{4}")
_DIGITS = re.compile(r"\d+")
#: An IPv4 address is asked with its dots.
_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
#: The forms of a day of the year and of a time of day.
_MOMENT = re.compile(r"[a-z]{3}\d{1,2}|\d\dh\d\d")


def _may_hold_forms(lowered: str) -> bool:
    """Quick scans most texts fail: a word for noon or midnight, or a digit and a hint of
    some form (:data:`_HINT`, or a dashed hex id)."""
    if any(word in lowered for word in _NOON_WORDS):
        return True
    if ("clock" in lowered or "half" in lowered or "quarter" in lowered) and _WORD_TIME.search(
        lowered
    ):
        return True
    if not _DIGIT.search(lowered):
        return False
    return bool(_HINT.search(lowered)) or ("-" in lowered and bool(_HEX_HINT.search(lowered)))


def number_forms(lowered: str) -> list[str]:
    """The forms of the numbers written in *lowered* (a text already lower-cased)."""
    if not _may_hold_forms(lowered):
        return []
    out: list[str] = []
    for m in _FORMS.finditer(lowered):
        if m["year"]:
            out.append(_day(int(m["iso_month"]), int(m["iso_day"])))
            if m["iso_hour"]:
                out.append(_clock(int(m["iso_hour"]), int(m["iso_minute"])))
        elif m["dmy_year"]:
            days = _either_order(int(m["dmy_a"]), int(m["dmy_b"]))
            out.extend(days if days or m["dmy_sep"] == "/" else _joined(m.group()))
        elif m["dm_a"]:
            days = _either_order(int(m["dm_a"]), int(m["dm_b"]))
            if len(days) == 1 and m.group() not in _NO_DAY:  # "1/2" may be a half
                out.extend(days)
        elif m["range_hour"]:
            start, end, pm = int(m["range_hour"]), int(m["range_end"]), m["range_ap"] == "p"
            if 1 <= start <= 12 and 1 <= end <= 12:
                if start % 12 > end % 12:  # "11-1pm": the morning's 11
                    pm = not pm
                out.append(_clock_12(start, int(m["range_minute"] or 0), pm))
        elif m["plus_digits"]:  # its tails: the number without its country code
            digits = m["plus_digits"]
            out.extend(
                digits[i:] for i in range(1, len(digits)) if JOINED_DIGITS <= len(digits) - i <= 11
            )
        elif m["hex"]:
            out.append(m["hex"].replace("-", ""))
        elif m["hour12"]:
            hour = int(m["hour12"])
            if 1 <= hour <= 12:
                out.append(_clock_12(hour, int(m["minute12"] or 0), m["ap"] == "p"))
        elif m["hour24"]:
            hour, minute = int(m["hour24"]), int(m["minute24"])
            form = _clock(hour, minute)
            if form != m.group():  # "09h30" written so is its own word already
                out.append(form)
            if len(m["hour24"]) == 1 and 1 <= hour <= AFTERNOON_UNTIL:
                out.append(_clock(hour + 12, minute))  # "kids out at 3:10": 15h10 too
        elif m["part"] or m["oclock"]:
            hour = _hour(m["part_hour"] or m["oclock"])
            minute = 0 if m["oclock"] else 30 if m["part"] == "half" else 15
            if m["part_to"] == "to":
                hour, minute = (hour - 2) % 12 + 1, 60 - minute  # "quarter to one": 12h45
            if 1 <= hour <= 12:  # said in words, a time is on the 12-hour clock: both halves
                out.extend((_clock_12(hour, minute, False), _clock_12(hour, minute, True)))
        elif m["noon"]:
            out.append("00h00" if m["noon"] == "midnight" else "12h00")
        elif m["groups"]:
            out.extend(_joined(m["groups"]))
        elif m["day"]:
            if m["first_day"]:
                out.append(_day(_MONTHS[m["day_month"]], int(m["first_day"])))
            out.append(_day(_MONTHS[m["day_month"]], int(m["day"])))
        elif m["month"]:
            out.append(_day(_MONTHS[m["month"]], int(m["month_day"])))
            if m["month_last_day"]:
                out.append(_day(_MONTHS[m["month"]], int(m["month_last_day"])))
    return [form for form in dict.fromkeys(out) if form]


def names_a_moment(lowered: str) -> bool:
    """Does *lowered* name a day of the year or a time of day ("March 14", "14.03.2026",
    "2:30pm")? A question that does asks about that moment, not about the present."""
    return any(_MOMENT.fullmatch(form) for form in number_forms(lowered))


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


def _either_order(first: int, second: int) -> list[str]:
    """The days a numeric date can be: month first ("3/14") or day first ("14.03.2026");
    both when both can ("4/5/2026": April 5 or 4 May)."""
    return list(dict.fromkeys(d for d in (_day(first, second), _day(second, first)) if d))


def _day(month: int, day: int) -> str:
    """``mar14``; "" for no day of the year ("2026-13-40")."""
    return f"{_ABBR[month]}{day}" if 1 <= month <= 12 and 1 <= day <= 31 else ""
