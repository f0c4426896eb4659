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


def words_of(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The candidate names and the content words of *text*, lower-cased.

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
    return names, words


_words_of_per_text = PerText(_words_of)


def specificity(
    parsed: Sequence[tuple[frozenset[str], frozenset[str]]],
    df: Mapping[str, int],
    n_docs: int,
) -> list[tuple[float, float]]:
    """``(names, rare words)`` in [0, 1] for each of *parsed* (from :func:`words_of`),
    given the document frequency of every word in *df* (absent: 0)."""
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
    """Document frequencies recently read from a collection's ``lexstats`` hash."""

    def __init__(self) -> None:
        self._windows: dict[str, _Window] = {}
        self._lock = threading.Lock()

    def read(
        self, client: redis.Redis, stats_key: str, words: Iterable[str]
    ) -> tuple[Mapping[str, int], int]:
        """``(df by word, number of memories)`` for *words*; one ``HMGET`` for those not
        read in the last :data:`FREQUENCIES_TTL` seconds (none when all were)."""
        now = time.monotonic()
        with self._lock:
            window = self._windows.get(stats_key)
            if (
                window is None
                or now - window.started > FREQUENCIES_TTL
                or len(window.df) + len(window.priors) > FREQUENCIES_MAX_WORDS
            ):
                if len(self._windows) >= FREQUENCIES_MAX_COLLECTIONS:
                    self._windows.clear()
                window = self._windows[stats_key] = _Window(started=now)
                fresh = True
            else:
                fresh = False
            missing = [w for w in words if w not in window.df]
        if missing or fresh:
            stats = lexstats.term_stats(client, stats_key, missing)
            with self._lock:
                window.df.update(stats.df)
                window.n_docs = stats.n_docs
        return window.df, window.n_docs

    def priors(
        self, client: redis.Redis, stats_key: str, texts: Sequence[str]
    ) -> list[tuple[float, float]]:
        """:func:`specificity` of each of *texts*, remembered per text for as long as the
        frequencies it was counted with: the same memories recur across recalls, and a
        recall then counts only the texts it has not seen in the window."""
        with self._lock:
            window = self._windows.get(stats_key)
            held = window.priors if window is not None else {}
            known = {t: held[t] for t in texts if t in held}
        todo = [t for t in dict.fromkeys(texts) if t not in known]
        if todo:
            parsed = [words_of(t) for t in todo]
            df, n_docs = self.read(
                client, stats_key, {w for p in parsed for part in p for w in part}
            )
            counted = dict(zip(todo, specificity(parsed, df, n_docs), strict=True))
            known.update(counted)
            with self._lock:
                window = self._windows.get(stats_key)
                if window is not None:
                    window.priors.update(counted)
        return [known[t] for t in texts]

    def forget(self, stats_key: str) -> None:
        """Drop what was read from *stats_key* (its collection was emptied)."""
        with self._lock:
            self._windows.pop(stats_key, None)


#: The process's frequencies (one per process: API, worker, CLI).
FREQUENCIES = Frequencies()
