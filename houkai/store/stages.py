"""Recall stages that read the question: their switches and their fitted parameters.

Hybrid recall runs these on top of the blend (each one switchable with
``recall(stages=...)`` or the ``recall_stages`` setting, each one shown in
``explain``):

* ``query``: :mod:`houkai.store.query` reads time expressions, recency intent,
  exact tokens and names; they become a time-proximity boost on ``created_at``,
  a recency (or "first") boost, a higher lexical weight and a boost for
  candidates whose tags or source name a person/project in the question.
* ``context``: memories written in sequence carry a ``follows`` link; the
  previous/next turns of the best candidates join the pool and each candidate
  is scored with its neighbours (``+ context · max(neighbour scores)``).
* ``prf``: pseudo-relevance feedback: a second KNN round from the query vector
  moved toward the first round's top hits (Rocchio), fused with the first.
* ``fitted``: fusion weights per query kind, fitted on a development split of
  LoCoMo (``docs/adr/0025-recall-stages.md``), used when the caller passes no
  ``weights``.

Parameters are in :data:`FITTED`; ``BASE`` holds what applies when ``fitted``
is off (today's blend weights, the stage nudges at their hand-set values).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from ..domain.model import HybridWeights, ValidationError

STAGES: tuple[str, ...] = ("query", "context", "prf", "fitted")


@dataclass(frozen=True)
class StageParams:
    """The knobs of the stages for one query kind (weights on the blend's scale)."""

    cosine: float = 0.55
    lexical: float = 0.20
    lexical_boost: float = 2.0  # × lexical weight when the question holds exact tokens
    time: float = 0.30  # time-proximity boost inside/near a parsed window
    time_scale_days: float = 3.0  # proximity decay outside the window
    recency: float = 0.30  # recency weight when the question asks for the latest
    first: float = 0.30  # oldest-first boost for "first time / originally"
    names: float = 0.05  # candidate's tag/source names someone in the question
    context: float = 0.15  # × the previous turn's score when it asked a question (half otherwise)
    context_next: float = 0.15  # × the next turn's score
    context_top: int = 10  # neighbours fetched for this many best candidates
    prf: float = 0.10  # × cosine to the feedback vector
    prf_docs: int = 3  # top hits the feedback vector is built from
    prf_alpha: float = 0.5  # feedback vector = q + alpha · mean(top vectors)
    answer_time: float = 0.10  # "when" questions: memories that state a time ("last week")

    def weights(self, base: HybridWeights) -> HybridWeights:
        """*base* with this kind's cosine/lexical weights (recency etc. untouched)."""
        return replace(base, cosine=self.cosine, lexical=self.lexical)


BASE = StageParams()

# Fitted by coordinate ascent on recall@5 + MRR over LoCoMo conversations 0 and 1
# (231 questions; conversations 2 and 5 held back to report on), see ADR 0025.
# Only ``general`` and ``temporal`` questions are numerous enough in LoCoMo to
# fit; ``keyword`` and ``recency`` questions take the general fit (their own
# stage effects, the lexical boost and the recency weight, stay hand-set).
_GENERAL = replace(BASE, cosine=0.9, lexical=0.5, context=0.6, prf=0.05, names=0.2, time=0.3)
_TEMPORAL = replace(BASE, cosine=0.35, lexical=0.4, context=0.1, prf=0.5, names=0.2, time=0.3)
FITTED: dict[str, StageParams] = {
    "general": _GENERAL,
    "temporal": _TEMPORAL,
    "keyword": _GENERAL,
    "recency": _GENERAL,
}


def resolve_stages(value: object, default: str = ",".join(STAGES)) -> tuple[str, ...]:
    """``None`` → the setting's default; a comma string or an iterable of stage names."""
    if value is None:
        value = default
    if isinstance(value, str):
        names: Iterable[object] = [v.strip() for v in value.split(",") if v.strip()]
    elif isinstance(value, Iterable):
        names = list(value)
    else:
        raise ValidationError(f"stages must be a list of {', '.join(STAGES)} — got {value!r}")
    out: list[str] = []
    for name in names:
        if not isinstance(name, str) or name not in STAGES:
            raise ValidationError(f"unknown recall stage {name!r}; choose from {', '.join(STAGES)}")
        if name not in out:
            out.append(name)
    return tuple(out)
