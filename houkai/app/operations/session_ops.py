"""The session operations (issue 30), declared once like every other (catalog.py
appends them): add_messages, session_get, session_list, session_delete, session_extract."""

from __future__ import annotations

from . import results as r
from . import session_params as sp
from .spec import Cli, Operation, Rest, Terminal

_ROLES = ["user", "assistant", "system", "tool"]
_TEXT = {"type": "string"}

SESSION = r.obj(
    {
        "session_id": r.STR,
        "user_id": r.t(["string", "null"]),
        "agent_id": r.t(["string", "null"]),
        "summary": r.STR,
        "window": r.arr(r.OBJECT),
        "memories": r.arr(r.MEMORY),
        "text": r.STR,
        "used_tokens": r.INT,
        "budget": r.INT,
        "pending": r.INT,
    },
    ("session_id", "window", "summary", "text"),
    extra=True,
)
ADDED = r.obj(
    {
        "session_id": r.STR,
        "added": r.INT,
        "pending": r.INT,
        "messages": r.INT,
        "ids": r.arr(r.STR),
        "extraction_queued": r.BOOL,
    },
    ("session_id", "added", "pending"),
)

SESSION_OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "add_messages",
        "Add messages to a session (its working memory); extraction runs on the workers.",
        sp.AddMessages,
        rest=(
            Rest(
                "POST",
                "/sessions/{session_id}/messages",
                {201: ("Stored", ADDED)},
                tag="sessions",
                summary=(
                    "Add messages to a session (created on first use), idempotent on message "
                    "ids. Answers at once: memories are extracted on the workers after "
                    "extract_after_messages new messages or extract_after_idle seconds."
                ),
            ),
        ),
        description="Record the latest turns of a conversation in its session (working "
        "memory). Facts, preferences, decisions and dated events the user states become "
        "long-term memories in the background (deduplicated; a changed fact supersedes the "
        "old one). Returns {session_id, added, pending, messages, ids, extraction_queued}.",
        writes=True,
        idempotent=True,
        cli=Cli(
            "session add",
            arguments=("session_id",),
            terminal=(
                Terminal("--text", "One message's content (instead of --messages).", _TEXT),
                Terminal("--role", "The role of --text.", {"enum": _ROLES}, "user"),
                Terminal("--file", "Read messages from a JSONL file or a JSON chat export.", _TEXT),
            ),
        ),
    ),
    Operation(
        "session_get",
        "A session as a ready prompt context: window, summary and relevant memories.",
        sp.SessionGet,
        rest=(Rest("GET", "/sessions/{session_id}", {200: ("OK", SESSION)}, tag="sessions"),),
        description="Load a conversation's context in one call: the recent messages (with the "
        "memories each became), the running summary of older ones and the long-term memories "
        "relevant to the latest user turn, within a token budget. Returns {text, window, "
        "summary, memories, used_tokens, budget, pending, session}.",
        cli=Cli("session show", arguments=("session_id",)),
    ),
    Operation(
        "session_list",
        "Sessions of the collection, most recently active first.",
        sp.SessionList,
        rest=(
            Rest(
                "GET",
                "/sessions",
                {200: ("OK", r.listing("sessions", r.OBJECT))},
                tag="sessions",
                envelope="sessions",
            ),
        ),
        description="The sessions of the collection, most recently active first: list of "
        "{session_id, user_id, agent_id, updated_at, messages_total, pending, memories}.",
        short={"limit": "-n"},
        cli=Cli("session list"),
    ),
    Operation(
        "session_delete",
        "Forget a session's messages and summary (its memories stay).",
        sp.SessionRef,
        rest=(
            Rest(
                "DELETE",
                "/sessions/{session_id}",
                {200: ("OK", r.obj({"deleted": r.BOOL, "session_id": r.STR}))},
                tag="sessions",
            ),
        ),
        description="Delete a session's working memory (messages and summary); the memories "
        "extracted from it stay. Returns {deleted, session_id}.",
        writes=True,
        destructive=True,
        cli=Cli("session delete", arguments=("session_id",), confirm=True),
    ),
    Operation(
        "session_extract",
        "Extract a session's pending messages now (queued to a worker when one runs).",
        sp.SessionRef,
        rest=(
            Rest(
                "POST",
                "/sessions/{session_id}/extract",
                {200: ("OK", r.ANY)},
                tag="sessions",
            ),
        ),
        description="Turn a session's not-yet-extracted messages into memories now instead of "
        "waiting for the debounce. Returns {status, queued} or the extraction report "
        "{messages, candidates, added, updated, unchanged, decisions}.",
        writes=True,
        idempotent=True,
        cli=Cli("session extract", arguments=("session_id",)),
    ),
)
