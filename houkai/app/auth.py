"""Bearer tokens for the network front doors (REST API, MCP over HTTP).

One spec string (config ``http_tokens`` / ``HOUKAI_HTTP_TOKENS``) lists the
accepted tokens, comma-separated; each entry is ``token[:collections[:mode[:scope]]]``:

- ``collections``: ``|``-separated collection names the token may use; empty or
  ``*`` means every collection;
- ``mode``: ``rw`` (default) or ``ro`` (read-only tools/endpoints only);
- ``scope``: ``|``-separated ``user=ID``, ``agent=ID``, ``session=ID`` (issue 30): the
  token only reaches memories and sessions of that scope. Every operation it calls
  must take those filters (recall, recall_pack, list_recent, remember, the session
  operations…); they are set to the token's values (another value is refused, 403),
  and an operation without them (get by id, export…) is refused.

Examples: ``s3cret``, ``agent-tok:proj_a|proj_b:ro,admin-tok``,
``alice-tok:chat::user=alice``. Comparison is constant-time; an empty spec means
"no auth configured".
"""

from __future__ import annotations

import hmac
import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from ..domain.errors import HoukaiError
from ..domain.model import ValidationError

_MODES = ("rw", "ro")


@dataclass(frozen=True)
class TokenGrant:
    """What one bearer token may do."""

    token: str
    collections: frozenset[str] | None = None  # None: every collection
    read_only: bool = False
    #: (field, value) pairs the token is limited to: ``(("user_id", "alice"),)``
    scope: tuple[tuple[str, str], ...] = ()

    def allows_collection(self, collection: str) -> bool:
        return self.collections is None or collection in self.collections

    @property
    def server_wide(self) -> bool:
        """May it see figures of the whole Redis (every collection's memory and queues)?"""
        return self.collections is None

    def describe(self) -> str:
        scope = (
            "all collections" if self.collections is None else ", ".join(sorted(self.collections))
        )
        limited = "".join(f", {name}={value}" for name, value in self.scope)
        return f"{'read-only' if self.read_only else 'read-write'} on {scope}{limited}"


def parse_tokens(spec: str | Iterable[str] | None) -> dict[str, TokenGrant]:
    """Parse a token spec (string or list of entries) into ``{token: grant}``.

    Raises ``ValueError`` naming the bad entry (never echoing a token in full).
    """
    if spec is None:
        return {}
    entries = spec.split(",") if isinstance(spec, str) else list(spec)
    grants: dict[str, TokenGrant] = {}
    for position, raw in enumerate(entries, 1):
        entry = raw.strip()
        if not entry:
            continue
        parts = entry.split(":")
        if len(parts) > 4:
            raise ValidationError(
                f"token entry {position}: expected token[:collections[:ro|rw[:scope]]]"
            )
        scope = _parse_scope(parts.pop(3), position) if len(parts) == 4 else ()
        token = parts[0].strip()
        if not token or any(ch.isspace() for ch in token):
            raise ValidationError(f"token entry {position}: the token is empty or contains spaces")
        if len(parts) == 2 and parts[1].strip().lower() in _MODES:
            parts = [parts[0], "", parts[1]]  # "tok:ro" = every collection, read-only
        names = parts[1].strip() if len(parts) > 1 else ""
        mode = (parts[2].strip().lower() or "rw") if len(parts) > 2 else "rw"
        if mode not in _MODES:
            raise ValidationError(f"token entry {position}: mode must be ro or rw, got {mode!r}")
        collections: frozenset[str] | None = None
        if names and names != "*":
            from ..db.keys import validate_collection

            items = [n.strip() for n in names.split("|") if n.strip()]
            for name in items:
                validate_collection(name)
            collections = frozenset(items)
        grants[token] = TokenGrant(token, collections, mode == "ro", scope)
    return grants


_SCOPE_KEYS = {"user": "user_id", "agent": "agent_id", "session": "session_id"}


def _parse_scope(text: str, position: int) -> tuple[tuple[str, str], ...]:
    """``user=alice|agent=bot`` → ``(("user_id", "alice"), ("agent_id", "bot"))``."""
    out: dict[str, str] = {}
    for item in (i.strip() for i in text.split("|") if i.strip()):
        key, _, value = item.partition("=")
        if key.strip() not in _SCOPE_KEYS or not value.strip():
            raise ValidationError(
                f"token entry {position}: scope must be user=ID, agent=ID or session=ID "
                "(|-separated)"
            )
        out[_SCOPE_KEYS[key.strip()]] = value.strip()
    return tuple(sorted(out.items()))


class ScopeRefused(HoukaiError):
    """A scoped token called an operation outside its scope (403)."""

    status = 403


#: Operations a scoped token may call although they take no scope filter: they show
#: no memory (who am I, is the server up).
SCOPE_FREE: frozenset[str] = frozenset({"whoami", "health", "readiness"})
#: Operations on one session or the session list: the service checks the session's own
#: user and agent against the caller's scope (:func:`caller_scope`).
SESSION_OPS: frozenset[str] = frozenset(
    {"session_get", "session_list", "session_delete", "session_extract"}
)


def caller_scope() -> dict[str, str]:
    """The scope the current caller is limited to (empty: none)."""
    grant = _CALLER.get()
    return dict(grant.scope) if grant is not None else {}


def in_scope(owner: Mapping[str, Any]) -> bool:
    """Whether a session whose meta is *owner* (``user_id``, ``agent_id``,
    ``session_id``) lies within the caller's scope."""
    return all((owner.get(name) or "") == value for name, value in caller_scope().items())


def scoped_arguments(operation: str, fields: Iterable[str], given: dict[str, Any]) -> None:
    """Limit a call of a scoped caller (see the module docstring) in place: its scope's
    filters are set, another value or an operation without them is refused."""
    grant = _CALLER.get()
    if grant is None or not grant.scope or operation in SCOPE_FREE | SESSION_OPS:
        return
    names = set(fields)
    if operation == "add_messages":
        names.add("session_id")  # the session id is the operation's own
    for name, value in grant.scope:
        if name not in names:
            raise ScopeRefused(
                f"this token is limited to {name}={value}; {operation} cannot be limited so"
            )
        if given.get(name) not in (None, value):
            raise ScopeRefused(f"this token is limited to {name}={value}")
        given[name] = value


def bearer_token(authorization: str | None) -> str | None:
    """The token from an ``Authorization: Bearer <token>`` header value, else ``None``."""
    if not authorization:
        return None
    scheme, _, value = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


def authenticate(authorization: str | None, grants: Mapping[str, TokenGrant]) -> TokenGrant | None:
    """The grant for the request's bearer token, ``None`` when missing or unknown.

    Compares against every configured token in constant time.
    """
    token = bearer_token(authorization)
    if token is None:
        return None
    supplied = token.encode("utf-8", "surrogateescape")
    found: TokenGrant | None = None
    for known, grant in grants.items():
        if hmac.compare_digest(supplied, known.encode("utf-8", "surrogateescape")):
            found = grant
    return found


# --------------------------------------------------------------------------- the caller

#: The grant of the network caller whose request is being served (None: a local caller,
#: or no tokens configured). Set by the doors with :func:`acting_for`, read below.
_CALLER: ContextVar[TokenGrant | None] = ContextVar("houkai_caller_grant", default=None)


@contextmanager
def acting_for(grant: TokenGrant | None) -> Iterator[None]:
    """Serve one request (REST view, MCP tool call) on behalf of *grant*."""
    token = _CALLER.set(grant)
    try:
        yield
    finally:
        _CALLER.reset(token)


def caller() -> TokenGrant | None:
    """The grant of the request being served, if any."""
    return _CALLER.get()


def may_change_state() -> bool:
    """False for a read-only grant: its reads must not count accesses (``touch``) either,
    since access counts feed decay and recency ranking."""
    grant = _CALLER.get()
    return grant is None or not grant.read_only


def sees_server_wide() -> bool:
    """False for a collection-scoped grant: Redis-wide figures (memory used, every
    collection's count, the shared queues, worker names) are not its to read."""
    grant = _CALLER.get()
    return grant is None or grant.server_wide


# --------------------------------------------------------------------------- wrong tokens


class TooManyFailures(HoukaiError):
    """A client address sent too many wrong tokens lately: 429 with ``Retry-After``."""

    status = 429

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            f"too many wrong bearer tokens from this address; retry after {retry_after} s"
        )
        self.retry_after = retry_after


class FailureLimiter:
    """Wrong-token attempts per client address in a sliding window (in process).

    After *limit* wrong tokens within *window* seconds, every request from that
    address is refused with 429 until the oldest of them leaves the window, the
    right token too (otherwise a guesser would still read "429 = wrong, 200 =
    right" at full speed). A correct token costs nothing and counts nothing; a
    missing token is no guess. Each process (gunicorn worker) counts on its own,
    so the bound is ``limit × workers`` per window; ``limit=0`` turns it off.
    """

    MAX_ADDRESSES = 10_000  # bounded memory under a spray from many addresses

    def __init__(
        self, limit: int = 20, window: float = 60.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit = int(limit)
        self.window = float(window)
        self.clock = clock
        self._failures: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Any) -> FailureLimiter:
        return cls(settings.http_auth_max_failures, settings.http_auth_failure_window)

    def _recent(self, address: str, now: float) -> deque[float] | None:
        times = self._failures.get(address)
        if times is None:
            return None
        while times and times[0] <= now - self.window:
            times.popleft()
        if not times:
            del self._failures[address]
            return None
        return times

    def check(self, address: str) -> None:
        """Raise :class:`TooManyFailures` while *address* is over the limit."""
        if self.limit <= 0:
            return
        with self._lock:
            now = self.clock()
            times = self._recent(address, now)
            if times is not None and len(times) >= self.limit:
                raise TooManyFailures(max(1, math.ceil(times[0] + self.window - now)))

    def failed(self, address: str) -> None:
        """Count one wrong token from *address*."""
        if self.limit <= 0:
            return
        with self._lock:
            now = self.clock()
            times = self._recent(address, now)
            if times is None:
                times = self._failures[address] = deque(maxlen=self.limit)
            times.append(now)
            self._failures.move_to_end(address)
            while len(self._failures) > self.MAX_ADDRESSES:
                self._failures.popitem(last=False)


def authenticate_client(
    authorization: str | None,
    grants: Mapping[str, TokenGrant],
    limiter: FailureLimiter,
    address: str,
) -> TokenGrant | None:
    """:func:`authenticate` behind *limiter*: 429 while *address* is throttled, and a
    presented token that matches nothing counts as one failure. The doors call this."""
    limiter.check(address)
    grant = authenticate(authorization, grants)
    if grant is None and bearer_token(authorization) is not None:
        limiter.failed(address)
    return grant
