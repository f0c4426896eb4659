"""Chunking and document discovery for bulk ingestion.

``chunk_text`` has two modes. ``mode="paragraph"`` (the default) is the seed's:

1. Split on blank lines into paragraphs; one memory per paragraph.
2. A markdown heading block is glued to the paragraph that follows it.
3. A paragraph longer than ``max_chars`` is re-split on sentence boundaries and
   re-packed greedily up to ``max_chars``; a sentence still too long that spans lines
   (a log pasted without full stops) is split into its lines, and a single overlong
   line stays whole.
4. Chunks shorter than ``min_chars`` are dropped when they hold fewer than two words
   (separators, stray bullets, a lone "ok"); "Door code: 4711" is kept.

``mode="pack"`` is houkai's markdown-aware packer, for fewer, fuller memories
that still make sense on their own when recalled later:

1. The text is parsed into blocks: fenced code blocks (``` or ~~~) are atomic,
   everything else splits on blank lines; a heading line always starts a new
   section, even without a blank line before it.
2. A heading stays with its body: each section's chunks start with the
   section heading (repeated on continuation chunks, so every chunk carries its
   context) and a section never shares a chunk with the next heading.
3. Blocks are packed greedily up to ``max_chars``. A paragraph that alone is too
   long is split on sentence boundaries (then on whitespace for a run-on
   sentence); a fenced block is only split — on line boundaries, each piece
   re-fenced — when it alone exceeds ``max_chars``.
4. Chunks shorter than ``min_chars`` are merged into a neighbour instead of
   being dropped: a short fragment is content, not noise. Blocks without a
   single word character (``---`` rules, stray bullets) are dropped.

``iter_documents`` finds the ``.md`` / ``.markdown`` / ``.txt`` files under a
path. Both are deterministic and dependency-free; embedding and storage happen
in the pipeline.
"""

from __future__ import annotations

import glob as globlib
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..domain.model import NothingToIngest, ValidationError

log = logging.getLogger(__name__)

DEFAULT_MAX_CHARS = 500
DEFAULT_MIN_CHARS = 30
CHUNK_MODES: tuple[str, ...] = ("paragraph", "pack")
DEFAULT_CHUNK_MODE = "paragraph"
TEXT_SUFFIXES: tuple[str, ...] = (".md", ".markdown", ".txt")

_HEADING_RE = re.compile(r"^ {0,3}#{1,6}(?:\s|$)")
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?。！？])\s+")
_WORD_RE = re.compile(r"\w")


@dataclass
class _Block:
    text: str
    kind: str  # "heading" | "para" | "code"


# --------------------------------------------------------------------- parsing
def _blocks(text: str) -> list[_Block]:
    """Split markdown into headings, paragraphs and fenced code blocks."""
    blocks: list[_Block] = []
    para: list[str] = []

    def flush() -> None:
        if para:
            body = "\n".join(para).strip()
            if body:
                blocks.append(_Block(body, "para"))
            para.clear()

    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE_RE.match(line)
        if fence:
            flush()
            marker = fence.group(1)
            closing = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}\s*$")
            body = [line]
            i += 1
            while i < len(lines):
                body.append(lines[i])
                i += 1
                if closing.match(body[-1]):
                    break
            blocks.append(_Block("\n".join(body).rstrip(), "code"))
            continue
        if _HEADING_RE.match(line):
            flush()
            blocks.append(_Block(line.strip(), "heading"))
        elif not line.strip():
            flush()
        else:
            para.append(line)
        i += 1
    flush()
    return blocks


def _sections(blocks: list[_Block]) -> list[tuple[str, list[_Block]]]:
    """Group blocks under their heading; consecutive headings are joined."""
    sections: list[tuple[str, list[_Block]]] = []
    heading = ""
    body: list[_Block] = []
    for block in blocks:
        if block.kind == "heading":
            if body or not heading:
                if body or heading:
                    sections.append((heading, body))
                heading, body = block.text, []
            else:  # a heading directly under a heading: keep both as context
                heading = f"{heading}\n{block.text}"
            continue
        body.append(block)
    if body or heading:
        sections.append((heading, body))
    return sections


# --------------------------------------------------------------------- splitting
def _hard_split(text: str, limit: int) -> list[str]:
    """Split on whitespace into pieces of at most *limit* chars (cut words only if forced)."""
    pieces: list[str] = []
    current = ""
    for word in text.split():
        while len(word) > limit:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(word[:limit])
            word = word[limit:]
        candidate = f"{current} {word}" if current else word
        if len(candidate) <= limit:
            current = candidate
        else:
            pieces.append(current)
            current = word
    if current:
        pieces.append(current)
    return pieces


def _split_paragraph(text: str, limit: int) -> list[str]:
    """Pack sentences greedily into pieces of at most *limit* characters."""
    pieces: list[str] = []
    current = ""
    for sentence in _SENTENCE_END_RE.split(text):
        sentence = sentence.strip()
        if not sentence:
            continue
        parts = [sentence] if len(sentence) <= limit else _hard_split(sentence, limit)
        for part in parts:
            candidate = f"{current} {part}" if current else part
            if len(candidate) <= limit:
                current = candidate
            else:
                if current:
                    pieces.append(current)
                current = part
    if current:
        pieces.append(current)
    return pieces


def _split_code(text: str, limit: int) -> list[str]:
    """Split an oversized fenced block on line boundaries, re-fencing each piece."""
    lines = text.split("\n")
    opener = lines[0]
    marker = _FENCE_RE.match(opener).group(1)  # type: ignore[union-attr]
    closer = marker
    inner = lines[1:]
    if inner and inner[-1].strip().startswith(marker[0] * len(marker)):
        inner = inner[:-1]
    overhead = len(opener) + len(closer) + 2
    room = max(1, limit - overhead)
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    for line in inner:
        for part in [line] if len(line) <= room else _hard_split(line, room) or [""]:
            extra = len(part) + (1 if current else 0)
            if current and size + extra > room:
                pieces.append("\n".join([opener, *current, closer]))
                current, size = [], 0
                extra = len(part)
            current.append(part)
            size += extra
    if current or not pieces:
        pieces.append("\n".join([opener, *current, closer]))
    return pieces


def _units(block: _Block, limit: int) -> list[str]:
    """A block as pieces that each fit *limit* (a whole block when it fits)."""
    if len(block.text) <= limit:
        return [block.text]
    if block.kind == "code":
        return _split_code(block.text, limit)
    return _split_paragraph(block.text, limit)


# --------------------------------------------------------------------- packing
def _pack_section(heading: str, body: list[_Block], max_chars: int) -> list[str]:
    if not body:
        return [heading] if heading else []
    prefix = f"{heading}\n" if heading else ""
    # A heading longer than half the budget is not repeated; it still opens the section.
    repeat = len(prefix) <= max_chars // 2
    room = max_chars - len(prefix) if repeat else max_chars
    chunks: list[str] = []
    current = ""
    separator = "\n\n"
    for block in body:
        for unit in _units(block, room):
            candidate = f"{current}{separator}{unit}" if current else unit
            if len(candidate) <= room:
                current = candidate
            else:
                if current:
                    chunks.append(current)
                current = unit
    if current:
        chunks.append(current)
    if not prefix:
        return chunks
    if repeat:
        return [prefix + chunk for chunk in chunks]
    return [prefix + chunks[0], *chunks[1:]] if chunks else [heading]


def _merge_small(chunks: list[str], min_chars: int, max_chars: int) -> list[str]:
    """Fold chunks under *min_chars* into a neighbour; never drop their text."""
    if min_chars <= 0 or len(chunks) < 2:
        return chunks
    out: list[str] = []
    for chunk in chunks:
        small = out and (len(chunk) < min_chars or len(out[-1]) < min_chars)
        if small and len(out[-1]) + 2 + len(chunk) <= max_chars:
            out[-1] = f"{out[-1]}\n\n{chunk}"
        else:
            out.append(chunk)
    return out


def _check_int(value: object, name: str, lo: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < lo:
        raise ValidationError(f"{name} must be an integer >= {lo} — got {value!r}")
    return value


def _paragraph_chunks(text: str, max_chars: int, min_chars: int) -> list[str]:
    """The seed's chunking: a chunk per paragraph (heading glued on), lone words dropped."""
    blocks = [b.strip() for b in re.split(r"\n\s*\n", text)]
    merged: list[str] = []
    heading: str | None = None
    for block in filter(None, blocks):
        if _HEADING_RE.match(block) and "\n" not in block:
            heading = f"{heading}\n{block}" if heading else block
            continue
        if heading:
            block, heading = f"{heading}\n{block}", None
        merged.append(block)
    if heading:
        merged.append(heading)
    chunks: list[str] = []
    for block in merged:
        if len(block) <= max_chars:
            chunks.append(block)
            continue
        current = ""
        for sentence, joiner in _pieces(block, max_chars):
            sentence = sentence.strip()
            if not sentence:
                continue
            candidate = f"{current}{joiner}{sentence}" if current else sentence
            if len(candidate) <= max_chars or not current:
                current = candidate
            else:
                chunks.append(current)
                current = sentence
        if current:
            chunks.append(current)
    return [c for c in chunks if len(c) >= min_chars or _words_in(c) >= KEPT_WORDS]


#: A paragraph shorter than ``min_chars`` is still a memory when it holds this many words
#: ("Door code: 4711"): only a lone word ("ok") or a rule ("---") is dropped.
KEPT_WORDS = 2
_WORDS_RE = re.compile(r"[^\W_]*[^\W\d_][^\W_]*")  # with a letter: "1. x" is one word


def _words_in(text: str) -> int:
    return len(_WORDS_RE.findall(text))


def _pieces(block: str, max_chars: int) -> list[tuple[str, str]]:
    """A long paragraph's sentences, each with what joins it to the piece before; a
    sentence still over *max_chars* that spans lines (a log pasted without full stops)
    is split into its lines, joined again by line breaks. A fenced code block or a table
    is not split at its lines (``pack`` mode re-fences code it splits)."""
    if _FENCE_RE.match(block) or block.lstrip().startswith("|"):
        return [(sentence, " ") for sentence in _SENTENCE_END_RE.split(block)]  # as the seed
    out: list[tuple[str, str]] = []
    for sentence in _SENTENCE_END_RE.split(block):
        if len(sentence) > max_chars and "\n" in sentence:
            out.extend((line, "\n") for line in sentence.split("\n"))
        else:
            out.append((sentence, " "))
    return out


def chunk_text(
    text: str,
    max_chars: int = DEFAULT_MAX_CHARS,
    min_chars: int = DEFAULT_MIN_CHARS,
    *,
    mode: str = DEFAULT_CHUNK_MODE,
) -> list[str]:
    """Split *text* into memory-sized chunks (see module docstring). ``[]`` for blank input.

    ``mode="paragraph"`` (the seed's): one chunk per paragraph, chunks shorter
    than ``min_chars`` dropped unless they hold two words or more, a single
    sentence (or line) longer than ``max_chars`` kept whole. ``mode="pack"``:
    paragraphs packed up to ``max_chars``, short chunks merged into a neighbour;
    every chunk is at most ``max_chars`` long (only a section heading longer
    than half of ``max_chars`` can push its section's first chunk over).
    """
    if not isinstance(text, str):
        raise ValidationError(f"text must be a string — got {text.__class__.__name__}")
    if mode not in CHUNK_MODES:
        raise ValidationError(f"mode must be one of {', '.join(CHUNK_MODES)} — got {mode!r}")
    max_chars = _check_int(max_chars, "max_chars", 20)
    min_chars = _check_int(min_chars, "min_chars", 0)
    if min_chars > max_chars:
        raise ValidationError(f"min_chars ({min_chars}) must not exceed max_chars ({max_chars})")
    normalised = text.replace("\r\n", "\n").replace("\r", "\n")
    if mode == "paragraph":
        return _paragraph_chunks(normalised, max_chars, min_chars)
    blocks = [b for b in _blocks(normalised) if _WORD_RE.search(b.text)]
    chunks: list[str] = []
    for heading, body in _sections(blocks):
        chunks.extend(_pack_section(heading, body, max_chars))
    return _merge_small([c.strip() for c in chunks if c.strip()], min_chars, max_chars)


# --------------------------------------------------------------------- discovery
def _is_hidden(path: Path, root: Path) -> bool:
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        parts = path.parts
    return any(part.startswith(".") for part in parts)


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8-sig", errors="replace")


def iter_documents(path: str | Path, glob: str | None = None) -> Iterator[tuple[str, str]]:
    """Yield ``(source_path, text)`` for each text document at *path*.

    *path* may be a file, a folder (searched recursively, hidden entries
    skipped) or a glob pattern. In a folder, *glob* (e.g. ``"**/*.md"``) selects
    the files; without it every ``.md`` / ``.markdown`` / ``.txt`` file is read.
    Files come in sorted order, so two runs ingest in the same order.
    """
    if not isinstance(path, str | Path) or not str(path).strip():
        raise ValidationError("path must be a non-empty file, folder or glob pattern")
    if glob is not None and (not isinstance(glob, str) or not glob.strip()):
        raise ValidationError(f"glob must be a non-empty pattern — got {glob!r}")
    root = Path(path).expanduser()
    if root.is_file():
        if glob is None and root.suffix.lower() not in TEXT_SUFFIXES:
            raise ValidationError(
                f"{root}: unsupported file type {root.suffix or '(none)'!r} "
                f"(supported: {', '.join(TEXT_SUFFIXES)})"
            )
        yield str(root), _read(root)
        return
    if root.is_dir():
        if glob is not None:
            # A bare name pattern ("*.md") searches the whole tree; one with a
            # path ("docs/*.md", "**/x.txt") is taken relative to the folder.
            candidates = root.glob(glob) if "/" in glob else root.rglob(glob)
        else:
            candidates = (p for p in root.rglob("*") if p.suffix.lower() in TEXT_SUFFIXES)
        files = sorted(p for p in candidates if p.is_file() and not _is_hidden(p, root))
    elif any(ch in str(path) for ch in "*?["):
        files = sorted(
            p
            for p in map(Path, globlib.glob(str(root), recursive=True))
            if p.is_file() and (glob is None or p.match(glob))
        )
    else:
        raise NothingToIngest(f"{root}: no such file or folder")
    for file in files:
        try:
            yield str(file), _read(file)
        except OSError as exc:
            log.warning("skipping %s: %s", file, exc)


__all__ = [
    "CHUNK_MODES",
    "DEFAULT_MAX_CHARS",
    "DEFAULT_MIN_CHARS",
    "chunk_text",
    "iter_documents",
]
