"""A session read back as a ready prompt context, within one token budget.

The newest messages of the window come first (the conversation must read on), then the
running summary, then the long-term memories relevant to the latest user turn (or the
caller's *query*), packed by ``recall_pack`` into what is left. Every part keeps at
least a floor of the budget, so a long window never starves the memories.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..domain.model import PackResult
from ..domain.text import estimate_tokens

#: share of the budget the memories get at least, whatever the window's length
MEMORY_FLOOR = 0.25
MEMORY_HEADER = "Relevant long-term memories:"


@dataclass
class SessionContext:
    """What ``store.session(id)`` returns: the window, the summary, the memories and the
    prompt text built from them."""

    session_id: str
    user_id: str | None
    agent_id: str | None
    window: list[dict[str, Any]]
    summary: str
    memories: PackResult | None
    query: str
    text: str
    used_tokens: int
    budget: int
    pending: int = 0
    info: dict[str, Any] = field(default_factory=dict)

    def to_dict(self, memory_dict: Any) -> dict[str, Any]:
        """The JSON shape every door answers (*memory_dict*: the service's serializer)."""
        pack = self.memories
        return {
            "session_id": self.session_id,
            "user_id": self.user_id,
            "agent_id": self.agent_id,
            "summary": self.summary,
            "window": self.window,
            "query": self.query,
            "memories": [
                {**memory_dict(p.memory), "score": round(float(p.score), 4), "tokens": p.tokens}
                for p in (pack.items if pack else [])
            ],
            "text": self.text,
            "used_tokens": self.used_tokens,
            "budget": self.budget,
            "pending": self.pending,
            **self.info,
        }


def message_line(message: dict[str, Any]) -> str:
    name = f" ({message['name']})" if message.get("name") else ""
    return f"{message['role']}{name}: {message['content']}"


def latest_user_turn(window: list[dict[str, Any]]) -> str:
    return next((m["content"] for m in reversed(window) if m["role"] == "user"), "")


def fit_window(window: list[dict[str, Any]], budget: int) -> tuple[list[dict[str, Any]], int]:
    """The newest messages that fit *budget* tokens (at least the last one), oldest first."""
    kept: list[dict[str, Any]] = []
    used = 0
    for message in reversed(window):
        cost = estimate_tokens(message_line(message))
        if kept and used + cost > budget:
            break
        kept.append(message)
        used += cost
    kept.reverse()
    return kept, used


def render(summary: str, pack: PackResult | None, window: list[dict[str, Any]]) -> str:
    parts = []
    if summary:
        parts.append("Summary of the conversation so far:\n" + summary)
    if pack is not None and pack.items:
        parts.append(pack.text)
    if window:
        parts.append("Recent messages:\n" + "\n".join(message_line(m) for m in window))
    return "\n\n".join(parts)
