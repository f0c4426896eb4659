"""One recall, asked: :class:`RecallRequest`, frozen and validated once.

Every way into recall builds one: ``MemoryStore.recall(...)`` (the seed's signature)
and ``recall_pack`` build it from their arguments and it checks them here; the doors
(REST, MCP, CLI) check theirs against the operation registry
(:class:`houkai.app.operations.params.Recall`, the same bounds: both come from
:mod:`houkai.domain.model`) and hand the result over with :meth:`RecallRequest.checked`,
so a door's recall is validated once. ``bench fit`` asks through the same request.

A field the registry declares for the doors has the registry's name and default here
(``tests/test_recall_package.py`` holds the two together); the library-only fields
(``weights``, ``reranker``, ``rrf_k``, an ``ExpandSpec``) are objects no JSON door sends.
"""

from __future__ import annotations

import math
from dataclasses import InitVar, dataclass, fields
from typing import Any

from ..domain.model import (
    FUSIONS,
    MAX_RECALL_K,
    MEMORY_TYPES,
    RECALL_MODES,
    ExpandSpec,
    HybridWeights,
    Reranker,
    ValidationError,
    validate_choice,
)
from ..domain.scope import scope_filters
from .stages import resolve_stages

DEFAULT_RRF_K = 60
#: Passed by :meth:`RecallRequest.checked` only: the door already ran the registry's check.
_CHECKED = object()


def check_unit(value: float | None, name: str, lo: float = 0.0, hi: float = 1.0) -> None:
    """*value* is None or a finite number in [*lo*, *hi*]."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValidationError(f"{name} must be a number in [{lo:g}, {hi:g}] — got {value!r}")
    if not lo <= value <= hi:
        raise ValidationError(f"{name} must be in [{lo:g}, {hi:g}] — got {value!r}")


def check_int(value: object, name: str, lo: int = 1, hi: int = 10_000) -> int:
    """*value* is an integer in [*lo*, *hi*] (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValidationError(f"{name} must be an integer in [{lo}, {hi}] — got {value!r}")
    return value


@dataclass(frozen=True)
class RecallRequest:
    """Everything one recall is asked (``MemoryStore.recall``'s parameters, same defaults)."""

    query: str
    k: int = 5
    type: str | None = None
    tag: str | None = None
    min_importance: float | None = None
    source: str | None = None
    since: float | None = None
    until: float | None = None
    mode: str = "semantic"
    weights: HybridWeights | None = None
    overfetch: int = 4
    include_superseded: bool = False
    include_expired: bool = False
    touch: bool = True
    explain: bool = False
    fusion: str = "weighted"
    diversity: float | None = None
    dedup_threshold: float | None = None
    min_cosine: float | None = None
    reranker: Reranker | None = None
    expand: ExpandSpec | None = None
    rrf_k: int = DEFAULT_RRF_K
    #: None: the store's ``recall_stages`` setting; else the stage names, resolved
    stages: Any = None
    as_of: float | None = None
    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    trust: InitVar[object] = None

    def __post_init__(self, trust: object) -> None:
        if trust is not _CHECKED:
            self.validate()
        if self.stages is not None:  # the registry does not know the stage names: always
            object.__setattr__(self, "stages", resolve_stages(self.stages))

    @classmethod
    def checked(cls, **arguments: Any) -> RecallRequest:
        """A request from arguments a door has checked against the operation registry
        (times already parsed): not checked again."""
        return cls(**arguments, trust=_CHECKED)

    def validate(self) -> None:
        """The library's checks, with the registry's bounds; raises ``ValidationError``
        (a ``ValueError``) naming the parameter."""
        if not isinstance(self.query, str):
            raise ValidationError(f"query must be a string — got {self.query!r}")
        check_int(self.k, "k", 0, MAX_RECALL_K)
        check_int(self.overfetch, "overfetch", 1, 100)
        validate_choice(self.mode, RECALL_MODES, "mode")
        validate_choice(self.fusion, FUSIONS, "fusion")
        if self.type is not None:
            validate_choice(self.type, MEMORY_TYPES, "type")
        check_unit(self.diversity, "diversity")
        check_unit(self.dedup_threshold, "dedup_threshold")
        check_unit(self.min_cosine, "min_cosine", -1.0, 1.0)
        if self.min_importance is not None:
            check_unit(self.min_importance, "min_importance")
        for name in ("since", "until", "as_of"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
            ):
                raise ValidationError(f"{name} must be a Unix timestamp — got {value!r}")
        check_int(self.rrf_k, "rrf_k", 1, 100_000)
        self.scope()
        if self.weights is not None and not isinstance(self.weights, HybridWeights):
            raise ValidationError("weights must be a HybridWeights")
        if self.expand is not None and not isinstance(self.expand, ExpandSpec):
            raise ValidationError("expand must be an ExpandSpec")
        if self.reranker is not None and not callable(self.reranker):
            raise ValidationError("reranker must be a callable (query, memories) -> scores")

    def scope(self) -> dict[str, str]:
        """The scope filters (``user_id`` / ``agent_id`` / ``session_id``) it keeps to."""
        return scope_filters(
            user_id=self.user_id, agent_id=self.agent_id, session_id=self.session_id
        )

    def options(self) -> dict[str, Any]:
        """The request as ``MemoryStore.recall`` keyword arguments (all but the query)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "query"}
