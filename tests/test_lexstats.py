"""BM25 corpus statistics stay exact under every kind of write (ADR 0003)."""

from __future__ import annotations

import math
from collections import Counter

from houkai import MemoryStore
from houkai.domain.casing import name_marks
from houkai.domain.text import stem_tokens
from houkai.store import lexstats


def _stats(store: MemoryStore) -> dict[str, int]:
    """The counts of the statistics hash (not the flags recall keeps there)."""
    raw = store.client.hgetall(store.keys.lexstats)
    fields = (
        lexstats.SUPERSEDED_FIELD,
        lexstats.FOLLOWS_FIELD,
        lexstats.NAMES_FIELD,
        lexstats.LINKS_INFERRED_FIELD,
    )
    flags = {f.encode() for f in fields}
    return {k.decode(): int(v) for k, v in raw.items() if k not in flags}


def _expected(texts: list[str]) -> dict[str, int]:
    df: Counter[str] = Counter()
    total = 0
    for text in texts:
        tokens = stem_tokens(text)
        total += len(tokens)
        df.update(set(tokens) | set(name_marks(text)))  # "^orn"-like marks count as stems
    out = {f"s:{term}": n for term, n in df.items()}
    out["__N"] = out["__S"] = len(texts)
    out["__len"] = total
    return out


def _live_texts(store: MemoryStore) -> list[str]:
    return [m.text for batch in store.iter_memories() for m in batch]


def test_statistics_exact_after_touch_edit_forget_and_rewrite(store: MemoryStore) -> None:
    mems = store.remember_many(
        [
            "ORN-4812 login page times out",
            "ORN-4281 flaky search test",
            "ticket triage every Monday",
            "deploy the API on Fridays",
            "東京の天気は晴れです",
        ]
    )
    for _ in range(3):
        store.recall("ORN ticket", k=5, mode="hybrid")  # touches re-write indexed hashes
    store.edit(mems[0].id, text="ORN-4812 login page fixed in release 2.1")
    store.edit(mems[1].id, importance=0.9)
    store.forget(mems[2].id)
    store.write([store.get(mems[3].id)])  # an idempotent rewrite changes nothing
    stats = _stats(store)
    assert stats == _expected(_live_texts(store))


def test_bm25_matches_the_formula_with_corpus_wide_df(store: MemoryStore) -> None:
    texts = ["alpha beta", "alpha gamma delta", "beta beta epsilon", "zeta"]
    store.remember_many(texts)
    scores = lexstats.bm25_scores(
        ["alpha", "beta"], dict(enumerate(texts)), store.client, store.keys.lexstats
    )
    n, avgdl = 4, sum(len(t.split()) for t in texts) / 4

    def bm25(text: str) -> float:
        tokens = text.split()
        total = 0.0
        for term, df in (("alpha", 2), ("beta", 2)):
            tf = tokens.count(term)
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            total += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len(tokens) / avgdl)) if tf else 0
        return total

    for i, text in enumerate(texts):
        assert math.isclose(scores[i], bm25(text), rel_tol=1e-9)
    assert scores[3] == 0.0


def test_nuke_clears_statistics(store: MemoryStore) -> None:
    store.remember_many(["one two", "three four"])
    store.nuke()
    assert _stats(store) == {}


def test_pipeline_writes_and_rejections_keep_statistics_exact(store: MemoryStore) -> None:
    from houkai.pipeline.write import Pipeline

    store.remember("The deploy runs on Fridays")
    pipeline = Pipeline(store, mode="inline")
    job = pipeline.submit(["The billing export truncates names", "Tickets close after 7 days"])
    pipeline.wait(job, timeout=120)
    duplicate = pipeline.submit(["The deploy runs on Fridays"], on_conflict="raise")
    status = pipeline.wait(duplicate, timeout=120)
    assert status.rejected == 1  # the worker path deleted the rejected memory
    assert _stats(store) == _expected(_live_texts(store))
