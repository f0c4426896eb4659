"""The ``prf`` stage: pseudo-relevance feedback, by vector and by words (ADR 0025, 0061, 0084).

* Rocchio: the query vector moved toward the first round's top hits
  (``q + α·mean(top vectors)``, no encoding); ``+ prf ×`` each candidate's cosine to that
  feedback vector, computed over the pool in one matrix product. A second KNN round
  from the feedback vector (``prf_round``) is off: on the whole suite it changed LoCoMo
  by −0.0003 R@5 and no agent set at all, and it was a third of the stage's time (ADR 0084).
* RM3, for a question scored over stems (it names someone or something, ADR 0056): rare
  words of the top hits as one bounded keyword query adding candidates
  (:mod:`houkai.recall.lexical_feedback`), and ``+ rm3_weight ×`` the share of those
  words a candidate holds.

Both depend only on the first round, so what they ask Redis goes together: the ``HMGET``
of the expansion words' frequencies (with ``prf_round``, the KNN too) in one pipelined
round trip, then the expansion query.
"""

from __future__ import annotations

import numpy as np

from ...store.codec import finite_cosine
from ...store.search import parse_search
from .. import lexical_feedback
from ..candidates import (
    Candidate,
    Pool,
    keyword_args,
    keyword_leg,
    knn_args,
    knn_pool,
    run_legs,
    stacked,
    synonym_words,
    together,
)
from .base import Signals, Stage, StageContext, provisional


def feedback_vector(ctx: StageContext, pool: Pool, qvec: np.ndarray) -> np.ndarray | None:
    """Rocchio's ``q + α·mean(top hits)``, normalised (None: no feedback this time)."""
    p, w = ctx.params, ctx.weights
    if p.prf <= 0:
        return None
    ranked = sorted(pool.values(), key=lambda c: -provisional(c, w))[: p.prf_docs]
    vectors = [c.vector for c in ranked if c.vector is not None]
    if not vectors:
        return None
    feedback = qvec + p.prf_alpha * np.mean(vectors, axis=0)
    norm = float(np.linalg.norm(feedback))
    if norm <= 0:
        return None
    return (feedback / norm).astype(np.float32)


def score_feedback(pool: Pool, feedback: np.ndarray) -> None:
    """Every candidate's cosine to the feedback vector (``prf``), one matrix product."""
    held = [(c, c.vector) for c in pool.values() if c.vector is not None]
    if held:
        values = stacked([v for _, v in held]) @ feedback
        for (cand, _), value in zip(held, values, strict=True):
            cand.prf = float(value)


def add_feedback(pool: Pool, second: Pool, qvec: np.ndarray) -> list[str]:
    """Add the feedback KNN round's new candidates *second* (``prf_round``); returns their ids."""
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
    return added


def rm3_plan(ctx: StageContext, pool: Pool) -> lexical_feedback.Plan | None:
    """RM3's expansion words to weigh, from the first round (ADR 0061), and the top
    hits' tags left out; None when RM3 does not run for this question.

    Only for a question scored over stems (it names someone or something, the
    gate of ADR 0056): the expansion words come from the first round's best
    texts and find documents the question's own words and vector missed.
    """
    p, stats = ctx.params, ctx.query.stats
    if stats is None or p.rm3_terms <= 0 or not stats.stemmed:
        return None
    top = sorted(pool.values(), key=lambda c: (-provisional(c, ctx.weights), c.memory.id))
    top = [c for c in top if c.lexical > 0][: p.rm3_docs]
    if not top:
        return None
    top_tags = {t for c in top for t in c.memory.tags}
    searched = synonym_words(ctx.query.terms, ctx.query.related)  # already searched
    return lexical_feedback.plan(
        ctx.query.terms,
        [c.memory.text for c in top],
        p.rm3_terms,
        exclude={t.lower() for tag in top_tags for t in tag.split()} | set(searched),
    )


def second_round(
    ctx: StageContext, pool: Pool
) -> tuple[list[str], lexical_feedback.Expansion | None]:
    """What the first round implies: the feedback vector and RM3's expansion words. Their
    Redis reads share one pipelined round trip (RM3's frequencies; the Rocchio KNN with
    ``prf_round``), then RM3's expansion query runs; returns the new ids (the KNN's
    first) and the expansion."""
    core, qvec = ctx.core, ctx.query.vector
    feedback = feedback_vector(ctx, pool, qvec) if qvec is not None else None
    rm3 = rm3_plan(ctx, pool) if ctx.lexical_active else None
    knn = feedback is not None and ctx.params.prf_round
    commands = []
    if knn and feedback is not None:
        commands.append(knn_args(core, feedback, ctx.where, ctx.pool_size, batches=ctx.broad))
    if rm3 is not None:
        commands.append(["HMGET", core.keys.lexstats, *rm3.fields])
    replies = together(core.client, commands) if commands else []
    for reply in replies:
        if isinstance(reply, Exception):
            raise reply  # as the first round's own queries would
    added: list[str] = []
    if knn and qvec is not None:
        _, hits = parse_search(replies.pop(0))
        added += add_feedback(pool, knn_pool(core, hits, known=pool), qvec)
    if feedback is not None:
        score_feedback(pool, feedback)
    if rm3 is None:
        return added, None
    exp = lexical_feedback.choose(rm3, replies.pop(0))
    if not exp.terms:
        return added, None
    args = keyword_args(exp.terms, ctx.where, ctx.params.rm3_limit, core.keys.index, False)
    (found,) = run_legs(core, [keyword_leg(core, pool, args, qvec, rm3=tuple(exp.terms))])
    return added + found, exp


class PrfStage(Stage):
    name = "prf"

    def search(self, ctx: StageContext, pool: Pool) -> list[str]:
        added, expansion = second_round(ctx, pool)
        if ctx.lexical_active and ctx.query.stats is not None:
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
