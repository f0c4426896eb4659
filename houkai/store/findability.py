"""Findability: does every memory come back when asked for by its own vector, text and words?

A memory store's first promise is that what was stored comes back. HNSW can break
it in a clustered collection: a distinct fact among thousands of near-identical
lines, or a node re-inserted after a write, is left with few in-edges and the graph
search stops before it reaches it (ADR 0069). Exact KNN keeps the promise for
collections up to ``exact_knn_max``; above it this check watches the graph:

* a sample of the live memories (Bernoulli over a streamed walk of the keys, so
  memory stays bounded at any size) is asked for by its own stored vector
  (KNN 10 on the HNSW graph at the configured EF_RUNTIME), by its own text
  (semantic ``recall``, k=5, as a user would) and, when it holds a word no other memory
  holds ("batch-west-2", "INC-4471"), by that word (hybrid ``recall``, k=5: the keyword
  leg, ADR 0113);
* a memory its own vector misses is re-inserted into the graph (its vector written
  again, which RediSearch indexes as a new node with fresh edges) and asked again,
  with one ``reindex`` journal entry each;
* the report is kept in Redis (``/stats``, Prometheus, the dashboard's Health view
  and ``houkai doctor`` read it).
"""

from __future__ import annotations

import json
import logging
import random
import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import redis

from ..db.decode import as_text
from ..db.filters import filter_expr
from ..db.schema import VECTOR_FIELD
from ..domain.text import ANY_STOP_WORDS, tokenize
from . import lexstats
from .codec import F
from .search import batched, iter_windows, knn_query, total

if TYPE_CHECKING:
    from . import MemoryStore
    from .core import CoreStore

log = logging.getLogger(__name__)

#: Memories sampled per check by default; the graph probe costs one KNN each, the
#: text probe one query encoding each (about 5 ms on two cores).
DEFAULT_SAMPLE = 1000
#: The share found under which a collection is reported as degraded.
DEFAULT_THRESHOLD = 0.999
#: At most this many misses are listed by id in a report.
MISSES_LISTED = 20


@dataclass
class FindabilityReport:
    """One check of one collection; shares are of the sampled memories."""

    collection: str
    checked_at: float
    sampled: int
    live: int
    exact: bool  # recall searched the FLAT field (exact KNN) during the text probe
    own_vector: float | None  # found by its own vector in the HNSW graph, k=10
    own_text: float | None  # found by semantic recall of its own text, k=5
    #: found by hybrid recall of a word only it holds, k=5, of those holding such a word
    own_word: float | None = None
    worded: int = 0  # sampled memories holding a word no other memory holds
    repaired: int = 0  # re-inserted and then found by its own vector
    unrepaired: int = 0  # still missed by its own vector after re-insertion
    missed_text: list[str] = field(default_factory=list)
    missed_vector: list[str] = field(default_factory=list)
    missed_word: list[str] = field(default_factory=list)
    threshold: float = DEFAULT_THRESHOLD
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """Recall finds the sample and, when recall searches the HNSW graph (above
        ``exact_knn_max``), so does the graph once repaired. Below it recall searches
        exactly: the graph's reach is reported (``own_vector``, ``unrepaired``), not judged,
        as it decides no answer (ADR 0087)."""
        found_after = None
        if not self.exact and self.own_vector is not None and self.sampled:
            found_after = self.own_vector + self.repaired / self.sampled
        shares = (self.own_text, self.own_word, found_after)
        return all(share is None or share >= self.threshold for share in shares)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok}


def _sample_keys(
    store: MemoryStore, where: str, sample: int, rng: random.Random
) -> tuple[int, list[str]]:
    """How many memories match *where*, and about *sample* of their keys, each equally
    likely, streamed window by window (never the whole key list in memory)."""
    live = total(store.client, store.keys.index, where)
    if live == 0:
        return 0, []
    p = min(1.0, sample / live)
    picked: list[str] = []
    for window in iter_windows(store.client, store.keys.index, where, "created_at", 1000):
        picked += [key for key in window if rng.random() < p]
    return live, picked[:sample]


def _graph_misses(store: MemoryStore, rows: list[tuple[str, str, bytes]]) -> list[int]:
    """Positions in *rows* (key, id, vector blob) whose own vector's HNSW KNN 10 misses
    them. An answer holding an exact duplicate of the vector (the same stored bytes) is a
    tie, not a miss: HNSW's neighbour heuristic prunes a node's identical twins, so of many
    copies of one vector some are reachable only as their twins, and any twin answers the
    query. The bytes are compared, not the distance: a vector's distance to itself is not
    0 in reduced precision (2.8e-5 at FLOAT16 on an AVX2 host)."""
    query = knn_query("*", 10, store.index_params.ef_runtime)
    misses: list[int] = []
    for chunk in batched(list(enumerate(rows)), 100):
        pipe = store.client.pipeline(transaction=False)
        for _, (_, _, blob) in chunk:
            pipe.execute_command(
                "FT.SEARCH", store.keys.index, query, "RETURN", 1, VECTOR_FIELD, "LIMIT", 0, 10,
                "PARAMS", 2, "q", blob, "DIALECT", 2,
            )  # fmt: skip
        for (i, (key, _, blob)), reply in zip(chunk, pipe.execute(), strict=True):
            found = {as_text(k) for k in reply[1::2]}
            twins = any(fields and fields[1] == blob for fields in reply[2::2])
            if key not in found and not twins:
                misses.append(i)
    return misses


def _recalled(store: MemoryStore, memory_id: str, text: str) -> bool:
    """Semantic recall of *text* (k=5) returns the memory, or five memories of that very
    text (a tie among exact duplicates)."""
    got = store.recall(text, k=5, touch=False)
    if memory_id in {m.id for m, _ in got}:
        return True
    return len(got) == 5 and all(m.text == text for m, _ in got)


def _askable(word: str) -> bool:
    return word not in ANY_STOP_WORDS and any(ch.isalpha() for ch in word)


def own_words(store: MemoryStore, texts: list[str]) -> list[str | None]:
    """Per text, its first word as written (split at spaces, outer punctuation off) that
    holds a word no other memory holds, an identifier first, or None: what a user would
    ask for it by ("batch-west-2", whose "west" no other memory holds). One round trip for
    every word's frequency (the statistics BM25 reads; a stem's when the collection counts
    stems)."""
    written = [[w.strip(_PUNCTUATION) for w in t.split()] for t in texts]
    parts = {w: tokenize(w) for ws in written for w in ws}
    every = list(dict.fromkeys(t for ts in parts.values() for t in ts if _askable(t)))
    df = lexstats.term_stats(store.client, store.keys.lexstats, every).df if every else {}
    own = {w for w, ts in parts.items() if any(df.get(t) == 1 for t in ts if _askable(t))}
    # an identifier first: its parts are the keyword query's union, where a rare part
    # among common ones is what went missing (ADR 0113)
    return [
        next((w for w in ws if w in own and len(parts[w]) > 1), None)
        or next((w for w in ws if w in own), None)
        for ws in written
    ]


_PUNCTUATION = "\"'`.,;:!?()[]{}<>*"


def _worded(store: MemoryStore, memory_id: str, word: str) -> bool:
    """Hybrid recall of *word* (k=5) returns the memory."""
    got = store.recall(word, k=5, mode="hybrid", touch=False)
    return memory_id in {m.id for m, _ in got}


def check(
    store: MemoryStore,
    *,
    sample: int = DEFAULT_SAMPLE,
    repair: bool = True,
    threshold: float = DEFAULT_THRESHOLD,
    text: bool = True,
    seed: int | None = None,
) -> FindabilityReport:
    """Probe a sample of *store*'s live memories; re-insert what the graph misses (*repair*).

    *text*: also ask semantic recall for each memory's own text (one query encoding
    each). The report is saved (:func:`last_report`).
    """
    started = time.perf_counter()
    rng = random.Random(seed)
    now = time.time()
    where = f"{filter_expr(now=now)} @state:{{ready}}"
    live, keys = _sample_keys(store, where, sample, rng)
    pipe = store.client.pipeline(transaction=False)
    for key in keys:
        pipe.hmget(key, F.ID, F.TEXT, F.VEC)
    rows: list[tuple[str, str, bytes]] = []
    texts: list[str] = []
    for key, (mid, body, blob) in zip(keys, pipe.execute(), strict=True):
        if mid and blob:
            rows.append((key, mid.decode(), blob))
            texts.append((body or b"").decode("utf-8", "replace"))
    misses = _graph_misses(store, rows)
    repaired = unrepaired = 0
    if repair and misses:
        repaired, unrepaired = _reinsert(store, [rows[i] for i in misses])
    missed_text: list[str] = []
    if text:
        missed_text = [
            mid for (_, mid, _), body in zip(rows, texts, strict=True)
            if not _recalled(store, mid, body)
        ]  # fmt: skip
    missed_word: list[str] = []
    worded = 0
    if text:
        for (_, mid, _), word in zip(rows, own_words(store, texts), strict=True):
            if word is not None:
                worded += 1
                if not _worded(store, mid, word):
                    missed_word.append(mid)
    n = len(rows)
    report = FindabilityReport(
        collection=store.collection_name,
        checked_at=now,
        sampled=n,
        live=live,
        exact=store.knn_exact(),
        own_vector=round(1 - len(misses) / n, 6) if n else None,
        own_text=round(1 - len(missed_text) / n, 6) if n and text else None,
        own_word=round(1 - len(missed_word) / worded, 6) if worded else None,
        worded=worded,
        repaired=repaired,
        unrepaired=unrepaired,
        missed_text=missed_text[:MISSES_LISTED],
        missed_vector=[rows[i][1] for i in misses[:MISSES_LISTED]],
        missed_word=missed_word[:MISSES_LISTED],
        threshold=threshold,
        seconds=round(time.perf_counter() - started, 3),
    )
    _save(store, report)
    level = logging.INFO if report.ok else logging.WARNING
    log.log(
        level,
        "findability of %s: own vector %s, own text %s, own word %s over %d memories; "
        "%d re-inserted",
        store.collection_name, report.own_vector, report.own_text, report.own_word, n,
        repaired + unrepaired,
    )  # fmt: skip
    return report


def _reinsert(store: MemoryStore, rows: list[tuple[str, str, bytes]]) -> tuple[int, int]:
    """Write each row's vector again (a new HNSW node with fresh edges), journal it,
    and probe again; returns (found now, still missed). A memory forgotten meanwhile
    is not recreated: the write only happens while the hash exists."""
    script = store.scripts.rewrite_vector

    def rewrite(batch: list[tuple[str, str, bytes]]) -> list[tuple[str, str, bytes]]:
        pipe = store.client.pipeline(transaction=False)
        for key, _, blob in batch:
            script(keys=[key], args=[blob], client=pipe)
        return [row for row, done in zip(batch, pipe.execute(), strict=True) if done]

    written = rewrite(rows)
    store.journal_append_many(
        "reindex", ((mid, None, None) for _, mid, _ in written), meta={"why": "findability"}
    )
    still = [written[i] for i in _graph_misses(store, written)]
    # a re-inserted node gets a new random level and new edges: one that is still cut
    # off usually is not on the next try
    for _ in range(REPAIR_ATTEMPTS - 1):
        if not still:
            break
        again = rewrite(still)
        still = [again[i] for i in _graph_misses(store, again)]
    return len(written) - len(still), len(still)


#: How many times a memory its own vector misses is re-inserted before it counts unrepaired.
REPAIR_ATTEMPTS = 3


#: Rewrite a memory's vector only while its hash exists (never recreate a forgotten one).
def _save(store: MemoryStore, report: FindabilityReport) -> None:
    try:
        store.client.set(store.keys.findability, json.dumps(report.to_dict()))
    except redis.RedisError as exc:
        log.warning("could not save the findability report of %s: %s", store.keys.index, exc)


def last_report(store: CoreStore | MemoryStore) -> dict[str, Any] | None:
    """The last saved report of *store*'s collection, or None before the first check."""
    raw = store.client.get(store.keys.findability)
    if not raw:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def figures(report: dict[str, Any] | None) -> dict[str, float]:
    """The numbers of a saved report, for ``/metrics`` and Prometheus (empty before the
    first check)."""
    if not report:
        return {}
    out: dict[str, float] = {}
    names = ("own_vector", "own_text", "own_word", "sampled", "repaired", "unrepaired")
    for name in (*names, "checked_at"):
        value = report.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            out[name] = float(value)
    out["ok"] = float(bool(report.get("ok")))
    return out
