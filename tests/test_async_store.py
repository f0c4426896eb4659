"""AsyncMemoryStore: API parity by introspection, executor lifecycle."""

from __future__ import annotations

import asyncio
import inspect

import pytest

from houkai import AsyncMemoryStore, MemoryStore
from houkai.store.async_store import public_methods

# Every public MemoryStore method the async wrapper exposes. A new store
# method makes this test fail on purpose: check it belongs on the async API
# (it is wrapped automatically) and add it here.
ALLOWLIST = {
    "add_messages",
    "archive_journal",
    "delete_session",
    "extract_session",
    "session",
    "sessions",
    "auto_context_pack",
    "count",
    "drop",
    "edit",
    "exists",
    "export",
    "check_findable",
    "find_conflicts",
    "findability",
    "flush_access",
    "forget",
    "forget_aggregates",
    "get",
    "get_at",
    "get_many",
    "history",
    "import_",
    "iter_conflicts",
    "iter_memories",
    "iter_new_conflicts",
    "journal_tail",
    "link",
    "list_recent",
    "metrics",
    "neighbors",
    "nuke",
    "probe_embedding",
    "purge_expired",
    "readiness",
    "recall",
    "recall_pack",
    "remember",
    "remember_many",
    "restore",
    "state_at",
    "stats",
    "subgraph",
    "supersede",
    "undo",
    "unlink",
    "vectors",
}


def test_every_public_store_method_is_a_coroutine():
    names = set(public_methods())
    assert names == ALLOWLIST, (
        f"new: {sorted(names - ALLOWLIST)}, gone: {sorted(ALLOWLIST - names)}"
    )
    for name in names:
        fn = getattr(AsyncMemoryStore, name)
        assert inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn), name
        assert inspect.signature(fn) == inspect.signature(getattr(MemoryStore, name)), name


def test_async_round_trip(make_store, tmp_path):
    sync = make_store()

    async def scenario():
        async with AsyncMemoryStore(store=sync) as store:
            memories = await asyncio.gather(
                *(store.remember(f"async memory {i}") for i in range(4))
            )
            hits = await store.recall("async memory", k=2)
            assert len(hits) == 2
            assert (await store.get(memories[0].id)).text == "async memory 0"
            assert await store.forget(memories[0].id) is True
            assert await store.undo((await store.journal_tail(1, op="forget"))[0]) is True
            summary = await store.export(tmp_path / "a.ahkai")
            batches = [b async for b in store.iter_memories()]
            assert (await store.readiness())["ready"] is True
            return summary, batches, store

    summary, batches, store = asyncio.run(scenario())
    assert summary.count == 4
    assert sum(len(b) for b in batches) == 4
    with pytest.raises(RuntimeError, match="closed"):
        asyncio.run(store.count())
    asyncio.run(store.aclose())  # idempotent
    store.close()


def test_as_actor_signs_what_an_awaited_call_journals(make_store):
    """The calls run on the store's executor in the caller's context, so an actor set
    around an ``await`` signs the entry, and the store's own actor is left as it was."""
    sync = make_store()

    async def scenario():
        async with AsyncMemoryStore(store=sync) as store:
            with store.as_actor("agent-7"):
                await store.remember("signed by the agent")
            await store.remember("signed by the store")
            return [e.actor for e in await store.journal_tail(2)]

    assert asyncio.run(scenario()) == [sync.actor, "agent-7"]


def test_constructor_arguments(settings, embedder):
    with pytest.raises(ValueError):
        AsyncMemoryStore(collection="x", store=object())
    store = AsyncMemoryStore(collection="t-async-ctor", settings=settings)
    try:
        assert store.collection_name == "t-async-ctor"
        assert asyncio.run(store.count()) == 0
    finally:
        store.sync.drop()
        store.close()
