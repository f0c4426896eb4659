"""Redis restarts (SIGKILL + start on the same data dir) under a running ingest, again
and again (issue 27, item 4): the worker stays alive and nothing acknowledged is lost.

Each round submits a job, lets the AOF hold it (appendfsync everysec), kills Redis while
embed tasks are in flight, starts it again and waits for the job; a task that outlived
the outage acks on its closed broker channel, which used to end the worker once in about
ten restarts. ``HOUKAI_TEST_RESTARTS`` sets the rounds (default 4; the README's figure
is 20). Prints the figures the README's Reliability section quotes.
"""

from __future__ import annotations

import os
import signal
import statistics
import time
from pathlib import Path

import pytest
from test_kill import Private, _store, _wait_worker

from houkai.db import server as redis_server
from houkai.pipeline.jobs import workers_alive
from houkai.pipeline.write import Pipeline
from houkai.store.search import total

ROUNDS = int(os.environ.get("HOUKAI_TEST_RESTARTS", "4"))
ITEMS, BATCH = 120, 10


def _crash(p: Private) -> None:
    """SIGKILL the data dir's server (by its runtime file: a busy one may not answer)."""
    live = redis_server.live_state(Path(p.data_dir))
    assert live is not None
    os.kill(live[1], signal.SIGKILL)
    while redis_server._pid_alive(live[1]):
        time.sleep(0.05)


@pytest.mark.slow
def test_redis_restarts_under_ingest_leave_the_worker_alive_and_lose_nothing(tmp_path, settings):
    p = Private(tmp_path, settings)
    p.settings = p.settings.replace(embedder="hash:384:delay=0.3")
    try:
        store = _store(p)
        worker = p.start("worker", "-c", "2", "-l", "warning")
        beat = p.start("beat", "-l", "warning")
        _wait_worker(store.client, p, worker)
        pipe = Pipeline(store, mode="celery")
        acked: set[str] = set()
        recoveries: list[float] = []
        for round_ in range(ROUNDS):
            job = pipe.submit(
                [f"restart {round_} item {i}" for i in range(ITEMS)], batch_size=BATCH
            )
            acked |= {i for _pos, ids in pipe.jobs_store.iter_ids(job.id) for i in ids}
            time.sleep(1.2)  # the AOF holds the acknowledged writes; tasks are in flight
            _crash(p)
            time.sleep(1.0)
            restarted = redis_server.start(p.data_dir)
            started = time.monotonic()
            status = pipe.wait(job, timeout=300)  # a lost publish waits for the outbox sweep
            recoveries.append(time.monotonic() - started)
            assert status.state == "done", (round_, status)
            assert worker.poll() is None, p.log_of(worker)[-3000:]
            assert redis_server.servers_in(p.data_dir) == [restarted.pid]
        deadline = time.monotonic() + 30
        while workers_alive(store.client, p.prefix) == 0:  # its heartbeat is back
            assert time.monotonic() < deadline, "no live worker after the restarts"
            time.sleep(0.2)
        lost = [i for i in acked if not store.client.exists(store.keys.memory(i))]
        ready = total(store.client, store.keys.index, "@state:{ready}")
        log = p.log_of(worker)
        assert lost == [] and ready == len(acked) == ROUNDS * ITEMS
        assert worker.poll() is None and beat.poll() is None
        assert "Unrecoverable error" not in log, log[-3000:]
        print(
            f"\n{ROUNDS} Redis restarts under ingest ({ITEMS} items a round): lost 0 of "
            f"{len(acked)} acknowledged, all ready; worker alive; job done after a restart "
            f"in median {statistics.median(recoveries):.1f}s (max {max(recoveries):.1f}s); "
            f"late acks settled: {log.count('closed broker channel settled')}, left to the "
            f"sweep: {log.count('closed broker channel failed')}"
        )
    finally:
        p.close()
