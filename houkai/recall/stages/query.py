"""The ``query`` stage: what the question says about time, recency, ids and names.

:mod:`houkai.recall.query` reads the question (no I/O); here that reading becomes a
higher lexical weight (exact tokens, or names some memory mentions), a recency weight
for "latest", boosts for memories in or near a named time window, the oldest for
"first time", those whose tags or source name someone the question names, memories
that state a time for a "when" question, and a small penalty for memories that are
themselves questions (ADR 0025, ADR 0043, ADR 0051).

Agents tag unevenly: "Dog walker: Ellie Navarro" tagged ``biscuit``, months later
"Trent Olsen walks Biscuit Tuesday to Thursday" with no tag at all. A boost for the tag
alone ranks every tagged note on Biscuit, a dug-up tulip bed included, above the untagged
answer. Among an agent's separate notes (not a recorded exchange, whose speakers are its
tags), a note not tagged so gets :attr:`~.params.StageParams.names_text` of the boost for
what its text says it is about (:func:`houkai.recall.subjects.about`: its opening names
them, or it is the second hop of one that does; ADR 0097). The opt-in ``subjects`` stage
raises that to the full boost in a collection that tags no one (ADR 0091).
"""

from __future__ import annotations

from dataclasses import replace

from ...domain.model import HybridWeights
from .. import subjects
from ..candidates import Candidate, recorded
from ..query import DAY, QueryParse, states_time, time_proximity
from .base import Signals, Stage, StageContext, note
from .params import StageParams


def understood_weights(w: HybridWeights, parse: QueryParse, p: StageParams) -> HybridWeights:
    """Exact tokens or names raise the lexical weight; "latest/current" raises recency.

    A name ("Caroline", "Atlas") is a word the answer usually shares, like an
    id: a question without either keeps the blend's lexical weight, so a
    paraphrase is not out-voted by word overlap (ADR 0043).
    """
    seen = set(parse.names) - set(parse.unseen)  # a name no memory mentions is no cue
    factor = max(p.lexical_boost if parse.exact else 1.0, p.lexical_names if seen else 1.0)
    if factor != 1.0:
        w = replace(w, lexical=w.lexical * factor)
    if parse.recency == "latest":
        w = replace(w, recency=max(w.recency, p.recency))
    return w


def tagged_names(cands: list[Candidate], names: set[str]) -> list[float]:
    """Per candidate, 1 when its tags or source name someone the question names (*names*,
    lower-cased), else 0."""
    return [
        1.0
        if names & {t.lower() for t in c.memory.tags} or (c.memory.source or "").lower() in names
        else 0.0
        for c in cands
    ]


def text_share(ctx: StageContext, cands: list[Candidate]) -> float:
    """The share of the names boost the ``query`` stage gives a note not tagged so, for
    what its text says: :attr:`~.params.StageParams.names_text` among an agent's separate
    notes, none in a recorded exchange (whose tags name its speakers) or without the
    stage (the opt-in ``subjects`` stage adds the rest, ADR 0097)."""
    if "query" not in ctx.active or recorded(cands):
        return 0.0
    return ctx.params.names_text


def named_shares(
    cands: list[Candidate], names: set[str], read: set[str], share: float
) -> list[float]:
    """Per candidate, how much it is about someone the question names (*names*,
    lower-cased): 1 when its tags or source name them; else *share* × what its text says
    of *read*, the names some memory mentions (:func:`houkai.recall.subjects.about`)."""
    tagged = tagged_names(cands, names)
    if share <= 0 or not read:
        return tagged
    said = subjects.about(cands, read)
    return [max(t, share * s) for t, s in zip(tagged, said, strict=True)]


def asks(c: Candidate) -> bool:
    """The memory is itself a question ("What movies do you like?")."""
    return c.memory.text.rstrip().endswith("?")


class QueryStage(Stage):
    name = "query"
    reads = frozenset({"parse"})

    def weigh(self, ctx: StageContext) -> None:
        parse = ctx.query.parse
        if parse is not None and ctx.own_weights:
            ctx.weights = understood_weights(ctx.weights, parse, ctx.params)

    def signals(self, ctx: StageContext, cands: list[Candidate]) -> Signals:
        parse, p = ctx.query.parse, ctx.params
        out: Signals = {}
        if parse is None:
            return out
        if parse.window is not None and p.time > 0:
            scale = p.time_scale_days * DAY
            window = parse.window
            out["time"] = (
                p.time,
                [time_proximity(c.memory.created_at, window, scale) for c in cands],
            )
        if parse.recency == "first" and p.first > 0:
            created = [c.memory.created_at for c in cands]
            lo, hi = min(created), max(created)
            span = hi - lo
            out["first"] = (p.first, [(hi - t) / span if span > 0 else 0.0 for t in created])
        if parse.names and p.names > 0:
            names = {n.lower() for n in parse.names}
            read = subjects.readable(names, parse.unseen)
            out["names"] = (p.names, named_shares(cands, names, read, text_share(ctx, cands)))
        if parse.when_question and p.answer_time > 0:
            out["answer_time"] = (
                p.answer_time,
                [1.0 if states_time(c.memory.text) else 0.0 for c in cands],
            )
        return out

    def adjust(self, ctx: StageContext, cands: list[Candidate]) -> None:
        """After the smoothing: the question still lends its answer its score."""
        p = ctx.params
        if ctx.query.parse is None or p.asks <= 0:
            return
        for c in cands:
            if asks(c):
                c.score -= p.asks
                note(c, "asks", -p.asks)


STAGE = QueryStage()
