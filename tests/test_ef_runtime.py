"""EF_RUNTIME is a query-time setting (ADR 0067): every KNN query passes it, and a new
``hnsw_ef_runtime`` never drops and re-indexes a collection."""

from __future__ import annotations

import json

import redis

from houkai import MemoryStore
from houkai.db.schema import IndexParams, read_meta, same_layout
from houkai.recall import candidates as recall_module


def _drops(monkeypatch) -> list[tuple]:
    """Every FT.DROPINDEX any client sends from now on."""
    sent: list[tuple] = []
    original = redis.Redis.execute_command

    def spy(self, *args, **options):
        if args and str(args[0]).upper() == "FT.DROPINDEX":
            sent.append(args)
        return original(self, *args, **options)

    monkeypatch.setattr(redis.Redis, "execute_command", spy)
    return sent


def test_a_new_ef_runtime_keeps_the_index_and_its_documents(settings, make_store, monkeypatch):
    first = make_store()
    first.remember("the staging database moved to eu-west-2")
    signature = read_meta(first.client, first.keys)["signature"]
    drops = _drops(monkeypatch)

    wider = MemoryStore(
        collection=first.collection_name,
        settings=settings.replace(hnsw_ef_runtime=first.index_params.ef_runtime + 136),
    )

    assert drops == []
    assert read_meta(wider.client, wider.keys)["signature"] == signature
    assert wider.index_params.ef_runtime == first.index_params.ef_runtime + 136
    assert [m.text for m, _ in wider.recall("staging database", k=1)] == [
        "the staging database moved to eu-west-2"
    ]


def test_a_new_graph_parameter_still_rebuilds_the_index(settings, make_store, monkeypatch):
    first = make_store()
    first.remember("a memory that survives the rebuild")
    drops = _drops(monkeypatch)

    MemoryStore(collection=first.collection_name, settings=settings.replace(hnsw_m=24))

    assert len(drops) == 1
    assert first.count() == 1


def test_every_knn_query_passes_the_configured_ef_runtime(settings, make_store, monkeypatch):
    store = make_store()
    store.remember("ef runtime probe")
    queries: list[str] = []
    original = recall_module.search_args  # every candidate query's command starts there

    def spy(index, query, *args, **kwargs):
        queries.append(query)
        return original(index, query, *args, **kwargs)

    monkeypatch.setattr(recall_module, "search_args", spy)
    wide = MemoryStore(
        collection=store.collection_name,
        settings=settings.replace(hnsw_ef_runtime=321, exact_knn_max=0),  # HNSW: no exact KNN
    )
    wide.recall("probe", k=3, mode="semantic")
    wide.recall("probe", k=3, mode="hybrid", tag="nothing")

    knn = [q for q in queries if "KNN" in q]
    assert len(knn) >= 2
    assert all("@vec $q" in q and "EF_RUNTIME 321" in q for q in knn), knn

    # While KNN is exact it searches the FLAT field, which takes no EF_RUNTIME (ADR 0069).
    queries.clear()
    MemoryStore(collection=store.collection_name, settings=settings).recall("probe", k=3)
    exact = [q for q in queries if "KNN" in q]
    assert exact and all("@vecx $q" in q and "EF_RUNTIME" not in q for q in exact), exact


def test_same_layout_ignores_only_query_time_fields():
    base = IndexParams(dim=384, ef_runtime=64)
    assert same_layout(base.signature(), IndexParams(dim=384, ef_runtime=200).signature())
    assert not same_layout(base.signature(), IndexParams(dim=384, m=24).signature())
    assert not same_layout(
        base.signature(), IndexParams(dim=384, vector_type="FLOAT16").signature()
    )
    assert not same_layout(None, base.signature())
    assert not same_layout("not json", base.signature())
    assert not same_layout(json.dumps([1]), base.signature())
