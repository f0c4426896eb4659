"""A word is also found by its parts, and a long question by its rarest words (ADR 0116).

Each shape came from a probe of memories agents write, one distinct fact among a cluster
of near-identical lines: a ticket's possessive ("INC-20933's" was indexed as ``20933s``),
a number glued to its unit ("1740ms" never found by "1740 ms"), a version's "v", an
identifier's words ("audit_log", "PaymentsLeaseDepth"), a Latin word inside Chinese,
accents left out ("Jose" for "José"), "İ", and a stack trace asked whole, whose first
thirty-two words every trace shares."""

from __future__ import annotations

import re

import pytest
from test_acronym_plurals import _keyword_hits, indexed_as_before

from houkai import MemoryStore
from houkai.domain.text import lexical_form, lexical_tokens, tokenize, word_parts
from houkai.recall import parsed

#: (the fact, its lookalikes' line with {n}, the question, the fact's number): only the
#: fact's one distinct word tells it from 300 lookalikes, and the question or the
#: lookalikes write that word another way
SHAPES = [
    (
        "Ticket INC-20933's root cause was a full disk on the worker.",
        "Ticket INC-{n}'s root cause was a full disk on the worker.",
        "INC-20933",
        20933,
    ),
    (
        "p99 checkout latency hit 1740ms after the deploy.",
        "p99 checkout latency hit {n} ms after the deploy.",
        "latency 1740 ms",
        1740,
    ),
    ("The search box needs 240 GB of RAM.", "The search box needs {n}GB of RAM.", "240GB", 240),
    (
        "Pinned the payment SDK to v29.1.0 for the kiosk.",
        "Pinned the payment SDK to v{n}.1.0 for the kiosk.",
        "29.1.0",
        29,
    ),
    (  # a code glued to its number, asked as typed apart, and the other way round (0118)
        "Ticket OPS-1423: the export job times out.",
        "Ticket OPS-{n}: the export job times out.",
        "ops1423",
        1423,
    ),
    (
        "Error E1024 means the badge reader lost power.",
        "Error E{n} means the badge reader lost power.",
        "e 1024",
        1024,
    ),
    ("Paid $1,950 to the caterer.", "Paid ${n:,} to the caterer.", "paid 1950 dollars", 1950),
]
#: (a memory, a word of it only its parts hold)
PARTS = [
    ("Kenji Mori runs infra and IT. Ext 230.", "it_"),
    ("The audit_log table keeps 400 days of rows.", "audit"),
    ("PaymentsLeaseDepth is set to 12 in production.", "lease"),
    ("我们的订单服务使用TiDB做存储。", "tidb"),
    ("José Ibáñez moved to İzmir in March.", "jose"),
    ("José Ibáñez moved to İzmir in March.", "izmir"),
    ("Ticket INC-20933's root cause was a full disk.", "20933"),
    ("p99 checkout latency hit 1740ms after the deploy.", "1740"),
]


def test_a_word_s_parts_are_read_alike_by_the_index_and_the_questions() -> None:
    assert tokenize("INC-20933's fix") == ["inc", "20933", "fix"]  # not "20933s"
    assert word_parts("audit_log PaymentsLeaseDepth maxRetries") == [
        *("audit", "log", "payments", "lease", "depth", "max", "retries")
    ]
    assert word_parts("1740ms 24GB 9am v2.9.0") == [
        *("1740", "ms", "24", "gb", "9", "am", "2", "09h00")  # and the time's form (ADR 0117)
    ]
    # a product's name, an ordinal, thousands: no parts ("word" is no part of WordPress)
    assert word_parts("WordPress GitHub iPhone 29th 15k 3D 5G") == []
    # a code glued to three digits or more; an amount without its thousands separators
    assert word_parts("OPS1423 E1024 $1,950.00") == ["ops", "1423", "e", "1024", "1950"]
    assert word_parts("mp3 ipv6 p99 x86 1,2,3 2,5") == []  # a list, a decimal comma
    assert word_parts("José İzmir 使用TiDB做存储") == ["jose", "tidb"]
    assert word_parts("listAPIs naïve_café") == ["list", "apis", "naïve", "naive", "café", "cafe"]
    assert tokenize("İzmir") == ["izmir"]  # one word, not "i" and "zmir"
    # an acronym spelled like a stop word is marked, unless shouted beside another (0119)
    assert word_parts("Kenji runs infra and IT; the OR nurses") == ["it_", "or_"]
    assert word_parts("DO NOT DEPLOY IS IT DOWN it is") == []
    # a pronoun "I" or an article "A" beside it is no shouting (0120)
    assert word_parts("Emailed IT; I need a laptop. Ask IT A question") == ["it_"]
    # the index holds what BM25 counts, word for word
    for text in ("latency 1740ms", "audit_log", "José", "İzmir", "INC-20933's fix"):
        assert re.findall(r"[^\W_]+(?:_[^\W_]+)*", lexical_form(text)) == lexical_tokens(text)
    cjk = "我们的订单服务使用TiDB做存储"
    assert sorted(lexical_form(cjk).split()) == sorted(lexical_tokens(cjk))


@pytest.mark.parametrize(
    ("fact", "cluster", "question", "number"), SHAPES, ids=[s[2] for s in SHAPES]
)
def test_a_fact_among_its_lookalikes_comes_back_by_its_parts(
    store: MemoryStore, fact: str, cluster: str, question: str, number: int
) -> None:
    # the lookalikes' numbers are the fact's neighbours: the model reads them alike
    near = [n for n in range(max(1, number - 150), number + 151) if n != number]
    store.remember_many([cluster.format(n=n) for n in near] + [fact])
    hits = store.recall(question, k=5, mode="hybrid", touch=False)
    assert fact in [m.text for m, _ in hits], [m.text for m, _ in hits]


def test_a_commit_comes_back_by_its_short_hash(store: MemoryStore) -> None:
    import hashlib

    shas = [hashlib.sha1(str(i).encode()).hexdigest() for i in range(200)]
    texts = [f"Reverted commit {sha} on main: it broke the build." for sha in shas]
    store.remember_many(texts)
    for short in (shas[77][:7], shas[77][:12]):  # as git log --oneline and GitHub print it
        hits = store.recall(short, k=5, mode="hybrid", touch=False)
        assert hits and hits[0][0].text == texts[77], short
    assert word_parts(f"at {shas[77]}")[0] == shas[77][:7]


def test_the_keyword_index_holds_the_parts(store: MemoryStore) -> None:
    store.remember_many(list(dict.fromkeys(text for text, _ in PARTS)))
    for text, part in PARTS:
        assert text in _keyword_hits(store, part), (part, lexical_form(text))


FRAMES = [
    f'  File "/srv/app/{part}.py", line {40 + i}, in {part}_handler'
    for i, part in enumerate("router views auth session orders payments cart render".split())
]


def _trace(request: int) -> str:
    return "\n".join(
        ["Traceback (most recent call last):", *FRAMES * 3, f"KeyError: 'req-{request}'"]
    )


def test_a_stack_trace_comes_back_by_its_own_text(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    traces = [_trace(700000 + i) for i in range(150)]
    store.remember_many(traces)
    wanted = traces[77]
    hits = store.recall(wanted, k=5, mode="hybrid", touch=False)
    assert hits[0][0].text == wanted  # its one rare word is among the terms asked
    # the first thirty-two words alone are every trace's: the rarest are what tell it apart
    monkeypatch.setattr(parsed, "rarest_terms", lambda core, terms: terms[: parsed.MAX_QUERY_TERMS])
    first = store.recall(wanted, k=5, mode="hybrid", touch=False)
    assert wanted not in [m.text for m, _ in first]


def test_an_acronym_spelled_like_a_stop_word_is_found_by_it(store: MemoryStore) -> None:
    """ "IT" lower-cased is "it", a stop word the index drops, and the embedding reads no
    case: without its own form, a note on the IT desk had only its other words (ADR 0119)."""
    desks = ("HR", "QA", "payroll", "finance", "legal", "sales", "security", "facilities")
    people = ("Ana", "Ben", "Caro", "Dev", "Eli", "Fay", "Gus", "Hana")
    pairs = zip(people, desks, strict=True)
    notes = [f"{person} handles {desk} for the office." for person, desk in pairs]
    notes += [
        "Kenji handles IT for the office.",
        "The printer jams; Ana says it handles thick paper badly.",
        "It is the office's busiest week; it rains all week.",
    ]
    store.remember_many(notes)
    for question in ("who handles IT?", "IT contact at the office"):
        hits = store.recall(question, k=3, mode="hybrid", touch=False)
        assert hits[0][0].text == "Kenji handles IT for the office.", [m.text for m, _ in hits]


def test_migrate_gives_a_collection_written_before_the_acronyms_their_form(
    store: MemoryStore,
) -> None:
    from houkai.store.lexmigrate import recount_words

    texts = [
        "Kenji handles IT for the office.",
        "Emailed IT; I need a laptop.",
        "Ana says it works.",
    ]
    store.remember_many(texts)
    indexed_as_before(store, "7")  # no acronym form; none beside "I" (ADR 0120)
    assert _keyword_hits(store, "it_") == set()
    # the memories whose indexed form changed are written again
    assert recount_words(store.client, store.keys.memory_prefix, store.keys.lexstats) == 2
    assert _keyword_hits(store, "it_") == {texts[0], texts[1]}
