"""score_importance tiers/modifiers and its wiring into the store."""

from __future__ import annotations

import uuid

import pytest

from houkai import MemoryStore, score_importance


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Always run the linter before pushing code.", 0.90),
        ("From now on, reply in British English please.", 0.90),
        ("Correction: the API base path is /v2, not /v1.", 0.90),
        ("The user prefers tabs over spaces in Go files.", 0.90),
        ("We decided to use Postgres for the billing service.", 0.75),
        ("Our naming convention is kebab-case for repositories.", 0.75),
        ("Fixed the flaky checkout test in CI yesterday.", 0.60),
        ("Deployed version 2.3 of the billing service to prod.", 0.60),
        ("It seems the cache gets slower on Monday mornings.", 0.35),
        ("The billing service lives in the payments repository.", 0.50),
    ],
)
def test_tiers(text, expected):
    assert score_importance(text, "semantic", []) == pytest.approx(expected)


def test_highest_tier_wins():
    # hedged ("maybe") but also an instruction ("always"): the instruction wins
    assert score_importance("Maybe we should always pin versions in CI.") == pytest.approx(0.9)


def test_modifiers_and_clamp():
    assert score_importance("We decided to use Postgres for billing.", "feedback") == 0.85
    assert score_importance("Restart the worker after changing its config.", "procedural") == 0.6
    assert score_importance("Always run the linter before pushing code.", "procedural") == 0.98
    assert score_importance("Should we adopt a convention for log formats?") == 0.6
    assert score_importance("Slow?") == 0.25
    assert score_importance("Maybe slow?") == 0.1
    assert score_importance("") == 0.4  # neutral minus the fragment penalty


def test_deterministic_and_tags_ignored():
    text = "We decided to use Postgres for the billing service."
    assert score_importance(text, "semantic", ["db"]) == score_importance(text, "semantic", [])
    assert len({score_importance(text) for _ in range(5)}) == 1


def test_rejects_non_text():
    with pytest.raises(ValueError, match="text must be a string"):
        score_importance(None)


def test_store_importance_fn_and_explicit_value_wins(make_store):
    store = make_store(importance_fn=score_importance)
    auto = store.remember("Always run the linter before pushing code.")
    assert auto.importance == pytest.approx(0.9)
    assert store.get(auto.id).importance == pytest.approx(0.9)
    explicit = store.remember("Always run the linter before pushing code!", importance=0.2)
    assert explicit.importance == pytest.approx(0.2)
    many = store.remember_many(
        [
            "It seems the cache is slower on Mondays.",
            {"text": "We decided to adopt Redis Stack.", "type": "feedback"},
        ]
    )
    assert [m.importance for m in many] == [pytest.approx(0.35), pytest.approx(0.85)]
    plain = make_store()
    assert plain.remember("Always run the linter.").importance == pytest.approx(0.5)


def test_settings_auto_importance_makes_it_the_default(settings, embedder):
    store = MemoryStore(
        collection=f"t-{uuid.uuid4().hex[:10]}", settings=settings.replace(auto_importance=True)
    )
    try:
        assert store.remember("Always run the linter before pushing code.").importance == 0.9
        custom = MemoryStore(
            collection=store.collection_name,
            settings=settings.replace(auto_importance=True),
            importance_fn=lambda text, type, tags: 0.11,
        )
        assert custom.remember("Always pin versions.").importance == pytest.approx(0.11)
    finally:
        store.drop()
