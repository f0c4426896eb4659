"""The ``entity`` stage: a memory about another person or project drops (ADR 0078).

A candidate that misses the people/projects the question names (its capitalised names and
identifiers, and the tags it names in lower case: "the billing API"), which another candidate
holds, loses ``entity ×`` its score × the share it misses (:func:`houkai.recall.coverage.
entity_penalty`). What it measured (each candidate's coverage of the named things) is
left in ``ctx.notes["coverage"]`` for the ``current`` stage.
"""

from __future__ import annotations

from .. import coverage
from ..candidates import Candidate
from .base import Stage, StageContext


class EntityStage(Stage):
    name = "entity"
    reads = frozenset({"state"})

    def adjust(self, ctx: StageContext, cands: list[Candidate]) -> None:
        read = ctx.query.state
        if read is not None:
            read = coverage.tag_things(read, cands, ctx.query.stats)
            ctx.notes["entity_read"] = read  # explain shows the tags it read as named things
            replaced = ctx.notes.get("lineage") or {}  # an heir names what it replaced
            also = {h: " ".join(r.memory.text for r in rs) for h, rs in replaced.items()}
            ctx.notes["coverage"] = coverage.entity_penalty(
                cands, read, ctx.params.entity, ctx.params.entity_code, also
            )


STAGE = EntityStage()
