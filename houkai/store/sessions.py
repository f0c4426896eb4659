"""Sessions on the store: working memory of conversations (see :mod:`houkai.sessions`).

``add_messages`` stores messages and schedules their extraction on the workers (it
never runs the extractor); ``session`` reads a session back as a ready prompt context;
``sessions`` lists, ``delete_session`` forgets one; ``extract_session`` runs an
extraction in this process, for a library or CLI user without workers.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..domain.config import parse_duration
from ..domain.model import MemoryNotFound, ValidationError
from ..domain.scope import validate_scope
from ..sessions import context as ctx
from ..sessions import messages as msg
from ..sessions.context import SessionContext
from ..sessions.state import SessionState
from .host import StoreHost

if TYPE_CHECKING:
    from ..domain.model import PackResult
    from ..extraction.base import Extractor


class SessionNotFound(MemoryNotFound):
    """No session with that id in this collection (a 404 at every door)."""

    def __str__(self) -> str:
        return f"session not found: no session with id {self.memory_id!r}"


class SessionsMixin(StoreHost):
    """add_messages, session, sessions, delete_session, extract_session."""

    if TYPE_CHECKING:  # PackingMixin's

        def recall_pack(self, query: str, **kwargs: Any) -> PackResult: ...

    @property
    def session_state(self) -> SessionState:
        """The Redis side of this collection's sessions (made once)."""
        state: SessionState | None = self.__dict__.get("_session_state")
        if state is None:
            s = self.settings
            state = SessionState(
                self.client,
                self.keys,
                window=s.session_window,
                summary_chars=s.session_summary_chars,
                ttl=parse_duration(s.session_ttl),
            )
            self.__dict__["_session_state"] = state
        return state

    def add_messages(
        self,
        session_id: str,
        messages: Iterable[Mapping[str, Any]],
        user_id: str | None = None,
        agent_id: str | None = None,
    ) -> dict[str, Any]:
        """Add messages (``{role, content, id?, ts?, name?}``) to a session, creating it.

        Idempotent on message ids (an id the session holds or extracted is skipped).
        Returns at once: extraction runs on the workers after ``extract_after_messages``
        pending messages or ``extract_after_idle`` seconds without a new one.
        """
        from ..sessions import trigger  # the pipeline imports the store: not at import time

        sid = msg.check_session_id(session_id)
        batch = msg.coerce_messages(messages)
        user = validate_scope(user_id, "user_id")
        agent = validate_scope(agent_id, "agent_id")
        now = time.time()
        result = self.session_state.add(
            sid,
            batch,
            user_id=user,
            agent_id=agent,
            due_at=now + trigger.idle_seconds(self.settings),
            due_after=trigger.threshold(self.settings),
            now=now,
        )
        result.queued = trigger.due_now(self.settings, result.added, result.pending)
        return result.to_dict()

    def session(
        self,
        session_id: str,
        query: str | None = None,
        budget: int = 1500,
        *,
        memories: bool = True,
        last: int | None = None,
    ) -> SessionContext:
        """The session as a ready prompt context: the window (what each message became),
        the running summary and the long-term memories relevant to *query* (default: the
        latest user turn), all within *budget* tokens."""
        sid = msg.check_session_id(session_id)
        if isinstance(budget, bool) or not isinstance(budget, int) or not 1 <= budget <= 1_000_000:
            raise ValidationError(f"budget must be an integer in [1, 1000000] — got {budget!r}")
        if query is not None and not isinstance(query, str):
            raise ValidationError(f"query must be a string — got {query!r}")
        state = self.session_state
        meta = state.meta(sid)
        if meta is None:
            raise SessionNotFound(sid)
        window = state.messages(sid, last=last or state.window)
        summary = meta.get("summary", "")
        question = (query or ctx.latest_user_turn(window)).strip()
        summary_cost = ctx.estimate_tokens(summary) if summary else 0
        floor = int(budget * ctx.MEMORY_FLOOR) if memories and question else 0
        kept, window_cost = ctx.fit_window(window, max(1, budget - summary_cost - floor))
        pack = None
        left = budget - summary_cost - window_cost
        if memories and question and left > 0:
            scope = {n: meta[n] for n in ("user_id", "agent_id") if meta.get(n)}
            pack = self.recall_pack(
                question, token_budget=left, touch=False, header=ctx.MEMORY_HEADER, **scope
            )
        text = ctx.render(summary, pack, kept)
        used = summary_cost + window_cost + (pack.used_tokens if pack else 0)
        return SessionContext(
            session_id=sid,
            user_id=meta.get("user_id") or None,
            agent_id=meta.get("agent_id") or None,
            window=kept,
            summary=summary,
            memories=pack,
            query=question,
            text=text,
            used_tokens=used,
            budget=budget,
            pending=state.pending_count(sid),
            info={"session": state.describe(sid, meta)},
        )

    def sessions(self, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
        """The collection's sessions, most recently active first."""
        for name, value in (("limit", limit), ("offset", offset)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValidationError(f"{name} must be an integer >= 0 — got {value!r}")
        if limit == 0:
            return []
        return self.session_state.listing(limit, offset)

    def delete_session(self, session_id: str) -> bool:
        """Forget a session's messages and summary (its extracted memories stay)."""
        return self.session_state.delete(msg.check_session_id(session_id))

    def extract_session(
        self, session_id: str, extractor: Extractor | None = None
    ) -> dict[str, Any]:
        """Run the session's extraction now, in this process (no worker needed)."""
        from ..sessions.extract import run_extraction

        sid = msg.check_session_id(session_id)
        if not self.session_state.exists(sid):
            raise SessionNotFound(sid)
        return run_extraction(self, sid, extractor=extractor).to_dict()

    def metrics(self) -> dict[str, Any]:
        """The store's metrics plus, once a session exists, ``sessions`` (how many); the
        extractors' tokens and cost are the service's ``extraction`` figures."""
        out: dict[str, Any] = super().metrics()  # type: ignore[misc]
        sessions = self.session_state.count()
        if sessions:
            out["sessions"] = sessions
        return out

    def drop(self) -> int:
        """Delete the collection entirely, its sessions too."""
        self.session_state.delete_all()
        return int(super().drop())
