"""The ``prf`` stage: pseudo-relevance feedback, by vector and by words (ADR 0025, 0061).

* Rocchio: a second KNN round from the query vector moved toward the first round's top
  hits (``q + α·mean(top vectors)``, one extra KNN, no encoding), fused with the first;
  ``+ prf ×`` each candidate's cosine to that feedback vector.
* RM3, for a question scored over stems (it names someone or something, ADR 0056): rare
  words of the top hits as one bounded keyword query adding candidates
  (:mod:`houkai.recall.lexical_feedback`), and ``+ rm3_weight ×`` the share of those
  words a candidate holds.
"""

from __future__ import annotations

import numpy as np

from ...store.codec import finite_cosine
from .. import lexical_feedback
from ..candidates import Candidate, Pool, keyword_candidates, vector_candidates
from .base import Signals, Stage, StageContext, provisional


def feedback_round(ctx: StageContext, pool: Pool, qvec: np.ndarray) -> list[str]:
    """Rocchio feedback: KNN again from ``q + α·mean(top hits)``; returns the new ids."""
    p, w = ctx.params, ctx.weights
    ranked = sorted(pool.values(), key=lambda c: -provisional(c, w))[: p.prf_docs]
    vectors = [c.vector for c in ranked if c.vector is not None]
    if not vectors or p.prf <= 0:
        return []
    feedback = qvec + p.prf_alpha * np.mean(vectors, axis=0)
    norm = float(np.linalg.norm(feedback))
    if norm <= 0:
        return []
    feedback = (feedback / norm).astype(np.float32)
    second = vector_candidates(ctx.core, feedback, ctx.where, ctx.pool_size, batches=ctx.broad)
    added = []
    for mid, cand in second.items():
        if mid in pool:
            continue
        cand.cosine = (
            finite_cosine(float(np.dot(cand.vector, qvec))) if cand.vector is not None else 0.0
        )
        cand.feedback = True
        pool[mid] = cand
        added.append(mid)
    for cand in pool.values():
        if cand.vector is not None:
            cand.prf = float(np.dot(cand.vector, feedback))
    return added


def rm3_round(ctx: StageContext, pool: Pool) -> tuple[list[str], lexical_feedback.Expansion | None]:
    """RM3 as a second lexical candidate query (ADR 0061); returns the new ids and
    the expansion (scored later over the final pool).

    Only for a question scored over stems (it names someone or something, the
    gate of ADR 0056): the expansion words come from the first round's best
    texts and find documents the question's own words and vector missed.
    """
    p, stats = ctx.params, ctx.query.stats
    if stats is None or p.rm3_terms <= 0 or not stats.stemmed:
        return [], None
    top = sorted(pool.values(), key=lambda c: (-provisional(c, ctx.weights), c.memory.id))
    top = [c for c in top if c.lexical > 0][: p.rm3_docs]
    if not top:
        return [], None
    top_tags = {t for c in top for t in c.memory.tags}
    exp = lexical_feedback.expansion(
        ctx.core.client,
        ctx.core.keys.lexstats,
        ctx.query.terms,
        [c.memory.text for c in top],
        p.rm3_terms,
        exclude={t.lower() for tag in top_tags for t in tag.split()},
    )
    if not exp.terms:
        return [], None
    added = keyword_candidates(
        ctx.core, pool, exp.terms, ctx.where, p.rm3_limit, ctx.query.vector, rm3=tuple(exp.terms)
    )
    return added, exp


class PrfStage(Stage):
    name = "prf"

    def search(self, ctx: StageContext, pool: Pool) -> list[str]:
        added: list[str] = []
        if ctx.query.vector is not None:
            added += feedback_round(ctx, pool, ctx.query.vector)
        if ctx.lexical_active and ctx.query.stats is not None:
            rm3_added, expansion = rm3_round(ctx, pool)
            added += rm3_added
            ctx.notes["rm3"] = expansion
        return added

    def gathered(self, ctx: StageContext, pool: Pool) -> None:
        """Scored over the final pool: sequence neighbours hold the expansion too."""
        expansion = ctx.notes.get("rm3")
        if expansion is not None and ctx.params.rm3_weight > 0:
            texts = {m: c.memory.text for m, c in pool.items()}
            for mid, value in expansion.scores(texts).items():
                pool[mid].rm3_score = value

    def signals(self, ctx: StageContext, cands: list[Candidate]) -> Signals:
        p = ctx.params
        out: Signals = {}
        if p.rm3_weight > 0 and any(c.rm3_score for c in cands):
            out["rm3"] = (p.rm3_weight, [c.rm3_score for c in cands])
        if p.prf > 0 and any(c.prf for c in cands):
            out["prf"] = (p.prf, [c.prf for c in cands])
        return out


STAGE = PrfStage()
