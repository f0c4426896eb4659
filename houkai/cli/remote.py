"""The CLI as a client of the data dir's running REST server (as ``docker`` uses its daemon).

A CLI process that loads the store and the embedding model pays about a second before
it answers; a ``houkai serve`` (or ``houkai up``) for the same data dir has both loaded.
So :meth:`houkai.cli.Context.call` hands an operation to :class:`Remote` when
:func:`open_remote` finds that server (``houkai-api.json``, :mod:`houkai.app.runtime`)
serving the same key prefix, Redis and default collection, with a token it accepts
when it requires one. The operation goes to its REST route as the registry declares it
(path, ``/c/<collection>`` prefix, query or JSON body), and the reply comes back as the
service's own result: the route's envelope unwrapped, the few REST-shaped answers
turned back (:data:`REPLIES`), an error raised as the typed error the in-process call
raises, so the command prints the same output and the same ``Error: …`` line.

What stays in-process (:func:`route_for` is the one rule): ``--local`` /
``HOUKAI_LOCAL=1``; operations without a REST route or naming a file on the server
(``server_paths``: the CLI reads its own files); REST-shaped answers with no entry in
:data:`REPLIES`; anything in :data:`IN_PROCESS`; and a call the server refuses for
this caller (401/403/421/429: the user's own process may do it) or cannot be reached
for (a read is run in-process then; a write whose connection broke is an error, since
it may have run). Commands that are no operation (``up``, ``serve``, ``worker``,
``redis``, ``bench``, ``doctor``, ``tui``, ``ingest``'s file reading) never come here.
"""

from __future__ import annotations

import http.client
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode, urlsplit

from ..app.runtime import ACTOR_HEADER, INSTANCE_HEADER, ApiServer, find
from ..domain.config import Settings
from ..domain.errors import HoukaiError, NotFound

if TYPE_CHECKING:
    from ..api.routes import Route
    from ..app.operations import Operation

log = logging.getLogger("houkai.cli")

#: Operations the CLI always runs in-process although they have a REST route: none
#: today beyond the rules of :func:`route_for`; list one here with the reason.
IN_PROCESS: frozenset[str] = frozenset()
#: Seconds to wait for the server's answer (a recall with a cold cache, a reflect).
TIMEOUT = 600.0
#: Refusals of this caller, before anything ran: the CLI runs the call itself instead.
_REFUSED = (401, 403, 421, 429)


class Unavailable(Exception):
    """The server cannot take this call: the caller runs it in-process."""


# --------------------------------------------------------------------------- replies


def _forget(status: int, payload: Any) -> Any:
    return {"deleted": bool(payload.get("forgotten"))}


def _remember(status: int, payload: Any) -> Any:
    """201 ``{stored, …memory, job_id}`` / 202 ``{…reply, ids}`` → the service's reply."""
    if status == 202:
        return {k: v for k, v in payload.items() if k != "ids"}
    memory = {k: v for k, v in payload.items() if k not in ("stored", "job_id")}
    return {
        "id": memory["id"],
        "stored": True,
        "importance": memory.get("importance"),
        "expires_at": memory.get("expires_at") or None,
        "state": memory.get("state"),
        "job_id": payload.get("job_id"),
        "memory": memory,
    }


#: REST adapters' answers turned back into the service's results, by route name
#: (:data:`houkai.api.routes.ADAPTERS`); a 404 a reply maps itself is in :data:`MISSES`.
REPLIES: dict[str, Callable[[int, Any], Any]] = {
    "forget": _forget,
    "remember": _remember,
    "history": lambda status, payload: payload["history"],
    "journal": lambda status, payload: payload["entries"],
}
#: Route names whose "memory not found" 404 is the service's ``{deleted: false}``.
MISSES: dict[str, Any] = {"forget": {"deleted": False}}


def route_for(op: Operation, arguments: dict[str, Any]) -> Route | None:
    """The REST route the CLI sends *op* with *arguments* to, None: run it in-process.

    A body route is preferred (JSON keeps every type); a query route only when every
    argument is a path placeholder or one of its query parameters."""
    if op.name in IN_PROCESS or op.server_paths or not op.rest:
        return None
    from ..api.routes import routes_of

    candidates = [r for r in routes_of(op) if not r.upload and r.content_type == "application/json"]
    candidates.sort(key=lambda r: r.body is None)
    for route in candidates:
        if route.adapted and route.name not in REPLIES:
            continue
        names = {n for n in arguments if "{" + n + "}" not in route.path}
        fields = set(route.body.get("properties", {})) if route.body is not None else set()
        if names <= fields | set(route.query):
            return route
    return None


# --------------------------------------------------------------------------- the client


@dataclass
class Remote:
    """A running server this CLI process sends its operations to."""

    server: ApiServer
    token: str | None = None

    def _request(
        self, method: str, path: str, body: bytes | None = None, timeout: float = TIMEOUT
    ) -> tuple[int, Any, str]:
        """One request on a fresh connection: ``(status, JSON payload, instance header)``."""
        url = urlsplit(self.server.url)
        conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=timeout)
        headers = {"Accept": "application/json", ACTOR_HEADER: "cli"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            raw = response.read()
            instance = response.getheader(INSTANCE_HEADER) or ""
        finally:
            conn.close()
        try:
            payload = json.loads(raw) if raw.strip() else None
        except ValueError:
            payload = {"error": raw.decode("utf-8", "replace")[:200]}
        return response.status, payload, instance

    def alive(self) -> bool:
        """Does *this* server (its instance nonce) answer at the recorded URL?"""
        try:
            status, _, instance = self._request("GET", "/health", timeout=2.0)
        except (OSError, http.client.HTTPException):
            return False
        return status == 200 and instance == self.server.instance

    def call(self, op: Operation, arguments: dict[str, Any], collection: str | None) -> Any:
        """Run *op* on the server: the service's result, or the error it raises."""
        route = route_for(op, arguments)
        if route is None:
            raise Unavailable(f"{op.name} runs in-process")
        values = dict(arguments)
        path = route.path
        for name in list(values):
            if "{" + name + "}" in path:
                path = path.replace("{" + name + "}", quote(str(values.pop(name)), safe=""))
        if route.scoped and collection:
            path = f"/c/{quote(collection, safe='')}{path}"
        body: bytes | None = None
        if route.body is not None:
            body = json.dumps(values, ensure_ascii=False).encode("utf-8")
        elif values:
            path += "?" + urlencode({k: _query_text(v) for k, v in values.items()})
        try:
            status, payload, instance = self._request(route.method, path, body)
        except (OSError, http.client.HTTPException) as exc:
            if op.writes:
                raise HoukaiError(
                    f"lost the houkai server at {self.server.url} during {op.name} ({exc}); it "
                    "may have run: check, or run the command again with --local",
                    status=503,
                ) from None
            raise Unavailable(f"server unreachable: {exc}") from None
        if instance != self.server.instance:  # alive() checked it: a restart in between
            raise Unavailable("another server answered")
        if status in _REFUSED:
            raise Unavailable(f"the server refused this caller ({status})")
        if 200 <= status < 300:
            reply = REPLIES.get(route.name)
            if reply is not None:
                return reply(status, payload)
            return payload[route.envelope] if route.envelope else payload
        message = str((payload or {}).get("error") if isinstance(payload, dict) else "")
        if status == 404 and route.name in MISSES and message == "memory not found":
            return MISSES[route.name]
        raise _error(status, payload, message or f"HTTP {status}")


def _query_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _error(status: int, payload: Any, message: str) -> Exception:
    """The typed error the in-process call raises for the server's error answer."""
    if status == 409 and isinstance(payload, dict) and "conflicts" in payload:
        from ..domain.model import ConflictError

        error = ConflictError([])
        error.conflicts = list(payload["conflicts"])
        return error
    if status == 404:
        return NotFound(message)
    return HoukaiError(message, status=status)


# --------------------------------------------------------------------------- discovery


def _redis_target(settings: Settings) -> str:
    from ..db.server import display_url, known_url

    if settings.redis_url:
        return display_url(settings.redis_url)
    return known_url(settings.data_dir) or ""


def _tokens(settings: Settings) -> list[str]:
    """Tokens this CLI may present: ``token`` (``HOUKAI_TOKEN``), then those of its own
    ``http_tokens``, an admin one (every collection, read-write) first."""
    out = [settings.token] if settings.token else []
    if settings.http_tokens:
        from ..app.auth import parse_tokens

        try:
            grants = list(parse_tokens(settings.http_tokens).values())
        except ValueError:
            grants = []
        grants.sort(key=lambda g: (g.collections is not None, g.read_only))
        out += [g.token for g in grants]
    return out


def open_remote(settings: Settings, default_collection: str) -> Remote | None:
    """The running server for this CLI's data dir, when it serves what the CLI would
    (same key prefix, Redis and default collection) and takes this caller; else None."""
    server = find(settings.data_dir)
    if server is None:
        return None
    why = ""
    if server.key_prefix != settings.key_prefix:
        why = f"key prefix {server.key_prefix!r}"
    elif server.redis != _redis_target(settings):
        why = f"Redis {server.redis}"
    elif server.collection != default_collection:
        why = f"default collection {server.collection!r}"
    token = None
    if not why and server.tokens_required:
        token = next((t for t in _tokens(settings) if server.accepts(t)), None)
        if token is None:
            why = "it requires a token and no HOUKAI_TOKEN it accepts is set"
    if why:
        log.info("not using the houkai server at %s: %s", server.url, why)
        return None
    remote = Remote(server, token)
    if not remote.alive():
        log.info("the houkai server at %s does not answer; running in-process", server.url)
        return None
    log.info("sending operations to the houkai server at %s", server.url)
    return remote


# --------------------------------------------------------------------------- id lookups


class IdReader:
    """What an id-prefix lookup reads of a store (``exists``, ``collection_name``,
    ``keys``, ``client``: :func:`houkai.cli.output.resolve_id`) over a plain Redis
    client, so a command that goes to the server loads no store for it; any other
    attribute is the real store's, loaded on first use by *load*."""

    def __init__(self, client: Any, keys: Any, load: Callable[[], Any]) -> None:
        self.client = client
        self.keys = keys
        self.collection_name = keys.collection
        self._load = load

    def exists(self, memory_id: str) -> bool:
        return bool(self.client.exists(self.keys.memory(memory_id)))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._load(), name)


def id_reader(
    settings: Settings, name: str, default: str, load: Callable[[], Any]
) -> IdReader | None:
    """An :class:`IdReader` of the existing collection *name* (unknown: ``NotFound``, as
    the in-process reader says), None when this process cannot name the Redis URL."""
    from ..db.server import known_url

    url = settings.redis_url or known_url(settings.data_dir)
    if not url:
        return None
    from ..db.connection import get_client
    from ..db.keys import Keys

    client = get_client(url)
    if name != default and not client.sismember(Keys.registry(settings.key_prefix), name):
        raise NotFound(f"no collection named {name!r}")
    return IdReader(client, Keys(settings.key_prefix, name), load)
