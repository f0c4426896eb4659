"""Supersede / restore, conflict detection and on_conflict policies (seed §12, §13)."""

from __future__ import annotations

import time
import warnings

import pytest

from houkai import ConflictError, MemoryNotFound

DARK = "The user prefers dark mode in the editor."
DARK2 = "The user prefers dark mode in their editor."
TABS = "Always use tabs for indentation in Go files."
NO_TABS = "Do not use tabs for indentation in Go files."
GOOD = "Coffee is good for productivity."
BAD = "Coffee is bad for productivity."
PORT = "The staging database runs on port 5432."
PORT2 = "The staging database runs on port 5433."
PARIS = "Paris is the capital of France."


def _ids(memories):
    return [m.id for m in memories]


def _recalled(store, query, **kwargs):
    return [m.id for m, _ in store.recall(query, k=10, touch=False, **kwargs)]


# ------------------------------------------------------------------ supersede


def test_supersede_hides_links_and_journals(store):
    old = store.remember(DARK)
    new = store.remember("The user switched to a light theme in the editor.")
    store.supersede(old.id, new.id)
    got = store.get(old.id)
    assert got.superseded_by == new.id and got.superseded_at > 0
    assert old.id not in _recalled(store, DARK)
    assert old.id in _recalled(store, DARK, include_superseded=True)
    assert old.id not in _ids(store.list_recent(10))
    assert old.id in _ids(store.list_recent(10, include_superseded=True))
    assert [(x.to, x.rel) for x in store.get(new.id).links] == [(old.id, "supersedes")]
    assert [(m.id, r) for m, r in store.neighbors(old.id, direction="in")] == [
        (new.id, "supersedes")
    ]
    entry = next(e for e in store.journal.tail(10) if e.op == "supersede")
    assert entry.id == old.id and entry.meta["new_id"] == new.id
    assert entry.before["superseded_by"] == "" and entry.after["superseded_by"] == new.id
    store.supersede(old.id, new.id)  # idempotent: no second entry
    assert len([e for e in store.journal.tail(20) if e.op == "supersede"]) == 1


def test_supersede_rejects_self_cycles_and_unknown(store):
    a, b, c = (store.remember(t) for t in ("fact a", "fact b", "fact c"))
    with pytest.raises(ValueError, match="itself"):
        store.supersede(a.id, a.id)
    store.supersede(a.id, b.id)
    with pytest.raises(ValueError, match="cycle"):
        store.supersede(b.id, a.id)
    store.supersede(b.id, c.id)  # chain a -> b -> c
    with pytest.raises(ValueError, match="cycle"):
        store.supersede(c.id, a.id)
    assert store.get(c.id).superseded_by == ""
    with pytest.raises(MemoryNotFound):
        store.supersede("missing", a.id)
    with pytest.raises(MemoryNotFound):
        store.supersede(a.id, "missing")


def test_restore(store):
    old = store.remember(DARK)
    new = store.remember(PARIS)
    store.supersede(old.id, new.id)
    assert store.restore(old.id) is True
    got = store.get(old.id)
    assert got.superseded_by == "" and got.superseded_at == 0.0
    assert old.id in _recalled(store, DARK)
    assert store.get(new.id).links == []
    assert store.neighbors(old.id) == []
    entry = next(e for e in store.journal.tail(10) if e.op == "restore")
    assert entry.meta == {"superseder_id": new.id}
    assert store.restore(old.id) is False  # not superseded any more
    with pytest.raises(MemoryNotFound):
        store.restore("missing")


# ------------------------------------------------------------------ detection


def test_find_conflicts_duplicate(store):
    a = store.remember(DARK)
    b = store.remember(DARK2)
    store.remember(PARIS)
    conflicts = store.find_conflicts(b.id)
    assert [(c.a.id, c.b.id, c.kind, c.reason) for c in conflicts] == [
        (b.id, a.id, "duplicate", "similarity")
    ]
    assert conflicts[0].similarity >= 0.9
    assert conflicts[0].to_dict()["kind"] == "duplicate"
    assert store.find_conflicts(b.id, threshold=0.999) == []
    with pytest.raises(ValueError, match="threshold"):
        store.find_conflicts(b.id, threshold=2)
    with pytest.raises(MemoryNotFound):
        store.find_conflicts("missing")


def test_find_conflicts_polarity_and_negation(store):
    good = store.remember(GOOD, polarity=1)
    bad = store.remember(BAD, polarity=-1)
    tabs = store.remember(TABS)
    no_tabs = store.remember(NO_TABS)
    [c] = store.find_conflicts(bad.id)
    assert (c.b.id, c.kind, c.reason) == (good.id, "contradiction", "polarity_diff")
    [c] = store.find_conflicts(no_tabs.id)
    assert (c.b.id, c.kind, c.reason) == (tabs.id, "contradiction", "negation_diff")


def test_find_conflicts_custom_fn(make_store):
    def numbers_differ(a, b):
        digits = lambda m: {w for w in m.text.replace(".", " ").split() if w.isdigit()}  # noqa: E731
        return digits(a) != digits(b)

    store = make_store(contradiction_fn=numbers_differ)
    a = store.remember(PORT)
    b = store.remember(PORT2)
    [c] = store.find_conflicts(b.id)
    assert (c.b.id, c.kind, c.reason) == (a.id, "contradiction", "custom_fn")


def test_tag_guard_type_filter_and_expired(store):
    a = store.remember(DARK, tags=["ui"])
    b = store.remember(DARK2, tags=["billing"])
    assert store.find_conflicts(b.id) == []  # both tagged, disjoint
    c = store.remember(DARK2)  # untagged side never triggers the guard
    assert {x.b.id for x in store.find_conflicts(c.id)} == {a.id, b.id}
    d = store.remember(DARK2, type="episodic", tags=["ui"])
    assert store.find_conflicts(d.id) == []  # different type from every other
    store.remember(DARK2, type="episodic", expires_at=time.time() - 5)
    assert store.find_conflicts(d.id) == []  # expired memories are not candidates


def test_global_scan_reports_each_pair_once(store):
    a = store.remember(DARK)
    b = store.remember(DARK2)
    g = store.remember(GOOD, polarity=1)
    h = store.remember(BAD, polarity=-1)
    store.remember(PARIS)
    old = store.remember("The user prefers dark mode in the editor!")
    store.supersede(old.id, a.id)  # superseded memories take no part
    conflicts = store.find_conflicts()
    pairs = sorted(tuple(sorted((c.a.id, c.b.id))) for c in conflicts)
    assert pairs == sorted([tuple(sorted((a.id, b.id))), tuple(sorted((g.id, h.id)))])
    by_pair = {frozenset((c.a.id, c.b.id)): c for c in conflicts}
    assert by_pair[frozenset((g.id, h.id))].reason == "polarity_diff"
    assert by_pair[frozenset((a.id, b.id))].a.id == a.id  # a is the older memory


def test_global_scan_streams_in_batches(store, monkeypatch):
    from houkai.store import conflicts as mod

    monkeypatch.setattr(mod, "SCAN_BATCH", 3)
    texts = [
        f"Project {name} uses PostgreSQL for storage."
        for name in ("Apollo", "Borealis", "Cygnus", "Draco", "Eridanus", "Fornax", "Gemini")
    ]
    store.remember_many(texts)
    conflicts = store.find_conflicts(threshold=0.5)
    pairs = [frozenset((c.a.id, c.b.id)) for c in conflicts]
    assert len(pairs) == len(set(pairs))
    assert len(pairs) >= 6  # near-identical sentences: many pairs, none twice


# ------------------------------------------------------------------ policies


def test_remember_on_conflict_warn(store):
    a = store.remember(DARK)
    with pytest.warns(UserWarning, match=r"1 conflict\(s\).*duplicate"):
        b = store.remember(DARK2, on_conflict="warn")
    assert store.get(b.id) is not None and store.get(a.id).superseded_by == ""


def test_remember_on_conflict_supersede(store):
    a = store.remember(DARK)
    b = store.remember(DARK2, on_conflict="supersede")
    assert store.get(a.id).superseded_by == b.id
    assert _recalled(store, DARK)[:1] == [b.id]
    assert a.id not in _recalled(store, DARK)


def test_remember_on_conflict_raise_rejects_before_write(store):
    a = store.remember(DARK)
    before = store.count()
    with pytest.raises(ConflictError) as info:
        store.remember(DARK2, on_conflict="raise")
    assert [c.b.id for c in info.value.conflicts] == [a.id]
    assert store.count() == before
    assert [e.op for e in store.journal.tail(10)].count("remember") == 1
    ok = store.remember(PARIS, on_conflict="raise")  # no conflict: stored
    assert store.get(ok.id) is not None


def test_store_level_policy(make_store):
    store = make_store(conflict_policy="supersede")
    a = store.remember(TABS)
    b = store.remember(NO_TABS)
    assert store.get(a.id).superseded_by == b.id


def test_remember_many_policies(store):
    with pytest.raises(ValueError, match="raise"):
        store.remember_many([DARK], on_conflict="raise")
    assert store.count() == 0
    store.remember(GOOD, polarity=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        store.remember_many([DARK, DARK2, BAD], on_conflict="warn")
    messages = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    assert len(messages) == 1 and "remember_many()" in messages[0]


def test_remember_many_supersede_earlier_wins(store):
    older = store.remember(DARK)
    first, second, other = store.remember_many([DARK2, DARK, PARIS], on_conflict="supersede")
    # The earlier batch item wins over the later one and over the stored memory.
    assert store.get(second.id).superseded_by == first.id
    assert store.get(older.id).superseded_by == first.id
    assert store.get(first.id).superseded_by == ""
    assert store.get(other.id).superseded_by == ""
    # No cycle: following superseded_by from any memory ends.
    for memory_id in (older.id, second.id):
        assert store.get(store.get(memory_id).superseded_by).superseded_by == ""


def test_apply_policy_hooks_return_conflicts(store):
    a = store.remember(DARK)
    b = store.remember(DARK2)
    found = store.apply_conflict_policy(store.get(b.id), "raise", None)
    assert [c.b.id for c in found] == [a.id]
    assert store.get(a.id).superseded_by == ""  # raise only reports
    assert store.apply_conflict_policy(store.get(b.id), "ignore", None) == []
    # A memory that is not stored yet is checked from its embedding.
    probe = store.build_memory(DARK2)
    probe.embedding = store.encode([probe.text])[0].tolist()
    assert {c.b.id for c in store.check_conflicts(probe, 0.8, None)} == {a.id, b.id}
