"""When to try an LLM call again and how long to wait first.

Transient (try again): HTTP 408, 409, 429 and 5xx, timeouts and dropped connections.
A 200 whose body is not the API's JSON is malformed, like a reply that breaks its
schema: asked again, within the same budget. Everything else a provider answers
(400, 401, 403, 404, 422 …) is permanent: the same
request would fail the same way. Waits grow exponentially with full jitter (so workers
that failed together do not retry together) up to ``cap``; a ``Retry-After`` (or
OpenAI's ``retry-after-ms``) from the server is a floor. A wait longer than ``max_wait``
is not slept through in a worker: the caller gets RetryLater and reschedules.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, Literal

TRANSIENT_STATUS = frozenset({408, 409, 429})
Kind = Literal["transient", "permanent", "malformed"]


@dataclass(frozen=True)
class RetryPolicy:
    retries: int = 3  # attempts after the first, within one call
    base: float = 0.5  # seconds before the first retry (before jitter)
    cap: float = 20.0  # longest backoff between two attempts
    max_wait: float = 60.0  # a longer Retry-After ends the call with RetryLater

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt number *attempt* (0-based)."""
        jittered = random.uniform(0, min(self.cap, self.base * (2**attempt)))
        if retry_after is not None and retry_after >= 0:
            return retry_after + jittered * 0.1
        return jittered


def retry_after(headers: Any) -> float | None:
    """Seconds a response's ``retry-after-ms`` / ``Retry-After`` header asks for."""
    if headers is None:
        return None
    try:
        millis = headers.get("retry-after-ms")
        if millis is not None:
            return max(0.0, float(millis) / 1000)
        value = headers.get("retry-after")
    except (AttributeError, TypeError, ValueError):
        return None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(str(value)).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def classify_status(status: int) -> Kind:
    return "transient" if status in TRANSIENT_STATUS or status >= 500 else "permanent"


def classify(
    exc: BaseException, transient_types: tuple[type[BaseException], ...]
) -> tuple[Kind, float | None]:
    """``(kind, retry_after)`` of an exception a provider client raised: an HTTP status
    error by its status, *transient_types* (timeouts, connection errors) as transient,
    a response body that is not the API's JSON as malformed, anything else permanent."""
    if isinstance(exc, ValueError) or type(exc).__name__ == "APIResponseValidationError":
        return "malformed", None
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        response = getattr(exc, "response", None)
        return classify_status(status), retry_after(getattr(response, "headers", None))
    if isinstance(exc, transient_types):
        return "transient", None
    return "permanent", None
