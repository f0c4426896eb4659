"""A cap on in-flight calls per provider across every worker: a Redis semaphore.

Holders are members of a sorted set scored by their lease's expiry. Taking a slot first
drops expired leases, so a worker killed mid-call frees its slot when its lease runs
out instead of leaking it forever. A lease outlives one HTTP attempt (the call's
timeout plus a margin); the slot is released between retries, so a call sleeping in
backoff holds no slot.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .errors import RetryLater
from .ratelimit import NOW_LUA

# KEYS[1]: the ZSET token → lease expiry. ARGV: cap, token, lease seconds, now ('' = TIME).
# Returns 1 when the slot is held (taken or renewed), else 0.
_TAKE_LUA = (
    """
"""
    + NOW_LUA
    + """local lease = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = redis.call('ZSCORE', KEYS[1], ARGV[2])
if held or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], string.format('%.6f', now + lease), ARGV[2])
  redis.call('PEXPIRE', KEYS[1], math.ceil(lease * 1000) + 1000)
  return 1
end
return 0
"""
)

POLL = 0.05  # seconds between tries while every slot is taken


class Semaphore:
    """At most ``cap`` holders of ``key`` at once; each holds for ``lease`` seconds at most."""

    def __init__(self, client: Any, key: str, cap: int, lease: float) -> None:
        if cap < 1:
            raise ValueError("cap must be >= 1 (no semaphore at all means no cap)")
        self.client = client
        self.key = key
        self.cap = int(cap)
        self.lease = float(lease)
        self._script = client.register_script(_TAKE_LUA)

    def try_take(self, token: str, *, now: float | None = None) -> bool:
        """Take (or renew) the slot of *token*; *now* replaces Redis's clock (tests)."""
        args = [self.cap, token, self.lease, "" if now is None else now]
        return bool(int(self._script(keys=[self.key], args=args)))

    def release(self, token: str) -> None:
        self.client.zrem(self.key, token)

    def holders(self) -> int:
        """Slots held now (expired leases included until the next take)."""
        return int(self.client.zcard(self.key))

    @contextmanager
    def slot(self, *, timeout: float = 30.0) -> Iterator[str]:
        """Hold one slot for the block; :class:`RetryLater` if none frees within *timeout*."""
        token = uuid.uuid4().hex
        deadline = time.monotonic() + max(0.0, timeout)
        while not self.try_take(token):
            if time.monotonic() >= deadline:
                raise RetryLater(
                    f"concurrency cap {self.cap} on {self.key}: no slot within {timeout:g}s",
                    retry_after=POLL * 20,
                )
            time.sleep(POLL * random.uniform(0.5, 1.5))
        try:
            yield token
        finally:
            self.release(token)


class NoCap:
    """The semaphore of an uncapped provider (``concurrency`` 0)."""

    key = ""

    @contextmanager
    def slot(self, *, timeout: float = 30.0) -> Iterator[str]:
        yield ""
