"""undo of every op (and its refusals), history counterparts, point-in-time replay."""

from __future__ import annotations

import time

import numpy as np
import pytest

from houkai.domain.errors import NotFound


def _last(store, op: str):
    return store.journal_tail(1, op=op)[0]


def _tick() -> float:
    time.sleep(0.005)
    t = time.time()
    time.sleep(0.005)
    return t


def test_undo_remember_and_refusal(store):
    m = store.remember("remember then undo")
    assert store.undo(_last(store, "remember")) is True
    assert store.get(m.id) is None
    undo = _last(store, "undo")
    assert undo.meta["of_op"] == "remember" and undo.id == m.id
    # a refusal returns False (the seed's contract); strict=True says why
    assert store.undo(store.history(m.id)[0]) is False
    with pytest.raises(ValueError, match="already forgotten"):
        store.undo(store.history(m.id)[0], strict=True)


def test_undo_forget_revives_with_vector_and_links(store):
    a = store.remember("the forgotten memory about sailing boats", tags=["sea"])
    b = store.remember("a neighbour memory")
    store.link(a.id, b.id, "refines")
    vector_before = store.vectors([a.id])[a.id]
    store.forget(a.id)
    assert store.undo(_last(store, "forget")) is True
    back = store.get(a.id)
    assert back is not None and back.text == a.text and back.tags == ["sea"]
    assert [(x.to, x.rel) for x in back.links] == [(b.id, "refines")]
    assert np.allclose(store.vectors([a.id])[a.id], vector_before, atol=1e-5)
    assert [m.id for m, _ in store.neighbors(b.id, direction="in")] == [a.id]
    assert store.recall("sailing boats", k=1)[0][0].id == a.id
    # the id exists again → refuse rather than clobber
    forget_entry = next(e for e in store.history(a.id) if e.op == "forget")
    assert store.undo(forget_entry) is False
    with pytest.raises(ValueError, match="exists again"):
        store.undo(forget_entry, strict=True)


def test_undo_edit_reembeds_and_refuses_when_changed(store, embedder):
    m = store.remember("the capital of France is Paris")
    store.edit(m.id, text="the capital of Italy is Rome", tags=["geo"])
    edit_entry = _last(store, "edit")
    assert store.undo(edit_entry) is True
    back = store.get(m.id)
    assert back.text == "the capital of France is Paris" and back.tags == []
    expected = embedder.encode(["the capital of France is Paris"])[0]
    assert np.allclose(
        store.vectors([m.id])[m.id], expected, atol=1e-3
    )  # FLOAT16 storage: ~3 digits
    # a later change makes the old edit un-undoable
    store.edit(m.id, text="the capital of Spain is Madrid")
    store.edit(m.id, importance=0.9)
    assert store.undo(edit_entry) is False
    assert store.get(m.id).importance == 0.9  # refused: nothing changed
    with pytest.raises(ValueError, match="changed since"):
        store.undo(edit_entry, strict=True)
    store.forget(m.id)
    assert store.undo(_last(store, "edit")) is False
    with pytest.raises(ValueError, match="forgotten"):
        store.undo(_last(store, "edit"), strict=True)


def test_undo_supersede_and_restore(store):
    old = store.remember("old fact")
    new = store.remember("new fact")
    store.supersede(old.id, new.id)
    assert store.undo(_last(store, "supersede")) is True
    assert store.get(old.id).superseded_by == ""
    assert store.undo(_last(store, "restore")) is True
    assert store.get(old.id).superseded_by == new.id
    store.forget(new.id)
    restore_entry = next(e for e in store.history(old.id) if e.op == "restore")
    assert store.undo(restore_entry) is False
    with pytest.raises(ValueError, match="superseder"):
        store.undo(restore_entry, strict=True)


def test_undo_link_and_multi_rel_unlink(store):
    a = store.remember("link source")
    b = store.remember("link target")
    store.link(a.id, b.id, "related")
    assert store.undo(_last(store, "link")) is True
    assert store.get(a.id).links == []
    store.link(a.id, b.id, "related")
    store.link(a.id, b.id, "refines")
    assert store.unlink(a.id, b.id) == 2
    assert store.undo(_last(store, "unlink")) is True
    assert sorted(x.rel for x in store.get(a.id).links) == ["refines", "related"]
    store.unlink(a.id, b.id, "related")
    unlink_entry = _last(store, "unlink")
    store.forget(b.id)
    assert store.undo(unlink_entry) is False
    with pytest.raises(ValueError, match="forgotten"):
        store.undo(unlink_entry, strict=True)


def test_undo_lookup_and_non_undoable_ops(store):
    store.remember("something")
    store.nuke()
    assert store.undo(_last(store, "nuke")) is False
    with pytest.raises(ValueError, match="cannot be undone"):
        store.undo(_last(store, "nuke"), strict=True)
    with pytest.raises(NotFound):
        store.undo("1-1")
    with pytest.raises(ValueError):
        store.undo(["not", "an", "entry"])


def test_history_includes_counterparts(store):
    a = store.remember("memory A")
    b = store.remember("memory B")
    c = store.remember("memory C supersedes B")
    store.link(a.id, b.id, "related")
    store.supersede(b.id, c.id)
    store.restore(b.id)
    ops_b = [e.op for e in store.history(b.id)]
    assert ops_b == ["remember", "link", "supersede", "restore"]
    ops_c = [e.op for e in store.history(c.id)]
    assert ops_c == ["remember", "supersede", "restore"]  # new_id / superseder_id
    assert [e.op for e in store.history(a.id)] == ["remember", "link"]
    assert store.history("no-such-id") == []


def test_state_at_and_get_at_replay(store):
    a = store.remember("A version one")
    t0 = _tick()
    store.edit(a.id, text="A version two")
    b = store.remember("B exists")
    store.link(a.id, b.id, "related")
    t1 = _tick()
    store.forget(b.id)
    t2 = _tick()
    store.nuke()
    t3 = _tick()
    c = store.remember("C after the nuke")

    at0 = {m.id: m for m in store.state_at(t0)}
    assert set(at0) == {a.id} and at0[a.id].text == "A version one"
    at1 = {m.id: m for m in store.state_at(t1)}
    assert set(at1) == {a.id, b.id}
    assert at1[a.id].text == "A version two"
    assert [(x.to, x.rel) for x in at1[a.id].links] == [(b.id, "related")]
    assert set(m.id for m in store.state_at(t2)) == {a.id}
    assert store.state_at(t3) == []
    assert [m.id for m in store.state_at(time.time())] == [c.id]

    assert store.get_at(a.id, t0).text == "A version one"
    assert store.get_at(a.id, t1).links[0].to == b.id
    assert store.get_at(b.id, t2) is None
    assert store.get_at(a.id, t3) is None
    with pytest.raises(ValueError):
        store.state_at("yesterday")


def test_state_at_replays_supersede_edge_and_undo(store):
    old = store.remember("old")
    new = store.remember("new")
    store.supersede(old.id, new.id)
    t1 = _tick()
    store.forget(old.id)
    store.undo(_last(store, "forget"))
    t2 = _tick()
    s1 = {m.id: m for m in store.state_at(t1)}
    assert s1[old.id].superseded_by == new.id
    assert [(x.to, x.rel) for x in s1[new.id].links] == [(old.id, "supersedes")]
    assert old.id in {m.id for m in store.state_at(t2)}


def test_supersedes_of_a_pair_in_opposite_directions_at_once_leave_no_cycle(store):
    """The cycle check and the write are one step: of two supersedes racing in opposite
    directions, one wins and the other is refused, so neither memory is hidden for good."""
    import threading

    from houkai.domain.model import ValidationError

    for _ in range(10):
        a, b = (store.remember(f"racing note {i} {time.time()}") for i in range(2))
        barrier = threading.Barrier(2)
        outcomes: list[str] = []

        def race(old, new, barrier=barrier, outcomes=outcomes):
            barrier.wait()
            try:
                store.supersede(old.id, new.id)
                outcomes.append("ok")
            except ValidationError as exc:
                outcomes.append(str(exc))

        threads = [threading.Thread(target=race, args=pair) for pair in ((a, b), (b, a))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(outcomes)[0] == "ok" and "cycle" in sorted(outcomes)[1], outcomes
        states = [store.get(m.id).superseded_by for m in (a, b)]
        assert sorted(bool(s) for s in states) == [False, True], states
