"""The recall parameters, declared once: :data:`PARAMS`.

One :class:`Param` per parameter of ``MemoryStore.recall`` (the seed's names, order and
defaults): its library type, default, check, one line of doc and where the doors show it.
Everything else follows from this tuple:

* :class:`~houkai.recall.request.RecallRequest`'s fields and ``MemoryStore.recall``'s
  explicit signature are generated from it into their source, between markers
  (``python -m houkai.recall.generate --write``; ``--check`` in ``./dev lint`` and a test);
* ``RecallRequest.validate`` runs each parameter's :class:`Check` (the library's check,
  worded as the doors word theirs: ``"k: must be <= 1000, got 1001"``);
* the operation registry's ``Recall`` model, and the ``Filters`` / ``Ranking`` groups it
  shares with ``recall_pack``, take their fields from it
  (:func:`houkai.app.operations.declared.declared`): REST, OpenAPI, the MCP tool, the CLI
  options and the README tables follow.

A parameter with ``door=None`` is library-only (an object no JSON door sends: ``weights``,
``reranker``, ``expand``, ``rrf_k``); the doors spell ``weights`` and ``expand`` their own
way (``graph``, an expansion object) and build the objects (``houkai.app.service_args``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..domain.model import (
    FUSIONS,
    MAX_ID_CHARS,
    MAX_RECALL_K,
    MAX_RECALL_POOL,
    MEMORY_TYPES,
    RECALL_MODES,
    ExpandSpec,
    HybridWeights,
    ValidationError,
)
from .stages import DEFAULT_WORD, STAGES

DEFAULT_RRF_K = 60
#: :attr:`Param.default` of a parameter without one (``query``).
REQUIRED: Any = type("Required", (), {"__repr__": lambda self: "REQUIRED"})()
#: :attr:`Param.door_default` when the doors' default is the library's.
SAME: Any = type("Same", (), {"__repr__": lambda self: "SAME"})()


def shown(value: Any) -> str:
    """A value as an error message shows it (the doors' wording: a repr, at most 80)."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "…"


# --------------------------------------------------------------------------- checks
class Check:
    """How one parameter's value is checked; ``None`` always passes (an unset filter).

    ``__call__`` raises :class:`~houkai.domain.model.ValidationError` (a ``ValueError``)
    naming the parameter, in the words the doors use for the same value."""

    def __call__(self, name: str, value: Any) -> None:
        """Nothing to check (a flag, a label: the seed takes any value)."""


@dataclass(frozen=True)
class Int(Check):
    """An integer in [*lo*, *hi*] (not a bool); the doors may start higher (*door_lo*)."""

    lo: int
    hi: int
    door_lo: int | None = None

    def __call__(self, name: str, value: Any) -> None:
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValidationError(f"{name}: expected an integer, got {shown(value)}")
        _bounds(name, value, self.lo, self.hi)


@dataclass(frozen=True)
class Number(Check):
    """A finite number in [*lo*, *hi*] (not a bool)."""

    lo: float
    hi: float

    def __call__(self, name: str, value: Any) -> None:
        if value is None:
            return
        _finite(name, value)
        _bounds(name, value, self.lo, self.hi)


@dataclass(frozen=True)
class Choice(Check):
    """One of *values* (the doors' enum)."""

    values: tuple[str, ...]

    def __call__(self, name: str, value: Any) -> None:
        if value is not None and value not in self.values:
            raise ValidationError(
                f"{name} must be one of {', '.join(self.values)} — got {shown(value)}"
            )


@dataclass(frozen=True)
class Text(Check):
    """A string (the doors also refuse an empty or blank one; the library, as the seed
    did, answers it)."""

    def __call__(self, name: str, value: Any) -> None:
        if not isinstance(value, str):
            raise ValidationError(f"{name}: expected a string, got {shown(value)}")


@dataclass(frozen=True)
class Time(Check):
    """A point in time: epoch seconds in the library; the doors also take ISO-8601 and
    spans like ``7d`` and parse them into epoch seconds first."""

    def __call__(self, name: str, value: Any) -> None:
        if value is not None:
            _finite(name, value)


@dataclass(frozen=True)
class Scope(Check):
    """A ``user_id`` / ``agent_id`` / ``session_id``: an id string ("" is unset in the
    library; the rest of the check is :func:`houkai.domain.scope.scope_filters`)."""

    def __call__(self, name: str, value: Any) -> None:
        if value is None:
            return
        if not isinstance(value, str):
            raise ValidationError(f"{name}: expected a string, got {shown(value)}")
        if len(value) > MAX_ID_CHARS:
            raise ValidationError(f"{name}: at most {MAX_ID_CHARS} characters (got {len(value)})")


@dataclass(frozen=True)
class Flag(Check):
    """A switch: the doors take a boolean, the library (as the seed) any truthy value."""


@dataclass(frozen=True)
class Label(Check):
    """A free string filter (``tag``, ``source``): the library compares it as given."""


@dataclass(frozen=True)
class Stages(Check):
    """Stage names, resolved (and so checked) by the request itself: a comma-separated
    string at the doors, a string or a sequence in the library."""


@dataclass(frozen=True)
class Instance(Check):
    """A library-only object: an instance of *kind*, or a callable when *kind* is None."""

    kind: type | None
    message: str

    def __call__(self, name: str, value: Any) -> None:
        if value is None:
            return
        ok = callable(value) if self.kind is None else isinstance(value, self.kind)
        if not ok:
            raise ValidationError(self.message)


def _finite(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationError(f"{name}: expected a number, got {shown(value)}")
    if not math.isfinite(value):
        raise ValidationError(f"{name}: must be a finite number, got {shown(value)}")


def _bounds(name: str, value: float, lo: float, hi: float) -> None:
    if value < lo:
        raise ValidationError(f"{name}: must be >= {lo}, got {shown(value)}")
    if value > hi:
        raise ValidationError(f"{name}: must be <= {hi}, got {shown(value)}")


# --------------------------------------------------------------------------- the declaration
@dataclass(frozen=True)
class Param:
    """One recall parameter."""

    name: str
    #: its type in the library, as source (the generated signature and request field)
    annotation: str
    default: Any
    check: Check
    #: one line for the doors' description (the doors add how they take a time)
    doc: str = ""
    #: where the registry shows it: ``"recall"`` (the operation's own field), ``"filters"``
    #: or ``"ranking"`` (groups ``recall_pack`` shares too); None: library-only
    door: str | None = "recall"
    #: the doors' default when it differs (None there: "the store's default")
    door_default: Any = SAME
    #: shown at the doors just before this parameter (the registry's order where it is
    #: not the signature's); None: in signature order
    door_before: str | None = None

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


_MODE_DOC = (
    "semantic = meaning only; hybrid = meaning + keywords (BM25) + recency + importance; "
    "prefer hybrid when the query has exact names, ids or rare words."
)
_MIN_COSINE_DOC = (
    "Drop results less similar than this (-1..1, e.g. 0.3) so an off-topic query returns "
    "nothing rather than weak matches."
)
_STAGES_DOC = (
    f"Hybrid stages, comma-separated: {', '.join(STAGES)}; "
    f'"{DEFAULT_WORD}" for the ones on by default; "" for the plain blend '
    "(default: the recall_stages setting)."
)
_OPT_STR, _OPT_FLOAT, _F = "str | None", "float | None", "filters"

#: Every recall parameter, in ``MemoryStore.recall``'s order (the seed's: add new ones last).
PARAMS: tuple[Param, ...] = (
    Param("query", "str", REQUIRED, Text(), "What to look for, in natural language."),
    Param("k", "int", 5, Int(0, MAX_RECALL_K, door_lo=1), "How many results."),
    Param("type", _OPT_STR, None, Choice(MEMORY_TYPES), "Only memories of this type.", "filters"),
    Param("tag", _OPT_STR, None, Label(), "Only memories carrying this tag.", "filters"),
    Param(
        "min_importance", _OPT_FLOAT, None, Number(0, 1),
        "Only memories with importance >= this (0..1).", "filters",
    ),
    Param("source", _OPT_STR, None, Label(), "Only memories with exactly this source.", "filters"),
    Param("since", _OPT_FLOAT, None, Time(), "Only memories created at/after this time.", _F),
    Param("until", _OPT_FLOAT, None, Time(), "Only memories created at/before this time.", _F),
    Param("mode", "str", "semantic", Choice(RECALL_MODES), _MODE_DOC),
    Param(
        "weights", "HybridWeights | None", None,
        Instance(HybridWeights, "weights must be a HybridWeights"), door=None,
    ),
    Param(
        "overfetch", "int", 4, Int(1, 100),
        "Candidate pool multiplier for filtering/reranking "
        f"(the pool is capped at {MAX_RECALL_POOL:,} candidates).",
    ),
    Param("include_superseded", "bool", False, Flag(), "Also return superseded memories."),
    Param("include_expired", "bool", False, Flag(), "Also return memories whose TTL passed."),
    Param("touch", "bool", True, Flag(), "Count this recall as an access of each hit."),
    Param(
        "explain", "bool", False, Flag(), "Add a per-result score breakdown.", door_before="touch"
    ),
    Param(
        "fusion", "str", "weighted", Choice(FUSIONS), "weighted blend (default) or rrf.",
        "ranking", door_default=None,
    ),
    Param("diversity", _OPT_FLOAT, None, Number(0, 1), "MMR diversity 0..1.", "ranking"),
    Param(
        "dedup_threshold", _OPT_FLOAT, None, Number(0, 1), "Drop near-duplicates above.", "ranking"
    ),
    Param("min_cosine", _OPT_FLOAT, None, Number(-1, 1), _MIN_COSINE_DOC, "ranking"),
    Param(
        "reranker", "Reranker | None", None,
        Instance(None, "reranker must be a callable (query, memories) -> scores"), door=None,
    ),
    Param(
        "expand", "ExpandSpec | None", None,
        Instance(ExpandSpec, "expand must be an ExpandSpec"), door=None,
    ),
    Param("rrf_k", "int", DEFAULT_RRF_K, Int(1, 100_000), door=None),
    Param("stages", "Any", None, Stages(), _STAGES_DOC),
    Param("as_of", _OPT_FLOAT, None, Time(), "The clock the question is asked at."),
    Param("user_id", _OPT_STR, None, Scope(), "Only memories of this user.", "filters"),
    Param("agent_id", _OPT_STR, None, Scope(), "Only memories of this agent.", "filters"),
    Param(
        "session_id", _OPT_STR, None, Scope(), "Only memories extracted from this session.",
        "filters",
    ),
)  # fmt: skip

BY_NAME: dict[str, Param] = {p.name: p for p in PARAMS}


def door_params(group: str, params: tuple[Param, ...] | None = None) -> list[Param]:
    """The parameters the doors show in *group* (``recall``, ``filters``, ``ranking``),
    in the doors' order."""
    chosen = [p for p in (PARAMS if params is None else params) if p.door == group]
    for param in [p for p in chosen if p.door_before]:
        chosen.remove(param)
        chosen.insert(next(i for i, p in enumerate(chosen) if p.name == param.door_before), param)
    return chosen


def time_params(params: tuple[Param, ...] | None = None) -> tuple[str, ...]:
    """The parameters that are points in time (the doors parse theirs into epoch seconds)."""
    chosen = PARAMS if params is None else params
    return tuple(p.name for p in chosen if isinstance(p.check, Time))


def check_all(values: Callable[[str], Any], params: tuple[Param, ...] | None = None) -> None:
    """Run every parameter's check on its value (``values(name)``): the library's check."""
    for param in PARAMS if params is None else params:
        param.check(param.name, values(param.name))
