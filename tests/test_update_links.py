"""An update worded away from the question is found through the note it updates: the link
written with it (ADR 0105, :mod:`houkai.store.updates`)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import redis
from _dated import DAY, ranking, write_dated
from test_recall_stages_update_words import OFFICE

from houkai import MemoryStore
from houkai.bench.locomo import backdate
from houkai.pipeline.write import Pipeline
from houkai.recall.asking import intent
from houkai.recall.statements import may_update
from houkai.store import updates
from houkai.store.lexstats import LINKS_INFERRED_FIELD, UPDATES_FIELD

JIRA = "Product and engineering at Tandemly track work in Jira."
LINEAR = (
    "Tandemly moved engineering and product onto Linear on September 1; "
    "the Jira projects are archived."
)
TANDEMLY = [
    "User works at Tandemly, an expense-management company headquartered in Denver.",
    "Kara Lindgren is the data analyst the user works with on activation metrics.",
    "User goes into the office on Tuesdays and Wednesdays and works from home otherwise.",
    "Dev Kapoor works remotely from Boulder and comes into the office on Wednesdays.",
]
DOCKER = [
    "In the checkout frontend the docker image grew past 1 GB; switched to a slim base.",
    "Note for next time (auth-gateway): the docker image grew past 1 GB. Switched to slim.",
    "search-indexer: the docker image grew past 1 GB on Friday, switched to a slim base.",
    "The billing API's docker image grew past 1 GB; switched it to a slim base as well.",
]


def _updated_by(store: MemoryStore, memory_id: str) -> set[str]:
    return {m.decode() for m in store.client.smembers(store.keys.updated_by(memory_id))}


def test_an_update_is_told_from_its_text() -> None:
    assert may_update(LINEAR, JIRA)
    assert not may_update(JIRA, LINEAR)  # says no word of change
    # two services' facts, not a fact and its update
    assert not may_update(
        "checkout-web is on Redis streams now; RabbitMQ topics are drained.",
        "billing-api is on RabbitMQ now; Redis streams topics are drained.",
    )
    # two owners' facts
    assert not may_update(
        "Theo's doctor is now Dr. Paul Nguyen at Cherry Creek.",
        "User's doctor is Dr. Miriam Costa at Cherry Creek.",
    )
    # what a whole family of notes says is no echo of one of them
    common = frozenset({"docker", "image", "grew", "past", "gb", "slim", "base", "switched"})
    assert may_update(DOCKER[1], DOCKER[0])
    assert not may_update(DOCKER[1], DOCKER[0], common)


def test_a_question_with_a_past_verb_is_not_about_the_present() -> None:
    assert intent("what went wrong when customers got the same invoice email twice?") == ""
    assert intent("Which vendor did we choose?") == ""
    assert intent("Who chose the vendor?") == ""  # "chose", not "choose"
    assert intent("What do we use for issue tracking at work?") == "present"
    assert intent("Who do I go to with people issues?") == "present"


def test_a_present_question_finds_the_update_worded_away(store: MemoryStore) -> None:
    jira, linear, *_ = write_dated(
        store, [(JIRA, 180), (LINEAR, 90), *((t, 100 + i) for i, t in enumerate(TANDEMLY + OFFICE))]
    )
    assert _updated_by(store, jira) == {linear}
    assert store.client.hget(store.keys.lexstats, UPDATES_FIELD) == b"1"
    first, explain = ranking(store, "What do we use for issue tracking at work?")[0]
    assert first == linear and explain["stages"]["updates"] == jira
    # a question about the past keeps the old fact first, and nothing is lifted
    past = ranking(store, "What did we use for issue tracking at first?")
    assert past[0][0] == jira
    assert all("updates" not in e.get("stages", {}) for _, e in past)


def test_the_newer_is_read_at_recall_not_at_write(store: MemoryStore) -> None:
    """A batch written in any order, or backdated, links the same: the update is the
    newer of the two when asked, else nothing moves."""
    linear, jira, *_ = write_dated(
        store, [(LINEAR, 180), (JIRA, 90), *((t, 100 + i) for i, t in enumerate(TANDEMLY + OFFICE))]
    )
    assert _updated_by(store, jira) == {linear}  # written as it says, dated as it is not
    hits = ranking(store, "What do we use for issue tracking at work?")
    assert hits[0][0] == jira
    assert all("updates" not in e.get("stages", {}) for _, e in hits)


def test_a_family_of_near_identical_notes_links_nothing(store: MemoryStore) -> None:
    ids = write_dated(store, [(t, 100 - 10 * i) for i, t in enumerate(DOCKER + OFFICE)])
    assert not any(_updated_by(store, i) for i in ids)


def test_notes_without_a_word_of_change_write_no_link_and_no_flag(store: MemoryStore) -> None:
    write_dated(store, [(JIRA, 100), *((t, 90) for t in TANDEMLY)])
    assert store.client.hget(store.keys.lexstats, UPDATES_FIELD) is None
    assert not list(store.client.scan_iter(match=store.keys.updated_by("*")))


def test_a_forgotten_update_leaves_recall_as_it_was(store: MemoryStore) -> None:
    jira, linear, *_ = write_dated(
        store, [(JIRA, 180), (LINEAR, 90), *((t, 100 + i) for i, t in enumerate(TANDEMLY + OFFICE))]
    )
    store.forget(linear)
    hits = ranking(store, "What do we use for issue tracking at work?")
    assert hits[0][0] == jira and linear not in {mid for mid, _ in hits}


def test_the_write_pipeline_links_what_it_embeds(store: MemoryStore) -> None:
    job = Pipeline(store, mode="inline").submit([JIRA, *TANDEMLY, *OFFICE, LINEAR])
    jira, linear = job.memory_ids[0], job.memory_ids[-1]
    now = time.time()
    ages = {mid: 100.0 for mid in job.memory_ids} | {jira: 180.0, linear: 90.0}
    backdate(store, {mid: now - days * DAY for mid, days in ages.items()})
    assert _updated_by(store, jira) == {linear}
    assert ranking(store, "What do we use for issue tracking at work?")[0][0] == linear


def _as_an_earlier_release_left_it(store: MemoryStore, *ids: str) -> None:
    """No update link, no flag, no marker: a collection written before links were inferred."""
    store.client.delete(*(store.keys.updated_by(i) for i in ids))
    store.client.hdel(store.keys.lexstats, UPDATES_FIELD, LINKS_INFERRED_FIELD)


def _relink(store: MemoryStore, **options: Any) -> int | None:
    s = store.settings
    return updates.relink(
        store.client,
        store.keys,
        ef_runtime=s.hnsw_ef_runtime,
        exact_upto=s.exact_knn_max,
        **options,
    )


def _all_links(store: MemoryStore, ids: list[str]) -> dict[str, set[str]]:
    return {i: _updated_by(store, i) for i in ids if _updated_by(store, i)}


def test_migrate_links_the_memories_an_earlier_release_wrote(store: MemoryStore) -> None:
    jira, linear, *others = write_dated(
        store, [(JIRA, 180), (LINEAR, 90), *((t, 100 + i) for i, t in enumerate(TANDEMLY + OFFICE))]
    )
    _as_an_earlier_release_left_it(store, jira, *others)
    assert ranking(store, "What do we use for issue tracking at work?")[0][0] == jira
    assert _relink(store, batch_size=3) == 1  # batches smaller than the collection
    assert _updated_by(store, jira) == {linear}
    assert store.client.hget(store.keys.lexstats, UPDATES_FIELD) == b"1"
    marker = store.client.hget(store.keys.lexstats, LINKS_INFERRED_FIELD)
    assert marker == updates.LINKS_INFERRED.encode()
    assert ranking(store, "What do we use for issue tracking at work?")[0][0] == linear
    assert _relink(store) == 0  # once per way of inferring them


def test_a_collection_written_now_is_not_read_again(store: MemoryStore, monkeypatch: Any) -> None:
    """Every write links itself: the first one records the marker, and migrate reads nothing."""
    write_dated(store, [(JIRA, 180), (LINEAR, 90)])
    marker = store.client.hget(store.keys.lexstats, LINKS_INFERRED_FIELD)
    assert marker == updates.LINKS_INFERRED.encode()
    monkeypatch.setattr(updates, "iter_keys", lambda *a, **k: pytest.fail("read again"))
    assert _relink(store) == 0


def test_relinking_finds_the_links_written_one_at_a_time(store: MemoryStore) -> None:
    """Each memory's neighbours are sought among the older ones, as when it was written
    alone: no link backwards, none lost to a newer neighbour."""
    chain = [
        "Standup is at 9:30 in the Birch room.",
        "Standup moved to 10:00 in the Birch room.",
        "Standup moved to 10:15 in the Birch room.",
        "Standup moved to 10:30 in the Birch room.",
        "We track work in Jira.",
        "We moved from Jira to Linear.",
        "We moved from Linear to Asana.",
        "We moved from Asana to Shortcut.",
    ]
    now = time.time()
    ids = []
    for n, text in enumerate([*TANDEMLY, *chain]):  # one at a time, oldest first
        memory = store.remember(text)
        backdate(store, {memory.id: now - (100 - n) * DAY})
        ids.append(memory.id)
    written = _all_links(store, ids)
    assert written  # the chains link as they are written
    _as_an_earlier_release_left_it(store, *ids)
    assert _relink(store) == sum(len(v) for v in written.values())
    assert _all_links(store, ids) == written


def test_no_links_are_inferred_while_the_index_is_built(
    store: MemoryStore, monkeypatch: Any
) -> None:
    """Its searches would miss memories: nothing is recorded, and a later run links them."""
    jira, linear, *_ = write_dated(
        store, [(JIRA, 180), (LINEAR, 90), *((t, 100) for t in TANDEMLY)]
    )
    _as_an_earlier_release_left_it(store, jira)
    monkeypatch.setattr(updates, "still_indexing", lambda info: True)
    assert _relink(store) is None
    assert not _updated_by(store, jira)
    assert store.client.hget(store.keys.lexstats, LINKS_INFERRED_FIELD) is None
    monkeypatch.undo()
    assert _relink(store) == 1 and _updated_by(store, jira) == {linear}


def test_collections_migrate_links_without_loading_a_model(
    settings: Any, store: MemoryStore, monkeypatch: Any
) -> None:
    """The operation reads the collection itself: no store is opened, no embedder asked."""
    from houkai.app.service import MemoryService

    jira, linear, *others = write_dated(
        store, [(JIRA, 180), (LINEAR, 90), *((t, 100) for t in TANDEMLY)]
    )
    _as_an_earlier_release_left_it(store, jira, *others)
    service = MemoryService(settings, actor="cli")
    monkeypatch.setattr(
        "houkai.engines.embeddings.get_embedder", lambda *a, **k: pytest.fail("a model")
    )
    result = service.collection_migrate(name=store.collection_name, vector_type=store.vector_type)
    assert result["update_links"] == 1 and result["changed"] is False
    assert _updated_by(store, jira) == {linear}
    again = service.collection_migrate(name=store.collection_name, vector_type=store.vector_type)
    assert again["update_links"] == 0


def test_an_import_links_its_memories_again(make_store: Any, tmp_path: Path) -> None:
    """The links are derived, not archived: the import writes them as a write would."""
    src, dst = make_store(), make_store()
    jira, linear, *_ = write_dated(src, [(JIRA, 180), (LINEAR, 90), *((t, 100) for t in TANDEMLY)])
    src.export(tmp_path / "notes.ahkai")
    dst.import_(tmp_path / "notes.ahkai")
    assert _updated_by(dst, jira) == {linear}
    assert ranking(dst, "What do we use for issue tracking at work?")[0][0] == linear


def test_emptying_the_collection_drops_its_links(store: MemoryStore) -> None:
    jira, *_ = write_dated(store, [(JIRA, 180), (LINEAR, 90), *((t, 100) for t in TANDEMLY)])
    assert _updated_by(store, jira)
    store.nuke()
    assert not list(store.client.scan_iter(match=store.keys.updated_by("*")))
    assert store.client.hget(store.keys.lexstats, UPDATES_FIELD) is None


def test_a_failed_link_never_fails_the_write(
    store: MemoryStore, monkeypatch: Any, caplog: Any
) -> None:
    """The link is an index of the write: when inferring it fails, every memory is stored
    and recall still answers, from the blend."""
    import houkai.store.updates as updates

    def broken(*_args: Any) -> int:
        raise redis.ConnectionError("injected: the KNN of the update links")

    monkeypatch.setattr(updates, "_link", broken)
    with caplog.at_level("WARNING", logger="houkai.store.updates"):
        written = store.remember_many([JIRA, LINEAR, *TANDEMLY])
        single = store.remember("Kara moved to the growth team; Omar does activation now.")
    assert store.count() == len(written) + 1 == 2 + len(TANDEMLY) + 1
    assert store.get(single.id).text.startswith("Kara moved")
    assert "inferring update links failed" in caplog.text
    assert ranking(store, "What do we use for issue tracking at work?")
