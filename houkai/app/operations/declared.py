"""The registry's recall models, made from the one declaration of the recall parameters.

:data:`houkai.recall.parameters.PARAMS` declares each recall parameter once (library type,
default, check, doc, door group). :func:`declared` turns a hand-written shell class of
:mod:`.params` (``Recall``, or a shared group ``Filters`` / ``Ranking``) into the
pydantic model the doors use: the declared parameters of that group become its fields,
typed as the doors take them (:func:`door_annotation`), with the declared bounds, the
doors' default and the doc. The shell keeps what only the doors have (``graph``, the
``expand`` object), listed after the declared fields.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, Field, create_model

from houkai.recall import parameters
from houkai.recall.parameters import (
    SAME,
    Choice,
    Flag,
    Int,
    Label,
    Number,
    Param,
    Scope,
    Stages,
    Text,
    Time,
)

from .fields import TIME_HELP, NonEmpty, Timestamp

M = TypeVar("M", bound=BaseModel)

#: a user_id / agent_id / session_id / message id (issue 30): an id string, no blank one
ScopeId = Annotated[str, Field(min_length=1, max_length=256, pattern=r"\S")]


def door_annotation(param: Param) -> Any:
    """The type the doors take *param* as (JSON Schema, click), from its declared check."""
    check = param.check
    base: Any
    if isinstance(check, Int):
        lo = check.lo if check.door_lo is None else check.door_lo
        base = Annotated[int, Field(ge=lo, le=check.hi)]
    elif isinstance(check, Number):
        base = Annotated[float, Field(ge=check.lo, le=check.hi)]
    elif isinstance(check, Choice):
        base = Literal[check.values]
    elif isinstance(check, Text):
        base = NonEmpty
    elif isinstance(check, Time):
        base = Timestamp
    elif isinstance(check, Scope):
        base = ScopeId
    elif isinstance(check, Flag):
        base = bool
    elif isinstance(check, Label | Stages):
        base = str
    else:
        raise TypeError(f"recall parameter {param.name!r}: no door type for {check!r}")
    return base | None if door_default(param) is None else base


def door_default(param: Param) -> Any:
    return param.default if param.door_default is SAME else param.door_default


def door_field(param: Param) -> tuple[Any, Any]:
    """*param* as a pydantic field definition: (type, ``Field``)."""
    doc = f"{param.doc} {TIME_HELP}" if isinstance(param.check, Time) else param.doc
    if param.required:
        return door_annotation(param), Field(description=doc)
    return door_annotation(param), Field(door_default(param), description=doc)


def declared(group: str) -> Callable[[type[M]], type[M]]:
    """A class decorator: the model of the shell's bases with the declared parameters of
    *group* as fields, then the shell's own (read :data:`~houkai.recall.parameters.PARAMS`
    when applied)."""

    def build(shell: type[M]) -> type[M]:
        fields = {p.name: door_field(p) for p in parameters.door_params(group)}
        own = inspect.get_annotations(shell)
        fields |= {n: (f.annotation, f) for n, f in shell.model_fields.items() if n in own}
        bases = shell.__bases__ if len(shell.__bases__) > 1 else shell.__bases__[0]
        model: type[M] = create_model(  # type: ignore[call-overload]
            shell.__name__,
            __base__=bases,
            __module__=shell.__module__,
            __doc__=shell.__doc__,
            **fields,
        )
        if shell.__dict__.get("group", False):
            model.group = True  # type: ignore[attr-defined]  # listed as the shell's group
        return model

    return build


__all__ = ["ScopeId", "declared", "door_annotation", "door_field"]
