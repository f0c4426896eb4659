"""One archive row back into a memory: every check a stored memory must pass, before any write."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..domain.model import (
    LINK_RELS,
    MAX_ID_CHARS,
    MEMORY_TYPES,
    Memory,
    ValidationError,
    check_memory,
    check_unicode,
    content_hash,
    validate_choice,
    validate_importance,
    validate_polarity,
    validate_source,
    validate_tags,
    validate_text,
)
from . import codec
from .archive import BASE64_ENCODINGS, decode_base64_vector


def unicode_ok(text: str) -> bool:
    """Can *text* be echoed in a summary (no lone surrogate)?"""
    try:
        check_unicode(text)
    except ValidationError:
        return False
    return True


def row_memory(
    row: dict[str, Any], collection: str, dim: int | None, encoding: str = "json"
) -> tuple[Memory, np.ndarray | None]:
    """Rebuild and validate one archive row: ``(memory, vector or None)``.

    Every check a stored memory must pass runs here, before any write: the
    vocabularies, text and tags, every number finite and in range
    (:func:`check_memory`) and, when *dim* is given and the row carries a
    vector, its dimension and finiteness. ValueError says what is wrong.
    """
    check_unicode(row)  # a lone surrogate would fail the write pass, half-way through
    meta = row.get("meta") or {}
    if not isinstance(meta, dict):
        raise ValidationError("'meta' is not an object")
    rid = row.get("id") or meta.get("id")
    if not isinstance(rid, str) or not rid.strip():
        raise ValidationError("row has no id")
    if len(rid.strip()) > MAX_ID_CHARS:
        raise ValidationError(f"id longer than {MAX_ID_CHARS} characters")
    links = meta.get("links") or []
    if not isinstance(links, list) or not all(
        isinstance(x, dict) and isinstance(x.get("to"), str) and x.get("rel") in LINK_RELS
        for x in links
    ):
        raise ValidationError(
            f"links must be a list of {{to, rel}} with rel in {', '.join(LINK_RELS)}"
        )
    for name in ("superseded_by", "collection", "state", "error", "content_hash"):
        if meta.get(name) is not None and not isinstance(meta.get(name), str):
            raise ValidationError(f"{name} must be a string")
    try:
        memory = Memory.from_dict(
            {**meta, "id": rid.strip(), "text": row.get("text") or meta.get("text") or ""}
        )
    except (TypeError, ValueError, KeyError, OverflowError) as exc:
        raise ValidationError(f"bad field: {exc}") from None
    memory.text = validate_text(row.get("text") or meta.get("text"))
    validate_choice(memory.type, MEMORY_TYPES, "type")
    memory.tags = validate_tags(meta.get("tags") or [])
    memory.source = validate_source(meta.get("source"))
    memory.importance = validate_importance(memory.importance)
    memory.polarity = validate_polarity(meta.get("polarity") or 0)
    memory.collection = collection
    memory.state, memory.error = "ready", ""
    memory.content_hash = content_hash(memory.text)
    check_memory(memory)
    vector = None
    if dim is not None and row.get("vector") is not None:
        value = row["vector"]
        if encoding in BASE64_ENCODINGS:
            try:
                value = decode_base64_vector(value, encoding, dim)
            except ValueError as exc:
                raise ValidationError(str(exc)) from None
        vector = codec.check_vectors(value, dim)[0]
    return memory, vector
