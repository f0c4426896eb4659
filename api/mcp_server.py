"""The houkai MCP server: the service layer's tools over stdio or streamable HTTP.

Every tool is generated from its operation in the registry
(:mod:`houkai.app.operations`: name, description, parameter model, read-only
flag, server-path parameters), so names and arguments cannot drift between the
MCP listing, REST, the CLI and the agent examples (which build their provider
tool definitions from the same registry). Tool calls go through
:meth:`houkai.app.service.MemoryService.dispatch`, which validates the arguments
against the operation's schema once. Errors become MCP tool errors carrying the
:func:`houkai.domain.errors.classify` message, never a traceback.

Importing this module connects to nothing and loads no model: the service is
created on the first tool call.

Run: ``houkai mcp`` (stdio), ``houkai mcp --transport http --token T``, or the
``houkai-mcp`` / ``ai-houkai-mcp`` console scripts.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from houkai.app import operations
from houkai.app.operations import Operation, params_schema
from houkai.domain.model import ValidationError

log = logging.getLogger("houkai.mcp")

SERVER_NAME = "houkai"
ACTOR = "mcp"
MCP_PATH = "/mcp"
LOOPBACK = ("127.0.0.1", "localhost", "::1")

INSTRUCTIONS = (
    "houkai is your persistent long-term memory across sessions. Before starting a task, call "
    "auto_context (or recall) to load what you already know. Store durable facts, decisions, "
    "user preferences and corrections with remember (one self-contained statement each, 1-3 "
    "tags); fix outdated memories with edit instead of storing a duplicate; forget or "
    "supersede wrong ones. Never store secrets."
)


# --------------------------------------------------------------------------- table


@dataclass(frozen=True)
class ToolSpec:
    """One tool, generated from its operation (:mod:`houkai.app.operations`)."""

    name: str
    description: str
    properties: dict[str, dict[str, Any]] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    #: Arguments naming a file on the server; refused over HTTP.
    server_paths: tuple[str, ...] = ()
    #: Arguments only an admin token may set over HTTP (see Operation.admin_params).
    admin_params: tuple[str, ...] = ()
    #: Part of the seed's 23-tool surface (False: houkai extra).
    seed: bool = True
    #: The seed's result shape for a refused call (bad input, unknown id): the
    #: tool returns ``{**soft_error, "error": message}`` instead of a tool error.
    soft_error: dict[str, Any] | None = None
    method: str = ""

    @classmethod
    def of(cls, op: Operation) -> ToolSpec:
        schema = params_schema(op)
        return cls(
            name=op.name,
            description=op.agent_description,
            properties=schema["properties"],
            required=tuple(schema.get("required", ())),
            read_only=not op.writes,
            destructive=op.destructive,
            idempotent=op.idempotent,
            server_paths=op.server_paths,
            admin_params=op.admin_params,
            seed=op.seed,
            soft_error=dict(op.soft_error) if op.soft_error is not None else None,
            method=op.service_method,
        )

    def input_schema(self, *, with_collection: bool = True) -> dict[str, Any]:
        schema = params_schema(operations.get(self.name))
        if with_collection:
            schema["properties"]["collection"] = dict(_COLLECTION)
        return schema


_COLLECTION = {
    "type": "string",
    "description": "Memory namespace (collection) to use, e.g. one per project. Omit to use "
    "the server's default (HOUKAI_COLLECTION); only set it when asked to work in another "
    "namespace.",
}

TOOLS: tuple[ToolSpec, ...] = tuple(ToolSpec.of(op) for op in operations.mcp_operations())
TOOLS_BY_NAME: dict[str, ToolSpec] = {t.name: t for t in TOOLS}
SEED_TOOLS: tuple[str, ...] = tuple(t.name for t in TOOLS if t.seed)


# --------------------------------------------------------------------------- service

_service: Any = None
_service_lock = threading.Lock()


def get_service() -> Any:
    """The process's MemoryService (actor ``mcp``), created on first use."""
    global _service
    with _service_lock:
        if _service is None:
            from houkai.app.service import MemoryService

            _service = MemoryService(actor=ACTOR)
        return _service


def set_service(service: Any) -> None:
    """Use *service* for tool calls (tests, embedding the server in an app)."""
    global _service
    with _service_lock:
        _service = service


class ToolError(Exception):
    """A tool call refused before reaching the service (auth, unknown tool, file paths)."""


@dataclass(frozen=True)
class CallPolicy:
    """Who is calling: the token's grant, and whether server file paths are taken as
    given (a local caller) or go through :func:`houkai.app.serverpaths.resolve_server_path`
    (a remote one: admin tokens only, inside ``export_dir``)."""

    grant: Any = None  # houkai.app.auth.TokenGrant | None (None: unrestricted)
    allow_server_paths: bool = True


LOCAL = CallPolicy()


def clean_arguments(arguments: Mapping[str, Any] | None) -> dict[str, Any]:
    """Drop JSON nulls: a model sending ``null`` means "not given", i.e. the default."""
    if arguments is None:
        return {}
    if not isinstance(arguments, Mapping):
        raise ToolError("arguments must be a JSON object")
    return {k: v for k, v in arguments.items() if v is not None}


def call_tool(name: str, arguments: Mapping[str, Any] | None, policy: CallPolicy = LOCAL) -> Any:
    """Run one tool synchronously and return its JSON-able result (raises on error)."""
    spec = TOOLS_BY_NAME.get(name)
    if spec is None:
        raise ToolError(f"unknown tool {name!r}; available: {', '.join(TOOLS_BY_NAME)}")
    args = clean_arguments(arguments)
    grant = policy.grant
    if grant is not None:
        collection = args.get("collection") or _default_collection()
        if not grant.allows_collection(str(collection)):
            raise ToolError(f"this token may not use collection {collection!r}")
        if grant.read_only and not spec.read_only:
            raise ToolError(f"this token is read-only; {name!r} changes memory")
    if not policy.allow_server_paths:  # a remote caller: the one server-path policy
        from houkai.app.serverpaths import require_admin_for, resolve_server_args

        require_admin_for(spec.admin_params, args, grant=grant, operation=name)

        settings = getattr(get_service(), "settings", None) or _settings()
        args = resolve_server_args(
            args, spec.server_paths, settings=settings, grant=grant, where=name
        )
    from houkai.app.auth import acting_for

    service = get_service()
    if spec.soft_error is None:
        with acting_for(grant):
            return service.dispatch(name, args)
    try:
        with acting_for(grant):
            return service.dispatch(name, args)
    except Exception as exc:
        from houkai.app.errors import classify

        if classify(exc) is None:
            raise
        return {**spec.soft_error, "error": error_message(exc)}


def _settings() -> Any:
    from houkai.domain.config import get_settings

    return get_settings()


def _default_collection() -> str:
    service = _service
    settings = getattr(service, "settings", None)
    if settings is not None:
        return settings.collection
    from houkai.domain.config import get_settings

    return get_settings().collection


def to_jsonable(value: Any) -> Any:
    """Round-trip through JSON so results are plain data (dataclasses via to_dict)."""
    return json.loads(json.dumps(value, default=_json_default, ensure_ascii=False))


def _json_default(obj: Any) -> Any:
    to_dict = getattr(obj, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if hasattr(obj, "__dataclass_fields__"):
        import dataclasses

        return dataclasses.asdict(obj)
    if isinstance(obj, set | frozenset | tuple):
        return list(obj)
    if hasattr(obj, "tolist"):
        return obj.tolist()
    return str(obj)


def error_message(exc: BaseException) -> str:
    """What the model reads for a failed call: the classified message, never internals."""
    if isinstance(exc, ToolError):
        return str(exc)
    from houkai.app.errors import classify

    classified = classify(exc)
    if classified is not None:
        return classified[1] or type(exc).__name__
    log.exception("unexpected error in MCP tool call", exc_info=exc)
    return f"internal error ({type(exc).__name__}); see the houkai MCP server log"


# --------------------------------------------------------------------------- MCP server


def build_server(*, http: bool = False) -> Any:
    """The low-level MCP server with every tool from :data:`TOOLS`.

    With ``http=True``, calls are checked against the request's bearer-token
    grant (set by :class:`BearerAuth`) and server file paths are refused.
    """
    import anyio
    from mcp import types
    from mcp.server.lowlevel import Server

    limiter = anyio.CapacityLimiter(4)
    listing = [
        types.Tool(
            name=spec.name,
            description=spec.description,
            input_schema=spec.input_schema(),
            annotations=types.ToolAnnotations(
                read_only_hint=spec.read_only,
                destructive_hint=spec.destructive if not spec.read_only else False,
                idempotent_hint=spec.idempotent or spec.read_only,
                open_world_hint=False,
            ),
        )
        for spec in TOOLS
    ]

    async def on_list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=listing)

    async def on_call_tool(ctx: Any, params: Any) -> Any:
        policy = LOCAL
        if http:
            scope = getattr(getattr(ctx, "request", None), "scope", None) or {}
            policy = CallPolicy(grant=scope.get("houkai.grant"), allow_server_paths=False)
        try:
            result = await anyio.to_thread.run_sync(
                call_tool, params.name, params.arguments, policy, limiter=limiter
            )
            data = to_jsonable(result)
        except Exception as exc:  # every failure becomes a tool error the model can read
            return types.CallToolResult(
                content=[types.TextContent(text=f"Error: {error_message(exc)}")], is_error=True
            )
        structured = data if isinstance(data, dict) else {"result": data}
        return types.CallToolResult(
            content=[types.TextContent(text=json.dumps(data, ensure_ascii=False))],
            structured_content=structured,
        )

    from houkai import __version__

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


def serve_stdio() -> None:
    """Serve one client over stdin/stdout (what Claude Code, Cursor and OpenCode spawn)."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server()

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            messages, forward = _answering_parse_errors(read_stream, write_stream)
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(forward)
                await server.run(messages, write_stream, server.create_initialization_options())

    anyio.run(main)


def _errors_of(exc: Exception) -> list[dict[str, Any]]:
    """Pydantic's error list of a line the transport could not read (empty for others)."""
    details = getattr(exc, "errors", None)
    if not callable(details):
        return []
    try:
        return [e for e in details() if isinstance(e, dict)]
    except Exception:  # no pydantic error list after all
        return []


def _first_reason(exc: Exception) -> str:
    """What was wrong with an unreadable line, in one short phrase."""
    errors = _errors_of(exc)
    if errors:
        first = errors[0]
        return str(first.get("msg") or first)[:200]
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__


def _unreadable_reply(exc: Exception) -> tuple[int, str, str | int | None]:
    """JSON-RPC's answer to a line the transport could not read: a parse error (id null)
    for a line that is no JSON, an invalid request for JSON that is no JSON-RPC message,
    with the request's id when it has a readable one (JSON-RPC 2.0, section 5.1)."""
    import mcp.types as types

    errors = _errors_of(exc)
    if not errors or any(e.get("type") == "json_invalid" for e in errors):
        return types.PARSE_ERROR, f"Parse error: {_first_reason(exc)}", None
    request_id: str | int | None = None
    for e in errors:  # a branch missing a field holds the whole object as its input
        sent = e.get("input")
        if isinstance(sent, dict) and "id" in sent:
            found = sent["id"]
            if isinstance(found, str) or (isinstance(found, int) and not isinstance(found, bool)):
                request_id = found
            break
    return types.INVALID_REQUEST, f"Invalid Request: {_first_reason(exc)}", request_id


def _answering_parse_errors(read_stream: Any, write_stream: Any) -> tuple[Any, Any]:
    """The SDK's stdio transport hands a line it cannot read (not JSON, a lone surrogate,
    nesting too deep, JSON that is no JSON-RPC message) to the server as an exception,
    which answers nothing: the client waits until its own timeout. Here such a line gets
    JSON-RPC's parse error or invalid-request error (:func:`_unreadable_reply`), as the
    HTTP transport answers it; every message goes on to the server unchanged."""
    import anyio
    import mcp.types as types
    from mcp.shared.message import SessionMessage

    send, messages = anyio.create_memory_object_stream[Any](0)

    async def forward() -> None:
        async with read_stream, send:
            async for item in read_stream:
                if isinstance(item, Exception):
                    code, message, request_id = _unreadable_reply(item)
                    log.info("MCP stdio: a line that is no JSON-RPC message: %s", message)
                    try:  # a reply that cannot be sent must not end the session
                        error = types.ErrorData(code=code, message=message)
                        reply = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)
                        await write_stream.send(SessionMessage(reply))
                    except Exception:
                        log.warning("MCP stdio: could not answer a line", exc_info=True)
                    continue
                await send.send(item)

    return messages, forward


class BearerAuth:
    """ASGI middleware: requires ``Authorization: Bearer <token>`` from the configured set.

    The matching grant is put in the request scope (``houkai.grant``) so tool
    calls can enforce its collections and read-only mode.
    """

    def __init__(self, app: Any, grants: Mapping[str, Any], limiter: Any = None) -> None:
        from houkai.app.auth import FailureLimiter

        self.app = app
        self.grants = dict(grants)
        self.limiter = limiter if limiter is not None else FailureLimiter.from_settings(_settings())

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or not self.grants:
            await self.app(scope, receive, send)
            return
        from houkai.app.auth import TooManyFailures, authenticate_client

        header = None
        for key, value in scope.get("headers") or ():
            if key.lower() == b"authorization":
                header = value.decode("latin-1")
                break
        address = str((scope.get("client") or ("",))[0] or "")
        try:
            grant = authenticate_client(header, self.grants, self.limiter, address)
        except TooManyFailures as exc:
            retry = (b"retry-after", str(exc.retry_after).encode())
            await _send_json(send, 429, {"error": exc.message}, retry)
            return
        if grant is None:
            challenge = (b"www-authenticate", b'Bearer realm="houkai"')
            await _send_json(send, 401, {"error": "missing or invalid bearer token"}, challenge)
            return
        scope["houkai.grant"] = grant
        await self.app(scope, receive, send)


async def _send_json(send: Any, status: int, payload: dict[str, Any], *extra: Any) -> None:
    body = json.dumps(payload).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *extra,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class HostGuard:
    """ASGI middleware: the REST API's Host / Origin policy (:mod:`houkai.app.hosts`),
    421 for a foreign ``Host`` (DNS rebinding), 403 for a foreign ``Origin``."""

    def __init__(self, app: Any, policy: Any) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope.get("type") == "http":
            from houkai.app.hosts import ForeignHost, ForeignOrigin

            headers = {k.lower(): v.decode("latin-1") for k, v in scope.get("headers") or ()}
            try:
                self.policy.check(headers.get(b"host"), headers.get(b"origin"))
            except (ForeignHost, ForeignOrigin) as exc:
                await _send_json(send, exc.status, {"error": exc.message})
                return
        await self.app(scope, receive, send)


def build_http_app(
    *,
    tokens: str | None = None,
    host: str = "127.0.0.1",
    port: int | None = None,
    allowed_hosts: str = "",
) -> Any:
    """The streamable-HTTP ASGI app (stateless, JSON responses) at ``/mcp``, token-guarded
    and Host/Origin-guarded like the REST API (the SDK's own check is replaced by it)."""
    from mcp.server.transport_security import TransportSecuritySettings

    from houkai.app.auth import parse_tokens
    from houkai.app.hosts import HostPolicy

    grants = parse_tokens(tokens)
    policy = HostPolicy.of(host, port, allowed_hosts)
    server = build_server(http=True)
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        host=host,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    return HostGuard(BearerAuth(app, grants), policy)


def check_http_exposure(host: str, tokens: str | None) -> None:
    """Refuse to expose memory beyond this machine without a bearer token."""
    if not tokens and host not in LOOPBACK:
        raise ValidationError(
            f"refusing to serve MCP on {host} without a bearer token: pass --token "
            "(or set HOUKAI_HTTP_TOKENS), or bind to 127.0.0.1"
        )


def serve_http(host: str | None = None, port: int | None = None, tokens: str | None = None) -> None:
    """Serve streamable HTTP at ``http://host:port/mcp`` with bearer-token auth."""
    import uvicorn

    from houkai.domain.config import get_settings

    settings = get_settings()
    host = host or settings.mcp_host
    port = port or settings.mcp_port
    tokens = settings.http_tokens if tokens is None else tokens
    check_http_exposure(host, tokens)
    app = build_http_app(
        tokens=tokens, host=host, port=port, allowed_hosts=settings.http_allowed_hosts
    )
    log.info("houkai MCP (streamable HTTP) on http://%s:%s%s", host, port, MCP_PATH)
    uvicorn.run(app, host=host, port=port, log_level="warning")


def serve(
    transport: str = "stdio",
    *,
    host: str | None = None,
    port: int | None = None,
    tokens: str | None = None,
) -> None:
    from houkai.recall.synonyms import check_setting

    check_setting(_settings().recall_synonyms)  # a bad synonyms file stops the server here
    if transport == "stdio":
        serve_stdio()
    elif transport == "http":
        serve_http(host, port, tokens)
    else:
        raise ValidationError(f"transport must be stdio or http, got {transport!r}")


def run(argv: list[str] | None = None) -> None:
    """Console script (``houkai-mcp``, ``ai-houkai-mcp``): same options as ``houkai mcp``."""
    parser = argparse.ArgumentParser(prog="houkai-mcp", description=__doc__.split("\n")[0])
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--host", default=None, help="HTTP bind address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=None, help="HTTP port (default 8766)")
    parser.add_argument(
        "--token",
        action="append",
        default=None,
        help="accepted bearer token spec (repeatable; default HOUKAI_HTTP_TOKENS)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=os.environ.get("HOUKAI_LOG_LEVEL", "WARNING").upper(),
        format="%(levelname)s %(name)s: %(message)s",
    )
    tokens = ",".join(args.token) if args.token else None
    try:
        serve(args.transport, host=args.host, port=args.port, tokens=tokens)
    except KeyboardInterrupt:
        pass
    except ValueError as exc:
        parser.exit(2, f"houkai-mcp: error: {exc}\n")


if __name__ == "__main__":
    run()
