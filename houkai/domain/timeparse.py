"""Lenient timestamp parsing for every front door (REST, MCP, CLI).

The store takes epoch seconds. People and tools prefer ISO dates or relative
spans ("since 7d"), so user-facing layers funnel values through
:func:`parse_timestamp`, which either returns a float or raises a clear
``ValueError`` (a silently dropped filter would return wrong results).
"""

from __future__ import annotations

import math
import re
import time
from datetime import UTC, datetime

from .model import ValidationError

_RELATIVE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$", re.IGNORECASE)
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}


def parse_timestamp(value: object, *, now: float | None = None) -> float | None:
    """Epoch seconds for *value*, or ``None`` for "no bound".

    Accepts ``None``/``""`` (None), an int/float (epoch, verbatim), a numeric
    string (epoch), a relative span ``"90s"``/``"30m"``/``"24h"``/``"7d"``/``"2w"``
    (*now* minus the span) or an ISO-8601 date/datetime (naive = UTC, trailing
    ``Z`` honoured). Anything else raises ``ValueError``.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValidationError(f"invalid timestamp {value!r}: booleans are not timestamps")
    if isinstance(value, int | float):
        return _finite(float(value), value)
    if not isinstance(value, str):
        raise ValidationError(f"invalid timestamp {value!r}: expected a number or a string")
    text = value.strip()
    if not text:
        return None
    match = _RELATIVE.match(text)
    if match:
        base = time.time() if now is None else now
        return base - float(match.group(1)) * _UNIT_SECONDS[match.group(2).lower()]
    try:
        return _finite(float(text), value)
    except ValueError:
        pass
    iso = text[:-1] + "+00:00" if text[-1:] in ("Z", "z") else text
    try:
        parsed = datetime.fromisoformat(iso)
    except ValueError:
        raise ValidationError(
            f"invalid timestamp {text!r}: expected epoch seconds, an ISO-8601 date/datetime "
            "or a relative span like '7d' / '24h'"
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def _finite(number: float, original: object) -> float:
    if not math.isfinite(number):
        raise ValidationError(f"invalid timestamp {original!r}: must be a finite number")
    return number


def is_relative(value: object) -> bool:
    """True when *value* is a relative span like ``"7d"`` (not an absolute time)."""
    return isinstance(value, str) and bool(_RELATIVE.match(value))


def iso_utc(ts: float) -> str:
    """An epoch as ISO-8601 UTC to the second (``2026-12-06T20:15:00Z``): how a message
    shows a time it was given in any of :func:`parse_timestamp`'s forms."""
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
