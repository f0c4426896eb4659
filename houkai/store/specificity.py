"""The specificity prior of hybrid recall (ADR 0068).

A memory that names something the collection rarely mentions ("the Name of the Wind",
"Patrick Rothfuss", "Marley flooring") or uses words few other memories use carries
information; small talk ("Thanks! That sounds great, see you soon") does not, yet it
often sits close to a question in meaning and shares its common words. On LoCoMo the
multi-hop questions lose exactly those turns to small talk (ADR 0065).

Both counts come from the collection's own statistics (the ``lexstats`` document
frequencies BM25 already keeps), read in one ``HMGET`` per recall:

* **names**: capitalised words inside a sentence (not its first word, not a month or a
  weekday) that at most :data:`NAME_SHARE` of the memories use, or at most :data:`RARE_DF`
  in a small collection; the names everyone uses (the speakers of a chat, the user's own
  name) are no news;
* **rare words**: words of three letters or more, no stop words, that at most
  :data:`RARE_DF` memories use.

Each count is capped at :data:`CAP` and scaled to [0, 1]. The frequencies are remembered
per collection for :data:`FREQUENCIES_TTL` seconds (:class:`Frequencies`): the thresholds are
coarse, so a prior a minute stale ranks the same, and a recall then reads only the words it
has not seen lately.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import redis

from ..domain.text import (
    ANY_STOP_WORDS,
    CALENDAR_WORDS,
    STEM_CACHE_CHARS,
    PerText,
    tokenize,
    without_date_stamp,
)
from . import lexstats

#: A word in at most this many memories is rare.
RARE_DF = 4
#: A capitalised word used by more than this share of the memories is a common name.
NAME_SHARE = 0.10
#: Counts above this add nothing more.
CAP = 3
#: Seconds the document frequencies read for the prior are reused.
FREQUENCIES_TTL = 60.0
#: Words remembered per collection, and collections remembered, before starting afresh.
FREQUENCIES_MAX_WORDS = 50_000
FREQUENCIES_MAX_COLLECTIONS = 256

# A capitalised word that does not open the text or a sentence (nor follow "Name: ").
_INNER_CAPITALISED = re.compile(r"(?<![.!?:]\s)(?<![.!?:])\b([A-Z][a-z]+)")
#: Text written as code: "`make test-billing`", "`notifications.v1`".
_CODE_SPAN = re.compile(r"`([^`\n]*)`")
#: What marks a code span among the names (no word starts with it).
CODE_MARK = "`"


def words_of(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The candidate names and the content words of *text*, lower-cased. Each code span
    counts as a name, marked with :data:`CODE_MARK` and rare by construction: a command or
    an identifier written as code ("Run `make test-shipments`") says something as
    concrete as a rare name does, and an agent's how-to notes name few people (ADR 0103).

    Remembered per text up to ``STEM_CACHE_CHARS``, as its stems are: the same memories
    recur across recalls."""
    return _words_of_per_text(text)


def _words_of(text: str) -> tuple[frozenset[str], frozenset[str]]:
    body = without_date_stamp(text)
    words = frozenset(
        w for w in tokenize(body) if len(w) > 2 and w.isalpha() and w not in ANY_STOP_WORDS
    )
    names = frozenset(
        word
        for match in _INNER_CAPITALISED.finditer(body)
        if match.start() > 0
        and (word := match.group(1).lower()) not in CALENDAR_WORDS
        and word not in ANY_STOP_WORDS
    )
    code = frozenset(
        CODE_MARK + span.strip().lower()
        for span in _CODE_SPAN.findall(body)
        if any(ch.isalpha() for ch in span)  # "`5`" is a number, not a command
    )
    return names | code, words


_words_of_per_text = PerText(_words_of)


def specificity(
    parsed: Sequence[tuple[frozenset[str], frozenset[str]]],
    df: Mapping[str, int],
    n_docs: int,
) -> list[tuple[float, float]]:
    """``(names, rare words)`` in [0, 1] for each of *parsed* (from :func:`words_of`),
    given the document frequency of every word in *df* (absent: 0, as for a code span)."""
    common = max(float(RARE_DF), NAME_SHARE * n_docs)
    out = []
    for names, words in parsed:
        named = sum(1 for n in names if df.get(n, 0) <= common)
        rare = sum(1 for w in words if df.get(w, 0) <= RARE_DF)
        out.append((min(named, CAP) / CAP, min(rare, CAP) / CAP))
    return out


@dataclass
class _Window:
    started: float
    n_docs: int = 0
    df: dict[str, int] = field(default_factory=dict)
    priors: dict[str, tuple[float, float]] = field(default_factory=dict)  # by text


class Frequencies:
    """Document frequencies recently read from a collection's ``lexstats`` hash, and the
    specificity counted with them."""

    def __init__(self) -> None:
        self._windows: dict[str, _Window] = {}
        self._lock = threading.Lock()

    def _window(self, stats_key: str) -> tuple[_Window, bool]:
        """The collection's live window, or a new one (True); the caller holds the lock.
        A window lives :data:`FREQUENCIES_TTL` seconds and up to
        :data:`FREQUENCIES_MAX_WORDS` words and texts."""
        now = time.monotonic()
        window = self._windows.get(stats_key)
        if (
            window is not None
            and now - window.started <= FREQUENCIES_TTL
            and len(window.df) + len(window.priors) <= FREQUENCIES_MAX_WORDS
        ):
            return window, False
        if len(self._windows) >= FREQUENCIES_MAX_COLLECTIONS:
            self._windows.clear()
        window = self._windows[stats_key] = _Window(started=now)
        return window, True

    def _fill(
        self,
        client: redis.Redis,
        stats_key: str,
        window: _Window,
        fresh: bool,
        words: Iterable[str],
    ) -> None:
        """Read into *window* the frequencies of *words* it lacks (one ``HMGET``; for a
        *fresh* window also the number of memories, which then holds for the window)."""
        with self._lock:
            missing = [w for w in words if w not in window.df]
        if missing or fresh:
            stats = lexstats.term_stats(client, stats_key, missing)
            with self._lock:
                window.df.update(stats.df)
                if fresh:
                    window.n_docs = stats.n_docs

    def read(
        self, client: redis.Redis, stats_key: str, words: Iterable[str]
    ) -> tuple[Mapping[str, int], int]:
        """``(df by word, number of memories)`` for *words*; one ``HMGET`` for those not
        read in the last :data:`FREQUENCIES_TTL` seconds (none when all were)."""
        with self._lock:
            window, fresh = self._window(stats_key)
        self._fill(client, stats_key, window, fresh, words)
        return window.df, window.n_docs

    def priors(
        self, client: redis.Redis, stats_key: str, texts: Sequence[str]
    ) -> list[tuple[float, float]]:
        """:func:`specificity` of each of *texts*, remembered per text (up to
        ``STEM_CACHE_CHARS``) with the frequencies it was counted with and as long as they
        live: the same memories recur across recalls, and a recall then counts only the
        texts it has not met in the window."""
        with self._lock:
            window, fresh = self._window(stats_key)
            known = {t: window.priors[t] for t in texts if t in window.priors}
        todo = [t for t in dict.fromkeys(texts) if t not in known]
        if todo:
            parsed = [words_of(t) for t in todo]
            words = {w for pair in parsed for part in pair for w in part if w[:1] != CODE_MARK}
            self._fill(client, stats_key, window, fresh, words)  # no HMGET when none is new
            counted = dict(zip(todo, specificity(parsed, window.df, window.n_docs), strict=True))
            known.update(counted)
            with self._lock:
                if self._windows.get(stats_key) is window:  # not replaced nor forgotten meanwhile
                    window.priors.update(
                        (t, v) for t, v in counted.items() if len(t) <= STEM_CACHE_CHARS
                    )
        return [known[t] for t in texts]

    def forget(self, stats_key: str) -> None:
        """Drop what was read from *stats_key* (its collection was emptied)."""
        with self._lock:
            self._windows.pop(stats_key, None)


#: The process's frequencies (one per process: API, worker, CLI).
FREQUENCIES = Frequencies()
