"""Access folds against the server: into the memory hash (0.1) or into access documents.

Recall counts its hits in a side hash; a fold moves them to where the aggregates read
them. 0.1 folded into the memory hash, and any write to an indexed hash makes RediSearch
re-index the whole document, vector included: on identical (or near-identical) vectors
the HNSW re-insert degenerates, and one fold stalled the server for seconds (issue #27,
ADR 0075). Since ADR 0075 a fold writes a small vector-free access document.

The benchmark writes *n* memories with ONE identical vector (the worst case the probe
met: a batch of identical memories), gives each a pending access, then folds them both
ways, alternating, while a probe thread PINGs the server on its own connection: the
PING latency is how long every other client waited. Each fold is one command, timed
alone. Figures are medians over rounds, with the old/new ratio from the same run.
"""

from __future__ import annotations

import statistics
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import numpy as np
import redis

from ..domain.config import Settings
from ..domain.model import Memory, content_hash

#: 0.1's fold: the pending counts into the memory hash itself. KEYS: memory, pending
#: hash. ARGV: id, last access time.
OLD_FOLD_LUA = """
local n = tonumber(redis.call('HGET', KEYS[2], 'n:' .. ARGV[1]) or '0') or 0
redis.call('HDEL', KEYS[2], 'n:' .. ARGV[1], 't:' .. ARGV[1])
if n == 0 or redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HINCRBY', KEYS[1], 'access_count', n)
redis.call('HSET', KEYS[1], 'last_accessed', ARGV[2])
return n
"""

MODES = ("memory-hash", "access-doc")


class _Prober(threading.Thread):
    """PINGs on its own connection every *interval* seconds; keeps each latency."""

    def __init__(self, client: Any, interval: float = 0.005) -> None:
        super().__init__(daemon=True)
        self.client, self.interval = client, interval
        self.samples: list[float] = []
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            started = time.perf_counter()
            self.client.ping()
            self.samples.append(time.perf_counter() - started)
            self._stop_event.wait(self.interval)

    def stop(self) -> list[float]:
        self._stop_event.set()
        self.join()
        return self.samples


def _pct(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] if ordered else 0.0


def _fold(store: Any, mode: str, ids: list[str]) -> dict[str, float]:
    """Touch every memory once, then fold each one by one command, timed alone."""
    now = time.time()
    store.touch_many([Memory(id=i, text="") for i in ids], now=now)
    old = store.client.register_script(OLD_FOLD_LUA)
    pool = store.client.connection_pool
    own = redis.Redis(
        connection_pool=type(pool)(connection_class=pool.connection_class, **pool.connection_kwargs)
    )
    prober = _Prober(own)
    times: list[float] = []
    prober.start()
    started = time.perf_counter()
    for memory_id in ids:
        t0 = time.perf_counter()
        if mode == "memory-hash":
            old(keys=[store.keys.memory(memory_id), store.keys.access], args=[memory_id, repr(now)])
        else:
            store.fold_ids([memory_id])
        times.append(time.perf_counter() - t0)
    total = time.perf_counter() - started
    pings = prober.stop()
    own.close()
    return {
        "fold_p50_ms": 1000 * statistics.median(times),
        "fold_p99_ms": 1000 * _pct(times, 0.99),
        "fold_max_ms": 1000 * max(times),
        "fold_total_s": total,
        "ping_p99_ms": 1000 * _pct(pings, 0.99),
        "ping_max_ms": 1000 * max(pings, default=0.0),
    }


def run(
    settings: Settings,
    *,
    n: int = 20_000,
    rounds: int = 3,
    progress: Callable[[str], None] = lambda _m: None,
) -> dict[str, Any]:
    """Fold *n* identical memories both ways for *rounds* rounds; medians and ratios."""
    from ..store import MemoryStore

    store = MemoryStore(collection=f"bench-folds-{uuid.uuid4().hex[:8]}", settings=settings)
    try:
        dim = int(store.index_params.dim)
        vector = np.full((1, dim), 1.0 / np.sqrt(dim), dtype=np.float32)
        ids: list[str] = []
        for start in range(0, n, 1000):
            chunk = [
                Memory(
                    id=str(uuid.uuid4()),
                    text="the nightly backup finished",
                    content_hash=content_hash("x"),
                )
                for _ in range(min(1000, n - start))
            ]
            store.write(chunk, np.repeat(vector, len(chunk), axis=0))
            ids += [m.id for m in chunk]
            progress(f"writing {len(ids):,}/{n:,} identical memories")
        per_mode: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES}
        for r in range(rounds):
            for mode in MODES if r % 2 == 0 else reversed(MODES):
                progress(f"round {r + 1}/{rounds}: folding into the {mode}")
                per_mode[mode].append(_fold(store, mode, ids))
        medians = {
            mode: {k: statistics.median(row[k] for row in rows) for k in rows[0]}
            for mode, rows in per_mode.items()
        }
        old, new = medians["memory-hash"], medians["access-doc"]
        ratios = {k: (old[k] / new[k] if new[k] else float("inf")) for k in old}
        return {"n": n, "rounds": rounds, "medians": medians, "old_over_new": ratios}
    finally:
        store.drop()


def lines(result: dict[str, Any]) -> list[str]:
    keys = [
        "fold_p50_ms",
        "fold_p99_ms",
        "fold_max_ms",
        "fold_total_s",
        "ping_p99_ms",
        "ping_max_ms",
    ]
    out = [
        f"{result['n']:,} identical memories, one pending access each; medians of "
        f"{result['rounds']} rounds",
        f"{'fold into':<14}" + "".join(f"{k:>14}" for k in keys),
    ]
    for mode, row in result["medians"].items():
        out.append(f"{mode:<14}" + "".join(f"{row[k]:>14.3f}" for k in keys))
    out.append(f"{'old / new':<14}" + "".join(f"{result['old_over_new'][k]:>14.1f}" for k in keys))
    return out
