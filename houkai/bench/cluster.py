"""``houkai bench cluster``: one node against a local 3-master Redis Cluster (ADR 0079).

The same collection is written and recalled through REST (Flask's test client, the real
routes and service) on the configured single node and on a private cluster this run
starts from the same wheels; then the balance of collections over the shards for 10 and
100 collections, the time a slot move takes with a reader and a writer running (503s
seen, wrong answers, acknowledged writes lost), and the layout migration's rate. On two
shared cores expect overhead, not speed: the point is what the cluster costs and that
the moves stay correct.
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any

from ..db import cluster
from ..db.keys import Keys
from ..domain.config import Settings

TOPICS = ["deploys", "billing", "search", "auth", "storage", "queues", "caching", "alerts"]


def _texts(n: int) -> list[str]:
    return [
        f"note {i}: the {TOPICS[i % len(TOPICS)]} service runs on host h{i % 37} in zone z{i % 5}"
        for i in range(n)
    ]


def _door(settings: Settings, n: int, queries: int) -> dict[str, Any]:
    """Ingest *n* memories and time *queries* recalls through the REST routes."""
    from ..api.rest import create_app
    from ..app.service import MemoryService

    name = f"bench-cl-{uuid.uuid4().hex[:6]}"
    s = settings.replace(collection=name, pipeline_mode="inline")
    service = MemoryService(s, actor="bench")
    http = create_app(s, service, tokens="").test_client()
    texts = _texts(n)
    started = time.perf_counter()
    for start in range(0, n, 100):
        items = [{"text": t} for t in texts[start : start + 100]]
        r = http.post("/memories/batch", json={"items": items, "wait": True})
        if r.status_code >= 300:  # no batch route: one at a time
            for item in items:
                http.post("/memories", json={**item, "wait": True})
    ingest = time.perf_counter() - started
    lat = []
    for i in range(queries):
        t0 = time.perf_counter()
        r = http.get(f"/recall?query=which+host+runs+note+{i}&k=5")
        lat.append((time.perf_counter() - t0) * 1000)
        assert r.status_code == 200, r.get_json()
    service.store(name).drop()
    lat.sort()
    return {
        "ingest_per_s": round(n / ingest, 1),
        "recall_p50_ms": round(statistics.median(lat), 2),
        "recall_p95_ms": round(lat[int(0.95 * (len(lat) - 1))], 2),
    }


def _median(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {k: round(statistics.median(r[k] for r in rows), 2) for k in rows[0]}


def _balance(client: Any, prefix: str, counts: tuple[int, ...]) -> dict[str, Any]:
    out = {}
    for count in counts:
        shards = Counter(
            cluster.shard_of(client, Keys(prefix, f"tenant-{i}").index) for i in range(count)
        )
        out[str(count)] = {
            "per_shard": dict(sorted(shards.items())),
            "min": min(shards.values()),
            "max": max(shards.values()),
        }
    return out


def _move(settings: Settings, n: int) -> dict[str, Any]:
    from ..db.cluster_client import SlotMoving
    from ..store import MemoryStore

    store = MemoryStore(collection=f"bench-mv-{uuid.uuid4().hex[:6]}", settings=settings)
    texts = _texts(n)
    ids = [m.id for m in store.remember_many(texts)]
    client = store.client
    slot = client.keyslot(store.keys.tag)
    source = cluster.owner_port(client, slot)
    target = next(p.port for p in client.get_primaries() if p.port != source)
    seen = {"right": 0, "moving": 0, "wrong": 0, "write_errors": 0}
    acked: list[str] = []
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            try:
                hits = store.recall(texts[1], k=1, touch=False)
                seen["right" if hits and hits[0][0].id == ids[1] else "wrong"] += 1
            except SlotMoving:
                seen["moving"] += 1

    def writer() -> None:
        while not stop.is_set():
            try:
                acked.append(store.remember(f"written while moving {len(acked)}").id)
            except Exception:
                seen["write_errors"] += 1

    threads = [threading.Thread(target=reader), threading.Thread(target=writer)]
    for t in threads:
        t.start()
    try:
        moved = cluster.move_slot(client, settings.key_prefix, slot, target)
    finally:
        stop.set()
        for t in threads:
            t.join()
    lost = sum(1 for memory_id in ids + acked if store.get(memory_id) is None)
    result = {
        "memories": n,
        "keys_moved": moved["keys"],
        "seconds": moved["seconds"],
        "acked_writes_during_move": len(acked),
        "acked_writes_lost": lost,
        **seen,
    }
    store.drop()
    return result


def run(
    settings: Settings,
    *,
    n: int = 1000,
    queries: int = 100,
    rounds: int = 3,
    progress: Callable[[str], None] = lambda _m: None,
) -> dict[str, Any]:
    from ..engines.embeddings import get_embedder

    get_embedder().encode(["warm up the model before anything is timed"])
    base = tempfile.mkdtemp(prefix="houkai-bench-cluster-")
    progress("starting a local 3-master cluster")
    info = cluster.start(base, masters=3)
    try:
        on_cluster = settings.replace(
            redis_url=info.url,
            broker_url=settings.broker_url or settings.redis_url or "redis://127.0.0.1:1",
            key_prefix=f"benchcl{uuid.uuid4().hex[:6]}",
        )
        runs: dict[str, list[dict[str, Any]]] = {"single": [], "cluster": []}
        for r in range(rounds):  # alternated, so load drifts hit both alike
            progress(f"round {r + 1}/{rounds}, one node: {n} memories through REST")
            one = settings.replace(key_prefix=f"benchsn{uuid.uuid4().hex[:6]}")
            runs["single"].append(_door(one, n, queries))
            progress(f"round {r + 1}/{rounds}, cluster: {n} memories through REST")
            runs["cluster"].append(_door(on_cluster, n, queries))
        single, multi = _median(runs["single"]), _median(runs["cluster"])
        from ..db.connection import connect

        balance = _balance(connect(info.url), on_cluster.key_prefix, (10, 100))
        progress(f"slot move of a {n}-memory collection under reads and writes")
        move = _move(on_cluster, n)
    finally:
        cluster.stop(base)
    return {
        "n": n,
        "queries": queries,
        "rounds": rounds,
        "single_node": single,
        "cluster_3_masters": multi,
        "balance": balance,
        "slot_move": move,
    }


def lines(result: dict[str, Any]) -> list[str]:
    s, c = result["single_node"], result["cluster_3_masters"]
    out = [
        f"{result['n']:,} memories, {result['queries']} recalls, through REST "
        f"(medians of {result['rounds']} alternated rounds)",
        f"{'':<18}{'ingest/s':>10}{'p50 ms':>10}{'p95 ms':>10}",
        f"{'one node':<18}{s['ingest_per_s']:>10}{s['recall_p50_ms']:>10}{s['recall_p95_ms']:>10}",
        f"{'3-master cluster':<18}{c['ingest_per_s']:>10}{c['recall_p50_ms']:>10}"
        f"{c['recall_p95_ms']:>10}",
    ]
    for count, row in result["balance"].items():
        out.append(f"{count} collections per shard: {list(row['per_shard'].values())}")
    m = result["slot_move"]
    out.append(
        f"slot move: {m['keys_moved']} keys in {m['seconds']} s; recalls right {m['right']}, "
        f"503 {m['moving']}, wrong {m['wrong']}; writes acked {m['acked_writes_during_move']}, "
        f"lost {m['acked_writes_lost']}, refused {m['write_errors']}"
    )
    return out
