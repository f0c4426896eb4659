"""The full conflict scan reads each pair's memories once (ADR 0053).

A pair is found from both sides; the later memory's side must neither read the
earlier memory again nor report the pair twice, and the conflicts found must be
the ones a scan without that bookkeeping finds.
"""

from __future__ import annotations

from typing import Any

from houkai.store import conflicts as conflicts_mod

NEAR = [
    "The user prefers dark mode in the editor.",
    "The user prefers dark mode in their editor.",
    "The user likes dark mode in the editor.",
    "The user prefers a dark theme in the editor.",
]


def _pairs(conflicts: list[Any]) -> list[frozenset[str]]:
    return sorted((frozenset((c.a.id, c.b.id)) for c in conflicts), key=sorted)


def _scan(store: Any, monkeypatch: Any, *, bookkeeping: bool) -> tuple[list[Any], int]:
    fetched: list[int] = []
    real_fetch = store.conflicts._fetch_candidates
    real_check = store.conflicts._check_conflicts_many

    def fetch(lists: Any) -> Any:
        out = real_fetch(lists)
        fetched.append(len(out))
        return out

    def check(memories: Any, threshold: Any, fn: Any, known: Any = None, **kwargs: Any) -> Any:
        return real_check(memories, threshold, fn, known if bookkeeping else None, **kwargs)

    monkeypatch.setattr(store.conflicts, "_fetch_candidates", fetch)
    monkeypatch.setattr(store.conflicts, "_check_conflicts_many", check)
    found = list(store.iter_conflicts())
    monkeypatch.undo()
    return found, sum(fetched)


def test_each_pair_is_read_once_and_reported_once(store, monkeypatch):
    for text in NEAR:
        store.remember(text, tags=["ui"])
    store.remember("Paris is the capital of France.")
    monkeypatch.setattr(conflicts_mod, "SCAN_BATCH", 1)  # every pair spans two batches
    with_known, reads = _scan(store, monkeypatch, bookkeeping=True)
    monkeypatch.setattr(conflicts_mod, "SCAN_BATCH", 1)
    without, reads_before = _scan(store, monkeypatch, bookkeeping=False)
    pairs = _pairs(with_known)
    assert pairs == _pairs(without)  # the same conflicts
    assert len(set(pairs)) == len(pairs) == 6  # every pair of the four, once
    assert reads == reads_before // 2  # the later side read nothing again
    for c in with_known:  # and what was read is the whole memory, tags included
        assert c.b.tags == ["ui"] and c.b.text in NEAR


def test_the_read_ahead_scan_finds_what_a_sequential_one_does(store, monkeypatch):
    # The scan reads and searches the next batch in a thread while this one is
    # classified (ADR 0060); the pairs found must not depend on that.
    for text in NEAR:
        store.remember(text, tags=["ui"])
    store.remember("Paris is the capital of France.")
    monkeypatch.setattr(conflicts_mod, "SCAN_BATCH", 2)
    ahead = list(store.iter_conflicts())

    def in_order(batches: Any) -> Any:
        for batch in batches:
            embedded = [m for m in batch if m.embedding is not None]
            yield embedded, None  # no prefetched KNN: each batch searched when classified

    monkeypatch.setattr(store.conflicts, "_read_ahead", in_order)
    sequential = list(store.iter_conflicts())
    assert _pairs(ahead) == _pairs(sequential) and len(_pairs(ahead)) == 6
    assert [(c.kind, c.similarity) for c in ahead] == [(c.kind, c.similarity) for c in sequential]
