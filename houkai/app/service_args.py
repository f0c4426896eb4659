"""A checked parameter model as the store's keyword arguments: unset fields left to the
store's defaults, times parsed, specs built (shared by the service's operation modules)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..domain.coerce import as_timestamp
from ..domain.model import ExpandSpec, HybridWeights
from ..recall.parameters import time_params
from .operations import params as params


def given(p: Any, *names: str) -> dict[str, Any]:
    """The fields of a parameter model (or mapping) that are set: unset ones are left
    to the store's defaults."""
    get = p.get if isinstance(p, Mapping) else lambda n: getattr(p, n, None)
    return {n: get(n) for n in names if get(n) is not None}


def as_tags(value: Any) -> list[str]:
    """Tags as a list (the parameter also takes one string as one tag)."""
    return [value] if isinstance(value, str) else list(value)


def remember_item(value: Any, fields: Any = params.RememberItem.model_fields) -> dict[str, Any]:
    """A checked remember item (or document) as the store's keyword arguments."""
    out: dict[str, Any] = {"text": value} if isinstance(value, str) else given(value, *fields)
    if "tags" in out:
        out["tags"] = as_tags(out["tags"])
    return out


def expand_spec(value: Any) -> ExpandSpec | None:
    """The checked ``expand`` parameter (true, or the spec's fields) as the store's spec."""
    if value is None or value is False:
        return None
    if value is True:
        return ExpandSpec()
    spec = given(value, *params.Expand.model_fields)
    if "rels" in spec:
        spec["rels"] = tuple(spec["rels"])
    return ExpandSpec(**spec)


def search_kwargs(p: Any) -> dict[str, Any]:
    """A checked recall / recall_pack model as the store's keyword arguments: times
    parsed, the graph weight and the expansion spec built; unset ones left out."""
    kwargs = given(p, *type(p).model_fields)
    for key in time_params():  # the recall parameters declared as points in time
        if key in kwargs:
            kwargs[key] = as_timestamp(kwargs[key], key)
    if "graph" in kwargs:
        kwargs["weights"] = HybridWeights(graph=kwargs.pop("graph"))
    spec = expand_spec(kwargs.pop("expand", None))
    if spec is not None:
        kwargs["expand"] = spec
    return read_only_touch(kwargs)


def read_only_touch(kwargs: dict[str, Any]) -> dict[str, Any]:
    """A read-only caller's read changes nothing: no access is counted (``touch``)."""
    from .auth import may_change_state

    if not may_change_state():
        kwargs["touch"] = False
    return kwargs
