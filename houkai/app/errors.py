"""Map exceptions to what a user should read, once, for every front door.

REST turns these into status codes, MCP into tool errors, the CLI into
``Error: …`` lines. Anything not listed is unexpected: front doors log it and
show no internals (a 500 with a request id).
"""

from __future__ import annotations

import redis

from ..db.server import RedisServerError
from ..domain.errors import HoukaiError
from ..domain.model import (
    ConflictError,
    MemoryNotFound,
    NothingToIngest,
    StateConflict,
    ValidationError,
)

_CLUSTER_BUSY = (
    redis.exceptions.ClusterError,
    redis.exceptions.TryAgainError,
    redis.exceptions.AskError,
    redis.exceptions.SlotNotCoveredError,
)


def classify(exc: BaseException) -> tuple[int, str] | None:
    """``(status, message)`` for an expected error, ``None`` for an unexpected one."""
    if isinstance(exc, HoukaiError):
        return exc.status, exc.message
    if isinstance(exc, MemoryNotFound):
        return 404, str(exc)
    if isinstance(exc, ConflictError):
        return 409, str(exc)
    if isinstance(exc, RedisServerError):
        return 503, str(exc)
    if isinstance(exc, redis.ConnectionError | redis.TimeoutError):
        # Redis down, restarting or loading: the client already retried with backoff.
        return 503, f"Redis unavailable: {exc}"
    if isinstance(exc, _CLUSTER_BUSY):  # a Redis Cluster mid-failover or mid-move (ADR 0079)
        return 503, f"Redis Cluster busy (failover or slot move); try again ({exc})"
    if isinstance(exc, redis.exceptions.NoScriptError):
        # Redis restarted between loading a script and running it: the next call reloads it.
        return 503, f"Redis restarted during the request; try again ({exc})"
    if isinstance(exc, StateConflict):
        return 409, str(exc)
    if isinstance(exc, NothingToIngest):  # a well-formed path naming nothing: like an unknown id
        return 404, str(exc)
    if isinstance(exc, ValidationError):
        return 400, str(exc)
    if isinstance(exc, FileNotFoundError | IsADirectoryError | PermissionError):
        return 400, f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc)
    return None


def user_message(exc: BaseException) -> str | None:
    result = classify(exc)
    return None if result is None else result[1]
