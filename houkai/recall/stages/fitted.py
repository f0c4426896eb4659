"""The ``fitted`` stage (opt-in): the stage knobs and fusion weights per query kind.

:data:`~houkai.recall.stages.params.FITTED` maps each kind the ``query`` stage reads
(``keyword``, ``temporal``, ``recency``, ``general``) to its knobs; the caller's own
weights are used as given. Since ADR 0043 every kind maps to ``BASE`` (per-kind fits did
not carry over between the halves of LoCoMo); ``houkai bench fit`` can replace an entry.
"""

from __future__ import annotations

from .base import Stage, StageContext
from .params import BASE, FITTED


class FittedStage(Stage):
    name = "fitted"

    def tune(self, ctx: StageContext) -> None:
        parse = ctx.query.parse
        ctx.params = FITTED.get(parse.kind if parse else "general", BASE)
        if ctx.own_weights:
            ctx.weights = ctx.params.weights(ctx.weights)


STAGE = FittedStage()
