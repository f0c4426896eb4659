"""What a question asks of the ``current`` and ``entity`` stages (ADR 0078): whether it
is about the present or the past, the things it names, and its words.

Read once per recall (:func:`read`, from the query the lexical leg already counted) and
shown in ``explain``; :mod:`houkai.recall.state` ranks the candidates by it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from ..domain.numbers import names_a_day
from ..domain.text import query_terms, stem, tokenize
from .coverage import thing_words
from .query import CLOCK, REFERENCE_WORDS, STARTED_WITH, asks_when, question_names

if TYPE_CHECKING:
    from ..store.lexstats import TermStats

_NOW = re.compile(
    r"\b(now|currently|current|these days|nowadays|at the moment|latest|most recent|"
    r"right now|still|any ?more|today)\b",
    re.I,
)
_PAST = re.compile(
    r"\b(originally|original|used to|previous(?:ly)?|formerly|at first|initially|"
    r"earlier|(?<!how )old|older|prior|back then|before that|first|" + STARTED_WITH + r")\b",
    re.I,
)
_BEFORE = re.compile(r"\bbefore\b", re.I)
#: A question whether a state holds on ("Do I **still** eat fish?", "Is it live **yet**?",
#: "Does Omar take escalations **any more**?"): it expects that the state may have changed
#: (ADR 0108). Not "any more" before what it counts ("Are there any more open invoices?"),
#: nor a name ("the Still Waters account").
_PERSISTS = re.compile(r"\b(?:still|yet)\b|^\s*(?:Still|Yet)\b|\bany ?more\W*$")
#: Its words, which say what the question expects, not what it is about.
_PERSISTS_WORDS = frozenset(stem(w) for w in ("still", "yet", "anymore", "more"))
_PAST_TENSE = re.compile(
    r"\b(did|was|were|had|used|went|got|came|took|made|said|told|gave|broke|ran|saw|"
    r"found|left|sent|built|began|chose|wrote|paid|bought|brought|caught|kept|lost|met|"
    r"sold|spent|thought|won|happened|decided|agreed|asked|started|ended)\b",
    re.I,
)
_REFERENCE = re.compile(rf"\b(?:{'|'.join((*REFERENCE_WORDS, 'after', 'than'))})\b", re.I)
_CAPITALISED_RUN = re.compile(r"\b[A-Z][\w']*(?:\s+[A-Z][\w']*)*")
_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_IDENTIFIER = re.compile(
    r"\b(?:[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)+|(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{4,}"
    r"|\d{5,}"  # a number of five digits or more names a record: "commit 2383888"
    r"|(?<![\w.])" + _OCTET + r"(?:\." + _OCTET + r"){3}(?::\d+)?(?![.\w-]))"  # an IPv4 host
    r"|(?<![\w#])#\d{2,}(?!\w)"  # a numbered record: "PR #5012", "ticket #52240"
)
#: Who the question is for or from ("remind **me**", "work with **us**"): no topic.
PRONOUNS = frozenset("me us him her them he she his hers mine ours yours theirs".split())


@dataclass
class StateQuery:
    """What the two stages read from the question (shown in ``explain``)."""

    intent: str = ""  # "present", "past" or ""
    entities: list[str] = field(default_factory=list)  # the named things, as asked
    from_tags: frozenset[str] = frozenset()  # those read from candidates' tags, not the text
    words: list[dict[str, float]] = field(default_factory=list)  # per thing: word → IDF
    stemmed: bool = False  # the words are stems (the collection counts stems)
    question: str = ""
    accessed: bool = False  # "newest" by last access: the caller's recency basis says so
    asked: frozenset[str] = frozenset()  # the question's tokens
    asked_terms: frozenset[str] = frozenset()  # its words' stems, without its reference point
    when: bool = False  # it asks when: its answer states a time
    persists: bool = False  # it asks whether a state holds on ("still", "any more", "yet")

    @cached_property
    def words_asked(self) -> tuple[frozenset[str], ...]:
        """Per value the question names, the :attr:`asked_terms` it gives: "10am" is one
        word though it is found by "10", "am" and ``10h00`` (ADR 0116, 0117), so a memory
        that lacks it lacks one word of the question, not three (read only when counted)."""
        return asked_words(self.question, self.asked_terms)

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {}
        if self.intent:
            out["intent"] = self.intent
        if self.entities:
            out["entities"] = list(self.entities)
        if self.when:
            out["when"] = True
        if self.persists:
            out["persists"] = True
        return out


def intent(text: str, window: bool = False) -> str:
    """``present``, ``past`` or "" (a past-tense question, a time window, a day of the
    year it names, "the invoice of March 14": neither). A time of day names a slot that
    may move ("Who runs the 10am standup?" asks who does now)."""
    if _PAST.search(text) or (_BEFORE.search(text) and _PAST_TENSE.search(text)):
        return "past"
    if _NOW.search(text):
        return "present"
    if window or _PAST_TENSE.search(text) or names_a_day(text.lower()):
        return ""
    return "present"


def identifiers(text: str) -> list[str]:
    """The ids and codes *text* names ("51877", "ESC-2410", "#5012", ``checkout-web``),
    not a time of day ("10am")."""
    clock = [m.span() for m in CLOCK.finditer(text)]  # "10am" is a time, not a code
    return [
        m[0]
        for m in _IDENTIFIER.finditer(text)
        if not any(start <= m.start() and m.end() <= end for start, end in clock)
    ]


def named_things(text: str) -> list[str]:
    """Capitalised names and identifiers (``checkout-web``, ``LEDGER_BATCH_SIZE``) the
    question is about: not what follows "before"/"instead of" (a reference point: "which
    linter did we use before Ruff?"), a short acronym ("CI", "DB", "PR") nor a time of day
    ("10am")."""
    text = _REFERENCE.split(text, maxsplit=1)[0]
    found = identifiers(text)
    for run in _CAPITALISED_RUN.finditer(text):  # "Grandma Rose" is one name
        words = question_names(run[0])  # no short acronym ("CI", "DB", "PR")
        words = [n for n in words if not any(n.lower() in tokenize(f) for f in found)]
        if words:
            found.append(" ".join(words))
    return list(dict.fromkeys(found))


def read(
    text: str,
    stats: TermStats | None,
    window: bool = False,
    tokens: list[str] | None = None,
    terms: list[str] | None = None,
) -> StateQuery:
    """The question's intent and its named things' words with their IDF (from *stats*,
    the lexical leg's frequencies of the question's terms). *tokens* / *terms*: the
    question's tokens and query terms, when the caller has them (read once per recall)."""
    out = StateQuery(
        intent=intent(text, window),
        question=text,
        when=asks_when(text),
        persists=_PERSISTS.search(text) is not None,
    )
    out.asked = frozenset(tokenize(text) if tokens is None else tokens)
    out.asked_terms = asked_terms(text, terms)
    if out.persists:
        out.asked_terms -= _PERSISTS_WORDS
    if stats is None or stats.n_docs <= 0:
        return out
    out.stemmed = stats.stemmed
    for thing in named_things(text):
        capitalised = thing[:1].isupper() and "-" not in thing and "_" not in thing
        kept = thing_words(tokenize(thing), stats, common=not capitalised)
        if kept:
            out.entities.append(thing)
            out.words.append(kept)
    return out


def asked_words(question: str, asked: frozenset[str]) -> tuple[frozenset[str], ...]:
    """Per value of *question* (a word with a digit, up to its reference point: "10am",
    "2:30pm", "3/14"), the stems of its query terms among *asked*; a value that gives
    none is left out. Not a name's parts: "feed-ranker" lacked is the subject lacked, and
    each of its parts counts (a note on another service is no update of its fact)."""
    head = _REFERENCE.split(question, 1)[0]
    values = (w for w in head.split() if any(ch.isdigit() for ch in w))
    words = (frozenset(stem(t) for t in query_terms(w)) & asked for w in values)
    return tuple(w for w in words if w)


def asked_terms(question: str, terms: list[str] | None = None) -> frozenset[str]:
    """The stems of the question's words, without its reference point ("before X") nor
    its pronouns written as such ("with **us**", not "the **US** region"); *terms*: the
    whole question's query terms, used when it has no reference point."""
    head = _REFERENCE.split(question, 1)[0]
    if terms is None or head != question:
        terms = query_terms(head)
    said = {t for t in PRONOUNS & set(terms) if re.search(rf"\b{t}\b", head)}
    return frozenset(stem(t) for t in terms if t not in said)


def answers_as_well(
    held: Sequence[frozenset[str]],
    newest: int,
    slack: int = 0,
    words: Sequence[frozenset[str]] = (),
) -> bool:
    """Does the group's newest memory hold every question word another member holds (all
    but *slack* of them)? An update answers the question the old fact answered; a sibling
    fact that lacks a word the question asks for ("closes" beside "opens", "P2" beside
    "P1") is not an update. One that says it is an update may word it differently
    ("Pemberton's due date is now 15 January" for "When is the Pemberton dashboard due?").
    *held*: the question terms each member holds; *newest*: its index there; *words*: the
    terms of each value the question names (:attr:`StateQuery.words_asked`), so that a
    value found by its parts and forms ("10am": 10, am, 10h00) is one word lacked."""
    return all(words_lacked(terms - held[newest], words) <= slack for terms in held)


def words_lacked(missing: frozenset[str], words: Sequence[frozenset[str]]) -> int:
    """How many question words *missing* (terms a memory lacks) takes terms of; a term of
    no word counts alone."""
    if not missing or not words:
        return len(missing)
    hit = [w for w in words if w & missing]
    return len(hit) + len(missing.difference(*hit))
