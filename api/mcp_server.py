"""The houkai MCP server: the service layer's tools over stdio or streamable HTTP.

Every tool is one row of :data:`TOOLS` (name, description, JSON schema,
service method, read-only flag), so names and arguments cannot drift between
the MCP listing, the service and the agent examples (which build their
provider tool definitions from the same table). Tool calls go through
:meth:`houkai.app.service.MemoryService.dispatch`: validation and business rules
live there, once. Errors become MCP tool errors carrying the
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

from houkai.domain.model import (
    CONFLICT_POLICIES,
    DIRECTIONS,
    IMPORT_POLICIES,
    LINK_RELS,
    MAX_TIMESTAMP,
    MAX_TTL_SECONDS,
    MEMORY_TYPES,
    RECALL_MODES,
    ValidationError,
)

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
    """One tool: what the model sees and which service method runs it."""

    name: str
    description: str
    properties: dict[str, dict[str, Any]] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    #: Arguments naming a file on the server; refused over HTTP.
    server_paths: tuple[str, ...] = ()
    #: Part of the seed's 23-tool surface (False: houkai extra).
    seed: bool = True
    #: The seed's result shape for a refused call (bad input, unknown id): the
    #: tool returns ``{**soft_error, "error": message}`` instead of a tool error.
    soft_error: dict[str, Any] | None = None

    @property
    def method(self) -> str:
        """The MemoryService method (``import`` is a keyword, hence ``import_``)."""
        return "import_" if self.name == "import" else self.name

    def input_schema(self, *, with_collection: bool = True) -> dict[str, Any]:
        props = dict(self.properties)
        if with_collection:
            props["collection"] = _COLLECTION
        schema: dict[str, Any] = {"type": "object", "properties": props}
        if self.required:
            schema["required"] = list(self.required)
        schema["additionalProperties"] = False
        return schema


def _s(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **extra}


def _i(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "integer", "description": description, **extra}


def _n(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "number", "description": description, **extra}


def _b(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "boolean", "description": description, **extra}


def _enum(values: tuple[str, ...], description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "enum": list(values), "description": description, **extra}


_COLLECTION = _s(
    "Memory namespace (collection) to use, e.g. one per project. Omit to use the server's "
    "default (HOUKAI_COLLECTION); only set it when asked to work in another namespace."
)
_MEMORY_ID = _s("Id of the memory (as returned by remember/recall).")
_TYPE = _enum(
    MEMORY_TYPES,
    "Kind of memory: episodic = a time-stamped event; semantic = a distilled fact; "
    "procedural = a how-to rule or convention; feedback = a user preference or correction.",
)
_TYPE_FILTER = _enum(MEMORY_TYPES, "Only memories of this type.")
_TAGS = {
    "type": "array",
    "items": {"type": "string"},
    "description": 'Short lowercase labels (no commas), e.g. ["deploy", "api"].',
}
_TAG_FILTER = _s("Only memories carrying this tag.")
_IMPORTANCE = _n("0..1; how much this matters long-term (default 0.5).", minimum=0, maximum=1)
_MIN_IMPORTANCE = _n("Only memories with importance >= this (0..1).", minimum=0, maximum=1)
_SOURCE = _s("Provenance string, e.g. a file path, URL or conversation id.")
_SOURCE_FILTER = _s("Only memories with exactly this source.")
_TIME_HELP = (
    "Epoch seconds, an ISO-8601 date/datetime, or a relative span like "
    '"7d" / "24h" (meaning that long ago).'
)


def _time(prefix: str) -> dict[str, Any]:
    return {"type": ["string", "number"], "description": f"{prefix} {_TIME_HELP}"}


_SINCE = _time("Only memories created at/after this time.")
_UNTIL = _time("Only memories created at/before this time.")
_MODE = _enum(
    RECALL_MODES,
    "semantic = meaning only; hybrid = meaning + keywords (BM25) + recency + importance; "
    "prefer hybrid when the query has exact names, ids or rare words.",
)
_POLARITY = _i('-1 negative ("don\'t", "never"), 0 neutral, +1 positive.', minimum=-1, maximum=1)
_EXPIRES_AT = _n(
    "Epoch seconds after which the memory expires (hidden, later purged).",
    minimum=0,
    maximum=MAX_TIMESTAMP,
)
_TTL = _n(
    "Expire this many seconds from now (alternative to expires_at).",
    minimum=0,
    maximum=MAX_TTL_SECONDS,
)
_ON_CONFLICT = _enum(
    CONFLICT_POLICIES,
    "What to do when a near-duplicate or contradicting memory exists: ignore (store anyway), "
    "warn (store and report), supersede (store and hide the old one), raise (don't store; "
    "return the conflicts). Default: the server's policy.",
)
_INCLUDE_SUPERSEDED = _b("Also return memories that were superseded by newer ones.")
_INCLUDE_EXPIRED = _b("Also return memories whose TTL has passed.")
_TOKEN_BUDGET = _i("Approximate token budget for the packed memory lines (default 800).", minimum=1)
_MIN_COSINE = _n(
    "Drop results less similar than this (-1..1, e.g. 0.3) so an off-topic query returns "
    "nothing rather than weak matches.",
    minimum=-1,
    maximum=1,
)
_REL = _enum(LINK_RELS, "Link relation (default related).")
_TS = _time("Point in time.")
_ITEM = {
    "type": "object",
    "properties": {
        "text": _s("The memory text."),
        "type": _TYPE,
        "tags": _TAGS,
        "importance": _IMPORTANCE,
        "source": _SOURCE,
        "polarity": _POLARITY,
        "expires_at": _EXPIRES_AT,
        "ttl_seconds": _TTL,
    },
    "required": ["text"],
    "additionalProperties": False,
}
_RECALL_FILTERS = {
    "type": _TYPE_FILTER,
    "tag": _TAG_FILTER,
    "min_importance": _MIN_IMPORTANCE,
    "source": _SOURCE_FILTER,
    "since": _SINCE,
    "until": _UNTIL,
    "mode": _MODE,
}

TOOLS: tuple[ToolSpec, ...] = (
    # --- core -----------------------------------------------------------------------
    ToolSpec(
        "remember",
        "Store one new long-term memory: a fact, decision, convention, preference or event, "
        "written as a single self-contained statement. By default waits until it is "
        "recallable. Returns {id, stored, importance, expires_at}, or {stored: false, "
        "conflicts} when on_conflict=raise found a near-duplicate/contradiction.",
        {
            "text": _s("The memory, one self-contained statement (no secrets)."),
            "type": _TYPE,
            "tags": _TAGS,
            "importance": _IMPORTANCE,
            "source": _SOURCE,
            "on_conflict": _ON_CONFLICT,
            "polarity": _POLARITY,
            "expires_at": _EXPIRES_AT,
            "ttl_seconds": _TTL,
            "wait": _b("Wait until the memory is embedded and recallable (default true)."),
            "timeout": _n("Seconds to wait at most when wait is true.", minimum=0),
        },
        ("text",),
    ),
    ToolSpec(
        "remember_many",
        "Store many memories in one batch (bulk import of notes). Items are validated "
        "all-or-nothing, written at once and embedded in the background; returns a job id "
        "(check it with the job tool) unless wait=true. on_conflict=raise is not allowed here.",
        {
            "items": {
                "type": "array",
                "items": _ITEM,
                "minItems": 1,
                "description": "The memories to store.",
            },
            "batch_size": _i("Embedding batch size.", minimum=1),
            "on_conflict": _enum(
                tuple(p for p in CONFLICT_POLICIES if p != "raise"),
                "Conflict policy for each item (default: server policy).",
            ),
            "wait": _b("Wait until every item is recallable (default false)."),
            "timeout": _n("Seconds to wait at most when wait is true.", minimum=0),
        },
        ("items",),
        soft_error={"stored": 0},
    ),
    ToolSpec(
        "edit",
        "Change an existing memory in place (keeps its id, links and history; journaled and "
        "undoable). Only the given fields change; a new text is re-embedded. Use this to fix "
        "or refine a memory instead of forget + remember.",
        {
            "memory_id": _MEMORY_ID,
            "text": _s("New text."),
            "type": _TYPE,
            "tags": {**_TAGS, "description": "New tag list (replaces the old one)."},
            "importance": _IMPORTANCE,
            "polarity": _POLARITY,
            "source": _SOURCE,
            "clear_source": _b("True removes the source (do not combine with source)."),
            "expires_at": _n("New expiry (epoch seconds); 0 removes the expiry."),
        },
        ("memory_id",),
        soft_error={"ok": False},
    ),
    ToolSpec(
        "recall",
        "Search long-term memory for what is relevant to a query, best first. Returns a list "
        "of {id, text, type, tags, importance, score, created_at, superseded_by, expires_at}. "
        "Call it before starting a task or when the user refers to something from before.",
        {
            "query": _s("What to look for, in natural language."),
            "k": _i("How many results (default 5).", minimum=1),
            **_RECALL_FILTERS,
            "overfetch": _i(
                "Candidate pool multiplier for filtering/reranking (default 4).", minimum=1
            ),
            "include_superseded": _INCLUDE_SUPERSEDED,
            "include_expired": _INCLUDE_EXPIRED,
            "explain": _b("Add a per-result score breakdown."),
            "min_cosine": _MIN_COSINE,
        },
        ("query",),
        read_only=True,
    ),
    ToolSpec(
        "recall_pack",
        "Recall the most relevant memories and pack them into a ready-to-read text block "
        "within a token budget (hybrid ranking by default). Returns {text, used_tokens, "
        "budget, truncated, items, compressed_groups}. Use it to load context cheaply.",
        {
            "query": _s("What the context is for."),
            "token_budget": _TOKEN_BUDGET,
            **_RECALL_FILTERS,
            "max_items": _i("Most memories to consider (default 50).", minimum=1),
            "include_superseded": _INCLUDE_SUPERSEDED,
            "compress": _b("Fold similar memories that do not fit into one summary line."),
            "compress_threshold": _n(
                "Similarity for folding (0..1, default 0.30).", minimum=0, maximum=1
            ),
            "compress_min_group": _i("Smallest group to fold (default 2).", minimum=2),
            "min_cosine": _MIN_COSINE,
        },
        ("query",),
        read_only=True,
    ),
    ToolSpec(
        "auto_context",
        "Best first call for a new task: searches memory from several angles (the task plus "
        "its key phrases), merges and packs the results into a text block within a token "
        "budget. Returns {text, queries, used_tokens, budget, truncated, items}.",
        {
            "task": _s("The task or question you are about to work on."),
            "token_budget": _TOKEN_BUDGET,
            "max_phrases": _i("Extra key-phrase searches (default 3).", minimum=0),
            "mode": _MODE,
            "min_cosine": _MIN_COSINE,
            "compress": _b("Fold similar memories that do not fit into one summary line."),
        },
        ("task",),
        read_only=True,
    ),
    ToolSpec(
        "forget",
        "Permanently delete one memory by id (journaled; undo is possible from the journal). "
        "Returns {deleted}. Prefer edit to fix a memory, supersede to replace it.",
        {"memory_id": _MEMORY_ID},
        ("memory_id",),
        destructive=True,
        idempotent=True,
    ),
    ToolSpec(
        "purge_expired",
        "Hard-delete memories whose TTL has passed. Returns {purged, dry_run, ids}.",
        {"dry_run": _b("Only report what would be purged.")},
        destructive=True,
    ),
    ToolSpec(
        "list_recent",
        "The most recently created memories, newest first.",
        {
            "limit": _i("How many (default 20).", minimum=1),
            "include_superseded": _INCLUDE_SUPERSEDED,
            "include_expired": _INCLUDE_EXPIRED,
        },
        read_only=True,
    ),
    ToolSpec(
        "stats", "Memory count and where the store lives: {count, collection, ...}.", read_only=True
    ),
    ToolSpec(
        "metrics",
        "Runtime counters: {uptime_seconds, count, calls, recall_latency_ms, ...}.",
        read_only=True,
    ),
    # --- links ----------------------------------------------------------------------
    ToolSpec(
        "link",
        "Add a typed directed link src -> dst between two memories (idempotent). Returns "
        "{ok, src_id, dst_id, rel}.",
        {"src_id": _s("Source memory id."), "dst_id": _s("Target memory id."), "rel": _REL},
        ("src_id", "dst_id"),
        idempotent=True,
        soft_error={"ok": False},
    ),
    ToolSpec(
        "unlink",
        "Remove links src -> dst (all relations when rel is omitted). Returns {removed}.",
        {
            "src_id": _s("Source memory id."),
            "dst_id": _s("Target memory id."),
            "rel": _enum(LINK_RELS, "Only this relation."),
        },
        ("src_id", "dst_id"),
        destructive=True,
        idempotent=True,
    ),
    ToolSpec(
        "neighbors",
        "Memories linked to a memory: list of {id, text, type, tags, importance, rel}.",
        {
            "memory_id": _MEMORY_ID,
            "rel": _enum(LINK_RELS, "Only this relation."),
            "direction": _enum(DIRECTIONS, "out, in or both (default both)."),
            "depth": _i("Hops to follow (default 1).", minimum=1),
        },
        ("memory_id",),
        read_only=True,
    ),
    # --- conflicts ------------------------------------------------------------------
    ToolSpec(
        "find_conflicts",
        "Find near-duplicate or contradicting memories, for one memory or the whole store. "
        "Returns a list of {kind, reason, similarity, a, b}.",
        {
            "memory_id": _s("Check only this memory; omit to scan everything."),
            "threshold": _n(
                "Similarity cutoff 0..1 (default from config, 0.80).", minimum=0, maximum=1
            ),
        },
        read_only=True,
    ),
    ToolSpec(
        "supersede",
        "Mark old_id as replaced by new_id: the old memory is hidden from recall but kept "
        "(restorable) and linked. Returns {ok, old_id, new_id}.",
        {"old_id": _s("The outdated memory."), "new_id": _s("The memory that replaces it.")},
        ("old_id", "new_id"),
        soft_error={"ok": False},
    ),
    # --- maintenance & audit ------------------------------------------------------------
    ToolSpec(
        "maintenance_tick",
        "Run the maintenance jobs that are due (decay pruning, TTL purge, reflection, ...); "
        "safe to call often, jobs only run when their interval has elapsed. Returns {summary, "
        "ran_decay, ran_reflect, ran_purge, decayed, reflected, purged, ...}.",
        {"reflect_apply": _b("Write reflection summaries (default: the config's setting).")},
    ),
    ToolSpec(
        "journal_tail",
        "Recent audit-journal entries, newest first: list of {ts, op, actor, id, summary, meta}.",
        {
            "n": _i("How many (default 20).", minimum=1),
            "op": _s("Only this operation, e.g. remember, edit, forget, link, supersede."),
            "since_seconds": _n("Only entries from the last N seconds.", minimum=0),
        },
        read_only=True,
    ),
    ToolSpec(
        "history",
        "Full change timeline of one memory, oldest first: list of {ts, op, actor, id, "
        "before, after, meta, summary}.",
        {"memory_id": _MEMORY_ID},
        ("memory_id",),
        read_only=True,
    ),
    ToolSpec(
        "state_at",
        "The whole store as it was at a point in time: {ts, count, memories}.",
        {"ts": _TS},
        ("ts",),
        read_only=True,
    ),
    ToolSpec(
        "get_at",
        "One memory as it was at a point in time: {ok, ts, ...memory} or {ok: false, error}.",
        {"memory_id": _MEMORY_ID, "ts": _TS},
        ("memory_id", "ts"),
        read_only=True,
    ),
    ToolSpec(
        "export",
        "Export memories to a portable .ahkai file on the server. Returns {path, count, bytes, "
        "elapsed}.",
        {
            "path": _s(
                "Server-local output file path. Over HTTP: admin tokens only, relative to "
                "the server's export_dir."
            ),
            "include_vectors": _b("Include embeddings (default true)."),
            "include_superseded": _INCLUDE_SUPERSEDED,
            "type": _TYPE_FILTER,
            "tag": _TAG_FILTER,
            "since": _SINCE,
        },
        ("path",),
        server_paths=("path",),
    ),
    ToolSpec(
        "import",
        "Import memories from a .ahkai file on the server. Returns {ok, imported, skipped, "
        "overwritten, renamed, errors, vectors_regenerated}.",
        {
            "path": _s(
                "Server-local .ahkai file path. Over HTTP: admin tokens only, relative to "
                "the server's export_dir."
            ),
            "on_conflict": _enum(IMPORT_POLICIES, "When an id already exists (default skip)."),
            "regenerate_vectors": _b("Re-embed instead of using stored vectors."),
            "dry_run": _b("Only report what would happen."),
        },
        ("path",),
        server_paths=("path",),
        soft_error={"ok": False},
    ),
    # --- houkai extras -------------------------------------------------------------------
    ToolSpec(
        "get",
        "Fetch one memory by id with all its fields.",
        {"memory_id": _MEMORY_ID},
        ("memory_id",),
        read_only=True,
        seed=False,
    ),
    ToolSpec(
        "restore",
        "Un-supersede a memory so recall finds it again.",
        {"memory_id": _MEMORY_ID},
        ("memory_id",),
        idempotent=True,
        seed=False,
    ),
    ToolSpec(
        "undo",
        "Reverse one journaled change: a journal entry by entry_id, else the newest change "
        "to memory_id, else the newest change in the collection. Returns {ok, op, id, ts, "
        "actor, entry_id}.",
        {
            "entry_id": _s("Journal entry id (e.g. 1712345678901-0) from journal_tail."),
            "memory_id": _s("Undo the newest change touching this memory."),
        },
        seed=False,
    ),
    ToolSpec(
        "job",
        "Progress of a background job (from remember_many or ingest): {id, state, total, done, "
        "failed, rejected, eta_seconds, errors, conflicts, ...}.",
        {"job_id": _s("The job id.")},
        ("job_id",),
        read_only=True,
        seed=False,
    ),
    ToolSpec(
        "jobs",
        "Recent background jobs, newest first.",
        {"limit": _i("How many (default 20).", minimum=1)},
        read_only=True,
        seed=False,
    ),
    ToolSpec(
        "ingest",
        "Chunk and store whole documents (notes, docs) in the background; returns a job id. "
        "Give documents inline, or a server-local path (file, folder or glob of .md/.txt/"
        ".jsonl).",
        {
            "documents": {
                "type": "array",
                "description": "Documents to chunk and store.",
                "items": {
                    "type": "object",
                    "properties": {
                        "text": _s("Document text."),
                        "source": _SOURCE,
                        "tags": _TAGS,
                        "type": _TYPE,
                    },
                    "required": ["text"],
                    "additionalProperties": False,
                },
            },
            "path": _s("Server-local file, folder or glob to ingest."),
            "glob": _s('File pattern inside a folder, e.g. "**/*.md".'),
            "max_chars": _i("Longest chunk in characters.", minimum=1),
            "min_chars": _i("Shortest chunk in characters (shorter ones are dropped).", minimum=1),
            "chunking": {
                "type": "string",
                "enum": ["paragraph", "pack"],
                "description": "paragraph: one memory per paragraph (default); "
                "pack: paragraphs packed up to max_chars.",
            },
            "wait": _b("Wait until every chunk is recallable (default false)."),
            "timeout": _n("Seconds to wait at most when wait is true.", minimum=0),
        },
        server_paths=("path",),
        seed=False,
    ),
)

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
        from houkai.app.serverpaths import resolve_server_path

        settings = getattr(get_service(), "settings", None) or _settings()
        for param in spec.server_paths:
            if param in args:
                args[param] = resolve_server_path(
                    args[param], settings=settings, grant=grant, param=f"{name}: {param}"
                )
    service = get_service()
    if spec.soft_error is None:
        return service.dispatch(name, args)
    try:
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
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)


class BearerAuth:
    """ASGI middleware: requires ``Authorization: Bearer <token>`` from the configured set.

    The matching grant is put in the request scope (``houkai.grant``) so tool
    calls can enforce its collections and read-only mode.
    """

    def __init__(self, app: Any, grants: Mapping[str, Any]) -> None:
        self.app = app
        self.grants = dict(grants)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or not self.grants:
            await self.app(scope, receive, send)
            return
        from houkai.app.auth import authenticate

        header = None
        for key, value in scope.get("headers") or ():
            if key.lower() == b"authorization":
                header = value.decode("latin-1")
                break
        grant = authenticate(header, self.grants)
        if grant is None:
            body = json.dumps({"error": "missing or invalid bearer token"}).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                        (b"www-authenticate", b'Bearer realm="houkai"'),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        scope["houkai.grant"] = grant
        await self.app(scope, receive, send)


def build_http_app(*, tokens: str | None = None, host: str = "127.0.0.1") -> Any:
    """The streamable-HTTP ASGI app (stateless, JSON responses) at ``/mcp``, token-guarded."""
    from houkai.app.auth import parse_tokens

    grants = parse_tokens(tokens)
    server = build_server(http=True)
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH, stateless_http=True, json_response=True, host=host
    )
    return BearerAuth(app, grants)


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
    app = build_http_app(tokens=tokens, host=host)
    log.info("houkai MCP (streamable HTTP) on http://%s:%s%s", host, port, MCP_PATH)
    uvicorn.run(app, host=host, port=port, log_level="warning")


def serve(
    transport: str = "stdio",
    *,
    host: str | None = None,
    port: int | None = None,
    tokens: str | None = None,
) -> None:
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
