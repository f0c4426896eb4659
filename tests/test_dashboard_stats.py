"""``stats`` and the browse facets from index-only counts agree with a memory-by-memory count.

The fast paths (per-type and per-tag ``FT.SEARCH`` counts, one decay pass over
sortable fields) must give exactly what streaming every memory through the
decay engine gives, with and without the recall-frequency weight.
"""

from __future__ import annotations

import random
import time
import uuid

import pytest

from houkai.app import dashboard
from houkai.app.service import MemoryService
from houkai.engines.embeddings import HashEmbedder
from houkai.store import MemoryStore, observability
from houkai.store.decay import DecayEngine

DAY = 86400.0


@pytest.fixture()
def varied(settings):
    """60 memories: every type, overlapping tags, spread importance, ages and recall counts."""
    collection = f"ds-{uuid.uuid4().hex[:8]}"
    cfg = settings.replace(
        key_prefix=settings.key_prefix + "-dstats", embedder="hash:384", collection=collection
    )
    store = MemoryStore(collection=collection, settings=cfg, embedder=HashEmbedder(384))
    rng = random.Random(5)
    types = ("episodic", "semantic", "procedural", "feedback")
    tags = ("ops", "billing", "infra", "Team A", "misc")
    now = time.time()
    memories = store.remember_many(
        [
            {
                "text": f"memory {i} about {tags[i % 5]}",
                "type": types[i % 4],
                "tags": rng.sample(tags, rng.randint(0, 3)),
                "importance": round(rng.random(), 2),
            }
            for i in range(60)
        ]
    )
    for i, m in enumerate(memories):
        fields = {"last_accessed": repr(now - rng.random() * 120 * DAY)}
        if i % 3:
            fields["access_count"] = str(rng.randint(1, 40))
        store.set_raw_fields({m.id: fields})
    store.supersede(memories[0].id, memories[1].id)
    yield store
    store.drop()


def _reference(store, *, rate: float, weight: float, protect: tuple[str, ...], floor: float):
    engine = DecayEngine(
        store, decay_rate=rate, min_score=floor, protect_types=protect, frequency_weight=weight
    )
    hist = [0] * 5
    at_risk = never = active = 0
    importance = 0.0
    for memory, score in engine.iter_scores():
        if memory.superseded_by:
            continue
        active += 1
        hist[min(4, max(0, int(score * 5)))] += 1
        at_risk += score < floor and memory.type not in protect
        never += memory.access_count == 0
        importance += memory.importance
    return hist, at_risk, never, round(importance / active, 3)


@pytest.mark.parametrize(
    ("weight", "protect"), [(0.0, ("procedural",)), (0.7, ("procedural", "feedback")), (0.3, ())]
)
def test_stats_health_matches_memory_by_memory(varied, weight, protect):
    s = varied.stats(decay_rate=0.05, min_score=0.2, frequency_weight=weight, protect_types=protect)
    hist, at_risk, never, avg = _reference(
        varied, rate=0.05, weight=weight, protect=protect, floor=0.2
    )
    h = s["health"]
    assert list(h["decay_histogram"].values()) == hist
    assert (h["at_risk_count"], h["never_recalled_count"]) == (at_risk, never)
    assert at_risk > 0 and never == 19  # every third memory, less the superseded one
    assert h["avg_importance"] == avg
    assert (s["active"], s["superseded"], s["total"]) == (59, 1, 60)
    assert sum(s["by_type"].values()) == 59


def test_top_tags_counts_match_the_aggregate_fallback(varied, monkeypatch):
    monkeypatch.setattr(observability, "AGGREGATE_CACHE_TTL", 0)
    fast = varied.stats(top_tags=3)["top_tags"]
    monkeypatch.setattr(observability, "TAG_COUNT_MAX", 0)
    assert varied.stats(top_tags=3)["top_tags"] == fast
    everyone = varied.iter_memories("@sup:{0}")
    by_hand: dict[str, int] = {}
    for batch in everyone:
        for memory in batch:
            for tag in memory.tags:
                by_hand[tag] = by_hand.get(tag, 0) + 1
    top = sorted(by_hand.items(), key=lambda kv: -kv[1])[:3]
    assert sorted(fast.values(), reverse=True) == [n for _, n in top]
    assert "Team A" in by_hand  # tags keep their spelling, not the indexed key


def test_facets_equal_the_stats_breakdown(varied):
    service = MemoryService(varied.settings, actor="http")
    service._stores[varied.collection_name] = varied
    f = dashboard.facets(service, top_tags=5, collection=varied.collection_name)
    s = varied.stats(top_tags=5)
    assert (f["by_type"], f["top_tags"], f["active"]) == (s["by_type"], s["top_tags"], 59)


def test_aggregates_are_reused_until_the_collection_is_written(varied, monkeypatch):
    first = varied.stats()
    calls: list[str] = []
    cls = type(varied.observer)
    for part in ("_content_now", "_health_now"):
        real = getattr(cls, part)

        def counting(self, *args, _real=real, _part=part):
            calls.append(_part)
            return _real(self, *args)

        monkeypatch.setattr(cls, part, counting)
    assert varied.stats() == first and calls == []  # served from the cache
    assert varied.stats(top_tags=2) != first and calls == ["_content_now"]  # other parameters
    varied.recall("memory about ops", k=3)  # touches access counts: only the decay part
    varied.stats()
    assert calls[1:] == ["_health_now"]
    varied.remember("one more memory", type="feedback", tags=["fresh"])
    after = varied.stats()
    assert calls[2:] == ["_content_now", "_health_now"]
    assert after["active"] == first["active"] + 1 and after["top_tags"]["fresh"] == 1
    victim = next(iter(varied.iter_memories("@type:{feedback}")))[0]
    varied.edit(victim.id, tags=["fresh", "edited"])  # a tag-only edit is seen too
    assert varied.stats()["top_tags"].get("edited") == 1
    monkeypatch.setattr(observability, "AGGREGATE_CACHE_TTL", 0)
    before = len(calls)
    varied.stats()
    assert len(calls) == before + 2  # no cache at all


def _walk(service, collection: str, sort: str) -> list[str]:
    seen, after = [], None
    while True:
        page = dashboard.browse(service, sort=sort, after=after, limit=7, collection=collection)
        seen += [m["id"] for m in page["memories"]]
        after = page["next"]
        if after is None:
            return seen


@pytest.mark.parametrize("sort", ["created", "importance", "decay"])
def test_browse_windows_page_in_the_full_order(varied, sort, monkeypatch):
    """Pages found in a window of the sort field equal the whole collection's order."""
    rng = random.Random(9)
    now = time.time()
    ages = (0.2, 3, 20, 200, 900)  # days: inside each window, and beyond the widest
    for i, batch in enumerate(varied.iter_memories("*")):
        for j, m in enumerate(batch):
            age = ages[(i + j) % len(ages)] * DAY * rng.random()
            fields = {"created_at": repr(now - age)}
            if j % 4 == 0:  # shared keys: ties broken by the memory key
                fields["importance"] = "0.5"
            varied.set_raw_fields({m.id: fields})
    service = MemoryService(varied.settings, actor="http")
    service._stores[varied.collection_name] = varied
    clock = time.time()
    monkeypatch.setattr(dashboard.time, "time", lambda: clock)  # one decay clock for both
    seen = _walk(service, varied.collection_name, sort)
    assert len(seen) == 59 and len(set(seen)) == 59
    windows = dashboard._windows
    assert windows(sort, None, clock, varied.settings)  # the windows were tried
    monkeypatch.setattr(dashboard, "_windows", lambda *a: [])
    assert seen == _walk(service, varied.collection_name, sort)  # = a walk of the full order
    if sort != "decay":
        field = "created_at" if sort == "created" else "importance"
        everyone = [m for batch in varied.iter_memories("@sup:{0}") for m in batch]
        expected = sorted(
            everyone,
            key=lambda m: (int(getattr(m, field) * 1_000_000), varied.keys.memory(m.id)),
            reverse=True,
        )
        assert seen == [m.id for m in expected]


def test_sliced_passes_give_the_one_pass_figures(varied, monkeypatch):
    """Collection-wide passes split into created_at slices (short Redis commands) add
    up to exactly what one pass over every memory gives."""
    monkeypatch.setattr(observability, "AGGREGATE_CACHE_TTL", 0)
    rng = random.Random(3)
    now = time.time()
    for i, batch in enumerate(varied.iter_memories("*")):
        for j, m in enumerate(batch):  # a burst of 20 at one instant, the rest spread out
            created = now - 5 * DAY if (i + j) % 3 == 0 else now - rng.random() * 400 * DAY
            varied.set_raw_fields({m.id: {"created_at": repr(created)}})
    service = MemoryService(varied.settings, actor="http")
    service._stores[varied.collection_name] = varied
    whole = varied.stats(frequency_weight=0.0)
    grown = dashboard.growth(service, bucket="day", collection=varied.collection_name)
    assert varied.created_slices("*") == [""]  # 60 memories: one pass
    monkeypatch.setattr(observability, "SLICE_SIZE", 7)
    slices = varied.created_slices("*")
    assert len(slices) > 4
    found = observability.counts(
        varied.client, varied.keys.index, [observability.both("*", s) for s in slices]
    )
    assert sum(found) == 60  # every memory in exactly one slice
    assert varied.stats(frequency_weight=0.0) == whole
    again = dashboard.growth(service, bucket="day", collection=varied.collection_name)
    assert again["series"] == grown["series"] and grown["series"][-1]["total"] == 60
