"""Per-collection vector types: FLOAT16 for new collections, old ones keep FLOAT32, and the
resumable in-place migration between them."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from houkai import MemoryStore
from houkai.bench.scale import Corpus, _vectors_only, exact_topk
from houkai.cli import cli
from houkai.db.keys import Keys
from houkai.db.schema import read_meta
from houkai.domain.config import set_settings
from houkai.domain.errors import CollectionMigrating
from houkai.domain.model import Memory
from houkai.store import codec
from houkai.store.migrate import migrate_vectors


def _index_type(store: MemoryStore) -> str:
    info = store.client.execute_command("FT.INFO", store.keys.index)
    text = repr(info)
    for name in ("BFLOAT16", "FLOAT16", "FLOAT32"):
        if f"b'{name}'" in text:
            return name
    raise AssertionError(text)


def _wait_indexed(store: MemoryStore, n: int) -> None:
    deadline = time.time() + 30
    while store.count() < n and time.time() < deadline:
        time.sleep(0.05)


def _legacy_store(settings, name: str) -> MemoryStore:
    """A collection as written before vector types existed: FLOAT32, no vector_type."""
    store = MemoryStore(collection=name, settings=settings.replace(vector_type="FLOAT32"))
    store.client.hdel(store.keys.meta, "vector_type")
    store.client.hset(store.keys.meta, "schema_version", 1)
    return store


@pytest.mark.parametrize("vtype", ["FLOAT16", "BFLOAT16"])
def test_codec_round_trip_16_bit(vtype: str) -> None:
    rng = np.random.default_rng(1)
    vec = rng.standard_normal(384).astype(np.float32)
    vec /= np.linalg.norm(vec)
    blob = codec.vector_bytes(vec, vtype)
    assert len(blob) == 384 * 2
    back = codec.vector_from_bytes(blob, vtype, 384)
    assert back is not None and back.dtype == np.float32
    assert float(back @ vec) > 0.9999
    # a FLOAT32 blob (mid-migration) still reads correctly when the dimension is known
    assert np.array_equal(codec.vector_from_bytes(vec.tobytes(), vtype, 384), vec)


def test_new_collection_stores_float16(store: MemoryStore) -> None:
    m = store.remember("The deploy runbook lives in the ops wiki.")
    assert store.vector_type == "FLOAT16"
    assert read_meta(store.client, store.keys)["vector_type"] == "FLOAT16"
    assert _index_type(store) == "FLOAT16"
    assert store.client.hstrlen(store.keys.memory(m.id), "vec") == store.index_params.dim * 2
    hits = store.recall("where is the deploy runbook?", k=1)
    assert hits and hits[0][0].id == m.id and hits[0][1] > 0.5
    again = store.get(m.id, with_vector=True)
    assert again is not None and len(again.embedding or []) == store.index_params.dim


def test_existing_float32_collection_keeps_its_type(settings, embedder) -> None:
    name = f"t-{uuid.uuid4().hex[:10]}"
    legacy = _legacy_store(settings, name)
    try:
        first = legacy.remember("Legacy memory about the billing export.")
        signature = read_meta(legacy.client, legacy.keys)["signature"]
        reopened = MemoryStore(collection=name, settings=settings)  # default FLOAT16
        assert reopened.vector_type == "FLOAT32"
        assert read_meta(reopened.client, reopened.keys)["signature"] == signature
        second = reopened.remember("Another memory about the billing export.")
        dim = reopened.index_params.dim
        for m in (first, second):
            assert reopened.client.hstrlen(reopened.keys.memory(m.id), "vec") == dim * 4
        assert _index_type(reopened) == "FLOAT32"
        assert {h[0].id for h in reopened.recall("billing export", k=5)} == {first.id, second.id}
    finally:
        legacy.drop()


def test_migrate_float32_to_float16_resumes_after_interruption(settings, embedder) -> None:
    name = f"t-{uuid.uuid4().hex[:10]}"
    legacy = _legacy_store(settings, name)
    try:
        texts = [f"Note {i}: the {w} service owns queue {i}." for i, w in enumerate("abcdefgh")]
        ids = [legacy.remember(t).id for t in texts]
        keys = legacy.keys

        def boom(scanned: int, converted: int) -> None:
            if converted:
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            migrate_vectors(legacy.client, keys, "FLOAT16", batch_size=2, progress=boom)
        with pytest.raises(CollectionMigrating, match="collections migrate"):
            MemoryStore(collection=name, settings=settings)
        result = migrate_vectors(legacy.client, keys, "FLOAT16", batch_size=3)
        assert result.source == "FLOAT32" and result.target == "FLOAT16"
        assert 0 < result.converted < len(ids)  # the first run's work is not redone
        dim = legacy.index_params.dim
        assert all(legacy.client.hstrlen(keys.memory(i), "vec") == dim * 2 for i in ids)
        store = MemoryStore(collection=name, settings=settings)
        assert store.vector_type == "FLOAT16" and _index_type(store) == "FLOAT16"
        _wait_indexed(store, len(ids))
        assert store.recall(texts[3], k=1)[0][0].id == ids[3]
        assert "migrating_to" not in read_meta(store.client, keys)
        assert not migrate_vectors(store.client, keys, "FLOAT16").changed
        with pytest.raises(ValueError, match="FLOAT32 first"):
            migrate_vectors(store.client, keys, "BFLOAT16")
    finally:
        legacy.client.hdel(legacy.keys.meta, "migrating_to")
        legacy.drop()


def test_cli_collections_migrate(settings, embedder, tmp_path: Path) -> None:
    name = f"t-{uuid.uuid4().hex[:10]}"
    legacy = _legacy_store(settings, name)
    env = {
        "REDIS_URL": settings.redis_url,
        "HOUKAI_KEY_PREFIX": settings.key_prefix,
        "HOUKAI_DATA_DIR": settings.data_dir,
        "HOUKAI_CONFIG": str(tmp_path / "absent.toml"),
        "HOUKAI_COLLECTION": name,
    }
    try:
        legacy.remember("A memory to migrate.")
        runner = CliRunner()
        result = runner.invoke(cli, ["collections", "migrate", name, "-y"], env=env)
        assert result.exit_code == 0, result.output
        assert "FLOAT32 to FLOAT16" in result.output
        assert read_meta(legacy.client, Keys(settings.key_prefix, name))["vector_type"] == "FLOAT16"
        missing = runner.invoke(cli, ["collections", "migrate", "no-such-coll", "-y"], env=env)
        assert missing.exit_code == 1 and "Error: no collection named" in missing.output
    finally:
        set_settings(settings)
        legacy.drop()


def test_sparse_numbers_are_not_stored(store: MemoryStore) -> None:
    plain = store.remember("No expiry, no polarity.")
    raw = store.client.hgetall(store.keys.memory(plain.id))
    assert not {b"expires_at", b"polarity", b"superseded_at"} & set(raw)
    got = store.get(plain.id)
    assert got is not None and got.expires_at == 0.0 and got.polarity == 0
    expiring = store.remember("Gone soon.", expires_at=time.time() + 3600, polarity=1)
    assert store.get(expiring.id).polarity == 1  # type: ignore[union-attr]
    ids = {m.id for m in store.list_recent(10)}
    assert {plain.id, expiring.id} <= ids


def test_scale_bench_corpus_is_deterministic_and_exact_search_streams() -> None:
    rng = np.random.default_rng(3)
    base = rng.standard_normal((50, 16)).astype(np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    texts = [Memory(id=str(i), text=f"base text number {i} about topic {i % 7}") for i in range(50)]
    corpus = Corpus(texts, base, now=1_700_000_000.0)
    memories, vecs = corpus.chunk(1000, 1000, seed=5)
    assert len(memories) == 1000 and memories[0].text.endswith("(ref 0001000).")
    assert np.allclose(vecs, _vectors_only(corpus, 1000, 1000, seed=5))
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    q = rng.standard_normal((3, 16)).astype(np.float32)
    full = _vectors_only(corpus, 0, 45_000, seed=5)
    want = np.argsort(-(q @ full.T), axis=1)[:, :10]
    got = exact_topk(corpus, 45_000, 5, q, 10)
    for row_want, row_got in zip(want, got, strict=True):
        assert set(row_want.tolist()) == set(row_got.tolist())
