"""Strict reading of an LLM's reply: the JSON the prompt asked for, or MalformedReply.

Nothing here guesses. A reply that is not JSON, lacks a field, has a wrong type, cites
a message id that was not in the batch or names a stored memory that was not offered
is malformed: the extractor asks again a bounded number of times and then fails
explicitly, so a confused model never invents a memory or supersedes the wrong one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, cast

from ..base import ACTIONS, CANDIDATE_KINDS, Action, Candidate, Decision
from .errors import MalformedReply

MAX_TEXT_CHARS = 2000  # one extracted memory; longer is a model rambling, not a memory
MAX_TAGS = 16
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)
#: the houkai memory type each candidate kind is stored as
KIND_TYPES = {"fact": "semantic", "preference": "semantic", "decision": "semantic"}
KIND_TYPES["event"] = "episodic"


def load_json(raw: str | Mapping[str, Any] | None) -> dict[str, Any]:
    """The JSON object of a reply (a string, or an already-parsed tool input)."""
    if isinstance(raw, Mapping):
        return dict(raw)
    if not isinstance(raw, str) or not raw.strip():
        raise MalformedReply("the reply is empty")
    text = raw.strip()
    fenced = _FENCE.match(text)  # a ```json fence around valid JSON is still that JSON
    if fenced:
        text = fenced.group(1)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MalformedReply(f"the reply is not JSON: {exc.msg} at char {exc.pos}") from None
    if not isinstance(value, dict):
        raise MalformedReply(f"the reply is JSON {type(value).__name__}, not an object")
    return value


def _string(item: Mapping[str, Any], key: str, where: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value.strip():
        raise MalformedReply(f"{where}: {key} must be a non-empty string, got {value!r}")
    return value.strip()


def _event_ts(value: Any, where: str) -> float | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise MalformedReply(f"{where}: event_date must be YYYY-MM-DD or null, got {value!r}")
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise MalformedReply(f"{where}: event_date {value!r} is not an ISO date") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _candidate(item: Any, where: str, message_ids: Collection[str]) -> Candidate:
    if not isinstance(item, Mapping):
        raise MalformedReply(f"{where} is not an object")
    text = _string(item, "text", where)
    if len(text) > MAX_TEXT_CHARS:
        raise MalformedReply(f"{where}: text is longer than {MAX_TEXT_CHARS} characters")
    kind = item.get("kind")
    if kind not in CANDIDATE_KINDS:
        raise MalformedReply(f"{where}: kind must be one of {', '.join(CANDIDATE_KINDS)}")
    ids = item.get("message_ids")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
        raise MalformedReply(f"{where}: message_ids must be a non-empty list of ids")
    unknown = [i for i in ids if i not in message_ids]
    if unknown:
        raise MalformedReply(f"{where}: message_ids {unknown} are not in this batch")
    importance = item.get("importance")
    if importance is not None:
        if isinstance(importance, bool) or not isinstance(importance, int | float):
            raise MalformedReply(f"{where}: importance must be a number or null")
        if not 0.0 <= float(importance) <= 1.0:
            raise MalformedReply(f"{where}: importance {importance} is outside 0..1")
        importance = float(importance)
    tags = item.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise MalformedReply(f"{where}: tags must be a list of strings")
    polarity = item.get("polarity", 0)
    if polarity is None:
        polarity = 0
    if isinstance(polarity, bool) or polarity not in (-1, 0, 1):
        raise MalformedReply(f"{where}: polarity must be -1, 0 or 1")
    return Candidate(
        text=text,
        kind=str(kind),
        type=KIND_TYPES[str(kind)],
        importance=importance,
        tags=tuple(dict.fromkeys(t.strip() for t in tags if t.strip()))[:MAX_TAGS],
        message_ids=tuple(dict.fromkeys(ids)),
        event_ts=_event_ts(item.get("event_date"), where),
        polarity=int(polarity),
    )


def parse_candidates(
    raw: str | Mapping[str, Any] | None, message_ids: Sequence[str]
) -> list[Candidate]:
    """The candidates of an extraction reply, in the order given; provenance must cite
    only *message_ids*."""
    reply = load_json(raw)
    items = reply.get("memories")
    if not isinstance(items, list):
        raise MalformedReply("the reply has no 'memories' list")
    known = set(message_ids)
    return [_candidate(item, f"memories[{i}]", known) for i, item in enumerate(items)]


def parse_decision(
    raw: str | Mapping[str, Any] | None, candidate: Candidate, aliases: Mapping[str, str]
) -> Decision:
    """The decision of a reconciliation reply; *aliases* maps ``m1`` … to stored ids
    (a reply may also give the stored id itself)."""
    reply = load_json(raw)
    action = reply.get("action")
    if isinstance(action, str):
        action = action.strip().upper()
    if action not in ACTIONS:
        raise MalformedReply(f"action must be one of {', '.join(ACTIONS)}, got {action!r}")
    reason = reply.get("reason") or ""
    if not isinstance(reason, str):
        raise MalformedReply("reason must be a string")
    raw_target = reply.get("target_id")
    target: str | None = None
    if raw_target not in (None, ""):
        if not isinstance(raw_target, str):
            raise MalformedReply(f"target_id must be a string or null, got {raw_target!r}")
        name = raw_target.strip()
        ids = set(aliases.values())
        if name in aliases:
            target = aliases[name]
        elif name in ids:
            target = name
        elif action != "ADD":
            offered = ", ".join(aliases) or "none"
            raise MalformedReply(f"target_id {name!r} is not a stored memory offered ({offered})")
    if action == "UPDATE" and target is None:
        raise MalformedReply("UPDATE needs the target_id of the memory it replaces")
    if action == "ADD":
        target = None
    return Decision(
        action=cast(Action, action), candidate=candidate, target_id=target, reason=reason.strip()
    )
