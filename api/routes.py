"""The REST route table: one row per operation, driving Flask AND the OpenAPI document.

Each row names its path, verb, whether it writes (read-only tokens are refused),
whether it exists under the ``/c/<collection>`` prefix, its query parameters and
JSON body fields (as JSON Schema; unknown ones are rejected with 400), its
responses, and a handler ``(call) -> (status, payload)`` that only unpacks the
request and calls :class:`houkai.app.service.MemoryService` (validation lives there).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from houkai.app.dashboard import CURSOR_PATTERN
from houkai.domain.errors import NotFound
from houkai.domain.model import (
    CONFLICT_POLICIES,
    DIRECTIONS,
    FUSIONS,
    LINK_RELS,
    MAX_TAG_CHARS,
    MAX_TAGS,
    MAX_TEXT_CHARS,
    MAX_TIMESTAMP,
    MAX_TTL_SECONDS,
    MEMORY_TYPES,
)

# --------------------------------------------------------------------------- schemas


def _t(kind: str | list[str], **kw: Any) -> dict[str, Any]:
    return {"type": kind, **kw}


STR = _t("string")
INT = _t("integer")
NUM = _t("number")
BOOL = _t("boolean")
ID = _t("string", minLength=1, maxLength=256)
# "Has a character str.strip() keeps", spelled out so Python's re (the server) and
# ECMA regex (clients) agree: their \\s differ on \\x1c-\\x1f, \\x85 and \\ufeff.
_NONSPACE = (
    "[^\\t\\n\\u000b\\f\\r \\u001c-\\u001f\\u0085\\u00a0\\u1680\\u2000-\\u200a"
    "\\u2028\\u2029\\u202f\\u205f\\u3000]"
)
TEXT = _t("string", minLength=1, maxLength=MAX_TEXT_CHARS, pattern=_NONSPACE)
# Epoch seconds, a relative span, or an ISO-8601 date/datetime whose every form
# this pattern admits parses (days stop at 28 so no calendar check is needed).
_ISO = (
    "[1-9][0-9]{3}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])"
    "([T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?"
    "([Zz]|[+-](0[0-9]|1[0-3]):[0-5][0-9])?)?"
)
_TS_PATTERN = (
    f"^([+-]?[0-9]{{1,12}}(\\.[0-9]{{1,6}})?|[0-9]{{1,9}}(\\.[0-9]{{1,3}})?[smhdwSMHDW]|{_ISO})$"
)
TIMESTAMP = {
    "anyOf": [NUM, _t("string", pattern=_TS_PATTERN)],
    "description": "Epoch seconds, an ISO-8601 date/datetime (naive = UTC), or a relative "
    "span like '7d' / '24h' (= that long ago).",
}
TAG = _t("string", minLength=1, maxLength=MAX_TAG_CHARS, pattern=f"^[^,]*{_NONSPACE[:-1]},][^,]*$")
TAGS = {
    "anyOf": [TAG, {"type": "array", "items": TAG, "maxItems": MAX_TAGS}],
    "description": "Tags (a single string is one tag; no commas).",
}
MEMORY_TYPE = _t("string", enum=list(MEMORY_TYPES))
REL = _t("string", enum=list(LINK_RELS))
POLICY = _t("string", enum=list(CONFLICT_POLICIES))


def obj(
    props: dict[str, Any], required: tuple[str, ...] = (), *, extra: bool = False
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": extra}
    if required:
        schema["required"] = list(required)
    return schema


def rng(kind: str, lo: float | None = None, hi: float | None = None, **kw: Any) -> dict[str, Any]:
    """A number/integer schema with the bounds the service enforces."""
    schema = _t(kind, **kw)
    if lo is not None:
        schema["minimum"] = lo
    if hi is not None:
        schema["maximum"] = hi
    return schema


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def arr(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


MEMORY_FIELDS: dict[str, Any] = {
    "id": STR,
    "text": STR,
    "type": STR,
    "tags": arr(STR),
    "importance": NUM,
    "source": _t(["string", "null"]),
    "created_at": NUM,
    "last_accessed": NUM,
    "access_count": INT,
    "polarity": INT,
    "links": arr(obj({"to": STR, "rel": STR}, ("to", "rel"))),
    "superseded_by": _t(["string", "null"]),
    "superseded_at": _t(["number", "null"]),
    "expires_at": _t(["number", "null"]),
    "collection": _t(["string", "null"]),
    "state": _t("string", enum=["pending", "ready", "failed"]),
    "error": STR,
    "score": NUM,
    "explain": _t("object"),
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
        {"error": STR, "request_id": STR, "stored": BOOL, "conflicts": arr(_t("object"))},
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
        {"kind": STR, "reason": STR, "similarity": NUM, "a": _t("object"), "b": _t("object")},
        ("kind", "a", "b"),
        extra=True,
    ),
    "JournalEntry": obj(
        {
            "ts": NUM,
            "op": STR,
            "actor": STR,
            "id": STR,
            "meta": _t("object"),
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
    "Object": _t("object"),
}
LIST_OF_MEMORIES = obj({"memories": arr(ref("Memory"))}, ("memories",), extra=True)

# --------------------------------------------------------------------------- table


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

    def kw(self, source: dict[str, Any], *skip: str) -> dict[str, Any]:
        return {k: v for k, v in source.items() if k not in skip}


Handler = Callable[[Call], tuple[int, Any]]


@dataclass
class Route:
    name: str
    method: str
    path: str  # OpenAPI style: /memories/{memory_id}
    handler: Handler
    summary: str
    write: bool = False
    scoped: bool = True
    auth: bool = True
    query: dict[str, dict[str, Any]] = field(default_factory=dict)
    required_query: tuple[str, ...] = ()
    body: dict[str, Any] | None = None  # an object schema
    responses: dict[int, tuple[str, dict[str, Any] | None]] = field(default_factory=dict)
    tag: str = "memories"
    content_type: str = "application/json"
    upload: bool = False  # also accepts a non-JSON body (a file) as ``Call.upload``

    def __post_init__(self) -> None:
        # The server treats a required string given as "" as missing: say so.
        if self.body is not None:
            props = self.body.get("properties", {})
            for name in self.body.get("required", ()):
                field_schema = props.get(name, {})
                if field_schema.get("type") == "string":
                    props[name] = {
                        **field_schema,
                        "minLength": max(1, field_schema.get("minLength", 0)),
                    }

    @property
    def flask_rule(self) -> str:
        # {memory_id} never matches the literal "batch" (see MemoryIdConverter).
        rule = self.path.replace("{memory_id}", "<memory_id:memory_id>")
        return rule.replace("{", "<").replace("}", ">")


# --------------------------------------------------------------------------- handlers


def _health(c: Call) -> tuple[int, Any]:
    return 200, c.service.health()


def _ready(c: Call) -> tuple[int, Any]:
    report = c.service.readiness()
    checks = report.get("checks") or {}
    safe = {
        "ready": bool(report.get("ready")),
        "checks": {str(k): {"ok": bool((v or {}).get("ok"))} for k, v in checks.items()},
    }
    return (200 if safe["ready"] else 503), safe


def _collections(c: Call) -> tuple[int, Any]:
    rows = c.service.collections()
    if c.token is not None:
        rows = [r for r in rows if c.token.allows_collection(r["name"])]
    return 200, {"collections": rows}


def _stats(c: Call) -> tuple[int, Any]:
    return 200, c.service.stats(collection=c.collection)


def _metrics(c: Call) -> tuple[int, Any]:
    return 200, c.service.metrics(collection=c.collection)


def _list(c: Call) -> tuple[int, Any]:
    return 200, {"memories": c.service.list_recent(**c.query, collection=c.collection)}


def _wait_flag(c: Call) -> Any:
    return c.body.get("wait", c.query.get("wait"))


def _remember(c: Call) -> tuple[int, Any]:
    from houkai.domain.coerce import as_bool

    wait = as_bool(_wait_flag(c), "wait", False)
    result = c.service.remember(**c.kw(c.body, "wait"), wait=wait, collection=c.collection)
    if wait and not result.get("timed_out"):
        memory = result.pop("memory", {})
        return 201, {"stored": True, **memory, "job_id": result.get("job_id")}
    result.pop("memory", None)
    return 202, {**result, "ids": [result["id"]]}


def _remember_batch(c: Call) -> tuple[int, Any]:
    from houkai.domain.coerce import as_bool

    wait = as_bool(_wait_flag(c), "wait", False)
    result = c.service.remember_many(**c.kw(c.body, "wait"), wait=wait, collection=c.collection)
    return (201 if wait and not result.get("timed_out") else 202), result


def _get(c: Call) -> tuple[int, Any]:
    return 200, c.service.get(c.params["memory_id"], collection=c.collection)


def _edit(c: Call) -> tuple[int, Any]:
    result = c.service.edit(c.params["memory_id"], **c.body, collection=c.collection)
    return 200, result["memory"]


def _forget(c: Call) -> tuple[int, Any]:
    memory_id = c.params["memory_id"]
    if not c.service.forget(memory_id, collection=c.collection)["deleted"]:
        raise NotFound("memory not found")
    return 200, {"forgotten": True, "id": memory_id}


def _neighbors(c: Call) -> tuple[int, Any]:
    rows = c.service.neighbors(c.params["memory_id"], **c.query, collection=c.collection)
    return 200, {"neighbors": rows}


def _history(c: Call) -> tuple[int, Any]:
    memory_id = c.params["memory_id"]
    return 200, {"id": memory_id, "history": c.service.history(memory_id, collection=c.collection)}


def _get_at(c: Call) -> tuple[int, Any]:
    result = c.service.get_at(c.params["memory_id"], c.query.get("ts"), collection=c.collection)
    if not result.get("ok"):
        raise NotFound(result.get("error") or "memory did not exist at that time")
    return 200, result


def _state_at(c: Call) -> tuple[int, Any]:
    return 200, c.service.state_at(c.query.get("ts"), collection=c.collection)


def _purge(c: Call) -> tuple[int, Any]:
    return 200, c.service.purge_expired(**c.body, collection=c.collection)


def _recall_get(c: Call) -> tuple[int, Any]:
    return 200, {"results": c.service.recall(**c.query, collection=c.collection)}


def _recall_post(c: Call) -> tuple[int, Any]:
    return 200, {"results": c.service.recall(**c.body, collection=c.collection)}


def _recall_pack(c: Call) -> tuple[int, Any]:
    return 200, c.service.recall_pack(**c.body, collection=c.collection)


def _auto_context(c: Call) -> tuple[int, Any]:
    return 200, c.service.auto_context(**c.body, collection=c.collection)


def _link(c: Call) -> tuple[int, Any]:
    return 200, c.service.link(**c.body, collection=c.collection)


def _unlink(c: Call) -> tuple[int, Any]:
    return 200, c.service.unlink(**c.body, collection=c.collection)


def _supersede(c: Call) -> tuple[int, Any]:
    return 200, c.service.supersede(**c.body, collection=c.collection)


def _restore(c: Call) -> tuple[int, Any]:
    return 200, c.service.restore(**c.body, collection=c.collection)


def _conflicts(c: Call) -> tuple[int, Any]:
    return 200, {"conflicts": c.service.find_conflicts(**c.body, collection=c.collection)}


def _subgraph(c: Call) -> tuple[int, Any]:
    return 200, c.service.subgraph(**c.body, collection=c.collection)


def _undo(c: Call) -> tuple[int, Any]:
    return 200, c.service.undo(**c.body, collection=c.collection)


def _nuke(c: Call) -> tuple[int, Any]:
    return 200, c.service.nuke(**c.body, collection=c.collection)


def _journal(c: Call) -> tuple[int, Any]:
    entries = c.service.journal_tail(**c.query, collection=c.collection)
    return 200, {"count": len(entries), "entries": entries}


@dataclass
class Download:
    """A streamed file response (``GET /export``): the adapter sends *chunks* as is."""

    chunks: Any
    filename: str
    mimetype: str = "application/gzip"
    headers: dict[str, str] = field(default_factory=dict)


def _server_path(c: Call, args: dict[str, Any]) -> dict[str, Any]:
    """Apply the one server-path policy (admin token, inside export_dir) to ``path``."""
    from houkai.app.serverpaths import resolve_server_path

    path = resolve_server_path(args.get("path"), settings=c.service.settings, grant=c.token)
    return {**args, "path": path}


def _export(c: Call) -> tuple[int, Any]:
    return 200, c.service.export(**_server_path(c, c.body), collection=c.collection)


def _export_stream(c: Call) -> tuple[int, Any]:
    chunks, summary = c.service.export_stream(**c.query, collection=c.collection)
    name = c.collection or c.service.settings.collection
    return 200, Download(
        chunks,
        f"{name}.ahkai",
        headers={"X-Houkai-Count": str(summary["count"]), "Content-Length": str(summary["bytes"])},
    )


def _import(c: Call) -> tuple[int, Any]:
    if c.upload is not None:
        return 200, c.service.import_stream(c.upload, **c.query, collection=c.collection)
    args = _server_path(c, {**c.query, **c.body})
    return 200, c.service.import_(**args, collection=c.collection)


def _tick(c: Call) -> tuple[int, Any]:
    return 200, c.service.maintenance_tick(**c.body, collection=c.collection)


def _jobs(c: Call) -> tuple[int, Any]:
    return 200, {"jobs": c.service.jobs(**c.query, collection=c.collection)}


def _job(c: Call) -> tuple[int, Any]:
    return 200, c.service.job(c.params["job_id"], collection=c.collection)


def _ingest(c: Call) -> tuple[int, Any]:
    from houkai.domain.coerce import as_bool

    wait = as_bool(_wait_flag(c), "wait", False)
    result = c.service.ingest(**c.kw(c.body, "wait"), wait=wait, collection=c.collection)
    return (201 if wait and not result.get("timed_out") else 202), result


def _whoami(c: Call) -> tuple[int, Any]:
    from houkai.app.dashboard import whoami

    return 200, whoami(c.token, c.tokens_configured)


def _browse(c: Call) -> tuple[int, Any]:
    from houkai.app.dashboard import browse

    return 200, browse(c.service, **c.query, collection=c.collection)


def _facets(c: Call) -> tuple[int, Any]:
    from houkai.app.dashboard import facets

    return 200, facets(c.service, **c.query, collection=c.collection)


def _growth(c: Call) -> tuple[int, Any]:
    from houkai.app.dashboard import growth

    return 200, growth(c.service, **c.query, collection=c.collection)


def _pipeline_status(c: Call) -> tuple[int, Any]:
    from houkai.app.dashboard import pipeline_status

    return 200, pipeline_status(c.service, collection=c.collection)


def _job_retry(c: Call) -> tuple[int, Any]:
    from houkai.app.dashboard import retry_job

    return 200, retry_job(c.service, c.params["job_id"], collection=c.collection)


# --------------------------------------------------------------------------- rows

_FILTERS = {
    "type": MEMORY_TYPE,
    "tag": STR,
    "min_importance": rng("number", 0, 1),
    "source": STR,
    "since": TIMESTAMP,
    "until": TIMESTAMP,
}
_RECALL_QUERY = {
    "query": _t("string", minLength=1),
    "k": _t("integer", minimum=1, maximum=10000),
    **_FILTERS,
    "mode": _t("string", enum=["semantic", "hybrid"]),
    "overfetch": _t("integer", minimum=1, maximum=100),
    "include_superseded": BOOL,
    "include_expired": BOOL,
    "explain": BOOL,
    "touch": BOOL,
}
_EXPAND = obj(
    {
        "rels": arr(REL),
        "depth": rng("integer", 1, 1000),
        "cap": rng("integer", 0, 1000),
        "score": NUM,
        "decay": _t("number", exclusiveMinimum=0, maximum=1),
        "rerank": BOOL,
    }
)
_ADVANCED = {
    "fusion": _t("string", enum=list(FUSIONS)),
    "diversity": rng("number", 0, 1),
    "dedup_threshold": rng("number", 0, 1),
    "min_cosine": rng("number", -1, 1),
    "graph": rng("number", 0, description="Graph-proximity weight (hybrid)."),
    "expand": {"anyOf": [BOOL, _EXPAND]},
}
_COMPRESS = {
    "compress": BOOL,
    "compress_threshold": rng("number", 0, 1),
    "compress_min_group": rng("integer", 1, 10000),
}
_ITEM = obj(
    {
        "text": TEXT,
        "type": MEMORY_TYPE,
        "tags": TAGS,
        "importance": NUM,
        "source": STR,
        "polarity": _t("integer", enum=[-1, 0, 1]),
        "expires_at": rng("number", 0, MAX_TIMESTAMP),
        "ttl_seconds": _t("number", exclusiveMinimum=0, maximum=MAX_TTL_SECONDS),
    },
    ("text",),
) | {"not": {"required": ["expires_at", "ttl_seconds"]}}
_WAIT = {
    "wait": _t("boolean", description="Block until stored memories are recallable."),
    "timeout": rng("number", 0, description="Seconds to wait at most (then 202)."),
}
_ID_PARAM = "memory_id"

OK = "OK"


def _r(code: int, schema: dict[str, Any] | None, text: str = OK) -> dict[int, tuple]:
    return {code: (text, schema)}


ROUTES: list[Route] = [
    Route(
        "health",
        "GET",
        "/health",
        _health,
        "Liveness: {status, count}; no auth.",
        scoped=False,
        auth=False,
        tag="ops",
        responses=_r(200, obj({"status": STR, "count": INT}, ("status",))),
    ),
    Route(
        "ready",
        "GET",
        "/ready",
        _ready,
        "Readiness (backend + embedder probe, cached ~5 s): 200 ready / 503; no auth.",
        scoped=False,
        auth=False,
        tag="ops",
        responses={
            200: ("Ready", obj({"ready": BOOL, "checks": _t("object")}, ("ready",))),
            503: ("Not ready", obj({"ready": BOOL, "checks": _t("object")})),
        },
    ),
    Route(
        "collections",
        "GET",
        "/collections",
        _collections,
        "Collections (those the token may use) with their counts.",
        scoped=False,
        tag="ops",
        responses=_r(
            200,
            obj(
                {
                    "collections": arr(
                        obj(
                            {"name": STR, "count": _t(["integer", "null"]), "default": BOOL},
                            ("name",),
                        )
                    )
                },
                ("collections",),
            ),
        ),
    ),
    Route(
        "stats",
        "GET",
        "/stats",
        _stats,
        "Store statistics: count, path, collection, …",
        tag="ops",
        responses=_r(200, obj({"count": INT, "collection": STR}, ("count",), extra=True)),
    ),
    Route(
        "metrics",
        "GET",
        "/metrics",
        _metrics,
        "Runtime counters and recall latency (§22).",
        tag="ops",
        responses=_r(200, ref("Object")),
    ),
    Route(
        "list_recent",
        "GET",
        "/memories",
        _list,
        "Newest memories first.",
        query={
            "limit": _t("integer", minimum=0, maximum=10000),
            "include_superseded": BOOL,
            "include_expired": BOOL,
            "type": MEMORY_TYPE,
            "tag": STR,
        },
        responses=_r(200, LIST_OF_MEMORIES),
    ),
    Route(
        "remember",
        "POST",
        "/memories",
        _remember,
        "Store a memory. 202 {id, ids, job_id, state} while it embeds; with wait=true "
        "201 with the stored memory; 409 when on_conflict=raise finds a conflict.",
        write=True,
        query={"wait": BOOL},
        body=obj({**_ITEM["properties"], "on_conflict": POLICY, **_WAIT}, ("text",))
        | {"not": _ITEM["not"]},
        responses={
            201: ("Stored", ref("Memory")),
            202: ("Accepted", ref("Object")),
            409: ("Conflict", ref("Error")),
        },
    ),
    Route(
        "remember_many",
        "POST",
        "/memories/batch",
        _remember_batch,
        "Store many memories as one job (202 {stored, ids, job_id}; wait=true → 201 with "
        "memories). on_conflict=raise is rejected.",
        write=True,
        query={"wait": BOOL},
        body=obj(
            {
                "items": arr({"oneOf": [TEXT, _ITEM]}),
                "batch_size": rng("integer", 1, 100_000),
                "on_conflict": _t("string", enum=[p for p in CONFLICT_POLICIES if p != "raise"]),
                **_WAIT,
            },
            ("items",),
        ),
        responses={201: ("Stored", ref("Object")), 202: ("Accepted", ref("Object"))},
    ),
    Route(
        "get",
        "GET",
        "/memories/{memory_id}",
        _get,
        "One memory by id.",
        responses=_r(200, ref("Memory")),
    ),
    Route(
        "edit",
        "PATCH",
        "/memories/{memory_id}",
        _edit,
        "Edit fields in place (journaled; null = unchanged, source null clears, "
        "expires_at 0 clears).",
        write=True,
        body=obj(
            {
                "text": TEXT,
                "type": MEMORY_TYPE,
                "tags": TAGS,
                "importance": NUM,
                "polarity": _t("integer", enum=[-1, 0, 1]),
                "source": _t(["string", "null"]),
                "expires_at": rng("number", 0, MAX_TIMESTAMP),
            }
        )
        | {"minProperties": 1},
        responses=_r(200, ref("Memory")),
    ),
    Route(
        "forget",
        "DELETE",
        "/memories/{memory_id}",
        _forget,
        "Hard-delete a memory.",
        write=True,
        responses=_r(200, obj({"forgotten": BOOL, "id": STR})),
    ),
    Route(
        "neighbors",
        "GET",
        "/memories/{memory_id}/neighbors",
        _neighbors,
        "Memories linked to this one.",
        tag="graph",
        query={
            "rel": REL,
            "direction": _t("string", enum=list(DIRECTIONS)),
            "depth": _t("integer", minimum=1, maximum=10),
        },
        responses=_r(200, obj({"neighbors": arr(ref("Memory"))}, ("neighbors",))),
    ),
    Route(
        "history",
        "GET",
        "/memories/{memory_id}/history",
        _history,
        "Journaled timeline of one memory, oldest first.",
        tag="audit",
        responses=_r(200, obj({"id": STR, "history": arr(ref("JournalEntry"))})),
    ),
    Route(
        "get_at",
        "GET",
        "/memories/{memory_id}/at",
        _get_at,
        "One memory as of a past time (404 if it did not exist then).",
        tag="audit",
        query={"ts": TIMESTAMP},
        required_query=("ts",),
        responses=_r(200, ref("Memory")),
    ),
    Route(
        "state_at",
        "GET",
        "/state_at",
        _state_at,
        "All live memories reconstructed as of a past time.",
        tag="audit",
        query={"ts": TIMESTAMP},
        required_query=("ts",),
        responses=_r(200, obj({"ts": NUM, "count": INT, "memories": arr(ref("Memory"))})),
    ),
    Route(
        "purge_expired",
        "POST",
        "/purge_expired",
        _purge,
        "Hard-delete memories whose TTL passed.",
        write=True,
        body=obj({"dry_run": BOOL}),
        responses=_r(200, obj({"purged": INT, "dry_run": BOOL, "ids": arr(STR)})),
    ),
    Route(
        "recall_get",
        "GET",
        "/recall",
        _recall_get,
        "Search (stable parameter set).",
        tag="recall",
        query=_RECALL_QUERY,
        required_query=("query",),
        responses=_r(200, obj({"results": arr(ref("Memory"))}, ("results",))),
    ),
    Route(
        "recall",
        "POST",
        "/recall",
        _recall_post,
        "Search, with the advanced ranking knobs in the body.",
        tag="recall",
        body=obj({**_RECALL_QUERY, **_ADVANCED}, ("query",)),
        responses=_r(200, obj({"results": arr(ref("Memory"))}, ("results",))),
    ),
    Route(
        "recall_pack",
        "POST",
        "/recall_pack",
        _recall_pack,
        "Token-budgeted context block.",
        tag="recall",
        body=obj(
            {
                "query": STR,
                "token_budget": rng("integer", 1, 1_000_000),
                **_FILTERS,
                "mode": _t("string", enum=["semantic", "hybrid"]),
                "max_items": rng("integer", 1, 10000),
                "include_superseded": BOOL,
                "header": STR,
                **_COMPRESS,
                **_ADVANCED,
            },
            ("query",),
        ),
        responses=_r(200, ref("Pack")),
    ),
    Route(
        "auto_context",
        "POST",
        "/auto_context",
        _auto_context,
        "Multi-angle context block for a task (recall_pack shape + queries).",
        tag="recall",
        body=obj(
            {
                "task": STR,
                "token_budget": rng("integer", 1, 1_000_000),
                "max_phrases": rng("integer", 0, 20),
                "mode": _t("string", enum=["semantic", "hybrid"]),
                "min_cosine": rng("number", -1, 1),
                "header": STR,
                **_COMPRESS,
            },
            ("task",),
        ),
        responses=_r(200, ref("Pack")),
    ),
    Route(
        "link",
        "POST",
        "/links",
        _link,
        "Add a directed typed link.",
        write=True,
        tag="graph",
        body=obj({"src_id": STR, "dst_id": STR, "rel": REL}, ("src_id", "dst_id")),
        responses=_r(200, obj({"ok": BOOL, "src_id": STR, "dst_id": STR, "rel": STR})),
    ),
    Route(
        "unlink",
        "POST",
        "/unlink",
        _unlink,
        "Remove link(s) src→dst (all rels if none).",
        write=True,
        tag="graph",
        body=obj({"src_id": STR, "dst_id": STR, "rel": REL}, ("src_id", "dst_id")),
        responses=_r(200, obj({"removed": INT})),
    ),
    Route(
        "supersede",
        "POST",
        "/supersede",
        _supersede,
        "Soft-delete old_id in favour of new_id.",
        write=True,
        tag="graph",
        body=obj({"old_id": STR, "new_id": STR}, ("old_id", "new_id")),
        responses=_r(200, obj({"ok": BOOL, "old_id": STR, "new_id": STR})),
    ),
    Route(
        "restore",
        "POST",
        "/restore",
        _restore,
        "Clear a supersede.",
        write=True,
        tag="graph",
        body=obj({"memory_id": STR}, ("memory_id",)),
        responses=_r(200, obj({"restored": BOOL, "id": STR})),
    ),
    Route(
        "conflicts",
        "POST",
        "/conflicts",
        _conflicts,
        "Duplicate / contradiction scan (one memory or the whole collection).",
        tag="graph",
        body=obj({"memory_id": ID, "threshold": rng("number", 0, 1)}),
        responses=_r(200, obj({"conflicts": arr(ref("Conflict"))}, ("conflicts",))),
    ),
    Route(
        "subgraph",
        "POST",
        "/subgraph",
        _subgraph,
        "Link graph reachable from ids.",
        tag="graph",
        body=obj(
            {"memory_ids": arr(ID) | {"minItems": 1}, "depth": rng("integer", 0, 10)},
            ("memory_ids",),
        ),
        responses=_r(
            200,
            obj(
                {
                    "nodes": arr(ref("Memory")),
                    "edges": arr(obj({"src": STR, "dst": STR, "rel": STR})),
                },
                ("nodes", "edges"),
            ),
        ),
    ),
    Route(
        "undo",
        "POST",
        "/undo",
        _undo,
        "Reverse a journaled mutation: by entry_id, else the newest touching memory_id, "
        "else the newest.",
        write=True,
        tag="audit",
        body=obj({"entry_id": _t("string", pattern="^[0-9]{1,15}-[0-9]{1,15}$"), "memory_id": ID}),
        responses={
            200: (OK, obj({"ok": BOOL, "op": STR, "id": STR, "ts": NUM}, extra=True)),
            409: ("Refused: the memory or journal changed since", ref("Error")),
        },
    ),
    Route(
        "nuke",
        "POST",
        "/nuke",
        _nuke,
        'Delete every memory of the collection; body {"confirm": "DELETE ALL"}.',
        write=True,
        body=obj({"confirm": _t("string", const="DELETE ALL")}, ("confirm",)),
        responses=_r(200, obj({"ok": BOOL, "deleted": INT})),
    ),
    Route(
        "journal",
        "GET",
        "/journal",
        _journal,
        "Audit-journal tail, newest first.",
        tag="audit",
        query={
            "n": _t("integer", minimum=1, maximum=10000),
            "op": STR,
            "since_seconds": rng("number", 0),
        },
        responses=_r(200, obj({"count": INT, "entries": arr(ref("JournalEntry"))})),
    ),
    Route(
        "export_stream",
        "GET",
        "/export",
        _export_stream,
        "Download the collection (filtered) as a .ahkai archive (gzipped JSONL) in the body.",
        tag="portability",
        query={
            "include_vectors": BOOL,
            "include_superseded": BOOL,
            "type": STR,
            "tag": STR,
            "since": TIMESTAMP,
        },
        responses=_r(200, {"type": "string", "contentMediaType": "application/gzip"}),
        content_type="application/gzip",
    ),
    Route(
        "export",
        "POST",
        "/export",
        _export,
        "Write a .ahkai archive to a server path inside export_dir (admin tokens only).",
        write=True,
        tag="portability",
        body=obj(
            {
                "path": STR,
                "include_vectors": BOOL,
                "include_superseded": BOOL,
                "type": {"oneOf": [STR, arr(STR)]},
                "tag": {"oneOf": [STR, arr(STR)]},
                "since": TIMESTAMP,
            },
            ("path",),
        ),
        responses=_r(200, obj({"path": STR, "count": INT, "bytes": INT, "elapsed": NUM})),
    ),
    Route(
        "import",
        "POST",
        "/import",
        _import,
        "Import a .ahkai archive sent as the body (application/gzip; options in the query), "
        'or, for admin tokens, JSON {"path": …} naming a file inside export_dir.',
        write=True,
        tag="portability",
        query={
            "on_conflict": _t("string", enum=["skip", "overwrite", "rename", "error"]),
            "regenerate_vectors": BOOL,
            "dry_run": BOOL,
        },
        body=obj(
            {
                "path": STR,
                "on_conflict": _t("string", enum=["skip", "overwrite", "rename", "error"]),
                "regenerate_vectors": BOOL,
                "dry_run": BOOL,
            },
            ("path",),
        ),
        responses=_r(
            200,
            obj(
                {"ok": BOOL, "imported": INT, "errors": arr(ref("Object")), "errors_total": INT},
                extra=True,
            ),
        ),
        upload=True,
    ),
    Route(
        "maintenance_tick",
        "POST",
        "/maintenance/tick",
        _tick,
        "Run every due maintenance job once (decay, purge, reflect, …).",
        write=True,
        tag="ops",
        body=obj({"reflect_apply": BOOL, "force": BOOL}),
        responses=_r(200, obj({"summary": STR}, extra=True)),
    ),
    Route(
        "jobs",
        "GET",
        "/jobs",
        _jobs,
        "Recent ingestion jobs.",
        tag="jobs",
        query={"limit": _t("integer", minimum=1, maximum=1000)},
        responses=_r(200, obj({"jobs": arr(ref("Job"))}, ("jobs",))),
    ),
    Route(
        "job",
        "GET",
        "/jobs/{job_id}",
        _job,
        "One ingestion job's progress.",
        tag="jobs",
        responses=_r(200, ref("Job")),
    ),
    Route(
        "ingest",
        "POST",
        "/ingest",
        _ingest,
        "Chunk documents into memories as one job (202 {job_id, total, ids}).",
        write=True,
        tag="jobs",
        query={"wait": BOOL},
        body=obj(
            {
                "documents": arr(
                    obj({"text": TEXT, "source": STR, "tags": TAGS, "type": MEMORY_TYPE}, ("text",))
                )
                | {"minItems": 1},
                "max_chars": rng("integer", 20, 1_000_000),
                "min_chars": rng("integer", 1, 1_000_000),
                "chunking": {"type": "string", "enum": ["paragraph", "pack"]},
                **_WAIT,
            },
            ("documents",),
        ),
        responses={201: ("Done", ref("Object")), 202: ("Accepted", ref("Object"))},
    ),
    # ---- dashboard (houkai.app.dashboard): read views the web UI needs, plus job retry
    Route(
        "whoami",
        "GET",
        "/whoami",
        _whoami,
        "What the caller's token may do: read_only and its collections (null = all).",
        scoped=False,
        tag="dashboard",
        responses=_r(
            200,
            obj(
                {"auth": BOOL, "read_only": BOOL, "collections": _t(["array", "null"], items=STR)},
                ("read_only",),
            ),
        ),
    ),
    Route(
        "browse",
        "GET",
        "/browse",
        _browse,
        "One keyset page of memories, highest sort key first (created, importance or "
        "decay score); pass the reply's next as after for the following page.",
        tag="dashboard",
        query={
            "sort": _t("string", enum=["created", "importance", "decay"]),
            "after": _t("string", pattern=CURSOR_PATTERN),
            "limit": _t("integer", minimum=1, maximum=200),
            "type": MEMORY_TYPE,
            "tag": STR,
            "include_superseded": BOOL,
        },
        responses=_r(
            200,
            obj(
                {"sort": STR, "memories": arr(ref("Memory")), "next": _t(["string", "null"])},
                ("memories", "next"),
            ),
        ),
    ),
    Route(
        "facets",
        "GET",
        "/facets",
        _facets,
        "Active memories per type and the most used tags (the browse facets; far "
        "cheaper than /stats).",
        tag="dashboard",
        query={"top_tags": _t("integer", minimum=0, maximum=100)},
        responses=_r(
            200,
            obj(
                {"by_type": _t("object"), "active": INT, "top_tags": _t("object")},
                ("by_type", "top_tags"),
            ),
        ),
    ),
    Route(
        "growth",
        "GET",
        "/growth",
        _growth,
        "Memories created per hour/day/week (with running total) and Redis bytes per memory.",
        tag="dashboard",
        query={"bucket": _t("string", enum=["hour", "day", "week"])},
        responses=_r(
            200,
            obj(
                {
                    "bucket": STR,
                    "series": arr(obj({"t": INT, "n": INT, "total": INT})),
                    "count": INT,
                    "redis": _t("object"),
                },
                ("series",),
            ),
        ),
    ),
    Route(
        "pipeline_status",
        "GET",
        "/pipeline",
        _pipeline_status,
        "Queue depths, embedding workers (last heartbeat) and the maintenance schedule "
        "with each job's last run, next run and result.",
        tag="jobs",
        responses=_r(
            200,
            obj(
                {
                    "queues": _t("object"),
                    "workers": arr(_t("object")),
                    "workers_alive": INT,
                    "maintenance": _t("object"),
                },
                ("queues", "workers", "maintenance"),
                extra=True,
            ),
        ),
    ),
    Route(
        "job_retry",
        "POST",
        "/jobs/{job_id}/retry",
        _job_retry,
        "Re-queue the failed memories of one job.",
        write=True,
        tag="jobs",
        responses=_r(200, obj({"job_id": STR, "requeued": INT})),
    ),
]


def route_by_name(name: str) -> Route:
    for route in ROUTES:
        if route.name == name:
            return route
    raise KeyError(name)
