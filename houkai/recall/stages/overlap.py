"""The ``overlap`` stage: a keyword match counts for the share of the question it holds.

The blend's lexical score is BM25 over the pool's best, so the best keyword match
always scores 1, however little of the question it holds. "Who does our taxes?" shares
one word, "tax", with "User owns Pelican, the receipt-scanning rewrite: auto-extract
merchant, date, total and tax …", which then takes the full lexical weight from the
answer, "Tax accountant: Priscilla Moy, CPA", third by cosine. Paraphrases, which share
few words with the memory that answers them, are where this costs most.

With the stage, BM25 is divided by the pool's best or by
:attr:`~.params.StageParams.overlap` × the BM25 of a *full match* (a text of average
length holding each question word once: the sum of their IDFs), whichever is larger. A
match holding the question's rare words still scores 1; one holding a common word or
few of many scores its share. The floor is set before the pool is gathered, so the
first round's picks (the feedback documents, the neighbours' anchors) see it too.
``explain`` shows under ``overlap`` the share of a full match the best match reached,
when it is below the floor.

Opt-in (ADR 0107): on the dev splits it gained MRR (+4.3 questions, paraphrases most) and
cost no set; on the test splits it cost no set either, but gained little in sum, cost
LoCoMo 0.002, and made more of the default stages cost a test split.
"""

from __future__ import annotations

from ..candidates import Candidate
from .base import Signals, Stage, StageContext, note


class OverlapStage(Stage):
    name = "overlap"

    def weigh(self, ctx: StageContext) -> None:
        ctx.lexical_floor = ctx.params.overlap

    def signals(self, ctx: StageContext, cands: list[Candidate]) -> Signals:
        best = max((c.lexical for c in cands), default=0.0)
        if 0.0 < best < 1.0:  # the best match held less than the floor of a full one
            reached = round(best * ctx.params.overlap, 4)  # its BM25 over a full match's
            for c in cands:
                if c.lexical > 0:
                    note(c, "overlap", reached)
        return {}


STAGE = OverlapStage()
