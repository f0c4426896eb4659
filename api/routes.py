"""The REST routes, generated from the operation registry (:mod:`houkai.app.operations`).

Each :class:`~houkai.app.operations.spec.Rest` binding of an operation becomes a
:class:`Route`: its path and verb, whether it writes (read-only tokens are
refused), whether it is collection-bound (mounted again under
``/c/<collection>``), its query parameters or JSON body (the operation's
parameter schema minus the path placeholders; unknown ones are rejected with
400), its responses, and a handler ``(call) -> (status, payload)``. Most
handlers are generic (call the service method, wrap a list in the binding's
envelope); the few REST-specific answers (201/202 for writes, 404s, downloads,
uploads, token-filtered listings) are the adapters below.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from houkai.app.operations import OPERATIONS, Operation, get, params_schema
from houkai.app.operations.results import COMPONENTS
from houkai.app.operations.spec import Response, Rest
from houkai.domain.errors import NotFound

__all__ = ["COMPONENTS", "ROUTES", "Call", "Download", "Route", "route_by_name"]


@dataclass
class Call:
    """What a handler sees: the service, the resolved collection and the request values."""

    service: Any
    collection: str | None
    query: dict[str, Any]
    body: dict[str, Any]
    params: dict[str, str]
    token: Any = None
    tokens_configured: bool = False
    upload: Any = None  # the raw request stream of an ``upload`` route sent as a file

    def args(self) -> dict[str, Any]:
        """Path, query and body values as the operation's arguments (the body wins)."""
        return {**self.params, **self.query, **self.body}


Handler = Callable[[Call], tuple[int, Any]]


@dataclass
class Download:
    """A streamed file response (``GET /export``): the adapter sends *chunks* as is."""

    chunks: Any
    filename: str
    mimetype: str = "application/gzip"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Route:
    """One mounted REST operation (generated; see :func:`_route`)."""

    name: str
    method: str
    path: str  # OpenAPI style: /memories/{memory_id}
    handler: Handler
    summary: str
    op: Operation
    write: bool = False
    scoped: bool = True
    auth: bool = True
    query: dict[str, dict[str, Any]] = field(default_factory=dict)
    required_query: tuple[str, ...] = ()
    body: dict[str, Any] | None = None  # an object schema
    responses: dict[int, Response] = field(default_factory=dict)
    tag: str = "memories"
    content_type: str = "application/json"
    upload: bool = False  # also accepts a non-JSON body (a file) as ``Call.upload``
    #: The REST binding's own body rules (``minProperties``), checked by the adapter: one
    #: schema per route, as the validator is cached per schema; the body's field names
    #: beside them only say what is allowed (each value is the bound method's to check).
    body_rules: dict[str, Any] | None = None
    #: The registry's binding this route is generated from.
    binding: Rest | None = None

    @functools.cached_property
    def self_checked(self) -> bool:
        """Served by a bound service method, whose strict check is the request's one
        (:func:`houkai.app.operations.bind.strict`): the adapter does not re-check.
        Computed on first use: importing the routes (the CLI's client does) loads no
        service."""
        return self.binding is not None and _self_checked(self.op, self.binding)

    @property
    def envelope(self) -> str:
        """The key a list result is wrapped in (``{"results": [...]}``), if any."""
        return self.binding.envelope if self.binding is not None else ""

    @property
    def adapted(self) -> bool:
        """Answered by a REST adapter (:data:`ADAPTERS`) rather than the service's result
        as is (or in its envelope)."""
        return self.name in ADAPTERS

    @property
    def flask_rule(self) -> str:
        # {memory_id} never matches the literal "batch" (see MemoryIdConverter).
        rule = self.path.replace("{memory_id}", "<memory_id:memory_id>")
        return rule.replace("{", "<").replace("}", ">")


# --------------------------------------------------------------------------- adapters


def _ok_status(rest: Rest) -> int:
    return min(code for code in rest.responses if 200 <= code < 300)


def _generic(op: Operation, rest: Rest) -> Handler:
    status = _ok_status(rest)

    def handle(c: Call) -> tuple[int, Any]:
        method = getattr(c.service, op.service_method)
        args = c.args()
        if op.scope == "collection":
            result = method(**args, collection=c.collection)
        else:
            result = method(**args)
        return status, {rest.envelope: result} if rest.envelope else result

    return handle


def _server_path(c: Call, args: dict[str, Any]) -> dict[str, Any]:
    """Apply the one server-path policy (admin token, inside export_dir) to ``path``
    (and an ingest's ``glob``)."""
    from houkai.app.serverpaths import resolve_server_args

    return resolve_server_args(args, ("path",), settings=c.service.settings, grant=c.token)


def _remember(c: Call) -> tuple[int, Any]:
    result = c.service.remember(**c.args(), collection=c.collection)
    memory = result.pop("memory", None)
    if memory is not None and not result.get("timed_out"):
        return 201, {"stored": True, **memory, "job_id": result.get("job_id")}
    return 202, {**result, "ids": [result["id"]]}


def _queued(method: str, *, server_paths: bool = False) -> Handler:
    def handle(c: Call) -> tuple[int, Any]:
        args = _server_path(c, c.args()) if server_paths else c.args()
        result = getattr(c.service, method)(**args, collection=c.collection)
        waited = args.get("wait", True) and not result.get("timed_out")
        return (201 if waited else 202), result

    return handle


def _edit(c: Call) -> tuple[int, Any]:
    return 200, c.service.edit(**c.args(), collection=c.collection)["memory"]


def _forget(c: Call) -> tuple[int, Any]:
    memory_id = c.params["memory_id"]
    if not c.service.forget(memory_id, collection=c.collection)["deleted"]:
        raise NotFound("memory not found")
    return 200, {"forgotten": True, "id": memory_id}


def _history(c: Call) -> tuple[int, Any]:
    memory_id = c.params["memory_id"]
    return 200, {"id": memory_id, "history": c.service.history(memory_id, collection=c.collection)}


def _get_at(c: Call) -> tuple[int, Any]:
    result = c.service.get_at(**c.args(), collection=c.collection)
    if not result.get("ok"):
        raise NotFound(result.get("error") or "memory did not exist at that time")
    return 200, result


def _journal(c: Call) -> tuple[int, Any]:
    entries = c.service.journal_tail(**c.args(), collection=c.collection)
    return 200, {"count": len(entries), "entries": entries}


def _ready(c: Call) -> tuple[int, Any]:
    report = c.service.readiness()
    checks = report.get("checks") or {}
    safe = {
        "ready": bool(report.get("ready")),
        "checks": {str(k): {"ok": bool((v or {}).get("ok"))} for k, v in checks.items()},
    }
    return (200 if safe["ready"] else 503), safe


def _health(c: Call) -> tuple[int, Any]:
    """Liveness for everyone; the count only for a caller who may read the collection
    (anyone when no tokens are configured)."""
    result = c.service.health(collection=c.collection)
    name = c.collection or c.service.settings.collection
    if c.tokens_configured and (c.token is None or not c.token.allows_collection(name)):
        return 200, {"status": result["status"]}
    return 200, result


def _collections(c: Call) -> tuple[int, Any]:
    rows = c.service.collections()
    if c.token is not None:
        rows = [r for r in rows if c.token.allows_collection(r["name"])]
    return 200, {"collections": rows}


def _export(c: Call) -> tuple[int, Any]:
    return 200, c.service.export(**_server_path(c, c.args()), collection=c.collection)


def _export_stream(c: Call) -> tuple[int, Any]:
    chunks, summary = c.service.export_stream(**c.args(), collection=c.collection)
    name = c.collection or c.service.settings.collection
    return 200, Download(
        chunks,
        f"{name}.ahkai",
        headers={"X-Houkai-Count": str(summary["count"]), "Content-Length": str(summary["bytes"])},
    )


def _import(c: Call) -> tuple[int, Any]:
    if c.upload is not None:
        return 200, c.service.import_stream(c.upload, **c.query, collection=c.collection)
    return 200, c.service.import_(**_server_path(c, c.args()), collection=c.collection)


def _whoami(c: Call) -> tuple[int, Any]:
    from houkai.app.dashboard import whoami

    return 200, whoami(c.token, c.tokens_configured)


def _dashboard(name: str) -> Handler:
    def handle(c: Call) -> tuple[int, Any]:
        from houkai.app import dashboard

        return 200, getattr(dashboard, name)(c.service, **c.args(), collection=c.collection)

    return handle


ADAPTERS: dict[str, Handler] = {
    "remember": _remember,
    "remember_many": _queued("remember_many"),
    "ingest": _queued("ingest", server_paths=True),
    "edit": _edit,
    "forget": _forget,
    "history": _history,
    "get_at": _get_at,
    "journal": _journal,
    "ready": _ready,
    "health": _health,
    "collections": _collections,
    "export": _export,
    "export_stream": _export_stream,
    "import": _import,
    "whoami": _whoami,
    "browse": _dashboard("browse"),
    "facets": _dashboard("facets"),
    "growth": _dashboard("growth"),
    "overview": _dashboard("overview"),
    "pipeline_status": _dashboard("pipeline_status"),
}


# --------------------------------------------------------------------------- generation


def _scalar(schema: dict[str, Any]) -> bool:
    """Can a query string carry it (no arrays, no objects)?"""
    kinds = [schema.get("type"), *(o.get("type") for o in schema.get("anyOf", ()))]
    return not {"array", "object"} & {str(k) for k in kinds}


def _route(op: Operation, rest: Rest) -> Route:
    schema = params_schema(op)
    props: dict[str, Any] = schema["properties"]
    in_path = {p for p in props if "{" + p + "}" in rest.path}
    required = [p for p in schema.get("required", ()) if p not in in_path]
    where = rest.params_in or ("query" if rest.method in ("GET", "DELETE") else "body")
    query: dict[str, dict[str, Any]] = {}
    body: dict[str, Any] | None = None
    if where == "query":
        query = {n: s for n, s in props.items() if n not in in_path and _scalar(s)}
        required_query = tuple(n for n in required if n in query)
    else:
        fields = {n: s for n, s in props.items() if n not in in_path}
        query = {n: props[n] for n in rest.query_extra}
        required_query = ()
        if fields:
            body = {"type": "object", "properties": fields, "additionalProperties": False}
            if required:
                body["required"] = required
            for key in ("not", "oneOf", "minProperties"):
                if key in schema:
                    body[key] = schema[key]
            body.update(rest.body_extra)
    if rest.upload:
        query = {**params_schema(get(rest.upload))["properties"], **query}
    name = rest.name or op.name
    return Route(
        name=name,
        method=rest.method,
        path=rest.path,
        handler=ADAPTERS.get(name) or _generic(op, rest),
        summary=rest.summary or op.doc,
        op=op,
        write=op.writes,
        scoped=op.scope == "collection",
        auth=op.scope != "public",
        query=query,
        required_query=required_query,
        body=body,
        responses=dict(rest.responses),
        tag=rest.tag,
        content_type=rest.content_type,
        upload=bool(rest.upload),
        body_rules=(
            {"properties": {n: {} for n in (body or {}).get("properties", {})}, **rest.body_extra}
            if rest.body_extra
            else None
        ),
        binding=rest,
    )


def _self_checked(op: Operation, rest: Rest) -> bool:
    """Does the route's handler hand its values to a bound service method (which checks)?"""
    from houkai.app.operations.bind import checks_itself
    from houkai.app.service import MemoryService

    if rest.upload:  # a file body goes to import_stream, which is no bound method
        return False
    return checks_itself(getattr(MemoryService, op.service_method, None))


#: Every route (generated on first read by the module's ``__getattr__``).
ROUTES: list[Route]
_ROUTES: list[Route] = []


def routes_of(op: Operation) -> list[Route]:
    """*op*'s routes, generated on first use (the CLI's client builds only the one it
    sends, not the whole table)."""
    cached = _BY_OP.get(op.name)
    if cached is None:
        cached = _BY_OP[op.name] = [_route(op, rest) for rest in op.rest]
    return cached


_BY_OP: dict[str, list[Route]] = {}


def __getattr__(name: str) -> Any:
    """``ROUTES``: every route, generated on first read (PEP 562)."""
    if name == "ROUTES":
        if not _ROUTES:
            _ROUTES.extend(route for op in OPERATIONS for route in routes_of(op))
        return _ROUTES
    raise AttributeError(name)


def route_by_name(name: str) -> Route:
    for route in __getattr__("ROUTES"):
        if route.name == name:
            return route
    raise KeyError(name)
