"""Argument coercion for the front doors, done once in the service layer.

JSON bodies, query strings and MCP tool calls carry values of any type. These
helpers accept the JSON-native type and its string spelling (``"5"``,
``"0.3"``, ``"true"``), treat ``None`` as "use the default", and raise
:class:`~houkai.domain.errors.BadRequest` naming the parameter for anything else, so a
stray string never reaches the store as a 500.
"""

from __future__ import annotations

import math
from typing import Any

from .errors import BadRequest
from .timeparse import parse_timestamp

_TRUE = ("1", "true", "yes", "on", "y", "t")
_FALSE = ("0", "false", "no", "off", "n", "f", "")


def as_int(
    value: Any,
    name: str,
    default: int | None = None,
    *,
    lo: int | None = None,
    hi: int | None = None,
) -> int | None:
    """An integer from an int, an integral float or a numeric string."""
    if value is None:
        return default
    if isinstance(value, bool):
        raise BadRequest(f"{name}: expected an integer, got {value!r}")
    if isinstance(value, int):
        result = value
    elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
        result = int(value)
    elif isinstance(value, str):
        try:
            result = int(value.strip())
        except ValueError:
            raise BadRequest(f"{name}: expected an integer, got {value!r}") from None
    else:
        raise BadRequest(f"{name}: expected an integer, got {_show(value)}")
    if lo is not None and result < lo:
        raise BadRequest(f"{name}: must be >= {lo}, got {result}")
    if hi is not None and result > hi:
        raise BadRequest(f"{name}: must be <= {hi}, got {result}")
    return result


def as_float(
    value: Any,
    name: str,
    default: float | None = None,
    *,
    lo: float | None = None,
    hi: float | None = None,
) -> float | None:
    """A finite float from a number or a numeric string."""
    if value is None:
        return default
    if isinstance(value, bool):
        raise BadRequest(f"{name}: expected a number, got {value!r}")
    if isinstance(value, int | float):
        try:
            result = float(value)
        except OverflowError:  # an int past the double range
            raise BadRequest(f"{name}: must be a finite number, got {_show(value)}") from None
    elif isinstance(value, str):
        try:
            result = float(value.strip())
        except ValueError:
            raise BadRequest(f"{name}: expected a number, got {value!r}") from None
    else:
        raise BadRequest(f"{name}: expected a number, got {_show(value)}")
    if not math.isfinite(result):
        raise BadRequest(f"{name}: must be a finite number, got {value!r}")
    if lo is not None and result < lo:
        raise BadRequest(f"{name}: must be >= {lo:g}, got {result:g}")
    if hi is not None and result > hi:
        raise BadRequest(f"{name}: must be <= {hi:g}, got {result:g}")
    return result


def as_bool(value: Any, name: str, default: bool = False) -> bool:
    """A bool from a bool, 0/1 or a string like ``"true"``/``"false"`` (``"false"`` is false)."""
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    raise BadRequest(f"{name}: expected a boolean, got {_show(value)}")


def as_str(
    value: Any,
    name: str,
    default: str | None = None,
    *,
    required: bool = False,
    max_len: int | None = None,
) -> str | None:
    """A string (numbers are not silently stringified: ids and enums are strings)."""
    if value is None or (required and value == ""):
        if required:
            raise BadRequest(f"missing required field: {name}")
        return default
    if not isinstance(value, str):
        raise BadRequest(f"{name}: expected a string, got {_show(value)}")
    if max_len is not None and len(value) > max_len:
        raise BadRequest(f"{name}: longer than {max_len} characters")
    return value


def as_str_list(value: Any, name: str, *, allow_single: bool = True) -> list[str] | None:
    """A list of strings; a lone string becomes a one-element list (never split into chars)."""
    if value is None:
        return None
    if isinstance(value, str):
        if allow_single:
            return [value]
        raise BadRequest(f"{name}: expected a list of strings, got a single string")
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return list(value)
    raise BadRequest(f"{name}: expected a list of strings, got {_show(value)}")


def as_timestamp(value: Any, name: str) -> float | None:
    """Epoch seconds from epoch / ISO-8601 / relative span (``"7d"`` = 7 days ago)."""
    try:
        return parse_timestamp(value)
    except ValueError as exc:
        raise BadRequest(f"{name}: {exc}") from None


def _show(value: Any) -> str:
    text = repr(value)
    kind = type(value).__name__
    return f"{kind} {text[:60]}{'…' if len(text) > 60 else ''}"
