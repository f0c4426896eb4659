"""An acronym's plural is the acronym (ADR 0109): the English stemmer leaves "prs" and
"gpus" whole, so a question about a PR found no note about PRs by keyword, nor the other
way round. The tokenizer reads "PRs" as "PR", the full-text index holds both, and
``collections migrate`` recounts a collection an earlier release wrote."""

from __future__ import annotations

from test_lexstats import _expected, _live_texts, _stats

from houkai import MemoryStore
from houkai.domain.casing import name_marks
from houkai.domain.text import (
    lexical_form,
    query_terms,
    singular_acronyms,
    stem_tokens,
    tokenize,
)
from houkai.recall.query import question_names
from houkai.recall.reference import naming
from houkai.store.lexmigrate import recount_words
from houkai.store.lexstats import LEXICON, NAMES_FIELD
from houkai.store.search import parse_search, search_args

NOTES = [
    "Two approvals for every PR that touches billing, one from a CODEOWNER.",
    "The merge queue rebases each branch before it lands.",
    "GPUs for the training box come from the Lambda reservation.",
    "GPS tracking on the delivery vans is Samsara.",
    "Open PRs as drafts first; flip them to ready once CI is green.",
]


def test_an_acronyms_plural_or_possessive_reads_as_the_acronym() -> None:
    assert tokenize("Two PRs, the PR's title and PR’s") == [
        "two",
        "pr",
        "the",
        "pr",
        "title",
        "and",
        "pr",
    ]
    assert tokenize("GPUs, CVEs, SDKs, OKRs, 2FAs, MP3s") == [
        "gpu",
        "cve",
        "sdk",
        "okr",
        "2fa",
        "mp3",
    ]
    # an acronym ending in S, a title, a word in lower case and a name stay as written
    assert tokenize("GPS, Ms Smith, prs, Chris") == ["gps", "ms", "smith", "prs", "chris"]
    assert singular_acronyms("no acronym here") == "no acronym here"
    # the index reads the acronym beside the plural: "PRs" is found for "PRs" and for "PR"
    assert lexical_form("Merge PRs and GPUs") == "merge prs and gpus PR GPU"
    assert lexical_form("Merge the PR") == "merge the pr"
    assert stem_tokens("PRs need two approvals") == stem_tokens("PR need two approvals")


def test_an_acronyms_plural_is_no_name_and_names_its_acronym() -> None:
    # written inside a sentence, "PRs" is an acronym as "PR" is, not a capitalised name
    assert name_marks("Open PRs as drafts; the TODOs are in Linear.") == [
        "^^linear",
        "^linear",
        "^open",
    ]
    assert question_names("Who owns the TODOs at Acme?") == ["TODO", "Acme"]
    # a reference point written as a plural finds the note that writes it so
    assert naming("what did we use before GitHub PRs?", ["We used GitHub PRs", "GitLab"]) == [0]


def _keyword_hits(store: MemoryStore, word: str) -> set[str]:
    args = search_args(store.keys.index, f"@lex:({word})", return_fields=("text",), limit=10)
    _, hits = parse_search(store.client.execute_command(*args))
    return {hit.str("text") for hit in hits}


def indexed_as_before(store: MemoryStore, lexicon: str) -> None:
    """Leave *store*'s collection as an earlier release (*lexicon*) indexed it: each text
    lower-cased, without the forms and parts a later one adds."""
    for batch in store.iter_memories():
        for m in batch:
            store.client.hset(store.keys.memory(m.id), "lex", m.text.lower())
    store.client.hset(store.keys.lexstats, NAMES_FIELD, lexicon)


def _lexical(store: MemoryStore, question: str) -> dict[str, float]:
    hits = store.recall(question, k=len(NOTES), mode="hybrid", explain=True, touch=False)
    return {m.text: ex["lexical"] for m, _, ex in hits}


def test_a_question_about_prs_matches_the_note_about_a_pr(store: MemoryStore) -> None:
    store.remember_many(NOTES)
    # a question's "PRs" is searched as "pr", which finds the notes on a PR and on PRs
    assert query_terms("How many approvals do billing PRs need?") == [
        "many",
        "approvals",
        "billing",
        "pr",
    ]
    assert _keyword_hits(store, "pr") == {NOTES[0], NOTES[4]}
    lexical = _lexical(store, "How many approvals do billing PRs need?")
    assert lexical[NOTES[0]] == 1.0  # "approvals", "billing" and "PRs": every word
    assert _lexical(store, "Where do I open my PR?")[NOTES[4]] > 0
    assert _lexical(store, "Which GPU does training use?")[NOTES[2]] > 0
    assert _lexical(store, "Which GPU does training use?").get(NOTES[3], 0.0) == 0.0


def test_migrate_recounts_a_collection_written_before(store: MemoryStore) -> None:
    store.remember_many(NOTES)
    client, key = store.client, store.keys.lexstats
    assert client.hget(key, NAMES_FIELD) == LEXICON.encode()  # the first write counts so
    expected = _stats(store)
    # as the release before left it: "GPUs" counted and indexed as "gpus", the flag at 1
    gpus = next(m for batch in store.iter_memories() for m in batch if m.text == NOTES[2])
    new = client.hget(store.keys.memory(gpus.id), "lexstems").decode()
    old = " ".join("gpus" if w == "gpu" else "^gpus" if w == "^gpu" else w for w in new.split())
    assert "gpu" in new.split() and old != new
    for stem in set(new.split()) - set(old.split()):
        client.hincrby(key, f"s:{stem}", -1)
    for stem in set(old.split()) - set(new.split()):
        client.hincrby(key, f"s:{stem}", 1)
    client.hset(store.keys.memory(gpus.id), mapping={"lexstems": old, "lex": NOTES[2]})
    client.hset(key, NAMES_FIELD, "1")
    assert _keyword_hits(store, "gpu") == set()  # the note about GPUs is not found
    assert recount_words(client, store.keys.memory_prefix, key, batch=2) == 1
    assert _stats(store) == expected == _expected(_live_texts(store))
    assert _keyword_hits(store, "gpu") == {NOTES[2]}
    assert client.hget(key, NAMES_FIELD) == LEXICON.encode()
    assert recount_words(client, store.keys.memory_prefix, key) == 0  # the flag: no pass


def test_migrate_rewrites_the_indexed_form_where_only_it_is_old(store: MemoryStore) -> None:
    # a collection from before stems: its upgrade counted the stems the current way, but
    # the index still reads the text as that release wrote it
    store.remember_many(NOTES)
    client, key = store.client, store.keys.lexstats
    pr = next(m for batch in store.iter_memories() for m in batch if m.text == NOTES[4])
    client.hset(store.keys.memory(pr.id), "lex", NOTES[4])
    client.hset(key, NAMES_FIELD, "1")
    expected = _stats(store)
    assert _keyword_hits(store, "pr") == {NOTES[0]}
    assert recount_words(client, store.keys.memory_prefix, key) == 1
    assert _keyword_hits(store, "pr") == {NOTES[0], NOTES[4]}
    assert _stats(store) == expected  # the counts were right: only the form changed
