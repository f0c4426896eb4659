"""Names in a question typed without capitals: "northgate renewal date".

Recall reads a question's names from its capitals ("Where does Mia work?" is about Mia),
yet people type into a chat box in lower case. Typed so, the personal set's questions
lost 0.09 of R@5 (ADR 0102): "how do i reach tim" no longer tells Tim from Tom. The
memories still write their names capitalised, so each write counts, beside its stems,
the words it writes only as a name (:func:`name_marks`), and a question with no capital
inside a sentence (:func:`uncased`) has its words capitalised where the collection
writes them as names (:func:`truecase`).

A word counts as a name of the collection (:func:`is_name`) when at least half the
memories holding it write it capitalised and never in lower case (:data:`CAPITALISED_SHARE`), at
least one writes it so inside a sentence, and no fewer do so than write it in lower case:
"Gift idea for Mia" opens many notes, yet no note writes "Gift" mid-sentence. A word in
capitals ("SLA", "PTO") is an acronym, the pronoun "I" ("I'll") no name, and a weekday
or month names a date, never someone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from .text import (
    ANY_STOP_WORDS,
    CALENDAR_WORDS,
    LETTER_WORD,
    MAX_QUERY_TERMS,
    singular_acronyms,
    tokenize,
    without_date_stamp,
)

#: Prefix of the stem-statistics entry that counts memories writing a word only as a name.
NAME_MARK = "^"
#: Prefix of the entry that counts those writing it so inside a sentence.
MID_MARK = "^^"
#: The share of the memories holding a word that must write it as a name.
CAPITALISED_SHARE = 0.5

_POSSESSIVE = re.compile(r"['’]s$")
#: What precedes a sentence's first word: the start, an end of sentence, a colon or
#: semicolon ("Reminder: Kestrel …"), a line break or a list's bullet ("- Call Tim"), an
#: opening quote or bracket.
_SENTENCE_START = re.compile(r"(?:^\s*|[.!?:;]\s+|\n\s*)(?:[-*•]\s+)?|[\"“(\[]\s*")
#: The pronoun "I" and its contractions, capitalised wherever they stand.
_PRONOUN_I = re.compile(r"^I(?:['’](?:m|d|ll|ve))?$")


def _words(text: str) -> Iterator[tuple[int, str, list[str], bool]]:
    """(start, word as written, its tokens, opens a sentence) for each word of *text*, a
    possessive dropped ("Tom's" → ``tom``; "Jean-Luc" is two tokens). The pronoun "I" and
    its contractions are left out: capitalised wherever they stand, they say nothing."""
    opening = {m.end() for m in _SENTENCE_START.finditer(text)}
    for m in LETTER_WORD.finditer(text):
        written = m.group(0)
        if _PRONOUN_I.match(written):
            continue
        tokens = tokenize(_POSSESSIVE.sub("", written))
        if tokens:
            yield m.start(), written, tokens, m.start() in opening


def _may_name(token: str) -> bool:
    """Can *token* be a name at all: two letters or more, no stop word, no weekday or month."""
    return len(token) > 1 and token not in ANY_STOP_WORDS and token not in CALENDAR_WORDS


def _titled(written: str) -> bool:
    """Capitalised as a name is: a capital first, not all in capitals ("SLA", "I", nor an
    acronym's plural: "PRs")."""
    return written[:1].isupper() and not singular_acronyms(written).isupper()


def name_marks(text: str) -> list[str]:
    """The entries *text* adds to the stem statistics: :data:`NAME_MARK` + token for each
    word it writes capitalised and never in lower case (that may name someone:
    :func:`_may_name`), and :data:`MID_MARK` + token for those among them it writes so
    inside a sentence."""
    named: set[str] = set()
    inside: set[str] = set()
    lower: set[str] = set()
    for _, written, tokens, opens in _words(without_date_stamp(text)):
        if _titled(written):
            named.update(tokens)
            if not opens:
                inside.update(tokens)
        elif not written[:1].isupper():
            lower.update(tokens)
    named = {t for t in named - lower if _may_name(t)}  # "The" opens sentences: no name
    return sorted([NAME_MARK + t for t in named] + [MID_MARK + t for t in inside & named])


def uncased(question: str) -> bool:
    """Was *question* typed without case: no capitalised word inside a sentence (the
    pronoun "I" and words in capitals aside: "who covers me when I'm on PTO")?"""
    return not any(_titled(w) and not opens for _, w, _t, opens in _words(question))


def _askable_words(question: str) -> Iterator[tuple[int, str, str]]:
    """(start, word as written, its token) for each word of *question* typed in lower
    case that may be a name: one token (:func:`_may_name`)."""
    for start, written, tokens, _opens in _words(question):
        if len(tokens) == 1 and not written.isupper() and _may_name(tokens[0]):
            yield start, written, tokens[0]


def askable(question: str) -> list[str]:
    """The tokens of *question* that may be names (the entries :func:`truecase` reads),
    at most :data:`~houkai.domain.text.MAX_QUERY_TERMS` of them, as the question's terms."""
    return list(dict.fromkeys(t for _, _, t in _askable_words(question)))[:MAX_QUERY_TERMS]


def is_name(written_as_name: int, inside: int, holding: int) -> bool:
    """A word of the collection is a name when at least half the *holding* memories write
    it as one (*written_as_name*), and some, no fewer than write it in lower case, write
    it so inside a sentence (*inside*): "Half marathon target" opens a note and "Mile High
    Harvest Half" names a race, yet two notes say "half" in lower case."""
    lower = holding - written_as_name
    half = written_as_name >= CAPITALISED_SHARE * holding
    return holding > 0 and inside > 0 and half and inside >= lower


def truecase(question: str, name: Callable[[str], bool]) -> str:
    """*question* with each word *name* says is a name capitalised ("northgate renewal
    date" → "Northgate renewal date"); unchanged when it was typed with case."""
    if not uncased(question):
        return question
    out = list(question)
    for start, written, token in _askable_words(question):
        if name(token):
            out[start] = written[0].upper()
    return "".join(out)
