"""The portable ``.ahkai`` archive format (README "Export and import"): gzipped JSONL.

Line 1 is a header object (``{"format": "ai-houkai/export", "version": 1,
"exported_at", "source": {collection, embedding_model, embedding_dim, count},
"options": {...}}``); every further line is one memory ``{"id", "text",
"meta": Memory.to_dict(), "vector"?}``. The same bytes as the seed's own
exporter, so archives move both ways between the two implementations.
``vector_format="base64"`` writes version 2 instead: each vector a base64
string of its stored bytes (``options.vector_encoding``), exact to the bit and
a third smaller (923 against 1,394 MB at 1M memories); this reader takes both
(ADR 0053).
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..domain.errors import BadRequest, Conflict
from ..domain.model import MAX_VECTOR_DIM

EXPORT_FORMAT = "ai-houkai/export"
EXPORT_VERSION = 1  # what a JSON-vector archive says: the seed's format, byte for byte
# Version 2 differs only in the vector spelling: base64 of the stored little-endian
# bytes, named by the header's ``options.vector_encoding`` (ADR 0053). A reader of
# version 1 (the seed's) refuses it by its version instead of misreading it.
EXPORT_VERSION_BASE64 = 2
READ_VERSION = EXPORT_VERSION_BASE64
VECTOR_FORMATS = ("json", "base64")
BASE64_ENCODINGS = {"base64-float16": "<f2", "base64-float32": "<f4"}
MAX_LINE_BYTES = 4 * 1024 * 1024
MAX_ARCHIVE_BYTES = 4 * 1024**3
MAX_ERRORS = 100


class ArchiveError(BadRequest, ValueError):
    """The file is not a readable ai-houkai archive (bad gzip, header, size or line)."""


class ImportConflictError(Conflict):
    """``on_conflict="error"`` found ids that already exist; nothing was written."""

    def __init__(self, message: str, *, collisions: list[tuple[str, str]]) -> None:
        super().__init__(message)
        self.collisions = collisions


@dataclass
class ExportSummary:
    path: Path
    count: int
    bytes: int
    elapsed: float
    vectors_included: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "count": self.count,
            "bytes": self.bytes,
            "elapsed": round(self.elapsed, 3),
            "vectors_included": self.vectors_included,
        }


@dataclass
class ImportSummary:
    imported: int = 0
    skipped: int = 0
    overwritten: int = 0
    renamed: int = 0
    errors: list[tuple[str, str]] = field(default_factory=list)
    vectors_regenerated: bool = False
    dry_run: bool = False
    errors_total: int = 0  # every refused row; ``errors`` keeps only the first N

    def add_error(self, label: str, message: str, cap: int = MAX_ERRORS) -> None:
        self.errors_total += 1
        if len(self.errors) < cap:
            self.errors.append((label, message))

    def to_dict(self) -> dict[str, Any]:
        return {
            "imported": self.imported,
            "skipped": self.skipped,
            "overwritten": self.overwritten,
            "renamed": self.renamed,
            "errors": [list(e) for e in self.errors],
            "errors_total": self.errors_total,
            "vectors_regenerated": self.vectors_regenerated,
            "dry_run": self.dry_run,
        }


def dump_line(obj: dict[str, Any]) -> bytes:
    """One compact JSON line, exactly as the seed writes it."""
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode("utf-8")


# gzip level 1: 3.6x the throughput of level 6 (zlib's default) on export rows for
# archives 24 % larger (ADR 0045; level 6 against 9 was ADR 0029's step). ISA-L's
# level 1 (the ``isal`` wheel) writes the same gzip format 4-8x faster than zlib's
# level 1 and a little smaller, and releases the GIL (ADR 0058); zlib stays the
# fallback where no wheel exists.
COMPRESS_LEVEL = 1
try:
    from isal import igzip as _gzip_writer
except ImportError:  # pragma: no cover - isal is a dependency; kept for odd platforms
    _gzip_writer = gzip  # type: ignore[misc]


class ArchiveWriter:
    """Write an archive through a temp file renamed into place on success.

    The gzip header carries no file name or time, so identical content gives
    identical bytes.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        self._raw: IO[bytes] | None = None
        self._gz: gzip.GzipFile | None = None  # isal's GzipFile subclasses it

    def __enter__(self) -> ArchiveWriter:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._raw = open(self._tmp, "wb")  # closed in __exit__
        self._gz = _gzip_writer.GzipFile(
            filename="", mode="wb", fileobj=self._raw, mtime=0, compresslevel=COMPRESS_LEVEL
        )
        return self

    def write(self, obj: dict[str, Any]) -> None:
        assert self._gz is not None
        self._gz.write(dump_line(obj))

    def write_raw(self, line: bytes) -> None:
        assert self._gz is not None
        self._gz.write(line)

    def __exit__(self, exc_type, exc, tb) -> None:
        assert self._gz is not None and self._raw is not None
        try:
            self._gz.close()
            self._raw.flush()
            os.fsync(self._raw.fileno())
        finally:
            self._raw.close()
        if exc_type is None:
            os.replace(self._tmp, self.path)
        else:
            self._tmp.unlink(missing_ok=True)


class ArchiveLimits:
    """Caps that bound the work a hostile archive can cause (issue 10, item 8).

    ``max_line_bytes``: one JSONL line (a row with a 100k-character text and a
    3,072-dim vector is about 1.3 MB); ``max_bytes``: total decompressed size;
    ``max_errors``: error entries kept (the rest are only counted).
    """

    __slots__ = ("max_bytes", "max_errors", "max_line_bytes")

    def __init__(
        self,
        max_line_bytes: int = MAX_LINE_BYTES,
        max_bytes: int = MAX_ARCHIVE_BYTES,
        max_errors: int = MAX_ERRORS,
    ) -> None:
        self.max_line_bytes = int(max_line_bytes)
        self.max_bytes = int(max_bytes)
        self.max_errors = int(max_errors)

    @classmethod
    def from_settings(cls, settings: Any) -> ArchiveLimits:
        return cls(
            max_bytes=int(getattr(settings, "import_max_bytes", MAX_ARCHIVE_BYTES)),
            max_errors=int(getattr(settings, "import_max_errors", MAX_ERRORS)),
        )


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a valid JSON number")


# One decoder, built once (``json.loads(..., parse_constant=…)`` builds one per
# call, which doubled the cost of a line). Overflowing numbers (1e400) still
# parse as inf; every consumer range-checks them (check_header, check_memory,
# codec.check_vectors).
_DECODER = json.JSONDecoder(parse_constant=_no_constant)


def loads_strict(text: str | bytes) -> Any:
    """``json.loads`` that refuses the NaN / Infinity / -Infinity constants."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    return _DECODER.decode(text)


def _number(value: Any, name: str, lo: int, hi: int) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not lo <= value <= hi  # also false for nan and inf
    ):
        raise ArchiveError(f"header {name} must be an integer in [{lo}, {hi}] — got {value!r}")
    if isinstance(value, float) and not value.is_integer():
        raise ArchiveError(f"header {name} must be an integer — got {value!r}")
    return int(value)


def check_header(line: str | bytes, where: str = "archive") -> dict[str, Any]:
    """Parse and validate the header line; every problem is an :class:`ArchiveError`."""
    if isinstance(line, bytes):
        line = line.decode("utf-8", errors="replace")
    if not line.strip():
        raise ArchiveError(f"{where}: empty file, not an ai-houkai export")
    try:
        header = loads_strict(line)
    except (ValueError, RecursionError) as exc:
        raise ArchiveError(f"{where}: not an ai-houkai export (bad header: {exc})") from None
    if not isinstance(header, dict) or header.get("format") != EXPORT_FORMAT:
        raise ArchiveError(f"{where}: missing or bad format header (want {EXPORT_FORMAT!r})")
    version = _number(header.get("version", 0), "version", 0, 1_000_000)
    if version > READ_VERSION:
        raise ArchiveError(
            f"{where}: written with format version {version}, this reader knows "
            f"versions up to {READ_VERSION}"
        )
    source = {} if header.get("source") is None else header["source"]
    options = {} if header.get("options") is None else header["options"]
    if not isinstance(source, dict) or not isinstance(options, dict):
        raise ArchiveError(f"{where}: header source and options must be objects")
    encoding = options.get("vector_encoding", "json")
    if encoding != "json" and encoding not in BASE64_ENCODINGS:
        raise ArchiveError(
            f"{where}: unknown vector_encoding {str(encoding)[:40]!r} (want json or "
            + " or ".join(BASE64_ENCODINGS)
            + ")"
        )
    model = source.get("embedding_model")
    if model is not None and not isinstance(model, str):
        raise ArchiveError(f"{where}: header embedding_model must be a string")
    _number(source.get("embedding_dim") or 0, "embedding_dim", 0, MAX_VECTOR_DIM)
    return header


def decode_base64_vector(value: Any, encoding: str, dim: int) -> list[float] | Any:
    """A row's base64 vector (``options.vector_encoding`` *encoding*) as a float32 array;
    ``ValueError`` when it is not a string of *dim* values (the caller checks finiteness)."""
    import base64
    import binascii

    import numpy as np

    if not isinstance(value, str):
        raise ValueError(f"vector must be a base64 string under {encoding}")
    dtype = np.dtype(BASE64_ENCODINGS[encoding])
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("vector is not valid base64") from None
    if len(raw) != dim * dtype.itemsize:
        raise ValueError(
            f"vector has {len(raw) // dtype.itemsize} dimensions; this store uses {dim}"
        )
    return np.frombuffer(raw, dtype=dtype).astype(np.float32)


def _open_binary(path: str | os.PathLike[str]) -> tuple[Path, gzip.GzipFile]:
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(2, "No such file", str(p))
    if p.is_dir():
        raise IsADirectoryError(21, "Is a directory", str(p))
    return p, gzip.open(p, "rb")


class _Lines:
    """Bounded line reader over a gzip stream: a line past the cap is skipped in
    chunks (never held whole) and reported; the total is capped too."""

    def __init__(self, handle: Any, where: str, limits: ArchiveLimits) -> None:
        self.handle = handle
        self.where = where
        self.limits = limits
        self.total = 0

    def _read(self, size: int) -> bytes:
        try:
            chunk = self.handle.readline(size)
        except gzip.BadGzipFile:  # its message quotes the file's first bytes: never echo it
            raise ArchiveError(f"{self.where}: not a gzipped ai-houkai export") from None
        except (OSError, EOFError, zlib.error) as exc:
            raise ArchiveError(f"{self.where}: truncated or corrupt archive ({exc})") from None
        self.total += len(chunk)
        if self.total > self.limits.max_bytes:
            raise ArchiveError(
                f"{self.where}: archive is larger than {self.limits.max_bytes} bytes "
                "decompressed (import_max_bytes)"
            )
        return chunk

    def next(self) -> tuple[bytes | None, bool]:
        """``(line, too_long)``; ``(None, False)`` at the end."""
        cap = self.limits.max_line_bytes
        line = self._read(cap + 1)
        if not line:
            return None, False
        if len(line) <= cap or line.endswith(b"\n"):
            return line, False
        while line and not line.endswith(b"\n"):  # drain the rest of the long line
            line = self._read(1 << 20)
        return b"", True


def read_archive_header(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The header of an archive without reading its memories (``houkai info``)."""
    p, handle = _open_binary(path)
    with handle:
        reader = _Lines(handle, str(p), ArchiveLimits())
        line, too_long = reader.next()
    if too_long:
        raise ArchiveError(f"{p}: header line longer than {MAX_LINE_BYTES} bytes")
    try:
        text = (line or b"").decode("utf-8")
    except UnicodeDecodeError:
        raise ArchiveError(f"{p}: not an ai-houkai export (header is not UTF-8)") from None
    return check_header(text, str(p))


def iter_archive(
    path: str | os.PathLike[str], limits: ArchiveLimits | None = None
) -> tuple[dict[str, Any], Iterator[tuple[int, dict[str, Any] | str]]]:
    """``(header, rows)``: rows stream lazily as ``(line_number, row)``.

    A line that is not a JSON object (or too long, or holds NaN/Infinity) comes
    through as ``(line_number, error)`` so the importer can report it and
    continue; a broken gzip stream or an archive over ``limits.max_bytes``
    raises :class:`ArchiveError`. Memory stays bounded by ``max_line_bytes``.
    """
    limits = limits or ArchiveLimits()
    header = read_archive_header(path)

    def rows() -> Iterator[tuple[int, dict[str, Any] | str]]:
        p, handle = _open_binary(path)
        with handle:
            reader = _Lines(handle, str(p), limits)
            reader.next()
            lineno = 1
            while True:
                raw, too_long = reader.next()
                if raw is None:
                    return
                lineno += 1
                if too_long:
                    yield lineno, f"line longer than {limits.max_line_bytes} bytes"
                    continue
                if not raw.strip():
                    continue
                try:
                    row = loads_strict(raw)
                except (ValueError, RecursionError) as exc:
                    yield lineno, f"bad json: {str(exc)[:200]}"
                    continue
                if not isinstance(row, dict):
                    yield lineno, "line is not a JSON object"
                    continue
                yield lineno, row

    return header, rows()
