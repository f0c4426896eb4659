"""Tokenisation shared by the lexical index, key-phrase extraction and heuristics.

RediSearch's default tokenizer splits on punctuation and whitespace but leaves a
run of CJK or Hangul characters as one token, so keyword search cannot find a
word inside such a run. We therefore index (and query) a *lexical* form of the
text in which each CJK/Kana/Hangul run is followed by its character bigrams,
the seed's technique (ADR 0003). Query terms are reduced to ``\\w+`` tokens, which
cannot carry RediSearch syntax, so user text never reaches the query parser raw.
"""

from __future__ import annotations

import calendar
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Callable
from typing import Any, Generic, TypeVar, cast

import snowballstemmer

from .numbers import number_forms

_CJK_CHAR = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK_RE = re.compile(f"[{_CJK_CHAR}]")
_CJK_RUN_RE = re.compile(f"[{_CJK_CHAR}]+")
_WORD_RE = re.compile(r"\w+")
#: A word as written, opening with a letter of any script ("Tomás", "Jean-Luc", "Tom's"):
#: its case says whether it is written as a name.
LETTER_WORD = re.compile(r"[^\W\d_][\w'’-]*")
#: "[8 May 2023] ": the date stamp a dated import writes ahead of a memory's text.
_DATE_STAMP = re.compile(r"^\s*\[[^\]]{1,40}\]\s*")


def without_date_stamp(text: str) -> str:
    """*text* without a leading ``[8 May 2023]`` stamp: every memory of a dated import
    carries one, so it says nothing about what the memory is about."""
    return _DATE_STAMP.sub("", text, count=1)


# RediSearch's default English stop words: they are not indexed, so a query
# made only of them must not be sent as a lexical query at all.
REDISEARCH_STOPWORDS: frozenset[str] = frozenset(
    """a is the an and are as at be but by for if in into it no not of on or such that their
    then there these they this to was will with""".split()
)

STOP_WORDS: frozenset[str] = frozenset(
    """a an the is are was were be been being have has had do does did will would could
    should may might shall can need must to for of in on at by from with about and or but if
    then so as that this these those it its i my we our you your they their what how when
    where who which why not just now also than only any all each""".split()
)

#: The stop words of both lists: words no question asks for and no memory is found by.
ANY_STOP_WORDS: frozenset[str] = STOP_WORDS | REDISEARCH_STOPWORDS

MAX_QUERY_TERMS = 32


def bigrams(run: str) -> list[str]:
    return [run[i : i + 2] for i in range(len(run) - 1)]


#: An acronym's plural or possessive as agents write it: "PRs", "GPUs", "PR's", "SDKs’",
#: "2FAs", "MP3s": two capitals or digits or more, one of them a capital.
_ACRONYM_S = re.compile(r"\b((?=[A-Z0-9]*[A-Z])[A-Z0-9]{2,})['’]?s\b")
#: What every such word holds: a quick test that spares most texts the search above.
_CAPITAL_S = re.compile(r"[A-Z0-9]['’]?s\b")


def singular_acronyms(text: str) -> str:
    """*text* with each acronym's plural or possessive written as the acronym ("PRs" →
    "PR", "GPUs" → "GPU"): the English stemmer leaves "prs" and "gpus" whole, so without
    it a question about a PR would not find a note about PRs (ADR 0109)."""
    return _ACRONYM_S.sub(r"\1", text) if _CAPITAL_S.search(text) else text


#: The apostrophes :func:`tokenize` drops ("O'Brien" is ``obrien``) and
#: :func:`lexical_form` with it; RediSearch splits at the straight one ("o", "brien") and
#: joins at the curly one ("nakamura’s").
_APOSTROPHES = re.compile("['’]")


#: A number's possessive ("INC-20933's", "node-7's"): the number, not "20933s" (ADR 0116).
_DIGIT_POSSESSIVE = re.compile(r"(?<=\d)['’]s\b")


def _lower(text: str) -> str:
    """*text* lower-cased, "İ" as "i": Python writes it as an i and a combining dot, which no
    word holds ("İzmir" would be ``i`` and ``zmir``)."""
    return text.lower().replace("i\u0307", "i")


def _written(text: str) -> str:
    """*text* composed and compatible ("é", not "e" and an accent; "ａ" as "a": as typed and
    as pasted read the same, ADR 0115), without apostrophes and numbers' possessives."""
    composed = text if text.isascii() else unicodedata.normalize("NFKC", text)
    if "'" not in composed and "’" not in composed:
        return composed  # most texts: nothing to drop
    return _APOSTROPHES.sub("", _DIGIT_POSSESSIVE.sub("", composed))


#: What an ASCII text without an underscore holds when some word of it has parts
#: (:func:`word_parts`): a capital after a small letter or two capitals before one, a digit
#: before a letter, "v" before a digit. Most texts hold none and skip the per-word reading;
#: one with an underscore or a character beyond ASCII always reads its words.
_PARTS_HINT = re.compile(r"[a-z][A-Z]|[A-Z][A-Z][a-z]|[0-9][A-Za-z]|\bv[0-9]")
#: The words some rule of :func:`word_parts` may split: not ASCII letters small but for the
#: first or all capitals ("deploy", "Kestrel", "API"); a part needs a digit, an
#: underscore, a letter beyond ASCII or a capital inside small letters.
_SPLITTABLE = re.compile(r"\b(?![A-Z]?[a-z]+\b|[A-Z]+\b)\w+")
#: Camel case's words: an acronym's plural ("listAPIs": APIs), an acronym before a word
#: ("getHTTPResponse": HTTP), a word, an acronym, a number.
_CAMEL = re.compile(r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_NUMBER_UNIT = re.compile(r"(\d+)([a-z]{1,4})")
_VERSION = re.compile(r"v(\d+)")
#: A commit hash or another long hex id (a digit and a letter in it): it is also found by
#: the short forms tools print, its first :data:`SHORT_HEX` characters.
_HEX = re.compile(r"(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{13,64}")
SHORT_HEX = range(7, 13)
_SMALL_CAPITAL = re.compile("[a-z][A-Z]|[A-Z]{2}[a-z]")


#: The units a number is written against ("1740ms", "24GB", "9am"): the parts of such a
#: word (not an ordinal's "th", nor "15k").
UNITS = frozenset(
    """ns us ms s sec secs min mins h hr hrs kb mb gb tb kib mib gib tib hz khz mhz ghz px
    rem em pt kg mg km m cm mm mph kmh am pm""".split()
)


def _camel_words(piece: str) -> list[str]:
    """The words of a code identifier written in camel case ("maxRetries",
    "PaymentsLeaseDepth", "getHTTPResponse"); none of a product's name in two capitalised
    words ("GitHub", "WordPress": the index would find "word" in it) or "iPhone"."""
    words = _CAMEL.findall(piece)
    if len(words) >= 3 or (piece[:2].islower() and len(words) == 2):
        return words
    return []


def _fold(word: str) -> str:
    """*word* without its accents, when that leaves plain ASCII ("josé" → "jose"); else ""."""
    bare = "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))
    return bare if bare != word and bare.isascii() else ""


def word_parts(text: str) -> list[str]:
    """The parts a word of *text* is also found by, lower-cased (ADR 0116): an identifier's
    words ("audit_log": audit, log; "PaymentsLeaseDepth": payments, lease, depth), a number
    and its unit ("1740ms": 1740, ms), a version's number ("v2.9.0": 2), Latin words inside
    a CJK run ("使用TiDB做存储": tidb), a word without its accents ("José": jose), a long hex
    id's short forms (a commit's first 7 to 12 characters), and one form for a number
    written several ways (a phone's digits joined, ``14h30``, ``mar14``:
    :func:`~houkai.domain.numbers.number_forms`, ADR 0117). The index and the questions
    read the same parts, so "1740 ms" finds "1740ms" and the other way round."""
    return _parts(_written(text))


#: A word in capitals, as an acronym is written.
_CAPITALS = re.compile(r"\b[A-Z]{2,5}\b")
_TWO_CAPITALS = re.compile("[A-Z][A-Z]")  # the quick scan first: most texts hold none
#: What an acronym spelled like a stop word is indexed as: its word and this mark ("it_"),
#: a word no stop word list holds and no stemmer changes.
ACRONYM_MARK = "_"


def acronym_forms(written: str) -> list[str]:
    """The acronyms of *written* spelled like a stop word ("IT" in "Kenji runs infra and
    IT", "OR", "ON"), marked (:data:`ACRONYM_MARK`): lower-cased they would be dropped with
    "it", by the index and by the question alike, and the embedding reads no case either
    (ADR 0119). Not one beside another capital stop word: a shouted "DO NOT DEPLOY"."""
    if not _TWO_CAPITALS.search(written) or not any(
        m[0].lower() in ANY_STOP_WORDS for m in _CAPITALS.finditer(written)
    ):
        return []  # most texts: one or two scans
    words = _WORD_RE.findall(written)
    # "I" and "A" are capitals of one letter, not shouting: "Emailed IT; I need a laptop"
    caps = [len(w) > 1 and w.isupper() and w.lower() in ANY_STOP_WORDS for w in words]
    forms = [
        word.lower() + ACRONYM_MARK
        for i, word in enumerate(words)
        if caps[i] and not (i > 0 and caps[i - 1]) and not (i + 1 < len(words) and caps[i + 1])
    ]
    return list(dict.fromkeys(forms))


def _parts(written: str) -> list[str]:
    """:func:`word_parts` of a text :func:`_written` already read."""
    # whole-text forms: an acronym spelled like a stop word, a number however written
    forms = [*acronym_forms(written), *number_forms(_lower(written))]
    if "_" not in written and written.isascii() and not _PARTS_HINT.search(written):
        return forms
    out: list[str] = []
    for word in dict.fromkeys(_SPLITTABLE.findall(written)):  # each distinct word once
        low = _lower(word)
        pieces = [p for p in word.split("_") if p]
        if not word.isascii() and _CJK_RE.search(word):
            pieces = [p for piece in pieces for p in _CJK_RUN_RE.split(piece) if p]
        parts: list[str] = []
        for piece in pieces:
            piece_low = _lower(piece)
            parts.append(piece_low)
            if _SMALL_CAPITAL.search(piece):
                parts.extend(_lower(p) for p in _camel_words(piece))
            unit = _NUMBER_UNIT.fullmatch(piece_low)
            if unit is not None and unit[2] in UNITS:
                parts.extend(unit.groups())
            version = _VERSION.fullmatch(piece_low)
            if version is not None:
                parts.append(version[1])
            folded = "" if piece_low.isascii() else _fold(piece_low)
            if folded:
                parts.append(folded)
            if _HEX.fullmatch(piece_low):
                parts.extend(piece_low[:n] for n in SHORT_HEX)  # "b65840c" of a full SHA
        out.extend(p for p in parts if p != low)
    return list(dict.fromkeys([*out, *forms]))


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens plus CJK/Korean character bigrams (the seed's ``_tokenize``)."""
    return _tokens(_written(text))


def _tokens(written: str) -> list[str]:
    """:func:`tokenize` of a text :func:`_written` already read."""
    normalised = _lower(singular_acronyms(written))
    tokens = _WORD_RE.findall(normalised)
    if normalised.isascii() or not _CJK_RE.search(normalised):
        return tokens
    extra: list[str] = []
    for run in _CJK_RUN_RE.findall(normalised):
        if len(run) >= 2:
            extra.extend(bigrams(run))
    return tokens + extra


def lexical_tokens(text: str) -> list[str]:
    """What the lexical index holds of *text*, as BM25 counts it: :func:`tokenize`'s
    tokens, then each word's parts (:func:`word_parts`, ADR 0116)."""
    written = _written(text)  # read once for both
    return _tokens(written) + _parts(written)


_STEMMER = snowballstemmer.stemmer("english")
_STEMS: dict[str, str] = {}
_STEMS_MAX = 200_000  # distinct words remembered (a few MB); past it, stems are recomputed


def stem(token: str) -> str:
    """The English Snowball stem of a lower-cased token ("books" → "book", "reading" → "read").

    The lexical leg scores BM25 over stems (ADR 0056): RediSearch already stems English
    when it finds keyword candidates, so only the scoring counted exact tokens. CJK
    bigrams and digits come back unchanged. Cached: a collection repeats its words.
    """
    found = _STEMS.get(token)
    if found is None:
        found = _STEMMER.stemWord(token)
        if len(_STEMS) < _STEMS_MAX:
            _STEMS[token] = found
    return found


#: Texts up to this long are remembered by a :class:`PerText` function; a longer one is
#: read each time, whatever the memories' size limit.
STEM_CACHE_CHARS = 2000
#: How many characters of texts a :class:`PerText` function remembers, at most: about
#: 12,000 notes of 80 characters (a 100,000-memory collection's recall reads ~130
#: candidates), a few MB for each function's values.
TEXT_MEMO_CHARS = 1_000_000

T = TypeVar("T")
_MISSING: Any = object()


class PerText(Generic[T]):
    """A function of a memory's text, remembered per text up to :data:`STEM_CACHE_CHARS`,
    for the texts read most recently (:data:`TEXT_MEMO_CHARS` characters of them at most):
    the same memories recur across recalls, and a long document is read each time rather
    than held in memory.

    Bounded by characters rather than by count, so that short notes are many and a few
    long ones cannot fill memory; near-LRU by two generations of plain dicts (a text read
    again moves to the young one; when the young one is full, the old one is dropped),
    so a hit is one dict lookup and threads need no lock: a race can only drop a value,
    which is read again."""

    def __init__(self, read: Callable[[str], T], chars: int = TEXT_MEMO_CHARS) -> None:
        self.read = read
        self.half = chars // 2
        self.young: dict[str, T] = {}
        self.old: dict[str, T] = {}
        self.held = 0  # characters of the young generation's texts

    def __call__(self, text: str) -> T:
        found = self.young.get(text, _MISSING)
        if found is not _MISSING:
            return cast(T, found)
        if len(text) > STEM_CACHE_CHARS:
            return self.read(text)
        found = self.old.get(text, _MISSING)
        if found is _MISSING:
            found = self.read(text)
        if self.held + len(text) > self.half:  # the young generation is full: it gets old
            self.old, self.young, self.held = self.young, {}, 0
        self.young[text] = found
        self.held += len(text)
        return cast(T, found)

    def __len__(self) -> int:
        """Texts remembered (one read again since its generation was young counts twice)."""
        return len(self.young) + len(self.old)

    def clear(self) -> None:
        self.young, self.old, self.held = {}, {}, 0


#: :func:`lexical_tokens` of a text as a tuple, remembered per text: BM25 over exact tokens,
#: the stems and the stages' coverage all start from them, and reading them was most of
#: scoring a pool (ADR 0121). The tokens are interned: the memo holds a pointer per token,
#: so it can hold four times the characters of the other functions in the same memory.
text_tokens: PerText[tuple[str, ...]] = PerText(
    lambda text: tuple(map(sys.intern, lexical_tokens(text))), 4 * TEXT_MEMO_CHARS
)


def stem_tokens(text: str) -> tuple[str, ...]:
    """:func:`lexical_tokens`, each token stemmed (the terms of stemmed BM25).

    Remembered per text up to :data:`STEM_CACHE_CHARS`: one recall stems its pool for
    BM25 and again for the RM3 share (ADR 0061), and the same memories recur across
    recalls; a long document is stemmed each time rather than held in memory."""
    return _stems(text)


def _stem_tokens(text: str) -> tuple[str, ...]:
    known = _STEMS.get
    return tuple(known(t) or stem(t) for t in text_tokens(text))


_stems = PerText(_stem_tokens)

#: How often each of :func:`tokenize`'s tokens occurs in a text (read only: it is shared),
#: remembered per text like :func:`stem_tokens` but for a quarter as many characters,
#: since each holds a dict of its own: BM25 over exact tokens reads it, and over stems it
#: when the question has synonyms (ADR 0096). A text it no longer holds is counted again
#: from :func:`text_tokens`.
exact_counts: PerText[Counter[str]] = PerText(
    lambda text: Counter(text_tokens(text)), TEXT_MEMO_CHARS // 4
)


#: The weekdays and months, lower-cased: capitalised words that name no one and no thing
#: ("Friday standup moves"), and the times a change can start from ("starting Monday").
CALENDAR_WORDS = frozenset(n.lower() for n in (*calendar.day_name, *calendar.month_name) if n)


#: The endings of an inflection: "linting" is "lint" + "ing", "warned" is "warn" + "ed".
_ENDINGS = ("s", "es", "d", "ed", "ing")


def inflects(term: str, word: str) -> bool:
    """Is *term* an inflection of *word* ("reviewed" of "review", "shipping" of "ship" by
    its doubled consonant, "deleting" of "delete")? Not the other way round: "base" is
    no form of "based in"."""
    if len(term) <= len(word) or stem(term) != stem(word):
        return False
    if term.startswith(word):
        rest = term[len(word) :]
    elif word.endswith("e") and term.startswith(word[:-1]):
        rest = term[len(word) - 1 :]  # "deleting" of "delete"
    else:
        return False
    if len(rest) > 1 and rest[0] == word[-1]:
        rest = rest[1:]  # "shipping" of "ship"
    return rest in _ENDINGS


#: What RediSearch (2.10) reads as part of a word where :func:`tokenize` splits: every
#: character that is neither a word character, an ASCII space or tab, nor ASCII
#: punctuation other than the backslash (its escape). Line breaks, non-breaking and CJK
#: spaces, dashes, curly quotes, "。" and emoji would otherwise join the words beside them
#: into one indexed term ("552907\nCustomer" as ``552907customer``, ADR 0115).
_JOINS_WORDS = re.compile(r"[^\w\t\x20-\x5b\x5d-\x7e]+")


def lexical_form(text: str) -> str:
    """The text as indexed for BM25, split and lower-cased as :func:`tokenize` reads it:
    the original's words, then the acronym of each acronym's plural ("PRs" is found for "PR":
    RediSearch's stemmer leaves "prs" whole, ADR 0109), each word's parts
    (:func:`word_parts`), then bigrams of every CJK run."""
    text = _written(text)  # as tokenize reads it
    extra: list[str] = []
    if _CAPITAL_S.search(text):
        extra.extend(dict.fromkeys(m.group(1) for m in _ACRONYM_S.finditer(text)))
    extra.extend(_parts(text))
    runs = [run for run in _CJK_RUN_RE.findall(text) if len(run) >= 2]
    extra.extend(g for run in runs for g in bigrams(run))
    # lower-cased here: RediSearch lower-cases only ASCII letters ("Москва", "Élodie")
    words = _JOINS_WORDS.sub(" ", _lower(text))
    return " ".join([words, *extra]) if extra else words


def query_terms(query: str) -> list[str]:
    """Distinct, syntax-free terms for a lexical query.

    Common English function words are dropped: they carry almost no IDF, but
    in short questions ("what did she do when…") they still pull BM25 toward
    whatever memory repeats them.
    """
    return terms_of(lexical_tokens(query))


#: How many of a long question's terms recall reads the frequencies of, to keep the
#: :data:`MAX_QUERY_TERMS` rarest (ADR 0116).
MAX_QUERY_WORDS = 256


def terms_of(tokens: list[str], most: int = MAX_QUERY_TERMS) -> list[str]:
    """:func:`query_terms` of a question already tokenised (recall tokenises it once), the
    first *most* of them."""
    seen: list[str] = []
    for token in tokens:
        if token in REDISEARCH_STOPWORDS or token in STOP_WORDS or token in seen:
            continue
        if _CJK_RE.search(token) and len(token) > 2:
            continue  # a whole CJK run is never an indexed term; its bigrams are
        seen.append(token)
        if len(seen) >= most:
            break
    return seen


def lexical_clause(terms: list[str], field: str = "lex") -> str:
    """A RediSearch full-text clause matching any of *terms* (from :func:`query_terms`)."""
    return f"@{field}:(" + "|".join(terms) + ")"


def estimate_tokens(text: str) -> int:
    """Tokenizer-free estimate (~4 chars per token), the seed's soft budget unit."""
    return max(1, round(len(text) / 4))


def jaccard(a: str, b: str) -> float:
    ta, tb = set(tokenize(a)), set(tokenize(b))
    union = ta | tb
    return len(ta & tb) / len(union) if union else 0.0


NEGATIONS: frozenset[str] = frozenset(
    """not never no dont doesnt wont shouldnt cant without avoid neither nor nothing nobody
    nowhere none""".split()
)


def count_negations(text: str) -> int:
    return sum(1 for t in tokenize(text) if t in NEGATIONS)


def negation_diff(a: str, b: str) -> bool:
    """True when the two texts differ in the parity of their negation words."""
    return (count_negations(a) % 2) != (count_negations(b) % 2)
