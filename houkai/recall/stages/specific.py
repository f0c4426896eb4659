"""The ``specific`` stage: a prior for memories that say something concrete (ADR 0068).

``score × (1 + specific · names + specific_rare · rare words)``, the shares (each capped
at three, :mod:`houkai.store.specificity`) of names the collection rarely mentions and of
words at most four memories use. A prior on the memory, so it multiplies the relevance
instead of adding to it: in a pool of weak matches it must not outweigh what the question
asked, and the sequence neighbours of a specific memory do not inherit it.
"""

from __future__ import annotations

import math

from ...store.specificity import FREQUENCIES
from ..candidates import Candidate
from ..core import StoreCore
from .base import Stage, StageContext, note


def specificity_prior(
    core: StoreCore, cands: list[Candidate], names: float, rare: float, depth: int | None = None
) -> None:
    """Multiply each candidate's score by its specificity factor, after every other stage.

    With *depth*, only the candidates that could reach the first *depth* ranks are
    read: the prior multiplies a positive score by at most ``1 + names + rare`` and
    never lowers one, so a candidate below ``depth``-th score / that factor stays
    below; the first *depth* ranks come out exactly as if every candidate were read.
    """
    if depth is not None and len(cands) > depth:
        bar = sorted((c.score for c in cands), reverse=True)[depth - 1]
        most = 1.0 + names + rare
        cands = [c for c in cands if c.score > 0 and c.score * most >= bar]
    priors = FREQUENCIES.priors(core.client, core.keys.lexstats, [c.memory.text for c in cands])
    for c, (named, rarer) in zip(cands, priors, strict=True):
        boost = max(c.score, 0.0) * (names * named + rare * rarer)
        if boost <= 0 or not math.isfinite(boost):
            continue
        c.score += boost
        note(c, "specific", round(boost, 6))


class SpecificStage(Stage):
    name = "specific"

    def adjust(self, ctx: StageContext, cands: list[Candidate]) -> None:
        p = ctx.params
        if p.specific > 0 or p.specific_rare > 0:
            specificity_prior(ctx.core, cands, p.specific, p.specific_rare, ctx.depth)


STAGE = SpecificStage()
