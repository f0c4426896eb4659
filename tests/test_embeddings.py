"""Embedders: the bundled MiniLM (offline, normalised, shared) and the OpenAI option."""

from __future__ import annotations

import types

import numpy as np
import pytest

from houkai.engines.embeddings import OpenAIEmbedder, QueryCache, build_embedder, get_embedder


def test_default_model_is_offline_normalised_and_shared(embedder) -> None:
    assert embedder.name == "all-MiniLM-L6-v2" and embedder.dimension == 384
    vectors = embedder.encode(["first text", "second, rather different text"])
    assert vectors.dtype == np.float32 and vectors.shape == (2, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert get_embedder() is get_embedder()


def test_openai_embedder_batches_and_normalises_with_a_stub_client() -> None:
    calls = []

    def create(model, input):
        calls.append((model, list(input)))
        data = [types.SimpleNamespace(embedding=[3.0, 4.0, float(len(t))]) for t in input]
        return types.SimpleNamespace(data=data)

    client = types.SimpleNamespace(embeddings=types.SimpleNamespace(create=create))
    emb = OpenAIEmbedder("text-embedding-3-small", client=client, batch_size=2)
    out = emb.encode(["a", "bb", "ccc"])
    assert [len(batch) for _, batch in calls] == [2, 1]
    assert calls[0][0] == "text-embedding-3-small"
    assert out.shape == (3, 3) and np.allclose(np.linalg.norm(out, axis=1), 1.0)
    assert emb.dimension == 3 and emb.name == "openai:text-embedding-3-small"


def test_unknown_embedder_spec_fails_fast() -> None:
    with pytest.raises(ValueError, match="unknown embedder"):
        build_embedder("word2vec")


def test_query_cache_is_bounded_and_counts_hits() -> None:
    class Counting:
        name, dimension, calls = "count", 2, 0

        def encode(self, texts):
            Counting.calls += 1
            return np.ones((len(texts), 2), dtype=np.float32)

    cache = QueryCache(Counting(), size=2)
    for q in ("a", "b", "a", "c", "a"):
        cache.encode_query(q)
    assert (cache.hits, cache.misses, len(cache)) == (2, 3, 2)


def test_a_query_cache_lives_as_long_as_its_embedder() -> None:
    """One shared cache per embedder, gone with it: an app that makes a store (and an
    embedder around its own function) per request does not keep a cache for each."""
    import gc
    import weakref

    from houkai.engines.embeddings import _caches, query_cache

    class Fn:
        name, dimension = "fn", 2

        def encode(self, texts):
            return np.ones((len(texts), 2), dtype=np.float32)

    class Slotted:
        __slots__ = ()
        name, dimension = "slotted", 2

        def encode(self, texts):
            return np.ones((len(texts), 2), dtype=np.float32)

    first = Fn()
    assert query_cache(first) is query_cache(first)
    gone = weakref.ref(first)
    query_cache(first).encode_query("a question")
    del first
    gc.collect()
    assert gone() is None
    slotted = Slotted()  # takes no attribute: kept by the module, still one per embedder
    assert query_cache(slotted) is query_cache(slotted) is _caches[id(slotted)]
    del _caches[id(slotted)]


def test_parallel_streams_overlap_share_one_model_and_match_one_stream(embedder) -> None:
    """``houkai worker``'s layout: two encodes at once on one loaded model, same vectors."""
    import os
    import threading
    import time

    import torch

    from houkai.engines.embeddings import SentenceTransformerEmbedder

    with pytest.raises(ValueError, match="streams"):
        SentenceTransformerEmbedder(streams=0)
    cores = len(os.sched_getaffinity(0))
    assert SentenceTransformerEmbedder(streams=2)._threads == max(1, cores // 2)

    # threads given explicitly: torch's thread count is process-wide and the
    # rest of the session must keep its default.
    parallel = SentenceTransformerEmbedder(streams=2, threads=torch.get_num_threads())
    model = parallel._load()
    forward = model.forward
    active, peak, lock = [0], [0], threading.Lock()

    def counting_forward(*args, **kwargs):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        try:
            time.sleep(0.05)  # long enough for the other stream to enter
            return forward(*args, **kwargs)
        finally:
            with lock:
                active[0] -= 1

    texts = [f"memory {i}: the deploy moves to Friday for team {i % 7}" for i in range(64)]
    # One call at a time on the same torch model (the session's default embedder
    # is the ONNX backend, whose int8 vectors differ slightly).
    expected = parallel.encode(texts)
    model.forward = counting_forward
    results: dict[int, np.ndarray] = {}
    errors: list[BaseException] = []

    def run(k: int) -> None:
        try:
            results[k] = parallel.encode(texts[k::4])
        except BaseException as exc:  # e.g. the tokenizer's "Already borrowed"
            errors.append(exc)

    workers = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert errors == []
    assert peak[0] == 2  # two forward passes overlapped, never more than the streams
    for k in range(4):
        assert np.allclose(results[k], expected[k::4], atol=1e-5)
