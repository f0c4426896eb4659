"""The ``synonyms`` stage (ADR 0096): a question word also finds the words that mean the
same thing ("style checker" → "Formatter/linter"), folded into one BM25 term so a
synonym never scores more than the word asked; a user's file adds groups. Parsing and
BM25 need no Redis; the recalls run through a real-Redis collection."""

from __future__ import annotations

import math
import os
import time
import traceback

import pytest

from houkai.db.filters import filter_expr
from houkai.domain.config import set_settings
from houkai.domain.model import HybridWeights, Memory, ValidationError
from houkai.domain.text import stem_tokens
from houkai.recall import candidates
from houkai.recall.candidates import Candidate
from houkai.recall.parsed import ParsedQuery, read_query
from houkai.recall.stages import default_names
from houkai.recall.stages.base import StageContext
from houkai.recall.stages.prf import rm3_plan
from houkai.recall.synonyms import Vocabulary, parse, vocabulary
from houkai.store.lexstats import TermStats, bm25_scores, candidate_terms

LINT = "Formatter/linter in notify-service: ruff."
NOTES = [
    LINT,
    "notify-service listens on port 5173 locally.",
    "notify-service ships to AWS Lambda with the release workflow.",
    "Code owner for notify-service is Ravi.",
    "notify-service consumes jobs from NATS.",
]


def _without(name: str) -> tuple[str, ...]:
    return tuple(s for s in default_names() if s != name)


# ------------------------------------------------------------------ the vocabulary
def test_groups_read_one_per_line_with_commas_and_comments() -> None:
    groups = parse("# ours\nk8s kubernetes, kube  # the cluster\n\nPR, MR\n")[0]
    assert groups == [("k8s", "kubernetes", "kube"), ("pr", "mr")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("pull-request pr", "line 1: 'pull-request' is not one word as the index splits"),
        ("k8s kubernetes\nit infra", "line 2: 'it' is a stop word"),
        ("kubernetes", "line 1: a group needs two words or more"),
    ],
)
def test_a_bad_group_is_refused_with_its_line(text: str, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        parse(text, "mine.txt")[0]


def test_related_gives_each_term_its_group_by_word_or_inflection() -> None:
    vocab = Vocabulary.of([("linter", "lint", "formatter"), ("gift", "present")])
    # "checks" is no group word; "linting" is an inflection of "lint"
    assert vocab.related(["style", "linting", "checks"]) == {
        "linting": ("linter", "lint", "formatter")
    }
    # two question words of one group each fold the other: a note saying both weighs
    # no less than one saying a synonym
    assert vocab.related(["lint", "formatter"]) == {
        "lint": ("linter", "formatter"),
        "formatter": ("linter", "lint"),
    }
    assert vocab.related(["budget"]) == {}


def test_a_word_of_the_same_stem_but_another_meaning_finds_no_group() -> None:
    vocab = vocabulary()
    assert "gift" in vocab.related(["presents"])["presents"]  # an inflection of "present"
    assert "allergic" in vocab.related(["reactions"])["reactions"]
    # one stem, another word: a presentation is no gift, React no reaction
    assert vocab.related(["presentation", "react", "product", "formation"]) == {}
    # and a group word's stem is not a form of it: "base" is no "based (in)"
    assert "base" not in vocab.related(["base"]) and vocab.related(["based"])


def test_the_built_in_groups_parse_and_a_file_adds_to_them(tmp_path) -> None:
    built_in = vocabulary()
    assert "linter" in built_in.related(["style"])["style"]
    path = tmp_path / "synonyms.txt"
    path.write_text("k8s kubernetes\n", encoding="utf-8")
    mine = vocabulary(str(path))
    assert mine.related(["kubernetes"]) == {"kubernetes": ("k8s",)}
    assert mine.related(["style"]) == built_in.related(["style"])  # the built-in stay
    path.write_text("k8s kubernetes kube\n", encoding="utf-8")
    os.utime(path, (1, 1))  # another modification time: the file is read again
    assert vocabulary(str(path)).related(["kubernetes"]) == {"kubernetes": ("k8s", "kube")}
    with pytest.raises(ValidationError, match="recall_synonyms: cannot read"):
        vocabulary(str(tmp_path / "missing.txt"))


# ------------------------------------------------------------------ BM25 folding
def _stats(df: dict[str, int], n: int = 100) -> TermStats:
    return TermStats(n_docs=n, total_len=8 * n, df=df, stemmed=True)


def test_bm25_folds_a_synonym_into_the_term_it_stands_for() -> None:
    stats = _stats({"style": 2, "checker": 1, "linter": 6, "formatter": 6})
    texts = {"lint": LINT, "other": "The checkout frontend uses Sass."}
    plain = bm25_scores(["style", "checker"], texts, None, "k", stats)  # type: ignore[arg-type]
    assert plain == {"lint": 0.0, "other": 0.0}
    related = {"checker": ("linter", "formatter")}
    folded = bm25_scores(["style", "checker"], texts, None, "k", stats, related=related)  # type: ignore[arg-type]
    # one term whose df is the group's (1 + 6 + 6): "linter" and "formatter" in one
    # text are two occurrences of it
    idf = math.log(1 + (100 - 13 + 0.5) / (13 + 0.5))
    dl = len(stem_tokens(LINT))
    expected = idf * 2 * 2.2 / (2 + 1.2 * (1 - 0.75 + 0.75 * dl / 8))
    assert folded == {"lint": pytest.approx(expected), "other": 0.0}


def test_a_synonym_weighs_what_the_word_asked_weighs_in_its_group() -> None:
    stats = _stats({"checker": 1, "linter": 6})
    texts = {"asked": "checker ruff", "synonym": "linter ruff"}
    alone = bm25_scores(["checker"], texts, None, "k", stats)  # type: ignore[arg-type]
    folded = bm25_scores(["checker"], texts, None, "k", stats, related={"checker": ("linter",)})  # type: ignore[arg-type]
    assert folded["asked"] > 0
    assert folded["asked"] == pytest.approx(folded["synonym"])
    # the group is as common as its words together: less weight than the rare word alone
    assert folded["asked"] < alone["asked"]


def test_two_question_words_of_one_group_never_let_a_synonym_outscore_them() -> None:
    stats = _stats({w: 10 for w in ("style", "checker", "linter", "lint", "formatter", "format")})
    related = vocabulary().related(["style", "checker"])
    texts = {"asked": "style checker notes", "one": "style notes", "synonym": "linter notes"}
    scores = bm25_scores(["style", "checker"], texts, None, "k", stats, related=related)  # type: ignore[arg-type]
    assert scores["asked"] > scores["synonym"] > 0
    assert scores["one"] == pytest.approx(scores["synonym"])


def test_over_exact_tokens_a_stems_frequency_counts_once() -> None:
    # a question that names nothing is matched over exact tokens, but a stemmed
    # collection's frequencies are its stems': "test", "tests", "testing" are one
    stats = TermStats(n_docs=100, total_len=800, df={"tested": 50, "test": 50, "tests": 50,
                      "testing": 50}, stemmed=False, counted=True)  # fmt: skip
    related = {"tested": ("test", "tests", "testing")}
    folded = bm25_scores(["tested"], {"t": "tests pass"}, None, "k", stats, related=related)  # type: ignore[arg-type]
    idf = math.log(1 + (100 - 50 + 0.5) / (50 + 0.5))
    assert folded["t"] == pytest.approx(idf * 2.2 / (1 + 1.2 * (1 - 0.75 + 0.75 * 2 / 8)))


def test_a_synonym_matches_by_word_or_inflection_not_by_stem() -> None:
    # Snowball's stem of "production" is "product": a note on a product is no deployment
    stats = _stats({"deployed": 5, "production": 5})
    related = {"deployed": ("production",)}
    texts = {"product": "billing-api product owner is Ana", "prod": "ships to production"}
    scores = bm25_scores(["deployed"], texts, None, "k", stats, related=related)  # type: ignore[arg-type]
    assert scores["product"] == 0.0 and scores["prod"] > 0
    # an inflection of a synonym counts; a word of the term's own stem counts once
    stats = _stats({"deployed": 5, "deploys": 5, "linter": 5})
    related = {"deployed": ("deploys", "linter")}
    texts = {"one": "deploys nightly", "inflected": "linters nightly", "none": "lint nightly"}
    scores = bm25_scores(["deployed"], texts, None, "k", stats, related=related)  # type: ignore[arg-type]
    assert scores["one"] == pytest.approx(scores["inflected"])
    assert scores["one"] > 0 == scores["none"]


def test_two_question_words_of_one_stem_keep_their_synonyms_in_either_order() -> None:
    # "host" has no group, "hosting" has; one stem, one BM25 term, whichever came first
    texts = {"t": "deployed on friday"}
    for terms in (["host", "hosting"], ["hosting", "host"]):
        related = vocabulary().related(terms)
        stats = _stats({w: 5 for w in [*terms, *related["hosting"]]})
        assert "host" not in related and "deployed" in related["hosting"]
        scores = bm25_scores(terms, texts, None, "k", stats, related=related)  # type: ignore[arg-type]
        assert scores["t"] > 0, terms


def test_over_exact_tokens_the_asked_word_inflects_as_its_synonyms_do() -> None:
    stats = TermStats(n_docs=100, total_len=800, df={"approve": 5, "review": 5},
                      stemmed=False, counted=True)  # fmt: skip
    texts = {"own": "we approved the plan", "synonym": "we reviewed the plan"}
    scores = bm25_scores(["approve"], texts, None, "k", stats, related={"approve": ("review",)})  # type: ignore[arg-type]
    assert scores["own"] == pytest.approx(scores["synonym"])
    assert scores["own"] > 0


def test_synonyms_are_searched_only_with_the_postings_the_words_asked_leave() -> None:
    stats = _stats({"deploy": 6000, "billing": 3000, "ship": 2000, "prod": 500}, n=50_000)
    searched = candidate_terms(["deploy", "billing"], stats, 10_000, synonyms=["ship", "prod"])
    assert searched == ["deploy", "billing", "prod"]  # the words asked, then what fits
    assert candidate_terms(["deploy"], stats, 1000, synonyms=["prod"]) == ["deploy"]
    # and never more than a quarter of the budget, however much the words asked leave
    stats = _stats({"billing": 3000, "ship": 2000, "prod": 500, "deployment": 1500}, n=50_000)
    searched = candidate_terms(["billing"], stats, 10_000, ["ship", "prod", "deployment"])
    assert searched == ["billing", "prod", "deployment"]


def test_rm3_leaves_out_the_synonyms_already_searched() -> None:
    texts = [
        "Formatter/linter in notify-service: ruff, pinned in pyproject.",
        "The linter config for notify-service lives in pyproject.",
    ]
    pool = {
        str(i): Candidate(Memory(id=str(i), text=t), cosine=0.5, lexical=1.0)
        for i, t in enumerate(texts)
    }
    query = ParsedQuery(text="What style checker does notify-service run?", now=0.0)
    query.terms = ["style", "checker", "notify", "service", "run"]
    query.related = vocabulary().related(query.terms)
    query.stats = _stats({t: 3 for t in query.terms})
    ctx = StageContext(None, None, query, (), HybridWeights(), True)  # type: ignore[arg-type]
    plan = rm3_plan(ctx, pool)
    assert plan is not None and plan.stems
    assert not {"linter", "formatt"} & set(plan.stems)
    assert "pyproject" in plan.stems  # what the top hits hold beyond the question


# ------------------------------------------------------------------ recall
def test_a_paraphrase_finds_the_note_through_its_synonym(store) -> None:
    store.remember_many([{"text": t, "tags": ["notify-service"]} for t in NOTES])
    question = "What style checker do I run on notify-service?"
    hits = store.recall(question, k=5, mode="hybrid", touch=False, explain=True)
    by_text = {m.text: info for m, _, info in hits}
    assert hits[0][0].text == LINT
    info = by_text[LINT]
    # the best BM25 of the pool alone, through "linter" and "formatter"
    assert info["lexical"] > max(i["lexical"] for t, i in by_text.items() if t != LINT)
    assert "linter" in info["query"]["synonyms"]["checker"]
    # the stage off: the note holds no word of the question but the service's name
    off = store.recall(
        question, k=5, mode="hybrid", touch=False, explain=True, stages=_without("synonyms")
    )
    info = next(i for m, _, i in off if m.text == LINT)
    assert "synonyms" not in info.get("query", {})
    assert info["lexical"] <= max(i["lexical"] for m, _, i in off if m.text != LINT)


def test_a_note_holding_only_a_synonym_joins_the_candidates(store) -> None:
    store.remember_many(["LEGO sets are a good gift idea.", "Lunch is at noon."])
    read = read_query(store, "What present could I buy?", 0.0, hybrid=True)
    assert read.terms == ["present", "buy"]
    pool: dict = {}
    assert not candidates.add_lexical(store, pool, read.terms, read.stats, "*", 10, None)
    assert pool == {}  # no memory holds a word of the question
    read = read_query(store, "What present could I buy?", 0.0, hybrid=True, synonyms=vocabulary())
    assert candidates.add_lexical(store, pool, read.terms, read.stats, "*", 10, None, read.related)
    assert [c.memory.text for c in pool.values()] == ["LEGO sets are a good gift idea."]


def test_the_recalls_filter_binds_the_synonyms_too(store) -> None:
    store.remember_many(
        [
            {"text": "LEGO sets are a good gift idea.", "tags": ["tim"]},
            {"text": "A gift card works for anyone.", "tags": ["other"]},
            {"text": "Buy a present for the team party.", "tags": ["other"]},
        ]
    )
    question = "What present could I buy?"
    read = read_query(store, question, 0.0, hybrid=True, synonyms=vocabulary())
    pool: dict = {}
    where = filter_expr(tag="tim", now=time.time())
    assert candidates.add_lexical(
        store, pool, read.terms, read.stats, where, 10, None, read.related
    )
    assert {c.memory.text for c in pool.values()} == {"LEGO sets are a good gift idea."}


def test_a_users_file_adds_its_groups_through_the_setting(make_store, settings, tmp_path) -> None:
    path = tmp_path / "ours.txt"
    path.write_text("# cluster names\nk8s kubernetes\n", encoding="utf-8")
    store = make_store(settings=settings.replace(recall_synonyms=str(path)))
    store.remember_many(["We run on k8s since March.", "Lunch is at noon."])
    question = "Is kubernetes what we use?"
    hits = store.recall(question, k=2, mode="hybrid", explain=True)
    info = next(i for m, _, i in hits if "k8s" in m.text)
    assert info["lexical"] == 1.0 and info["query"]["synonyms"]["kubernetes"] == ["k8s"]
    off = store.recall(question, k=2, mode="hybrid", explain=True, stages=_without("synonyms"))
    assert all(i["lexical"] == 0 for _, _, i in off)  # no note holds a word of the question
    bad = tmp_path / "bad.txt"
    bad.write_text("pull-request, pr\n", encoding="utf-8")
    broken = make_store(
        collection=store.collection_name, settings=settings.replace(recall_synonyms=str(bad))
    )
    with pytest.raises(ValidationError, match=r"bad\.txt, line 1: 'pull-request' is not one word"):
        broken.recall(question, k=2, mode="hybrid")


def test_a_file_edited_into_a_bad_state_keeps_the_groups_read_before(tmp_path, caplog) -> None:
    path = tmp_path / "ours.txt"
    path.write_text("k8s kubernetes\n", encoding="utf-8")
    assert vocabulary(str(path)).related(["kubernetes"]) == {"kubernetes": ("k8s",)}
    path.write_text("k8s kubernetes\nkubernetes\n", encoding="utf-8")
    os.utime(path, (2, 2))
    with caplog.at_level("ERROR", logger="houkai.recall.synonyms"):
        kept = vocabulary(str(path))
        again = vocabulary(str(path))  # the same bad file: neither read nor logged again
    assert kept.related(["kubernetes"]) == {"kubernetes": ("k8s",)} == again.related(["kubernetes"])
    assert caplog.text.count("line 2: a group needs two words or more") == 1


def test_a_bad_file_raises_a_fresh_error_each_time(tmp_path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("kubernetes\n", encoding="utf-8")
    depths = []
    for _ in range(3):
        with pytest.raises(ValidationError, match="a group needs two words") as caught:
            vocabulary(str(bad))
        depths.append(len(traceback.extract_tb(caught.value.__traceback__)))
    assert len(set(depths)) == 1  # one raise each time, not one error raised again


def test_a_synonyms_path_must_name_a_small_file(tmp_path, monkeypatch) -> None:
    with pytest.raises(ValidationError, match="is not a file"):
        vocabulary(str(tmp_path))
    big = tmp_path / "big.txt"
    big.write_text("k8s kubernetes\n" * 80_000, encoding="utf-8")
    with pytest.raises(ValidationError, match="bytes, over"):
        vocabulary(str(big))
    with pytest.raises(ValidationError, match="cannot read"):
        vocabulary("bad\0path")
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "ours.txt").write_text("k8s kubernetes\n", encoding="utf-8")
    assert vocabulary("~/ours.txt").related(["k8s"]) == {"k8s": ("kubernetes",)}


def test_the_servers_refuse_to_start_on_a_bad_synonyms_file(settings, tmp_path) -> None:
    from houkai.api.mcp_server import serve
    from houkai.api.rest import create_app

    bad = tmp_path / "bad.txt"
    bad.write_text("# ours\nit infra\n", encoding="utf-8")
    with pytest.raises(ValidationError, match=r"bad\.txt, line 2: 'it' is a stop word"):
        create_app(settings.replace(recall_synonyms=str(bad)))
    set_settings(settings.replace(recall_synonyms=str(bad)))
    with pytest.raises(ValidationError, match="'it' is a stop word"):
        serve("stdio")
    # with the stage off too: a caller may turn it on per recall
    with pytest.raises(ValidationError, match="'it' is a stop word"):
        create_app(settings.replace(recall_synonyms=str(bad), recall_stages="query"))
    # an abbreviation's line too
    bad.write_text("hpa = autoscaler\n", encoding="utf-8")
    with pytest.raises(ValidationError, match=r"bad\.txt, line 1: an expansion needs two words"):
        create_app(settings.replace(recall_synonyms=str(bad)))
