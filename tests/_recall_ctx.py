"""Run recall stages over hand-made candidates (no store): the stages' public interface."""

from __future__ import annotations

from houkai.domain.model import HybridWeights
from houkai.recall.candidates import Candidate
from houkai.recall.parsed import ParsedQuery
from houkai.recall.query import parse_query
from houkai.recall.request import RecallRequest
from houkai.recall.scoring import apply_stages
from houkai.recall.stages import pipeline
from houkai.recall.stages.base import StageContext
from houkai.recall.stages.params import BASE, StageParams


def stage_context(
    active: tuple[str, ...], question: str | None, now: float, params: StageParams = BASE
) -> StageContext:
    """A weighted hybrid recall's context for *question* (None: no parse), *active* on."""
    parse = parse_query(question, now) if question is not None else None
    query = ParsedQuery(text=question or "", now=now, parse=parse)
    request = RecallRequest(question or "x", mode="hybrid", stages=active, explain=True)
    return StageContext(
        None,  # type: ignore[arg-type]  # the store: these stages read none of it
        request,
        query,
        active,
        weights=HybridWeights(),
        own_weights=True,
        params=params,
    )


def apply(
    cands: list[Candidate], active: tuple[str, ...], question: str | None, now: float,
    params: StageParams = BASE,
) -> None:  # fmt: skip
    """The scoring steps of the *active* stages over *cands* (scores set by the caller)."""
    apply_stages(stage_context(active, question, now, params), cands, pipeline(active))
