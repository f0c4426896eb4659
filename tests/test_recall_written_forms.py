"""A fact is found however its number is written (ADR 0117).

Agents copy identifiers as tools print them and users ask as they type them: a phone
number grouped or not, a UUID with or without its dashes, a time on a 12- or a 24-hour
clock, a date as ISO or in words. Each shape is one fact among hundreds of lines that
differ only by that number, so the model cannot tell them apart and only the words the
index holds can."""

from __future__ import annotations

import random
import uuid
from datetime import date, timedelta

import pytest
from test_acronym_plurals import _keyword_hits, indexed_as_before
from test_lexstats import _stats

from houkai import MemoryStore
from houkai.domain import numbers
from houkai.domain.text import lexical_form, lexical_tokens, word_parts
from houkai.store.lexmigrate import recount_words
from houkai.store.lexstats import LEXICON, NAMES_FIELD


def _phones() -> list[str]:
    return [f"Vendor hotline +1 (415) 555-{n:04d}, ask for the billing desk." for n in range(300)]


def _phones_bare() -> list[str]:
    return [f"Vendor hotline 415555{n:04d}, ask for the billing desk." for n in range(300)]


def _job(n: int) -> uuid.UUID:
    return uuid.UUID(int=random.Random(n).getrandbits(128), version=4)


def _uuids() -> list[str]:
    return [f"Job {_job(n)} failed on the nightly run." for n in range(300)]


def _uuids_bare() -> list[str]:
    return [f"Job {_job(n).hex} failed on the nightly run." for n in range(300)]


def _times(clock: str) -> list[str]:
    out = []
    for minutes in range(6 * 60, 22 * 60, 5):
        h, m = divmod(minutes, 60)
        if clock == "24":
            t = f"{h:02d}:{m:02d}"
        else:
            t = f"{(h - 1) % 12 + 1}:{m:02d}{'am' if h < 12 else 'pm'}"
        out.append(f"Room booking at {t}: the blue room on floor three.")
    return out


def _times_said() -> list[str]:
    words = "one two three four five six seven eight nine ten eleven twelve".split()
    out = []
    for hour in range(7, 19):
        said = words[(hour - 1) % 12]
        after = words[hour % 12]
        for when in (f"{said} o'clock", f"quarter past {said}", f"half past {said}"):
            out.append(f"Room booking at {when}: the blue room on floor three.")
        out.append(f"Room booking at quarter to {after}: the blue room on floor three.")
    return out


def _dates(style: str) -> list[str]:
    out = []
    for n in range(300):
        d = date(2026, 1, 1) + timedelta(days=n)
        when = {
            "iso": d.isoformat(),
            "words": f"{d.day} {d:%B}",
            "us": f"{d.month}/{d.day}/{d.year}",
            "dotted": f"{d.day:02d}.{d.month:02d}.{d.year}",
        }[style]
        out.append(f"Invoice run on {when}: the blue batch, all clear.")
    return out


#: (the lines, the fact's index among them, the question as a user types it)
SHAPES = {
    "phone asked unbroken": (_phones, 134, "who answers 4155550134"),
    "phone asked local": (_phones, 134, "555 0134"),
    "phone stored unbroken": (_phones_bare, 134, "call +1 415-555-0134"),
    "uuid asked bare": (_uuids, 77, _job(77).hex),
    "uuid stored bare": (_uuids_bare, 77, str(_job(77))),
    "24h time asked 12h": (lambda: _times("24"), 102, "room booking at 2:30pm"),
    "12h time asked 24h": (lambda: _times("12"), 102, "room booking at 14:30"),
    "12h time asked bare": (lambda: _times("12"), 96, "room booking at 2 pm"),
    "iso date asked in words": (lambda: _dates("iso"), 72, "invoice run on March 14"),
    "date in words asked iso": (lambda: _dates("words"), 72, "invoice run 2026-03-14"),
    "us date asked in words": (lambda: _dates("us"), 72, "invoice run on March 14"),
    "dotted date asked us": (lambda: _dates("dotted"), 72, "invoice run 3/14/2026"),
    "time in words asked 12h": (_times_said, 30, "room booking at 2:30pm"),
}


#: A number's form, and ways of writing it that must all hold it
SAME = {
    "4155550134": ("+1 (415) 555-0134", "415.555.0134", "(415)555-0134", "+14155550134"),
    "5550134": ("call 555 0134", "+1 (415) 555-0134", "+14155550134"),
    "14h30": (
        *("at 2:30pm", "at 14:30", "2:30 p.m.", "14:30:00", "2.30pm", "14h30", "2:00–2:30pm"),
        *("half past two", "half-past 2pm", "half past two pm"),
    ),
    "09h00": ("9am", "9 AM", "09:00", "2026-03-14T09:00:00Z", "9–11am", "9h00"),
    "mar14": (
        *("2026-03-14", "March 14", "14th of March", "Mar. 14th", "2026/3/14", "14-Mar-2026"),
        *("3/14", "on 3/14/2026.", "3/14/2026: due", "03/14/26", "14.03.2026", "14/03/2026"),
        *("14-03-2026", "due 3/14", "Tues 3/14", "(3/14)", "3/14-3/16", "from 3/14–3/16"),
    ),
    "mar16": ("3/14-3/16", "March 16"),
    "apr5": ("4/5/2026", "5/4/2026", "5.4.2026", "the quarter to 5 April"),
    "may4": ("4/5/2026", "5/4/2026"),  # day and month could swap: both days
    "feb29": ("on 2/29", "29.02.2024"),
    "aug29": ("Aug 29", "Aug 21–29", "21–29 August", "2026-08-29T10:00+02:00"),
    "15h00": ("3pm", "3–7pm", "15:00", "three o'clock", "3 o’clock"),
    "02h30": ("half past two", "2:30am", "02:30"),  # said in words: both halves of the day
    "16h45": ("a quarter to five", "4:45pm", "quarter to 5."),
    "12h45": ("quarter to one", "12:45", "quarter to one pm"),
    "11h15": ("quarter past 11", "11:15am"),
    "12h15": ("quarter past noon", "12:15pm"),
    "23h45": ("quarter to midnight", "11:45pm"),
    "15h10": ("kids out at 3:10", "3:10pm", "15:10"),  # no am/pm, no leading zero: both
    "12h00": ("lunch at noon", "12 noon", "12pm", "12:00", "Noon standup"),
    "00h00": ("midnight deploy", "12am", "00:00"),
}
#: No form: an IP, a version, a decimal, a ratio, a short number, no day of the year; a
#: slash pair that may be a fraction, a count or a score; "half" or "quarter" of an amount
NONE = (
    *("10.0.0.1", "192.168.100.200", "v2.9.0", "3.14159", "3:2", "555 01", "2026-13-40"),
    *("1/2 cup", "3/4 done", "24/7 support", "55/45 split", "at 9.30", "v1.2.2026", "half past"),
    *("api-7d9f 1/1 Running", "READY 3/3", "Epoch 5/20", "Step 3/14 done", "[3/14] Installing"),
    *("10/10 would recommend", "$3/14", "price=3/15", "ETA 2/30", "3/14/0026", "4/31"),
    *("cut latency in half to 10 ms", "grew a quarter to 5 million", "half to two replicas"),
)


def test_each_way_of_writing_a_number_has_one_form() -> None:
    for form, ways in SAME.items():
        for way in ways:
            assert form in lexical_tokens(way), (form, way)
    job = "f4b2c9d0-9a1e-4c3b-8d7e-6f5a4b3c2d1e"
    assert word_parts(job)[0] == job.replace("-", "")
    for text in NONE:
        assert numbers.number_forms(text.lower()) == [], text
    assert numbers.number_forms("tel. 01-23-4567") == ["01234567"]  # no year: a phone
    assert not [p for p in word_parts("not 8042. 8042 is") if len(p) >= 5]
    assert word_parts("11-1pm")[-2:] == ["11h00", "13h00"]  # the morning's 11
    assert "19h45" not in word_parts("bedtime 7:45") and "18h30" not in word_parts("06:30")
    # the index holds what BM25 counts: each form is one word
    text = "Vendor hotline +1 (415) 555-0134 at 2:30pm on 2026-03-14"
    assert set(lexical_form(text).split()) >= {"4155550134", "14h30", "mar14"}
    assert {"4155550134", "14h30", "mar14"} <= set(lexical_tokens(text))


def test_the_quick_scan_turns_down_no_text_with_a_form(monkeypatch: pytest.MonkeyPatch) -> None:
    """The quick scans before the scan repeat the forms' grammar by hand: whatever they
    turn down must have no form."""
    texts = [way for ways in SAME.values() for way in ways] + list(NONE)
    texts += [line for shape in SHAPES.values() for line in shape[0]()[:20]]
    hinted = [numbers.number_forms(t.lower()) for t in texts]
    monkeypatch.setattr(numbers, "_forms_of", lambda lowered: numbers._FORMS_SAID)
    assert [numbers.number_forms(t.lower()) for t in texts] == hinted


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_number_is_found_however_it_is_written(store: MemoryStore, shape: str) -> None:
    lines, index, question = SHAPES[shape]
    texts = lines()
    store.remember_many(texts)
    hits = store.recall(question, k=3, mode="hybrid", touch=False)
    assert texts[index] in [m.text for m, _ in hits], [m.text for m, _ in hits]


def test_migrate_gives_a_collection_written_before_the_forms(store: MemoryStore) -> None:
    texts = ["Vendor hotline +1 (415) 555-0134.", "Standup moved to 14:30 on 2026-03-14."]
    store.remember_many(texts)
    client, key = store.client, store.keys.lexstats
    expected = _stats(store)
    indexed_as_before(store, "4")  # the text without the forms
    assert _keyword_hits(store, "4155550134") == set()
    assert recount_words(client, store.keys.memory_prefix, key) == 2
    assert _keyword_hits(store, "4155550134") == {texts[0]}
    assert _keyword_hits(store, "14h30") == _keyword_hits(store, "mar14") == {texts[1]}
    assert _stats(store) == expected
    assert client.hget(key, NAMES_FIELD) == LEXICON.encode()
