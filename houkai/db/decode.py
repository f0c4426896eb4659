"""Decoding Redis replies: hash fields arrive as bytes (or str, or None when unset)."""

from __future__ import annotations


def as_text(raw: bytes | str | None, default: str = "") -> str:
    """A reply value as text; *default* when the field is unset."""
    if raw is None:
        return default
    return raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)


def as_float(raw: bytes | str | None, default: float = 0.0) -> float:
    """A reply value as a float; *default* when unset, empty or not a number."""
    if raw in (None, b"", ""):
        return default
    try:
        return float(as_text(raw))
    except ValueError:
        return default


def as_int(raw: bytes | str | None, default: int = 0) -> int:
    """A reply value as an int (``"3.0"`` reads as 3); *default* when unset or not a number."""
    if raw in (None, b"", ""):
        return default
    try:
        return int(float(as_text(raw)))
    except (ValueError, OverflowError):
        return default
