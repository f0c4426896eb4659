"""A small, typed wrapper over ``FT.SEARCH`` / ``FT.AGGREGATE`` replies (RESP2)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypedDict, Unpack

import redis

from ..db.decode import as_text
from ..db.schema import EXACT_FIELD, VECTOR_FIELD
from ..domain import deadline

#: RediSearch's own default query timeout (ms, ON_TIMEOUT return).
SERVER_TIMEOUT_MS = 500


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


def knn_query(
    where: str, k: int, ef_runtime: int, *, batches: bool = False, exact: bool = False
) -> str:
    """``FT.SEARCH`` text of the *k* nearest ``@vec`` to the parameter ``$q`` (distance as
    ``dist``) under the filter *where* (``"*"``: none), at the process's ``EF_RUNTIME``
    (ADR 0067). *batches*: search the graph in batches and filter (filtered queries only;
    RediSearch refuses a hybrid policy without a filter). *exact*: search the FLAT field
    instead, by brute force (ADR 0069; it takes no ``EF_RUNTIME``)."""
    field = EXACT_FIELD if exact else VECTOR_FIELD
    ef = "" if exact else f" EF_RUNTIME {ef_runtime}"
    if where == "*":
        return f"*=>[KNN {k} @{field} $q{ef} AS dist]"
    policy = " HYBRID_POLICY BATCHES" if batches else ""
    return f"({where})=>[KNN {k} @{field} $q{policy}{ef} AS dist]"


def queue_similarities(pipe: object, index: str, query: str, k: int, blob: bytes) -> None:
    """Queue on *pipe* the KNN *query* (:func:`knn_query`, vector parameter *blob*) asking
    only each hit's distance, nearest first: a caller reads the few hits it keeps
    afterwards, not *k* whole memories per query. Read the reply with :func:`similarities`."""
    pipe.execute_command(  # type: ignore[attr-defined]
        "FT.SEARCH", index, query, "RETURN", 1, "dist", "SORTBY", "dist", "ASC",
        "LIMIT", 0, k, "PARAMS", 2, "q", blob, "DIALECT", 2,
    )  # fmt: skip


def similarities(reply: Sequence) -> list[tuple[str, float]]:
    """The ``(key, cosine similarity)`` hits of a reply to :func:`queue_similarities`."""
    hits: list[tuple[str, float]] = []
    for i in range(1, len(reply) - 1, 2):
        raw = reply[i + 1] or []
        values = {as_text(raw[j]): raw[j + 1] for j in range(0, len(raw) - 1, 2)}
        hits.append((as_text(reply[i]), 1.0 - float(as_text(values.get("dist", b"1")))))
    return hits


@dataclass
class Hit:
    key: str
    fields: dict[str, bytes] = field(default_factory=dict)
    score: float | None = None

    def str(self, name: str, default: str = "") -> str:
        raw = self.fields.get(name)
        return as_text(raw, default)


class SearchOptions(TypedDict, total=False):
    """:func:`search_args`'s keywords, which :func:`search` passes on unchanged."""

    params: dict[str, bytes | str | int | float] | None
    return_fields: Sequence[str] | None
    sortby: tuple[str, str] | None
    offset: int
    limit: int
    withscores: bool
    scorer: str | None
    inkeys: Sequence[str] | None
    nocontent: bool
    verbatim: bool
    timeout_ms: int | None


def search(
    client: redis.Redis, index: str, query: str, **options: Unpack[SearchOptions]
) -> tuple[int, list[Hit]]:
    """Run FT.SEARCH (DIALECT 2) and return ``(total, hits)``.

    *verbatim* matches query terms exactly, without RediSearch's stem expansion.
    Inside a request deadline (:mod:`houkai.domain.deadline`) a passed deadline
    stops the work here, and a query never runs past the time left.
    """
    reply = client.execute_command(*search_args(index, query, **options))
    return parse_search(
        reply,
        withscores=options.get("withscores", False),
        nocontent=options.get("nocontent", False),
    )


def search_args(
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
    verbatim: bool = False,
    timeout_ms: int | None = None,
) -> list:
    """The ``FT.SEARCH`` command of :func:`search` (to queue on a pipeline: several
    searches in one round trip, their replies read by :func:`parse_search`)."""
    deadline.check("search")
    left = deadline.remaining()
    if timeout_ms is None and left is not None and left * 1000 < SERVER_TIMEOUT_MS:
        timeout_ms = max(1, int(left * 1000))
    args: list = ["FT.SEARCH", index, query]
    if nocontent:
        args.append("NOCONTENT")
    if verbatim:
        args.append("VERBATIM")
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
    return args


def parse_search(
    reply: list, *, withscores: bool = False, nocontent: bool = False
) -> tuple[int, list[Hit]]:
    """``(total, hits)`` of an ``FT.SEARCH`` reply (RESP2)."""
    total = int(reply[0])
    hits: list[Hit] = []
    i = 1
    while i < len(reply):
        hit = Hit(key=as_text(reply[i]))
        i += 1
        if withscores:
            hit.score = float(reply[i])
            i += 1
        if not nocontent:
            raw = reply[i] or []
            i += 1
            hit.fields = {as_text(raw[j]): raw[j + 1] for j in range(0, len(raw) - 1, 2)}
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

    Keys come in ascending order of *sortby* (a SORTABLE numeric field;
    ``created_at`` when not given), ties ordered by key, one numeric window at
    a time: each window is a small ``FT.SEARCH``, so no query ever asks the
    server to sort or return more than a page (stock Redis Stack caps both at
    10,000 results). No server-side cursor stays open across round trips: an
    ``FT.AGGREGATE`` cursor may skip a row when a document is deleted and
    garbage-collected while it is open (RediSearch issue 2270, "wontfix"),
    which once lost one of twelve memories from a decay scan under load.
    """
    yield from _iter_sorted_keys(client, index, query, sortby or "created_at", batch_size)


def _range_clause(query: str, field: str, lo: str, hi: str) -> str:
    base = "" if query.strip() == "*" else f"({query}) "
    return f"{base}@{field}:[{lo} {hi}]"


def _iter_sorted_keys(
    client: redis.Redis, index: str, query: str, field: str, batch_size: int
) -> Iterator[list[str]]:
    """Keys in ascending *field* order, ties by key: each of :func:`iter_windows`'
    windows ordered by an ``HGET`` of *field* per key."""
    for keys in iter_windows(client, index, query, field, batch_size):
        yield from batched(_by_value(client, keys, field), batch_size)


def iter_windows(
    client: redis.Redis, index: str, query: str, field: str, batch_size: int
) -> Iterator[list[str]]:
    """The keys matching *query* as consecutive *field* windows ``[lo, hi)``, ascending,
    each holding about *batch_size* keys (at most four times that, unless more share one
    exact value), in no order inside a window.

    Each window is an unsorted range query the numeric index answers in time
    proportional to its own size; its width adapts so it holds about *batch_size*
    keys (a window of more than four batches is narrowed and asked again). Keyset
    pages under ``SORTBY`` instead cost a scan of every key above the bound per page:
    quadratic, 240 s and more at 100k (ADR 0039). A caller that reads *field* with its
    rows anyway sorts each window itself (the export, ADR 0058).
    """
    bounds = _bounds(client, index, query, field)
    if bounds is None:
        return
    lo, hi, count = bounds
    cap = 4 * batch_size
    width = (hi - lo) * batch_size / max(count, 1)
    start = lo
    while start <= hi:
        end = max(start + width, math.nextafter(start, math.inf))
        clause = _range_clause(query, field, repr(start), f"({end!r}")
        found, keys = _window_keys(client, index, clause, 0, cap)
        narrowest = end == math.nextafter(start, math.inf)
        if found > cap and not narrowest:
            width = (end - start) * batch_size / found
            continue
        while len(keys) < found:  # one value shared by more than *cap* keys
            _, more = _window_keys(client, index, clause, len(keys), cap)
            if not more:
                break
            keys += more
        if keys:
            yield keys
        # Aim the next window at *batch_size* keys, growing at most fourfold.
        grow = 4.0 if found == 0 else min(4.0, batch_size / found)
        width = max((end - start) * grow, width / 4)
        start = end


def _window_keys(
    client: redis.Redis, index: str, clause: str, offset: int, limit: int
) -> tuple[int, list[str]]:
    """``(total, keys)`` of one unsorted window page: a ``NOCONTENT`` search read as
    bare keys (no :class:`Hit` per key; a window walk reads every key of a collection)."""
    reply = client.execute_command(
        "FT.SEARCH", index, clause, "NOCONTENT", "TIMEOUT", 0,
        "LIMIT", offset, limit, "DIALECT", 2,
    )  # fmt: skip
    return int(reply[0]), [as_text(key) for key in reply[1:]]


def _bounds(
    client: redis.Redis, index: str, query: str, field: str
) -> tuple[float, float, int] | None:
    """``(min, max, count)`` of *field* over *query*, padded outward past the
    12 significant digits an aggregate prints; None when nothing matches."""
    reply = client.execute_command(
        "FT.AGGREGATE", index, query, "GROUPBY", 0,
        "REDUCE", "MIN", 1, f"@{field}", "AS", "lo",
        "REDUCE", "MAX", 1, f"@{field}", "AS", "hi",
        "REDUCE", "COUNT", 0, "AS", "n",
        "TIMEOUT", 0, "DIALECT", 2,
    )  # fmt: skip
    if len(reply) < 2:
        return None
    row = {as_text(reply[1][j]): as_text(reply[1][j + 1]) for j in range(0, len(reply[1]) - 1, 2)}
    try:
        lo, hi, n = float(row["lo"]), float(row["hi"]), int(float(row["n"]))
    except (KeyError, ValueError):
        return None
    if n == 0 or not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    pad = 1e-9 * max(abs(lo), abs(hi), 1.0)
    return lo - pad, hi + pad, n


def _by_value(client: redis.Redis, keys: list[str], field: str) -> list[str]:
    """*keys* ordered by their exact stored *field* (``RETURN`` rounds to 12
    digits), then by key; keys deleted meanwhile are left out."""
    pipe = client.pipeline(transaction=False)
    for key in keys:
        pipe.hget(key, field)
    exact = [(float(raw), key) for key, raw in zip(keys, pipe.execute(), strict=True) if raw]
    return [key for _, key in sorted(exact)]


def total(client: redis.Redis, index: str, query: str = "*") -> int:
    # TIMEOUT 0: under the default 500 ms (ON_TIMEOUT return) a busy 400k collection
    # counted short, and `houkai bench scale --resume` re-wrote 13k memories (ADR 0045).
    count, _ = search(client, index, query, limit=0, nocontent=True, timeout_ms=0)
    return count
