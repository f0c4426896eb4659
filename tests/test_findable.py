"""Every stored memory can be recalled (ADR 0069): distinct facts among a bulk of
near-identical lines come back by their own words, through every door.

The shape is the one a user reported: facts stored with ``houkai remember``, then a
bulk ``houkai ingest`` of 5,000 near-identical log lines. On 0.1's semantic recall
(HNSW at EF_RUNTIME 64 over a pool of k × 4) a quarter of such facts were missed
(``houkai bench findable``: 75 % of 20 found, generator 0); exact KNN below
``exact_knn_max`` and the keyword-widened pool above it find them all.
"""

from __future__ import annotations

import json
import random
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner

from houkai import MemoryStore
from houkai.cli import cli
from houkai.corpora import clustered
from houkai.db.schema import EXACT_PENDING, exact_filled
from houkai.domain.config import Settings, set_settings
from houkai.store import findability

N_FACTS, N_BULK = 20, 5000


def _cli_env(settings: Settings, collection: str, tmp: str) -> dict[str, str]:
    return {
        "REDIS_URL": settings.redis_url,
        "HOUKAI_KEY_PREFIX": settings.key_prefix,
        "HOUKAI_DATA_DIR": settings.data_dir,
        "HOUKAI_JOURNAL_ARCHIVE_DIR": settings.journal_archive_dir,
        "HOUKAI_CONFIG": f"{tmp}/absent.toml",
        "HOUKAI_COLLECTION": collection,
        "HOUKAI_PIPELINE_MODE": "inline",
        "NO_COLOR": "1",
    }


class Cli:
    def __init__(self, settings: Settings, collection: str, tmp: str) -> None:
        self.settings, self.env = settings, _cli_env(settings, collection, tmp)

    def __call__(self, *args: str, input: str | None = None, **env: str) -> Any:
        try:
            return CliRunner().invoke(
                cli, list(args), input=input, env={**self.env, **env}, catch_exceptions=False
            )
        finally:
            set_settings(self.settings)


@pytest.fixture(scope="module")
def bulk(settings: Settings, embedder, tmp_path_factory) -> Iterator[tuple[Cli, dict[str, str]]]:
    """20 facts remembered one by one, then 5,000 log lines ingested as JSONL: the
    facts' ids by text, and a CLI bound to the collection."""
    collection = f"find-{uuid.uuid4().hex[:8]}"
    run = Cli(settings, collection, str(tmp_path_factory.mktemp("find")))
    corpus = clustered.logs_corpus(N_FACTS + N_BULK, N_FACTS, seed=1, generator=0)
    ids: dict[str, str] = {}
    for text in corpus.texts[:N_FACTS]:
        result = run("remember", text, "--json")
        assert result.exit_code == 0, result.output
        ids[text] = json.loads(result.stdout)["id"]
    lines = "".join(json.dumps({"text": t}) + "\n" for t in corpus.texts[N_FACTS:])
    done = run("ingest", "--jsonl", "--json", input=lines)
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["done"] == N_BULK
    yield run, ids
    MemoryStore(collection=collection, settings=settings).drop()


def _collection(run: Cli) -> str:
    return run.env["HOUKAI_COLLECTION"]


def test_library_semantic_recall_returns_every_fact_right_after_the_ingest(bulk, settings):
    run, ids = bulk
    store = MemoryStore(collection=_collection(run), settings=settings)
    assert store.knn_exact()  # 5,020 memories: exact KNN
    missed = [t for t, mid in ids.items() if mid not in {m.id for m, _ in store.recall(t, k=5)}]
    assert missed == []


def test_above_exact_knn_max_the_hnsw_pool_still_returns_every_fact(bulk, settings):
    """A collection past exact_knn_max searches HNSW; the query's keyword hits join the
    pool, still ranked by cosine alone (semantic mode keeps its meaning)."""
    run, ids = bulk
    store = MemoryStore(collection=_collection(run), settings=settings.replace(exact_knn_max=0))
    assert not store.knn_exact()
    for text, mid in ids.items():
        got = store.recall(text, k=5, explain=True)
        assert mid in [m.id for m, _, _ in got], text
        scores = [s for _, s, _ in got]
        assert scores == sorted(scores, reverse=True)
        assert all(e["mode"] == "semantic" and e["score"] == e["cosine"] for _, _, e in got)


def test_semantic_widen_off_leaves_the_bare_hnsw_pool(bulk, settings, monkeypatch):
    """``semantic_widen = false`` (the bench's *before* server) skips the keyword hits."""
    run, ids = bulk
    from houkai.domain.text import query_terms
    from houkai.recall import engine

    calls: list[list[str]] = []
    real = engine.widen_leg

    def spy(core, pool, terms, *args):
        calls.append(terms)
        return real(core, pool, terms, *args)

    monkeypatch.setattr(engine, "widen_leg", spy)
    text = next(iter(ids))
    for widen in (True, False):
        tier = settings.replace(exact_knn_max=0, semantic_widen=widen)
        MemoryStore(collection=_collection(run), settings=tier).recall(text, k=5, touch=False)
    assert calls == [query_terms(text)]


def test_rest_semantic_recall_returns_every_fact(bulk, settings):
    from houkai.api.rest import create_app

    from houkai.app.service import MemoryService

    run, ids = bulk
    own = settings.replace(collection=_collection(run))
    client = create_app(own, MemoryService(own, actor="http")).test_client()
    for text, mid in ids.items():
        reply = client.get("/recall", query_string={"query": text, "k": 5})
        assert reply.status_code == 200, reply.get_data(as_text=True)
        assert mid in [hit["id"] for hit in reply.get_json()["results"]], text


def test_cli_semantic_recall_returns_every_fact(bulk):
    run, ids = bulk
    for text, mid in ids.items():
        result = run("recall", text, "-k", "5", "--json")
        assert result.exit_code == 0, result.output
        assert mid in [hit["id"] for hit in json.loads(result.stdout)], text


def test_findability_check_through_the_cli_and_doctor(bulk, settings):
    run, _ = bulk
    checked = run("findable", "--sample", "200", "--json")
    assert checked.exit_code == 0, checked.output
    report = json.loads(checked.stdout)
    assert report["ok"] and report["own_text"] == 1.0 and report["sampled"] > 100
    doctor = run("doctor")
    assert "findable" in doctor.output and "own_text=1.0" in doctor.output
    stats = MemoryStore(collection=_collection(run), settings=settings).findability()
    assert stats is not None and stats["checked_at"] == report["checked_at"]


def test_an_existing_collection_gets_its_exact_field_in_place(make_store, settings):
    """A collection made before exact KNN keeps its index: the FLAT field is added with
    FT.ALTER and used only once RediSearch has filled it."""
    name = f"alter-{uuid.uuid4().hex[:8]}"
    before = make_store(name, settings=settings.replace(exact_knn_max=0))
    stored = before.remember_many([f"memory number {i} about topic {i % 7}" for i in range(300)])
    assert not before.index_params.exact
    after = MemoryStore(collection=name, settings=settings)
    assert after.index_params.exact
    deadline = time.monotonic() + 60
    while not exact_filled(after.client, after.keys):
        assert time.monotonic() < deadline, "the exact field was never filled"
        time.sleep(0.2)
    assert after.client.hget(after.keys.meta, EXACT_PENDING) is None
    after.core._size_read_at = float("-inf")  # re-read the size and the fill state now
    assert after.knn_exact()
    assert stored[42].id in {m.id for m, _ in after.recall(stored[42].text, k=3)}


def test_exact_search_stops_past_exact_knn_max(make_store, settings):
    store = make_store(settings=settings.replace(exact_knn_max=10))
    store.remember_many([f"note {i}" for i in range(5)])
    assert store.index_params.exact and store.knn_exact()
    store.remember_many([f"more {i}" for i in range(10)])
    store.core._size_read_at = float("-inf")
    assert not store.knn_exact()


def test_no_exact_field_when_exact_knn_max_is_zero(make_store, settings):
    store = make_store(settings=settings.replace(exact_knn_max=0))
    info = store.client.execute_command("FT.INFO", store.keys.index)
    assert b"vecx" not in json.dumps(str(info)).encode()
    assert not store.knn_exact()


def test_repair_rewrites_missed_vectors_and_journals_them(make_store, monkeypatch):
    store = make_store()
    kept = store.remember_many([f"fact {i}: the {i}th server is in rack {i * 3}" for i in range(6)])
    gone = kept[5]
    calls: list[int] = []
    real = findability._graph_misses

    def first_miss_all(store_: Any, rows: list) -> list[int]:
        calls.append(len(rows))
        if len(calls) == 1:  # the probe: every sampled row "missed"
            return list(range(len(rows)))
        return real(store_, rows)  # the re-probe after re-insertion: the real graph

    monkeypatch.setattr(findability, "_graph_misses", first_miss_all)
    store.forget(gone.id)
    report = findability.check(store, sample=50, text=False)
    assert report.sampled == 5 and report.own_vector == 0.0
    assert report.repaired == 5 and report.unrepaired == 0 and report.ok
    assert not store.exists(gone.id)  # a forgotten memory is never written back
    entries = [e for e in store.journal_tail(50) if e.op == "reindex"]
    assert {e.id for e in entries} == {m.id for m in kept[:5]}
    after = store.get(kept[0].id)
    assert after is not None and after.text == kept[0].text and after.tags == kept[0].tags


def test_identical_memories_tie_instead_of_missing(make_store):
    """Eleven copies of one text: KNN 10 cannot return all, and the graph may reach some
    copies only through their twins; a tie is not a miss."""
    store = make_store()
    store.remember_many(["the same line again"] * 11 + ["something else entirely"])
    report = findability.check(store, sample=100, repair=False)
    assert report.sampled == 12 and report.own_vector == 1.0 and report.own_text == 1.0


def test_reports_reach_metrics_and_prometheus(make_store, settings):
    from houkai.api.prometheus import render

    from houkai.app.service import MemoryService

    store = make_store()
    store.remember_many(["alpha beta gamma", "delta epsilon", "zeta eta theta"])
    assert store.metrics()["findability"] == {}
    store.check_findable(sample=10)
    figures = store.metrics()["findability"]
    assert figures["own_text"] == 1.0 and figures["sampled"] == 3 and figures["ok"] == 1.0
    assert figures["own_word"] == 1.0  # each of the three holds words no other one holds
    service = MemoryService(settings, actor="test")
    service._stores[store.collection_name] = store
    text = render(service, [store.collection_name])
    assert f'houkai_findability_own_text{{collection="{store.collection_name}"}} 1' in text
    assert f'houkai_findability_own_word{{collection="{store.collection_name}"}} 1' in text
    assert service.stats(collection=store.collection_name)["findability"]["ok"] is True


def test_a_zero_vector_stored_before_they_were_refused_does_not_break_recall(make_store):
    """Older releases stored all-zero vectors (an import); RediSearch's cosine distance to
    one is NaN, which made every recall that met it fail."""
    import numpy as np

    store = make_store()
    kept = store.remember_many(["the deploy runbook lives in the wiki", "zero vector row"])
    width = len(store.vector_blob(np.ones(store.index_params.dim, dtype=np.float32)))
    store.client.hset(store.keys.memory(kept[1].id), "vec", bytes(width))  # all zeros
    for mode in ("semantic", "hybrid"):
        got = store.recall("zero vector row deploy runbook", k=5, mode=mode, explain=True)
        assert kept[0].id in [m.id for m, _, _ in got]
        assert all(np.isfinite(score) for _, score, _ in got)


def test_under_the_recall_filter_a_memorys_own_words_still_find_it(make_store):
    """The "live" clauses every recall carries were intersected into the TFIDF keyword
    query and changed its scores: on these 200 facts 7 fell out of the first 20 hits for
    their own words. As a zero-weight clause it loses none."""
    import time as clock

    from houkai.db.filters import filter_expr
    from houkai.domain.text import query_terms
    from houkai.recall.candidates import KEYWORD_SCORER, keyword_query
    from houkai.recall.parsed import read_query
    from houkai.store import lexstats
    from houkai.store.search import search

    store = make_store()
    texts = clustered.facts(200, 3)
    store.remember_many(texts)
    where = filter_expr(now=clock.time())
    lost = []
    for text in texts:
        terms = query_terms(text)
        stats = read_query(store, text, clock.time(), hybrid=True).stats
        assert stats is not None
        words = lexstats.candidate_terms(terms, stats)
        _, hits = search(
            store.client, store.keys.index, keyword_query(words, where),
            return_fields=("text",), limit=20, scorer=KEYWORD_SCORER,
        )  # fmt: skip
        if text not in [h.str("text") for h in hits]:
            lost.append(text)
    assert lost == []


@pytest.fixture(scope="module")
def dense(settings: Settings, embedder) -> Iterator[tuple[Any, list[str], list[str]]]:
    """2,000 facts of 18 templates (about 110 siblings each), then 4,000 log lines, all
    in write order, in a collection searched over HNSW (exact search off)."""
    corpus = clustered.logs_corpus(6000, 2000, seed=1, generator=0)
    store = MemoryStore(
        collection=f"dense-{uuid.uuid4().hex[:8]}", settings=settings.replace(exact_knn_max=0)
    )
    ids = [m.id for m in store.remember_many(corpus.texts)]
    yield store, [corpus.texts[i] for i in corpus.fact_indexes], ids[: len(corpus.fact_indexes)]
    store.drop()


def test_semantic_recall_over_hnsw_finds_what_exact_search_finds(dense):
    """Written before a bulk of other lines, facts sit where the HNSW search from the
    graph's entry point does not arrive; the keyword matches' exact KNN joins the pool.
    On 0.1's pool and the TFIDF-ranked keyword hits, 14 of these 2,000 facts were not
    returned by their own text. The guarantee: semantic recall's top 5 holds each fact
    whenever exact search over the stored vectors ranks it there."""

    from houkai.bench.recall import read_vectors

    store, texts, ids = dense
    stored, matrix, _, _ = read_vectors(store)
    row = {mid: i for i, mid in enumerate(stored)}
    missed = []
    for text, mid in zip(texts, ids, strict=True):
        qvec = store.query_vector(text)
        sims = matrix @ qvec
        if int((sims > sims[row[mid]]).sum()) >= 5:
            continue  # exact search itself ranks a sibling first (int8 encoder noise)
        if mid not in [m.id for m, _ in store.recall(text, k=5, touch=False)]:
            missed.append(text)
    assert missed == []


def test_keyword_neighbours_hold_each_fact_under_the_recall_filter(dense):
    """The recall's "live" filter intersected into RediSearch's keyword ranking dropped
    facts among their siblings (158 of 400 kept at 20k); ranked by cosine over the
    keyword matches, each fact's own words bring it in."""
    import time as clock

    from houkai.db.filters import filter_expr
    from houkai.domain.text import query_terms
    from houkai.recall.candidates import keyword_neighbours
    from houkai.recall.parsed import read_query
    from houkai.store import lexstats

    store, texts, ids = dense
    where = filter_expr(now=clock.time())
    lost = []
    for text, mid in list(zip(texts, ids, strict=True))[::5]:
        terms = query_terms(text)
        pool: dict[str, Any] = {}
        read = read_query(store, text, clock.time(), hybrid=True)
        assert read.stats is not None and read.vector is not None
        words = lexstats.candidate_terms(terms, read.stats)
        keyword_neighbours(store, pool, words, where, 40, read.vector)
        if mid not in pool:
            lost.append(text)
    assert lost == []


def test_a_memory_still_cut_off_after_one_reinsert_is_tried_again(make_store, monkeypatch):
    """A re-inserted node gets a new random level and new edges: the repair tries up to
    REPAIR_ATTEMPTS times before a memory counts as unrepaired (a fresh-clone run once saw
    one memory of 5,020 missed after a single re-insertion)."""
    store = make_store()
    store.remember_many([f"fact {i}: the {i}th switch is in rack {i * 7}" for i in range(4)])
    probes: list[int] = []
    real = findability._graph_misses

    def stubborn(store_: Any, rows: list) -> list[int]:
        probes.append(len(rows))
        if len(probes) <= 2:  # the probe and the first re-probe: the first row is missed
            return [0]
        return real(store_, rows)

    monkeypatch.setattr(findability, "_graph_misses", stubborn)
    report = findability.check(store, sample=50, text=False)
    assert report.repaired == 1 and report.unrepaired == 0 and report.ok
    assert probes == [4, 1, 1]  # probe, re-probe after the first re-insert, then after the second


def test_the_graph_decides_ok_only_where_recall_searches_it():
    """Distinct facts stored before a bulk of clustered lines can stay out of the HNSW
    graph's reach however often they are re-inserted (ADR 0087: 3 of 5,020 here, 2 still
    unreachable after three re-insertions, round after round). Below exact_knn_max recall
    searches exactly and finds them; the report says so without failing."""
    report = findability.FindabilityReport(
        collection="c", checked_at=0.0, sampled=200, live=5020, exact=True,
        own_vector=0.995, own_text=1.0, repaired=0, unrepaired=1,
    )  # fmt: skip
    assert report.ok and report.to_dict()["unrepaired"] == 1
    graph = findability.FindabilityReport(**{**report.__dict__, "exact": False})
    assert not graph.ok  # past exact_knn_max the graph answers: an unreachable memory fails
    missed = findability.FindabilityReport(**{**report.__dict__, "own_text": 0.99})
    assert not missed.ok  # recall missing a memory fails in either mode
    unworded = findability.FindabilityReport(**{**report.__dict__, "own_word": 0.99})
    assert not unworded.ok  # so does a memory its own identifier does not bring back


def _log_line(rng: random.Random, i: int) -> str:
    """One of five kinds of service log line (the shape of the probe that found ADR 0113)."""
    t = f"2026-11-03 {10 + (i // 3600) % 12:02d}:{(i // 60) % 60:02d}:{i % 60:02d}"
    kind, job, w = rng.randrange(5), 80000 + rng.randrange(20000), rng.randrange(1, 13)
    return [
        f"[{t}] worker-{w} retry {rng.randrange(1, 6)}/5 for job {job}: upstream timeout after 30s",
        f"{t.replace(' ', 'T')}Z INFO api-gateway GET /v1/orders/{job} 200 "
        f"in {rng.randrange(5, 400)}ms",
        f"Nov 03 {t[11:]} node-{w} kubelet[{2000 + w}]: Liveness probe failed for pod "
        f"checkout-7f9c-{job % 1000:03d} (timeout)",
        f"[scheduler] {t[:16]} queued batch {job} ({rng.randrange(10, 900)} items) on queue=emails",
        f'level=warn ts={t.replace(" ", "T")}Z caller=cache.go:88 msg="cache miss" key=user:{job}',
    ][kind]


IDENTIFIED = (
    "The nightly reconciliation cron runs at 02:30 UTC on host batch-west-2 and emails "
    "finance-ops@kestrel.io"
)


@pytest.fixture(scope="module")
def identified(settings: Settings, embedder) -> Iterator[tuple[MemoryStore, str]]:
    """A fact with a rare identifier among 300 log lines sharing its other parts ("batch",
    "2"), written in one batch after another fact: the store, and the fact's id."""
    store = MemoryStore(collection=f"ident-{uuid.uuid4().hex[:8]}", settings=settings)
    rng = random.Random(12)
    first = "[2026-11-03 10:14:07] db-host-3 FATAL: disk /var/lib/pgdata is 97% full"
    written = store.remember_many([first, IDENTIFIED] + [_log_line(rng, i) for i in range(300)])
    yield store, written[1].id
    store.drop()


@pytest.mark.parametrize(
    "filters",
    [{}, {"stages": ()}, {"min_importance": 0.1}, {"since": 1.0}, {"type": "semantic"}],
    ids=["defaults", "no-stages", "min-importance", "since", "type"],
)
def test_a_rare_identifier_recalls_its_one_memory(identified, filters):
    """Asked by its identifier, the one memory holding "batch-west-2" comes back first. The
    keyword query under the recall's filter ranked it 68th of 82 (RediSearch counted one
    word of the query's union and divided by a slop over the filter's clauses), so the
    keyword leg's limit cut it and hybrid recall at k=5, 10 and 50 missed it (ADR 0113)."""
    store, fact = identified
    hits = store.recall("batch-west-2", k=5, mode="hybrid", touch=False, **filters)
    assert [m.id for m, _ in hits][:1] == [fact]


def test_the_check_asks_each_memory_by_a_word_only_it_holds(identified):
    """The findability check asks hybrid recall for a sampled memory by its first word
    holding a part no other memory holds, an identifier first ("batch-west-2", not
    "nightly"): the query that lost the fact before ADR 0113, which the check's own-text
    probe could not see. Every memory holding such a word comes back by it."""
    store, _ = identified
    words = findability.own_words(store, [IDENTIFIED, "worker-3 retry 2/5 for job"])
    assert words == ["batch-west-2", None]  # none of the second's words is its own
    report = findability.check(store, sample=1000, repair=False)
    assert report.worded > 1 and report.own_word == 1.0 and report.missed_word == []
    assert report.ok


def test_the_filter_in_python_selects_what_the_query_selects(make_store):
    """Recall's unfiltered keyword leg keeps its hits by :func:`~houkai.db.filters.matches`:
    for every filter the query can carry it selects exactly the memories the index does."""
    import itertools
    import time as clock

    from houkai.db.filters import filter_expr, matches
    from houkai.store.search import search

    store = make_store()
    now = clock.time()
    made = [
        store.remember("alpha note", type="semantic", tags=["Ops", "db"], importance=0.9),
        store.remember("beta note", type="episodic", tags=["ops"], source="chat", user_id="u1"),
        store.remember("gamma note", importance=0.0, agent_id="a1", session_id="s1"),
        store.remember("delta note", tags=["db"], ttl_seconds=1, source="Chat"),
        store.remember("epsilon note", type="semantic", importance=0.3, user_id="u2"),
    ]
    store.supersede(made[4].id, made[0].id)
    later = now + 3600  # the TTL memory has expired by then
    choices = {
        "type": [None, "semantic"],
        "tag": [None, "ops", "db"],
        "min_importance": [None, 0.5],
        "source": [None, "chat"],
        "since": [None, now - 60],
        "include_superseded": [False, True],
        "include_expired": [False, True],
        "scope": [None, {"user_id": "u1"}, {"agent_id": "a1", "session_id": "s1"}],
    }
    memories = {m.id: store.get(m.id) for m in made}
    for values in itertools.product(*choices.values()):
        filters = dict(zip(choices, values, strict=True))
        where = filter_expr(now=later, **filters)
        _, hits = search(store.client, store.keys.index, where, return_fields=("id",), limit=50)
        indexed = {h.str("id") for h in hits}
        kept = {i for i, m in memories.items() if matches(m, now=later, **filters)}
        assert kept == indexed, filters


def test_the_cli_lists_what_the_word_probe_missed(identified, settings, monkeypatch, tmp_path):
    """A memory its own word did not bring back is named below the table, as the text and
    vector probes' misses are, and the command fails."""
    store, _ = identified
    monkeypatch.setattr(findability, "_worded", lambda store, memory_id, word: False)
    run = Cli(settings, store.collection_name, str(tmp_path))
    checked = run("findable", "--sample", "1000", "--no-repair")
    assert checked.exit_code == 1
    assert "missed_word: " in checked.output


def test_a_rare_identifier_comes_back_through_every_door(identified, settings, tmp_path):
    """REST, MCP and the CLI answer `batch-west-2` with its one memory first, as the
    library does (ADR 0113)."""
    from houkai.api import mcp_server
    from houkai.api.rest import create_app

    from houkai.app.service import MemoryService

    store, fact = identified
    scoped = settings.replace(collection=store.collection_name)
    client = create_app(scoped, MemoryService(scoped, actor="http")).test_client()
    reply = client.get("/recall?query=batch-west-2&k=5&mode=hybrid")
    assert reply.status_code == 200, reply.get_data(as_text=True)
    assert reply.get_json()["results"][0]["id"] == fact
    mcp_server.set_service(MemoryService(scoped, actor="mcp"))
    try:
        found = mcp_server.call_tool("recall", {"query": "batch-west-2", "k": 5, "mode": "hybrid"})
    finally:
        mcp_server.set_service(None)
    assert found[0]["id"] == fact
    run = Cli(settings, store.collection_name, str(tmp_path))
    result = run("recall", "batch-west-2", "--mode", "hybrid", "-k", "5", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[0]["id"] == fact
