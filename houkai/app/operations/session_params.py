"""Parameters of the session operations (issue 30): add_messages, session_get, …"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from houkai.domain.model import MAX_ID_CHARS, MAX_TEXT_CHARS
from houkai.extraction.base import ROLES

from .fields import Timestamp
from .params import ScopeId
from .spec import Params

SessionId = Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS, pattern=r"\S")]
Role = Literal["user", "assistant", "system", "tool", "human", "ai", "bot"]
assert set(ROLES) <= set(Role.__args__)  # type: ignore[attr-defined]

_SESSION_DOC = "The conversation's id (any string you keep per chat)."


class MessageIn(Params):
    role: Role = Field(description="user, assistant, system or tool.")
    content: Annotated[str, Field(min_length=1, max_length=MAX_TEXT_CHARS, pattern=r"\S")] = Field(
        description="What was said."
    )
    id: Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS, pattern=r"\S")] | None = Field(
        None, description="The message's id: a message already added is skipped (idempotent)."
    )
    ts: Timestamp | None = Field(None, description="When it was said (epoch or ISO-8601).")
    name: Annotated[str, Field(max_length=MAX_ID_CHARS)] | None = Field(
        None, description="Who said it (a user's or tool's name)."
    )


class AddMessages(Params):
    session_id: SessionId = Field(description=_SESSION_DOC)
    messages: Annotated[list[MessageIn], Field(min_length=1, max_length=1000)] = Field(
        description='The new messages, oldest first: [{"role": "user", "content": "…"}, …].'
    )
    user_id: ScopeId | None = Field(None, description="The user the session belongs to.")
    agent_id: ScopeId | None = Field(None, description="The agent the session belongs to.")


class SessionRef(Params):
    session_id: SessionId = Field(description=_SESSION_DOC)


class SessionGet(Params):
    session_id: SessionId = Field(description=_SESSION_DOC)
    query: Annotated[str, Field(max_length=MAX_TEXT_CHARS)] | None = Field(
        None, description="What the memories should be relevant to (default: the last user turn)."
    )
    budget: Annotated[int, Field(ge=1, le=1_000_000)] = Field(
        1500, description="Token budget of the whole context (window, summary, memories)."
    )
    memories: bool = Field(True, description="Add the relevant long-term memories.")


class SessionList(Params):
    limit: Annotated[int, Field(ge=0, le=1000)] = Field(50, description="How many.")
    offset: Annotated[int, Field(ge=0)] = Field(0, description="Skip this many (newest first).")
