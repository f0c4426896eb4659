"""Provenance and scope of a memory: whose it is (``user_id``, ``agent_id``), which
conversation it came from (``session_id``) and from which messages (``message_ids``).

The three scope ids are filters on every read door and can be named by token scopes;
``message_ids`` is provenance only.
"""

from __future__ import annotations

from .model import MAX_ID_CHARS, SCOPE_FIELDS, ValidationError, check_unicode

MAX_MESSAGE_IDS = 256

__all__ = [
    "MAX_MESSAGE_IDS",
    "SCOPE_FIELDS",
    "scope_filters",
    "validate_message_ids",
    "validate_scope",
]


def validate_scope(value: object, name: str) -> str:
    """A ``user_id`` / ``agent_id`` / ``session_id``: a non-empty id string, or "" unset."""
    if value is None or value == "":
        return ""
    if not isinstance(value, str):
        raise ValidationError(f"{name} must be a string — got {value!r}")
    check_unicode(value, name)
    clean = value.strip()
    if not clean or len(clean) > MAX_ID_CHARS:
        raise ValidationError(f"{name} must be 1-{MAX_ID_CHARS} characters — got {value!r}")
    return clean


def validate_message_ids(value: object) -> list[str]:
    """The ids of the messages a memory came from (its provenance)."""
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise ValidationError("message_ids must be a list of strings")
    if len(value) > MAX_MESSAGE_IDS:
        raise ValidationError(f"at most {MAX_MESSAGE_IDS} message_ids per memory")
    return [validate_scope(v, "message_ids") for v in value if v not in (None, "")]


def scope_filters(
    *, user_id: object = None, agent_id: object = None, session_id: object = None
) -> dict[str, str]:
    """The scope filters a read was given, checked: name → id, only those set."""
    given = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id}
    return {name: clean for name, value in given.items() if (clean := validate_scope(value, name))}
