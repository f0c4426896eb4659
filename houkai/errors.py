"""Map exceptions to what a user should read, once, for every front door.

REST turns these into status codes, MCP into tool errors, the CLI into
``Error: …`` lines. Anything not listed is unexpected: front doors log it and
show no internals. Bad input is a :class:`BadRequest` or a
:class:`~houkai.model.ValidationError`; a bare ``ValueError``/``TypeError``
from deeper down is a bug and deliberately *not* a 400, so it surfaces as a
500 with a request id instead of hiding behind "bad input".
"""

from __future__ import annotations

import redis

from .model import ConflictError, MemoryNotFound, StateConflict, ValidationError
from .redis_server import RedisServerError


class HoukaiError(Exception):
    """An expected failure with an HTTP-style status and a user-facing message."""

    status = 400

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""


class BadRequest(HoukaiError):
    status = 400


class NotFound(HoukaiError):
    status = 404


class Conflict(HoukaiError):
    status = 409


class Unavailable(HoukaiError):
    status = 503


class CollectionMigrating(Unavailable):
    """The collection's vectors are being re-written; ``houkai collections migrate`` finishes."""


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
    if isinstance(exc, StateConflict):
        return 409, str(exc)
    if isinstance(exc, ValidationError):
        return 400, str(exc)
    if isinstance(exc, FileNotFoundError | IsADirectoryError | PermissionError):
        return 400, f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc)
    return None


def user_message(exc: BaseException) -> str | None:
    result = classify(exc)
    return None if result is None else result[1]
