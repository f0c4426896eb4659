"""``forward``: a facade method that calls the same-named method of a collaborator.

:class:`~houkai.store.MemoryStore` is a thin facade: each public method is the
collaborator's own, reached through one attribute (``store.graph.link``). ``forward``
keeps the collaborator method's name, docstring and signature (``inspect.signature``
follows ``__wrapped__``, so the seed-compatibility and async parity tests see the real
one) and its generator-ness (the async wrapper streams generator methods), and looks
the method up on the collaborator at call time, so patching a collaborator's method
patches the store's.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def forward(
    part: str, method: Callable[Concatenate[Any, P], R]
) -> Callable[Concatenate[Any, P], R]:
    """A method calling ``self.<part>.<method name>(...)``."""
    name = method.__name__
    if inspect.isgeneratorfunction(method):

        @functools.wraps(method)
        def stream(self: Any, *args: P.args, **kwargs: P.kwargs) -> Any:
            return (yield from getattr(getattr(self, part), name)(*args, **kwargs))

        return stream

    @functools.wraps(method)
    def call(self: Any, *args: P.args, **kwargs: P.kwargs) -> R:
        return getattr(getattr(self, part), name)(*args, **kwargs)

    return call


__all__ = ["forward"]
