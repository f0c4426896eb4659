"""Words that mean the same thing to the lexical leg: "style checker" finds "linter".

An agent writes "Formatter/linter in notify-service: ruff." and is later asked "What
style checker do I run on the notification service?": the two share no word, and a
small embedding model barely links them. The ``synonyms`` stage folds each question
word with the other words of its groups (:data:`BUILT_IN`, plus the file the
``recall_synonyms`` setting names) into one BM25 term (:class:`houkai.store.lexstats.Fold`):
a memory holding any of them, or an inflection of one, counts for that word, and the
term's document frequency is the sum of theirs, so a common group weighs what a common
word weighs and a synonym never scores more than the word asked (ADR 0096). The synonyms
are also searched, within the postings the question's own words leave, so a memory that
holds only a synonym joins the candidates.

A group is one line of words separated by spaces or commas; ``#`` starts a comment.
Each entry is one word as the index splits text ("heads-up" is two: write ``heads``).
A line ``short = words`` is an abbreviation (:mod:`houkai.recall.abbreviations`).
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from ..domain.model import ValidationError
from ..domain.text import inflects, stem
from . import abbreviations
from .abbreviations import Abbreviation, Abbreviations, one_word, read_abbreviation

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


def parse(text: str, origin: str = "synonyms") -> tuple[list[tuple[str, ...]], list[Abbreviation]]:
    """The groups of *text* (one per line, each a tuple of lower-cased words) and its
    abbreviations (lines ``short = expansion``: :func:`read_abbreviation`), in one pass.

    Raises :class:`ValidationError` naming *origin* and the first bad line: an entry that
    is not one word or is a stop word (recall never searches one), a group of fewer than
    two words, a bad abbreviation."""
    groups: list[tuple[str, ...]] = []
    found: list[Abbreviation] = []
    for number, line in enumerate(text.splitlines(), 1):
        where = f"{origin}, line {number}"
        body = line.split("#", 1)[0]
        if "=" in body:
            found.append(read_abbreviation(body, where))
            continue
        words = list(dict.fromkeys(one_word(e, where) for e in body.replace(",", " ").split()))
        if not words:
            continue
        if len(words) < 2:
            raise ValidationError(f"{where}: a group needs two words or more")
        groups.append(tuple(words))
    return groups, found


@dataclass(frozen=True)
class Vocabulary:
    """Groups of words that mean the same thing, looked up by a word or an inflection."""

    groups: tuple[tuple[str, ...], ...] = ()
    _index: Mapping[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    _by_stem: Mapping[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    #: what notes abbreviate and questions spell out ("pull request" → "pr", ADR 0109)
    abbreviations: Abbreviations = field(default_factory=Abbreviations, repr=False)

    @classmethod
    def of(
        cls, groups: Iterable[Sequence[str]], abbreviations: Iterable[Abbreviation] = ()
    ) -> Vocabulary:
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
            Abbreviations(abbreviations),
        )

    def related(
        self, terms: Sequence[str], tokens: Sequence[str] = ()
    ) -> dict[str, tuple[str, ...]]:
        """For each of the question's *terms* in a group, the group's other words, at most
        :data:`MAX_PER_WORD` (another of the question's words among them: "style" and
        "checker" each count the other, so a note saying "style checker" weighs no less
        than one saying "linter"), then the abbreviations it spells out.

        A term is in a group when it is one of its words or an inflection of one
        ("linting" of "lint"), not merely a word of the same stem: "presentation" and
        "present" share the stem "present", yet a presentation is no gift.

        With the question's *tokens*, each word that spells out an abbreviation with its
        neighbours also has the abbreviation ("pull" and "requests" have "pr")."""
        out: dict[str, tuple[str, ...]] = {}
        short = self.abbreviations.spelled_out(tokens) if tokens else {}
        for term in terms:
            found = self._index.get(term, ())
            if not found:
                word = next((w for w in self._by_stem.get(stem(term), ()) if inflects(term, w)), "")
                found = self._index.get(word, ())
            others = [w for w in found if w != term][:MAX_PER_WORD]
            others += [w for w in short.get(term, ()) if w not in others]
            if others:
                out[term] = tuple(others)
        return out


#: The largest synonyms file read (a vocabulary, not a corpus).
MAX_FILE_BYTES = 1 << 20

#: One read of a file: its path and stamp (modification time, size, inode), and the
#: vocabulary it gave or the message of the error it raised (a message, not the error:
#: raising one object again and again would grow its traceback with every recall).
_Read = tuple[tuple[str, tuple[int, int, int]], "Vocabulary | str"]

_last_read: dict[str, _Read] = {}  # by path: the latest read
_last_good: dict[str, Vocabulary] = {}  # by path: the latest vocabulary a read gave


def _read(path: str, stamp: tuple[int, int, int]) -> Vocabulary:
    if stamp[1] > MAX_FILE_BYTES:
        raise ValidationError(
            f"recall_synonyms: {path} holds {stamp[1]:,} bytes, over {MAX_FILE_BYTES:,}"
        )
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read(MAX_FILE_BYTES + 1)
    except (OSError, UnicodeDecodeError) as exc:
        raise ValidationError(f"recall_synonyms: cannot read {path}: {exc}") from None
    built_in = _built_in()
    groups, found = parse(text, path)
    return Vocabulary.of([*built_in.groups, *groups], [*built_in.abbreviations.known, *found])


def _stamp(path: str) -> tuple[int, int, int]:
    try:
        info = os.stat(path)
    except (OSError, ValueError) as exc:
        raise ValidationError(f"recall_synonyms: cannot read {path}: {exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ValidationError(f"recall_synonyms: {path} is not a file")
    return info.st_mtime_ns, info.st_size, info.st_ino


def vocabulary(path: str = "") -> Vocabulary:
    """The built-in groups, and the groups of the file at *path* when one is given (the
    ``recall_synonyms`` setting; ``~`` is the home directory), read again when the file
    changes (its modification time, size or inode).

    Raises :class:`ValidationError` when the file cannot be read or holds a bad line,
    unless an earlier read of it succeeded: then that vocabulary stays, and the error is
    logged once per change of the file."""
    if not path:
        return _built_in()
    path = os.path.expanduser(path)
    found: Vocabulary | str
    try:
        key = (path, _stamp(path))
    except ValidationError as exc:
        key, found = (path, (0, -1, 0)), str(exc)  # gone or no file: no read to repeat
    else:
        last = _last_read.get(path)
        if last is not None and last[0] == key:
            found = last[1]
        else:
            try:
                found = _read(*key)
            except ValidationError as exc:
                found = str(exc)
    fresh = _last_read.get(path, (None, None))[0] != key
    _last_read[path] = (key, found)
    if isinstance(found, Vocabulary):
        _last_good[path] = found
        return found
    if path not in _last_good:
        raise ValidationError(found)
    if fresh:
        log.error("%s; recall keeps the synonyms read before", found)
    return _last_good[path]


def check_setting(path: str) -> None:
    """Read the ``recall_synonyms`` file, when one is set: a server calls it as it starts,
    so a bad file stops it there rather than at a recall (a caller may turn the stage on
    per recall, whatever the ``recall_stages`` setting says)."""
    if path:
        vocabulary(path)


@lru_cache(maxsize=1)
def _built_in() -> Vocabulary:
    groups, found = parse(BUILT_IN + abbreviations.BUILT_IN, "built-in")
    return Vocabulary.of(groups, found)
