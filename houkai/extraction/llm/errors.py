"""What an LLM call's failure tells its caller: try again later, or dead-letter it.

The extractor retries inside one call (backoff, ``Retry-After``) a bounded number of
times; what is left when that budget is spent reaches the caller as one of two types,
so the Celery task can map them without knowing any provider:

- :class:`RetryLater`: the provider was busy or unreachable (429, 5xx, timeouts, no rate
  token or concurrency slot in time). Nothing was decided; retry the task after
  ``retry_after`` seconds, and dead-letter it only when the task's own budget is spent.
- :class:`DeadLetter`: retrying cannot help (bad key, unknown model, a request the
  provider rejects, replies that stay malformed). Park the job where people see it.

Both carry the :class:`~houkai.extraction.base.Usage` the failed attempts spent, so the
tokens of a failure are still counted.
"""

from __future__ import annotations

from typing import Literal

from ..base import Usage


class LLMError(Exception):
    """A failed LLM extraction or decision; see :class:`RetryLater` and :class:`DeadLetter`."""

    retryable: bool = False

    def __init__(
        self,
        message: str,
        *,
        usage: Usage | None = None,
        attempts: int = 0,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.usage = usage or Usage()
        self.attempts = attempts
        self.retry_after = retry_after


class RetryLater(LLMError):
    """Transient: the provider (or our own limiter) said not now."""

    retryable = True


class DeadLetter(LLMError):
    """Permanent: the same call would fail again."""

    retryable = False


class MalformedReply(ValueError):
    """A reply that is not the JSON the prompt asked for (or names unknown ids).

    Internal: the extractor retries it a bounded number of times, then raises
    :class:`DeadLetter`; it never turns into a memory."""


def disposition(
    exc: BaseException, task_retries: int, max_task_retries: int, *, default_delay: float = 30.0
) -> tuple[Literal["retry", "dead"], float]:
    """``("retry", countdown)`` or ``("dead", 0)`` for a Celery task that caught *exc*
    after *task_retries* earlier retries of its own (at most *max_task_retries*)."""
    if isinstance(exc, LLMError) and exc.retryable and task_retries < max_task_retries:
        delay = exc.retry_after if exc.retry_after is not None else default_delay
        return "retry", max(0.0, float(delay)) * (1 + task_retries)
    return "dead", 0.0
