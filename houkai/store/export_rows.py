"""Archive rows straight from the memory hashes: the fast half of ``export`` (ADR 0045).

An export used to cost about 500 µs of Python per memory (a ``Memory`` per
row, a float list per vector, one ``json.dumps`` of 384 widened floats). Here
a batch of hashes comes back in one round trip of ``HMGET`` commands packed here (not
one redis-py command object per key) and a batch of
FLOAT16 blobs becomes JSON in a few numpy operations over a table of the
shortest decimal of every float16 bit pattern.
"""

from __future__ import annotations

import json
import re
from base64 import b64encode
from binascii import b2a_base64
from collections.abc import Sequence
from functools import lru_cache
from json.encoder import encode_basestring_ascii
from typing import Any

import numpy as np

from ..db.cluster_client import pool_for
from ..db.decode import as_float, as_text
from .archive import BASE64_ENCODINGS

_WIDTH = 16  # bytes per table entry: the longest float16 decimal (11), a comma, NUL padding
_TABLE: dict[str, np.ndarray] = {}


def f16_decimal(bits: int) -> str:
    """The shortest decimal that reads back as the float16 with these bits.

    ``json.dumps`` of the widened value writes ``0.0123443603515625`` (19 bytes)
    where ``0.01234`` (7) names the same float16: parsed as a double, a float32
    or a float16 it rounds back to the same bits (checked for every finite
    pattern in tests/test_scale_scans.py). Non-finite patterns never reach an
    archive (every write path refuses them); they read ``NaN``, which every
    importer refuses, so a bug would show instead of corrupting silently.
    """
    value = np.uint16(bits).view(np.float16)
    if not np.isfinite(value):
        return "NaN"
    return np.format_float_positional(value, unique=True, trim="0")


def _table() -> tuple[np.ndarray, np.ndarray]:
    """``(entries, lengths)``: each pattern's decimal plus a comma, NUL-padded to
    ``_WIDTH`` bytes and viewed as one 16-byte item, so a gather moves whole entries."""
    if not _TABLE:
        texts = [(f16_decimal(bits) + ",").encode() for bits in range(65536)]
        padded = b"".join(text.ljust(_WIDTH, b"\0") for text in texts)
        _TABLE["entries"] = np.frombuffer(padded, dtype=np.dtype((np.void, _WIDTH)))
        _TABLE["lengths"] = np.array([len(text) for text in texts], dtype=np.int64)
    return _TABLE["entries"], _TABLE["lengths"]


def f16_arrays(
    blobs: list[bytes], dim: int, before: bytes = b"", after: bytes = b""
) -> list[bytes]:
    """Each FLOAT16 blob (``2 * dim`` bytes) as a JSON array, all in one pass: one
    gather of table entries, one ``bytes.translate`` dropping the padding (a third of
    the cost of a boolean mask; ADR 0058), then a slice per row (between *before* and
    *after*, so the caller copies each row once)."""
    if not blobs:
        return []
    row = before + b"[%b]" + after
    entries, lengths = _table()
    bits = np.frombuffer(b"".join(blobs), dtype="<u2").reshape(len(blobs), dim)
    flat = np.take(entries, bits).tobytes().translate(None, b"\0")
    ends = np.cumsum(lengths[bits].sum(axis=1)).tolist()
    out: list[bytes] = []
    start = 0
    for end in ends:
        out.append(row % flat[start : end - 1])  # the last comma becomes "]"
        start = end
    return out


def stored_bytes(raw: bytes, vector_type: str, dim: int, encoding: str) -> bytes:
    """The little-endian bytes a base64 archive row carries for the stored blob *raw*:
    the blob itself when its type is the encoding's, else converted (BFLOAT16, or a
    FLOAT32 blob left by an unfinished ``collections migrate``)."""
    want = BASE64_ENCODINGS[encoding]
    if len(raw) == dim * np.dtype(want).itemsize and vector_type in ("FLOAT16", "FLOAT32"):
        return raw
    from .codec import vector_from_bytes

    vector = vector_from_bytes(raw, vector_type, dim)
    if vector is None:  # pragma: no cover - a non-empty blob always decodes
        raise ValueError("unreadable stored vector")
    return np.asarray(vector, dtype=want).tobytes()


def batch_blob_length(vector_type: str, dim: int, encoding: str) -> int | None:
    """The stored blob length a batch spells as it is: FLOAT16 blobs through the
    :func:`f16_arrays` table (JSON), or blobs already of the encoding's type (base64).
    Any other blob (None: every one) is converted row by row first."""
    if encoding == "json":
        return 2 * dim if vector_type == "FLOAT16" else None
    itemsize = {"FLOAT16": 2, "FLOAT32": 4}.get(vector_type)
    if itemsize != np.dtype(BASE64_ENCODINGS[encoding]).itemsize:
        return None
    return dim * itemsize


def base64_strings(blobs: list[bytes], before: bytes = b"", after: bytes = b"") -> list[bytes]:
    """Each blob as a quoted JSON string of its base64 (no character needs escaping),
    between *before* and *after*.

    Blobs of one length that is a multiple of 3 (384 dimensions: 768 or 1,536 bytes)
    are encoded in one call: base64 of their concatenation is the concatenation of
    their base64s, cut every ``4/3 × length`` characters."""
    if not blobs:
        return []
    row = before + b'"%b"' + after
    size = len(blobs[0])
    if size % 3 or any(len(blob) != size for blob in blobs):
        return [row % b64encode(blob) for blob in blobs]
    flat = b2a_base64(b"".join(blobs), newline=False)
    step = size // 3 * 4
    return [row % flat[start : start + step] for start in range(0, len(flat), step)]


def fetch_rows(client: Any, keys: list[str], fields: tuple[str, ...]) -> list[Any]:
    """``HMGET key *fields`` for every key, in one round trip: the commands are packed
    here as one RESP buffer and the replies read back on one pooled connection.

    A Lua script doing the same ``HMGET`` calls cost Redis 18 µs a row (every value
    became a Lua string and back); a redis-py pipeline packs each command in Python
    (22 µs of client CPU a row). Packed here: 8-11 µs of Redis, 4-6 µs of client
    (100k FLOAT16 memories, 19 fields; ADR 0063). Connection errors are retried as
    redis-py retries a command (the connection is dropped first, so no reply of a
    broken exchange is ever read as the next one's).
    """
    if not keys:
        return []
    head, suffix = _hmget_parts(fields)
    payload = b"".join(
        head + b"$%d\r\n%b\r\n" % (len(raw), raw) + suffix
        for raw in (key.encode("utf-8") for key in keys)
    )
    pool = pool_for(client, keys[0])  # on a cluster: the collection's shard
    conn = pool.get_connection()

    def exchange() -> list[Any]:
        conn.send_packed_command([payload])
        return [conn.read_response() for _ in keys]

    try:
        return conn.retry.call_with_retry(exchange, lambda _error: conn.disconnect())
    except BaseException:
        conn.disconnect()  # replies may be left unread on it
        raise
    finally:
        pool.release(conn)


@lru_cache(maxsize=16)
def _hmget_parts(fields: tuple[str, ...]) -> tuple[bytes, bytes]:
    """The RESP bytes of ``HMGET`` before and after its key, for *fields*."""
    head = b"*%d\r\n$5\r\nHMGET\r\n" % (len(fields) + 2)
    suffix = b"".join(b"$%d\r\n%b\r\n" % (len(f), f) for f in (x.encode() for x in fields))
    return head, suffix


# ---------------------------------------------------------------- the row writer
# An archive line is ``json.dumps({"id", "text", "meta": Memory.to_dict(), "vector"?},
# separators=(",", ":"))``. Building a Memory and its dict for that cost about 60 µs a
# row (ADR 0053); :func:`encode_row` writes the same bytes straight from the hash
# values (ADR 0058): each field is read exactly as ``codec.from_hash`` reads it and
# spelled exactly as ``json.dumps`` spells it; a string that needs no escaping is copied.

# Any byte ``json.dumps`` (ensure_ascii) escapes: controls, '"', '\\', DEL, non-ASCII.
_NEEDS_ESCAPE = re.compile(rb"[^ !#-\[\]-~]")
_INF = float("inf")
_float_repr = float.__repr__  # json.dumps spells a finite float so
_CACHE_MAX = 4096  # distinct values remembered per cache (tag lists, importances)


def _jstr(raw: bytes | str | None, default: bytes = b'""') -> bytes:
    """``json.dumps(as_text(raw))`` as bytes; *default* (already JSON) when unset."""
    if raw is None:
        return default
    if isinstance(raw, str):
        raw = raw.encode("utf-8")
    if _NEEDS_ESCAPE.search(raw) is None:
        return b'"' + raw + b'"'
    return encode_basestring_ascii(raw.decode("utf-8")).encode("ascii")


def _float_of(raw: bytes | str | None, default: float) -> float:
    """``as_float(raw, default)``, with ``float(bytes)`` as the fast path."""
    if not raw:
        return default
    try:
        return float(raw)
    except ValueError:
        return as_float(raw, default)


def _jfloat(value: float) -> bytes:
    """A float as ``json.dumps`` spells it (``NaN`` / ``Infinity`` when not finite)."""
    if value != value:
        return b"NaN"
    if value == _INF or value == -_INF:
        return b"Infinity" if value > 0 else b"-Infinity"
    return _float_repr(value).encode("ascii")


class _Cached:
    """One field's ``raw → JSON`` conversions, remembered (bounded): importances,
    the zero defaults and tag lists repeat across a collection."""

    __slots__ = ("_convert", "_seen")

    def __init__(self, convert: Any) -> None:
        self._convert = convert
        self._seen: dict[Any, bytes] = {}

    def __call__(self, raw: Any) -> bytes:
        hit = self._seen.get(raw)
        if hit is None:
            if len(self._seen) >= _CACHE_MAX:
                self._seen.clear()
            hit = self._seen[raw] = self._convert(raw)
        return hit


def _tags_json(raw: bytes | str | None) -> bytes:
    try:  # exactly codec.from_hash's reading
        tags = list(json.loads(as_text(raw, "[]")))
    except ValueError:
        tags = []
    return dump_compact(tags)


def _links_json(raw: bytes | str | None) -> bytes:
    if raw is None or raw == b"[]":
        return b"[]"
    try:  # exactly codec.from_hash's reading, then Memory.to_dict's spelling
        links = [{"to": x["to"], "rel": x["rel"]} for x in json.loads(as_text(raw, "[]"))]
    except (ValueError, KeyError, TypeError):
        links = []
    return dump_compact(links)


def dump_compact(value: Any) -> bytes:
    """``value`` as compact JSON bytes, spelled as ``archive.dump_line`` spells it."""
    return json.dumps(value, separators=(",", ":")).encode("ascii")


def _zero_float(raw: bytes | str | None) -> bytes:
    return _jfloat(_float_of(raw, 0.0))


def _int_json(raw: bytes | str | None) -> bytes:
    return str(int(_float_of(raw, 0.0))).encode("ascii")


_importance = _Cached(lambda raw: _jfloat(_float_of(raw, 0.5)))
_zero = _Cached(_zero_float)
_small_int = _Cached(_int_json)
_tags = _Cached(_tags_json)
_type = _Cached(lambda raw: _jstr(raw, b'"semantic"'))
_state = _Cached(lambda raw: _jstr(raw, b'"ready"'))
_coll = _Cached(_jstr)

# The hash fields a row is written from, in the order encode_row unpacks them: a
# Memory's hash fields (``schema.MEMORY_FIELDS``, checked by a test), read exactly.
ROW_FIELDS = (
    "id", "text", "type", "tags", "importance", "created_at", "last_accessed",
    "access_count", "source", "links", "superseded_by", "superseded_at", "polarity",
    "expires_at", "coll", "state", "error", "chash",
    "user_id", "agent_id", "session_id", "msgids",
)  # fmt: skip

_ROW = (
    b'{"id":%b,"text":%b,"meta":{"id":%b,"text":%b,"type":%b,"tags":%b,"importance":%b,'
    b'"created_at":%b,"last_accessed":%b,"access_count":%b,"source":%b,%b,"content_hash":%b%b}'
)


def _scope_json(user: bytes | None, agent: bytes | None, session: bytes | None,
                msgids: bytes | None) -> bytes:  # fmt: skip
    """The provenance/scope fields ``Memory.to_dict`` writes when set (usually none)."""
    out = b""
    for name, raw in ((b"user_id", user), (b"agent_id", agent), (b"session_id", session)):
        if raw:
            out += b',"%b":%b' % (name, _jstr(raw))
    if msgids:
        ids = json.loads(msgids)
        if ids:
            out += b',"message_ids":%b' % json.dumps(ids, separators=(",", ":")).encode()
    return out


def _status_json(key: tuple[Any, ...]) -> bytes:
    links, sup_by, sup_at, polarity, expires, coll, state, error = key
    return (
        b'"links":%b,"superseded_by":%b,"superseded_at":%b,"polarity":%b,"expires_at":%b,'
        b'"collection":%b,"state":%b,"error":%b'
    ) % (
        _links_json(links),
        _jstr(sup_by),
        _zero(sup_at),
        _small_int(polarity),
        _zero(expires),
        _coll(coll),
        _state(state),
        _jstr(error),
    )


# The link/supersede/expiry/state run of fields is nearly always the defaults: one
# cached lookup instead of a conversion per field. (Type, tags and importance each
# repeat, but not together: as one key they missed the bounded cache at 1M.)
_status = _Cached(_status_json)
_N = len(ROW_FIELDS)


def encode_row(
    values: Sequence[bytes | None], pending_n: bytes | None, pending_t: bytes | None
) -> tuple[float, str, bytes]:
    """``(created_at, id, line)`` for one memory hash read as ``HMGET`` of
    :data:`ROW_FIELDS` (in that order), plus its pending access count and time.

    *line* is the archive row without its closing ``}`` and newline, so the caller
    appends ``,"vector":…`` or not. Its bytes equal ``dump_line`` of the row built
    through ``codec.from_hash`` and ``Memory.to_dict`` (tests/test_export_writer.py).
    """
    (mid, text, mtype, tags, importance, created, accessed, count, source, links,
     sup_by, sup_at, polarity, expires, coll, state, error, chash,
     user, agent, session, msgids) = values[:_N]  # fmt: skip
    try:  # _float_of, inline: this runs a million times in a 1M export
        created_at = float(created) if created else 0.0
    except ValueError:
        created_at = as_float(created, 0.0)
    try:
        last = float(accessed) if accessed else 0.0
    except ValueError:
        last = as_float(accessed, 0.0)
    if pending_t:
        last = max(last, float(pending_t))
    if pending_n:
        access_json = b"%d" % (int(_float_of(count, 0.0)) + int(pending_n))
    else:
        access_json = _small_int(count)
    id_json = _jstr(mid)
    text_json = _jstr(text)
    line = _ROW % (
        id_json,
        text_json,
        id_json,
        text_json,
        _type(mtype),
        _tags(tags),
        _importance(importance),
        _float_repr(created_at).encode() if created_at - created_at == 0.0 else _jfloat(created_at),
        _float_repr(last).encode() if last - last == 0.0 else _jfloat(last),
        access_json,
        _jstr(source, b"null") if source else b"null",
        _status((links, sup_by, sup_at, polarity, expires, coll, state, error)),
        _jstr(chash),
        _scope_json(user, agent, session, msgids) if (user or agent or session or msgids) else b"",
    )
    return created_at, as_text(mid), line
