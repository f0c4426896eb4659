"""The two prompts an LLM extractor sends, and the JSON shapes its replies must have.

One module so the wording and the schemas the parser checks stay together:

- extraction: the new messages of a session (each with its id) and the running summary
  in; a list of memories worth keeping out — facts, preferences, decisions and dated
  events *the user* stated, each citing the ids of the messages it came from;
- reconciliation: one candidate and its nearest stored memories (short aliases ``m1``,
  ``m2`` … stand for their ids, which models copy more reliably than long ids) in;
  ``ADD``, ``UPDATE`` with the alias of the memory it replaces, or ``NOOP`` out.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from ..base import ACTIONS, CANDIDATE_KINDS, Candidate, ChatMessage, Neighbour

EXTRACT_TOOL = "record_memories"
DECIDE_TOOL = "reconcile_memory"
MAX_MESSAGE_CHARS = 4000  # one message's text in the prompt; longer ones are cut
BATCH_CHARS = 24_000  # message text per extraction call (~6k tokens): long sessions go in parts

EXTRACT_SYSTEM = """You extract long-term memories from a conversation for an
assistant's memory store. Keep only what is worth remembering in later conversations
and was stated or confirmed by the USER: facts about the user and their world,
preferences, decisions, and dated events. Ignore small talk, questions, the assistant's
suggestions the user did not accept, and anything only the assistant said.
Write each memory as one short, self-contained sentence in the third person ("The user
prefers tea."), resolving pronouns and relative dates against the conversation.
kind is one of: fact, preference, decision, event. For an event with a known date give
event_date as YYYY-MM-DD (else null). polarity is -1 when the memory negates or retracts
something ("no longer", "stopped"), 1 when it affirms a change, else 0. importance is
0..1 (null if unsure). message_ids must list the ids (exactly as given) of the messages
the memory comes from. Return an empty list when nothing is worth keeping."""

DECIDE_SYSTEM = """You keep an assistant's long-term memory store consistent.
You get one NEW memory and the stored memories most similar to it, each with an alias
(m1, m2, ...). Answer with exactly one action:
- ADD: the new memory is new information (no stored memory says the same or is replaced by it);
- UPDATE: the new memory corrects, contradicts or refines one stored memory, which it
  replaces; target_id is that memory's alias;
- NOOP: a stored memory already says the same; target_id is that memory's alias.
Give a short reason."""

_KIND_SCHEMA = {"type": "string", "enum": list(CANDIDATE_KINDS)}

EXTRACT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "memories": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "kind": _KIND_SCHEMA,
                    "message_ids": {"type": "array", "items": {"type": "string"}},
                    "importance": {"type": ["number", "null"]},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "event_date": {"type": ["string", "null"]},
                    "polarity": {"type": "integer", "enum": [-1, 0, 1]},
                },
                "required": [
                    "text",
                    "kind",
                    "message_ids",
                    "importance",
                    "tags",
                    "event_date",
                    "polarity",
                ],
                "additionalProperties": False,
            },
        }
    },
    "required": ["memories"],
    "additionalProperties": False,
}

DECIDE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": list(ACTIONS)},
        "target_id": {"type": ["string", "null"]},
        "reason": {"type": "string"},
    },
    "required": ["action", "target_id", "reason"],
    "additionalProperties": False,
}


def _clip(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + " …"


def extraction_prompt(messages: Sequence[ChatMessage], summary: str = "") -> str:
    """The user turn of the extraction call: the summary, then one JSON line per message."""
    lines = []
    if summary.strip():
        lines += [
            "Summary of the conversation so far (context only, not new):",
            summary.strip(),
            "",
        ]
    lines.append("New messages (one JSON object per line):")
    for m in messages:
        row: dict[str, Any] = {"id": m.id, "role": m.role}
        if m.name:
            row["name"] = m.name
        if m.ts is not None:  # a date the model can resolve "yesterday" against
            row["time"] = datetime.fromtimestamp(m.ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        row["content"] = _clip(m.content)
        lines.append(json.dumps(row, ensure_ascii=False))
    lines += ["", f"Answer with the memories worth keeping ({EXTRACT_TOOL})."]
    return "\n".join(lines)


def batches(messages: Sequence[ChatMessage], limit: int = BATCH_CHARS) -> list[list[ChatMessage]]:
    """*messages* in order, cut into parts of at most *limit* characters of (clipped)
    text; a part always holds at least one message."""
    parts: list[list[ChatMessage]] = []
    size = limit + 1
    for m in messages:
        length = min(len(m.content), MAX_MESSAGE_CHARS)
        if size + length > limit and (not parts or parts[-1]):
            parts.append([])
            size = 0
        parts[-1].append(m)
        size += length
    return parts


def neighbour_aliases(neighbours: Sequence[Neighbour]) -> dict[str, str]:
    """alias (``m1`` …) → stored memory id, in the order the prompt lists them."""
    return {f"m{i}": n.id for i, n in enumerate(neighbours, 1)}


def decision_prompt(candidate: Candidate, neighbours: Sequence[Neighbour]) -> str:
    """The user turn of the reconciliation call."""
    lines = [f"NEW memory ({candidate.kind}): {_clip(candidate.text)}", "", "Stored memories:"]
    for alias, n in zip(neighbour_aliases(neighbours), neighbours, strict=True):
        lines.append(f"{alias}: {_clip(n.text)} (similarity {n.similarity:.2f})")
    lines += ["", f"Answer with one action ({DECIDE_TOOL})."]
    return "\n".join(lines)
