"""The ``current`` stage: for a question about the present, the newest on a topic first.

Among the best candidates, memories on one topic are ranked newest first for a question
about the present and newest last for one about the past (:func:`houkai.recall.state.
newest_first`, ADR 0078). It deals score slots out, so it runs last of the default
stages: it ranks what every other stage scored (the opt-in ``bridge`` moves one candidate
after it).

An update worded away from the question ranks far below the note it replaced, or is not
among the candidates at all. For a question about the present, the stage reads the
update links written with the memories (:mod:`houkai.store.updates`, ADR 0105) of its
best candidates, one round trip in a collection that holds such a link, none elsewhere,
and gives the newest memory that says it updates one of them that one's rank (and it the
update's, at most :data:`FALL` ranks lower), unless the update names less of what the
question names.
"""

from __future__ import annotations

from dataclasses import replace

from ...db.decode import as_text
from .. import state
from ..candidates import Candidate, Pool
from .base import Stage, StageContext, provisional
from .context import join_fetched


def updates_round(ctx: StageContext, pool: Pool) -> list[str]:
    """Bring in the memories that say they update one of the best candidates (by first-round
    relevance); note them, per updated memory, for :func:`lift_updates`. Returns the ids
    added to *pool*."""
    core, top_n = ctx.core, ctx.params.current_top
    top = sorted(pool.values(), key=lambda c: (-provisional(c, ctx.weights), c.memory.id))
    olds = [c.memory.id for c in top[:top_n]]
    pipe = core.client.pipeline(transaction=False)
    for memory_id in olds:
        pipe.smembers(core.keys.updated_by(memory_id))
    heirs = {
        old: sorted(as_text(m) for m in members)
        for old, members in zip(olds, pipe.execute(), strict=True)
        if members
    }
    if not heirs:
        return []
    missing = sorted({h for hs in heirs.values() for h in hs if h not in pool})
    added = []
    if missing:  # a forgotten update's id stays in the set: its empty reply is skipped
        pipe = core.client.pipeline(transaction=False)
        for memory_id in missing:
            pipe.hgetall(core.keys.memory(memory_id))
        added = join_fetched(ctx, pool, dict(zip(missing, pipe.execute(), strict=True)))
    ctx.notes["updated_by"] = {
        old: [h for h in hs if h in pool] for old, hs in heirs.items() if any(h in pool for h in hs)
    }
    return added


#: How many ranks at most an updated memory falls below where it stood: its update takes
#: its place, and a link read wrongly from the texts costs it little.
FALL = 4


def lift_updates(
    cands: list[Candidate], heirs: dict[str, list[str]], top_n: int, cover: dict[str, float]
) -> None:
    """Give each of the best *top_n* candidates' newest update its score slot, and it the
    update's, or a slot :data:`FALL` ranks lower when that is higher (those between move
    up one): an outdated fact answers no question about the present. Not an update that
    covers less of the question's named things (*cover*: the ``entity`` stage's coverage,
    absent for a question that names nothing)."""
    by_id = {c.memory.id: c for c in cands}
    best = sorted(cands, key=lambda c: (-c.score, c.memory.id))[:top_n]
    for old in best:
        newer = [
            heir
            for heir_id in heirs.get(old.memory.id, ())
            if (heir := by_id.get(heir_id)) is not None
            and heir.memory.created_at > old.memory.created_at
            and cover.get(heir_id, 1.0) >= cover.get(old.memory.id, 1.0) - 1e-9
        ]
        if not newer:
            continue
        heir = max(newer, key=lambda c: (c.memory.created_at, c.memory.id))
        if heir.score < old.score:
            ranked = sorted(cands, key=lambda c: (-c.score, c.memory.id))
            at = ranked.index(old) + FALL
            floor = ranked[at].score - 1e-6 if at < len(ranked) else heir.score
            heir.score, old.score = old.score, max(heir.score, floor)
            heir.explain.setdefault("stages", {})["updates"] = old.memory.id
            old.explain.setdefault("stages", {})["updated_by"] = heir.memory.id


class CurrentStage(Stage):
    name = "current"
    reads = frozenset({"state"})

    def search(self, ctx: StageContext, pool: Pool) -> list[str]:
        read, stats = ctx.query.state, ctx.query.stats
        if read is None or read.intent != "present" or stats is None or not stats.updates:
            return []
        return updates_round(ctx, pool)

    def rank(self, ctx: StageContext, cands: list[Candidate]) -> None:
        read = ctx.query.state
        if read is None:
            return
        p = ctx.params
        cover = ctx.notes.get("coverage", {})
        heirs = ctx.notes.get("updated_by")
        if heirs and read.intent == "present":
            lift_updates(cands, heirs, p.current_top, cover)
        read = replace(read, accessed=ctx.weights.recency_basis == "accessed")
        state.newest_first(
            cands, read, p.current_similarity, p.current_top, cover,
            p.current_shared, p.current_gap,
        )  # fmt: skip


STAGE = CurrentStage()
