"""Memory expiry: TTL validation, hide-then-reclaim, purge_expired (seed §21)."""

from __future__ import annotations

import time

import pytest

TEXT = "The sprint demo is on Friday at 3pm in room 4."


def _recalled(store, query, **kwargs):
    return [m.id for m, _ in store.recall(query, k=10, touch=False, **kwargs)]


def test_ttl_validation(store):
    with pytest.raises(ValueError, match="at most one"):
        store.remember(TEXT, ttl_seconds=60, expires_at=time.time() + 60)
    with pytest.raises(ValueError, match="ttl_seconds must be > 0"):
        store.remember(TEXT, ttl_seconds=0)
    with pytest.raises(ValueError, match="ttl_seconds must be > 0"):
        store.remember(TEXT, ttl_seconds=-5)
    with pytest.raises(ValueError, match="expires_at must be >= 0"):
        store.remember(TEXT, expires_at=-1)
    with pytest.raises(ValueError):
        store.remember_many([{"text": TEXT, "ttl_seconds": -1}])
    assert store.count() == 0


def test_ttl_sets_deadline(store):
    start = time.time()
    m = store.remember(TEXT, ttl_seconds=3600)
    assert start + 3600 <= m.expires_at <= time.time() + 3600
    assert store.get(m.id).expires_at == pytest.approx(m.expires_at)
    n = store.remember("never expires")
    assert n.expires_at == 0.0 and not n.is_expired()


def test_expired_hidden_unless_asked_but_fetchable(store):
    expired = store.remember(TEXT, expires_at=time.time() - 1)
    live = store.remember("The sprint retro is on Monday.", ttl_seconds=3600)
    assert expired.id not in _recalled(store, TEXT)
    assert live.id in _recalled(store, TEXT)
    assert expired.id in _recalled(store, TEXT, include_expired=True)
    assert expired.id not in _recalled(store, TEXT, mode="hybrid")
    assert expired.id not in [m.id for m in store.list_recent(10)]
    assert expired.id in [m.id for m in store.list_recent(10, include_expired=True)]
    got = store.get(expired.id)
    assert got is not None and got.is_expired()


def test_edit_sets_and_clears_expiry(store):
    m = store.remember(TEXT)
    past = time.time() - 10
    store.edit(m.id, expires_at=past)
    assert store.get(m.id).expires_at == pytest.approx(past)
    assert m.id not in _recalled(store, TEXT)
    store.edit(m.id, expires_at=0)  # 0 clears the TTL
    assert store.get(m.id).expires_at == 0.0
    assert m.id in _recalled(store, TEXT)
    with pytest.raises(ValueError):
        store.edit(m.id, expires_at=-3)


def test_purge_dry_run_then_apply(store):
    now = time.time()
    gone = store.remember(TEXT, expires_at=now - 100, type="procedural")  # protect_types ignored
    gone2 = store.remember("Old session token note.", expires_at=now - 50)
    later = store.remember("Expires tomorrow.", expires_at=now + 86400)
    keep = store.remember("Never expires.")
    store.link(keep.id, gone.id)
    store.link(gone.id, keep.id, "refines")
    preview = store.purge_expired(dry_run=True)
    assert sorted(m.id for m in preview) == sorted([gone.id, gone2.id])
    assert store.exists(gone.id) and store.exists(gone2.id)
    purged = store.purge_expired()
    assert sorted(m.id for m in purged) == sorted([gone.id, gone2.id])
    assert not store.exists(gone.id) and not store.exists(gone2.id)
    assert store.exists(later.id) and store.exists(keep.id)
    # The purged memory's outgoing edges leave the reverse index.
    assert store.client.smembers(store.keys.incoming(keep.id)) == set()
    assert store.purge_expired() == []
    # A custom "now" in the future reaches the later memory.
    assert [m.id for m in store.purge_expired(now=now + 2 * 86400, dry_run=True)] == [later.id]
    with pytest.raises(ValueError):
        store.purge_expired(now="tomorrow")


def test_purge_is_journaled_per_row_with_actor_purge(store):
    ids = {store.remember(f"temporary note {i}", expires_at=time.time() - 1).id for i in range(3)}
    store.purge_expired()
    forgets = [e for e in store.journal.tail(20) if e.op == "forget"]
    assert {e.id for e in forgets} == ids
    assert {e.actor for e in forgets} == {"purge"}
    assert all(e.before and e.before["id"] == e.id for e in forgets)
    assert store.actor == "lib"  # actor restored afterwards
    assert int(store.client.hget(store.keys.metrics, "calls:purge_expired")) == 1


def test_purge_streams_in_batches(store, monkeypatch):
    from houkai.store import expiry

    monkeypatch.setattr(expiry, "PURGE_BATCH", 4)
    past = time.time() - 1
    store.remember_many([{"text": f"batch note {i}", "expires_at": past} for i in range(11)])
    store.remember("survivor")
    assert len(store.purge_expired()) == 11
    assert store.count() == 1
    # The BM25 corpus statistics follow the deletes like any other forget.
    assert int(store.client.hget(store.keys.lexstats, "__N")) == 1


def test_purge_skips_a_memory_whose_ttl_was_extended(store):
    m = store.remember(TEXT, expires_at=time.time() - 1)
    stale = store.get(m.id)
    store.edit(m.id, expires_at=time.time() + 3600)
    # Simulate the scan having seen the old deadline: the delete re-checks it in Redis.
    assert store.expiry._purge_batch([stale], time.time()) == []
    assert store.exists(m.id)
