"""Abbreviations in the ``synonyms`` stage (ADR 0109): a question that spells out what a
note abbreviates ("pull requests", "business review") counts the note's "PR", "QBR" as
its words. Parsing and matching need no Redis; the recalls run on a real collection."""

from __future__ import annotations

import pytest

from houkai.domain.model import ValidationError
from houkai.domain.text import terms_of, tokenize
from houkai.recall.stages import default_names
from houkai.recall.synonyms import parse, vocabulary

PR = "Keep PRs under ~400 changed lines; split refactors from behaviour changes."
NOTES = [
    PR,
    "User's git config has `pull.rebase = true`; don't suggest merge commits when syncing.",
    "Removed the last `requests` import from billing-api.",
    "Feature request from Tallow Creek: dark mode for the driver app.",
]


def _related(question: str) -> dict[str, tuple[str, ...]]:
    tokens = tokenize(question)
    return vocabulary().related(terms_of(tokens), tokens)


def test_abbreviations_read_from_their_lines_beside_the_groups() -> None:
    text = (
        "# ours\nhpa = horizontal pod autoscaler  # k8s\nk8s kubernetes\nSRE = site reliability\n"
    )
    assert parse(text)[0] == [("k8s", "kubernetes")]  # an abbreviation is no group
    read = parse(text)[1]
    assert [(a.short, a.words, a.glue) for a in read] == [
        ("hpa", ("horizontal", "pod", "autoscaler"), frozenset()),
        ("sre", ("site", "reliability"), frozenset()),
    ]
    assert parse("dob = date of birth")[1][0].glue == {"of"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("pull request = pr", "line 1: 'pull request' is not one word"),
        ("hpa = autoscaler\n", "line 1: an expansion needs two words that are no stop words"),
        ("\nit = information technology", "line 2: 'it' is a stop word"),
        ("sso = on the", "line 1: an expansion needs two words"),
        ("a = b c = d e", "line 1: one '=' a line"),
    ],
)
def test_a_bad_abbreviation_is_refused_with_its_line(text: str, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        parse(text, "mine.txt")[1]


def test_a_file_is_read_in_one_pass_and_its_first_bad_line_named() -> None:
    with pytest.raises(ValidationError, match="line 1: an expansion needs two words"):
        parse("hpa = autoscaler\nfoo", "mine.txt")


def test_a_question_spells_out_an_abbreviation_with_words_close_together() -> None:
    assert _related("how big should my pull requests be?") == {"pull": ("pr",), "requests": ("pr",)}
    # two words of a longer expansion, in any order: QBR, ETA
    assert "qbr" in _related("how often do tiny accounts get a business review")["business"]
    assert _related("who owns arrival time predictions")["arrival"] == ("eta",)
    # the words far apart, or one word alone, spell out nothing
    assert _related("What day does the trial end?") == {}
    assert _related("pull the latest main before you open a request") == {}
    # a two-word expansion as written: in its order, joined by its own stop words
    assert "wfh" in _related("Do I work from home on Fridays?")["home"]
    for other in ("when do I get home from work", "my commute from work to home", "work near home"):
        assert "home" not in _related(other), other
    # of a longer one, words that stand together in it, its last among them
    assert _related("how much time off do I have")["off"] == ("pto",)
    for other in ("worked in software development", "Is the time I worked paid?", "annual revenue"):
        assert not {"sdk", "pto", "arr"} & {a for words in _related(other).values() for a in words}
    # every place counts: the first ambiguous one does not hide the next
    both = _related("Does the chief operating officer report to the chief financial officer?")
    assert both["financial"] == ("cfo",) and both["operating"] == ("coo",)
    # words another expansion holds too name neither, unless they are all of one's
    assert _related("what did the chief financial officer approve")["chief"] == ("cfo",)
    assert _related("who is the chief officer") == {}
    assert _related("what is our recurring revenue") == {}
    assert _related("the monthly recurring revenue target")["revenue"] == ("mrr",)
    assert _related("does the master services agreement cover it")["agreement"] == ("msa",)
    # an abbreviation notes also write as a word is none: "3 pm" is no product manager
    assert _related("who is the product manager for billing") == {}
    # a question that says the abbreviation itself needs none
    assert "pr" not in _related("Is a PR a pull request?").get("pull", ())


def test_a_long_question_still_spells_out_where_it_does() -> None:
    # each place a word stands is looked at once (a review found 100k characters of one
    # word took 23 s when every place re-read all the later ones)
    tokens = tokenize("chief " * 20_000 + "financial officer")
    assert vocabulary().abbreviations.spelled_out(tokens)["financial"] == ["cfo"]


def test_a_users_file_adds_abbreviations(tmp_path) -> None:
    path = tmp_path / "ours.txt"
    path.write_text("hpa = horizontal pod autoscaler\n", encoding="utf-8")
    tokens = tokenize("What does the pod autoscaler scale on?")
    related = vocabulary(str(path)).related(terms_of(tokens), tokens)
    assert related["pod"] == ("hpa",) and related["autoscaler"] == ("hpa",)
    assert "pr" in vocabulary(str(path)).related(["pull", "request"], ["pull", "request"])["pull"]
    # a short form of two CJK characters is one word, as in a group
    assert parse("拉取 = pull request")[1][0].short == "拉取"


def test_a_note_abbreviating_the_question_climbs(store) -> None:
    store.remember_many(NOTES)
    question = "how big should my pull requests be?"

    def ranked(stages: list[str]) -> tuple[int, dict]:
        hits = store.recall(question, k=len(NOTES), mode="hybrid", explain=True, stages=stages)
        return next((rank, info) for rank, (m, _, info) in enumerate(hits, 1) if m.text == PR)

    rank, info = ranked(list(default_names()))
    assert info["lexical"] == 1.0 and info["query"]["synonyms"]["pull"] == ["pr"]
    rank_without, info = ranked([s for s in default_names() if s != "synonyms"])
    assert info["lexical"] == 0.0
    # without, the note on a `requests` import outranks it by one word of the question
    assert rank < rank_without
