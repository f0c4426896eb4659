"""A server-side deadline per request, checked between the stages of the work.

A read whose cost grows with its arguments (recall with MMR, a pack, an
auto-context) must not hold a core after its client has given up: the service
opens :func:`scope` around the call (``request_deadline`` seconds, a setting),
and the store calls :func:`check` between stages and inside its longest loops.
Past the deadline :class:`DeadlineExceeded` ends the work; every door maps it
like any :class:`~houkai.domain.errors.HoukaiError` (HTTP 503 with the message,
an MCP tool error, the CLI's ``Error: …``). The deadline lives in a context
variable, so each request thread (and asyncio task) has its own.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from .errors import Unavailable

#: ``(monotonic deadline, allowed seconds)`` of the request running in this context.
_DEADLINE: ContextVar[tuple[float, float] | None] = ContextVar("houkai_deadline", default=None)


class DeadlineExceeded(Unavailable):
    """The request ran past ``request_deadline``; its work was stopped."""


@contextmanager
def scope(seconds: float | None) -> Iterator[None]:
    """Give the work inside a deadline of *seconds* (``None`` or ``<= 0``: none).

    A nested scope never extends the outer one: the earlier deadline wins."""
    if seconds is None or seconds <= 0:
        yield
        return
    outer = _DEADLINE.get()
    wanted = (time.monotonic() + float(seconds), float(seconds))
    token = _DEADLINE.set(wanted if outer is None or wanted[0] < outer[0] else outer)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def remaining() -> float | None:
    """Seconds left before this context's deadline (``None``: no deadline)."""
    current = _DEADLINE.get()
    return None if current is None else current[0] - time.monotonic()


def check(stage: str) -> None:
    """Raise :class:`DeadlineExceeded` when this context's deadline has passed."""
    current = _DEADLINE.get()
    if current is None or time.monotonic() < current[0]:
        return
    raise DeadlineExceeded(
        f"request stopped after {current[1]:g}s (request_deadline) during {stage}; "
        "ask for less (a smaller k, no diversity, fewer stages) or raise request_deadline"
    )
