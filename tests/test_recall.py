"""Recall (seed §5/§14) against the real Redis Stack and the real embedding model."""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pytest

from houkai import ExpandSpec, HybridWeights, Memory
from houkai.recall.scoring import rank_positions

ORN_NOTES = (
    "Quarterly planning notes: the team reviewed the roadmap for the mobile app, "
    "discussed hiring two more designers, agreed to move the offsite to May, "
    "talked about the budget for cloud spend and the new analytics dashboard, "
    "and, almost as an aside, mentioned that ticket ORN-4821 is still blocked "
    "on legal review before anything else can proceed with vendor onboarding."
)
ORN_DISTRACTORS = [
    "ORN-4812 login page crashes on Safari",
    "ORN-4281 add dark mode toggle",
    "ORN-8421 upgrade the payment SDK",
    "ORN-1248 fix flaky checkout test",
    "Ticket ORN-4128 was closed as duplicate",
    "ORN ticket triage happens every Monday",
]
DEPLOY = [
    "Production deploys use a blue-green strategy behind the load balancer.",
    "We deploy to production with blue-green switching at the load balancer.",
    "Blue-green deployment at the load balancer is how production is released.",
    "Rollbacks in production are done by re-pointing DNS to the previous release.",
    "The office coffee machine is cleaned on Fridays.",
]
DEPLOY_Q = "how do we deploy to production"


def add_link(store, src: Memory, dst: Memory, rel: str = "related") -> None:
    """Write an outgoing link straight into the hash (independent of the graph API)."""
    key = store.keys.memory(src.id)
    links = json.loads(store.client.hget(key, "links") or b"[]")
    links.append({"to": dst.id, "rel": rel})
    store.client.hset(key, "links", json.dumps(links))


def ids(results) -> list[str]:
    return [r[0].id for r in results]


@pytest.fixture()
def orn(store):
    target = store.remember(ORN_NOTES)
    store.remember_many(ORN_DISTRACTORS)
    return store, target


@pytest.fixture()
def deploy(store):
    return store, store.remember_many(DEPLOY)


# ----------------------------------------------------------------- hybrid / rrf
def test_hybrid_ranks_exact_identifier_first_semantic_does_not(orn):
    store, target = orn
    semantic = store.recall("ORN-4821", k=5, touch=False)
    assert semantic[0][0].id != target.id
    hybrid = store.recall("ORN-4821", k=5, mode="hybrid", touch=False, explain=True)
    assert hybrid[0][0].id == target.id
    assert hybrid[0][2]["lexical"] == 1.0
    assert all(e["lexical"] < 1.0 for _, _, e in hybrid[1:])


def test_rrf_fuses_ranks(orn):
    store, target = orn
    # lexical rank 0 wins at 0.9/0.1 unless the target's cosine rank is past 10 (at 0.7/0.3 a
    # cosine rank of 3 already lost: too tight for the int8 and FLOAT16 defaults)
    w = HybridWeights(cosine=0.1, lexical=0.9, recency=0.0, importance=0.0)
    res = store.recall(
        "ORN-4821", k=5, mode="hybrid", fusion="rrf", weights=w, touch=False, explain=True
    )
    memory, score, expl = res[0]
    assert memory.id == target.id
    assert set(expl) >= {"signals", "polarity", "rrf_k", "score"}
    assert expl["rrf_k"] == 60
    assert expl["signals"]["lexical"]["rank"] == 0
    assert expl["signals"]["lexical"]["contribution"] == pytest.approx(0.9 / 60, abs=1e-7)
    assert set(expl["signals"]) == {"cosine", "lexical"}  # zero-weight signals are skipped
    assert score < 0.05  # rank-based scores are tiny by design


def test_rrf_score_is_sum_of_contributions_plus_polarity_nudge(store):
    store.remember("Always pin dependency versions in requirements files.", polarity=1)
    store.remember("Never pin dependency versions in requirements files.", polarity=-1)
    w = HybridWeights(polarity_weight=0.5)
    res = store.recall(
        "pin dependency versions",
        k=2,
        mode="hybrid",
        fusion="rrf",
        weights=w,
        rrf_k=10,
        touch=False,
        explain=True,
    )
    assert len(res) == 2
    for memory, score, expl in res:
        parts = sum(s["contribution"] for s in expl["signals"].values())
        assert expl["polarity"] == memory.polarity
        assert score == pytest.approx(parts + 0.5 * memory.polarity / 11, abs=1e-6)
    assert res[0][0].polarity == 1


def test_rrf_ties_share_the_mean_of_their_ranks():
    assert rank_positions([3.0, 1.0, 1.0, 0.0]) == [0, 1.5, 1.5, 3]
    assert rank_positions([0.5, 0.5, 0.5]) == [1, 1, 1]
    assert all(type(r) is int for r in rank_positions([2.0, 1.0, 0.0]))


def test_rrf_orders_memories_of_equal_importance_by_the_other_signals(store):
    """Every memory at the default importance ties on that signal: the tie adds the same to
    each, and the order is cosine's alone (it was the random ids' before)."""
    store.remember_many(
        [
            "Deploys go out on Tuesdays.",
            "The deploy freeze starts Friday.",
            "Rollbacks need a second reviewer.",
            "Deploy notes live in the wiki.",
        ]
    )
    w = HybridWeights(cosine=0.7, lexical=0.0, recency=0.0, importance=0.3)
    res = store.recall(
        "when do deploys go out",
        k=4,
        mode="hybrid",
        fusion="rrf",
        weights=w,
        touch=False,
        explain=True,
    )
    assert {e["signals"]["importance"]["rank"] for _, _, e in res} == {1.5}  # 0..3 shared
    cosine_ranks = [e["signals"]["cosine"]["rank"] for _, _, e in res]
    assert cosine_ranks == sorted(cosine_ranks)
    assert len({s for _, s, _ in res}) == len(res)


# ----------------------------------------------------------------- selection
def test_mmr_diversity_trades_relevance_for_novelty(deploy):
    store, mems = deploy
    dups = {m.id for m in mems[:3]}
    plain = store.recall(DEPLOY_Q, k=3, touch=False)
    assert set(ids(plain)) == dups
    diverse = store.recall(DEPLOY_Q, k=3, touch=False, diversity=0.3)
    assert len(set(ids(diverse)) & dups) == 1
    assert mems[3].id in ids(diverse)


def test_dedup_threshold_drops_near_duplicates(deploy):
    store, mems = deploy
    res = store.recall(DEPLOY_Q, k=3, touch=False, dedup_threshold=0.8)
    vecs = store.vectors(ids(res))
    chosen = [vecs[i] for i in ids(res)]
    for i in range(len(chosen)):
        for j in range(i + 1, len(chosen)):
            assert float(np.dot(chosen[i], chosen[j])) < 0.8
    assert len(set(ids(res)) & {m.id for m in mems[:3]}) == 1
    # works in hybrid mode too
    hybrid = store.recall(DEPLOY_Q, k=3, mode="hybrid", touch=False, dedup_threshold=0.8)
    assert len(set(ids(hybrid)) & {m.id for m in mems[:3]}) == 1


def test_min_cosine_gate_and_range_errors(deploy):
    store, _ = deploy
    assert store.recall("quantum chromodynamics lattice", k=5, min_cosine=0.6) == []
    res = store.recall(DEPLOY_Q, k=5, min_cosine=0.3, touch=False, explain=True)
    assert res and all(e["cosine"] >= 0.3 for _, _, e in res)
    assert len(res) < 5
    hybrid = store.recall(DEPLOY_Q, k=5, mode="hybrid", min_cosine=0.3, touch=False, explain=True)
    assert hybrid and all(e["cosine"] >= 0.3 for _, _, e in hybrid)
    for bad in (-1.5, 1.01, float("nan"), "0.5", True):
        with pytest.raises(ValueError, match="min_cosine"):
            store.recall(DEPLOY_Q, min_cosine=bad)
    with pytest.raises(ValueError, match="diversity"):
        store.recall(DEPLOY_Q, diversity=1.5)
    with pytest.raises(ValueError, match="dedup_threshold"):
        store.recall(DEPLOY_Q, dedup_threshold=-0.1)


def test_argument_validation(store):
    store.remember("something to find")
    with pytest.raises(ValueError, match="mode"):
        store.recall("x", mode="hybird")
    with pytest.raises(ValueError, match="fusion"):
        store.recall("x", fusion="sum")
    with pytest.raises(ValueError, match="k: must be >= 0"):
        store.recall("x", k=-1)
    with pytest.raises(ValueError, match="overfetch"):
        store.recall("x", overfetch=0)
    with pytest.raises(ValueError, match="type"):
        store.recall("x", type="nope")
    with pytest.raises(ValueError, match="weights"):
        store.recall("x", weights={"cosine": 1})
    with pytest.raises(ValueError, match="expand"):
        store.recall("x", expand={"depth": 2})
    with pytest.raises(ValueError, match="reranker"):
        store.recall("x", reranker="cross-encoder")
    with pytest.raises(ValueError, match="query"):
        store.recall(None)
    assert store.recall("something", k=0) == []


# ----------------------------------------------------------------- reranker
def _prefer(word: str):
    def rerank(query: str, memories: list[Memory]) -> list[float]:
        return [1.0 if word in m.text else 0.0 for m in memories]

    return rerank


def test_reranker_per_store_and_per_call(make_store):
    store = make_store(reranker=_prefer("coffee"))
    store.remember_many(DEPLOY)
    res = store.recall(DEPLOY_Q, k=3, touch=False, explain=True)
    top, score, expl = res[0]
    assert "coffee" in top.text
    assert score == 1.0
    block = expl["rerank"]
    assert set(block) == {"first_stage_score", "first_stage_rank", "score", "rank"}
    assert block["rank"] == 0 and block["first_stage_rank"] > 0 and block["score"] == 1.0
    # the per-call reranker wins over the store default
    res = store.recall(DEPLOY_Q, k=3, touch=False, reranker=_prefer("Rollbacks"))
    assert res[0][0].text.startswith("Rollbacks")


def test_a_reranker_sees_a_pool_of_at_least_twenty(store):
    """At k=1 the seed's k × overfetch would show it 4 near-ties; it can only promote those."""
    written = store.remember_many([f"topic entry number {i}" for i in range(30)])
    shown: list[int] = []

    def last_one_wins(query: str, memories: list[Memory]) -> list[float]:
        shown.append(len(memories))
        return [1.0 if m.id == written[-1].id else 0.0 for m in memories]

    hits = store.recall("topic entry", k=1, touch=False, reranker=last_one_wins)
    assert shown[0] >= 20 and len(hits) == 1


def test_reranker_wrong_length_is_an_error(store):
    store.remember_many(DEPLOY)
    with pytest.raises(ValueError, match="reranker returned 1 scores for"):
        store.recall(DEPLOY_Q, k=3, reranker=lambda q, ms: [1.0])
    with pytest.raises(ValueError, match="non-numeric"):
        store.recall(DEPLOY_Q, k=3, reranker=lambda q, ms: ["high"] * len(ms))


# ----------------------------------------------------------------- scoring details
def test_recency_basis_created_vs_accessed(store):
    old_created = store.remember("Deploy notes: staging cluster uses three nodes.")
    new_created = store.remember("Deploy notes: staging cluster uses four nodes.")
    now = time.time()
    month = 30 * 86400
    store.set_raw_fields(
        {
            old_created.id: {"created_at": repr(now - month), "last_accessed": repr(now)},
            new_created.id: {"created_at": repr(now), "last_accessed": repr(now - month)},
        }
    )
    recency_only = dict(cosine=0.0, lexical=0.0, recency=1.0, importance=0.0)
    created = store.recall(
        "staging cluster nodes",
        k=2,
        mode="hybrid",
        touch=False,
        explain=True,
        weights=HybridWeights(**recency_only),
    )
    assert ids(created) == [new_created.id, old_created.id]
    assert created[1][2]["recency"] == pytest.approx(math.exp(-0.1 * 30), abs=1e-3)
    accessed = store.recall(
        "staging cluster nodes",
        k=2,
        mode="hybrid",
        touch=False,
        weights=HybridWeights(recency_basis="accessed", **recency_only),
    )
    assert ids(accessed) == [old_created.id, new_created.id]


def test_lexical_weight_renormalised_when_no_bm25(store):
    store.remember_many(DEPLOY)
    res = store.recall("zzqx vvkw", k=2, mode="hybrid", stages=(), touch=False, explain=True)
    weights = res[0][2]["weights"]
    assert weights["lexical"] == 0.0
    assert weights["cosine"] == pytest.approx(0.55 / 0.8, abs=1e-6)
    assert weights["recency"] == pytest.approx(0.15 / 0.8, abs=1e-6)
    assert weights["importance"] == pytest.approx(0.10 / 0.8, abs=1e-6)
    # a lexical-only config has nothing to scale into: weights stay as given
    lexical_only = HybridWeights(cosine=0, lexical=1, recency=0, importance=0)
    res = store.recall(
        "zzqx vvkw",
        k=2,
        mode="hybrid",
        stages=(),
        touch=False,
        explain=True,
        weights=lexical_only,
    )
    assert res[0][2]["weights"]["lexical"] == 1.0 and res[0][1] == 0.0
    # with a BM25 hit the weights are untouched
    res = store.recall("blue-green", k=2, mode="hybrid", stages=(), touch=False, explain=True)
    assert res[0][2]["weights"]["lexical"] == pytest.approx(0.20)


def test_semantic_mode_polarity_bonus_and_ignores_other_weights(make_store):
    store = make_store()
    pos = store.remember("Always run the linter before committing code.", polarity=1)
    neg = store.remember("Always run the linter before committing code!", polarity=-1)
    res = store.recall("run the linter before commit", k=2, touch=False, explain=True)
    for memory, score, expl in res:
        assert set(expl) >= {"cosine", "polarity", "score"}
        assert score == pytest.approx(expl["cosine"] + 0.05 * memory.polarity, abs=1e-5)
    assert ids(res)[0] == pos.id
    strong = HybridWeights(polarity_weight=0.0)
    flat = store.recall(
        "run the linter before commit", k=2, touch=False, explain=True, weights=strong
    )
    assert all(s == pytest.approx(e["cosine"], abs=1e-5) for _, s, e in flat)
    # custom hybrid weights other than polarity do not change semantic scores
    odd = HybridWeights(cosine=0.1, lexical=0.9, recency=0.5, importance=0.5)
    skew = store.recall("run the linter before commit", k=2, touch=False, weights=odd)
    base = store.recall("run the linter before commit", k=2, touch=False)
    assert [round(s, 6) for _, s in skew] == [round(s, 6) for _, s in base]
    # a heavy polarity weight (store default) puts the positive one first by a margin
    heavy = make_store(hybrid_weights=HybridWeights(polarity_weight=1.0))
    heavy.remember("Run the linter before committing code.", polarity=-1)
    p = heavy.remember("Code should be linted at some point.", polarity=1)
    top = heavy.recall("run the linter before committing code", k=1, touch=False)
    assert top[0][0].id == p.id
    assert neg.id in ids(res)


def test_filters_are_pushed_down(store):
    m1 = store.remember(
        "Release notes for the billing service.",
        type="episodic",
        tags=["alpha"],
        importance=0.9,
        source="git",
    )
    m2 = store.remember(
        "Billing service release schedule.",
        type="semantic",
        tags=["beta"],
        importance=0.2,
        source="chat",
    )
    m3 = store.remember(
        "How to release the billing service.",
        type="procedural",
        tags=["alpha", "beta"],
        importance=0.6,
        source="git",
    )
    q = "billing service release"
    for mode in ("semantic", "hybrid"):

        def got(mode=mode, **kw):
            return set(ids(store.recall(q, k=10, mode=mode, touch=False, **kw)))

        assert got() == {m1.id, m2.id, m3.id}
        assert got(type="procedural") == {m3.id}
        assert got(tag="alpha") == {m1.id, m3.id}
        assert got(min_importance=0.5) == {m1.id, m3.id}
        assert got(source="git") == {m1.id, m3.id}
        assert got(since=m2.created_at) == {m2.id, m3.id}
        assert got(until=m2.created_at) == {m1.id, m2.id}
        assert got(tag="beta", source="git", min_importance=0.5) == {m3.id}
        assert got(tag="gamma") == set()


def test_superseded_and_expired_hidden_unless_asked(store):
    live = store.remember("The API gateway timeout is 30 seconds.")
    old = store.remember("The API gateway timeout is 10 seconds.")
    old.superseded_by = live.id
    store.write([old])
    gone = store.remember("The API gateway timeout is 60 seconds.", expires_at=1.0)
    q = "API gateway timeout"
    for mode in ("semantic", "hybrid"):
        assert ids(store.recall(q, k=5, mode=mode, touch=False)) == [live.id]
        both = store.recall(q, k=5, mode=mode, touch=False, include_superseded=True)
        assert set(ids(both)) == {live.id, old.id}
        both = store.recall(q, k=5, mode=mode, touch=False, include_expired=True)
        assert set(ids(both)) == {live.id, gone.id}


def test_touch_false_is_read_only(store):
    m = store.remember("The nightly backup runs at 02:00 UTC.")
    store.recall("nightly backup", k=1, touch=False)
    fresh = store.get(m.id)
    assert fresh.access_count == 0 and fresh.last_accessed == m.last_accessed
    hit = store.recall("nightly backup", k=1)
    assert hit[0][0].access_count == 1
    assert store.get(m.id).access_count == 1


def test_explain_keys_per_path(store):
    a, b = store.remember_many(
        [
            "Redis runs with AOF persistence enabled.",
            "Redis snapshots are copied to object storage.",
        ]
    )
    add_link(store, b, a)
    q = "redis persistence"
    sem = store.recall(q, k=2, touch=False, explain=True)
    assert set(sem[0][2]) >= {"cosine", "polarity", "score"}
    assert "weights" not in sem[0][2]
    weighted = store.recall(q, k=2, mode="hybrid", touch=False, explain=True)
    assert set(weighted[0][2]) >= {
        "cosine",
        "lexical",
        "recency",
        "importance",
        "polarity",
        "weights",
        "score",
    }
    assert "graph" not in weighted[0][2] and "graph" not in weighted[0][2]["weights"]
    graphed = store.recall(
        q, k=2, mode="hybrid", touch=False, explain=True, weights=HybridWeights(graph=0.2)
    )
    assert "graph" in graphed[0][2] and graphed[0][2]["weights"]["graph"] == 0.2
    rrf = store.recall(
        q,
        k=2,
        mode="hybrid",
        fusion="rrf",
        touch=False,
        explain=True,
        weights=HybridWeights(graph=0.2),
    )
    assert set(rrf[0][2]) >= {"signals", "polarity", "rrf_k", "score"}
    assert "graph" in rrf[0][2]["signals"]
    no_explain = store.recall(q, k=2, touch=False)
    assert all(len(r) == 2 for r in no_explain)


# ----------------------------------------------------------------- CJK / Korean
@pytest.mark.parametrize(
    ("query", "index"),
    [("オフィス", 0), ("预算", 1), ("회의실", 2)],
)
def test_cjk_and_korean_keyword_recall(store, query, index):
    mems = store.remember_many(
        [
            "東京タワーの近くに新しいオフィスを開設しました",
            "我们明天在上海讨论预算问题",
            "내일 오후 세시에 회의실 예약을 확인하세요",
            "昨日は雨が降ったので家で映画を見ました",
            "他喜欢在周末去公园跑步",
            "주말에는 가족과 함께 산에 갑니다",
            "The quarterly budget review meeting is on Thursday.",
        ]
    )
    res = store.recall(query, k=3, mode="hybrid", touch=False, explain=True)
    assert res[0][0].id == mems[index].id
    assert res[0][2]["lexical"] == 1.0


# ----------------------------------------------------------------- graph fusion
def test_graph_fusion_lifts_a_hub(store):
    ms = store.remember_many(
        [
            "Python packaging uses pyproject.toml with hatchling as the build backend.",
            "Wheels for the Python package are built in CI and uploaded to the index.",
            "Python package versions follow semantic versioning with git tags.",
            "Release checklist owned by the platform team.",
            "Python style guide: ruff with line length 100.",
            "Python virtual environments are created with uv.",
            "The cafeteria serves lunch at noon.",
        ]
    )
    hub = ms[3]
    for m in ms[:3]:
        add_link(store, m, hub)
    q = "python packaging and releases"
    # BM25 is left out: RediSearch's term statistics shift while re-indexed
    # documents (the link writes above) wait for its GC, so it is not stable here. So are
    # the stages: every note but the hub writes "Python" as a name, and the question names
    # it (``casing``), so ``entity`` would lower the hub; the graph term is under test.
    plain = store.recall(
        q, k=7, mode="hybrid", touch=False, stages=(), weights=HybridWeights(lexical=0.0)
    )
    # The hub gains the whole graph weight (its spread is 1.0), the packaging hit that
    # links to it about half (0.51): with weight 1 the hub leads by ~0.24, clear of the
    # ~0.02 cosines move between backends (at 0.5 the two tied within 0.01 on int8).
    graphed = store.recall(
        q,
        k=7,
        mode="hybrid",
        touch=False,
        explain=True,
        stages=(),
        weights=HybridWeights(lexical=0.0, graph=1.0),
    )
    assert ids(plain).index(hub.id) >= 3
    assert ids(graphed)[0] == hub.id
    by_id = {m.id: e for m, _, e in graphed}
    assert by_id[hub.id]["graph"] == 1.0
    assert by_id[ms[6].id]["graph"] == 0.0  # the unrelated, unlinked memory gains nothing
    rrf = store.recall(
        q,
        k=7,
        mode="hybrid",
        fusion="rrf",
        touch=False,
        explain=True,
        weights=HybridWeights(graph=0.5),
    )
    assert {m.id: e for m, _, e in rrf}[hub.id]["signals"]["graph"]["rank"] == 0


def test_graph_fusion_without_links_in_pool_is_a_no_op(store):
    store.remember_many(["The cafeteria serves lunch at noon.", "Lunch is free on Fridays."])
    q = "cafeteria lunch"
    base = store.recall(q, k=2, mode="hybrid", stages=(), touch=False, explain=True)
    lonely = store.recall(
        q,
        k=2,
        mode="hybrid",
        stages=(),
        touch=False,
        explain=True,
        weights=HybridWeights(graph=0.5),
    )
    assert ids(lonely) == ids(base)
    for (_, s1, _), (_, s2, _) in zip(lonely, base, strict=True):
        assert s1 == pytest.approx(s2, abs=1e-5)  # only recency moves between calls
    assert all("graph" not in e for _, _, e in lonely)


# ----------------------------------------------------------------- expansion
@pytest.fixture()
def chain(store):
    a, x, y, z = store.remember_many(
        [
            "Kubernetes cluster autoscaling is configured with Karpenter.",
            "Node pool sizes: m5.large for general workloads.",
            "Spot instances are used for nightly batch jobs.",
            "The lunch menu changes every Wednesday.",
        ]
    )
    add_link(store, a, x, "refines")
    add_link(store, x, y, "example_of")
    add_link(store, a, z, "related")
    return store, a, x, y, z


Q_K8S = "kubernetes cluster autoscaling karpenter"


def test_expand_appends_after_cut(chain):
    store, a, x, y, z = chain
    res = store.recall(Q_K8S, k=1, touch=False, explain=True, expand=ExpandSpec())
    assert ids(res) == [a.id, x.id]
    assert res[1][1] == pytest.approx(0.70)
    assert res[1][2] == {"source": "graph_expansion", "rel": "refines", "hop": 1, "score": 0.7}
    deep = store.recall(
        Q_K8S, k=1, touch=False, explain=True, expand=ExpandSpec(depth=2, decay=0.5)
    )
    assert ids(deep) == [a.id, x.id, y.id]
    assert deep[2][1] == pytest.approx(0.35) and deep[2][2]["hop"] == 2
    capped = store.recall(Q_K8S, k=1, touch=False, expand=ExpandSpec(depth=2, cap=1))
    assert ids(capped) == [a.id, x.id]
    related = store.recall(Q_K8S, k=1, touch=False, expand=ExpandSpec(rels=("related",)))
    assert ids(related) == [a.id, z.id]
    none = store.recall(Q_K8S, k=1, touch=False, expand=ExpandSpec(cap=0))
    assert ids(none) == [a.id]


def test_expand_skips_superseded_and_expired(chain):
    store, a, x, y, z = chain
    x = store.get(x.id)  # with its links
    x.superseded_by = z.id
    store.write([x])
    res = store.recall(Q_K8S, k=1, touch=False, expand=ExpandSpec(depth=2))
    assert ids(res) == [a.id]
    res = store.recall(Q_K8S, k=1, touch=False, include_superseded=True, expand=ExpandSpec(depth=2))
    assert ids(res)[:1] == [a.id] and {x.id, y.id} <= set(ids(res))
    z = store.get(z.id)
    z.expires_at = 1.0
    store.write([z])
    res = store.recall(Q_K8S, k=1, touch=False, expand=ExpandSpec(rels=("related",)))
    assert ids(res) == [a.id]


def test_expand_rerank_competes_for_k_slots(store):
    a = store.remember("Kubernetes cluster autoscaling is configured with Karpenter.")
    w = store.remember("The office plants need water twice a week.")
    # an episodic neighbour: outside the type-filtered pool, reachable only by the link
    x = store.remember(
        "Karpenter provisions nodes for the Kubernetes cluster autoscaler.", type="episodic"
    )
    add_link(store, a, x, "refines")
    appended = store.recall(Q_K8S, k=2, type="semantic", touch=False, expand=ExpandSpec())
    assert ids(appended) == [a.id, w.id, x.id]  # rerank=False overflows k
    merged = store.recall(
        Q_K8S, k=2, type="semantic", touch=False, explain=True, expand=ExpandSpec(rerank=True)
    )
    assert ids(merged) == [a.id, x.id]  # rerank=True competes for the k slots
    assert merged[1][1] == pytest.approx(0.7 * merged[0][1], abs=1e-6)
    assert merged[1][2]["source"] == "graph_expansion"
    # and passes the dedup gate like any other candidate (it paraphrases `a`)
    vec = store.vectors([a.id, x.id])
    sim = float(np.dot(vec[a.id], vec[x.id]))
    gated = store.recall(
        Q_K8S,
        k=2,
        type="semantic",
        touch=False,
        dedup_threshold=sim - 0.01,
        expand=ExpandSpec(rerank=True),
    )
    assert ids(gated) == [a.id, w.id]
    # a neighbour already in the pool is not re-reached (its own score is kept)
    pool = store.recall(Q_K8S, k=1, touch=False, explain=True, expand=ExpandSpec(rerank=True))
    assert len(pool) == 1 and "source" not in pool[0][2]
