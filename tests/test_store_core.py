"""The core library surface on a real Redis Stack with the real model (issue: Foundation)."""

from __future__ import annotations

import time

import pytest

from houkai import (
    CONFLICT_POLICIES,
    DIRECTIONS,
    FUSIONS,
    IMPORT_POLICIES,
    LINK_RELS,
    MEMORY_TYPES,
    RECALL_MODES,
    HybridWeights,
    Memory,
    MemoryNotFound,
    MemoryStore,
    RememberItem,
)
from houkai.store import codec

TICKET_MEMORY = (
    "Retro notes from the payments sync: the nightly settlement batch was slow again, two "
    "merchants complained about delayed payouts, finance wants a dashboard, and the root cause "
    "was tracked down to ticket ORN-4821 which nobody had picked up since the spring."
)
DISTRACTORS = [
    "ORD-4812: login page times out on Safari.",
    "ONR-2481 tracks the flaky search test.",
    "OPN-8421: dark mode colours are off.",
    "ORL-4128 is the mobile release checklist.",
    "Ticket triage happens every Monday; unassigned tickets go to the on-call engineer.",
    "Open a ticket in the tracker for every production incident, with a severity label.",
    "The support queue closes tickets automatically after seven days without a reply.",
    "Our ticketing workflow moved from email to the tracker last year.",
    "Payout delays are usually caused by bank holidays in the merchant's country.",
    "The deployment checklist lives in the ops wiki under release process.",
]


def test_remember_then_get_roundtrip(store: MemoryStore) -> None:
    m = store.remember(
        "Postgres runs on port 5433 in staging",
        type="semantic",
        tags=["db", "staging"],
        importance=0.7,
        source="chat",
    )
    got = store.get(m.id)
    assert got is not None
    assert (got.text, got.type, got.tags, got.importance, got.source) == (
        "Postgres runs on port 5433 in staging",
        "semantic",
        ["db", "staging"],
        0.7,
        "chat",
    )
    assert got.state == "ready" and got.collection == store.collection_name
    assert got.content_hash and got.created_at > 0 and got.access_count == 0
    assert store.get("no-such-id") is None
    assert store._get_by_id(m.id).id == m.id


def test_remember_defaults_match_seed(store: MemoryStore) -> None:
    m = store.remember("A plain fact")
    assert (m.type, m.tags, m.importance, m.polarity, m.expires_at, m.source) == (
        "semantic",
        [],
        0.5,
        0,
        0.0,
        None,
    )


def test_hybrid_finds_exact_identifier_semantic_does_not_rank_first(store: MemoryStore) -> None:
    store.remember_many(DISTRACTORS)
    target = store.remember(TICKET_MEMORY)
    semantic = store.recall("ORN-4821", k=3, mode="semantic")
    hybrid = store.recall("ORN-4821", k=3, mode="hybrid")
    assert hybrid[0][0].id == target.id
    assert semantic[0][0].id != target.id, "test data must make semantic alone miss the id"


def test_recall_returns_seed_shapes(store: MemoryStore) -> None:
    store.remember("The user prefers concise answers", type="feedback")
    pairs = store.recall("how should answers be written", k=1)
    assert len(pairs) == 1 and isinstance(pairs[0][0], Memory) and isinstance(pairs[0][1], float)
    triples = store.recall("answers", k=1, mode="hybrid", explain=True)
    _memory, score, breakdown = triples[0]
    assert set(breakdown) >= {
        "cosine",
        "lexical",
        "recency",
        "importance",
        "polarity",
        "weights",
        "score",
    }
    assert breakdown["score"] == pytest.approx(score, abs=1e-5)
    assert store.recall("answers", k=1, explain=True)[0][2].keys() >= {"cosine", "polarity"}


def test_hybrid_default_weights(store: MemoryStore) -> None:
    w = HybridWeights()
    assert (w.cosine, w.lexical, w.recency, w.importance, w.polarity_weight) == (
        0.55,
        0.20,
        0.15,
        0.10,
        0.05,
    )


def test_a_search_reads_the_exact_creation_time_and_old_hashes_the_indexed_one(
    store: MemoryStore,
) -> None:
    exact, old = store.remember_many(["the staging host is stg-4", "the prod host is prd-9"])
    store.client.hdel(store.keys.memory(old.id), "created")  # written before the copy
    found = {m.id: m.created_at for m, _ in store.recall("host", k=5, touch=False)}
    assert found[exact.id] == store.get(exact.id).created_at == exact.created_at
    assert found[old.id] == pytest.approx(old.created_at, abs=0.01)  # 12 digits, not 0
    assert store.get(old.id).created_at == old.created_at


def test_a_stale_exact_copy_gives_way_to_the_indexed_creation_time() -> None:
    # an older houkai that rewrote created_at left the copy behind
    fields = {"created_at": b"1796425880.13", "created": b"1796425880.133422"}
    assert codec.created_at(fields) == 1796425880.133422  # a search's rounded value
    assert codec.created_at({**fields, "created_at": b"1796000000.5"}) == 1796000000.5
    assert codec.created_at({"created_at": b"1796425880.13"}) == 1796425880.13
    assert codec.created_at({"created_at": b"1000.0", "created": b"1000.0"}) == 1000.0


def test_filters_are_pushed_down(store: MemoryStore) -> None:
    old = store.remember(
        "deploy with the blue green script", type="procedural", importance=0.9, source="wiki"
    )
    store.set_raw_fields({old.id: {"created_at": repr(time.time() - 86400 * 10)}})
    new = store.remember(
        "deploy notes from yesterday",
        type="episodic",
        importance=0.2,
        tags=["deploy"],
        source="chat",
    )
    ids = lambda rs: {m.id for m, _ in rs}  # noqa: E731
    assert ids(store.recall("deploy", k=5, type="procedural")) == {old.id}
    assert ids(store.recall("deploy", k=5, tag="deploy")) == {new.id}
    assert ids(store.recall("deploy", k=5, min_importance=0.5)) == {old.id}
    assert ids(store.recall("deploy", k=5, source="chat")) == {new.id}
    assert ids(store.recall("deploy", k=5, since=time.time() - 86400)) == {new.id}
    assert ids(store.recall("deploy", k=5, until=time.time() - 86400)) == {old.id}
    assert ids(store.recall("deploy", k=5, mode="hybrid", type="episodic")) == {new.id}


@pytest.mark.parametrize(
    "tag",
    [
        "with space",
        "braces{x}",
        "pipe|bar",
        "at@sign",
        'quote"d',
        "apo'strophe",
        "dash-ed",
        "colon:x",
        "paren(s)",
        "日本語タグ",
        "émoji 🚀",
        "star*",
        "back\\slash",
        "%$#!",
        "-",
    ],
)
def test_tags_with_special_characters_roundtrip_and_filter_exactly(
    store: MemoryStore, tag: str
) -> None:
    hit = store.remember("a memory carrying a tricky tag", tags=[tag])
    store.remember("a memory carrying a tricky tag too", tags=[tag.upper() + "x", "other"])
    assert store.get(hit.id).tags == [tag]
    found = store.recall("tricky tag", k=5, tag=tag)
    assert [m.id for m, _ in found] == [hit.id]
    assert [m.id for m in store.list_recent(tag=tag)] == [hit.id]


def test_tag_filter_is_case_sensitive_and_not_injectable(store: MemoryStore) -> None:
    a = store.remember("alpha", tags=["Prod"])
    store.remember("beta", tags=["prod"])
    assert [m.id for m, _ in store.recall("alpha beta", k=5, tag="Prod")] == [a.id]
    assert store.recall("alpha", k=5, tag="*") == []
    assert store.recall("alpha", k=5, tag="} | @type:{semantic") == []
    assert store.recall("alpha", k=5, source="x} | *") == []


def test_comma_in_tag_rejected_like_the_seed(store: MemoryStore) -> None:
    with pytest.raises(ValueError, match="comma"):
        store.remember("x", tags=["a,b"])


def test_collections_are_isolated(make_store) -> None:
    alice, bob = make_store(), make_store()
    a = alice.remember("Alice's secret launch code is lemon")
    b = bob.remember("Bob's favourite fruit is lemon")
    for mode in ("semantic", "hybrid"):
        assert [m.id for m, _ in alice.recall("lemon", k=10, mode=mode)] == [a.id]
        assert [m.id for m, _ in bob.recall("lemon", k=10, mode=mode)] == [b.id]
    assert bob.get(a.id) is None
    assert alice.count() == 1 and bob.count() == 1
    assert bob.forget(a.id) is False and alice.get(a.id) is not None


def test_reopened_store_sees_everything(make_store, settings) -> None:
    first = make_store()
    ids = [m.id for m in first.remember_many(["one fact", "two facts", "three facts"])]
    reopened = MemoryStore(collection=first.collection_name, settings=settings)
    assert reopened.count() == 3
    assert {m.id for m in reopened.list_recent(limit=10)} == set(ids)
    assert reopened.recall("three", k=1, mode="hybrid")[0][0].id == ids[2]


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda s: s.remember("x", type="episodc"), "type must be one of"),
        (lambda s: s.remember("x", polarity=2), "polarity"),
        (lambda s: s.remember(""), "empty"),
        (lambda s: s.remember("x", ttl_seconds=0), "ttl_seconds"),
        (lambda s: s.remember("x", ttl_seconds=5, expires_at=10), "at most one"),
        (lambda s: s.remember("x", expires_at=-1), "expires_at"),
        (lambda s: s.remember("x", on_conflict="maybe"), "on_conflict must be one of"),
        (lambda s: s.remember("x", importance="high"), "importance"),
        (lambda s: s.recall("x", mode="hybird"), "mode must be one of"),
        (lambda s: s.recall("x", fusion="sum"), "fusion must be one of"),
        (lambda s: s.recall("x", type="nope"), "type must be one of"),
        (lambda s: s.recall("x", min_cosine=1.5), "min_cosine"),
        (lambda s: s.recall("x", diversity=-0.1), "diversity"),
        (lambda s: s.list_recent(limit=-1), "limit"),
        (lambda s: s.remember_many(["a"], on_conflict="raise"), "not supported"),
        (lambda s: s.remember_many([{"txt": "a"}]), "unknown remember item field"),
        (lambda s: s.edit("missing-id", text="y"), "no memory"),
    ],
)
def test_validation_errors_name_the_problem(store: MemoryStore, call, message) -> None:
    with pytest.raises((ValueError, KeyError), match=message):
        call(store)


def test_vocabularies_match_the_seed() -> None:
    assert MEMORY_TYPES == ("episodic", "semantic", "procedural", "feedback")
    assert LINK_RELS == (
        "related",
        "refines",
        "derived_from",
        "example_of",
        "contradicts",
        "supersedes",
        "follows",  # houkai's addition: written by remember_many(sequence=True)
    )
    assert RECALL_MODES == ("semantic", "hybrid")
    assert FUSIONS == ("weighted", "rrf")
    assert CONFLICT_POLICIES == ("ignore", "warn", "supersede", "raise")
    assert IMPORT_POLICIES == ("skip", "overwrite", "rename", "error")
    assert DIRECTIONS == ("out", "in", "both")


def test_remember_many_is_all_or_nothing_and_ordered(store: MemoryStore) -> None:
    with pytest.raises(ValueError):
        store.remember_many(["fine", {"text": "bad", "type": "wrong"}])
    assert store.count() == 0
    items = [
        "plain",
        RememberItem(text="item", tags=("t",)),
        {"text": "mapping", "importance": 0.9},
    ]
    stored = store.remember_many(items, batch_size=2)
    assert [m.text for m in stored] == ["plain", "item", "mapping"]
    assert stored[1].tags == ["t"] and stored[2].importance == 0.9
    assert all(store.get(m.id).state == "ready" for m in stored)


def test_edit_in_place_keeps_id_and_reembeds(store: MemoryStore) -> None:
    m = store.remember("The cache TTL is five minutes", tags=["cache"], source="ops")
    before = store.vectors([m.id])[m.id]
    same = store.edit(m.id, tags=["cache"])
    assert same.to_dict() == store.get(m.id).to_dict()
    entries_before = len(store.journal)
    edited = store.edit(m.id, text="Bananas are yellow", importance=0.8, source=None)
    assert edited.id == m.id and edited.source is None and edited.importance == 0.8
    after = store.vectors([m.id])[m.id]
    assert float(before @ after) < 0.9
    assert store.recall("yellow fruit", k=1)[0][0].id == m.id
    assert len(store.journal) == entries_before + 1
    assert store.journal.tail(1)[0].op == "edit"


def test_forget_nuke_count_list_recent(store: MemoryStore) -> None:
    first = store.remember("first")
    store.remember("second")
    third = store.remember("third")
    assert [m.text for m in store.list_recent(limit=2)] == ["third", "second"]
    assert store.forget(third.id) is True and store.forget(third.id) is False
    assert store.count() == 2 and store.get(first.id) is not None
    assert store.nuke() == 2 and store.count() == 0
    assert store.recall("first", k=3) == []


def test_touch_bumps_access_in_one_write_and_touch_false_does_not(store: MemoryStore) -> None:
    m = store.remember("The office wifi password rotates monthly")
    store.recall("wifi password", k=1)
    touched = store.get(m.id)
    assert touched.access_count == 1 and touched.last_accessed >= m.last_accessed
    store.recall("wifi password", k=1, touch=False)
    assert store.get(m.id).access_count == 1


def test_touch_never_resurrects_a_forgotten_memory(store: MemoryStore) -> None:
    m = store.remember("ephemeral")
    store.forget(m.id)
    store.touch_many([m])
    assert store.get(m.id) is None and not store.exists(m.id)


def test_superseded_and_expired_hidden_by_default(store: MemoryStore) -> None:
    live = store.remember("the build uses make")
    gone = store.remember("the build uses ant")
    store.set_raw_fields({gone.id: {"superseded_by": live.id, "sup": "1"}})
    expiring = store.remember("the build uses gradle", expires_at=time.time() - 1)
    ids = {m.id for m, _ in store.recall("the build uses", k=5)}
    assert ids == {live.id}
    assert gone.id in {m.id for m, _ in store.recall("build", k=5, include_superseded=True)}
    assert expiring.id in {m.id for m, _ in store.recall("build", k=5, include_expired=True)}
    assert {m.id for m in store.list_recent()} == {live.id}
    assert store.get(expiring.id) is not None


def test_memory_not_found_is_a_key_error() -> None:
    err = MemoryNotFound("abc")
    assert isinstance(err, KeyError) and "abc" in str(err)


def test_seed_style_embedding_function_is_accepted(make_store) -> None:
    def fn(texts):
        return [[float(len(t)), 1.0, 0.0] for t in texts]

    tiny = make_store(embedding_function=fn)
    tiny.remember("abc")
    assert tiny.index_params.dim == 3 and tiny.recall("abc", k=1)[0][0].text == "abc"


def test_edit_from_a_stale_read_keeps_concurrent_links(store: MemoryStore, monkeypatch) -> None:
    a, b = store.remember("service A calls service B"), store.remember("service B owns billing")
    stale = store.get(a.id)
    store.link(a.id, b.id, rel="related")  # lands between edit's read and its write
    monkeypatch.setattr(store.core, "get", lambda memory_id, **kw: stale)
    store.edit(a.id, importance=0.9)
    monkeypatch.undo()
    fresh = store.get(a.id)
    assert fresh.importance == 0.9 and [(x.to, x.rel) for x in fresh.links] == [(b.id, "related")]


def test_edit_never_recreates_a_memory_forgotten_meanwhile(store: MemoryStore, monkeypatch) -> None:
    m = store.remember("short-lived")
    stale = store.get(m.id)
    store.forget(m.id)
    monkeypatch.setattr(store.core, "get", lambda memory_id, **kw: stale)
    with pytest.raises(MemoryNotFound):
        store.edit(m.id, importance=0.9)
    monkeypatch.undo()
    assert store.get(m.id) is None and not store.exists(m.id)


def test_sorted_streaming_orders_ties_by_id_across_pages(store: MemoryStore) -> None:
    mems = store.remember_many([f"note number {i}" for i in range(23)])
    for i, m in enumerate(mems):  # groups of five memories share one created_at
        store.set_raw_fields({m.id: {"created_at": repr(1000.0 + i // 5)}})
    got = [m.id for batch in store.iter_memories(batch_size=3, sortby="created_at") for m in batch]
    want = [m.id for m in sorted(mems, key=lambda m: (mems.index(m) // 5, m.id))]
    assert got == want
    filtered = [
        m
        for batch in store.iter_memories("@type:{semantic}", batch_size=4, sortby="created_at")
        for m in batch
    ]
    assert len(filtered) == 23


def test_touch_leaves_the_indexed_hash_alone_until_flushed(store: MemoryStore) -> None:
    m = store.remember("quarterly planning notes for the platform team")
    store.recall("quarterly planning", k=1)
    hits = store.recall("quarterly planning", k=1)
    assert hits[0][0].access_count == 2  # what recall returns is already exact
    key, doc = store.keys.memory(m.id), store.keys.access_doc(m.id)
    assert store.client.hget(key, "access_count") == b"0"  # no re-index per recall
    assert store.get(m.id).access_count == 2
    assert store.list_recent()[0].access_count == 2
    assert store.flush_access() == 1
    # folded into the access document: the vector-bearing hash is never written (ADR 0075)
    assert store.client.hget(key, "access_count") == b"0"
    assert store.client.hget(doc, "access_count") == b"2"
    assert store.get(m.id).access_count == 2  # folded in, never counted twice
    assert store.client.hlen(store.keys.access) == 0


def test_decay_sees_recent_access_that_is_not_flushed_yet(store: MemoryStore) -> None:
    from houkai import DecayEngine

    m = store.remember("an old note that was just looked up", importance=0.3)
    store.set_raw_fields({m.id: {"last_accessed": repr(time.time() - 90 * 86400)}})
    engine = DecayEngine(store)
    assert [x.id for x in engine.prune(dry_run=True)] == [m.id]
    store.recall("old note looked up", k=1)  # a fresh access, only in the side hash
    assert engine.prune(dry_run=True) == []
    assert store.get(m.id) is not None


def test_list_recent_filters_and_sorts_in_redisearch(store):
    first = store.remember("the first note", source="wiki", importance=0.9)
    time.sleep(0.01)
    second = store.remember("the second note", source="chat", importance=0.2)
    time.sleep(0.01)
    third = store.remember("the third note", source="wiki", importance=0.5)
    ids = [m.id for m in store.list_recent(10)]
    assert ids == [third.id, second.id, first.id]
    assert [m.id for m in store.list_recent(10, source="wiki")] == [third.id, first.id]
    assert [m.id for m in store.list_recent(10, since=second.created_at)] == [third.id, second.id]
    by_importance = store.list_recent(10, sort="importance")
    assert [m.id for m in by_importance] == [first.id, third.id, second.id]
    with pytest.raises(ValueError, match="sort"):
        store.list_recent(10, sort="size")
