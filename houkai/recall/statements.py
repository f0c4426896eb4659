"""What a memory's text states, read once per text: its values, its content words, and
whether it says it replaces an earlier fact.

The ``current`` stage compares these between candidates (an update repeats the value it
replaces, ADR 0085/0086; the code name a note opens with is its subject, ADR 0098) and
``bridge`` reads a memory's names (ADR 0089). Each reader is
remembered per text (:class:`~houkai.domain.text.PerText`): the same memories recur
across recalls.
"""

from __future__ import annotations

import re
import string
from typing import NamedTuple

from ..domain.text import (
    ANY_STOP_WORDS,
    CALENDAR_WORDS,
    LETTER_WORD,
    PerText,
    stem,
    stem_tokens,
    tokenize,
    without_date_stamp,
)

#: Words no question asks for (the stop words of both lists).
STOP = ANY_STOP_WORDS
_NUMBER_WORD = re.compile(r"\b\d[\w.:]*\b")
_NAME_WORD = re.compile(r"\b[A-Z][\w]+\b")
#: How a memory says it replaces an earlier fact ("Sanjay is Tue–Thu **now**", "**moved**
#: to Express", "**no longer** works", "**relocated** to Toronto"): an update, even when it
#: words the topic differently from the fact it replaces (ADR 0086). "new" is not one of
#: them: "the new clinic opens" states a fact, it does not replace one. A change told in
#: the present is one too ("standup **moves to** 9:15 **starting tomorrow**", "**switches
#: to** Linear", ADR 0097), but not a plan or a routine: "looked at moving to Teams",
#: "the rota hands over every Monday", "takes over 30s", "changes to the agreement". A
#: quantity's change is one when the new value follows ("rent **went up to** $1,950",
#: "rate limit **raised to** 250", ADR 0118), not "went up to the Rockies".
_CALENDAR_WORD = "|".join(sorted(CALENDAR_WORDS, key=lambda w: (-len(w), w)))
UPDATE_WORDS = re.compile(
    r"\b((?<!\bfor\s)(?<!\bfor\s\s)now|no longer|any ?more|instead|switched|moved|changed|"
    r"relocated|replaced|"
    r"back to|back on|dropped|migrated|handed over|upgraded|bumped|relaxed|lifted"
    r"|(?:switches|moves|relocates|migrates|upgrades) to"
    r"|(?:raised|increased|decreased|lowered|reduced|went up|went down|rose|fell) to"
    r"(?=\s*[$€£~]?\d)"
    r"|(?:took|takes) over(?!\s+(?:\d|an?\b|half))"
    rf"|starting (?:today|tomorrow|tonight|next|this|on|from|in|\d|{_CALENDAR_WORD}))\b",
    re.I,
)
#: The single words of :data:`UPDATE_WORDS`: they say a fact changed, never what it is
#: (two updates of different facts both "moved"; ADR 0097).
CHANGE_WORDS = frozenset(
    "now longer anymore instead switched moved changed relocated replaced back dropped "
    "migrated handed upgraded bumped relaxed lifted switches moves relocates migrates "
    "upgrades took takes starting more raised increased decreased lowered reduced went rose "
    "fell".split()
)


class CodeName(NamedTuple):
    """The code name a note opens with (:func:`opening_code_name`): its words' stems, and
    whether it is written as an identifier (a dash, underscore, dot or digits in it)."""

    stems: frozenset[str]
    identifier: bool


NO_CODE_NAME = CodeName(frozenset(), False)


#: A count with its unit or a decade ("1990s", "3pm", "25k", "300ms", "64GB", "1080p"):
#: no identifier.
_MEASURE = re.compile(
    r"\d+(?:s|st|nd|rd|th|am|pm|k|m|km|kg|g|mg|ml|h|hrs?|mins?|ms|x|p|px|fps|"
    r"[kmgt]b|[kmg]bps|[kmg]hz)",
    re.I,
)


def is_code(thing: str) -> bool:
    """Is *thing* an identifier with digits (``099b874``, ``INV-2026-0412``, ``E1524``,
    a number of five digits or more)?
    It names one record: a memory without it is about another one."""
    if thing.isdigit():
        return len(thing) >= 5
    return (
        any(ch.isdigit() for ch in thing)
        and any(ch.isalpha() for ch in thing)
        and not _MEASURE.fullmatch(thing)
    )


def _read_values(text: str) -> frozenset[str]:
    """The words of *text* that state a value: a name inside a sentence or a number
    ("Postgres 14", "Porto"); an update often repeats the value it replaces."""
    out = {m[0].lower() for m in _NUMBER_WORD.finditer(text)}
    for m in _NAME_WORD.finditer(text):
        k = m.start() - 1
        while k >= 0 and text[k].isspace():
            k -= 1
        if k >= 0 and text[k] not in ".!?:;(":
            out.add(m[0].lower())
    return frozenset(out)


def _read_words(text: str) -> frozenset[str]:
    """The content words of *text* (no stop word, no single letter)."""
    return frozenset(t for t in tokenize(text) if t not in STOP and len(t) > 1)


def _read_update(text: str) -> bool:
    """Does *text* say it replaces an earlier fact (:data:`UPDATE_WORDS`)?"""
    return UPDATE_WORDS.search(text) is not None


#: The values *text* states, its content words, and whether it says it is an update.
stated_values = PerText(_read_values)
content_words = PerText(_read_words)
says_update = PerText(_read_update)


#: Where a note's sentences end (a semicolon ends one too). "Dr." and "e.g." end one as
#: well: a sentence cut short only makes a word of change speak for less.
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
#: Capitalised, they open a sentence without naming a subject of their own.
_PRONOUN_SUBJECTS = frozenset("i we you he she they it this that there".split())


def _subject_names(head: str) -> set[str]:
    """The capitalised words of *head*, what a sentence says before its word of change
    ("**Priya Nair** moved over to …"): the subject it names, if any."""
    capitalised = {w.lower() for w in LETTER_WORD.findall(head) if w[0].isupper()}
    return capitalised - STOP - CHANGE_WORDS - _PRONOUN_SUBJECTS


def change_speaks_of(text: str, others: frozenset[str]) -> bool:
    """Does a word of change in *text* speak of what *others* (the content words of the
    notes it would update) speak of? Its sentence shares a word with them, or names no
    subject of its own before the word of change: "Birchway launched 29 Oct. **Now** in
    support & maintenance." and "Moved to Express." go on about the note's subject; in
    "Escalations for Dana's accounts go to Tomás Ferreira. Priya Nair **moved** over to
    Support Ops." the change is Priya's, not one of the solutions engineer's note beside it
    (ADR 0101). False when *text* says no word of change."""
    for sentence in _SENTENCE_END.split(text):
        change = UPDATE_WORDS.search(sentence)
        if change is None:
            continue
        if (_read_words(sentence) - CHANGE_WORDS) & others:
            return True
        if not _subject_names(sentence[: change.start()]):
            return True
    return False


#: A word written as an identifier: a dash, underscore or dot inside, or digits after letters.
_IDENTIFIER_LIKE = re.compile(r"[A-Za-z]\w*(?:(?:[-_.]\w+)+|(?<=[A-Za-z])\d\w*)")


def opening_code_name(text: str) -> CodeName:
    """The code name *text* opens with, or :data:`NO_CODE_NAME`: a first word that starts
    with a letter and is written in lower case ("notifier deploys…") or as an identifier
    ("billing-api is on…", "LEDGER_BATCH_SIZE", "s3bucket"); not a capitalised word (the
    sentence's), a stop word, a word of change ("moved notifier to EKS" is about the
    notifier) or a date. Agents write a service's facts that way; the name in lower case is
    no named thing to the question, yet it is the subject (ADR 0098)."""
    return _opening_code_name(text)


def _read_code_name(text: str) -> CodeName:
    first = without_date_stamp(text).lstrip().lstrip("`'\"(*[").split(maxsplit=1)
    if not first:
        return NO_CODE_NAME
    word = first[0].rstrip("`'\"),:;.!?*]")
    words = tokenize(word)
    tokens = [t for t in words if t not in STOP]
    if not word[:1].isalpha() or not tokens or words[0] in STOP:
        return NO_CODE_NAME
    identifier = bool(_IDENTIFIER_LIKE.fullmatch(word))
    if not (identifier or word[:1].islower()) or (not identifier and tokens[0] in CHANGE_WORDS):
        return NO_CODE_NAME
    return CodeName(frozenset(stem(t) for t in tokens), identifier)


_opening_code_name = PerText(_read_code_name)


#: A note that opens with someone's or something's possessive: "Theo's primary care doctor…".
_OPENING_OWNER = re.compile(r"[\W_]*([^\W\d_][\w-]*)['’]s\b")


def opening_owner(text: str) -> str:
    """Whose fact *text* opens with, lower-cased ("theo" for "Theo's primary care doctor is
    Dr. Paul Nguyen"), or "": two notes that open with two owners' facts are siblings, not
    a fact and its update ("User's primary care doctor is Dr. Miriam Costa")."""
    return _opening_owner(text)


def _read_owner(text: str) -> str:
    found = _OPENING_OWNER.match(without_date_stamp(text))
    owner = found[1].lower() if found else ""
    return "" if owner in STOP or owner in _CONTRACTED else owner


#: Words whose "'s" is "is", "has" or "us" ("She's", "Here's", "Let's", "Name's Theo"), or
#: whose possessive names no one ("Everybody's", "Today's"), the stop words aside.
_CONTRACTED = frozenset(
    "he she here let name everything nothing something anything everyone everybody someone "
    "somebody anyone anybody nobody today tomorrow tonight yesterday".split()
)
_opening_owner = PerText(_read_owner)


#: Words between a value and what it is the value of ("Python **is** 3.12", "p99 **on** …:
#: 240 ms", "`.nvmrc` **says** 18.19.0"): skipped when reading a value's anchor.
_VALUE_FILLER = frozenset(
    "is are was were be on at to of in now about around roughly approx approximately "
    "says said set version ver".split()
)
#: Words that open a circumstance of their own ("until 20 Dec", "since 3.10", "every 2
#: weeks", "has 3 replicas"): a value behind one has no anchor, as behind any stop word.
_VALUE_BARRIER = frozenset("until since after before every per over than by from".split())
#: Where a clause ends: an anchor is read within the value's own clause.
_CLAUSE = re.compile(r"[;()\[\]]|[.!?](?=\s|$)")
_SLOT_TOKEN = re.compile(
    r"(?P<number>(?<![/\w])v\d[\d.]*|\d[\d.,:]*(?:-\d[\d.,:]*)*[A-Za-z%]*)|(?P<word>[A-Za-z][\w+#]*)"
)
_UNIT_LETTERS = string.ascii_letters + "%"


def value_slots(text: str) -> frozenset[tuple[str, str]]:
    """What each number of *text* is the value of: ``(anchor, number)`` pairs, the anchor
    the nearest content word before the number in its clause ("Python 3.12", "Terraform
    1.7.4 in …", "standup is at 9:45", "Node v18"), skipping a few words that stand
    between a thing and its value (:data:`_VALUE_FILLER`); a stop word or a word of
    circumstance before it (:data:`_VALUE_BARRIER`: "has 3 replicas", "until 20 Dec")
    leaves it no anchor. A count's unit is left off ("310ms" is 310; "10am" and "10pm"
    stay apart). Two notes giving one anchor different numbers restate one fact with a
    new value (:func:`restates`); a unit is no anchor: "p50 is 40 ms" and "p99 is 240 ms"
    are two facts."""
    return _value_slots(text)


def _number(token: str) -> str:
    """*token*'s value: a leading "v" and a trailing unit left off, "am"/"pm" kept."""
    number = token.rstrip(".,:").removeprefix("v")
    digits = number.rstrip(_UNIT_LETTERS)
    suffix = number[len(digits) :].lower()
    return digits + suffix if suffix in ("am", "pm") else digits


#: How many tokens into a note an identifier names its subject.
_SUBJECT_AT = 3


def _read_slots(text: str) -> frozenset[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for n, clause in enumerate(_CLAUSE.split(without_date_stamp(text))):
        found = list(_SLOT_TOKEN.finditer(clause))
        tokens = [(m["number"], m[0]) for m in found]
        for at, (number, token) in enumerate(tokens):
            if not number:
                continue
            glue = clause[found[at - 1].end() : found[at].start()] if at else ""
            if n == 0 and at <= _SUBJECT_AT and glue in ("-", "_") and not tokens[at - 1][0]:
                continue  # the identifier a note opens with ("Invoice INV-2026-0412 …"): its
                # subject, no value (a run's "r-0473" later in the note is one)
            for back in range(at - 1, max(at - 4, -1), -1):
                if tokens[back][0]:
                    continue  # another number: "from 8080 to 8081"
                word = tokens[back][1].lower()
                if word in _VALUE_FILLER:
                    continue
                if word not in STOP and word not in _VALUE_BARRIER:
                    out.add((stem(word), _number(token)))
                break
    return frozenset(out)


_value_slots = PerText(_read_slots)


def _read_opening(text: str) -> tuple[str, ...]:
    """The stems of *text*'s first three words that are no stop words nor numbers (a date
    that opens a note is no subject)."""
    words = tokenize(without_date_stamp(text))[:8]
    tokens = [t for t in words if t not in STOP and not t[:1].isdigit()]
    return tuple(stem(t) for t in tokens[:3])


def _same_subject(newer: str, older: str) -> bool:
    """Do the two open on one subject: the same first two words, or the same first word and
    one's first two among the other's first three ("Ravi's number: 555-0199" after "Ravi's
    phone number is 555-0142"; not "Sprint retro …" after "Sprint planning …")."""
    mine, theirs = _opening_words(newer), _opening_words(older)
    if len(mine) < 2 or len(theirs) < 2:
        return bool(mine) and mine == theirs
    if mine[:2] == theirs[:2]:
        return True
    return mine[0] == theirs[0] and (set(mine[:2]) <= set(theirs) or set(theirs[:2]) <= set(mine))


_opening_words = PerText(_read_opening)


def restates(newer: str, older: str) -> bool:
    """Does *newer* give a value *older* gave a different one ("quayside/infra: Terraform
    1.7.4" after "quayside/infra uses Terraform 1.5.7")? Both open with the same two words
    (their subject: "Tim's desk is 4" is no new value of "Tom's desk is 2") and, of one
    anchor, their numbers have none in common: a new value of the same thing, said without
    a word of change. Symmetric: which is the newer, and whether the two are on one topic,
    is the caller's to say."""
    return bool(_restated_anchors(newer, older))


def restates_plainly(newer: str, older: str) -> bool:
    """:func:`restates`, and *newer* says nothing the older did not of what the value is
    of: its words before an anchor it gives a new value are all words of *older*
    ("quayside/infra: Terraform 1.7.4" after "quayside/infra uses Terraform 1.5.7"; not
    "billing-api replica is Postgres 16" after "billing-api database is Postgres 14", a
    fact of another thing). Such a note may word the rest of the fact its own way."""
    said = set(stem_tokens(older))
    for anchor in _restated_anchors(newer, older):
        before = []
        for token in stem_tokens(without_date_stamp(newer)):
            if token == anchor:
                break
            before.append(token)
        if all(t in said or t in STOP for t in before):
            return True
    return False


def _restated_anchors(newer: str, older: str) -> set[str]:
    if not _same_subject(newer, older):
        return set()
    mine, theirs = value_slots(newer), value_slots(older)
    anchors = {a for a, _ in mine} & {a for a, _ in theirs}
    return {
        anchor
        for anchor in anchors
        if not ({n for a, n in mine if a == anchor} & {n for a, n in theirs if a == anchor})
    }


def may_update(newer: str, older: str, common: frozenset[str] = frozenset()) -> bool:
    """Can *newer* be an update of *older*, read from the two texts alone (ADR 0105)? It
    says it is one (:data:`UPDATE_WORDS`), the two share a name or identifier, or two words
    beyond words of change ("Tandemly moved engineering and product onto Linear; the Jira
    projects are archived" after "Product and engineering at Tandemly track work in Jira"),
    none of them *common* (what the notes around them all say: a service's name in every
    note on it, "the docker image grew past 1 GB" in every service's note), and they do not
    open with two subjects: two code names neither part of the other ("checkout-web is on
    Redis streams now" beside "billing-api is on RabbitMQ now"), or two owners' facts
    ("Theo's doctor …" beside "User's doctor …")."""
    if not says_update(newer):
        return False
    mine, theirs = opening_code_name(newer).stems, opening_code_name(older).stems
    if mine and theirs and not (mine <= theirs or theirs <= mine):
        return False
    owner, other = opening_owner(newer), opening_owner(older)
    if owner and other and owner != other:
        return False
    values = stated_values(newer) & stated_values(older)
    if any(not v[:1].isdigit() for v in values - common):
        return True
    shared = (content_words(newer) & content_words(older)) - CHANGE_WORDS - common
    return len(shared) >= 2
