"""Names in a question typed without capitals: "northgate renewal date".

Recall reads a question's names from its capitals ("Where does Mia work?" is about Mia),
yet people type into a chat box in lower case. Typed so, the personal set's questions
lost 0.09 of R@5 (ADR 0102): "how do i reach tim" no longer tells Tim from Tom. The
memories still write their names capitalised, so each write counts, beside its stems,
the words it writes only as a name (:func:`name_marks`), and a question with no capital
inside a sentence (:func:`uncased`) has its words capitalised where the collection
writes them as names (:func:`truecase`).

A word counts as a name of the collection when most memories holding it write it
capitalised and never in lower case (:data:`NAME_SHARE`), and no fewer write it so inside
a sentence than write it in lower case (:func:`is_name`): "Gift idea for Mia" opens many
notes, yet no note writes "Gift" mid-sentence. A word in capitals ("SLA", "PTO") is an
acronym, never a name here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from .text import ANY_STOP_WORDS, tokenize, without_date_stamp

#: Prefix of the stem-statistics entry that counts memories writing a word only as a name.
NAME_MARK = "^"
#: Prefix of the entry that counts those writing it so inside a sentence.
MID_MARK = "^^"
#: The share of the memories holding a word that must write it as a name.
NAME_SHARE = 0.5

_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_POSSESSIVE = re.compile(r"['’]s$")
#: What precedes a sentence's first word: the start, an end of sentence, a colon or
#: semicolon ("Reminder: Kestrel …"), a line break, an opening quote or bracket.
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*|[\"“(\[]\s*)")
#: The pronoun "I" and its contractions, capitalised wherever they stand.
_PRONOUN_I = re.compile(r"^I(?:['’](?:m|d|ll|ve))?$")


def _words(text: str) -> Iterator[tuple[int, str, str, bool]]:
    """(start, word as written, its one token, opens a sentence) for each word of *text*
    that is one token once a possessive is dropped ("Tom's" → ``tom``)."""
    opening = {m.end() for m in _SENTENCE_START.finditer(text)}
    for m in _WORD.finditer(text):
        written = m.group(0)
        tokens = tokenize(_POSSESSIVE.sub("", written))
        if len(tokens) == 1:
            yield m.start(), written, tokens[0], m.start() in opening


def _titled(written: str) -> bool:
    """Capitalised as a name is: a capital first, not all in capitals ("SLA", "I")."""
    return written[:1].isupper() and not written.isupper()


def name_marks(text: str) -> list[str]:
    """The entries *text* adds to the stem statistics: :data:`NAME_MARK` + token for each
    word it writes capitalised and never in lower case (no stop word), and
    :data:`MID_MARK` + token for those among them written so inside a sentence."""
    named: set[str] = set()
    inside: set[str] = set()
    lower: set[str] = set()
    for _, written, token, opens in _words(without_date_stamp(text)):
        if _titled(written):
            named.add(token)
            if not opens:
                inside.add(token)
        elif not written[:1].isupper():
            lower.add(token)
    named -= lower | ANY_STOP_WORDS  # "The" opens sentences; no question asks for it
    return sorted([NAME_MARK + t for t in named] + [MID_MARK + t for t in inside - lower])


def uncased(question: str) -> bool:
    """Was *question* typed without case: no capitalised word inside a sentence (the
    pronoun "I" and words in capitals aside: "who covers me when I'm on PTO")?"""
    for _, written, _token, opens in _words(question):
        if _titled(written) and not opens and not _PRONOUN_I.match(written):
            return False
    return True


def askable(question: str) -> list[str]:
    """The tokens of *question* that may be names: written in lower case, no stop word,
    two letters or more (the entries :func:`truecase` reads)."""
    out = [
        token
        for _, written, token, _opens in _words(question)
        if not written.isupper() and len(token) > 1 and token not in ANY_STOP_WORDS
    ]
    return list(dict.fromkeys(out))


def is_name(written_as_name: int, inside: int, holding: int) -> bool:
    """A word of the collection is a name when most of the *holding* memories write it as
    one (*written_as_name*), and no fewer write it so inside a sentence (*inside*) than
    write it in lower case: "Half marathon target" opens a note and "Mile High Harvest
    Half" names a race, yet two notes say "half" in lower case."""
    lower = holding - written_as_name
    most = written_as_name >= NAME_SHARE * holding
    return holding > 0 and inside > 0 and most and inside >= lower


def truecase(question: str, name: Callable[[str], bool]) -> str:
    """*question* with each word *name* says is a name capitalised ("northgate renewal
    date" → "Northgate renewal date"); unchanged when it was typed with case."""
    if not uncased(question):
        return question
    out = list(question)
    for start, written, token, _opens in _words(question):
        if not written.isupper() and len(token) > 1 and token not in ANY_STOP_WORDS and name(token):
            out[start] = written[0].upper()
    return "".join(out)
