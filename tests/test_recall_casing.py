"""A question typed in lower case still names someone (the ``casing`` stage, ADR 0102):
every write counts the words a memory writes as names beside its stems (``s:^tim``),
recall reads them in its one ``HMGET``, and ``collections migrate`` gives a collection an
earlier release wrote its marks."""

from __future__ import annotations

from test_lexstats import _expected, _live_texts, _stats

from houkai import MemoryStore
from houkai.domain.casing import askable, is_name, name_marks, truecase, uncased
from houkai.domain.text import stem_tokens
from houkai.recall.stages import default_names
from houkai.store.lexmigrate import RECOUNT_LUA, recount_words
from houkai.store.lexstats import LEXICON, NAMES_FIELD, term_stats

NOTES = [
    "Best way to reach Tom: email, he rarely checks his phone.",
    "Tom's birthday is March 3; he likes board games.",
    "Tim next door prefers Signal and never answers calls.",
    "Asked Tim about the shared fence; he is fine with a hedge.",
    "Tom from work lives in Leeds with two cats.",
    "the reach of the new wifi router covers the garden",
]


def test_a_memory_marks_the_words_it_writes_only_as_names() -> None:
    marks = name_marks("Reminder: call Tim about Kestrel's renewal. The SLA is fine; tim agreed.")
    # Kestrel inside a sentence; "Reminder" opens one; Tim is also written in lower case;
    # "The" is a stop word and "SLA" an acronym
    assert marks == ["^^kestrel", "^kestrel", "^reminder"]
    assert name_marks("[8 May 2023] Caroline: I went to the support group with Mel.") == [
        "^^mel",
        "^caroline",
        "^mel",
    ]  # a dated import's stamp opens no sentence of the memory
    # "I'll" is no name, nor a weekday; a stop word is none even inside a sentence ("The
    # Hague"); each part of "Jean-Luc" counts; a list's bullet opens a sentence
    assert name_marks("I'll ask Jean-Luc on Friday.\n- Call Bob in The Hague") == [
        "^^bob",
        "^^hague",
        "^^jean",
        "^^luc",
        "^bob",
        "^call",
        "^hague",
        "^jean",
        "^luc",
    ]


def test_a_question_is_uncased_when_nothing_inside_a_sentence_is_capitalised() -> None:
    assert uncased("northgate renewal date?")
    assert uncased("How do I reach tim?")  # its first word and "I" say nothing
    assert uncased("who covers me when I'm on PTO")  # nor an acronym
    assert not uncased("Where does Mia work?")
    assert not uncased("where does Jean-Luc work")  # a hyphenated name is a capital too
    assert uncased("  I'll ask tim")
    assert askable("who's the SE at northgate's office") == ["northgate", "office"]
    assert askable("what's on in march with tim") == ["tim"]  # a month names no one
    assert len(askable(" ".join(f"word{n}x" for n in range(100)))) == 32  # as terms are
    assert truecase("how do i reach tim's sister", {"tim"}.__contains__) == (
        "how do i reach Tim's sister"
    )
    assert truecase("Where does mia work with Tom?", {"mia"}.__contains__) == (
        "Where does mia work with Tom?"  # typed with case: read as written
    )


def test_a_word_is_a_name_when_most_memories_and_some_sentence_write_it_so() -> None:
    assert is_name(written_as_name=5, inside=2, holding=6)
    assert not is_name(written_as_name=5, inside=0, holding=5)  # "Gift idea for …" only
    assert not is_name(written_as_name=2, inside=1, holding=4)  # "Half" beside "half a can"
    assert not is_name(written_as_name=2, inside=2, holding=5)  # most write it in lower case


def test_the_statistics_count_the_marks_and_take_them_back(store: MemoryStore) -> None:
    mems = store.remember_many(NOTES)
    stats = _stats(store)
    assert stats["s:^tim"] == 2 and stats["s:^^tim"] == 1  # "Asked Tim …" inside
    store.edit(mems[3].id, text="asked tim about the fence")
    store.forget(mems[2].id)
    assert _stats(store) == _expected(_live_texts(store))
    assert "s:^tim" not in _stats(store)
    read = term_stats(
        store.client, store.keys.lexstats, ["reach", "tom"], maybe_names=["tom", "reach"]
    )
    assert read.named == {"tom"}  # "reach" is written in lower case too
    assert read.df == {"reach": 2, "tom": 3}  # the terms' frequencies read beside the marks


def test_the_casing_stage_reads_a_typed_question_as_its_cased_form(store: MemoryStore) -> None:
    store.remember_many(NOTES)

    def order(question: str, stages: str) -> list[str]:
        hits = store.recall(question, k=3, mode="hybrid", stages=stages, touch=False)
        return [m.text for m, _ in hits]

    typed_as_is = ",".join(s for s in default_names() if s != "casing")

    def read(question: str, stages: str = "default") -> dict:
        hits = store.recall(question, k=1, mode="hybrid", stages=stages, explain=True)
        return hits[0][2]["query"]

    cased = order("How do I reach Tim?", "default")
    assert set(cased[:2]) == {NOTES[2], NOTES[3]}  # Tim's notes above Tom's
    assert order("how do i reach tim", "default") == cased
    assert read("how do i reach tim")["cased"] == "how do i reach Tim"
    assert read("how do i reach tim")["names"] == ["Tim"]
    assert "names" not in read("how do i reach tim", typed_as_is)  # without: no one named
    assert "cased" not in read("How do I reach Tim?")  # typed with case: read as written
    assert "cased" not in read("how do i reach the garden")  # nothing to capitalise
    # a possessive name is seen as the one the collection writes ("toms" is no token)
    possessive = read("when is tom's birthday")
    assert possessive["names"] == ["Tom"] and "names_unseen" not in possessive

    assert "stems" not in read("which games are on in march")  # a month is no name


def test_a_typed_possessive_name_is_a_named_thing_as_written(store: MemoryStore) -> None:
    """ "tim's" is the token ``tims``: the named-things reading (``entity``, ``current``)
    weighs the name by its own frequency, read in the same ``HMGET``."""
    store.remember_many(
        [
            *NOTES,
            "the garden shed needs a new roof",
            "buy milk and eggs on the way home",
            "the car is due for a service in May",
            "book club meets on the first Thursday",
        ]
    )

    def entities(question: str) -> list[str]:
        hits = store.recall(question, k=1, mode="hybrid", explain=True)
        return hits[0][2]["stages"].get("question", {}).get("entities", [])

    assert entities("when is tim's birthday") == entities("When is Tim's birthday?") == ["Tim"]


def test_migrate_gives_an_older_collection_its_marks(store: MemoryStore) -> None:
    store.remember_many(NOTES)
    client, key = store.client, store.keys.lexstats
    assert client.hget(key, NAMES_FIELD) == LEXICON.encode()  # the first write counts so
    # as an earlier release left it: stems without marks, no flag
    for batch in store.iter_memories():
        for m in batch:
            stems = " ".join(sorted(set(stem_tokens(m.text))))
            client.hset(store.keys.memory(m.id), "lexstems", stems)
    client.hdel(key, NAMES_FIELD, *[f for f in _stats(store) if f.startswith("s:^")])
    assert not term_stats(client, key, [], maybe_names=["tim"]).named
    # a recount sent for a text edited meanwhile changes nothing
    first = next(iter(store.iter_memories()))[0]
    script = client.register_script(RECOUNT_LUA)
    before = _stats(store)
    stale = script(keys=[store.keys.memory(first.id), key], args=["an older text", "x ^x", "x"])
    assert stale == 0 and _stats(store) == before
    recounted = recount_words(client, store.keys.memory_prefix, key, batch=2)
    assert recounted == len(NOTES) - 1  # the wifi note writes no name: nothing to recount
    assert _stats(store) == _expected(_live_texts(store))
    assert client.hget(key, NAMES_FIELD) == LEXICON.encode()
    assert recount_words(client, store.keys.memory_prefix, key) == 0  # the flag: no pass
    assert term_stats(client, key, [], maybe_names=["tim"]).named == {"tim"}
