"""Stemmed BM25 (ADR 0056): "book" scores "books", and the statistics stay exact,
including for a collection written before stems, until and after its upgrade."""

from __future__ import annotations

from collections import Counter

from test_lexstats import _stats

from houkai import MemoryStore
from houkai.domain.casing import name_marks
from houkai.domain.text import stem_tokens, tokenize
from houkai.store import lexmigrate, lexstats


def _counts(texts: list[str], split, prefix: str) -> dict[str, int]:
    df: Counter[str] = Counter()
    for text in texts:
        df.update(set(split(text)))
    return {f"{prefix}{term}": n for term, n in df.items()}


def _texts(store: MemoryStore) -> list[str]:
    return [m.text for batch in store.iter_memories() for m in batch]


def _make_legacy(store: MemoryStore) -> None:
    """Rewrite the collection as a pre-stems one: plain ``lexterms`` and ``t:`` counts only."""
    texts = {}
    for batch in store.iter_memories():
        for m in batch:
            texts[m.id] = m.text
    for mid, text in texts.items():
        terms, _ = lexstats.doc_terms(text)
        store.client.hdel(store.keys.memory(mid), "lexstems")
        store.client.hset(store.keys.memory(mid), "lexterms", terms)
    store.client.delete(store.keys.lexstats)
    legacy = _counts(list(texts.values()), tokenize, "t:")
    legacy["__N"] = len(texts)
    legacy["__len"] = sum(len(tokenize(t)) for t in texts.values())
    store.client.hset(store.keys.lexstats, mapping=legacy)


def _lexical(store: MemoryStore, query: str) -> dict[str, float]:
    hits = store.recall(query, k=10, mode="hybrid", stages=(), explain=True, touch=False)
    return {m.text: e["lexical"] for m, _, e in hits}


def test_book_finds_books_for_a_question_that_names_someone(store: MemoryStore) -> None:
    store.remember_many(
        [
            "Tim finished a book about whales",
            "Tim likes hiking in the hills",
            "the weather was sunny all week",
        ]
    )
    hits = store.recall("What books has Tim read?", k=3, mode="hybrid", explain=True, touch=False)
    assert hits[0][2]["query"]["stems"] is True  # explain shows the lexical leg used stems
    plain = store.recall("which books are worth it", k=3, mode="hybrid", explain=True)
    assert "stems" not in plain[0][2]["query"]
    named = _lexical(store, "What books has Tim read?")
    assert named["Tim finished a book about whales"] > named["Tim likes hiking in the hills"] > 0
    # a question naming nothing keeps exact tokens: "books" is not "book" (ADR 0056's gate)
    assert _lexical(store, "which books are worth it")["Tim finished a book about whales"] == 0
    scores = lexstats.bm25_scores(
        ["reads"], {"a": "Tim is reading a novel", "b": "sunny week"},
        store.client, store.keys.lexstats,
    )  # fmt: skip
    assert scores["a"] > 0 and scores["b"] == 0


def test_a_one_word_query_matches_every_form_of_the_word(store: MemoryStore) -> None:
    """ "backup" is a keyword lookup: it credits "Backups" (issue #26), while a longer
    question that names nothing keeps ADR 0056's exact tokens."""
    store.remember_many(
        ["Backups run nightly at 2am to the S3 bucket", "The cafeteria serves lunch at noon"]
    )
    one = store.recall("backup", k=2, mode="hybrid", explain=True, touch=False)
    assert one[0][0].text.startswith("Backups") and one[0][2]["lexical"] > 0
    assert one[0][2]["query"]["stems"] is True
    assert _lexical(store, "backup")["The cafeteria serves lunch at noon"] == 0
    assert _lexical(store, "backup schedule")["Backups run nightly at 2am to the S3 bucket"] == 0


def test_stemmed_statistics_exact_across_edits_and_deletes(store: MemoryStore) -> None:
    mems = store.remember_many(["painting a sunset", "she paints daily", "hiking trips", "x y"])
    store.edit(mems[0].id, text="painted the lake at dawn")
    store.forget(mems[2].id)
    store.delete([store.get(mems[3].id)])
    texts = _texts(store)
    want = _counts(texts, lambda t: [*stem_tokens(t), *name_marks(t)], "s:")
    want |= {"__N": len(texts), "__S": len(texts), "__len": sum(len(tokenize(t)) for t in texts)}
    assert _stats(store) == want
    assert want["s:paint"] == 2


def test_a_collection_without_stems_scores_plain_until_upgraded(store: MemoryStore) -> None:
    store.remember_many(["Tim read books", "a book about whales", "nothing here"])
    _make_legacy(store)
    assert not lexmigrate.stemmed_stats(store.client, store.keys.lexstats)
    before = _lexical(store, "Which books did Tim read")
    assert before["a book about whales"] == 0.0  # exact tokens: "books" is not "book"
    explained = store.recall("Which books did Tim read", k=1, mode="hybrid", explain=True)
    assert "stems" not in explained[0][2]["query"]  # explain says what was scored
    # a write meanwhile counts both forms, so the plain statistics stay exact
    store.remember("more books on the shelf")
    edited = store.remember("temporary note")
    store.forget(edited.id)
    texts = _texts(store)
    stats = _stats(store)
    assert {k: v for k, v in stats.items() if k.startswith("t:")} == _counts(texts, tokenize, "t:")
    assert stats["__N"] == 4 and stats["__S"] == 1
    # the upgrade is resumable: run it twice, the second pass changes nothing
    assert lexmigrate.upgrade(store.client, store.keys.memory_prefix, store.keys.lexstats) == 3
    assert lexmigrate.upgrade(store.client, store.keys.memory_prefix, store.keys.lexstats) == 0
    stats = _stats(store)
    assert not [k for k in stats if k.startswith("t:")]  # plain terms taken back
    want = _counts(texts, lambda t: [*stem_tokens(t), *name_marks(t)], "s:")
    assert {k: v for k, v in stats.items() if k.startswith("s:")} == want
    assert stats["__N"] == stats["__S"] == 4
    after = _lexical(store, "Which books did Tim read")
    assert after["a book about whales"] > 0.0
    explained = store.recall("Which books did Tim read", k=1, mode="hybrid", explain=True)
    assert explained[0][2]["query"]["stems"] is True


def test_collections_migrate_upgrades_a_collection_without_stems(settings, make_store) -> None:
    from houkai.app.service import MemoryService

    store = make_store()
    store.remember_many(["old note about gardens", "another old note by Ann"])
    _make_legacy(store)
    service = MemoryService(settings, actor="cli")
    result = service.collection_migrate(name=store.collection_name, vector_type=store.vector_type)
    assert result["stems_upgraded"] == 2 and result["changed"] is False
    assert lexmigrate.stemmed_stats(store.client, store.keys.lexstats)
    assert _lexical(store, "Ann garden")["old note about gardens"] > 0


def test_stemmed_texts_are_remembered_only_up_to_a_bounded_length() -> None:
    from houkai.domain import text as text_module

    remembered = text_module._stems
    short = "Reading books about gardens " + "x" * 20
    long = "Reading books about gardens " * 200  # 5,600 characters
    assert len(long) > text_module.STEM_CACHE_CHARS >= len(short)
    remembered.clear()  # the suite's earlier tests may have filled it (it evicts then)
    before = len(remembered)
    assert stem_tokens(long)[:3] == ("read", "book", "about")
    assert len(remembered) == before  # a long text is not held
    assert stem_tokens(short)[0] == "read"
    assert len(remembered) == before + 1
