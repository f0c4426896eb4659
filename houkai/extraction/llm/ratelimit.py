"""A token bucket per provider in Redis, shared by every worker process.

One Lua script refills and takes in one step on Redis's own clock (``TIME``), so any
number of processes on any number of machines see one bucket: ``rate`` requests per
second on average, at most ``burst`` at once. A caller that finds the bucket empty is
told how long until its tokens are there, sleeps that long and asks again, up to its
deadline; past that it gets :class:`~.errors.RetryLater` with the wait, so a Celery
task is rescheduled instead of holding a worker slot asleep.
"""

from __future__ import annotations

import random
import time
from typing import Any

from .errors import RetryLater

#: Lua: ``now``, the caller's clock in ARGV[4] (tests) or else the server's ``TIME``: one
#: clock for every process that shares a limit.
NOW_LUA = """local now
if ARGV[4] ~= '' then
  now = tonumber(ARGV[4])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) + tonumber(t[2]) / 1000000
end
"""

# KEYS[1]: the bucket HASH {tokens, ts}. ARGV: rate/s, burst, cost, now ('' = Redis TIME).
# Returns '0' when the tokens were taken, else the seconds until they will be there.
_BUCKET_LUA = (
    """
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
"""
    + NOW_LUA
    + """local tokens = tonumber(redis.call('HGET', KEYS[1], 'tokens'))
local ts = tonumber(redis.call('HGET', KEYS[1], 'ts'))
if tokens == nil or ts == nil then
  tokens = burst
  ts = now
end
if now > ts then
  tokens = math.min(burst, tokens + (now - ts) * rate)
  ts = now
end
local wait = 0
if tokens >= cost then
  tokens = tokens - cost
else
  wait = (cost - tokens) / rate
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.6f', tokens),
  'ts', string.format('%.6f', ts))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return string.format('%.6f', wait)
"""
)


class TokenBucket:
    """``rate`` tokens per second, at most ``burst`` saved up, under one Redis key."""

    def __init__(self, client: Any, key: str, rate: float, burst: float | None = None) -> None:
        if rate <= 0:
            raise ValueError("rate must be > 0 (no bucket at all means no limit)")
        self.client = client
        self.key = key
        self.rate = float(rate)
        self.burst = float(burst) if burst and burst > 0 else max(1.0, self.rate)
        self._script = client.register_script(_BUCKET_LUA)

    def try_acquire(self, cost: float = 1.0, *, now: float | None = None) -> float:
        """Take *cost* tokens if they are there (``0.0``), else the seconds to wait.
        *now* replaces Redis's clock (tests)."""
        if cost > self.burst:
            raise ValueError(f"cost {cost} exceeds the bucket's burst {self.burst}")
        reply = self._script(
            keys=[self.key], args=[self.rate, self.burst, cost, "" if now is None else now]
        )
        return float(reply)

    def acquire(self, cost: float = 1.0, *, timeout: float = 30.0) -> float:
        """Wait (up to *timeout* seconds) for *cost* tokens; the seconds waited.
        Raises :class:`RetryLater` with the remaining wait when the deadline comes first."""
        started = time.monotonic()
        deadline = started + max(0.0, timeout)
        while True:
            wait = self.try_acquire(cost)
            if wait <= 0:
                return time.monotonic() - started
            left = deadline - time.monotonic()
            if wait > left:
                raise RetryLater(
                    f"rate limit {self.key}: no token within {timeout:g}s", retry_after=wait
                )
            # a little jitter so processes woken together do not all ask at once
            time.sleep(wait + random.uniform(0, min(0.01, wait / 10)))


class NoLimit:
    """The bucket of an unlimited provider (``rate`` 0)."""

    key = ""

    def try_acquire(self, cost: float = 1.0, *, now: float | None = None) -> float:
        return 0.0

    def acquire(self, cost: float = 1.0, *, timeout: float = 30.0) -> float:
        return 0.0
