"""The one interface of a recall stage, and what a stage is handed: :class:`StageContext`.

A recall is gather, score, select. A stage takes part in some of the steps below by
overriding the hook of that step (every hook does nothing by default). At each step
the active stages run in the order of :data:`houkai.recall.stages.REGISTRY`:

1. ``tune``: pick the knobs (:class:`~houkai.recall.stages.params.StageParams`);
2. ``weigh``: adjust the blend's weights for this question;
3. ``search``: add candidates found by another search (returns the new ids);
4. ``link``: add candidates linked to the ones found (returns the new ids);
5. ``gathered``: the pool is complete (read it whole);
6. ``signals``: additive boosts, ``{name: (weight, value per candidate)}``; the
   pipeline adds ``weight × value`` to each score and shows it in ``explain``;
7. ``smooth``: scores that borrow from other candidates' scores;
8. ``adjust``: penalties and priors on the scored pool;
9. ``rank``: moves that deal score slots out (after every other score change).

A stage object is shared by every recall (and thread): what it keeps between two
steps of one recall goes in ``ctx.notes``. What the question says is read once, before
the steps, into ``ctx.query`` (:class:`~houkai.recall.parsed.ParsedQuery`); a stage
that reads its parse or its intent says so in :attr:`Stage.reads`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from ...domain.model import HybridWeights
from .params import BASE, StageParams

if TYPE_CHECKING:
    from ..candidates import Candidate, Pool
    from ..core import StoreCore
    from ..parsed import ParsedQuery
    from ..request import RecallRequest

Signals = dict[str, tuple[float, list[float]]]


@dataclass
class StageContext:
    """One recall as the stages see it (built by :class:`~houkai.recall.engine.Recall`)."""

    core: StoreCore
    request: RecallRequest
    query: ParsedQuery
    active: tuple[str, ...]
    weights: HybridWeights
    own_weights: bool  # the caller set no weights: a stage may choose them
    params: StageParams = BASE
    where: str = "*"  # the recall's filter as a RediSearch clause
    filters: dict[str, Any] = field(default_factory=dict)  # the same, checked in Python
    pool_size: int = 0
    broad: bool = False  # only the default filters: KNN may search in batches
    widen: bool = False  # the KNN pool is widened by keyword (ADR 0069)
    clock: float = 0.0  # the wall clock of the recall (expiry, touches)
    #: the BM25 under which the best keyword match no longer scores 1 (0: none; the
    #: ``overlap`` stage sets it, before the pool is gathered)
    lexical_ceiling: float = 0.0
    #: the pool's best ``lexical``: 1, below 1 when the ceiling set the scale, 0 when no
    #: candidate holds a word of the question
    lexical_best: float = 0.0
    #: only the first *depth* ranks matter to the caller (None: all)
    depth: int | None = None
    notes: dict[str, Any] = field(default_factory=dict)  # a stage's own, between steps

    @property
    def lexical_active(self) -> bool:
        """Some candidate has BM25 > 0."""
        return self.lexical_best > 0

    @property
    def fusion(self) -> str:
        return self.request.fusion

    @property
    def rrf_k(self) -> int:
        return self.request.rrf_k


class Stage:
    """A recall stage: override the hooks of the steps it takes part in."""

    #: the switch that turns it on (``recall(stages=...)``), as registered
    name: ClassVar[str] = ""
    #: what of the question it reads: ``"parse"`` (dates, names…), ``"state"`` (intent),
    #: ``"synonyms"`` (its terms' synonyms)
    reads: ClassVar[frozenset[str]] = frozenset()

    def tune(self, ctx: StageContext) -> None:
        """Pick ``ctx.params`` (and the weights they imply)."""

    def weigh(self, ctx: StageContext) -> None:
        """Adjust ``ctx.weights`` for this question."""

    def search(self, ctx: StageContext, pool: Pool) -> list[str]:
        """Add candidates another search finds; returns their ids."""
        return []

    def link(self, ctx: StageContext, pool: Pool) -> list[str]:
        """Add candidates linked to those found; returns their ids."""
        return []

    def gathered(self, ctx: StageContext, pool: Pool) -> None:
        """Read the complete pool (before it is scored)."""

    def signals(self, ctx: StageContext, cands: list[Candidate]) -> Signals:
        """Additive boosts: ``{name: (weight, value per candidate)}``."""
        return {}

    def smooth(self, ctx: StageContext, cands: list[Candidate]) -> None:
        """Scores that borrow from other candidates' scores."""

    def adjust(self, ctx: StageContext, cands: list[Candidate]) -> None:
        """Penalties and priors on the scored pool."""

    def rank(self, ctx: StageContext, cands: list[Candidate]) -> None:
        """Deal score slots out, after every other change of score."""


def provisional(c: Candidate, w: HybridWeights) -> float:
    """First-round relevance (cosine and BM25 only), to pick feedback docs and neighbours."""
    return w.cosine * c.cosine + w.lexical * c.lexical


def note(c: Candidate, name: str, value: float) -> None:
    """Show a stage's change of *c*'s score in ``explain`` (under ``stages``)."""
    c.explain.setdefault("stages", {})[name] = value
