"""Typed links: link / unlink / neighbors / subgraph and the reverse link index (seed §12)."""

from __future__ import annotations

import threading

import pytest

from houkai import Graph, MemoryNotFound


def _mems(store, *texts):
    return [store.remember(t) for t in texts]


def _incoming(store, memory_id):
    return {m.decode() for m in store.client.smembers(store.keys.incoming(memory_id))}


def _pairs(result):
    return sorted((m.id, rel) for m, rel in result)


def test_link_is_idempotent_journaled_and_indexed(store):
    a, b = _mems(store, "alpha fact", "beta fact")
    assert store.link(a.id, b.id, "refines") is True
    assert store.link(a.id, b.id, "refines") is False  # idempotent
    got = store.get(a.id)
    assert [(x.to, x.rel) for x in got.links] == [(b.id, "refines")]
    assert _incoming(store, b.id) == {f"{a.id}|refines"}
    links = [e for e in store.journal.tail(20) if e.op == "link"]
    assert len(links) == 1
    assert links[0].id == a.id
    assert links[0].meta == {"src_id": a.id, "dst_id": b.id, "rel": "refines"}
    calls = store.client.hget(store.keys.metrics, "calls:link")
    assert int(calls) == 1


def test_link_validation(store):
    a, b = _mems(store, "one", "two")
    with pytest.raises(ValueError, match="rel must be one of"):
        store.link(a.id, b.id, "relatd")
    with pytest.raises(ValueError, match="itself"):
        store.link(a.id, a.id)
    with pytest.raises(MemoryNotFound):
        store.link(a.id, "no-such-memory")  # dangling target rejected
    with pytest.raises(MemoryNotFound):
        store.link("no-such-memory", b.id)
    with pytest.raises(ValueError):
        store.link("", b.id)
    assert store.get(a.id).links == []
    assert _incoming(store, b.id) == set()
    # A rejected link leaves no stub hash behind.
    assert not store.exists("no-such-memory")


def test_multi_rel_edges_and_unlink_all(store):
    a, b = _mems(store, "source memory", "target memory")
    store.link(a.id, b.id, "related")
    store.link(a.id, b.id, "example_of")
    assert _pairs(store.neighbors(a.id, direction="out")) == sorted(
        [(b.id, "related"), (b.id, "example_of")]
    )
    assert store.unlink(a.id, b.id, "related") == 1
    assert [x.rel for x in store.get(a.id).links] == ["example_of"]
    store.link(a.id, b.id, "related")
    assert store.unlink(a.id, b.id) == 2  # rel=None removes every rel
    assert store.get(a.id).links == []
    assert _incoming(store, b.id) == set()
    assert store.unlink(a.id, b.id) == 0
    entry = next(e for e in store.journal.tail(20) if e.op == "unlink")
    assert entry.meta["removed"] == 2
    assert sorted(entry.meta["removed_rels"]) == ["example_of", "related"]
    assert entry.meta["rel"] is None
    with pytest.raises(ValueError):
        store.unlink(a.id, b.id, "bogus")


def test_neighbors_directions_and_depth(store):
    a, b, c, d = _mems(store, "node a", "node b", "node c", "node d")
    store.link(a.id, b.id, "refines")
    store.link(b.id, c.id, "example_of")
    store.link(d.id, a.id, "related")
    assert _pairs(store.neighbors(a.id, direction="out")) == [(b.id, "refines")]
    assert _pairs(store.neighbors(a.id, direction="in")) == [(d.id, "related")]
    assert _pairs(store.neighbors(a.id)) == sorted([(b.id, "refines"), (d.id, "related")])
    assert _pairs(store.neighbors(a.id, direction="out", depth=2)) == sorted(
        [(b.id, "refines"), (c.id, "example_of")]
    )
    assert _pairs(store.neighbors(c.id, direction="in", depth=3)) == sorted(
        [(b.id, "example_of"), (a.id, "refines"), (d.id, "related")]
    )
    assert _pairs(store.neighbors(a.id, rel="refines", depth=2)) == [(b.id, "refines")]
    with pytest.raises(ValueError, match="direction"):
        store.neighbors(a.id, direction="sideways")
    with pytest.raises(ValueError, match="rel"):
        store.neighbors(a.id, rel="nope")
    with pytest.raises(ValueError, match="depth"):
        store.neighbors(a.id, depth=0)
    with pytest.raises(MemoryNotFound):
        store.neighbors("missing-id")


def test_neighbors_visits_each_node_once_in_cycles(store):
    a, b, c = _mems(store, "cycle a", "cycle b", "cycle c")
    store.link(a.id, b.id)
    store.link(b.id, c.id)
    store.link(c.id, a.id)
    result = store.neighbors(a.id, direction="both", depth=5)
    ids = [m.id for m, _ in result]
    assert sorted(ids) == sorted([b.id, c.id])
    assert a.id not in ids


def test_forgotten_target_is_skipped_and_comes_back_on_readd(store):
    a, b, c = _mems(store, "keeper", "doomed", "other")
    store.link(a.id, b.id, "related")
    store.link(a.id, c.id, "related")
    store.link(b.id, c.id, "refines")
    assert store.forget(b.id)
    # Outgoing reverse entries of the forgotten memory are gone ...
    assert _incoming(store, c.id) == {f"{a.id}|related"}
    # ... and walkers skip the dangling edge a -> b.
    assert _pairs(store.neighbors(a.id)) == [(c.id, "related")]
    graph = store.subgraph([a.id], depth=2)
    assert set(graph.nodes) == {a.id, c.id}
    assert graph.edges == [(a.id, c.id, "related")]
    # A new link to the forgotten id is refused.
    with pytest.raises(MemoryNotFound):
        store.link(c.id, b.id)


def test_stale_reverse_entry_is_not_reported(store):
    a, b = _mems(store, "first", "second")
    store.client.sadd(store.keys.incoming(b.id), f"{a.id}|related")  # no such edge
    assert store.neighbors(b.id, direction="in") == []


def test_subgraph_diamond_expands_fully(store):
    # a -> b -> c, a -> c, c -> d: at depth 2 c is reached directly from a, so d is in.
    a, b, c, d = _mems(store, "diamond a", "diamond b", "diamond c", "diamond d")
    store.link(a.id, b.id)
    store.link(b.id, c.id)
    store.link(a.id, c.id)
    store.link(c.id, d.id, "refines")
    graph = store.subgraph([a.id], depth=2)
    assert isinstance(graph, Graph)
    assert set(graph.nodes) == {a.id, b.id, c.id, d.id}
    assert set(graph.edges) == {
        (a.id, b.id, "related"),
        (b.id, c.id, "related"),
        (a.id, c.id, "related"),
        (c.id, d.id, "refines"),
    }
    assert len(graph.edges) == len(set(graph.edges))
    shallow = store.subgraph([a.id], depth=1)
    assert set(shallow.nodes) == {a.id, b.id, c.id}
    assert set(shallow.edges) == {(a.id, b.id, "related"), (a.id, c.id, "related")}


def test_subgraph_inputs(store):
    a, b = _mems(store, "solo a", "solo b")
    store.link(a.id, b.id)
    assert set(store.subgraph(a.id).nodes) == {a.id, b.id}  # a single id is accepted
    assert store.subgraph(["unknown"]).nodes == {}
    alone = store.subgraph([a.id], depth=0)
    assert (set(alone.nodes), alone.edges) == ({a.id}, [])
    with pytest.raises(ValueError):
        store.subgraph([a.id], depth=-1)
    with pytest.raises(ValueError):
        store.subgraph([None])


def test_concurrent_links_on_one_memory_lose_nothing(store):
    hub = store.remember("hub memory")
    spokes = store.remember_many([f"spoke number {i}" for i in range(16)])
    errors: list[BaseException] = []

    def worker(chunk):
        try:
            for spoke in chunk:
                store.link(hub.id, spoke.id, "related")
        except BaseException as exc:  # pragma: no cover - surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(spokes[i::4],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert {x.to for x in store.get(hub.id).links} == {s.id for s in spokes}
    assert len(store.neighbors(hub.id, direction="out")) == 16
