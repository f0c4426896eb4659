"""ReflectionEngine (§7) on the real index and model: clustering, summaries, consolidation."""

from __future__ import annotations

import time

import numpy as np
import pytest

from houkai import ReflectionEngine
from houkai.store.reflection import _default_summarizer

# Pairwise cosines with all-MiniLM-L6-v2 (torch and fp32 ONNX): D0–D1 0.910, D1–D2 0.899,
# D0–D2 0.879; M0–M2 0.936, M1–M0 0.837, M1–M2 0.853; the two topics and the noise < 0.11.
# The default int8 model quantises activations per batch, so a text's vector depends on
# the CPU that exported the model and on the texts encoded with it (±0.02 seen here):
# M1–M0 0.81–0.84, M1–M2 0.84–0.86. Every pair the default threshold (0.75) must take or
# leave is therefore 0.06+ clear of it on every backend, and the thresholds tests place
# between two pairs are computed from the stored vectors (``_between``).
DEPLOY = [
    "The deploy failed because the DATABASE_URL env var was missing",
    "Deployment failed: missing DATABASE_URL environment variable",
    "The deploy broke since DATABASE_URL was not set in the environment",
]
DARK = [
    "User prefers dark mode in the editor",
    "The user likes the editor dark",
    "The user wants the editor to use dark mode",
]
NOISE = ["Cats sleep for most of the day", "Quarterly revenue grew by twelve percent"]


class _MemoEmbedder:
    """The real model, memoised per text: these tests re-embed the same sentences often."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name = inner.name
        self.dimension = inner.dimension
        self.cache: dict[str, np.ndarray] = {}

    def encode(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if missing:
            for text, vector in zip(missing, self.inner.encode(missing), strict=True):
                self.cache[text] = vector
        return np.stack([self.cache[t] for t in texts]) if texts else self.inner.encode([])


@pytest.fixture(scope="module")
def memo(embedder):
    return _MemoEmbedder(embedder)


@pytest.fixture()
def store(make_store, memo):
    return make_store(embedder=memo)


def _add(store, texts, importances, type="episodic", tags=None):
    """One batched write (one model call): the machine is shared, keep tests quick."""
    return store.remember_many(
        [
            {"text": t, "type": type, "importance": i, "tags": tags or []}
            for t, i in zip(texts, importances, strict=True)
        ],
        on_conflict="ignore",
    )


def _ids(clusters):
    return [[m.id for m in c] for c in clusters]


@pytest.fixture()
def populated(store):
    items = [
        {"text": t, "type": "episodic", "importance": i, "tags": ["deploy"]}
        for t, i in zip(DEPLOY, [0.9, 0.6, 0.5], strict=True)
    ]
    items += [
        {"text": t, "type": "episodic", "importance": i, "tags": ["ui"]}
        for t, i in zip(DARK, [0.4, 0.8, 0.3], strict=True)
    ]
    items += [
        {"text": t, "type": "episodic", "importance": i}
        for t, i in zip(NOISE, [0.95, 0.2], strict=True)
    ]
    written = store.remember_many(items)
    return store, written[:3], written[3:6], written[6:]


def test_clusters_seed_first_non_overlapping(populated):
    store, deploy, dark, noise = populated
    clusters = ReflectionEngine(store).clusters()
    # seeds in importance order: D0 (0.9) then M1 (0.8); the noise seeds stay alone
    assert [c[0].id for c in clusters] == [deploy[0].id, dark[1].id]
    assert {m.id for m in clusters[0]} == {m.id for m in deploy}
    # M1 is within 0.75 of both others (0.81+): single linkage to the seed takes them all
    assert {m.id for m in clusters[1]} == {m.id for m in dark}
    flat = [m.id for c in clusters for m in c]
    assert len(flat) == len(set(flat))
    assert not {m.id for m in noise} & set(flat)
    assert all(m.embedding is None for c in clusters for m in c)


def _sim(store, memories, a: int, b: int) -> float:
    """The cosine of two stored memories, as the clustering compares them."""
    v = store.vectors([m.id for m in memories])
    return float(v[memories[a].id] @ v[memories[b].id])


def _between(low: float, high: float) -> float:
    """A threshold halfway between two stored cosines, which must be 0.01+ apart (the
    index compares FLOAT16 vectors: about 1e-3 from these numbers)."""
    assert high - low > 0.01, f"the texts lost their margin: {low:.3f} vs {high:.3f}"
    return (low + high) / 2


def _dark_split(store, dark) -> float:
    """A threshold seed M1 reaches neither M0 nor M2 under, while M0–M2 passes it
    (torch: between 0.853 and 0.936)."""
    return _between(max(_sim(store, dark, 1, 0), _sim(store, dark, 1, 2)), _sim(store, dark, 0, 2))


def _dark_clusters(clusters, dark) -> list[list[str]]:
    ids = {m.id for m in dark}
    return [c for c in _ids(clusters) if ids & set(c)]


def test_threshold_and_seed_choice(populated):
    store, _, dark, _ = populated
    # seed M1 reaches neither M0 nor M2 → dropped alone; M0 then seeds {M0, M2}
    clusters = ReflectionEngine(store, similarity_threshold=_dark_split(store, dark)).clusters()
    assert _dark_clusters(clusters, dark) == [[dark[0].id, dark[2].id]]
    assert ReflectionEngine(store, similarity_threshold=0.99).clusters() == []


def _between_d02_and_d12(store, d) -> float:
    """A threshold between sim(D0, D2) and sim(D1, D2) for the stored vectors (torch fp32:
    0.879 and 0.899; the int8 and FLOAT16 defaults move them by about 0.02)."""
    assert _sim(store, d, 1, 2) < _sim(store, d, 0, 1), "the DEPLOY texts lost their ordering"
    return _between(_sim(store, d, 0, 2), _sim(store, d, 1, 2))


def test_similarity_is_to_the_seed_not_chained(store):
    # D0 seeds: takes D1 (0.910) but not D2 (0.879), although D1–D2 is 0.899
    d = _add(store, DEPLOY, [0.9, 0.6, 0.5])
    threshold = _between_d02_and_d12(store, d)
    assert _ids(ReflectionEngine(store, similarity_threshold=threshold).clusters()) == [
        [d[0].id, d[1].id]
    ]


def test_highest_importance_anchors(store):
    # the same texts, but D1 is now the most important: it reaches both others
    d = _add(store, DEPLOY, [0.6, 0.9, 0.5])
    threshold = _between_d02_and_d12(store, d)
    assert _ids(ReflectionEngine(store, similarity_threshold=threshold).clusters()) == [
        [d[1].id, d[0].id, d[2].id]
    ]


def test_min_cluster_size(populated):
    store, _, dark, _ = populated
    split = _dark_split(store, dark)  # the dark memories form {M0, M2} here, below size 3
    pairs = ReflectionEngine(store, similarity_threshold=split, min_cluster_size=2).clusters()
    assert _dark_clusters(pairs, dark) == [[dark[0].id, dark[2].id]]
    triples = ReflectionEngine(store, similarity_threshold=split, min_cluster_size=3).clusters()
    assert _dark_clusters(triples, dark) == [] and all(len(c) >= 3 for c in triples)
    assert [len(c) for c in ReflectionEngine(store, min_cluster_size=3).clusters()] == [3, 3]


def test_only_active_ready_episodic_memories(store):
    ep = _add(store, DEPLOY[:2], [0.9, 0.8])
    _add(store, DEPLOY[:2], [0.9, 0.8], type="semantic")
    _add(store, DARK[:2], [0.9, 0.8], type="procedural")
    old, _ = store.remember_many(
        [
            {"text": DARK[2], "type": "episodic", "importance": 0.7},
            {"text": DARK[0], "type": "episodic", "importance": 0.7, "expires_at": time.time() - 5},
        ]
    )
    store.supersede(old.id, ep[0].id)
    assert _ids(ReflectionEngine(store).clusters()) == [[ep[0].id, ep[1].id]]


def test_small_batches_give_the_same_clusters(populated):
    store = populated[0]
    assert _ids(ReflectionEngine(store, batch_size=2).clusters()) == _ids(
        ReflectionEngine(store).clusters()
    )


def test_empty_store(store):
    engine = ReflectionEngine(store)
    assert engine.clusters() == []
    assert engine.reflect() == []


def test_reflect_creates_linked_semantic_summaries(populated):
    store, deploy, dark, _ = populated
    before = store.count()
    created = ReflectionEngine(store).reflect()
    assert len(created) == 2 and store.count() == before + 2
    summary = created[0]
    stored = store.get(summary.id)
    assert stored is not None and stored.type == "semantic" and stored.source == "reflection"
    assert stored.tags == ["reflection", "deploy"]
    assert stored.importance == round((0.9 + 0.6 + 0.5) / 3, 3)
    assert stored.text.startswith("[Reflection ×3] " + DEPLOY[0])
    assert {(link.to, link.rel) for link in stored.links} == {
        (m.id, "derived_from") for m in deploy
    }
    assert created[1].tags == ["reflection", "ui"]
    # sources untouched without consolidate
    assert all(not store.get(m.id).superseded_by for m in deploy + dark)


def test_reflect_is_journaled_as_reflection(populated):
    store, deploy, _, _ = populated
    summary = ReflectionEngine(store).reflect()[0]
    entries = store.journal.tail(50)
    reflect = [e for e in entries if e.op == "reflect" and e.id == summary.id]
    assert len(reflect) == 1
    assert reflect[0].actor == "reflection"
    assert reflect[0].meta["sources"] == [m.id for m in deploy]
    assert reflect[0].meta["consolidate"] is False
    remembered = [e for e in entries if e.op == "remember" and e.id == summary.id]
    assert remembered and remembered[0].actor == "reflection"
    links = [e for e in entries if e.op == "link" and e.id == summary.id]
    assert len(links) == 3 and all(e.actor == "reflection" for e in links)
    assert store.actor == "lib"


def test_dry_run_writes_nothing(populated):
    store = populated[0]
    count, journal = store.count(), len(store.journal)
    previews = ReflectionEngine(store).reflect(dry_run=True, consolidate=True)
    assert len(previews) == 2
    assert all(p.source == "reflection/dry-run" and p.type == "semantic" for p in previews)
    assert all(store.get(p.id) is None for p in previews)
    assert store.count() == count and len(store.journal) == journal


def test_consolidate_soft_supersedes_sources(populated):
    store, deploy, dark, noise = populated
    engine = ReflectionEngine(store)
    created = engine.reflect(consolidate=True)
    for summary, sources in zip(created, (deploy, dark), strict=True):
        for m in sources:
            assert store.get(m.id).superseded_by == summary.id
    assert all(not store.get(m.id).superseded_by for m in noise)
    # the superseded sources are no longer clustered
    assert engine.clusters() == [] and engine.reflect() == []


def test_consolidate_hard_deletes_sources(populated):
    store, deploy, dark, noise = populated
    created = ReflectionEngine(store).reflect(consolidate="hard")
    assert len(created) == 2
    assert all(store.get(m.id) is None for m in deploy + dark)
    assert all(store.get(m.id) is not None for m in noise)
    assert store.count() == len(noise) + 2
    forgets = [e for e in store.journal.tail(50) if e.op == "forget"]
    assert len(forgets) == 6 and all(e.actor == "reflection" for e in forgets)


def test_custom_summarizer(populated):
    store, deploy, _, _ = populated
    seen = []

    def summarizer(memories):
        seen.append([m.id for m in memories])
        return f"Insight about {len(memories)} events"

    created = ReflectionEngine(store, summarizer=summarizer).reflect()
    assert seen[0] == [m.id for m in deploy]
    assert [m.text for m in created] == ["Insight about 3 events"] * 2


def test_empty_summary_falls_back_to_extractive(populated):
    store, deploy, _, _ = populated
    created = ReflectionEngine(store, summarizer=lambda ms: "  ").reflect(dry_run=True)
    assert created[0].text == _default_summarizer(deploy)


def test_summarizer_spec_string(populated):
    store = populated[0]
    previews = ReflectionEngine(store, summarizer="extractive").reflect(dry_run=True)
    assert previews[0].text.startswith("[Reflection ×3]")
    with pytest.raises(ValueError, match="provider"):
        ReflectionEngine(store, summarizer="bogus:model")


def test_store_conflict_policy_does_not_block_summary(make_store, memo):
    store = make_store(conflict_policy="raise", embedder=memo)
    _add(store, DEPLOY, [0.9, 0.6, 0.5])
    assert len(ReflectionEngine(store).reflect()) == 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"similarity_threshold": 1.5}, "similarity_threshold"),
        ({"similarity_threshold": "high"}, "similarity_threshold"),
        ({"min_cluster_size": 0}, "min_cluster_size"),
        ({"batch_size": 0}, "batch_size"),
        ({"summarizer": 42}, "summarizer"),
    ],
)
def test_bad_parameters(store, kwargs, message):
    with pytest.raises(ValueError, match=message):
        ReflectionEngine(store, **kwargs)


def test_bad_consolidate(store):
    with pytest.raises(ValueError, match="consolidate"):
        ReflectionEngine(store).reflect(consolidate="soft")


def test_extractive_summary_shape():
    from houkai import Memory

    ms = [Memory(id="a", text="low", importance=0.1), Memory(id="b", text="high", importance=0.9)]
    assert _default_summarizer(ms) == "[Reflection ×2] high | low"
    long = [Memory(id=str(i), text="x" * 300) for i in range(3)]
    assert len(_default_summarizer(long)) == 512


def _topic_vectors(texts: list[str]) -> list[list[float]]:
    """Controlled geometry: 'topic K item J' sits near axis K (cosine ≈ 0.98 within a topic)."""
    out = []
    for text in texts:
        words = text.split()
        vector = [0.0] * 64
        if len(words) == 4 and words[0] == "topic":
            vector[int(words[1])] = 1.0
            vector[32 + int(words[3])] = 0.2
        else:  # anything else (the dimension probe, summaries) lies off every topic axis
            vector[63] = 1.0
        out.append(vector)
    return out


def test_many_clusters_stream_through_small_batches(make_store):
    """More seeds than one batch (and than RediSearch's default SORTBY cap of 10)."""
    store = make_store(embedding_function=_topic_vectors)
    items = [
        {"text": f"topic {k} item {j}", "type": "episodic", "importance": round(0.9 - k / 50, 3)}
        for k in range(15)
        for j in range(3)
    ]
    written = store.remember_many(items)
    clusters = ReflectionEngine(store, similarity_threshold=0.9, batch_size=4).clusters()
    assert len(clusters) == 15
    # seeds come in importance order: topic 0 first
    assert [c[0].text.split()[1] for c in clusters] == [str(k) for k in range(15)]
    assert sorted(m.id for c in clusters for m in c) == sorted(m.id for m in written)
    assert all(len({m.text.split()[1] for m in c}) == 1 for c in clusters)


def test_opposite_polarities_never_share_a_cluster(store):
    # D0 (neutral, most important) seeds; D1 (+1) sets the cluster's polarity,
    # so D2 (−1) must stay out even though it is within the threshold of D0.
    d = store.remember_many(
        [
            {"text": DEPLOY[0], "type": "episodic", "importance": 0.9, "polarity": 0},
            {"text": DEPLOY[1], "type": "episodic", "importance": 0.6, "polarity": 1},
            {"text": DEPLOY[2], "type": "episodic", "importance": 0.5, "polarity": -1},
        ],
        on_conflict="ignore",
    )
    clusters = _ids(ReflectionEngine(store).clusters())
    assert clusters == [[d[0].id, d[1].id]]
    # same polarity (or neutral) still clusters
    store.edit(d[2].id, polarity=1)
    assert _ids(ReflectionEngine(store).clusters()) == [[d[0].id, d[1].id, d[2].id]]
