"""The ``current`` stage: for a question about the present, the newest on a topic first.

Among the best candidates, memories on one topic are ranked newest first for a question
about the present and newest last for one about the past (:func:`houkai.recall.state.
newest_first`, ADR 0078). It deals score slots out, so it runs last of the default
stages: it ranks what every other stage scored (the opt-in ``bridge`` moves one candidate
after it).
"""

from __future__ import annotations

from dataclasses import replace

from .. import state
from ..candidates import Candidate
from .base import Stage, StageContext


class CurrentStage(Stage):
    name = "current"
    reads = frozenset({"state"})

    def rank(self, ctx: StageContext, cands: list[Candidate]) -> None:
        read = ctx.query.state
        if read is None:
            return
        p = ctx.params
        read = replace(read, accessed=ctx.weights.recency_basis == "accessed")
        state.newest_first(
            cands, read, p.current_similarity, p.current_top, ctx.notes.get("coverage", {}),
            p.current_shared, p.current_gap,
        )  # fmt: skip


STAGE = CurrentStage()
