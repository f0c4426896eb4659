"""Archive rows straight from the memory hashes: the fast half of ``export`` (ADR 0045).

An export used to cost about 500 µs of Python per memory (a ``Memory`` per
row, a float list per vector, one ``json.dumps`` of 384 widened floats). Here
a batch of hashes comes back in one ``EVALSHA`` (an ``HMGET`` per key inside
the script, so redis-py packs one command, not one per key) and a batch of
FLOAT16 blobs becomes JSON in a few numpy operations over a table of the
shortest decimal of every float16 bit pattern.
"""

from __future__ import annotations

import json
import re
from base64 import b64encode
from collections.abc import Sequence
from json.encoder import encode_basestring_ascii
from typing import Any

import numpy as np

from ..db.decode import as_float, as_text
from .archive import BASE64_ENCODINGS

# KEYS: memory hashes. ARGV: field names. One HMGET reply per key (missing: all nil).
FETCH_LUA = """
local out = {}
for i, key in ipairs(KEYS) do
  out[i] = redis.call('HMGET', key, unpack(ARGV))
end
return out
"""

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


def f16_arrays(blobs: list[bytes], dim: int) -> list[bytes]:
    """Each FLOAT16 blob (``2 * dim`` bytes) as a JSON array, all in one pass: one
    gather of table entries, one ``bytes.translate`` dropping the padding (a third of
    the cost of a boolean mask; ADR 0058), then a slice per row."""
    if not blobs:
        return []
    entries, lengths = _table()
    bits = np.frombuffer(b"".join(blobs), dtype="<u2").reshape(len(blobs), dim)
    flat = np.take(entries, bits).tobytes().translate(None, b"\0")
    ends = np.cumsum(lengths[bits].sum(axis=1)).tolist()
    out: list[bytes] = []
    start = 0
    for end in ends:
        out.append(b"[" + flat[start : end - 1] + b"]")  # the last comma becomes "]"
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


def base64_strings(blobs: list[bytes]) -> list[bytes]:
    """Each blob as a quoted JSON string of its base64 (no character needs escaping)."""
    return [b'"' + b64encode(blob) + b'"' for blob in blobs]


def fetch_rows(client: Any, keys: list[str], fields: tuple[str, ...]) -> list[Any]:
    """``HMGET key *fields`` for every key, in one round trip (``EVALSHA``; the script is
    loaded on first use, and registering it again only hashes its few lines)."""
    if not keys:
        return []
    return list(client.register_script(FETCH_LUA)(keys=keys, args=list(fields)))


# ---------------------------------------------------------------- the row writer
# An archive line is ``json.dumps({"id", "text", "meta": Memory.to_dict(), "vector"?},
# separators=(",", ":"))``. Building a Memory and its dict for that cost about 60 µs a
# row (ADR 0053); :func:`encode_row` writes the same bytes straight from the hash
# values (ADR 0058): each field is read exactly as ``codec.from_hash`` reads it and
# spelled exactly as ``json.dumps`` spells it; a string that needs no escaping is copied.

# Any byte ``json.dumps`` (ensure_ascii) escapes: controls, '"', '\\', DEL, non-ASCII.
_NEEDS_ESCAPE = re.compile(rb"[^ !#-\[\]-~]")
_INF = float("inf")
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
    return float.__repr__(value).encode("ascii")


class _Cached:
    """One field's ``raw → JSON`` conversions, remembered (bounded): importances,
    the zero defaults and tag lists repeat across a collection."""

    __slots__ = ("_convert", "_seen")

    def __init__(self, convert: Any) -> None:
        self._convert = convert
        self._seen: dict[bytes | str | None, bytes] = {}

    def __call__(self, raw: bytes | str | None) -> bytes:
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

# The hash fields a row is written from, in the order encode_row unpacks them: the
# fields a search returns for a Memory (``schema.MEMORY_FIELDS``, checked by a test).
ROW_FIELDS = (
    "id", "text", "type", "tags", "importance", "created_at", "last_accessed",
    "access_count", "source", "links", "superseded_by", "superseded_at", "polarity",
    "expires_at", "coll", "state", "error", "chash",
)  # fmt: skip

_ROW = (
    b'{"id":%b,"text":%b,"meta":{"id":%b,"text":%b,"type":%b,"tags":%b,"importance":%b,'
    b'"created_at":%b,"last_accessed":%b,"access_count":%b,"source":%b,"links":%b,'
    b'"superseded_by":%b,"superseded_at":%b,"polarity":%b,"expires_at":%b,'
    b'"collection":%b,"state":%b,"error":%b,"content_hash":%b}'
)


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
     sup_by, sup_at, polarity, expires, coll, state, error, chash) = values[:_N]  # fmt: skip
    created_at = _float_of(created, 0.0)
    last = _float_of(accessed, 0.0)
    if pending_t:
        last = max(last, float(pending_t))
    n = int(_float_of(count, 0.0))
    if pending_n:
        n += int(pending_n)
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
        _jfloat(created_at),
        _jfloat(last),
        str(n).encode("ascii"),
        _jstr(source, b"null") if source else b"null",
        _links_json(links),
        _jstr(sup_by),
        _zero(sup_at),
        _small_int(polarity),
        _zero(expires),
        _coll(coll),
        _state(state),
        _jstr(error),
        _jstr(chash),
    )
    return created_at, as_text(mid), line
