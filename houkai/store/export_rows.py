"""Archive rows straight from the memory hashes: the fast half of ``export`` (ADR 0045).

An export used to cost about 500 µs of Python per memory (a ``Memory`` per
row, a float list per vector, one ``json.dumps`` of 384 widened floats). Here
a batch of hashes comes back in one ``EVALSHA`` (an ``HMGET`` per key inside
the script, so redis-py packs one command, not one per key) and a batch of
FLOAT16 blobs becomes JSON in a few numpy operations over a table of the
shortest decimal of every float16 bit pattern.
"""

from __future__ import annotations

from base64 import b64encode
from typing import Any

import numpy as np

from .archive import BASE64_ENCODINGS

# KEYS: memory hashes. ARGV: field names. One HMGET reply per key (missing: all nil).
FETCH_LUA = """
local out = {}
for i, key in ipairs(KEYS) do
  out[i] = redis.call('HMGET', key, unpack(ARGV))
end
return out
"""

_WIDTH = 12  # bytes per table entry: the longest float16 decimal (11) plus a comma
_TABLE: dict[str, np.ndarray] = {}


def f16_decimal(bits: int) -> str:
    """The shortest decimal that reads back as the float16 with these bits.

    ``json.dumps`` of the widened value writes ``0.0123443603515625`` (19 bytes)
    where ``0.01234`` (7) names the same float16: parsed as a double, a float32
    or a float16 it rounds back to the same bits (checked for every finite
    pattern in tests/test_export_rows.py). Non-finite patterns never reach an
    archive (every write path refuses them); they read ``NaN``, which every
    importer refuses, so a bug would show instead of corrupting silently.
    """
    value = np.uint16(bits).view(np.float16)
    if not np.isfinite(value):
        return "NaN"
    return np.format_float_positional(value, unique=True, trim="0")


def _table() -> tuple[np.ndarray, np.ndarray]:
    """``(chars, lengths)``: each pattern's decimal plus a comma, padded to ``_WIDTH``."""
    if not _TABLE:
        texts = [(f16_decimal(bits) + ",").encode() for bits in range(65536)]
        padded = b"".join(text.ljust(_WIDTH, b"\0") for text in texts)
        _TABLE["chars"] = np.frombuffer(padded, dtype=np.uint8).reshape(65536, _WIDTH)
        _TABLE["lengths"] = np.array([len(text) for text in texts], dtype=np.int64)
    return _TABLE["chars"], _TABLE["lengths"]


def f16_arrays(blobs: list[bytes], dim: int) -> list[bytes]:
    """Each FLOAT16 blob (``2 * dim`` bytes) as a JSON array, all in one pass."""
    if not blobs:
        return []
    chars, lengths = _table()
    bits = np.frombuffer(b"".join(blobs), dtype="<u2").reshape(len(blobs), dim)
    lens = lengths[bits]  # (rows, dim)
    mask = np.arange(_WIDTH) < lens[..., None]  # (rows, dim, width)
    flat = chars[bits][mask].tobytes()
    ends = np.cumsum(lens.sum(axis=1)).tolist()
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
