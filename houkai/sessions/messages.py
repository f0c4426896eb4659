"""Incoming chat messages: checked once, for every door, and their stored JSON form.

A message is ``{"role", "content"}`` with an optional ``id``, ``ts`` (epoch seconds or
ISO-8601) and ``name``. A message without an id gets one, so adding the same message
twice is idempotent only when the caller names it (a chat export imported twice is:
the CLI derives ids from the file's lines).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from ..domain.model import (
    MAX_ID_CHARS,
    MAX_TEXT_CHARS,
    MAX_TIMESTAMP,
    ValidationError,
    check_unicode,
)
from ..domain.timeparse import parse_timestamp
from ..extraction.base import ROLES, ChatMessage

#: most messages one call may add (a long chat export goes in several calls)
MAX_MESSAGES = 1000
MESSAGE_FIELDS: tuple[str, ...] = ("id", "role", "content", "ts", "name")
#: roles other tools write that mean one of ours
ROLE_ALIASES: dict[str, str] = {"human": "user", "ai": "assistant", "bot": "assistant"}


def _text(value: object, name: str, limit: int) -> str:
    if not isinstance(value, str):
        raise ValidationError(f"{name} must be a string — got {type(value).__name__}")
    check_unicode(value, name)
    if len(value) > limit:
        raise ValidationError(f"{name} is {len(value)} characters; the limit is {limit}")
    return value


def check_session_id(session_id: object) -> str:
    """A session id: 1-256 characters, not blank."""
    text = _text(session_id, "session_id", MAX_ID_CHARS).strip()
    if not text:
        raise ValidationError("session_id must be a non-empty string")
    return text


def coerce_message(raw: object, where: str = "message") -> ChatMessage:
    """One message from a mapping (or a :class:`ChatMessage`), checked."""
    if isinstance(raw, ChatMessage):
        raw = {f: getattr(raw, f) for f in MESSAGE_FIELDS}
    if not isinstance(raw, Mapping):
        raise ValidationError(f"{where}: each message must be an object with role and content")
    unknown = sorted(set(raw) - set(MESSAGE_FIELDS))
    if unknown:
        raise ValidationError(
            f"{where}: unknown field(s) {unknown} (allowed: {', '.join(MESSAGE_FIELDS)})"
        )
    role = raw.get("role")
    role = ROLE_ALIASES.get(role, role) if isinstance(role, str) else role
    if role not in ROLES:
        raise ValidationError(f"{where}.role must be one of {', '.join(ROLES)} — got {role!r}")
    if "content" not in raw:
        raise ValidationError(f"{where}: content is required")
    content = _text(raw["content"], f"{where}.content", MAX_TEXT_CHARS)
    if not content.strip():
        raise ValidationError(f"{where}.content must not be empty")
    mid = raw.get("id")
    if mid is None or mid == "":
        mid = str(uuid.uuid4())
    elif isinstance(mid, int) and not isinstance(mid, bool):
        mid = str(mid)
    mid = _text(mid, f"{where}.id", MAX_ID_CHARS).strip()
    if not mid:
        raise ValidationError(f"{where}.id must not be blank")
    name = raw.get("name")
    if name is not None:
        name = _text(name, f"{where}.name", MAX_ID_CHARS) or None
    ts = raw.get("ts")
    if ts is not None:
        try:
            ts = parse_timestamp(ts)
        except ValueError as exc:
            raise ValidationError(f"{where}.ts: {exc}") from None
        if ts is not None:  # only dates the message's events: kept within the clock's range
            ts = min(max(ts, 0.0), MAX_TIMESTAMP)
    return ChatMessage(id=mid, role=role, content=content, ts=ts, name=name)


def coerce_messages(raw: object) -> list[ChatMessage]:
    """A list of messages, each checked; all-or-nothing (nothing is stored on an error)."""
    if isinstance(raw, Mapping | str | bytes) or not isinstance(raw, Iterable):
        raise ValidationError("messages must be a list of {role, content} objects")
    items = list(raw)
    if not items:
        raise ValidationError("messages must hold at least one message")
    if len(items) > MAX_MESSAGES:
        raise ValidationError(f"at most {MAX_MESSAGES} messages per call — got {len(items)}")
    out = [coerce_message(item, f"messages.{i}") for i, item in enumerate(items)]
    seen: set[str] = set()
    unique = []
    for message in out:  # a repeated id within one call is the same message
        if message.id not in seen:
            seen.add(message.id)
            unique.append(message)
    return unique


def dump(message: ChatMessage, seq: int = 0, at: float = 0.0) -> str:
    """The stored JSON of a message (with its arrival sequence number and time)."""
    out: dict[str, Any] = {"id": message.id, "role": message.role, "content": message.content}
    if message.ts is not None:
        out["ts"] = message.ts
    if message.name:
        out["name"] = message.name
    if seq:
        out["seq"] = seq
    if at:
        out["at"] = at
    return json.dumps(out, ensure_ascii=False)


def load(raw: bytes | str) -> dict[str, Any]:
    """A stored message as a dict (``id``, ``role``, ``content``, ``ts``, ``name``, ``seq``)."""
    data: dict[str, Any] = json.loads(raw)
    return data


def as_chat(data: Mapping[str, Any]) -> ChatMessage:
    return ChatMessage(
        id=str(data["id"]),
        role=str(data["role"]),
        content=str(data["content"]),
        ts=data.get("ts"),
        name=data.get("name"),
    )


def stable_id(session_id: str, position: int, role: str, content: str) -> str:
    """A message id derived from where a message sits in an imported file: importing the
    same export twice adds nothing new."""
    digest = hashlib.blake2b(
        f"{session_id}\x00{position}\x00{role}\x00{content}".encode(), digest_size=10
    ).hexdigest()
    return f"imp-{digest}"
