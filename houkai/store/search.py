"""A small, typed wrapper over ``FT.SEARCH`` / ``FT.AGGREGATE`` replies (RESP2)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import redis


def batched(items: Iterable, size: int) -> Iterator[list]:
    """Lists of up to *size* consecutive items (``itertools.batched`` arrives in 3.12)."""
    chunk: list = []
    for item in items:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _text(value: bytes | str) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


@dataclass
class Hit:
    key: str
    fields: dict[str, bytes] = field(default_factory=dict)
    score: float | None = None

    def str(self, name: str, default: str = "") -> str:
        raw = self.fields.get(name)
        return default if raw is None else _text(raw)


def search(
    client: redis.Redis,
    index: str,
    query: str,
    *,
    params: dict[str, bytes | str | int | float] | None = None,
    return_fields: Sequence[str] | None = None,
    sortby: tuple[str, str] | None = None,
    offset: int = 0,
    limit: int = 10,
    withscores: bool = False,
    scorer: str | None = None,
    inkeys: Sequence[str] | None = None,
    nocontent: bool = False,
    timeout_ms: int | None = None,
) -> tuple[int, list[Hit]]:
    """Run FT.SEARCH (DIALECT 2) and return ``(total, hits)``."""
    args: list = ["FT.SEARCH", index, query]
    if nocontent:
        args.append("NOCONTENT")
    if withscores:
        args.append("WITHSCORES")
    if scorer:
        args += ["SCORER", scorer]
    if inkeys is not None:
        args += ["INKEYS", len(inkeys), *inkeys]
    if return_fields is not None and not nocontent:
        args += ["RETURN", len(return_fields), *return_fields]
    if sortby:
        args += ["SORTBY", sortby[0], sortby[1]]
    if timeout_ms is not None:
        args += ["TIMEOUT", timeout_ms]
    args += ["LIMIT", offset, limit]
    if params:
        args += ["PARAMS", 2 * len(params)]
        for name, value in params.items():
            args += [name, value]
    args += ["DIALECT", 2]
    reply = client.execute_command(*args)
    total = int(reply[0])
    hits: list[Hit] = []
    i = 1
    while i < len(reply):
        hit = Hit(key=_text(reply[i]))
        i += 1
        if withscores:
            hit.score = float(reply[i])
            i += 1
        if not nocontent:
            raw = reply[i] or []
            i += 1
            hit.fields = {_text(raw[j]): raw[j + 1] for j in range(0, len(raw) - 1, 2)}
        hits.append(hit)
    return total, hits


def iter_keys(
    client: redis.Redis,
    index: str,
    query: str = "*",
    *,
    batch_size: int = 1000,
    sortby: str | None = None,
) -> Iterator[list[str]]:
    """Stream the keys matching *query* in batches, in bounded memory at any size.

    Unsorted, an aggregate cursor hands out *batch_size* keys per round trip.
    With *sortby* (a SORTABLE numeric field) keys come in ascending order of
    it, ties ordered by key, through keyset pagination: each page is a small
    ``FT.SEARCH … SORTBY`` above the last value seen, so no query ever asks the
    server to sort or return more than a page (stock Redis Stack caps both at
    10,000 results).
    """
    if sortby:
        yield from _iter_sorted_keys(client, index, query, sortby, batch_size)
        return
    args: list = [
        "FT.AGGREGATE",
        index,
        query,
        "LOAD",
        1,
        "@__key",
        "WITHCURSOR",
        "COUNT",
        batch_size,
        "DIALECT",
        2,
    ]
    reply, cursor = client.execute_command(*args)
    while True:
        keys = []
        for row in reply[1:]:
            pairs = {_text(row[j]): row[j + 1] for j in range(0, len(row) - 1, 2)}
            if "__key" in pairs:
                keys.append(_text(pairs["__key"]))
        if keys:
            yield keys
        if not cursor:
            return
        reply, cursor = client.execute_command(
            "FT.CURSOR", "READ", index, cursor, "COUNT", batch_size
        )


def _range_clause(query: str, field: str, lo: str, hi: str) -> str:
    base = "" if query.strip() == "*" else f"({query}) "
    return f"{base}@{field}:[{lo} {hi}]"


def _iter_sorted_keys(
    client: redis.Redis, index: str, query: str, field: str, batch_size: int
) -> Iterator[list[str]]:
    lower = "-inf"
    while True:
        _, hits = search(
            client,
            index,
            _range_clause(query, field, lower, "+inf"),
            nocontent=True,
            sortby=(field, "ASC"),
            limit=batch_size,
        )
        if not hits:
            return
        # RETURN formats numbers to 12 significant digits, so read the exact
        # stored values: a page bound taken from a rounded value would be
        # below the true one and match the same documents forever.
        pipe = client.pipeline(transaction=False)
        for hit in hits:
            pipe.hget(hit.key, field)
        exact = {
            hit.key: _text(raw)
            for hit, raw in zip(hits, pipe.execute(), strict=True)
            if raw is not None
        }
        if not exact:
            return
        top = max(exact.values(), key=float)
        below = sorted(
            (k for k, v in exact.items() if float(v) < float(top)),
            key=lambda k: (float(exact[k]), k),
        )
        # The whole group of keys sharing the page's top value, so ties are
        # ordered by key and never split across pages.
        tied: list[str] = []
        while True:
            _, group = search(
                client,
                index,
                _range_clause(query, field, top, top),
                nocontent=True,
                offset=len(tied),
                limit=batch_size,
            )
            tied += [h.key for h in group]
            if len(group) < batch_size:
                break
        yield below + sorted(tied)
        lower = f"({top}"


def total(client: redis.Redis, index: str, query: str = "*") -> int:
    count, _ = search(client, index, query, limit=0, nocontent=True)
    return count
