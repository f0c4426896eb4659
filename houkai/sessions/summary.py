"""The running summary of a session: an extractive line per message that left the window.

No model: each message that falls out of the window keeps its most informative
sentence (the first one that is not a greeting, thanks or filler), prefixed by who
said it; chit-chat leaves nothing. The summary keeps its newest lines within a
character budget, so a long conversation costs a bounded prompt.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..extraction.rules import is_filler, sentences

LINE_CHARS = 200
_SPEAKER = {"user": "User", "assistant": "Assistant", "system": "System", "tool": "Tool"}


def summary_line(message: Mapping[str, Any]) -> str:
    """One line for a message, or "" when it says nothing worth keeping."""
    role = str(message.get("role", "user"))
    if role == "tool":
        return ""
    for sentence in sentences(str(message.get("content", ""))):
        if is_filler(sentence):
            continue
        text = re.sub(r"\s+", " ", sentence).strip()
        if len(text) > LINE_CHARS:
            text = text[: LINE_CHARS - 1].rstrip() + "…"
        name = message.get("name")
        who = _SPEAKER.get(role, role.title()) + (f" ({name})" if name else "")
        return f"{who}: {text}"
    return ""


def fold(summary: str, gone: Iterable[Mapping[str, Any]], limit: int) -> str:
    """*summary* with a line for each message in *gone*, cut to its newest *limit* chars."""
    lines = [line for line in summary.splitlines() if line.strip()]
    lines += [line for line in (summary_line(m) for m in gone) if line]
    if limit <= 0:
        return ""
    while lines and sum(len(line) + 1 for line in lines) > limit:
        lines.pop(0)
    return "\n".join(lines)
