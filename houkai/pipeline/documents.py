"""Documents into remember items: ingest's files, folders, globs, JSONL records and
``documents`` chunked into items that carry their thread (consecutive chunks of one
document are linked ``follows``)."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from ..domain.model import NothingToIngest, ValidationError

DOCUMENT_FIELDS: tuple[str, ...] = ("text", "source", "tags", "type", "importance")
#: An ingest item's thread (never a stored field): consecutive chunks of one thread are
#: linked ``follows``. A document (a text file, one of ``documents``) is one thread; a JSONL
#: record is its own, unless records name their own ``source`` (a conversation id, as the
#: field's doc says): consecutive records of one source are then one conversation.
THREAD = "_thread"


def chunk_sizes(
    max_chars: int | None,
    min_chars: int | None,
    chunking: str | None = None,
    auto_importance: bool = False,
) -> dict[str, Any]:
    """The chunk_text options (validated once, up front), plus ``auto_importance``."""
    sizes: dict[str, Any] = {}
    if max_chars is not None:
        sizes["max_chars"] = max_chars
    if min_chars is not None:
        sizes["min_chars"] = min_chars
    if chunking is not None:
        sizes["mode"] = chunking
    if sizes:
        from .chunking import chunk_text

        chunk_text("size check", **sizes)
    if auto_importance:
        sizes["auto_importance"] = True
    return sizes


def jsonl_sizes(sizes: dict[str, Any]) -> dict[str, Any]:
    """Chunk options for a JSONL line: an explicit item, so never dropped as too short."""
    return {**sizes, "min_chars": 0}


def check_document(doc: Any, where: str) -> None:
    if isinstance(doc, str):
        return
    if not isinstance(doc, Mapping):
        raise ValidationError(f"{where}: expected an object with 'text'")
    unknown = sorted(set(doc) - set(DOCUMENT_FIELDS))
    if unknown:
        raise ValidationError(
            f"{where}: unknown field(s) {unknown}; allowed: {', '.join(DOCUMENT_FIELDS)}"
        )
    if not isinstance(doc.get("text"), str):
        raise ValidationError(f"{where}: 'text' must be a string")


def record_thread(record: Mapping[str, Any], position: int) -> tuple[str, Any]:
    """The thread of one document or JSONL record: its own ``source`` when it names one
    (records of one conversation share it), else the record alone."""
    own = record.get("source")
    return ("source", own) if isinstance(own, str) and own else ("record", position)


def thread_of(item: Any) -> tuple[Any, Any]:
    """*item* without its :data:`THREAD` marker, and the marker (None when absent)."""
    if isinstance(item, Mapping) and THREAD in item:
        rest = dict(item)
        return rest, rest.pop(THREAD)
    return item, None


def document_items(
    doc: Mapping[str, Any], sizes: dict[str, Any], *, thread: Any = None
) -> Iterator[dict]:
    """One remember item per chunk of the document's text, carrying its metadata.

    With ``auto_importance`` in *sizes*, a chunk without an explicit importance
    is scored from its own text (the seed's ``ingest --auto-importance``). A
    *thread* is carried as :data:`THREAD`: chunks of one thread are linked in order.
    """
    from .chunking import chunk_text

    options = dict(sizes)
    auto = options.pop("auto_importance", False)
    meta = {k: v for k, v in doc.items() if k in DOCUMENT_FIELDS and k != "text"}
    for chunk in chunk_text(doc.get("text") or "", **options):
        item = {"text": chunk, **meta}
        if thread is not None:
            item[THREAD] = thread
        if auto and item.get("importance") is None:
            from ..engines.importance import score_importance

            item["importance"] = score_importance(
                chunk, str(item.get("type") or "episodic"), list(item.get("tags") or [])
            )
        yield item


def iter_jsonl(path: str) -> Iterator[dict]:
    """Each non-blank line of a JSONL file as a document (a bare string is its text)."""
    with open(path, encoding="utf-8-sig") as fh:
        yield from parse_jsonl(fh, path)


def expand_path(path: str, glob: str | None) -> list[str]:
    """The files behind *path*: JSONL files as-is, everything else via ``iter_documents``."""
    from .chunking import TEXT_SUFFIXES

    if not isinstance(path, str | Path) or not str(path).strip():
        raise ValidationError("path must be a non-empty file, folder or glob pattern")
    root = Path(path).expanduser()
    suffixes = (*TEXT_SUFFIXES, ".jsonl")
    if root.is_file():
        if glob is None and root.suffix.lower() not in suffixes:
            raise ValidationError(
                f"{root}: unsupported file type {root.suffix or '(none)'!r} "
                f"(supported: {', '.join(suffixes)})"
            )
        return [str(root)]
    if root.is_dir():
        if glob is not None:
            found = root.glob(glob) if "/" in glob else root.rglob(glob)
        else:
            found = (p for p in root.rglob("*") if p.suffix.lower() in suffixes)
        files = sorted(
            str(p)
            for p in found
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
        )
    elif any(ch in str(path) for ch in "*?["):
        import glob as globlib

        files = sorted(p for p in globlib.glob(str(root), recursive=True) if Path(p).is_file())
    else:
        raise NothingToIngest(f"{root}: no such file or folder")
    if not files:
        raise NothingToIngest(f"{path}: no matching .md/.txt/.jsonl files")
    return files


def defaults_of(
    type: str | None = None, tags: list[str] | None = None, importance: float | None = None
) -> dict[str, Any]:
    """The per-chunk defaults an ingest was given (a document's own fields win)."""
    extra: dict[str, Any] = {}
    if type is not None:
        extra["type"] = type
    if tags:
        extra["tags"] = list(tags)
    if importance is not None:
        extra["importance"] = importance
    return extra


def documents_items(documents: Iterable[Any], sizes: dict[str, Any]) -> Iterator[dict]:
    """The items of ``documents`` (each one thread), checked as they come."""
    for n, doc in enumerate(documents):
        check_document(doc, f"documents[{n}]")
        one = doc if isinstance(doc, Mapping) else {"text": doc}
        yield from document_items(one, sizes, thread=("document", n))


def records_items(
    records: Iterable[Mapping[str, Any]],
    extra: dict[str, Any],
    sizes: dict[str, Any],
    label: str,
    file: int = 0,
) -> Iterator[dict]:
    """The items of JSONL *records* (each its own thread, or its ``source``'s)."""
    for n, doc in enumerate(records):
        yield from document_items(
            {**extra, "source": label, **doc},
            jsonl_sizes(sizes),
            thread=(file, record_thread(doc, n)),
        )


def files_items(
    files: list[str], extra: dict[str, Any], sizes: dict[str, Any], source: str | None
) -> Iterator[dict]:
    """The items of each file, read once: ``.jsonl`` one record per line, text chunked
    whole (one thread per file). A chunk's source is *source*, else ``ingest:<file name>``."""
    for f, file in enumerate(files):
        label = source or f"ingest:{Path(file).name}"
        if file.endswith(".jsonl"):
            yield from records_items(iter_jsonl(file), extra, sizes, label, f)
        else:
            text = Path(file).read_text(encoding="utf-8-sig", errors="replace")
            yield from document_items(
                {**extra, "source": label, "text": text}, sizes, thread=(f, "file")
            )


def parse_jsonl(lines: Iterable[str], where: str = "stdin") -> Iterator[dict]:
    """Each non-blank line as a document (a bare string is its text), checked as it comes:
    a stream (stdin) is read once, line by line."""
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except ValueError as exc:
            raise ValidationError(f"{where}:{lineno}: invalid JSON: {exc}") from None
        if isinstance(doc, str):
            doc = {"text": doc}
        check_document(doc, f"{where}:{lineno}")
        yield dict(doc)


class Spool:
    """Items made once and replayed: the pipeline's submit walks its items twice (check
    every one, then write), so the first walk copies each item into a private temp file
    the second reads back. A document is read and chunked once, a stream (stdin) is
    consumed once, and memory stays bounded whatever the input's size."""

    def __init__(self, make: Callable[[], Iterator[dict]]) -> None:
        self._make = make
        self._file: IO[str] | None = None
        self._complete = False

    def __call__(self) -> Iterator[dict]:
        if self._file is None:
            return self._record()
        if not self._complete:
            raise RuntimeError("a spool replays only after its first walk finished")
        return self._replay()

    def _record(self) -> Iterator[dict]:
        # closed by close() / the with block of the pipeline's ingest_items
        self._file = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115
        for item in self._make():
            self._file.write(json.dumps(item) + "\n")
            yield item
        self._complete = True

    def _replay(self) -> Iterator[dict]:
        assert self._file is not None
        self._file.seek(0)
        for line in self._file:
            yield json.loads(line)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()

    def __enter__(self) -> Spool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
