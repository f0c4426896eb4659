"""recall_pack / auto_context_pack / the packer and key-phrase extraction (seed §5)."""

from __future__ import annotations

import re

import pytest

from houkai import Memory, extract_key_phrases
from houkai.domain.text import estimate_tokens
from houkai.recall.packing import (
    cluster_by_jaccard,
    compress_group,
    fanout_queries,
    pack_line,
    pack_ranked,
)


def mem(mid: str, text: str, type: str = "semantic", importance: float = 0.5) -> Memory:
    return Memory(id=mid, text=text, type=type, importance=importance)


def ranked(*memories: Memory) -> list[tuple[Memory, float]]:
    return [(m, 1.0 - i / 10) for i, m in enumerate(memories)]


# ----------------------------------------------------------------- key phrases
def test_extract_key_phrases_prefers_bigrams_and_drops_stop_words():
    task = "Deploy the android client to the staging cluster"
    assert extract_key_phrases(task) == ["deploy android", "android client", "client staging"]
    assert extract_key_phrases(task, 5)[3:] == ["staging cluster", "deploy"]
    assert extract_key_phrases(task, 0) == []
    assert extract_key_phrases("android", 3) == ["android"]
    assert extract_key_phrases("it is on an ox", 3) == []  # stop words and short words only
    assert extract_key_phrases("cache cache cache", 3) == ["cache cache", "cache"]


def test_extract_key_phrases_validation():
    with pytest.raises(ValueError, match="max_phrases"):
        extract_key_phrases("task", -1)
    with pytest.raises(ValueError, match="max_phrases"):
        extract_key_phrases("task", "3")
    with pytest.raises(ValueError, match="task"):
        extract_key_phrases(None)


def test_fanout_queries_keeps_task_first_and_never_repeats_it():
    assert fanout_queries("Android Client") == ["Android Client", "android", "client"]
    assert fanout_queries("release", 3) == ["release"]
    assert fanout_queries("rotate postgres credentials", 0) == ["rotate postgres credentials"]
    assert fanout_queries("") == [""]


# ----------------------------------------------------------------- packer (no Redis)
def test_greedy_packing_skips_and_continues():
    big = mem("1", "x" * 400)
    small = mem("2", "short fact")
    medium = mem("3", "y" * 120)
    tiny = mem("4", "tiny")
    lines = {m.id: pack_line(m) for m in (big, small, medium, tiny)}
    budget = len(lines["2"]) + len(lines["4"]) + 5  # fits the two small ones only
    res = pack_ranked(ranked(big, small, medium, tiny), token_budget=budget, token_counter=len)
    assert res.ids() == ["2", "4"]
    assert res.truncated is True
    assert res.used_tokens == len(lines["2"]) + len(lines["4"]) <= budget
    assert res.budget == budget
    assert res.text == "## Relevant memory\n" + lines["2"] + "\n" + lines["4"]
    assert [p.tokens for p in res.items] == [len(lines["2"]), len(lines["4"])]
    assert [p.score for p in res.items] == [0.9, 0.7]


def test_packing_default_estimator_header_and_empty():
    a = mem("a", "Use ruff for linting.", type="procedural")
    res = pack_ranked(ranked(a), token_budget=800)
    assert res.items[0].tokens == estimate_tokens("- (procedural) Use ruff for linting.")
    assert res.truncated is False
    assert pack_ranked(ranked(a), token_budget=800, header="").text == pack_line(a)
    assert pack_ranked(ranked(a), token_budget=800, header="# Mem").text.startswith("# Mem\n")
    empty = pack_ranked([], token_budget=800)
    assert (empty.text, empty.items, empty.used_tokens, empty.truncated) == ("", [], 0, False)
    nothing_fits = pack_ranked(ranked(a), token_budget=0)
    assert nothing_fits.text == "" and nothing_fits.truncated is True


def test_a_pack_is_a_list_of_distinct_memories():
    """A multi-line memory stays one list item; a text packed already is not packed again
    (the same fact stored twice, as the default ``ignore`` conflict policy allows)."""
    runbook = mem("r", "# Runbook\nRestart the API pods.\n\nThen check /health.")
    first = mem("a", "Deploys happen on Fridays.")
    again = mem("b", "Deploys  happen on Fridays.\n", type="episodic")
    res = pack_ranked(ranked(runbook, first, again), token_budget=800, header="")
    assert res.text.splitlines() == [
        "- (semantic) # Runbook",
        "  Restart the API pods.",
        "  ",
        "  Then check /health.",
        "- (semantic) Deploys happen on Fridays.",
    ]
    assert res.ids() == ["r", "a"] and res.truncated is False


def test_compress_folds_dropped_similar_memories():
    keep = mem("k", "Deploys go through the blue-green pipeline.")
    detail = (
        " The vault operator generates it, stores it under secret/staging/db and "
        "restarts the API pods so they pick it up; on-call verifies the health checks."
    )
    dups = [
        mem("d1", "Staging DB password rotates monthly." + detail, importance=0.9),
        mem("d2", "The staging DB password changes monthly." + detail),
        mem("d3", "Staging database credentials rotate every month." + detail),
    ]
    other = mem("o", "Quarterly roadmap review: " + "leadership discusses hiring plans. " * 6)
    items = ranked(keep, *dups, other)
    line_cost = min(len(pack_line(m)) for m in (*dups, other))
    budget = len(pack_line(keep)) + line_cost - 1  # no dropped memory fits on its own
    counter = len
    plain = pack_ranked(items, token_budget=budget, token_counter=counter)
    assert plain.ids() == ["k"] and plain.compressed_groups == []
    res = pack_ranked(items, token_budget=budget, token_counter=counter, compress=True)
    assert res.ids() == ["k"]
    assert len(res.compressed_groups) == 1
    group = res.compressed_groups[0]
    assert [m.id for m in group.memories] == ["d1", "d2", "d3"]
    assert group.text == (
        "- (compressed) [×3 similar] Staging DB password rotates monthly"
        " | The staging DB password changes monthly"
        " | Staging database credentials rotate every month"
    )
    assert group.tokens == len(group.text)
    assert res.used_tokens == len(pack_line(keep)) + group.tokens <= budget
    assert res.text.endswith("\n" + group.text)
    assert res.truncated is True
    # a min group larger than the cluster folds nothing; a strict threshold neither
    assert (
        pack_ranked(
            items, token_budget=budget, token_counter=counter, compress=True, compress_min_group=4
        ).compressed_groups
        == []
    )
    assert (
        pack_ranked(
            items,
            token_budget=budget,
            token_counter=counter,
            compress=True,
            compress_threshold=0.95,
        ).compressed_groups
        == []
    )
    # a compressed line that does not fit the remaining budget is left out
    tight = pack_ranked(
        items, token_budget=len(pack_line(keep)) + 10, token_counter=counter, compress=True
    )
    assert tight.compressed_groups == []


def test_cluster_and_compress_helpers():
    a = mem("a", "alpha beta gamma delta")
    b = mem("b", "alpha beta gamma epsilon", importance=0.9)
    c = mem("c", "completely different words here")
    assert [[m.id for m in g] for g in cluster_by_jaccard([a, b, c], 0.5, 2)] == [["a", "b"]]
    assert cluster_by_jaccard([a, b, c], 0.5, 3) == []
    summary = "[×2 similar] alpha beta gamma epsilon | alpha beta gamma delta"
    assert compress_group([a, b]) == summary


def test_token_counter_must_return_an_int():
    with pytest.raises(ValueError, match="token_counter"):
        pack_ranked(ranked(mem("a", "text")), token_budget=10, token_counter=lambda t: "3")


# ----------------------------------------------------------------- recall_pack (Redis)
def _rank_marker_reranker(query: str, memories: list[Memory]) -> list[float]:
    """Order by the [rN] marker in the text, so packing tests control the ranking."""
    return [-float(re.search(r"\[r(\d+)\]", m.text).group(1)) for m in memories]


@pytest.fixture()
def ranked_store(make_store):
    store = make_store(reranker=_rank_marker_reranker)
    mems = store.remember_many(
        [
            "[r1] Deployment runbook: " + "build the image, push it, roll it out, verify. " * 8,
            "[r2] Deploys need a green CI run.",
            "[r3] Deployment windows: " + "weekdays between 10:00 and 16:00 UTC only. " * 3,
            "[r4] Deploy tags use semver.",
        ]
    )
    return store, mems


def test_recall_pack_greedy_budget(ranked_store):
    store, mems = ranked_store
    lines = [pack_line(m) for m in mems]
    budget = len(lines[1]) + len(lines[3]) + 10
    res = store.recall_pack("how do we deploy", token_budget=budget, token_counter=len, touch=False)
    assert res.ids() == [mems[1].id, mems[3].id]
    assert res.truncated is True
    assert res.used_tokens <= budget and res.budget == budget
    assert res.queries == ["how do we deploy"]
    assert res.text.splitlines() == ["## Relevant memory", lines[1], lines[3]]
    everything = store.recall_pack("how do we deploy", token_budget=100_000, touch=False)
    assert everything.ids() == [m.id for m in mems] and everything.truncated is False
    capped = store.recall_pack("how do we deploy", max_items=2, touch=False)
    assert capped.ids() == [mems[0].id, mems[1].id]


def test_recall_pack_touch_and_passthrough(store):
    a = store.remember("Deploys need a green CI run.", type="procedural")
    b = store.remember("Deploy tags use semver.", type="semantic")
    res = store.recall_pack("deploy rules", type="procedural", touch=False)
    assert res.ids() == [a.id]
    assert store.get(a.id).access_count == 0
    store.recall_pack("deploy rules")
    assert store.get(a.id).access_count == 1 and store.get(b.id).access_count == 1
    assert store.recall_pack("deploy rules", min_cosine=0.99).text == ""
    semantic = store.recall_pack("deploy rules", mode="semantic", fusion="rrf", touch=False)
    assert set(semantic.ids()) == {a.id, b.id}


def test_recall_pack_validation(store):
    store.remember("something")
    for kwargs, name in [
        ({"token_budget": -1}, "token_budget"),
        ({"token_budget": "800"}, "token_budget"),
        ({"max_items": 0}, "max_items"),
        ({"compress_threshold": 1.5}, "compress_threshold"),
        ({"compress_min_group": 0}, "compress_min_group"),
        ({"token_counter": 4}, "token_counter"),
        ({"header": None}, "header"),
        ({"mode": "hybird"}, "mode"),
        ({"min_cosine": 2.0}, "min_cosine"),
    ]:
        with pytest.raises(ValueError, match=name):
            store.recall_pack("something", **kwargs)


# ----------------------------------------------------------------- auto_context_pack
@pytest.fixture()
def topics(store):
    mems = store.remember_many(
        [
            "The android client is released through the Play Store beta track first.",
            "Postgres credentials are rotated every 90 days by the vault operator.",
            "The cafeteria serves lunch at noon.",
            "Quarterly roadmap review happens in March.",
        ]
    )
    return store, mems


TASK = "Ship the android client release and rotate postgres credentials"


def test_auto_context_pack_fans_out_and_keeps_best_score(topics):
    store, mems = topics
    res = store.auto_context_pack(TASK, touch=False)
    assert res.queries == fanout_queries(TASK, 3)
    assert res.queries[0] == TASK and len(res.queries) == 4
    assert {mems[0].id, mems[1].id} <= set(res.ids())
    for item in res.items:
        best = max(
            (
                s
                for q in res.queries
                for m, s in store.recall(q, k=10, mode="hybrid", touch=False)
                if m.id == item.memory.id
            ),
            default=None,
        )
        assert best is not None and item.score == pytest.approx(best, abs=1e-4)
    scores = [p.score for p in res.items]
    assert scores == sorted(scores, reverse=True)
    only_task = store.auto_context_pack(TASK, max_phrases=0, touch=False)
    assert only_task.queries == [TASK]


def test_auto_context_pack_min_cosine_and_touch_once(topics):
    store, mems = topics
    assert store.auto_context_pack("quantum chromodynamics lattice", min_cosine=0.5).text == ""
    res = store.auto_context_pack(TASK, min_cosine=0.3)
    assert res.ids() and all(store.get(i).access_count == 1 for i in res.ids())
    untouched = set(m.id for m in mems) - set(res.ids())
    assert all(store.get(i).access_count == 0 for i in untouched)
    with pytest.raises(ValueError, match="min_cosine"):
        store.auto_context_pack(TASK, min_cosine=-3)
    with pytest.raises(ValueError, match="max_phrases"):
        store.auto_context_pack(TASK, max_phrases=-1)
    with pytest.raises(ValueError, match="mode"):
        store.auto_context_pack(TASK, mode="fast")


def test_auto_context_pack_budget_and_compress(topics):
    store, _ = topics
    small = store.auto_context_pack(TASK, token_budget=25, touch=False)
    assert small.used_tokens <= 25 and small.truncated is True
    assert len(small.items) < len(store.auto_context_pack(TASK, touch=False).items)
    folded = store.auto_context_pack(
        TASK, token_budget=25, compress=True, compress_threshold=0.0, touch=False
    )
    assert folded.used_tokens <= 25
    assert all(g.text.startswith("- (compressed) ") for g in folded.compressed_groups)
