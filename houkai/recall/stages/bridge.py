"""The ``bridge`` stage: the second hop of a question about someone or something it does
not name.

Two hops, one in each direction:

* **Named inside** (ADR 0089). "What does Dana's partner do for work?" finds "Dana's
  partner is called Ines" first. The answer, "Ines is a nurse at the city hospital and
  works night shifts", is about Ines, whom the question never names, so it ranks far down
  (tenth on the personal set's dev split). The stage reads the best candidate's names that
  the question does not hold (Ines) and the question's words it lacks (work); of the
  candidates that open with such a name (it is about Ines, not a tool it mentions in
  passing), the one holding the most of those words (then the best-scored) moves to just
  below it. A best candidate that holds every question word, or none, bridges nowhere.
* **Described** (ADR 0116). "Who pays the bills at the dairy?" finds "Tallow Creek
  intro: family business, 14 trucks, dairy and cheese to grocers" first; the answer,
  "Billing contact at Tallow Creek Farms: Ruth Engstrom", never says dairy. Of the two best
  candidates, one that opens with a name the question does not hold (a word written as a
  name inside some candidate's sentence: "Tallow", not "Billing" or "Health") and holds
  some of the question's words is about the thing described. The candidate naming at least
  half that name's words and holding at least as many of the question's other words as
  the first holds of its own (bills; not "Ben" beside "Ben handles the renewals" for "who
  handles renewals and new business") moves to just below it. The answer may hold none of
  the words that brought up the description, so a search round first brings in, per such
  candidate, the :data:`DESCRIBED_REACH` memories naming the thing that hold a word the
  question asks and the description lacks (one round trip, only when such a candidate
  leads). A candidate about a thing the question names describes nothing.

Turns that follow another in a recorded conversation (which name their speakers
throughout) neither bridge nor are bridged to.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass

from ...db.schema import SEARCH_FIELDS
from ...domain.text import ANY_STOP_WORDS, lexical_clause, stem, stem_tokens, tokenize
from ...store.search import search_args
from .. import asking
from ..candidates import (
    KEYWORD_SCORER,
    Candidate,
    Pool,
    filtered,
    keyword_leg,
    previous_turn,
    run_legs,
)
from ..statements import STOP
from ..subjects import opening, stated_names
from .base import Stage, StageContext, note, provisional

#: How many of the best candidates may describe the thing a question asks about.
DESCRIBED_FROM = 2
#: How many of the best candidates tell a name from a sentence's capitalised first word.
NAMES_FROM = 40
#: How many memories naming a described thing the search round brings in, per thing.
DESCRIBED_REACH = 5


def _score(c: Candidate) -> float:
    return c.score


def _is_note(c: Candidate) -> bool:
    return previous_turn(c.memory) is None


def _best_notes(
    cands: list[Candidate], score: Callable[[Candidate], float], most: int
) -> list[Candidate]:
    """The *most* best candidates by *score* that follow no turn (ties: by id). Recall
    runs this on every question, so it reads only a few more than *most* unless turns of a
    conversation lead."""
    reach = most + 4

    def order(c: Candidate) -> tuple[float, str]:
        return -score(c), c.memory.id

    top = heapq.nsmallest(reach, cands, key=order)
    if len(top) == reach and sum(map(_is_note, top)) < most:
        top = sorted(cands, key=order)  # a conversation's turns lead: walk the whole pool
    return [c for c in top if _is_note(c)][:most]


def _words(read: asking.StateQuery) -> tuple[frozenset[str], frozenset[str]]:
    """The question's word stems, and those not of a thing it names."""
    every = frozenset(w for w in read.asked_terms if len(w) > 1) - STOP
    return every, every - frozenset(stem_tokens(" ".join(read.entities)))


def bridge(
    cands: list[Candidate], read: asking.StateQuery, hop: Candidate
) -> tuple[Candidate, Candidate] | None:
    """The best candidate *hop* and its second hop through a name it holds inside, or None
    (see the module docstring)."""
    text = hop.memory.text
    words = _words(read)[1]
    # the question's own names, possessive or not ("Dana's" asks about Dana)
    names = {n for n in stated_names(text) - read.asked if stem(n) not in read.asked_terms}
    lacking = words - frozenset(stem_tokens(text))
    if not names or not lacking or lacking == words:
        return None
    best: tuple[int, float, Candidate] | None = None
    for c in cands:
        if c is hop or not names & opening(c.memory.text):
            continue  # Slack in "Marta prefers async updates in Slack" is no subject
        gain = len(lacking & frozenset(stem_tokens(c.memory.text)))
        if gain and (best is None or (gain, c.score) > best[:2]) and _is_note(c):
            best = (gain, c.score, c)
    return (hop, best[2]) if best is not None else None


@dataclass(frozen=True)
class Description:
    """A candidate about a thing the question only describes."""

    hop: Candidate
    name: frozenset[str]  # the thing's name, as lower-cased words
    covered: frozenset[str]  # the question's stems the hop holds (the description)
    lacking: frozenset[str]  # the question's other stems, of no thing it names


def descriptions(
    cands: list[Candidate],
    read: asking.StateQuery,
    score: Callable[[Candidate], float],
    leaders: list[Candidate] | None = None,
) -> list[Description]:
    """Of the :data:`DESCRIBED_FROM` best candidates by *score* (*leaders*, when read
    already), those about a thing the question describes (see the module docstring). Most
    questions have none, found from those two alone; the pool is read only for a hop that
    may be one."""
    every, words = _words(read)
    if not words:
        return []
    asked_names = {w for e in read.entities for w in tokenize(e)}
    maybe: list[tuple[Candidate, frozenset[str], frozenset[str], frozenset[str]]] = []
    if leaders is None:
        leaders = _best_notes(cands, score, DESCRIBED_FROM)
    for hop in leaders:
        about = opening(hop.memory.text)
        if about & asked_names:
            continue  # about a thing the question names: nothing to resolve
        unasked = frozenset(
            n
            for n in about
            if n not in read.asked and stem(n) not in read.asked_terms and n not in ANY_STOP_WORDS
        )  # "The" of "at The Hague" names nothing
        held = frozenset(stem_tokens(hop.memory.text))
        covered, lacking = every & held, words - held
        if unasked and covered and lacking:
            maybe.append((hop, unasked, covered, lacking))
    if not maybe:
        return []
    # a capitalised opening word is a name when one of the best candidates writes it so
    # inside a sentence ("Tallow"), not a sentence's first word ("Billing", "Health")
    unsure = set().union(*(m[1] for m in maybe))
    written_as_names: set[str] = set()
    for c in heapq.nlargest(NAMES_FROM, cands, key=score):
        written_as_names |= unsure & stated_names(c.memory.text)
        if written_as_names == unsure:
            break
    return [
        Description(hop, unasked & written_as_names, covered, lacking)
        for hop, unasked, covered, lacking in maybe
        if unasked & written_as_names
    ]


def described(
    cands: list[Candidate], read: asking.StateQuery, leaders: list[Candidate]
) -> tuple[Candidate, Candidate] | None:
    """A candidate about a thing the question describes and the candidate that answers
    about it, or None (see the module docstring); *leaders*: the best candidates that
    follow no turn (:data:`DESCRIBED_FROM` of them)."""
    for d in descriptions(cands, read, _score, leaders):
        stems = {stem(n) for n in d.name}
        best: tuple[int, int, float, Candidate] | None = None
        for c in cands:
            if c is d.hop:
                continue
            held = frozenset(stem_tokens(c.memory.text))
            names = len(stems & held)
            if not names or 2 * names < len(stems):
                continue  # "Halden Transport SLA tier" is not "Bramble & Vine Grocers SLA"
            gain = len(d.lacking & held)
            if (
                gain >= len(d.covered)
                and (best is None or (names, gain, c.score) > best[:3])
                and _is_note(c)
            ):
                best = (names, gain, c.score, c)
        if best is not None:
            return d.hop, best[3]
    return None


def described_round(ctx: StageContext, pool: Pool) -> list[str]:
    """Bring in the memories naming a thing the best candidates (by first-round relevance)
    describe that hold a word the question asks and the description lacks; returns the
    ids added to *pool*."""
    read = ctx.query.state
    if read is None:
        return []
    plans = descriptions(list(pool.values()), read, lambda c: provisional(c, ctx.weights))
    legs = []
    for d in plans:
        # the question's terms, parts of its words too ("ms" of "1740ms"), the hop lacks
        asked = sorted({t for t in ctx.query.terms if stem(t) in d.lacking} - STOP)
        if not asked:
            continue
        clause = f"{lexical_clause(sorted(d.name))} {lexical_clause(asked)}"
        args = search_args(
            ctx.core.keys.index,
            filtered(clause, ctx.where),
            return_fields=(*SEARCH_FIELDS, "vec"),
            limit=DESCRIBED_REACH,
            scorer=KEYWORD_SCORER,
        )  # stemmed, whatever BM25 counts: "bills" finds "Billing contact at …"
        legs.append(keyword_leg(ctx.core, pool, args, ctx.query.vector))
    return [mid for found in run_legs(ctx.core, legs) for mid in found] if legs else []


class BridgeStage(Stage):
    name = "bridge"
    reads = frozenset({"state"})

    def search(self, ctx: StageContext, pool: Pool) -> list[str]:
        return described_round(ctx, pool) if ctx.lexical_active else []

    def rank(self, ctx: StageContext, cands: list[Candidate]) -> None:
        read = ctx.query.state
        if read is None:
            return
        leaders = _best_notes(cands, _score, DESCRIBED_FROM)  # read once for both hops
        if not leaders:
            return
        found = bridge(cands, read, leaders[0]) or described(cands, read, leaders)
        if found is None:
            return
        hop, far = found
        below = hop.score - 1e-6  # right below the hop, above what it outranked
        if far.score < below:
            note(far, "bridge", round(below - far.score, 6))
            far.explain.setdefault("stages", {})["bridged_from"] = hop.memory.id
            far.score = below


STAGE = BridgeStage()
