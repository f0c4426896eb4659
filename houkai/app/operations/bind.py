"""Bind a service method to its operation: the declared parameters are its signature.

``@operation("recall")`` on ``def recall(self, p: params.Recall, *, collection=None)``
gives the method the public signature ``recall(query, k=5, …, *, collection=None)``
generated from the parameter model (required fields first, then the rest in
declaration order, with the declared defaults). Each call is checked once, here,
against the registry — library strings coerced (``k="3"``), unknown, missing
and out-of-range arguments refused with the words every door uses — and the
body receives the parameter model with the declared defaults filled in. So a
parameter added to the model reaches :class:`~houkai.app.service.MemoryService`
with no second list to edit, and the service never re-checks what the schema did.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from ..auth import scoped_arguments
from ..replication import acknowledged
from .catalog import BY_NAME
from .schema import InvalidArgument, check_arguments, coerce_arguments

#: Set by a wire door (REST, MCP ``dispatch``) around its call: the next bound method
#: checks strictly, as JSON arrives (no ``"3"`` for 3), instead of coercing library
#: strings first. Either way it is the call's one check; nested calls are the library's.
_STRICT: ContextVar[bool] = ContextVar("houkai_strict_check", default=False)


@contextmanager
def strict() -> Iterator[None]:
    """Within this block the bound method the door calls checks its arguments strictly,
    so the door need not (and must not) check them itself: one check per call."""
    token = _STRICT.set(True)
    try:
        yield
    finally:
        _STRICT.reset(token)


def checks_itself(method: Any) -> bool:
    """Whether *method* is a bound operation (it runs the call's one check)."""
    return isinstance(getattr(method, "operation", None), str)


def signature(name: str, extra: list[inspect.Parameter]) -> inspect.Signature:
    """``(self, <required fields>, <optional fields>=default, *extra)`` of operation *name*."""
    op = BY_NAME[name]
    fields = op.params.model_fields
    required = [n for n, f in fields.items() if f.is_required()]
    optional = [n for n in fields if n not in required]
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = [inspect.Parameter("self", kind)]
    params += [inspect.Parameter(n, kind) for n in required]
    params += [inspect.Parameter(n, kind, default=fields[n].get_default()) for n in optional]
    return inspect.Signature([*params, *extra])


def operation(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Make ``method(self, p, *, collection=None, …)`` the operation's checked entry point."""
    op = BY_NAME[name]
    model = op.params

    def decorate(method: Callable[..., Any]) -> Callable[..., Any]:
        if op.writes and op.scope == "collection":  # on a cluster: one replica has it
            method = acknowledged(method)
        extra = [
            p
            for p in inspect.signature(method).parameters.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY
        ]
        sig = signature(name, extra)
        keywords = {p.name for p in extra}
        allowed = [*op.fields(), *(["collection"] if op.scope == "collection" else [])]

        @functools.wraps(method)
        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            unknown = sorted(set(kwargs) - set(sig.parameters) - {"self"})
            if unknown:
                raise InvalidArgument(
                    f"{name}: unknown argument(s) {unknown}; allowed: "
                    f"{', '.join(allowed) or '(none)'}"
                )
            try:
                bound = sig.bind_partial(self, *args, **kwargs).arguments
            except TypeError as exc:
                raise InvalidArgument(f"{name}: {exc}") from None
            bound.pop("self")
            options = {k: bound.pop(k) for k in list(bound) if k in keywords}
            given = {k: v for k, v in bound.items() if v is not None}
            scoped_arguments(name, op.fields(), given)  # a scoped token's limits
            if _STRICT.get():
                nested = _STRICT.set(False)  # the door's call only, not the body's calls
                try:
                    checked = coerce_arguments(op, check_arguments(op, given), strings=False)
                    return method(self, model.model_construct(set(bound), **checked), **options)
                finally:
                    _STRICT.reset(nested)
            checked = check_arguments(op, coerce_arguments(op, given))
            # None given explicitly is remembered as set (edit: source=None clears it).
            p = model.model_construct(set(bound), **checked)
            return method(self, p, **options)

        run.__signature__ = sig  # type: ignore[attr-defined]
        run.operation = name  # type: ignore[attr-defined]  # the doors: it checks itself
        del run.__wrapped__  # the generated signature, not the body's ``p``
        return run

    return decorate
