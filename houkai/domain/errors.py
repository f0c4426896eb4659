"""Expected failures with an HTTP-style status, raised anywhere below the doors.

:mod:`houkai.app.errors` maps these (and the model's errors) to what a user
reads, once, for every front door. Bad input is a :class:`BadRequest` or a
:class:`~houkai.domain.model.ValidationError`; a bare ``ValueError``/``TypeError``
from deeper down is a bug and deliberately *not* a 400, so it surfaces as a
500 with a request id instead of hiding behind "bad input".
"""

from __future__ import annotations


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


class MemoryNotFound(KeyError):
    """No memory with that id in this collection."""

    def __init__(self, memory_id: str, field: str = "") -> None:
        super().__init__(memory_id)
        self.memory_id = memory_id
        self.field = field  # which argument named it (``dst_id``), when there are several

    def __str__(self) -> str:
        where = f"{self.field}: " if self.field else ""
        return f"{where}memory not found: no memory with id {self.memory_id!r}"
