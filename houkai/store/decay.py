"""Decay engine: score memories by importance and idle time, prune the stale ones
(README "Decay").

    score(m) = importance × exp(−λ × days_since_last_access) × reinforcement
    reinforcement = 1 + frequency_weight × ln(1 + access_count)

With λ = 0.1 an importance-0.5 memory halves in ~7 days; ``min_score`` (0.05)
is the prune line. ``protect_types`` (procedural by default) are never pruned.
Superseded memories age out like any other (otherwise they would linger
forever); expired ones are left to ``purge_expired``.

Built for large stores: :meth:`DecayEngine.prune` never holds the collection
in one Python list. The server streams candidates through an aggregate cursor
that already computes the score (``APPLY``/``FILTER``), the engine re-checks
each row with the exact Python formula and deletes in pipelined batches, one
journaled ``forget`` per memory under the actor ``decay``.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import numpy as np
import redis

from ..db.decode import as_text
from ..db.filters import filter_expr
from ..domain.model import MEMORY_TYPES, Memory, ValidationError, validate_choice
from . import codec
from .access import memory_key_of

if TYPE_CHECKING:
    from . import MemoryStore

log = logging.getLogger(__name__)

SECONDS_PER_DAY = 86_400.0
DEFAULT_BATCH_SIZE = 500
# The server rounds numbers to ~12 significant digits; its filter only has to
# be a superset of the exact Python verdict, so it gets a little slack.
_SERVER_SLACK = 1e-3


def _non_negative(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationError(f"{name} must be a number — got {value!r}")
    if not math.isfinite(value) or value < 0:
        raise ValidationError(f"{name} must be a finite number >= 0 — got {value!r}")
    return float(value)


def _protect_types(value: str | Iterable[str] | None) -> tuple[str, ...]:
    """Accept a tuple/list of types or a comma-separated string (config form)."""
    if value is None:
        return ()
    items = value.split(",") if isinstance(value, str) else list(value)
    out: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise ValidationError(f"protect_types entries must be strings — got {item!r}")
        name = item.strip()
        if not name:
            continue
        validate_choice(name, MEMORY_TYPES, "protect_types")
        if name not in out:
            out.append(name)
    return tuple(out)


_MAX_PASSES = 5


def _batch_size(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValidationError(f"batch_size must be an integer >= 1 — got {value!r}")
    return value


class DecayEngine:
    """Scores and prunes the memories of one store with exponential decay."""

    def __init__(
        self,
        store: MemoryStore,
        decay_rate: float = 0.1,
        min_score: float = 0.05,
        protect_types: str | Iterable[str] | None = ("procedural",),
        frequency_weight: float = 0.0,
    ) -> None:
        """*decay_rate* is λ per day; *min_score* the prune line; *protect_types*
        are never pruned; *frequency_weight* > 0 lets often-recalled memories
        resist decay (0 = off, the score is then recency × importance only)."""
        self.store = store
        self.decay_rate = _non_negative(decay_rate, "decay_rate")
        self.min_score = _non_negative(min_score, "min_score")
        self.protect_types = _protect_types(protect_types)
        self.frequency_weight = _non_negative(frequency_weight, "frequency_weight")

    # ------------------------------------------------------------------ scoring
    def score(self, memory: Memory, now: float | None = None) -> float:
        """The decay score of one memory at *now* (default: the current time).

        Idle time is clamped at zero, so a ``now`` before the last access scores
        the bare importance. With reinforcement the score can exceed
        ``importance``; ``min_score`` is compared against the reinforced value.
        """
        t = time.time() if now is None else now
        days = max(0.0, (t - memory.last_accessed) / SECONDS_PER_DAY)
        value = memory.importance * math.exp(-self.decay_rate * days)
        if self.frequency_weight:
            value *= 1.0 + self.frequency_weight * math.log1p(max(0, memory.access_count))
        return value

    def iter_scores(
        self, now: float | None = None, batch_size: int = DEFAULT_BATCH_SIZE
    ) -> Iterator[tuple[Memory, float]]:
        """Stream ``(memory, score)`` for every scored memory, in no particular order.

        Bounded memory at any collection size; :meth:`score_all` is the sorted,
        materialised form of the same rows.
        """
        t = time.time() if now is None else now
        query = filter_expr(include_superseded=True, now=t)
        for batch in self.store.iter_memories(query, batch_size=_batch_size(batch_size)):
            for memory in batch:
                yield memory, self.score(memory, t)

    def score_all(self, now: float | None = None) -> list[tuple[Memory, float]]:
        """``(memory, score)`` for every memory (superseded included), score descending."""
        pairs = list(self.iter_scores(now))
        pairs.sort(key=lambda pair: pair[1], reverse=True)
        return pairs

    # ------------------------------------------------------------------ pruning
    def prune(
        self,
        dry_run: bool = False,
        now: float | None = None,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> list[Memory]:
        """Delete (or with *dry_run* only list) memories whose score is below ``min_score``.

        Returns the pruned memories as they were before deletion. Protected
        types are never candidates. Each deletion is journaled as ``forget``
        with the actor ``decay``.
        """
        t = time.time() if now is None else now
        size = _batch_size(batch_size)
        self.store.flush_access()  # the server-side pre-filter reads the indexed counts
        pruned: list[Memory] = []
        done: set[str] = set()
        # Deleting under an open FT.AGGREGATE cursor can make RediSearch skip rows it
        # has not yet returned, so a pass that deleted anything is followed by another
        # until one finds nothing new (a dry run changes nothing: one pass).
        for _pass in range(_MAX_PASSES):
            found = 0
            for batch in self._candidate_batches(t, size):
                doomed = [
                    m
                    for m in batch
                    if m.id not in done
                    and m.type not in self.protect_types
                    and self.score(m, t) < self.min_score
                ]
                if not doomed:
                    continue
                if not dry_run:
                    self._delete(doomed)
                done.update(m.id for m in doomed)
                pruned.extend(doomed)
                found += len(doomed)
            if dry_run or not found:
                break
        if pruned:
            log.info(
                "decay %s %d memories in %s",
                "would prune" if dry_run else "pruned",
                len(pruned),
                self.store.collection_name,
            )
        return pruned

    def _delete(self, memories: list[Memory]) -> None:
        store = self.store
        with store.as_actor("decay"):
            store.delete(memories)
            store.count_call("forget", len(memories))
            store.journal_append_many(
                "forget", ((m.id, m.to_dict(), None) for m in memories), meta={"reason": "decay"}
            )

    def _base_query(self, now: float) -> str:
        clauses = [f"-@type:{{{name}}}" for name in self.protect_types]
        clauses.append(filter_expr(include_superseded=True, now=now))
        return " ".join(c for c in clauses if c != "*") or "*"

    def _candidate_batches(self, now: float, batch_size: int) -> Iterator[list[Memory]]:
        """Batches of memories that may score below ``min_score``, read fresh.

        The server evaluates the score itself, so only (near-)candidates cross
        the wire; an engine without ``APPLY``/``FILTER`` support falls back to
        streaming every unprotected memory.
        """
        query = self._base_query(now)
        # the access documents' index when complete: its access counts are the true ones
        client, index = self.store.client, self.store.aggregate_index
        try:
            reply, cursor = client.execute_command(
                *self._aggregate_args(query, now, batch_size, index)
            )
        except redis.exceptions.ResponseError as exc:
            log.warning("decay server-side filter unavailable (%s); scoring every row", exc)
            yield from self.store.iter_memories(query, batch_size=batch_size)
            return
        try:
            while True:
                keys = [_row_key(row) for row in reply[1:]]
                batch = self._load([memory_key_of(self.store.keys, k) for k in keys if k])
                if batch:
                    yield batch
                if not cursor:
                    return
                reply, cursor = client.execute_command(
                    "FT.CURSOR", "READ", index, cursor, "COUNT", batch_size
                )
        finally:
            if cursor:  # the caller stopped early or a read failed: free the server cursor
                _close_cursor(client, index, cursor)

    def _aggregate_args(self, query: str, now: float, batch_size: int, index: str) -> list:
        """FT.AGGREGATE computing the decay score server-side and keeping candidates."""
        idle_days = f"(({_num(now)} - @last_accessed) / {_num(SECONDS_PER_DAY)})"
        expr = f"@importance * exp(-{_num(self.decay_rate)} * {idle_days})"
        if self.frequency_weight:
            expr = f"{expr} * (1 + {_num(self.frequency_weight)} * log(1 + @access_count))"
        limit = self.min_score * (1 + _SERVER_SLACK) + 1e-12
        # A last access after `now` means zero idle days in the exact formula,
        # which the server expression would overrate: always hand those back.
        keep = f"@s < {_num(limit)} || @last_accessed > {_num(now - 1.0)}"
        load = ["@__key", "@last_accessed", "@importance"]
        if self.frequency_weight:
            load.append("@access_count")
        return [
            "FT.AGGREGATE",
            index,
            query,
            "LOAD",
            len(load),
            *load,
            "APPLY",
            expr,
            "AS",
            "s",
            "FILTER",
            keep,
            "WITHCURSOR",
            "COUNT",
            batch_size,
            "DIALECT",
            2,
        ]

    def _load(self, keys: list[str]) -> list[Memory]:
        """Fresh HASH reads for *keys* in one round trip (rows deleted meanwhile drop out)."""
        if not keys:
            return []
        pipe = self.store.client.pipeline(transaction=False)
        for key in keys:
            pipe.hgetall(key)
        out: list[Memory] = []
        for fields in pipe.execute():
            if fields:
                out.append(codec.from_hash({k.decode(): v for k, v in fields.items()}))
        return self.store.overlay_access(out)


def _num(value: float) -> str:
    """A plain decimal literal (never exponent notation) for an aggregate expression."""
    return np.format_float_positional(float(value), trim="0")


def _row_key(row: list) -> str | None:
    for j in range(0, len(row) - 1, 2):
        if as_text(row[j]) == "__key":
            return as_text(row[j + 1])
    return None


def _close_cursor(client: redis.Redis, index: str, cursor: int) -> None:
    try:
        client.execute_command("FT.CURSOR", "DEL", index, cursor)
    except redis.RedisError:
        pass


__all__ = ["DecayEngine"]
