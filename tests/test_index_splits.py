"""The keyword index splits a memory's words where recall's tokenizer splits them (ADR
0115). RediSearch 2.10 reads a line break, a non-breaking or CJK space, a dash, a curly
quote or "。" as part of a word: "Order: 552907\\nCustomer: Ines" was indexed as
``552907customer``, and no keyword query for 552907 found it."""

from __future__ import annotations

import pytest
from test_acronym_plurals import _keyword_hits

from houkai import MemoryStore
from houkai.domain.text import REDISEARCH_STOPWORDS, STOP_WORDS, lexical_form, query_terms
from houkai.store import updates
from houkai.store.lexmigrate import recount_words
from houkai.store.lexstats import LINKS_INFERRED_FIELD, NAMES_FIELD

TRICKY = [
    "Order: 552907\nCustomer: Ines Duarte\r\nCarrier: DHL",
    "Reviewed two PRs from Lars for ticket 360003",
    "陈洋负责上海的办公室迁移。",
    "Call O'Brien about Nakamura’s invoice — réunion\u00a0: jeudi…",
    "deploy\u3000window\u2009moved to Friday • owner: “Priya” → Tomasz",
    "Path C:\\Users\\ines\\notes holds the draft",
    "Élodie flew to Москва for the Über kickoff; the re\u0301union notes are in ＡＢＣ１２３",
]


def test_every_word_recall_reads_is_a_word_the_index_holds(store: MemoryStore) -> None:
    store.remember_many(TRICKY)
    for text in TRICKY:
        for term in query_terms(text):
            if term in REDISEARCH_STOPWORDS or term in STOP_WORDS:
                continue
            assert text in _keyword_hits(store, term), (term, lexical_form(text))


@pytest.mark.parametrize(
    ("question", "index"), [("552907", 0), ("360003", 1), ("陈洋", 2), ("O'Brien", 3)]
)
def test_a_word_beside_a_line_break_comes_back_first(
    store: MemoryStore, question: str, index: int
) -> None:
    noise = [f"Order: {100000 + i}\nCustomer: Ana Lopes\nCarrier: UPS" for i in range(60)]
    store.remember_many(noise + TRICKY)
    hits = store.recall(question, k=5, mode="hybrid", touch=False)
    assert hits and hits[0][0].text == TRICKY[index]


def test_migrate_reindexes_what_an_earlier_release_joined(store: MemoryStore) -> None:
    store.remember_many(TRICKY)
    client, key = store.client, store.keys.lexstats
    order = next(m for batch in store.iter_memories() for m in batch if m.text == TRICKY[0])
    client.hset(store.keys.memory(order.id), "lex", TRICKY[0])  # as the release before
    client.hset(key, NAMES_FIELD, "2")
    assert TRICKY[0] not in _keyword_hits(store, "552907")
    assert recount_words(client, store.keys.memory_prefix, key) == 1
    assert TRICKY[0] in _keyword_hits(store, "552907")


def test_doctor_names_a_collection_indexed_the_earlier_way(store: MemoryStore) -> None:
    from houkai.cli.commands.stats import _words

    assert _words(store)["ok"]  # empty: its first write sets the flag
    store.remember_many(TRICKY)
    assert _words(store)["ok"]
    store.client.hset(store.keys.lexstats, NAMES_FIELD, "2")
    line = _words(store)  # a warning: recall works, some words by meaning only
    assert line["ok"] and line["warning"] and "collections migrate" in line["fix"]
    assert f"--vector-type {store.vector_type}" in line["fix"]
    recount_words(store.client, store.keys.memory_prefix, store.keys.lexstats)
    assert "warning" not in _words(store)
    # emptied, the collection's next first write counts the current way
    store.client.hset(store.keys.lexstats, NAMES_FIELD, "2")
    for memory_id in [m.id for batch in store.iter_memories() for m in batch]:
        store.forget(memory_id)
    store.remember("Élodie's new desk is in room 14")
    assert "warning" not in _words(store)
    # update links inferred before the words that say a note is an update changed
    store.client.hset(store.keys.lexstats, LINKS_INFERRED_FIELD, "1")
    line = _words(store)
    assert "not linked" in line["warning"] and "keyword" not in line["warning"]
    updates.relink(store.client, store.keys, ef_runtime=10, exact_upto=1000)
    assert "warning" not in _words(store)


def test_a_word_typed_in_capitals_or_pasted_with_an_accent_apart_is_found(
    store: MemoryStore,
) -> None:
    """RediSearch lower-cases only ASCII letters, and "é" may arrive as "e" and an accent."""
    store.remember_many(TRICKY)
    for word in ("москва", "МОСКВА", "élodie", "über", "réunion", "abc123", "ａｂｃ１２３"):
        terms = query_terms(word)
        assert terms and TRICKY[-1] in _keyword_hits(store, terms[0]), word
