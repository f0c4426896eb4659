"""Scheduled maintenance: tick semantics (seed §17) with state and lock in Redis."""

from __future__ import annotations

import json
import threading
import time

import pytest
from click.testing import CliRunner

from houkai.cli import cli
from houkai.domain.config import set_settings
from houkai.pipeline import maintenance
from houkai.pipeline.maintenance import JOB_NAMES, MaintenanceState, status, tick
from houkai.pipeline.write import Pipeline


def test_due_jobs_run_once_then_wait_for_their_interval(store):
    store.remember("a note that expires", ttl_seconds=1)
    store.remember("a lasting note about the deploy process", type="procedural")
    t = time.time() + 5  # the TTL has passed at t
    first = tick(store, now=t)
    assert all(getattr(first, f"ran_{job}") for job in JOB_NAMES), first.to_dict()
    assert first.purged == 1 and first.purge_error is None
    assert first.reflect_applied is False and first.reflect_error is None
    d = first.to_dict()
    for key in (
        "summary",
        "ran_decay",
        "ran_reflect",
        "ran_purge",
        "decayed",
        "reflected",
        "purged",
        "reflect_applied",
        "decay_error",
        "reflect_error",
        "purge_error",
    ):
        assert key in d
    assert "(dry-run)" in d["summary"]

    again = tick(store, now=t + 1)
    assert not any(getattr(again, f"ran_{job}") for job in JOB_NAMES)
    assert again.summary() == "nothing to do"

    later = tick(store, now=t + 301)  # past reconcile's 5 min, not the 24 h jobs
    assert later.ran_reconcile and not later.ran_decay and not later.ran_purge
    assert not later.ran_reflect  # a dry-run reflection still stamps its schedule

    forced = tick(store, now=t + 302, force=True)
    assert forced.ran_decay and forced.ran_reflect and forced.ran_archive


def test_failed_job_does_not_advance_and_never_blocks_others(store, monkeypatch):
    calls: list[str] = []

    def broken(*_args):
        calls.append("decay")
        raise RuntimeError("decay engine exploded")

    monkeypatch.setitem(maintenance.RUNNERS, "decay", broken)
    t = time.time()
    first = tick(store, now=t)
    assert first.ran_decay and "exploded" in first.decay_error
    assert first.ran_purge and first.purge_error is None
    assert first.ran_reconcile and first.ran_archive
    info = status(store, now=t)["jobs"]
    assert info["decay"]["last_success"] is None and "exploded" in info["decay"]["last_error"]
    assert info["purge"]["last_success"] == pytest.approx(t)

    retry = tick(store, now=t + 1)  # decay retries on the very next tick; others wait
    assert retry.ran_decay and not retry.ran_purge and calls == ["decay", "decay"]
    monkeypatch.undo()
    healed = tick(store, now=t + 2)
    assert healed.ran_decay and healed.decay_error is None
    assert not tick(store, now=t + 3).ran_decay
    runs = MaintenanceState(store).runs()
    decay_runs = [r for r in runs if r["job"] == "decay"]
    assert [r["ok"] for r in decay_runs] == [True, False, False]  # newest first
    assert all("duration" in r and "count" in r for r in runs)


def test_concurrent_ticks_never_double_run(store, monkeypatch):
    counter: list[int] = []
    real = maintenance.RUNNERS["purge"]

    def slow_purge(*args):
        counter.append(1)
        time.sleep(0.3)
        return real(*args)

    monkeypatch.setitem(maintenance.RUNNERS, "purge", slow_purge)
    results = []

    def run():
        results.append(tick(store, lock_wait=10))

    threads = [threading.Thread(target=run) for _ in range(3)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(counter) == 1
    assert sum(r.ran_purge for r in results) == 1
    skipped = tick(store, lock_wait=0)  # nothing running, nothing due
    assert not skipped.locked and not skipped.ran_purge


def test_lock_held_elsewhere_skips_without_waiting(store):
    state = MaintenanceState(store)
    token = state.acquire()
    try:
        result = tick(store, lock_wait=0)
        assert result.locked and "another maintenance tick" in result.summary()
    finally:
        state.release(token)
    assert tick(store).ran_purge


def test_disabled_jobs_and_intervals_come_from_settings(make_store, settings):
    custom = settings.replace(
        maintenance_decay_enabled=False,
        maintenance_reflect_enabled=False,
        maintenance_archive_every="0",
        maintenance_reconcile_every="2h",
    )
    store = make_store()
    result = tick(store, custom)
    assert not result.ran_decay and not result.ran_reflect and not result.ran_archive
    assert result.ran_purge and result.ran_reconcile
    info = status(store, custom)["jobs"]
    assert info["decay"]["enabled"] is False and info["reconcile"]["every"] == "2h"
    assert info["reconcile"]["next_due"] == pytest.approx(info["reconcile"]["last_success"] + 7200)


def test_reconcile_job_recovers_pending_memories(store, settings):
    class Blackhole:
        def send_task(self, *args, **kwargs):
            return None

    lost = Pipeline(store, mode="celery", app=Blackhole())
    job = lost.submit(["stranded while the broker was flushed"])
    fast = settings.replace(reconcile_after="0s", pipeline_mode="inline")
    store.settings = fast  # the reconcile job's Pipeline reads the store's settings
    try:
        result = tick(store, fast)
    finally:
        store.settings = settings
    assert result.reconciled == 1 and result.reconcile_error is None
    assert store.get(job.memory_ids[0]).state == "ready"


def test_cli_tick_status_and_jobs(store, settings):
    runner = CliRunner()
    env = {
        "HOUKAI_REDIS_URL": settings.redis_url,
        "HOUKAI_KEY_PREFIX": settings.key_prefix,
        "HOUKAI_DATA_DIR": settings.data_dir,
        "HOUKAI_CONFIG": "/nonexistent.toml",
        "HOUKAI_PIPELINE_MODE": "inline",
        "HOUKAI_JOURNAL_ARCHIVE_DIR": settings.journal_archive_dir,
    }
    base = ["--collection", store.collection_name]
    try:
        out = runner.invoke(cli, [*base, "maintenance", "tick", "--json"], env=env)
        assert out.exit_code == 0, out.output
        data = json.loads(out.output)
        assert data["ran_purge"] and "summary" in data
        out = runner.invoke(cli, [*base, "maintenance", "status", "--json"], env=env)
        assert out.exit_code == 0, out.output
        assert json.loads(out.output)["jobs"]["purge"]["last_success"]

        out = runner.invoke(
            cli,
            [*base, "ingest", "-", "--no-wait", "--json"],
            input="Stdin notes: the cache is warmed nightly.",
            env=env,
        )
        assert out.exit_code == 0, out.output
        job = json.loads(out.output.splitlines()[-1])
        assert job["state"] == "done" and job["done"] == 1
        out = runner.invoke(cli, [*base, "jobs", "list", "--json"], env=env)
        assert [j["id"] for j in json.loads(out.output)] == [job["id"]]
        out = runner.invoke(cli, [*base, "jobs", "show", job["id"], "--json"], env=env)
        assert json.loads(out.output)["memory_ids"] == job["memory_ids"]
        out = runner.invoke(cli, [*base, "jobs", "show", "nope"], env=env)
        assert out.exit_code == 1 and "no job" in out.output
        out = runner.invoke(cli, [*base, "jobs", "retry", job["id"]], env=env)
        assert out.exit_code == 0 and "re-queued 0" in out.output
    finally:
        set_settings(settings)
