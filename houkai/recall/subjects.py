"""Whom a memory is about, read from its text: for collections that do not tag memories
by person or project, or tag them unevenly (the ``query`` stage's share of the names
boost, ADR 0097, and the opt-in ``subjects`` stage, ADR 0091).

The ``names`` boost of the ``query`` stage lifts the memories whose tag (or source) is a
name the question asks about (ADR 0051). An agent that does not tag its memories so got
nothing from it: with their tags stripped, the team set's dev split fell from R@5 0.893
to 0.836. Here the text stands in for the tag: the ``query`` stage gives a note not tagged
so half the boost for it (ADR 0097), and the opt-in ``subjects`` stage the rest when no
candidate of a recall's pool carries a question name as its tag or source:

* a memory that names them, capitalised, in its first :data:`OPENING` words is about them
  ("Zoe prefers a call now", "Pemberton's due date is now 15 January", "Best way to reach
  Sam"), in the share of the question's names it holds ("Jon Reyes" is half of "Joan
  Reyes"); a name further in is a mention ("Picked a birthday card design for Tom"), and
  "Deploys go out on Tuesdays" does not name Go;
* so is the second hop, as much as the notes that lead to it: a memory whose opening
  names someone the best of those notes names inside a sentence, that does not open with
  another name or word ("Beacon uses Postgres 16" is about Beacon, not Postgres), and
  never mentions the question's names ("Dana's partner is called Ines", then "Ines is a
  nurse at the city hospital"). Without it the boost buries second hops under every note
  on the one asked about (held-out multi-hop 0.95 → 0.72 when any mention counted).

A dated import's leading ``[8 May 2023]`` stamp is skipped. The readers look at a text's
first :data:`PREFIX` characters and are remembered per text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..domain.text import CALENDAR_WORDS, PerText, tokenize, without_date_stamp
from .candidates import Candidate
from .statements import STOP, stated_values

#: The first words of a memory that say whom or what it is about.
OPENING = 5
#: How many of the best memories about the question's names lend theirs to a second hop.
HOP_FROM = 3
#: How much of a text the opening is read from (a long document is not tokenised whole).
PREFIX = 256

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_POSSESSIVE = re.compile(r"['’]s\b")


def _read_opening(text: str) -> tuple[frozenset[str], str]:
    """The capitalised words among the first :data:`OPENING` (lower-cased, possessives
    cut), and the first word when it is capitalised ("" when it is not)."""
    body = without_date_stamp(text[:PREFIX])
    first, named = "", set()
    for i, m in enumerate(_WORD.finditer(body)):
        if i >= OPENING:
            break
        word = _POSSESSIVE.sub("", m[0])
        if word[:1].isupper():
            named.add(word.lower())
            if i == 0:
                first = word.lower()
    return frozenset(named), first


def _read_mentions(text: str) -> frozenset[str]:
    """Every word of *text*, lower-cased, possessives cut ("Ines's job" holds ``ines``)."""
    return frozenset(tokenize(_POSSESSIVE.sub("", text)))


_opening = PerText(_read_opening)
_mentions = PerText(_read_mentions)


def opening(text: str) -> frozenset[str]:
    """The capitalised words among the first :data:`OPENING` words of *text*, lower-cased."""
    return _opening(text)[0]


def stated_names(text: str) -> frozenset[str]:
    """The names *text* states inside its sentences (lower-cased; no number, weekday or
    month)."""
    return frozenset(v for v in stated_values(text) if not v[:1].isdigit()) - CALENDAR_WORDS


def _hop_from(text: str, hops: dict[str, float], names: set[str]) -> float:
    """How much *text* is a second hop through one of *hops* (name → the share of the note
    that names it): its opening names one, its first word is none other, and it never
    mentions the question's *names*; 0 otherwise."""
    named, first = _opening(text)
    found = [hops[n] for n in named if n in hops]
    if not found or (first and first not in hops and first not in STOP):
        return 0.0
    if not names.isdisjoint(_mentions(text)):
        return 0.0
    return max(found)


def readable(names: set[str], unseen: Sequence[str] = ()) -> set[str]:
    """The question's *names* (lower-cased) a memory's opening can be about: not those no
    memory mentions (*unseen*), nor a weekday or month ("Nora's calendar for Saturday" is
    about Nora)."""
    return names - {u.lower() for u in unseen} - CALENDAR_WORDS


def about(cands: Sequence[Candidate], names: set[str]) -> list[float]:
    """Per candidate, how much it is about the question's *names* (lower-cased), read
    from its text: the share of them its opening names, or, for a second hop, the share of
    the note that leads to it (see the module docstring); 0 otherwise. The second hops
    come from the :data:`HOP_FROM` best candidates (by the blend) about them."""
    if not names:
        return [0.0] * len(cands)
    shares = [len(names & opening(c.memory.text)) / len(names) for c in cands]
    best = sorted((i for i, s in enumerate(shares) if s > 0), key=lambda i: -cands[i].score)
    hops: dict[str, float] = {}
    for i in best[:HOP_FROM]:
        for name in stated_names(cands[i].memory.text) - names:
            hops[name] = max(hops.get(name, 0.0), shares[i])
    if not hops:
        return shares
    return [
        share or _hop_from(c.memory.text, hops, names)
        for c, share in zip(cands, shares, strict=True)
    ]
