"""One form for a number written several ways (ADR 0117).

Agents copy identifiers as tools print them and users ask as they type them: a phone
number grouped or not ("+1 (415) 555-0134", "4155550134"), a UUID with or without its
dashes, a time on a 12- or a 24-hour clock ("2:30pm", "14:30"), a date as ISO or in words
("2026-03-14", "March 14", "14th of March"). :func:`number_forms` gives each of them one
more word, the same however it was written, which the index and the questions both read
(:func:`houkai.domain.text.word_parts`): a grouped number's digits joined, and each
shorter tail of at least :data:`JOINED_DIGITS` digits ("5550134" for the local number); a
UUID's hex joined; a time as ``14h30``; a day of the year as ``mar14``.

One scan of the text reads them all (an alternation, in the order below: a date before the
digit groups it is written with, a 12-hour time before a 24-hour one); a text without a
digit is not scanned.
"""

from __future__ import annotations

import calendar
import re

#: Fewer digits than this joined are no identifier (an IP's "10.0.0.1", "3 4 5").
JOINED_DIGITS = 7
#: More than this is no phone, card or order number either: prose that lists years.
MOST_DIGITS = 19

_ABBR = [name.lower() for name in calendar.month_abbr]
_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): i for i, name in enumerate(calendar.month_abbr) if name}
_MONTHS["sept"] = 9
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ORDINAL = "(?:st|nd|rd|th)?"

_FORMS = re.compile(
    "|".join(
        (
            # "2026-03-14", "2026/3/14"
            r"(?<![\w.-])(?P<year>\d{4})(?P<sep>[-/.])(?P<im>\d{1,2})(?P=sep)(?P<id>\d{1,2})"
            r"(?![\w]|[-/.]\d)",
            # a UUID, or another id of hex groups joined by dashes (a letter in it)
            r"(?<![\w-])(?P<hex>(?=[0-9a-f-]*[a-f])[0-9a-f]{4,}(?:-[0-9a-f]{4,}){2,})(?![\w-])",
            # "2:30pm", "9 am", "11:15 p.m."
            r"(?<![\w:.])(?P<h12>\d{1,2})(?::(?P<m12>[0-5]\d))?\s?(?P<ap>[ap])\.?m\b\.?",
            # "14:30", "09:05:00"
            r"(?<![\w:.])(?P<h24>[01]?\d|2[0-3]):(?P<m24>[0-5]\d)(?::\d\d)?(?!\w|:\d)",
            # "+1 (415) 555-0134", "020 7946 0958", "4111 1111 1111 1111"; not inside a word,
            # a version ("v2.9.0") or a time
            r"(?<![\w.:/-])(?P<groups>\+?\(?\d{1,5}(?:\)?[ .-]{1,2}\(?\d{1,5}){1,6})"
            r"(?!\w|[.:-]\d)",
            # "14 March", "14th of March"
            rf"(?<![\w:.])(?P<dd>\d{{1,2}}){_ORDINAL}(?:\s+of)?\s+(?P<dm>{_MONTH})\b",
            # "March 14", "Mar. 14th"
            rf"\b(?P<md>{_MONTH})\.?\s+(?P<mdd>\d{{1,2}}){_ORDINAL}\b(?!:)",
        )
    )
)
_DIGIT = re.compile(r"\d")
_M3 = "|".join(_ABBR[1:])
#: What a text holds when some number of it has a form: one quicker scan, which most texts
#: with a digit fail ("$20", "v1.3", "25 seats"), before the one that reads the forms.
_HINT = re.compile(
    rf"\d(?:\)?[ ./-]{{1,2}}\(?\d|\s?[ap]\.?m\b|:\d\d|{_ORDINAL}\s+(?:of\s+)?(?:{_M3}))"
    rf"|(?:{_M3})[a-z]{{0,6}}\.?\s+\d"
)
_HEX_HINT = re.compile(r"[0-9a-f]{4}-[0-9a-f]{4}")
_DIGITS = re.compile(r"\d+")
#: An IPv4 address is asked with its dots.
_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")


def number_forms(lowered: str) -> list[str]:
    """The forms of the numbers written in *lowered* (a text already lower-cased)."""
    if not _DIGIT.search(lowered):
        return []
    if not _HINT.search(lowered) and not ("-" in lowered and _HEX_HINT.search(lowered)):
        return []
    out: list[str] = []
    for m in _FORMS.finditer(lowered):
        if m["year"]:
            out.append(_day(int(m["im"]), int(m["id"])))
        elif m["hex"]:
            out.append(m["hex"].replace("-", ""))
        elif m["h12"]:
            hour = int(m["h12"])
            if 1 <= hour <= 12:
                out.append(_clock(hour % 12 + (12 if m["ap"] == "p" else 0), int(m["m12"] or 0)))
        elif m["h24"]:
            out.append(_clock(int(m["h24"]), int(m["m24"])))
        elif m["groups"]:
            out.extend(_joined(m["groups"]))
        elif m["dd"]:
            out.append(_day(_MONTHS[m["dm"]], int(m["dd"])))
        elif m["md"]:
            out.append(_day(_MONTHS[m["md"]], int(m["mdd"])))
    return [form for form in dict.fromkeys(out) if form]


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


def _day(month: int, day: int) -> str:
    """``mar14``; "" for no day of the year ("2026-13-40")."""
    return f"{_ABBR[month]}{day}" if 1 <= month <= 12 and 1 <= day <= 31 else ""
