"""The ``subjects`` stage (opt-in): in a collection not tagged by person or project, the
text says whom a memory is about (:mod:`houkai.recall.subjects`, ADR 0091).

The ``query`` stage's ``names`` boost lifts the memories whose tag or source is a name
the question asks about. When no candidate carries such a tag, this stage gives the same
boost (``names`` of the stage knobs) to the memories whose opening names them and to their
second hops. It is off by default: on the dev splits it lifted the untagged copies of the
personal and team sets (team R@5 0.836 → 0.893), but on the team set's test split it cost
MRR 0.662 → 0.623 (tagged) and 0.637 → 0.602 (untagged). The ``query`` stage gives such
notes :attr:`~.params.StageParams.names_text` of the boost by default (ADR 0097); this
stage adds the rest.
"""

from __future__ import annotations

from .. import subjects
from ..candidates import Candidate
from .base import Signals, Stage, StageContext
from .query import tagged_names, text_share


class SubjectsStage(Stage):
    name = "subjects"
    reads = frozenset({"parse"})

    def signals(self, ctx: StageContext, cands: list[Candidate]) -> Signals:
        parse, p = ctx.query.parse, ctx.params
        if parse is None or not parse.names or p.names <= 0:
            return {}
        names = {n.lower() for n in parse.names}
        if any(tagged_names(cands, names)):
            return {}  # the collection tags by person: the query stage's boost holds
        weight = p.names * (1.0 - text_share(ctx, cands))  # the rest of what a tag gives
        read = subjects.readable(names, parse.unseen)
        if weight <= 0 or not read:
            return {}
        return {"subjects": (weight, subjects.about(cands, read))}


STAGE = SubjectsStage()
