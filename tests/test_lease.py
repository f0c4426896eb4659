"""A lease outlives neither its holder nor a Redis restart that ate its release (ADR 0120).

Before it, maintenance took a one-hour lock: a tick cut short by a Redis SIGKILL left the
lock in the append-only file without its release, and no maintenance ran for an hour.
"""

from __future__ import annotations

import time
import uuid

import pytest
import redis

from houkai.db.lease import Lease
from houkai.pipeline import maintenance
from houkai.pipeline.maintenance import MaintenanceState, tick


@pytest.fixture
def key(store) -> str:
    return f"{store.keys.maintenance}:test-lease:{uuid.uuid4().hex[:6]}"


def _unreachable(*args, **kwargs):
    raise redis.ConnectionError("Connection refused")


def test_a_held_lease_is_renewed_and_given_back(store, key) -> None:
    lease = Lease(store.client, key, ttl=0.3)
    with lease.holding() as token:
        assert token is not None
        time.sleep(1.0)  # three TTLs: only the renewals keep it
        assert Lease(store.client, key).acquire() is None
        assert 0 < store.client.pttl(key) <= 300
    assert not store.client.exists(key)
    with Lease(store.client, key).holding() as again:
        assert again is not None


def test_a_lease_whose_holder_died_frees_itself(store, key) -> None:
    assert Lease(store.client, key, ttl=0.3).acquire() is not None  # never released
    assert Lease(store.client, key).acquire() is None
    time.sleep(0.4)
    assert Lease(store.client, key).acquire() is not None


def test_a_release_redis_never_saw_is_retried_by_the_next_acquire(store, key, monkeypatch) -> None:
    lease = Lease(store.client, key)
    with lease.holding() as token:
        assert token is not None
        monkeypatch.setattr(store.client, "eval", _unreachable)  # Redis gone at release
    monkeypatch.undo()
    assert store.client.get(key) == token.encode()  # the key survived, as in the AOF
    assert Lease(store.client, key).acquire() is not None  # at once, not in a minute


def test_maintenance_resumes_at_once_after_redis_lost_the_release(store, monkeypatch) -> None:
    def purge_then_redis_dies(*args):
        monkeypatch.setattr(store.client, "eval", _unreachable)
        return 0

    monkeypatch.setitem(maintenance.RUNNERS, "purge", purge_then_redis_dies)
    assert tick(store, force=True).ran_purge
    monkeypatch.undo()  # Redis is back, and the lock with it
    assert store.client.exists(MaintenanceState(store).lock_key)
    after = tick(store, force=True)
    assert not after.locked and after.ran_purge
    assert not store.client.exists(MaintenanceState(store).lock_key)
