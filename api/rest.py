"""The Flask REST API: a thin front door over :class:`houkai.app.service.MemoryService`.

Every operation of :data:`houkai.api.routes.ROUTES` is a route of one blueprint
(:func:`api_blueprint`); a collection-bound one is mounted twice: at its plain path
(default collection, or ``?collection=NAME``) and under ``/c/<collection>/…``.
The request pipeline is the same for all of them: request id → auth (bearer token,
collection scope, read-only) → query/body parsing with unknown-field rejection and the
body cap (413) → the service → JSON. Expected errors map through
:func:`houkai.domain.errors.classify`; anything else is a 500 carrying only a request id,
with the traceback logged server-side.
"""

from __future__ import annotations

import html
import json
import logging
import os
import re
import uuid
from collections.abc import Mapping
from typing import Any

from flask import Blueprint, Flask, Response, current_app, g, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed, RequestEntityTooLarge
from werkzeug.serving import WSGIRequestHandler

from houkai.app.auth import FailureLimiter, TooManyFailures, acting_for, authenticate_client
from houkai.app.errors import classify
from houkai.app.hosts import HostPolicy
from houkai.app.operations.bind import strict
from houkai.app.runtime import ACTOR_HEADER, INSTANCE_HEADER
from houkai.app.serverpaths import require_admin_for
from houkai.app.service import MemoryService, conflict_payload
from houkai.db.keys import validate_collection
from houkai.domain.config import Settings, get_settings
from houkai.domain.errors import BadRequest, HoukaiError
from houkai.domain.model import ConflictError
from houkai.recall.synonyms import check_setting
from houkai.store.actors import ACTOR_NAME, RESERVED_ACTORS, calling_as

from .auth import TokenGrant, authenticate, load_tokens
from .routes import ROUTES, Call, Download, Route
from .validation import MemoryIdConverter, check_body, check_query

log = logging.getLogger("houkai.api")

COLLECTION_PREFIX = "/c/<collection>"
#: The request-line and header limits the app answers itself, as JSON (414 / 431):
#: gunicorn's defaults, whose own answers are HTML (``ops/gunicorn.conf.py`` raises
#: gunicorn's limits above these so the app's answer is the one a client reads).
MAX_REQUEST_LINE = 8190
MAX_HEADER_FIELDS = 100
MAX_HEADER_BYTES = 8190
#: Media types an archive upload (``POST /import`` with a file body) may declare.
UPLOAD_TYPES = ("application/gzip", "application/x-gzip", "application/octet-stream")
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._\-]{1,64}$")


def _json(status: int, payload: Any, headers: Mapping[str, str] | None = None) -> Response:
    body = json.dumps(payload, ensure_ascii=False, allow_nan=False, default=str)
    response = Response(body + "\n", status=status, mimetype="application/json")
    for key, value in (headers or {}).items():
        response.headers[key] = value
    return response


def _download(status: int, download: Download) -> Response:
    """Stream a file body (``GET /export``) chunk by chunk, as an attachment."""
    response = Response(download.chunks, status=status, mimetype=download.mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{download.filename}"'
    for key, value in download.headers.items():
        response.headers[key] = value
    return response


def _error(status: int, message: str, **extra: Any) -> Response:
    return _json(status, {"error": message, **extra})


def read_body(limit: int | None) -> bytes:
    """The request body, capped at *limit* bytes on what is actually read (413 beyond).

    With a Content-Length werkzeug refuses an oversize body up front. A chunked
    body has no length: werkzeug would silently stop reading at the cap, so the
    stream is read here up to ``limit + 1`` bytes and anything past the cap is a
    413, never a truncated body. A server that cannot frame chunked input gets 411.
    """
    environ = request.environ
    if request.content_length is not None or limit is None:
        return request.get_data(cache=False)
    if environ.get("wsgi.input_terminated"):
        stream = environ["wsgi.input"]
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = stream.read(min(65536, limit + 1 - size))
            if not chunk:
                return b"".join(chunks)
            size += len(chunk)
            if size > limit:
                raise RequestEntityTooLarge()
            chunks.append(chunk)
    if "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower():
        raise HoukaiError(
            "this server cannot read a chunked request body; send a Content-Length", status=411
        )
    return b""


def check_request_size() -> None:
    """414 for a request line over :data:`MAX_REQUEST_LINE`, 431 for more than
    :data:`MAX_HEADER_FIELDS` headers or one over :data:`MAX_HEADER_BYTES`."""
    environ = request.environ
    uri = environ.get("RAW_URI") or environ.get("REQUEST_URI") or request.full_path
    if len(request.method) + len(uri) + 10 > MAX_REQUEST_LINE:
        raise HoukaiError(
            f"request line longer than {MAX_REQUEST_LINE} bytes: send long values in a "
            "JSON body (POST) instead of the query string",
            status=414,
        )
    headers = list(request.headers.items())
    if len(headers) > MAX_HEADER_FIELDS:
        raise HoukaiError(f"more than {MAX_HEADER_FIELDS} request headers", status=431)
    for name, value in headers:
        if len(name) + len(value) + 2 > MAX_HEADER_BYTES:
            raise HoukaiError(
                f"request header {name[:40]!r} longer than {MAX_HEADER_BYTES} bytes", status=431
            )


class JsonErrorHandler(WSGIRequestHandler):
    """werkzeug's request handler with its own early errors (414 request line over
    64 KiB, 431 over 100 headers, 400 malformed) in JSON like every app error."""

    error_content_type = "application/json"

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        short, _ = self.responses.get(code, ("error", ""))
        body = json.dumps({"error": f"{message or short}".lower()})
        self.error_message_format = body.replace("%", "%%")  # formatted once by send_error
        super().send_error(code, message, explain)


def _has_body() -> bool:
    length = request.content_length
    return bool(length) or "chunked" in request.headers.get("Transfer-Encoding", "").lower()


#: Headers only a browser sends. A request carrying none of them came from a program
#: (curl, urllib, an SDK), which no web page can make the developer's machine send.
BROWSER_HEADERS = ("Origin", "Sec-Fetch-Site", "Sec-Fetch-Mode", "Sec-Fetch-Dest")
#: The body types a page of another site may send without a preflight; the defaults of
#: ``curl -d`` and urllib (form) and of a bare ``fetch`` (text/plain) among them.
SIMPLE_TYPES = frozenset({"", "text/plain", "application/x-www-form-urlencoded"})


def from_browser() -> bool:
    return any(name in request.headers for name in BROWSER_HEADERS)


def body_kind(route: Route) -> str:
    """``"json"`` or ``"upload"``: what the request's body is, by its ``Content-Type``.

    A browser page of another site may send ``text/plain``, form or multipart bodies
    without a preflight: from a browser (ADR 0071's headers) none of them is read as
    JSON (415), so only a request a page could not send cross-origin without CORS
    reaches a JSON route. A program that sends no browser header gets the seed's
    leniency: ``curl -d`` and urllib label a JSON body as a form, and it is read as
    JSON. An empty body without a ``Content-Type`` is an empty JSON object (every
    field its default)."""
    mimetype = request.mimetype
    if mimetype == "application/json" or (not mimetype and not _has_body()):
        return "json"
    if route.upload and mimetype in UPLOAD_TYPES:
        return "upload"
    if mimetype in SIMPLE_TYPES and not from_browser():
        return "json"
    wanted = "application/json" + (
        f" (or an archive as {', '.join(UPLOAD_TYPES)})" if route.upload else ""
    )
    raise HoukaiError(
        f"unsupported Content-Type {mimetype or '(none)'!r}: send {wanted}", status=415
    )


class RestApp:
    """Request handling state shared by every view of one app."""

    def __init__(self, service: MemoryService, tokens: dict[str, TokenGrant]) -> None:
        self.service = service
        self.tokens = tokens
        self.limiter = FailureLimiter.from_settings(service.settings)

    # ------------------------------------------------------------------ auth
    def authenticate(self, route: Route | None) -> TokenGrant | None:
        """The caller's token; raises 401 when tokens are configured and none matches
        (429 after too many wrong ones from the address). A public route takes a valid
        token when one is sent (``/health`` shows its count then) and needs none."""
        if not self.tokens:
            return None
        header = request.headers.get("Authorization")
        if route is not None and not route.auth:
            return authenticate(header, self.tokens)
        token = authenticate_client(header, self.tokens, self.limiter, request.remote_addr or "")
        if token is None:
            raise HoukaiError("unauthorized: missing or invalid bearer token", status=401)
        return token

    @staticmethod
    def authorize(
        token: TokenGrant | None, route: Route, collection: str | None, default: str
    ) -> None:
        if token is None:
            return
        if route.scoped and not token.allows_collection(collection or default):
            raise HoukaiError(
                f"forbidden: this token may not use collection {collection or default!r}",
                status=403,
            )
        if route.write and token.read_only:
            raise HoukaiError("forbidden: this token is read-only", status=403)

    # ------------------------------------------------------------------ parsing
    @staticmethod
    def query_args(route: Route) -> tuple[dict[str, Any], str | None]:
        values: dict[str, Any] = {}
        collection: str | None = None
        for key in request.args:
            items = request.args.getlist(key)
            if len(items) > 1:
                raise BadRequest(f"query parameter {key!r} given {len(items)} times")
            if key == "collection" and route.scoped:
                collection = validate_collection(items[0])
            elif key in route.query:
                values[key] = items[0]
            else:
                allowed = sorted([*route.query, *(["collection"] if route.scoped else [])])
                raise BadRequest(
                    f"unknown query parameter {key!r}; allowed: {', '.join(allowed) or '(none)'}"
                )
        missing = [k for k in route.required_query if not values.get(k)]
        if missing:
            raise BadRequest(f"missing required query parameter(s): {', '.join(missing)}")
        return check_query(route, values), collection

    @staticmethod
    def body(route: Route) -> dict[str, Any]:
        if route.body is None:
            return {}
        raw = read_body(current_app.config["MAX_CONTENT_LENGTH"])
        if not raw.strip():
            data: Any = {}
        else:
            try:
                data = json.loads(raw)
            except (UnicodeDecodeError, ValueError, RecursionError) as exc:
                raise BadRequest(f"invalid JSON body: {exc}") from None
        if not isinstance(data, dict):
            raise BadRequest("JSON body must be an object")
        allowed = route.body.get("properties", {})
        unknown = sorted(k for k in data if k not in allowed)
        if unknown:
            raise BadRequest(f"unknown field(s) {unknown}; allowed: {', '.join(allowed)}")
        required = [k for k in route.body.get("required", ()) if data.get(k) is None]
        if required:
            raise BadRequest(f"missing required field(s): {', '.join(required)}")
        check_body(route, data)
        return data

    # ------------------------------------------------------------------ views
    @staticmethod
    def client_actor() -> str:
        """The actor a client names itself with (``X-Houkai-Actor``: the CLI says "cli"),
        signing what this request journals; "" (the server's own) when it names none."""
        named = request.headers.get(ACTOR_HEADER, "")
        if named and not ACTOR_NAME.match(named):
            raise BadRequest(
                f"{ACTOR_HEADER}: expected a short lower-case name like cli, got {named[:40]!r}"
            )
        if named in RESERVED_ACTORS:
            raise BadRequest(f"{ACTOR_HEADER}: {named!r} is houkai's own; name the client")
        return named

    def view(self, route: Route):
        def handle(collection: str | None = None, **params: str) -> Response:
            token = self.authenticate(route)
            query, query_collection = self.query_args(route)
            if collection is not None and query_collection not in (None, collection):
                raise BadRequest(
                    "collection given both in the path and as ?collection= with different values"
                )
            collection = collection if collection is not None else query_collection
            self.authorize(token, route, collection, self.service.settings.collection)
            upload = None
            kind = body_kind(route) if route.body is not None or route.upload else "json"
            if kind == "upload":
                # a file body (an archive): its own, larger cap; the service
                # counts the bytes it reads too, so chunked framing is capped alike
                request.max_content_length = self.service.settings.http_max_upload
                g.upload = True  # a 413 now names http_max_upload
                upload = request.stream
            call = Call(
                service=self.service,
                collection=collection,
                query=query,
                body={} if upload is not None else self.body(route),
                params=params,
                token=token,
                tokens_configured=bool(self.tokens),
                upload=upload,
            )
            if route.op.admin_params:
                require_admin_for(
                    route.op.admin_params, call.args(), grant=token, operation=route.op.name
                )
            # the bound service method checks the values, once, as JSON; the service
            # knows the caller's grant (a read-only token's reads count no access)
            with strict(), acting_for(token), calling_as(self.client_actor()):
                status, payload = route.handler(call)
            if isinstance(payload, Download):
                return _download(status, payload)
            return _json(status, payload)

        handle.__name__ = f"view_{route.name}"
        return handle


def api_blueprint(rest: RestApp) -> Blueprint:
    """Every operation route as one blueprint, ``api``. Its collection-bound routes are
    one blueprint, ``collection``, registered twice: at the plain path (the default
    collection, or ``?collection=NAME``) and under ``/c/<collection>``, where the view
    gets the name; the rest (collections, health, whoami …) only at the plain path."""
    api = Blueprint("api", __name__)
    collection = Blueprint("collection", __name__)
    for route in ROUTES:
        target = collection if route.scoped else api
        target.add_url_rule(
            route.flask_rule,
            endpoint=route.name,
            view_func=rest.view(route),
            methods=[route.method],
        )
    api.register_blueprint(collection)
    api.register_blueprint(collection, name="in_collection", url_prefix=COLLECTION_PREFIX)
    return api


def _openapi_view(app: Flask):
    from .openapi import build_openapi

    def view() -> Response:
        return _json(200, build_openapi(app))

    return view


def _docs_view() -> Response:
    from .docs_page import DOCS_HTML

    url = html.escape(request.script_root + "/openapi.json", quote=True)
    return Response(DOCS_HTML.replace("__OPENAPI_URL__", url), mimetype="text/html")


def create_app(
    settings: Settings | None = None,
    service: MemoryService | None = None,
    tokens: str | list[str] | Mapping[str, TokenGrant] | None = None,
) -> Flask:
    """The WSGI app. *tokens* overrides ``settings.http_tokens`` (spec, entries or grants)."""
    settings = settings or (service.settings if service is not None else get_settings())
    service = service or MemoryService(settings, actor="http")
    token_list = load_tokens(settings.http_tokens if tokens is None else tokens)
    check_setting(settings.recall_synonyms)  # a bad synonyms file stops the server here

    app = Flask("houkai.api", static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = settings.http_max_body
    app.config["HOUKAI_SERVICE"] = service
    app.config["HOUKAI_TOKENS"] = token_list
    # the runtime file's nonce (houkai.app.runtime): `houkai serve` sets it after the
    # file is written, gunicorn workers get it from the environment
    app.config["HOUKAI_INSTANCE"] = os.environ.get("HOUKAI_SERVER_INSTANCE", "")
    app.url_map.strict_slashes = False
    app.url_map.converters["memory_id"] = MemoryIdConverter
    rest = RestApp(service, token_list)
    hosts = HostPolicy.of(settings.http_host, settings.http_port, settings.http_allowed_hosts)

    app.register_blueprint(api_blueprint(rest))
    app.add_url_rule(
        "/openapi.json", endpoint="openapi", view_func=_openapi_view(app), methods=["GET"]
    )
    app.add_url_rule("/docs", endpoint="docs", view_func=_docs_view, methods=["GET"])
    from .ui import bp as ui_blueprint

    app.register_blueprint(ui_blueprint)
    app.add_url_rule(
        "/metrics/prometheus",
        endpoint="prometheus",
        view_func=_prometheus_view(rest),
        methods=["GET"],
    )

    @app.before_request
    def _request_id() -> None:
        incoming = request.headers.get("X-Request-Id", "")
        g.request_id = incoming if _REQUEST_ID.match(incoming) else uuid.uuid4().hex[:16]
        check_request_size()  # 414 / 431, as JSON
        # before anything is read or answered: DNS rebinding (421), cross-site pages (403)
        hosts.check(request.headers.get("Host"), request.headers.get("Origin"))

    @app.after_request
    def _stamp(response: Response) -> Response:
        response.headers["X-Request-Id"] = getattr(g, "request_id", "")
        response.headers.setdefault("Cache-Control", "no-store")
        response.headers["X-Content-Type-Options"] = "nosniff"
        if app.config["HOUKAI_INSTANCE"]:
            response.headers[INSTANCE_HEADER] = app.config["HOUKAI_INSTANCE"]
        return response

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Response:
        status = exc.code or 500
        if isinstance(exc, RequestEntityTooLarge):
            return _error(413, too_large_message(settings, upload=getattr(g, "upload", False)))
        if isinstance(exc, MethodNotAllowed):
            allowed = sorted(set(exc.valid_methods or []) | {"OPTIONS"})
            return _json(
                405,
                {"error": f"method {request.method} not allowed; allowed: {', '.join(allowed)}"},
                {"Allow": ", ".join(allowed)},
            )
        if status == 404:
            return _error(404, "not found")
        if status >= 500:
            return _unexpected(exc)
        return _error(status, exc.description or exc.name)

    @app.errorhandler(Exception)
    def _any_error(exc: Exception) -> Response:
        if isinstance(exc, ConflictError):
            payload = conflict_payload(exc)
            return _error(409, f"refused: {len(exc.conflicts)} conflicting memory(ies)", **payload)
        known = classify(exc)
        if known is not None:
            status, message = known
            headers = {"WWW-Authenticate": "Bearer"} if status == 401 else {}
            if isinstance(exc, TooManyFailures) or getattr(exc, "retry_after", None):
                headers["Retry-After"] = str(getattr(exc, "retry_after", ""))
            return _json(status, {"error": message}, headers)
        return _unexpected(exc)

    return app


def too_large_message(settings: Settings, *, upload: bool) -> str:
    """The 413 text: the limit that applied, by its setting's name, and its number."""
    if upload:
        return (
            f"uploaded archive too large: the limit is http_max_upload = "
            f"{settings.http_max_upload} bytes"
        )
    return (
        f"request body too large: the limit is http_max_body = {settings.http_max_body} bytes"
        f" (archives go to POST /import as application/gzip, up to http_max_upload = "
        f"{settings.http_max_upload} bytes)"
    )


def _unexpected(exc: BaseException) -> Response:
    request_id = getattr(g, "request_id", "") or uuid.uuid4().hex[:16]
    log.error(
        "unhandled error in %s %s [request_id=%s]",
        request.method,
        request.path,
        request_id,
        exc_info=exc,
    )
    return _json(500, {"error": "internal server error", "request_id": request_id})


def _prometheus_view(rest: RestApp):
    from .prometheus import render

    def view() -> Response:
        token = rest.authenticate(None)
        rows = rest.service.collections()
        names = [r["name"] for r in rows if token is None or token.allows_collection(r["name"])]
        return Response(
            render(rest.service, names),
            mimetype="text/plain",
            content_type="text/plain; version=0.0.4; charset=utf-8",
        )

    return view
