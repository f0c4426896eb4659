"""Issue 15's whole-collection scans: the export's direct row path and the conflict
scan's plain-KNN pre-filter, pair bookkeeping and incremental cursor (ADR 0045)."""

from __future__ import annotations

import gzip
import json
import time
from typing import Any

import numpy as np
import pytest

from houkai.store import conflicts as conflicts_mod
from houkai.store import export_rows, portability
from houkai.store.export_rows import f16_decimal

DARK = "The user prefers dark mode in the editor."
DARK2 = "The user prefers dark mode in their editor."
DARK3 = "The user likes dark mode in the editor."


def _rows(path: Any) -> list[dict[str, Any]]:
    lines = gzip.decompress(path.read_bytes()).splitlines()
    return [json.loads(line) for line in lines[1:] if line.strip()]


def _reference_row(store: Any, memory_id: str) -> dict[str, Any]:
    """What the export wrote before ADR 0045: a Memory, its to_dict, its float list."""
    memory = store.get(memory_id, with_vector=True)
    row = {"id": memory.id, "text": memory.text, "meta": memory.to_dict()}
    if memory.embedding is not None:
        row["vector"] = memory.embedding
    return row


@pytest.mark.parametrize("vector_type", ["FLOAT16", "FLOAT32"])
def test_export_rows_match_the_memory_path(settings, embedder, tmp_path, vector_type):
    from houkai import MemoryStore

    store = MemoryStore(
        collection=f"t-exp-{vector_type.lower()}-{time.time_ns() % 10**9}",
        settings=settings.replace(vector_type=vector_type),
        embedder=embedder,
    )
    try:
        _check_export_rows(store, tmp_path, vector_type)
    finally:
        store.drop()


def _check_export_rows(store: Any, tmp_path: Any, vector_type: str) -> None:
    assert store.vector_type == vector_type
    a = store.remember(DARK, tags=["ui", "é"], source="chat", importance=0.9, polarity=1)
    b = store.remember("Deploys happen on Tuesday.", type="procedural")
    c = store.remember("Deploys happen on Wednesday now.", expires_at=time.time() + 3600)
    store.link(a.id, b.id, "related")
    store.supersede(b.id, c.id)
    store.recall("dark mode", k=3)  # pending access counts: the export folds them in
    path = tmp_path / "out.ahkai"
    assert store.export(path, include_superseded=True).count == 3
    got = _rows(path)
    assert [r["id"] for r in got] == [a.id, b.id, c.id]  # created_at order
    for row in got:
        want = _reference_row(store, row["id"])
        vec, ref = row.pop("vector"), want.pop("vector")
        assert row == want
        dtype = np.float16 if vector_type == "FLOAT16" else np.float32
        assert np.array_equal(np.asarray(vec, dtype), np.asarray(ref, dtype))
    assert got[0]["meta"]["access_count"] >= 1


def test_export_fetches_in_bounded_batches(store, tmp_path, monkeypatch):
    for i in range(7):
        store.remember(f"bounded export memory number {i}", importance=0.1 * i)
    sizes: list[int] = []
    real = portability.fetch_rows

    def spy(client: Any, keys: list[str], fields: tuple[str, ...]) -> list[Any]:
        if all(k.startswith(store.keys.memory_prefix) for k in keys):  # not access documents
            sizes.append(len(keys))
        return real(client, keys, fields)

    monkeypatch.setattr(portability, "_EXPORT_BATCH", 3)
    monkeypatch.setattr(portability, "fetch_rows", spy)
    path = tmp_path / "b.ahkai"
    assert store.export(path).count == 7
    assert max(sizes) <= 3 and sum(sizes) == 7
    created = [r["meta"]["created_at"] for r in _rows(path)]
    assert created == sorted(created)


def test_every_float16_decimal_reads_back_as_its_bits():
    bits = np.arange(65536, dtype=np.uint16)
    values = bits.view(np.float16)
    for b in bits[np.isfinite(values)].tolist():
        text = f16_decimal(b)
        for dtype in (np.float16, np.float32, np.float64):
            back = np.float16(dtype(float(text)))
            assert back.view(np.uint16) == b or (back == 0 and values[b] == 0), (b, text)
    assert f16_decimal(0x7C00) == "NaN"  # never written: every write path refuses inf
    assert export_rows.f16_arrays([], 384) == []


def _pairs(conflicts: list[Any]) -> set[frozenset[str]]:
    return {frozenset((c.a.id, c.b.id)) for c in conflicts}


def test_prefilter_falls_back_when_other_types_crowd_the_neighbourhood(store, monkeypatch):
    """The plain KNN's nearest neighbours are all episodic; the semantic duplicate lies
    past them, so only the filtered fallback can find it, and it must."""
    crowd = [f"The user prefers dark mode in the editor, note {i}." for i in range(6)]
    store.remember_many([{"text": t, "type": "episodic"} for t in crowd])
    a = store.remember(DARK)
    b = store.remember(DARK2)
    monkeypatch.setattr(conflicts_mod, "PREFILTER_K", 4)
    asked: list[int] = []
    real = store.conflicts._knn_many

    def spy(queries: Any, k: int, now: float) -> Any:
        asked.append(sum(1 for _, t in queries if t is not None))
        return real(queries, k, now)

    monkeypatch.setattr(store.conflicts, "_knn_many", spy)
    assert {c.b.id for c in store.find_conflicts(a.id)} == {b.id}
    assert asked[-1] == 1  # the filtered query ran for this memory
    monkeypatch.setattr(conflicts_mod, "PREFILTER_K", 32)
    asked.clear()
    assert {c.b.id for c in store.find_conflicts(a.id)} == {b.id}
    assert asked == [0]  # the plain KNN saw everything: no filtered query


def test_scan_matches_the_filtered_reference(store, monkeypatch):
    a = store.remember(DARK, tags=["ui"])
    b = store.remember(DARK2, tags=["ui"])
    c = store.remember(DARK3, type="episodic")
    d = store.remember(DARK3, expires_at=time.time() - 5)  # expired: never a candidate
    e = store.remember(DARK3)
    store.supersede(e.id, a.id)
    store.remember("Paris is the capital of France.")
    full = _pairs(store.find_conflicts())
    monkeypatch.setattr(conflicts_mod, "PREFILTER_K", 1)  # every memory falls back
    assert _pairs(store.find_conflicts()) == full == {frozenset((a.id, b.id))}
    assert not {c.id, d.id, e.id} & {i for p in full for i in p}


def test_incremental_scan_reads_only_new_memories(store, monkeypatch):
    monkeypatch.setattr(conflicts_mod, "SCAN_OVERLAP", 0.0)
    a = store.remember(DARK)
    b = store.remember(DARK2)
    assert _pairs(list(store.iter_new_conflicts())) == {frozenset((a.id, b.id))}
    assert store.client.hget(store.keys.meta, conflicts_mod.SCAN_CURSOR_FIELD)
    assert list(store.iter_new_conflicts()) == []  # nothing created since
    time.sleep(0.01)
    c = store.remember(DARK3)
    assert _pairs(list(store.iter_new_conflicts())) == {
        frozenset((c.id, a.id)),
        frozenset((c.id, b.id)),
    }
    assert len(_pairs(list(store.iter_new_conflicts(full=True)))) == 3
    with pytest.raises(ValueError, match="since"):
        list(store.iter_conflicts(since=float("nan")))


def test_a_scan_cut_short_keeps_the_cursor(store):
    store.remember(DARK)
    store.remember(DARK2)
    scan = store.iter_new_conflicts()
    next(scan)
    scan.close()  # stopped before its end: the next scan starts where this one did
    assert store.client.hget(store.keys.meta, conflicts_mod.SCAN_CURSOR_FIELD) is None
