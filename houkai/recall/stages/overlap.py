"""The ``overlap`` stage: keyword matches count for less when the question's words are
not the collection's.

The blend's lexical score is BM25 over the pool's best, so the best keyword match always
scores 1, however little of the question it holds. Of the words of "If I'm locked out,
who can let me in?", three ("locked", "let", "me") are in no memory, "im" is in one and
"out" in ten. Notes that only hold "out" then score high on the keyword leg ("Race day
tomorrow. Nervous, laid out the gear." 1.0; "User is out of office for the Japan trip …"
0.74, ranked first), and the answer, "Spare house key is with Dolores Vigil next door",
which holds none of the words, ranks fourth, though it is first by cosine. A question
worded away from the memories (a paraphrase) is one whose keyword matches say little.

With the stage, BM25 is divided by the pool's best or by
:attr:`~.params.StageParams.overlap` × the BM25 of a *full match*
(:func:`~houkai.store.lexstats.full_match_bm25`: a text of average length holding each
question word once, the sum of their IDFs), whichever is larger. A word no memory holds
counts in the full match with the largest IDF there is, so a question mostly in such
words has no match near a full one: its keyword scores shrink and cosine decides. A match
holding the question's words, rare ones included, still scores 1. On the dev sets it is
the unseen words that make the floor bind: without them in the full match the stage
changes no set's R@5 (ADR 0107). The floor is set before the pool is gathered, so the
first round's picks (the feedback documents, the neighbours' anchors) see it too.
``explain`` shows under ``overlap`` the pool's best BM25 over a full match's, when it is
below the floor.

Opt-in (ADR 0107): on the dev splits it gained MRR (+4.3 questions, paraphrases most) and
cost no set; on the test splits it cost no set either, but gained little in sum, cost
LoCoMo 0.002, and made more of the default stages cost a test split.
"""

from __future__ import annotations

from ...store.lexstats import full_match_bm25
from ..candidates import Candidate
from .base import Signals, Stage, StageContext, note


class OverlapStage(Stage):
    name = "overlap"

    def weigh(self, ctx: StageContext) -> None:
        q = ctx.query  # the full match depends on the question alone: read once a recall
        full = full_match_bm25(q.terms, q.stats, q.related) if q.stats is not None else 0.0
        ctx.lexical_ceiling = ctx.params.overlap * full

    def signals(self, ctx: StageContext, cands: list[Candidate]) -> Signals:
        best = ctx.lexical_best  # the pool's, before any gate left candidates out
        if 0.0 < best < 1.0:  # the best match held less than the floor of a full one
            # its BM25 over a full match's: best = BM25 / (overlap × full)
            reached = round(best * ctx.params.overlap, 4)
            for c in cands:
                if c.lexical > 0:
                    note(c, "overlap", reached)
        return {}


STAGE = OverlapStage()
