"""``houkai redis migrate-layout``: data written under the pre-0079 key names moves to the
hash-tagged layout with equal counts and checksums, stays recallable, resumes after an
interruption, and a second run changes nothing (ADR 0079)."""

from __future__ import annotations

import uuid
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from houkai.cli import cli
from houkai.db import layout_migration as LM
from houkai.db.keys import GlobalKeys, Keys, prefix_pattern
from houkai.db.legacy_layout import LegacyLayout
from houkai.db.schema import IndexParams, _schema_args
from houkai.pipeline import jobs as J
from houkai.pipeline.write import Pipeline
from houkai.store import access


def _old_name(prefix: str, coll: str, key: str) -> str:
    rest = key[len(Keys(prefix, coll).tag) + 1 :]
    family, _, more = rest.partition(":")
    if family == "job":
        return f"{prefix}:job:{more}"
    return f"{prefix}:{family}:{coll}" + (f":{more}" if more else "")


def to_legacy(client, prefix: str, coll: str) -> None:
    """Rewrite a collection as an older houkai stored it: old key names, old index names."""
    keys = Keys(prefix, coll)
    params = IndexParams(dim=int(client.hget(keys.meta, "dim")))
    for index in (keys.index, keys.access_index):
        client.execute_command("FT.DROPINDEX", index)
    for key in list(client.scan_iter(match=prefix_pattern(keys.tag + ":"), count=1000)):
        client.rename(key, _old_name(prefix, coll, key.decode()))
    old = SimpleNamespace(
        index=keys.legacy("idx"),
        memory_prefix=keys.legacy("m") + ":",
        access_index=keys.legacy("aidx"),
        access_doc_prefix=keys.legacy("a") + ":",
    )
    client.execute_command(*_schema_args(old, params))  # type: ignore[arg-type]
    client.execute_command(*access.schema_args(old))  # type: ignore[arg-type]


def _globals_to_legacy(client, prefix: str) -> None:
    for old, new in GlobalKeys(prefix).legacy_globals().items():
        if client.exists(new):
            client.rename(new, old)


@pytest.fixture()
def legacy(settings, embedder):
    """Two collections under a private prefix, written by today's code, then renamed
    to the old layout; yields (settings, client, {collection: [(id, text)]})."""
    from houkai import MemoryStore

    s = settings.replace(key_prefix=f"hk-mig-{uuid.uuid4().hex[:6]}", pipeline_mode="inline")
    written: dict[str, list[tuple[str, str]]] = {}
    client = None
    for coll, n in (("alpha", 12), ("beta.two", 4)):
        store = MemoryStore(collection=coll, settings=s, embedder=embedder)
        client = store.client
        mems = [store.remember(f"{coll} fact number {i} about topic {i * 7}") for i in range(n)]
        store.link(mems[0].id, mems[1].id, "related")
        store.edit(mems[2].id, text=f"{coll} fact number 2, corrected")
        Pipeline(store, mode="inline").submit([{"text": f"{coll} submitted through a job"}])
        store.add_messages("s1", [{"role": "user", "content": "hello from a session"}])
        written[coll] = [(m.id, m.text) for batch in store.iter_memories() for m in batch]
        to_legacy(client, s.key_prefix, coll)
    J.heartbeat(client, s.key_prefix, "w1")
    _globals_to_legacy(client, s.key_prefix)
    yield s, client, written
    for key in list(client.scan_iter(match=prefix_pattern(s.key_prefix + ":"), count=1000)):
        client.delete(key)
    for key in list(client.scan_iter(match=prefix_pattern("{" + s.key_prefix + "}"), count=1000)):
        client.delete(key)
    for coll in written:
        for index in (Keys(s.key_prefix, coll).index, Keys(s.key_prefix, coll).access_index):
            try:
                client.execute_command("FT.DROPINDEX", index)
            except Exception:
                pass


def _legacy_sums(client, prefix: str) -> dict[str, tuple[int, str]]:
    found = LM.plan(client, prefix)
    return {
        coll: LM.checksum(client, [o for o, _ in pairs], [n for _, n in pairs])
        for coll, pairs in found.collections.items()
    }


def test_old_layout_is_refused_then_migrated_verified_and_recallable(legacy, embedder) -> None:
    from houkai import MemoryStore

    s, client, written = legacy
    with pytest.raises(LegacyLayout, match="houkai redis migrate-layout"):
        MemoryStore(collection="alpha", settings=s, embedder=embedder)
    before = _legacy_sums(client, s.key_prefix)
    assert set(before) == {"alpha", "beta.two"} and before["alpha"][0] > 12

    report = LM.migrate_layout(client, s.key_prefix, wait=60)
    assert report["ok"] and report["globals"] == 1
    rows = {r["collection"]: r for r in report["collections"]}
    for coll, (count, digest) in before.items():
        assert rows[coll]["state"] == "done"
        assert (rows[coll]["keys"], rows[coll]["checksum"]) == (count, digest)
        tagged = [
            k.decode()
            for k in client.scan_iter(match=prefix_pattern(Keys(s.key_prefix, coll).tag + ":"))
        ]
        # the new keys, digested independently, give the same count and checksum
        assert LM.checksum(client, tagged, tagged) == (count, digest)
    assert LM.plan(client, s.key_prefix).collections == {}  # no old key is left
    assert J.workers_alive(client, s.key_prefix) == 1  # the heartbeat moved with the globals

    for coll, memories in written.items():
        store = MemoryStore(collection=coll, settings=s, embedder=embedder)
        assert store.count() == len(memories)
        for memory_id, text in memories:
            found = [m.id for m, _score in store.recall(text, k=3, touch=False)]
            assert memory_id in found, (coll, text)
    alpha = MemoryStore(collection="alpha", settings=s, embedder=embedder)
    first = written["alpha"][0][0]
    assert alpha.get(first) is not None and alpha.history(first)  # journal moved too

    again = LM.migrate_layout(client, s.key_prefix, wait=60)  # a rerun is a no-op
    assert again["ok"] and again["globals"] == 0
    assert {r["state"] for r in again["collections"]} == {"skipped"}


@pytest.mark.parametrize("step", ["copy", "index"])
def test_an_interrupted_migration_resumes(legacy, embedder, step: str) -> None:
    from houkai import MemoryStore

    s, client, written = legacy
    before = _legacy_sums(client, s.key_prefix)
    with pytest.raises(LM.Interrupted):
        LM.migrate_layout(client, s.key_prefix, collections=["alpha"], wait=60, stop_after=step)
    progress = LM._progress(client, s.key_prefix, "alpha")
    assert progress["state"] == ("copying" if step == "copy" else "verified")
    assert LM.plan(client, s.key_prefix).collections["alpha"]  # old keys kept until verified

    result = CliRunner().invoke(
        cli,
        ["redis", "migrate-layout"],
        env={"HOUKAI_KEY_PREFIX": s.key_prefix, "REDIS_URL": s.redis_url},
    )
    assert result.exit_code == 0, result.output
    assert "alpha: done" in result.output and "beta.two: done" in result.output
    assert LM._progress(client, s.key_prefix, "alpha")["checksum"] == before["alpha"][1]
    store = MemoryStore(collection="alpha", settings=s, embedder=embedder)
    assert store.count() == len(written["alpha"])
    memory_id, text = written["alpha"][5]
    assert memory_id in [m.id for m, _ in store.recall(text, k=3, touch=False)]


def test_the_collections_waiting_for_the_migration_are_named(legacy, embedder) -> None:
    """``houkai up`` names them at start (one line) instead of leaving a 503 per request."""
    from houkai.db.legacy_layout import legacy_collections, legacy_notice

    s, client, _ = legacy
    assert legacy_collections(client, s.key_prefix) == ["alpha", "beta.two"]
    notice = legacy_notice(client, s.key_prefix)
    assert notice and "alpha, beta.two" in notice and "houkai redis migrate-layout" in notice
    assert LM.migrate_layout(client, s.key_prefix, wait=60)["ok"]
    assert legacy_collections(client, s.key_prefix) == []
    assert legacy_notice(client, s.key_prefix) is None
