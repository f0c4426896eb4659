"""Job records through plain redis-py vs redis-om's ``HashModel`` (ADR 0038).

Writes and reads the same job hash (``<prefix>:job:<id>``, the layout of
:mod:`houkai.pipeline.jobs`) both ways against one Redis, alternating the two
sides per round so machine noise hits both, and prints ops/s medians and the
same-run ratio. Also times ``import redis_om`` in a fresh interpreter (what
a CLI command would pay if a door imported it).

``python -m houkai.bench.records --redis-url redis://127.0.0.1:PORT``
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import uuid
from typing import Any

import redis

from ..pipeline.jobs import JobStore


def _om_model(url: str, prefix: str) -> Any:
    from redis_om import Field, HashModel, Migrator, get_redis_connection

    # redis-om 1.x saves indexed models only
    class JobRecord(HashModel, index=True):  # type: ignore[call-arg]
        id: str = Field(primary_key=True)
        kind: str
        collection: str
        total: int
        done: int = 0
        failed: int = 0
        rejected: int = 0
        skipped: int = 0
        cancelled: int = 0
        on_conflict: str = "ignore"
        created_at: float
        updated_at: float
        requeued_at: float = 0.0

        class Meta:
            global_key_prefix = prefix
            model_key_prefix = "job"
            database = get_redis_connection(url=url, decode_responses=True)

    Migrator().run()  # the model's RediSearch index, as a deployment would create it
    return JobRecord


def _rate(fn: Any, n: int) -> float:
    start = time.perf_counter()
    for i in range(n):
        fn(i)
    return n / (time.perf_counter() - start)


def import_seconds(module: str) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def run(url: str, n: int = 2000, rounds: int = 5) -> dict[str, float]:
    client = redis.Redis.from_url(url)
    prefix = f"benchrec{uuid.uuid4().hex[:6]}"
    jobs = JobStore(client, prefix, "c")
    model = _om_model(url, prefix)
    now = time.time()
    plain_ids = [f"p{i}" for i in range(n)]
    om_ids = [f"o{i}" for i in range(n)]
    rates: dict[str, list[float]] = {k: [] for k in ("plain_w", "om_w", "plain_r", "om_r")}
    for _ in range(rounds):
        rates["plain_w"].append(
            _rate(lambda i: jobs.create("c", "remember", 10, "ignore", plain_ids[i]), n)
        )
        rates["om_w"].append(
            _rate(
                lambda i: model(
                    id=om_ids[i],
                    kind="remember",
                    collection="c",
                    total=10,
                    created_at=now,
                    updated_at=now,
                ).save(),
                n,
            )
        )
        rates["plain_r"].append(_rate(lambda i: jobs.status(plain_ids[i], with_lists=False), n))
        rates["om_r"].append(_rate(lambda i: model.get(om_ids[i]), n))
    client.execute_command("FT.DROPINDEX", model.Meta.index_name)
    for batch in range(0, 2 * n, 500):
        keys = [jobs.keys(x).hash for x in plain_ids[batch : batch + 500]]
        keys += [f"{prefix}:job:{x}" for x in om_ids[batch : batch + 500]]  # redis-om's own
        client.delete(*keys, jobs.index_key())
    out = {k: statistics.median(v) for k, v in rates.items()}
    out["write_ratio_om_over_plain"] = out["om_w"] / out["plain_w"]
    out["read_ratio_om_over_plain"] = out["om_r"] / out["plain_r"]
    out["import_redis_om_s"] = statistics.median(import_seconds("redis_om") for _ in range(3))
    out["import_redis_s"] = statistics.median(import_seconds("redis") for _ in range(3))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--redis-url", required=True)
    parser.add_argument("-n", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    for key, value in run(args.redis_url, args.n, args.rounds).items():
        print(f"{key:28s} {value:12.3f}")


if __name__ == "__main__":
    main()
