"""The ``context`` stage reads no neighbours where no memory follows another: the
collection's statistics say whether one does (``lexstats.FOLLOWS_FIELD``), written by
every path that writes a ``follows`` link, so an agent's separate notes cost no round trip
(ADR 0099). A collection written before the flag keeps the round trip."""

from __future__ import annotations

import time

import pytest
from test_recall_stages import COOKING, EXCHANGE, FILLER, QUERY

from houkai import MemoryStore
from houkai.recall.stages import context
from houkai.store import lexmigrate
from houkai.store.lexmigrate import learn_follows
from houkai.store.lexstats import FOLLOWS_FIELD, term_stats


def _follows(store: MemoryStore) -> bool | None:
    return term_stats(store.core.client, store.core.keys.lexstats, []).follows


def _neighbour_reads(store: MemoryStore, monkeypatch) -> list[int]:
    """Recall with the ``context`` stage, counting the neighbour round trips it sends."""
    sent: list[int] = []
    real = context.neighbours_round

    def counted(ctx, pool):
        pipeline = ctx.core.client.pipeline

        def counting(*a, **k):
            sent.append(1)
            return pipeline(*a, **k)

        monkeypatch.setattr(ctx.core.client, "pipeline", counting)
        try:
            return real(ctx, pool)
        finally:
            monkeypatch.setattr(ctx.core.client, "pipeline", pipeline)

    monkeypatch.setattr(context, "neighbours_round", counted)
    store.recall(QUERY, k=5, mode="hybrid", stages=("context",), touch=False)
    return sent


def test_separate_notes_cost_no_neighbour_round_trip(store: MemoryStore, monkeypatch):
    store.remember_many(FILLER + COOKING)
    assert _follows(store) is False  # written by the collection's first write
    assert _neighbour_reads(store, monkeypatch) == []


def test_a_sequence_sets_the_flag_and_its_neighbours_are_read(store: MemoryStore, monkeypatch):
    store.remember_many(FILLER + COOKING)
    _, answer = store.remember_many(EXCHANGE, sequence=True)
    assert _follows(store) is True
    assert _neighbour_reads(store, monkeypatch) != []
    hits = store.recall(QUERY, k=10, mode="hybrid", stages=("context",), touch=False)
    assert answer.id in [m.id for m, _ in hits]


def test_a_follows_link_made_later_sets_the_flag(store: MemoryStore):
    question, answer = store.remember_many(EXCHANGE)
    assert _follows(store) is False
    store.link(question.id, answer.id, "related")
    assert _follows(store) is False  # another kind of link says nothing of turns
    store.link(answer.id, question.id, "follows")
    assert _follows(store) is True
    store.unlink(answer.id, question.id)
    assert _follows(store) is True  # never cleared: at worst one round trip for nothing


def test_a_collection_written_before_the_flag_keeps_the_round_trip(store: MemoryStore, monkeypatch):
    store.remember_many(FILLER + COOKING)
    store.client.hdel(store.keys.lexstats, FOLLOWS_FIELD)
    store.remember("Deploys go out on Tuesdays.")  # a later write does not guess
    assert _follows(store) is None
    assert _neighbour_reads(store, monkeypatch) != []


def test_an_emptied_collection_learns_the_flag_on_its_next_write(store: MemoryStore):
    first = store.remember("Deploys go out on Tuesdays.")
    store.client.hdel(store.keys.lexstats, FOLLOWS_FIELD)  # as written by an older release
    store.forget(first.id)
    store.remember("Deploys go out on Thursdays now.")
    assert _follows(store) is False  # no memory was left to follow another


def test_the_flag_changes_no_result(store: MemoryStore):
    """With no memory following another the lookup finds nothing: the same ranking with
    the flag read as "0" and as unknown."""
    store.remember_many(FILLER + COOKING + EXCHANGE)
    assert _follows(store) is False
    now = time.time()  # one clock for both: recency moves scores otherwise
    known = store.recall(QUERY, k=10, mode="hybrid", touch=False, as_of=now)
    store.client.hdel(store.keys.lexstats, FOLLOWS_FIELD)
    unknown = store.recall(QUERY, k=10, mode="hybrid", touch=False, as_of=now)
    assert [(m.id, s) for m, s in known] == [(m.id, s) for m, s in unknown]


def test_an_import_of_turns_sets_the_flag(store: MemoryStore, make_store, tmp_path):
    store.remember_many(EXCHANGE, sequence=True)
    path = tmp_path / "turns.ahkai"
    store.export(path)
    fresh = make_store()
    fresh.import_(path)
    assert _follows(fresh) is True


def _forget_flag(store: MemoryStore) -> None:
    """The statistics as a release before the flag left them."""
    store.client.hdel(store.keys.lexstats, FOLLOWS_FIELD)
    assert _follows(store) is None


def _learn(store: MemoryStore, batch: int = 500) -> bool:
    return learn_follows(store.client, store.keys.incoming_prefix, store.keys.lexstats, batch)


def test_a_collection_written_before_the_flag_learns_none_follows(store: MemoryStore, monkeypatch):
    question, answer = store.remember_many(FILLER + COOKING)[:2]
    store.link(question.id, answer.id, "related")  # a reverse-link set, of another kind
    _forget_flag(store)
    assert _learn(store) is False
    assert _follows(store) is False
    assert _neighbour_reads(store, monkeypatch) == []


@pytest.mark.parametrize("batch", [1, 500])  # a full batch each key; one partial batch
def test_a_collection_written_before_the_flag_learns_a_sequence(
    store: MemoryStore, monkeypatch, batch: int
):
    store.remember_many(FILLER + COOKING)
    for i, first in enumerate(store.remember_many([f"note {n} about tea" for n in range(12)])):
        store.link(first.id, store.remember(f"an aside {i}").id, "related")
    store.remember_many(EXCHANGE, sequence=True)
    _forget_flag(store)
    assert _learn(store, batch=batch) is True
    assert _follows(store) is True
    assert _neighbour_reads(store, monkeypatch) != []


def test_a_sequence_written_during_the_scan_is_not_overwritten(store: MemoryStore, monkeypatch):
    """The scan finds no turn, but a current writer records one while it runs: its "1"
    stands ("0" is written only where nothing was written meanwhile)."""
    store.remember_many(FILLER + COOKING)
    _forget_flag(store)
    real = lexmigrate._any_follows

    def meanwhile(client, keys):
        store.remember_many(EXCHANGE, sequence=True)  # sets the flag as it writes
        return real(client, keys[:0])

    monkeypatch.setattr(lexmigrate, "_any_follows", meanwhile)
    store.link(store.remember("a").id, store.remember("b").id, "related")  # one set to scan
    assert _learn(store) is True
    assert _follows(store) is True


def test_a_flag_already_set_is_not_learned_again(store: MemoryStore, monkeypatch):
    store.remember_many(EXCHANGE, sequence=True)
    scanned: list[str] = []
    real = store.client.scan_iter
    monkeypatch.setattr(
        store.client, "scan_iter", lambda *a, **k: scanned.append("scan") or real(*a, **k)
    )
    assert _learn(store) is True
    assert scanned == []


def test_collections_migrate_learns_the_flag(settings, make_store):
    from houkai.app.service import MemoryService

    store = make_store()
    store.remember_many(FILLER + COOKING)
    _forget_flag(store)
    service = MemoryService(settings, actor="cli")
    result = service.collection_migrate(name=store.collection_name, vector_type=store.vector_type)
    assert result["follows"] is False and result["changed"] is False
    assert _follows(store) is False
