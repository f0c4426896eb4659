"""Words that mean the same thing to the lexical leg: "style checker" finds "linter".

An agent writes "Formatter/linter in notify-service: ruff." and is later asked "What
style checker do I run on the notification service?": the two share no word, and a
small embedding model barely links them. The ``synonyms`` stage folds each question
word with the other words of its groups (:data:`BUILT_IN`, plus the file the
``recall_synonyms`` setting names) into one BM25 term: a memory holding any of them
counts for that word, and the term's document frequency is the sum of theirs, so a
common group weighs what a common word weighs (a synonym never scores more than the
word asked; ADR 0096). The synonyms are also searched, so a memory that holds only a
synonym joins the candidates.

A group is one line of words separated by spaces or commas; ``#`` starts a comment.
Each entry is one word as the index splits text ("heads-up" is two: write ``heads``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from ..domain.model import ValidationError
from ..domain.text import REDISEARCH_STOPWORDS, STOP_WORDS, stem, tokenize

log = logging.getLogger(__name__)

#: The built-in groups: what agents' memories of software projects, people and client
#: work call by several names. Kept short and plain on purpose: a word whose other meaning
#: is as common in such notes is left out ("store", "call", "reacts" beside the React
#: framework), and the stage earns its place on every set of the benchmark suite, test
#: splits included (ADR 0096).
BUILT_IN = """
# software projects
test tests testing verify check suite
linter lint formatter format style checker
database db storage datastore
runtime interpreter compiler language
deploy deploys deployed deployment ship ships hosted hosting production prod
review reviews reviewer approve
framework library
queue messaging broker
infra infrastructure servers sysadmin ops
vpn remote
bug defect
outage incident downtime
password credentials login
# people
gift present buy
allergy allergic reaction
contact reach
live lives based address relocated
work works job employed employer employs
diet eat eats food cook
birthday born
wife husband spouse
doctor physician gp
holiday vacation
# teams and clients
sales renewals
customer customers client clients
late delay delayed slip slipped overdue
warn warned heads
budget cost price
meeting sync standup
deadline due
# spellings
favourite favorite
colour color
neighbour neighbor
"""

#: At most this many synonyms per question word (a long group adds its first ones).
MAX_PER_WORD = 12


def parse_groups(text: str, origin: str = "synonyms") -> list[tuple[str, ...]]:
    """The groups of *text* (one per line), each a tuple of lower-cased words.

    Raises :class:`ValidationError` naming *origin* and the line for an entry that is
    not one word or is a stop word (recall never searches one), and for a group of
    fewer than two words."""
    groups: list[tuple[str, ...]] = []
    for number, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0].replace(",", " ").split()
        if not body:
            continue
        words: list[str] = []
        for entry in body:
            tokens = tokenize(entry)
            if len(tokens) != 1:
                raise ValidationError(
                    f"{origin}, line {number}: {entry!r} is not one word as the index "
                    f"splits text ({' '.join(tokens) or 'no word'}); write one of them"
                )
            word = tokens[0]
            if word in STOP_WORDS or word in REDISEARCH_STOPWORDS:
                raise ValidationError(
                    f"{origin}, line {number}: {word!r} is a stop word; recall never searches it"
                )
            if word not in words:
                words.append(word)
        if len(words) < 2:
            raise ValidationError(f"{origin}, line {number}: a group needs two words or more")
        groups.append(tuple(words))
    return groups


@dataclass(frozen=True)
class Vocabulary:
    """Groups of words that mean the same thing, looked up by a word or an inflection."""

    groups: tuple[tuple[str, ...], ...] = ()
    _index: Mapping[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    _by_stem: Mapping[str, tuple[str, ...]] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, groups: Iterable[Sequence[str]]) -> Vocabulary:
        kept = tuple(tuple(g) for g in groups)
        index: dict[str, list[str]] = {}
        by_stem: dict[str, list[str]] = {}
        for group in kept:
            for word in group:
                found = index.setdefault(word, [])
                found.extend(w for w in group if w not in found)
                same = by_stem.setdefault(stem(word), [])
                if word not in same:
                    same.append(word)
        return cls(
            kept,
            {k: tuple(v) for k, v in index.items()},
            {k: tuple(v) for k, v in by_stem.items()},
        )

    def related(self, terms: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """For each of the question's *terms* in a group, the group's other words (not
        the term, nor another of the question's terms), at most :data:`MAX_PER_WORD`.

        A term is in a group when it is one of its words or an inflection of one
        ("linting" of "lint"), not merely a word of the same stem: "presentation" and
        "present" share the stem "present", yet a presentation is no gift."""
        asked = set(terms)
        out: dict[str, tuple[str, ...]] = {}
        for term in terms:
            found = self._index.get(term, ())
            if not found:
                word = next(
                    (w for w in self._by_stem.get(stem(term), ()) if _inflects(term, w)), ""
                )
                found = self._index.get(word, ())
            others = [w for w in found if w not in asked][:MAX_PER_WORD]
            if others:
                out[term] = tuple(others)
        return out


#: The endings of an inflection: "linting" is "lint" + "ing", "warned" is "warn" + "ed".
_ENDINGS = ("s", "es", "d", "ed", "ing")


def _inflects(term: str, word: str) -> bool:
    """Is *term* an inflection of *word* ("reviewed" of "review", "shipping" of "ship" by
    its doubled consonant, "deleting" of "delete")? Not the other way round: "base" is
    no form of "based in"."""
    if len(term) <= len(word) or stem(term) != stem(word):
        return False
    if term.startswith(word):
        rest = term[len(word) :]
    elif word.endswith("e") and term.startswith(word[:-1]):
        rest = term[len(word) - 1 :]  # "deleting" of "delete"
    else:
        return False
    if len(rest) > 1 and rest[0] == word[-1]:
        rest = rest[1:]  # "shipping" of "ship"
    return rest in _ENDINGS


@lru_cache(maxsize=8)
def _load(path: str, stamp: float) -> Vocabulary:
    del stamp  # part of the cache key only: an edited file is read again
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValidationError(f"recall_synonyms: cannot read {path}: {exc}") from exc
    return Vocabulary.of([*parse_groups(BUILT_IN, "built-in"), *parse_groups(text, path)])


#: The last vocabulary each file gave: a file edited into a bad state while a server runs
#: keeps serving the groups it had (the error is logged), instead of failing every recall.
_last_good: dict[str, Vocabulary] = {}


def vocabulary(path: str = "") -> Vocabulary:
    """The built-in groups, and the groups of the file at *path* when one is given (the
    ``recall_synonyms`` setting), read again when the file changes.

    Raises :class:`ValidationError` when the file cannot be read or holds a bad line,
    unless an earlier read of it succeeded: then that vocabulary stays, and the error is
    logged."""
    if not path:
        return _built_in()
    try:
        found = _load(path, os.stat(path).st_mtime)
    except (OSError, ValidationError) as exc:
        error = (
            exc
            if isinstance(exc, ValidationError)
            else ValidationError(f"recall_synonyms: cannot read {path}: {exc}")
        )
        if path not in _last_good:
            raise error from None
        log.error("%s; recall keeps the synonyms read before", error)
        return _last_good[path]
    _last_good[path] = found
    return found


@lru_cache(maxsize=1)
def _built_in() -> Vocabulary:
    return Vocabulary.of(parse_groups(BUILT_IN, "built-in"))
