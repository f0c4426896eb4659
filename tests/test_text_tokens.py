"""A memory's text is tokenised once per process (ADR 0121): BM25 over exact tokens, its
stems and the stages' coverage all start from :func:`text_tokens`, remembered per text by
a :class:`PerText` memo bounded by characters."""

from __future__ import annotations

import uuid
from collections import Counter

import pytest

from houkai.domain import text as text_module
from houkai.domain.text import (
    STEM_CACHE_CHARS,
    PerText,
    exact_counts,
    lexical_tokens,
    stem,
    stem_tokens,
    text_tokens,
)


def _fresh(words: str) -> str:
    return f"{words} {uuid.uuid4().hex}"  # a text no earlier test tokenised


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts :func:`text_tokens` reads (not answers from its memo), from now on."""
    read, seen = text_tokens.read, []

    def counted(text: str) -> tuple[str, ...]:
        seen.append(text)
        return read(text)

    monkeypatch.setattr(text_tokens, "read", counted)
    return seen


def test_a_text_is_tokenised_once_for_its_counts_and_stems(monkeypatch) -> None:
    text = _fresh("Deployed checkout-web v2.3 to eu-west-1; the APIs' rollbacks worked")
    seen = _counting(monkeypatch)
    assert text_tokens(text) == tuple(lexical_tokens(text))
    assert stem_tokens(text) == tuple(stem(t) for t in lexical_tokens(text))
    assert exact_counts(text) == Counter(lexical_tokens(text))
    assert seen == [text]


def test_the_same_word_of_two_texts_is_one_string() -> None:
    first, second = text_tokens(_fresh("kestrel ingest")), text_tokens(_fresh("kestrel queue"))
    assert first[0] == second[0] == "kestrel"
    assert first[0] is second[0]  # interned: the memo holds a pointer per token


def test_a_long_text_is_read_each_time_not_remembered(monkeypatch) -> None:
    text = _fresh("word " * (STEM_CACHE_CHARS // 5 + 1))
    assert len(text) > STEM_CACHE_CHARS
    seen = _counting(monkeypatch)
    size = len(text_tokens)
    assert text_tokens(text) == text_tokens(text) == tuple(lexical_tokens(text))
    assert (len(text_tokens), len(seen)) == (size, 2)


def test_the_memo_holds_at_most_its_characters_and_keeps_what_is_read_again() -> None:
    reads: list[str] = []
    memo: PerText[int] = PerText(lambda t: reads.append(t) or len(t), chars=100)
    texts = [f"note {i:05d}" for i in range(40)]  # 10 characters each: 400 in all
    for t in texts:
        assert memo(t) == 10
        memo(texts[0])  # read again and again: never dropped
    assert memo.held <= 50 and sum(map(len, (*memo.young, *memo.old))) <= 100
    assert reads.count(texts[0]) == 1
    assert memo(texts[1]) == 10 and reads.count(texts[1]) == 2  # long dropped: read again
    assert text_tokens.half * 2 >= 4 * text_module.TEXT_MEMO_CHARS
