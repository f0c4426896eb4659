"""The portable ``.ahkai`` archive format (seed §19): gzipped JSONL.

Line 1 is a header object (``{"format": "ai-houkai/export", "version": 1,
"exported_at", "source": {collection, embedding_model, embedding_dim, count},
"options": {...}}``); every further line is one memory ``{"id", "text",
"meta": Memory.to_dict(), "vector"?}``. The same bytes as the seed's own
exporter, so archives move both ways between the two implementations.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from .errors import Conflict

EXPORT_FORMAT = "ai-houkai/export"
EXPORT_VERSION = 1


class ArchiveError(ValueError):
    """The file is not a readable ai-houkai archive (bad gzip, header or line)."""


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

    def to_dict(self) -> dict[str, Any]:
        return {
            "imported": self.imported,
            "skipped": self.skipped,
            "overwritten": self.overwritten,
            "renamed": self.renamed,
            "errors": [list(e) for e in self.errors],
            "vectors_regenerated": self.vectors_regenerated,
            "dry_run": self.dry_run,
        }


def dump_line(obj: dict[str, Any]) -> bytes:
    """One compact JSON line, exactly as the seed writes it."""
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode("utf-8")


COMPRESS_LEVEL = 6


class ArchiveWriter:
    """Write an archive through a temp file renamed into place on success.

    The gzip header carries no file name or time, so identical content gives
    identical bytes.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        self._raw: IO[bytes] | None = None
        self._gz: gzip.GzipFile | None = None

    def __enter__(self) -> ArchiveWriter:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._raw = open(self._tmp, "wb")  # closed in __exit__
        # Level 6 (zlib's default) instead of gzip's 9: the same size within 0.5 % on
        # vector-heavy archives and 1.6x faster (ADR 0029).
        self._gz = gzip.GzipFile(
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


def _check_header(path: Path, line: str) -> dict[str, Any]:
    if not line.strip():
        raise ArchiveError(f"{path}: empty file, not an ai-houkai export")
    try:
        header = json.loads(line)
    except ValueError as exc:
        raise ArchiveError(f"{path}: not an ai-houkai export ({exc})") from exc
    if not isinstance(header, dict) or header.get("format") != EXPORT_FORMAT:
        raise ArchiveError(f"{path}: missing or bad format header (want {EXPORT_FORMAT!r})")
    try:
        version = int(header.get("version", 0))
    except (TypeError, ValueError) as exc:
        raise ArchiveError(f"{path}: bad version {header.get('version')!r}") from exc
    if version > EXPORT_VERSION:
        raise ArchiveError(
            f"{path}: written with format version {version}, this reader knows "
            f"version {EXPORT_VERSION}"
        )
    return header


def _open_text(path: str | os.PathLike[str]) -> tuple[Path, IO[str]]:
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(2, "No such file", str(p))
    if p.is_dir():
        raise IsADirectoryError(21, "Is a directory", str(p))
    return p, gzip.open(p, "rt", encoding="utf-8")


def read_archive_header(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The header of an archive without reading its memories (``houkai info``)."""
    p, handle = _open_text(path)
    with handle:
        try:
            line = handle.readline()
        except (OSError, EOFError, UnicodeDecodeError) as exc:
            raise ArchiveError(f"{p}: not a gzipped ai-houkai export ({exc})") from exc
    return _check_header(p, line)


def iter_archive(
    path: str | os.PathLike[str],
) -> tuple[dict[str, Any], Iterator[tuple[int, dict[str, Any] | str]]]:
    """``(header, rows)``: rows stream lazily as ``(line_number, row)``.

    A line that is not a JSON object comes through as ``(line_number, error)``
    so the importer can report it and continue; a broken gzip stream raises
    :class:`ArchiveError`.
    """
    header = read_archive_header(path)

    def rows() -> Iterator[tuple[int, dict[str, Any] | str]]:
        p, handle = _open_text(path)
        with handle:
            try:
                handle.readline()
                for lineno, line in enumerate(handle, 2):
                    line = line.strip()
                    if not line:
                        continue
                    try:
                        row = json.loads(line)
                    except ValueError as exc:
                        yield lineno, f"bad json: {exc}"
                        continue
                    if not isinstance(row, dict):
                        yield lineno, "line is not a JSON object"
                        continue
                    yield lineno, row
            except (OSError, EOFError, UnicodeDecodeError) as exc:
                raise ArchiveError(f"{p}: truncated or corrupt archive ({exc})") from exc

    return header, rows()
