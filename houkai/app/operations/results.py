"""The result shapes, as JSON Schema: OpenAPI's response bodies and components.

Each result kind has ONE serializer in :mod:`houkai.app.shapes`
(``memory_to_dict``, ``pack_to_dict``, ``entry_to_dict``, ``conflict_to_dict``;
unset fields are ``null``); these schemas describe what they produce.
"""

from __future__ import annotations

from typing import Any


def t(kind: str | list[str], **kw: Any) -> dict[str, Any]:
    return {"type": kind, **kw}


def obj(
    props: dict[str, Any], required: tuple[str, ...] = (), *, extra: bool = False
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": extra}
    if required:
        schema["required"] = list(required)
    return schema


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def arr(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


STR = t("string")
INT = t("integer")
NUM = t("number")
BOOL = t("boolean")
OBJECT = t("object")
#: Stale-while-revalidate aggregates (the dashboard's): when taken, outdated, being redone.
# as_of is null while a collection is counted for the first time (a placeholder).
FRESHNESS: dict[str, Any] = {"as_of": t(["number", "null"]), "stale": BOOL, "refreshing": BOOL}

MEMORY_FIELDS: dict[str, Any] = {
    "id": STR,
    "text": STR,
    "type": STR,
    "tags": arr(STR),
    "importance": NUM,
    "source": t(["string", "null"]),
    "created_at": NUM,
    "last_accessed": NUM,
    "access_count": INT,
    "polarity": INT,
    "links": arr(obj({"to": STR, "rel": STR}, ("to", "rel"))),
    "superseded_by": t(["string", "null"]),
    "superseded_at": t(["number", "null"]),
    "expires_at": t(["number", "null"]),
    "collection": t(["string", "null"]),
    "state": t("string", enum=["pending", "ready", "failed"]),
    "error": STR,
    "user_id": STR,
    "agent_id": STR,
    "session_id": STR,
    "message_ids": arr(STR),
    "score": NUM,
    "explain": OBJECT,
    "rel": STR,
    "tokens": INT,
}
COMPONENTS: dict[str, Any] = {
    "Memory": obj(
        MEMORY_FIELDS,
        ("id", "text", "type", "tags", "importance", "created_at", "state"),
        extra=True,
    ),
    "Error": obj(
        {"error": STR, "request_id": STR, "stored": BOOL, "conflicts": arr(OBJECT)},
        ("error",),
        extra=True,
    ),
    "Pack": obj(
        {
            "text": STR,
            "used_tokens": INT,
            "budget": INT,
            "truncated": BOOL,
            "items": arr(ref("Memory")),
            "compressed_groups": arr(
                obj({"ids": arr(STR), "text": STR, "tokens": INT, "count": INT}, extra=True)
            ),
            "queries": arr(STR),
        },
        ("text", "used_tokens", "budget", "truncated", "items"),
        extra=True,
    ),
    "Conflict": obj(
        {"kind": STR, "reason": STR, "similarity": NUM, "a": OBJECT, "b": OBJECT},
        ("kind", "a", "b"),
        extra=True,
    ),
    "JournalEntry": obj(
        {
            "ts": NUM,
            "op": STR,
            "actor": STR,
            "id": STR,
            "meta": OBJECT,
            "summary": STR,
            "before": {},
            "after": {},
            "entry_id": STR,
        },
        ("ts", "op", "actor", "id"),
        extra=True,
    ),
    "Job": obj(
        {
            "id": STR,
            "kind": STR,
            "state": STR,
            "total": INT,
            "done": INT,
            "failed": INT,
            "rejected": INT,
        },
        ("id", "state"),
        extra=True,
    ),
    "Object": OBJECT,
}
MEMORY = ref("Memory")
PACK = ref("Pack")
ANY = ref("Object")
ERROR = ref("Error")
JOB = ref("Job")


def listing(key: str, items: dict[str, Any]) -> dict[str, Any]:
    """``{key: [items…]}``: REST's envelope around a list result."""
    return obj({key: arr(items)}, (key,), extra=True)
