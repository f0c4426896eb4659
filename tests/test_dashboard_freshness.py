"""The dashboard's collection-wide figures: stale-while-revalidate, and always caught up.

``GET /overview``, ``/facets`` and ``/growth`` answer at once with the last figures
computed (``as_of``, ``stale``) and recount in a background thread; once it is done
they must equal a memory-by-memory recount after every kind of change: a write, a
delete, an edit, a supersede, an expiry (no write at all), a purge and an import.
"""

from __future__ import annotations

import tempfile
import threading
import time
import uuid
from collections import Counter

import pytest
from houkai.api.rest import create_app

from houkai.app.service import MemoryService
from houkai.engines.embeddings import HashEmbedder
from houkai.store import MemoryStore, observability

TOKEN = "fresh-rw"
DAY = 86400


class Fresh:
    def __init__(self, settings) -> None:
        self.collection = f"f-{uuid.uuid4().hex[:8]}"
        self.settings = settings.replace(
            key_prefix=settings.key_prefix + "-fresh",
            embedder="hash:384",
            collection=self.collection,
            pipeline_mode="inline",
        )
        self.store = self.open_store()
        self.app = self.make_app(self.store)

    def open_store(self) -> MemoryStore:
        return MemoryStore(
            collection=self.collection, settings=self.settings, embedder=HashEmbedder(384)
        )

    def make_app(self, store: MemoryStore):
        service = MemoryService(self.settings, actor="http")
        service._stores[self.collection] = store
        return create_app(self.settings, service, tokens=TOKEN).test_client()

    def get(self, path: str, client=None) -> dict:
        reply = (client or self.app).get(path, headers={"Authorization": f"Bearer {TOKEN}"})
        assert reply.status_code == 200, reply.get_data(as_text=True)
        return reply.get_json()

    def settled(self) -> dict[str, dict]:
        """Every view's figures once no background recount is left to run."""
        for _ in range(5):
            out = {p: self.get(p) for p in ("/overview", "/facets", "/growth?bucket=day")}
            if not any(v["stale"] for v in out.values()):
                return out
            assert self.store.wait_refreshes(60)
        raise AssertionError(f"still stale: {out}")


def recount(store: MemoryStore) -> dict:
    """The figures the dashboard shows, counted memory by memory."""
    now = time.time()
    everyone = [m for batch in store.iter_memories("*") for m in batch]
    active = [m for m in everyone if not m.superseded_by]
    per_day = Counter(int(m.created_at // DAY) * DAY for m in everyone)
    running, series = 0, []
    for day in sorted(per_day):
        running += per_day[day]
        series.append({"t": day, "n": per_day[day], "total": running})
    return {
        "total": len(everyone),
        "active": len(active),
        "superseded": len(everyone) - len(active),
        "expired": sum(1 for m in everyone if m.expires_at and m.expires_at <= now),
        "by_type": dict(Counter(m.type for m in active)),
        "series": series,
    }


def assert_agrees(fresh: Fresh) -> None:
    views = fresh.settled()
    want = recount(fresh.store)
    overview, facets, growth = views["/overview"], views["/facets"], views["/growth?bucket=day"]
    got = {k: overview[k] for k in ("total", "active", "superseded", "expired", "by_type")}
    assert got == {k: want[k] for k in got}
    assert overview["count"] == want["active"] or overview["count"] == want["total"]
    assert sum(overview["health"]["decay_histogram"].values()) == want["active"]
    assert facets["by_type"] == want["by_type"] and facets["active"] == want["active"]
    assert growth["series"] == want["series"]


@pytest.fixture(autouse=True)
def _no_refresh_delay(monkeypatch):
    monkeypatch.setattr(observability, "REFRESH_DELAY", 0.0)


@pytest.fixture()
def fresh(settings):
    f = Fresh(settings)
    f.store.remember_many(
        [
            {"text": f"note {i} on billing", "type": t, "tags": ["ops"] if i % 2 else []}
            for i, t in enumerate(["episodic", "semantic", "semantic", "procedural", "feedback"])
        ]
    )
    yield f
    f.store.wait_refreshes(60)
    f.store.drop()


def test_a_first_view_answers_at_once_and_counts_behind(fresh):
    """A collection never counted: the index-only counts now, the full passes (decay
    health, growth) as empty placeholders with ``as_of`` null while they run."""
    first = fresh.get("/overview")
    assert first["as_of"] is None and first["stale"] is True and first["refreshing"] is True
    assert first["total"] == 5 and sum(first["health"]["decay_histogram"].values()) == 0
    growth = fresh.get("/growth?bucket=day")
    assert growth["as_of"] is None and growth["series"] == [] and growth["count"] == 5
    assert_agrees(fresh)


def test_a_write_serves_the_last_figures_then_the_recount(fresh):
    first = fresh.settled()["/overview"]  # counted once, current
    assert first["stale"] is False and first["total"] == 5
    fresh.store.remember("one more", type="episodic")
    again = fresh.get("/overview")
    # the figures from before the write, said to be so, while the recount runs
    assert again["stale"] is True and again["refreshing"] is True
    assert again["total"] == 5 and again["as_of"] == first["as_of"]
    assert_agrees(fresh)
    assert fresh.get("/overview")["total"] == 6


def _forget(f: Fresh) -> None:
    victim = next(iter(f.store.iter_memories("@type:{semantic}")))[0]
    f.store.forget(victim.id)


def _edit_type(f: Fresh) -> None:
    victim = next(iter(f.store.iter_memories("@type:{feedback}")))[0]
    f.store.edit(victim.id, type="semantic")


def _supersede(f: Fresh) -> None:
    a, b = next(iter(f.store.iter_memories("@type:{semantic}")))[:2]
    f.store.supersede(a.id, b.id)


def _purge(f: Fresh) -> None:
    f.store.remember("short lived", type="episodic", expires_at=time.time() + 0.5)
    f.settled()
    time.sleep(0.6)
    assert f.store.purge_expired()


def _import(f: Fresh) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/all.ahkai"
        f.store.export(path)
        summary = f.store.import_(path, on_conflict="rename")
    assert not summary.errors and f.store.count() == 10


@pytest.mark.parametrize(
    "change",
    [_forget, _edit_type, _supersede, _purge, _import],
    ids=["delete", "edit-type", "supersede", "purge", "import"],
)
def test_every_change_is_caught_up(fresh, change):
    assert_agrees(fresh)  # figures cached before the change
    change(fresh)
    assert fresh.get("/overview")["stale"] is True
    assert_agrees(fresh)


def test_an_expiry_without_any_write_is_caught_up(fresh, monkeypatch):
    """Expiry is time-driven: no write marks the figures stale, their age does."""
    fresh.store.remember("expires soon", type="semantic", expires_at=time.time() + 0.4)
    assert_agrees(fresh)
    assert fresh.get("/overview")["expired"] == 0
    time.sleep(0.5)
    monkeypatch.setattr(observability, "AGGREGATE_CACHE_TTL", 0.3)
    assert fresh.get("/overview")["stale"] is True  # older than the cache's lifetime
    assert_agrees(fresh)
    assert fresh.get("/overview")["expired"] == 1


def test_a_restarted_server_shows_the_kept_figures_without_recounting_first(fresh, monkeypatch):
    """A new process finds the figures in Redis: its first Health view waits for no pass."""
    assert_agrees(fresh)
    fresh.store.remember("written while the server was down", type="procedural")
    store = fresh.open_store()  # a new process: nothing in memory
    client = fresh.make_app(store)
    counted_in: list[str] = []
    cls = type(store.observer)
    for part in ("_content_now", "_health_now"):
        real = getattr(cls, part)

        def counting(self, *args, _real=real):
            counted_in.append(threading.current_thread().name)
            return _real(self, *args)

        monkeypatch.setattr(cls, part, counting)
    first = fresh.get("/overview", client)
    assert first["stale"] is True and first["total"] == 5
    assert store.wait_refreshes(60)
    assert counted_in and all(name.startswith("houkai-refresh-") for name in counted_in)
    assert fresh.get("/overview", client)["total"] == 6


def test_one_recount_at_a_time_across_processes(fresh):
    fresh.get("/overview")
    fresh.store.remember("another", type="semantic")
    other = fresh.open_store()  # a second process serving the same collection
    release = threading.Event()

    def slow_recount() -> dict:
        release.wait(30)  # hold the refresh lock until the other process has looked
        return fresh.store.observer._content_now(15)

    started = fresh.store.stale_aggregate("content:15", slow_recount)
    assert started[1]["refreshing"] is True
    lock = f"{fresh.store.keys.aggregate_cache}:refresh:content:15"
    assert fresh.store.client.exists(lock)
    other.stale_aggregate("content:15", lambda: other.observer._content_now(15))
    assert not other.observer.__dict__.get("_refreshers")  # the other process did not start one
    release.set()
    assert fresh.store.wait_refreshes(60)
    assert not fresh.store.client.exists(lock)  # released when done


def test_stats_never_serves_stale_figures(fresh):
    """``houkai stats`` / ``GET /stats`` recount whenever the collection changed."""
    fresh.get("/overview")
    fresh.store.remember("counted at once", type="feedback")
    assert fresh.get("/stats")["total"] == 6
    assert "stale" not in fresh.get("/stats")
