"""A lease: a Redis lock that lives only as long as its holder does.

A lock taken with a long expiry outlives whatever held it: a worker SIGKILLed in the
middle of a maintenance tick, or a Redis restart that kept the lock (the append-only file
had it) but never saw the release (the connection was gone), left a collection's
maintenance locked for an hour. A lease expires in a minute unless a daemon thread renews
it while its holder runs, and a release that could not reach Redis is tried again by the
next acquire in the same process (ADR 0120).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

log = logging.getLogger(__name__)

#: Seconds a lease lasts without renewal: how long a dead holder blocks the next one.
LEASE_TTL = 60.0

_RELEASE_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
_RENEW_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""

# key -> token of leases this process held but could not release (Redis was unreachable)
_unreleased: dict[str, str] = {}
_unreleased_lock = threading.Lock()


class Lease:
    """One lease key on one client: :meth:`holding` takes, renews and gives it back."""

    def __init__(self, client: Any, key: str, ttl: float = LEASE_TTL) -> None:
        self.client, self.key, self.ttl = client, key, float(ttl)

    def acquire(self, wait: float = 0.0) -> str | None:
        """A token when the lease was free within *wait* seconds, else None."""
        self._release_left_over()
        token = uuid.uuid4().hex
        deadline = time.monotonic() + max(wait, 0.0)
        while not self.client.set(self.key, token, nx=True, px=self._ttl_ms):
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.05)
        return token

    def release(self, token: str) -> None:
        """Give the lease back; if Redis is unreachable, the next acquire here retries."""
        from redis import RedisError  # not at import: `houkai --help` loads no client

        try:
            self.client.eval(_RELEASE_LUA, 1, self.key, token)
        except RedisError as exc:
            with _unreleased_lock:
                _unreleased[self.key] = token
            log.warning("lease %s not released (%s); retried on the next acquire", self.key, exc)

    def renew(self, token: str) -> bool:
        """Push the expiry out again; False when the lease is no longer *token*'s."""
        return bool(self.client.eval(_RENEW_LUA, 1, self.key, token, self._ttl_ms))

    @contextmanager
    def holding(self, wait: float = 0.0) -> Iterator[str | None]:
        """Hold the lease for the block (its token; None when another holder has it)."""
        token = self.acquire(wait)
        if token is None:
            yield None
            return
        with self.kept(token):
            yield token

    @contextmanager
    def kept(self, token: str) -> Iterator[None]:
        """Renew the lease *token* holds every third of its TTL during the block, then
        release it (the block may run on another thread than the acquire did)."""
        stop = threading.Event()
        renewer = threading.Thread(
            target=self._keep, args=(token, stop), name=f"lease {self.key}", daemon=True
        )
        renewer.start()
        try:
            yield
        finally:
            stop.set()
            renewer.join(timeout=1.0)
            self.release(token)

    @property
    def _ttl_ms(self) -> int:
        return max(1, int(self.ttl * 1000))

    def _keep(self, token: str, stop: threading.Event) -> None:
        from redis import RedisError

        while not stop.wait(self.ttl / 3):
            try:
                if not self.renew(token):
                    log.warning("lease %s expired while held (Redis was away too long)", self.key)
                    return
            except RedisError as exc:  # Redis away for now: try again next round
                log.debug("lease %s not renewed: %s", self.key, exc)

    def _release_left_over(self) -> None:
        with _unreleased_lock:
            token = _unreleased.pop(self.key, None)
        if token is not None:
            self.release(token)  # unreachable again: remembered again
