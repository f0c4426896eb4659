"""The ``context`` stage: memories written in sequence are read with their neighbours.

Memories written in sequence carry a ``follows`` link. The previous/next turns of the
best candidates join the pool (one pipelined round trip over the top candidates, two
when neighbours are found; none in a collection where no memory follows another, as
its statistics say: :data:`~houkai.store.lexstats.FOLLOWS_FIELD`), each candidate is
scored with its neighbours (``+ context · score(previous)``, full when the previous turn
asked a question, half otherwise, ``+ context_next · score(next)``), and for a question
that names someone the candidates written in one episode (no gap over ``episode_gap``)
share their best member's standing: ``+ episode · (episode's best − overall best)`` (ADR
0051), when the pool holds turns of a recorded exchange (ADR 0086): a pool of an agent's
separate notes keeps its scores.
"""

from __future__ import annotations

import math
from typing import Any

from ...domain.model import Memory
from ..candidates import FOLLOWS, Candidate, Pool, fetched_candidate, previous_turn, recorded
from .base import Stage, StageContext, note, provisional
from .query import asks


def admissible(memory: Memory, f: dict[str, Any]) -> bool:
    """The recall's filters, checked in Python for a neighbour fetched by id."""
    if memory.superseded_by and not f["include_superseded"]:
        return False
    if memory.is_expired(f["now"]) and not f["include_expired"]:
        return False
    if f["type"] is not None and memory.type != f["type"]:
        return False
    if f["tag"] and f["tag"] not in memory.tags:
        return False
    if f["source"] and memory.source != f["source"]:
        return False
    if any(getattr(memory, name) != value for name, value in f.get("scope", {}).items()):
        return False
    if f["min_importance"] is not None and memory.importance < f["min_importance"]:
        return False
    if f["since"] is not None and memory.created_at < f["since"]:
        return False
    return not (f["until"] is not None and memory.created_at > f["until"])


def neighbours_round(ctx: StageContext, pool: Pool) -> list[str]:
    """Bring in the previous and next turns of the best candidates; returns the new ids."""
    p, core = ctx.params, ctx.core
    stats = ctx.query.stats
    if p.context <= 0 or (stats is not None and stats.follows is False):
        return []  # no memory of the collection follows another: no neighbour to read
    top = sorted(pool.values(), key=lambda c: -provisional(c, ctx.weights))[: p.context_top]
    wanted = [mid for c in top if (mid := previous_turn(c.memory)) and mid not in pool]
    pipe = core.client.pipeline(transaction=False)
    for c in top:
        pipe.smembers(core.keys.incoming(c.memory.id))
    for mid in wanted:
        pipe.hgetall(core.keys.memory(mid))
    replies = pipe.execute()
    following: list[str] = []
    for members in replies[: len(top)]:
        for raw in members:
            src, _, rel = (raw.decode() if isinstance(raw, bytes) else raw).partition("|")
            if rel == FOLLOWS and src not in pool and src not in following:
                following.append(src)
    fetched = dict(zip(wanted, replies[len(top) :], strict=True))
    if following:
        pipe = core.client.pipeline(transaction=False)
        for mid in following:
            pipe.hgetall(core.keys.memory(mid))
        fetched.update(zip(following, pipe.execute(), strict=True))
    added = join_fetched(ctx, pool, fetched)
    for mid in added:
        pool[mid].context = True
    return added


def join_fetched(ctx: StageContext, pool: Pool, fetched: dict[str, Any]) -> list[str]:
    """Add to *pool* the memories read by id (id → ``HGETALL`` reply) that pass the
    recall's filters and are not in it yet; returns their ids. A memory gone since its id
    was read (an empty reply) is skipped."""
    added = []
    for mid, raw in fetched.items():
        if not raw or mid in pool:
            continue
        cand = fetched_candidate(ctx.core, raw, ctx.query.vector)
        if admissible(cand.memory, ctx.filters):
            pool[mid] = cand
            added.append(mid)
    return added


def smooth_with_neighbours(cands: list[Candidate], weight: float, weight_next: float) -> None:
    """Score each candidate with its ``follows`` neighbours in the pool.

    ``+ weight · score(previous)`` (halved unless the previous turn asked a
    question: an answer follows its question) ``+ weight_next · score(next)``.
    """
    after: dict[str, str] = {}
    for c in cands:
        prev = previous_turn(c.memory)
        if prev is not None:
            after[prev] = c.memory.id
    if not after:
        return  # no candidate follows another: an agent's separate notes
    score = {c.memory.id: c.score for c in cands}
    asked = {c.memory.id: asks(c) for c in cands}
    for c in cands:
        prev = previous_turn(c.memory) or ""
        nxt = after.get(c.memory.id, "")
        boost = 0.0
        if prev in score and math.isfinite(score[prev]) and score[prev] > 0:
            boost += weight * (1.0 if asked[prev] else 0.5) * score[prev]
        if nxt in score and math.isfinite(score[nxt]) and score[nxt] > 0:
            boost += weight_next * score[nxt]
        if boost <= 0:
            continue
        c.score += boost
        note(c, "context", round(boost, 6))


def episode_prior(cands: list[Candidate], weight: float, gap: float) -> None:
    """Candidates written close together share their episode's best score.

    ``+ weight · (episode's best − pool's best)`` (≤ 0): hits from the episode
    of the strongest hit keep their score, stray hits from elsewhere drop. A
    collection written all at once is one episode: nothing moves (ADR 0051).
    """
    order = sorted(cands, key=lambda c: c.memory.created_at)
    groups: list[list[Candidate]] = []
    last: float | None = None
    for c in order:
        if last is None or c.memory.created_at - last > gap:
            groups.append([])
        groups[-1].append(c)
        last = c.memory.created_at
    if len(groups) < 2:
        return
    top = max(c.score for c in cands)
    for group in groups:
        shift = weight * (max(c.score for c in group) - top)
        if shift == 0 or not math.isfinite(shift):
            continue
        for c in group:
            c.score += shift
            note(c, "episode", round(shift, 6))


class ContextStage(Stage):
    name = "context"

    def link(self, ctx: StageContext, pool: Pool) -> list[str]:
        return neighbours_round(ctx, pool)

    def smooth(self, ctx: StageContext, cands: list[Candidate]) -> None:
        p = ctx.params
        if p.context > 0 or p.context_next > 0:
            smooth_with_neighbours(cands, p.context, p.context_next)

    def adjust(self, ctx: StageContext, cands: list[Candidate]) -> None:
        p, parse = ctx.params, ctx.query.parse
        if p.episode > 0 and parse is not None and parse.names and recorded(cands):
            episode_prior(cands, p.episode, p.episode_gap)


STAGE = ContextStage()
