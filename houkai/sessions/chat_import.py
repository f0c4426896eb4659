"""Messages from a file: JSONL (one message per line) or a JSON chat export.

Accepted shapes: a JSON array of messages, an object with a ``messages`` array, or JSONL
whose lines are messages (a line may carry ``session_id`` to spread one file over several
sessions). A message's content may be a string or a list of parts (``{"type": "text",
"text": …}``, as the OpenAI and Anthropic formats write it). ``timestamp``,
``created_at`` and ``time`` read as ``ts``; other fields are left out. A message
without an id gets one from its place in the file, so importing a file twice adds
nothing the second time.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..domain.model import ValidationError
from .messages import ROLE_ALIASES, stable_id

_TS_FIELDS = ("ts", "timestamp", "created_at", "create_time", "time")
_ROLE_FIELDS = ("role", "author", "speaker", "from")


def _content(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [
            p if isinstance(p, str) else str(p.get("text") or "")
            for p in value
            if isinstance(p, str) or (isinstance(p, Mapping) and p.get("type", "text") == "text")
        ]
        return "\n".join(p for p in parts if p)
    if isinstance(value, Mapping) and isinstance(value.get("parts"), list):
        return _content(value["parts"])
    return ""


def _role(raw: Mapping[str, Any]) -> Any:
    for name in _ROLE_FIELDS:
        value = raw.get(name)
        if isinstance(value, Mapping):  # {"author": {"role": "user"}}
            value = value.get("role")
        if isinstance(value, str):
            return ROLE_ALIASES.get(value.lower(), value.lower())
    return None


def normalise(raw: Any, where: str) -> dict[str, Any] | None:
    """One exported message as ``{role, content, id?, ts?, name?}``; None when it has
    no text (a tool call, an image)."""
    if not isinstance(raw, Mapping):
        raise ValidationError(f"{where}: a message must be a JSON object")
    content = _content(raw.get("content", raw.get("text")))
    if not content.strip():
        return None
    out: dict[str, Any] = {"role": _role(raw), "content": content}
    if raw.get("id") not in (None, ""):
        out["id"] = str(raw["id"])
    for name in _TS_FIELDS:
        if raw.get(name) not in (None, ""):
            out["ts"] = raw[name]
            break
    if isinstance(raw.get("name"), str) and raw["name"]:
        out["name"] = raw["name"]
    return out


def _records(path: Path) -> Iterator[tuple[int, Any]]:
    text = path.read_text(encoding="utf-8")
    stripped = text.lstrip()
    if stripped.startswith("["):
        data = json.loads(stripped)
        yield from enumerate(data, 1)
        return
    if stripped.startswith("{") and "\n{" not in stripped.strip():
        data = json.loads(stripped)
        if isinstance(data, Mapping) and isinstance(data.get("messages"), list):
            yield from enumerate(data["messages"], 1)
            return
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                yield number, json.loads(line)
            except ValueError as exc:
                raise ValidationError(f"{path}:{number}: not JSON ({exc})") from None


def read_messages(path: str | Path, session_id: str | None) -> dict[str, list[dict[str, Any]]]:
    """``{session_id: [message, …]}`` from *path* (see the module docstring)."""
    path = Path(path)
    try:
        records = list(_records(path))
    except OSError as exc:
        raise ValidationError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ValidationError(f"{path}: not JSON ({exc})") from None
    out: dict[str, list[dict[str, Any]]] = {}
    for number, raw in records:
        where = f"{path.name}:{number}"
        message = normalise(raw, where)
        if message is None:
            continue
        sid = session_id or (raw.get("session_id") if isinstance(raw, Mapping) else None)
        if not isinstance(sid, str) or not sid.strip():
            raise ValidationError(f"{where}: no session id (give SESSION_ID or a session_id field)")
        batch = out.setdefault(sid, [])
        if "id" not in message:
            message["id"] = stable_id(sid, len(batch), str(message["role"]), message["content"])
        batch.append(message)
    if not out:
        raise ValidationError(f"{path}: no messages with text")
    return out
