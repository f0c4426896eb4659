"""Measure Redis memory per stored memory: HASH documents versus RedisJSON documents.

Writes *n* synthetic memories (random unit vectors of the embedder's dimension,
realistic text and metadata) under a throwaway prefix, once as HASH with
houkai's real codec and index, once as JSON with the equivalent JSON index, and
reports ``used_memory`` growth per memory (documents + index). This is the
figure behind ``docs/adr/0001-storage.md``.
"""

from __future__ import annotations

import json
import random
import time
import uuid
from dataclasses import dataclass

import numpy as np
import redis

from ..db.keys import Keys
from ..db.schema import IndexParams, drop_index, ensure_index
from ..domain.model import Memory, content_hash
from ..store import codec, lexstats
from ..store.access import drop_access_index, ensure_access_index
from ..store.search import batched
from .recall import wait_indexed

WORDS = (
    "deploy release api billing customer export unicode plan legacy service queue worker redis "
    "index vector search memory agent session user prefers concise answers python rust team "
    "meeting monday friday ticket bug fix review merge branch config token budget context"
).split()


@dataclass
class StorageResult:
    layout: str
    n: int
    bytes_per_memory: float
    seconds: float
    #: of bytes_per_memory, what the access documents and their index take (ADR 0075)
    access_bytes_per_memory: float = 0.0

    @property
    def memories_per_gb(self) -> float:
        return 1e9 / self.bytes_per_memory if self.bytes_per_memory else 0.0


def _memory(rng: random.Random, collection: str) -> Memory:
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(12, 30))).capitalize() + "."
    now = time.time() - rng.random() * 86400 * 30
    return Memory(
        id=str(uuid.uuid4()),
        text=text,
        type=rng.choice(("semantic", "episodic")),
        tags=rng.sample(WORDS, 2),
        importance=round(rng.random(), 2),
        created_at=now,
        last_accessed=now,
        collection=collection,
        content_hash=content_hash(text),
    )


def _used(client: redis.Redis) -> int:
    return int(client.info("memory")["used_memory"])


def measure_hash(
    client: redis.Redis,
    n: int,
    dim: int,
    batch: int = 1000,
    vector_type: str = "FLOAT16",
    exact: bool = False,
) -> StorageResult:
    """HASH documents; *exact*: with the FLAT field of exact KNN, as a new collection has
    while ``exact_knn_max`` > 0 (ADR 0069)."""
    keys = Keys(f"bench-{uuid.uuid4().hex[:6]}", "storage")
    rng = random.Random(7)
    nrng = np.random.default_rng(7)
    before = _used(client)
    started = time.time()
    ensure_index(
        client, keys, IndexParams(dim=dim, vector_type=vector_type, exact=exact), "bench",
        exact_upto=n,
    )  # fmt: skip
    ensure_access_index(client, keys, empty=True)  # each memory's access document too
    write = client.register_script(lexstats.WRITE_LUA)  # the store's own write path
    for start in range(0, n, batch):
        size = min(batch, n - start)
        vectors = nrng.standard_normal((size, dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        pipe = client.pipeline(transaction=False)
        for i in range(size):
            m = _memory(rng, keys.collection)
            mapping, cleared = codec.sparse_hash(m, vectors[i], vector_type)
            write(
                keys=[keys.memory(m.id), keys.lexstats, keys.access_doc(m.id)],
                args=lexstats.write_args(m.text, mapping, cleared),
                client=pipe,
            )
        pipe.execute()
    wait_indexed(client, keys.index, n, timeout=600)
    seconds = time.time() - started
    used = _used(client) - before
    drop_access_index(client, keys)  # what the access documents cost, from the same load
    for key_batch in batched(
        client.scan_iter(match=keys.access_doc_prefix + "*", count=5000), 5000
    ):
        client.unlink(*key_batch)
    time.sleep(0.5)  # UNLINK frees in the background
    access_used = used - (_used(client) - before)
    _cleanup(client, keys)
    layout = f"HASH {vector_type}" + (" + exact KNN field" if exact else "")
    return StorageResult(layout, n, used / n, seconds, access_used / n)


def measure_json(client: redis.Redis, n: int, dim: int, batch: int = 1000) -> StorageResult:
    prefix = f"bench-{uuid.uuid4().hex[:6]}:j:"
    index = prefix + "idx"
    rng = random.Random(7)
    nrng = np.random.default_rng(7)
    before = _used(client)
    started = time.time()
    client.execute_command(
        "FT.CREATE",
        index,
        "ON",
        "JSON",
        "PREFIX",
        1,
        prefix,
        "SCHEMA",
        "$.lex",
        "AS",
        "lex",
        "TEXT",
        "$.type",
        "AS",
        "type",
        "TAG",
        "$.tagk[*]",
        "AS",
        "tagk",
        "TAG",
        "$.srck",
        "AS",
        "srck",
        "TAG",
        "$.coll",
        "AS",
        "coll",
        "TAG",
        "$.state",
        "AS",
        "state",
        "TAG",
        "$.sup",
        "AS",
        "sup",
        "TAG",
        "$.chash",
        "AS",
        "chash",
        "TAG",
        "$.importance",
        "AS",
        "importance",
        "NUMERIC",
        "SORTABLE",
        "$.created_at",
        "AS",
        "created_at",
        "NUMERIC",
        "SORTABLE",
        "$.last_accessed",
        "AS",
        "last_accessed",
        "NUMERIC",
        "SORTABLE",
        "$.expires_at",
        "AS",
        "expires_at",
        "NUMERIC",
        "$.polarity",
        "AS",
        "polarity",
        "NUMERIC",
        "$.vec",
        "AS",
        "vec",
        "VECTOR",
        "HNSW",
        12,
        "TYPE",
        "FLOAT32",
        "DIM",
        dim,
        "DISTANCE_METRIC",
        "COSINE",
        "M",
        16,
        "EF_CONSTRUCTION",
        200,
        "EF_RUNTIME",
        64,
    )
    for start in range(0, n, batch):
        size = min(batch, n - start)
        vectors = nrng.standard_normal((size, dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        pipe = client.pipeline(transaction=False)
        for i in range(size):
            m = _memory(rng, "storage")
            doc: dict[str, object] = {
                k: (v.decode() if isinstance(v, bytes) else v) for k, v in codec.to_hash(m).items()
            }
            doc.update(
                importance=m.importance,
                created_at=m.created_at,
                last_accessed=m.last_accessed,
                expires_at=0.0,
                polarity=0,
                tagk=str(doc["tagk"]).split(","),
                tags=m.tags,
                links=[],
                vec=[round(float(x), 7) for x in vectors[i]],
            )
            pipe.execute_command("JSON.SET", prefix + m.id, "$", json.dumps(doc))
        pipe.execute()
    wait_indexed(client, index, n, timeout=600)
    seconds = time.time() - started
    used = _used(client) - before
    client.execute_command("FT.DROPINDEX", index)
    for key_batch in batched(client.scan_iter(match=prefix + "*", count=5000), 5000):
        client.unlink(*key_batch)
    return StorageResult("JSON", n, used / n, seconds)


def _cleanup(client: redis.Redis, keys: Keys) -> None:
    drop_index(client, keys)
    drop_access_index(client, keys)
    for prefix in (keys.memory_prefix, keys.access_doc_prefix):
        for key_batch in batched(client.scan_iter(match=prefix + "*", count=5000), 5000):
            client.unlink(*key_batch)
    client.delete(keys.meta, keys.lexstats)
    client.srem(Keys.registry(keys.prefix), keys.collection)


def main() -> None:  # pragma: no cover - manual benchmark
    import argparse

    from ..db.connection import connect

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--layouts", default="hash,json", help="comma-separated: hash,json")
    args = parser.parse_args()
    client = connect()
    measures = {"hash": measure_hash, "json": measure_json}
    for name in args.layouts.split(","):
        result = measures[name.strip()](client, args.n, args.dim)
        print(
            f"{result.layout}: n={result.n} bytes/memory={result.bytes_per_memory:,.0f} "
            f"memories/GB={result.memories_per_gb:,.0f} load+index={result.seconds:.1f}s",
            flush=True,
        )


if __name__ == "__main__":  # pragma: no cover
    main()
