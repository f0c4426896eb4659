"""Whom a memory is about, read from its text: for collections that do not tag memories
by person or project.

The ``names`` boost of the ``query`` stage lifts the memories whose tag (or source) is a
name the question asks about (ADR 0051). An agent that does not tag its memories so got
nothing from it: with their tags stripped, the team set's dev split fell from R@5 0.893
to 0.836. When no candidate's tag or source names anyone the question names, the text
stands in for the tag (ADR 0091):

* a memory that names them in its first :data:`OPENING` words is about them ("Zoe
  prefers a call now", "Pemberton's due date is now 15 January", "Best way to reach
  Sam"), in the share of the question's names it holds ("Jon Reyes" is half of "Joan
  Reyes"); a name further in is a mention ("Picked a birthday card design for Tom");
* so is the second hop: a memory about someone a best memory about them names, that
  never mentions the question's names ("Dana's partner is called Ines", then "Ines is a
  nurse at the city hospital"). It opens with that name, not with another ("Beacon uses
  Postgres 16" is no hop from "Atlas uses Postgres 16"). Without it the boost buries
  second hops under every note on the one asked about (held-out multi-hop 0.95 → 0.72
  when any mention counted).

The readers are remembered per text, as the other stages' readings are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..domain.text import PerText, tokenize
from .candidates import Candidate
from .statements import STOP, stated_values

#: The first words of a memory that say whom or what it is about.
OPENING = 5
#: How many of the best memories about the question's names lend theirs to a second hop.
HOP_FROM = 3

_POSSESSIVE = re.compile(r"['’]s\b")
_OPENING_NAME = re.compile(r"\W*([A-Z]\w*)")


def _read_words(text: str) -> tuple[str, ...]:
    """*text*'s words with possessives cut ("Ines's job" holds ``ines``, not ``iness``)."""
    return tuple(tokenize(_POSSESSIVE.sub("", text)))


def _read_subject(text: str) -> str:
    """The name *text* opens with, lower-cased ("Alma's mum …" → ``alma``, "Beacon uses
    Postgres" → ``beacon``); "" when its first word is no name ("The …")."""
    m = _OPENING_NAME.match(text)
    if m is None or m[1].lower() in STOP:
        return ""
    return m[1].lower()


words = PerText(_read_words)
_subject = PerText(_read_subject)


def opening(text: str) -> frozenset[str]:
    """The first :data:`OPENING` words of *text* (lower-cased, possessives cut)."""
    return frozenset(words(text)[:OPENING])


def stated_names(text: str) -> frozenset[str]:
    """The names *text* states inside its sentences (lower-cased; no number)."""
    return frozenset(v for v in stated_values(text) if not v[:1].isdigit())


def _hop(text: str, hops: set[str], names: set[str]) -> bool:
    """Is *text* about one of *hops* (it opens with that name, not with another) and
    silent on the question's *names*?"""
    subject = _subject(text)
    return (
        bool(hops & opening(text))
        and (not subject or subject in hops)
        and not names & set(words(text))
    )


def about(cands: Sequence[Candidate], names: set[str]) -> list[float]:
    """Per candidate, how much it is about the question's *names* (lower-cased), read
    from its text: the share of them its opening holds, or 1 for a second hop (see the
    module docstring); 0 otherwise. The second hops come from the :data:`HOP_FROM` best
    candidates (by the blend) about them."""
    if not names:
        return [0.0] * len(cands)
    shares = [len(names & opening(c.memory.text)) / len(names) for c in cands]
    best = sorted((i for i, s in enumerate(shares) if s > 0), key=lambda i: -cands[i].score)
    hops = {n for i in best[:HOP_FROM] for n in stated_names(cands[i].memory.text)} - names
    if not hops:
        return shares
    return [
        1.0 if share == 0 and _hop(c.memory.text, hops, names) else share
        for c, share in zip(cands, shares, strict=True)
    ]
