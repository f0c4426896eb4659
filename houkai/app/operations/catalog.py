"""Every operation, declared once. The doors (REST, OpenAPI, MCP, CLI, docs) read this."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import params as p
from . import results as r
from .session_ops import SESSION_OPERATIONS
from .spec import Cli, Operation, Response, Rest, Switch, Terminal


def ok(schema: Mapping[str, Any]) -> dict[int, Response]:
    return {200: ("OK", schema)}


#: ``--show N``: how many candidates a dry-run lists (purge, prune).
SHOW = Terminal(
    "--show", "List at most this many candidates.", {"type": "integer", "minimum": 0}, 50
)

OPERATIONS: tuple[Operation, ...] = (
    # --- the seed's 23 tools, in the seed's order ---------------------------------------
    Operation(
        "remember",
        "Store one memory (waits until it is recallable unless wait=false).",
        p.Remember,
        rest=(
            Rest(
                "POST",
                "/memories",
                {
                    201: ("Stored (wait=true)", r.MEMORY),
                    202: ("Accepted: queued (wait=false, or the wait timed out)", r.ANY),
                    409: ("Conflict", r.ERROR),
                },
                summary=(
                    "Store a memory: 201 with the stored memory (wait, the default), 202 "
                    "{id, ids, job_id, state} with wait=false; 409 when on_conflict=raise "
                    "finds a conflict."
                ),
                query_extra=("wait",),
            ),
        ),
        description="Store one new long-term memory: a fact, decision, convention, preference "
        "or event, written as a single self-contained statement. By default waits until it is "
        "recallable. Returns {id, stored, importance, expires_at}, or {stored: false, "
        "conflicts} when on_conflict=raise found a near-duplicate/contradiction.",
        writes=True,
        result="memory",
        short={"type": "-t", "tags": "-g", "importance": "-i", "source": "-s"},
        seed=True,
        cli=Cli(
            "remember",
            arguments=("text",),
            optional=("text",),  # stdin gives it
            switches=(Switch("--stdin", "", True, "Read the text from stdin."),),
            spans={"--ttl": "ttl_seconds"},
        ),
    ),
    Operation(
        "remember_many",
        "Store many memories as one job (all-or-nothing validation).",
        p.RememberMany,
        rest=(
            Rest(
                "POST",
                "/memories/batch",
                {201: ("Stored (wait=true)", r.ANY), 202: ("Accepted: queued", r.ANY)},
                summary=(
                    "Store many memories as one job: 201 {stored, ids, job_id, memories} "
                    "(wait, the default), 202 {stored, ids, job_id} with wait=false. "
                    "on_conflict=raise is rejected."
                ),
                query_extra=("wait",),
            ),
        ),
        description="Store many memories in one batch (bulk import of notes). Items are "
        "validated all-or-nothing, written at once and embedded; by default waits until they "
        "are recallable (wait=false returns a job id to check with the job tool). "
        "on_conflict=raise is not allowed here.",
        writes=True,
        result="memories",
        soft_error={"stored": 0},
        seed=True,
    ),
    Operation(
        "edit",
        "Edit a memory in place (journaled; only the given fields change).",
        p.Edit,
        rest=(
            Rest(
                "PATCH",
                "/memories/{memory_id}",
                ok(r.MEMORY),
                summary=(
                    "Edit fields in place (journaled; source null clears, expires_at 0 clears)."
                ),
                body_extra={"minProperties": 1},
            ),
        ),
        description="Change an existing memory in place (keeps its id, links and history; "
        "journaled and undoable). Only the given fields change; a new text is re-embedded. Use "
        "this to fix or refine a memory instead of forget + remember.",
        cli=Cli(
            "edit",
            arguments=("memory_id",),
            switches=(Switch("--clear-tags", "tags", [], "Remove every tag."),),
            deadlines={"--ttl": "expires_at"},
        ),
        writes=True,
        result="memory",
        soft_error={"ok": False},
        seed=True,
    ),
    Operation(
        "recall",
        "Search memories, best first (semantic or hybrid).",
        p.Recall,
        rest=(
            Rest(
                "GET",
                "/recall",
                ok(r.listing("results", r.MEMORY)),
                name="recall_get",
                tag="recall",
                envelope="results",
                summary="Search (scalar parameters in the query string).",
            ),
            Rest(
                "POST",
                "/recall",
                ok(r.listing("results", r.MEMORY)),
                tag="recall",
                envelope="results",
                summary="Search, with every parameter in the body.",
            ),
        ),
        description="Search long-term memory for what is relevant to a query, best first. "
        "Returns a list of {id, text, type, tags, importance, score, created_at, superseded_by, "
        "expires_at}. Call it before starting a task or when the user refers to something "
        "from before.",
        result="memories",
        short={"k": "-k", "type": "-t", "mode": "-m"},
        seed=True,
    ),
    Operation(
        "recall_pack",
        "Token-budgeted context block of the best memories.",
        p.RecallPack,
        rest=(Rest("POST", "/recall_pack", ok(r.PACK), tag="recall"),),
        description="Recall the most relevant memories and pack them into a ready-to-read text "
        "block within a token budget (hybrid ranking by default). Returns {text, used_tokens, "
        "budget, truncated, items, compressed_groups}. Use it to load context cheaply.",
        result="pack",
        short={"token_budget": "-b", "type": "-t", "mode": "-m"},
        seed=True,
    ),
    Operation(
        "auto_context",
        "Multi-angle context block for a task (recall_pack's shape + queries).",
        p.AutoContext,
        rest=(Rest("POST", "/auto_context", ok(r.PACK), tag="recall"),),
        description="Best first call for a new task: searches memory from several angles (the "
        "task plus its key phrases), merges and packs the results into a text block within a "
        "token budget. Returns {text, queries, used_tokens, budget, truncated, items}.",
        result="pack",
        short={"token_budget": "-b", "mode": "-m"},
        seed=True,
    ),
    Operation(
        "forget",
        "Hard-delete one memory (journaled, undoable).",
        p.MemoryRef,
        rest=(
            Rest("DELETE", "/memories/{memory_id}", ok(r.obj({"forgotten": r.BOOL, "id": r.STR}))),
        ),
        description="Permanently delete one memory by id (journaled; undo is possible from the "
        "journal). Returns {deleted}. Prefer edit to fix a memory, supersede to replace it.",
        cli=Cli("forget", arguments=("memory_id",), variadic="memory_id", confirm=True),
        writes=True,
        destructive=True,
        idempotent=True,
        seed=True,
    ),
    Operation(
        "purge_expired",
        "Hard-delete memories whose TTL passed.",
        p.PurgeExpired,
        rest=(
            Rest(
                "POST",
                "/purge_expired",
                ok(r.obj({"purged": r.INT, "dry_run": r.BOOL, "ids": r.arr(r.STR)})),
            ),
        ),
        description="Hard-delete memories whose TTL has passed. Returns {purged, dry_run, ids}.",
        cli=Cli(
            "purge",
            defaults={"dry_run": True},
            switches=(Switch("--apply", "dry_run", False, "Really delete (default: only list)."),),
            confirm=True,
            terminal=(SHOW,),
        ),
        writes=True,
        destructive=True,
        seed=True,
    ),
    Operation(
        "list_recent",
        "Newest memories first.",
        p.ListRecent,
        rest=(Rest("GET", "/memories", ok(r.listing("memories", r.MEMORY)), envelope="memories"),),
        description="The most recently created memories, newest first.",
        result="memories",
        short={"limit": "-n", "type": "-t"},
        seed=True,
    ),
    Operation(
        "stats",
        "Memory count and where the store lives.",
        p.NoParams,
        rest=(
            Rest(
                "GET",
                "/stats",
                ok(r.obj({"count": r.INT, "collection": r.STR}, ("count",), extra=True)),
                tag="ops",
            ),
        ),
        description="Memory count and where the store lives: {count, collection, ...}.",
        cli=Cli(
            "stats",
            terminal=(
                Terminal(
                    "--health",
                    "Add a health report: decay buckets, at-risk, stale, top recalled.",
                    short="-H",
                ),
                Terminal(
                    "--stale-days",
                    "Idle days before a memory counts as stale (--health).",
                    {"type": "number", "minimum": 0},
                    30.0,
                ),
                Terminal(
                    "--decay-rate",
                    "Decay λ for --health (default: maintenance_decay_rate).",
                    {"type": "number", "minimum": 0},
                ),
                Terminal(
                    "--frequency-weight",
                    "Recall reinforcement for --health (default: config).",
                    {"type": "number", "minimum": 0},
                ),
            ),
        ),
        seed=True,
    ),
    Operation(
        "metrics",
        "Runtime counters and recall latency.",
        p.NoParams,
        rest=(Rest("GET", "/metrics", ok(r.ANY), tag="ops"),),
        description="Runtime counters: {uptime_seconds, count, calls, recall_latency_ms, ...}.",
        seed=True,
    ),
    Operation(
        "link",
        "Add a typed directed link src -> dst (idempotent).",
        p.Link,
        rest=(
            Rest(
                "POST",
                "/links",
                ok(r.obj({"ok": r.BOOL, "src_id": r.STR, "dst_id": r.STR, "rel": r.STR})),
                tag="graph",
            ),
        ),
        description="Add a typed directed link src -> dst between two memories (idempotent). "
        "Returns {ok, src_id, dst_id, rel}.",
        writes=True,
        idempotent=True,
        soft_error={"ok": False},
        seed=True,
    ),
    Operation(
        "unlink",
        "Remove link(s) src -> dst (all relations when rel is omitted).",
        p.Unlink,
        rest=(Rest("POST", "/unlink", ok(r.obj({"removed": r.INT})), tag="graph"),),
        description="Remove links src -> dst (all relations when rel is omitted). "
        "Returns {removed}.",
        writes=True,
        destructive=True,
        idempotent=True,
        seed=True,
    ),
    Operation(
        "neighbors",
        "Memories linked to a memory.",
        p.Neighbors,
        rest=(
            Rest(
                "GET",
                "/memories/{memory_id}/neighbors",
                ok(r.listing("neighbors", r.MEMORY)),
                tag="graph",
                envelope="neighbors",
            ),
        ),
        description="Memories linked to a memory: list of {id, text, type, tags, importance, rel}.",
        result="memories",
        seed=True,
    ),
    Operation(
        "find_conflicts",
        "Duplicate / contradiction scan (one memory or the whole collection).",
        p.FindConflicts,
        rest=(
            Rest(
                "POST",
                "/conflicts",
                ok(r.listing("conflicts", r.ref("Conflict"))),
                name="conflicts",
                tag="graph",
                envelope="conflicts",
            ),
        ),
        description="Find near-duplicate or contradicting memories, for one memory or the whole "
        "store. Returns a list of {kind, reason, similarity, a, b}.",
        cli=Cli(
            "conflicts",
            terminal=(
                Terminal(
                    "--resolve",
                    "interactive: ask what to do with each pair (keep, supersede, delete, skip).",
                    {"enum": ["interactive"]},
                ),
            ),
        ),
        result="conflicts",
        seed=True,
    ),
    Operation(
        "supersede",
        "Hide old_id in favour of new_id (restorable, linked).",
        p.Supersede,
        rest=(
            Rest(
                "POST",
                "/supersede",
                ok(r.obj({"ok": r.BOOL, "old_id": r.STR, "new_id": r.STR})),
                tag="graph",
            ),
        ),
        description="Mark old_id as replaced by new_id: the old memory is hidden from recall but "
        "kept (restorable) and linked. Returns {ok, old_id, new_id}.",
        writes=True,
        soft_error={"ok": False},
        seed=True,
    ),
    Operation(
        "maintenance_tick",
        "Run every due maintenance job once (decay, purge, reflect, ...).",
        p.MaintenanceTick,
        rest=(
            Rest("POST", "/maintenance/tick", ok(r.obj({"summary": r.STR}, extra=True)), tag="ops"),
        ),
        description="Run the maintenance jobs that are due (decay pruning, TTL purge, "
        "reflection, ...); safe to call often, jobs only run when their interval has elapsed. "
        "Returns {summary, ran_decay, ran_reflect, ran_purge, decayed, reflected, purged, ...}.",
        cli=Cli("maintenance tick", defaults={"lock_wait": 30.0}, all_collections=True),
        writes=True,
        seed=True,
    ),
    Operation(
        "check_findable",
        "Check that memories come back by their own vector and text; repair the graph.",
        p.CheckFindable,
        rest=(
            Rest(
                "POST",
                "/findability",
                ok(
                    r.obj(
                        {
                            "sampled": r.INT,
                            "own_vector": r.t(["number", "null"]),
                            "own_text": r.t(["number", "null"]),
                            "repaired": r.INT,
                            "unrepaired": r.INT,
                            "ok": r.BOOL,
                        },
                        ("sampled", "ok"),
                        extra=True,
                    )
                ),
                tag="ops",
            ),
        ),
        description="Ask a sample of the live memories for by their own stored vector (the "
        "HNSW graph, k=10) and their own text (semantic recall, k=5); write again into the "
        "graph what its vector misses. Returns {sampled, own_vector, own_text, repaired, "
        "unrepaired, exact, ok, ...}; /stats shows the last report.",
        cli=Cli("findable"),
        writes=True,
    ),
    Operation(
        "journal_tail",
        "Audit-journal tail, newest first.",
        p.JournalTail,
        rest=(
            Rest(
                "GET",
                "/journal",
                ok(r.obj({"count": r.INT, "entries": r.arr(r.ref("JournalEntry"))})),
                name="journal",
                tag="audit",
            ),
        ),
        description="Recent audit-journal entries, newest first: list of {ts, op, actor, id, "
        "summary, meta}.",
        result="journal",
        short={"n": "-n"},
        seed=True,
        cli=Cli("journal tail", spans={"--since": "since_seconds"}),
    ),
    Operation(
        "history",
        "Journaled timeline of one memory, oldest first.",
        p.MemoryRef,
        rest=(
            Rest(
                "GET",
                "/memories/{memory_id}/history",
                ok(r.obj({"id": r.STR, "history": r.arr(r.ref("JournalEntry"))})),
                tag="audit",
            ),
        ),
        description="Full change timeline of one memory, oldest first: list of {ts, op, actor, "
        "id, before, after, meta, summary}.",
        result="journal",
        seed=True,
    ),
    Operation(
        "state_at",
        "All live memories reconstructed as of a past time.",
        p.StateAt,
        rest=(
            Rest(
                "GET",
                "/state_at",
                ok(r.obj({"ts": r.NUM, "count": r.INT, "memories": r.arr(r.MEMORY)})),
                tag="audit",
            ),
        ),
        description="The whole store as it was at a point in time: {ts, count, memories}.",
        seed=True,
    ),
    Operation(
        "get_at",
        "One memory as of a past time.",
        p.GetAt,
        rest=(
            Rest(
                "GET",
                "/memories/{memory_id}/at",
                ok(r.MEMORY),
                tag="audit",
                summary="One memory as of a past time (404 if it did not exist then).",
            ),
        ),
        description="One memory as it was at a point in time: {ok, ts, ...memory} or "
        "{ok: false, error}.",
        seed=True,
    ),
    Operation(
        "export",
        "Write a .ahkai archive to a server path (remote: admin tokens, inside export_dir).",
        p.Export,
        rest=(
            Rest(
                "POST",
                "/export",
                ok(r.obj({"path": r.STR, "count": r.INT, "bytes": r.INT, "elapsed": r.NUM})),
                tag="portability",
            ),
        ),
        description="Export memories to a portable .ahkai file on the server. Returns {path, "
        "count, bytes, elapsed}.",
        writes=True,
        server_paths=("path",),
        seed=True,
        cli=Cli("export", arguments=("path",)),
    ),
    Operation(
        "import",
        "Import a .ahkai archive from a server path (remote: admin tokens, inside export_dir).",
        p.Import,
        rest=(
            Rest(
                "POST",
                "/import",
                ok(
                    r.obj(
                        {
                            "ok": r.BOOL,
                            "imported": r.INT,
                            "errors": r.arr(r.ANY),
                            "errors_total": r.INT,
                        },
                        extra=True,
                    )
                ),
                tag="portability",
                upload="import_stream",
                summary=(
                    "Import a .ahkai archive sent as the body (application/gzip; options in "
                    'the query), or, for admin tokens, JSON {"path": …} naming a file '
                    "inside export_dir."
                ),
            ),
        ),
        description="Import memories from a .ahkai file on the server. Returns {ok, imported, "
        "skipped, overwritten, renamed, errors, vectors_regenerated}.",
        method="import_",
        writes=True,
        server_paths=("path",),
        soft_error={"ok": False},
        seed=True,
        cli=Cli("import", arguments=("path",), confirm=True),
    ),
    # --- houkai additions (MCP tools) ---------------------------------------------------
    Operation(
        "get",
        "One memory by id.",
        p.MemoryRef,
        rest=(Rest("GET", "/memories/{memory_id}", ok(r.MEMORY)),),
        description="Fetch one memory by id with all its fields.",
        result="memory",
    ),
    Operation(
        "restore",
        "Un-supersede a memory so recall finds it again.",
        p.MemoryRef,
        rest=(Rest("POST", "/restore", ok(r.obj({"restored": r.BOOL, "id": r.STR})), tag="graph"),),
        writes=True,
        idempotent=True,
    ),
    Operation(
        "undo",
        "Reverse one journaled change (by entry_id, else the newest touching memory_id, "
        "else the newest).",
        p.Undo,
        rest=(
            Rest(
                "POST",
                "/undo",
                {
                    200: (
                        "OK",
                        r.obj({"ok": r.BOOL, "op": r.STR, "id": r.STR, "ts": r.NUM}, extra=True),
                    ),
                    409: ("Refused: the memory or journal changed since", r.ERROR),
                },
                tag="audit",
            ),
        ),
        description="Reverse one journaled change: a journal entry by entry_id, else the newest "
        "change to memory_id, else the newest change in the collection. Returns {ok, op, id, "
        "ts, actor, entry_id}.",
        writes=True,
        cli=Cli("journal undo", arguments=("entry_id",), confirm=True),
    ),
    Operation(
        "job",
        "One background job's progress.",
        p.JobRef,
        rest=(Rest("GET", "/jobs/{job_id}", ok(r.JOB), tag="jobs"),),
        description="Progress of a background job (from remember_many or ingest): {id, state, "
        "total, done, failed, rejected, eta_seconds, errors, conflicts, ...}.",
        result="job",
    ),
    Operation(
        "jobs",
        "Recent background jobs, newest first.",
        p.Jobs,
        rest=(Rest("GET", "/jobs", ok(r.listing("jobs", r.JOB)), tag="jobs", envelope="jobs"),),
        result="jobs",
        short={"limit": "-n"},
    ),
    Operation(
        "ingest",
        "Chunk documents into memories as one job.",
        p.Ingest,
        rest=(
            Rest(
                "POST",
                "/ingest",
                {201: ("Done (wait=true)", r.ANY), 202: ("Accepted: queued", r.ANY)},
                tag="jobs",
                summary=(
                    "Chunk documents into memories as one job: 201 when done (wait, the "
                    "default), 202 {job_id, total, ids} with wait=false."
                ),
                query_extra=("wait",),
            ),
        ),
        description="Chunk and store whole documents (notes, docs); by default waits until "
        "every chunk is recallable (wait=false returns a job id). Give documents inline, or a "
        "server-local path (file, folder or glob of .md/.txt/.jsonl).",
        writes=True,
        server_paths=("path",),
        short={"type": "-t", "tags": "-g", "importance": "-i", "source": "-s"},
        cli=Cli(
            "ingest",
            arguments=("path",),
            variadic="path",
            optional=("path",),
            defaults={"type": "episodic"},  # the seed CLI's
            switches=(
                Switch("--jsonl", "", True, "Read stdin as JSONL ({text,...} per line)."),
                Switch("--dry-run", "", True, "Show the chunks without writing."),
                Switch("--inline", "", True, "Embed in this process instead of via workers."),
            ),
            confirm=True,
        ),
    ),
    # --- not MCP tools: the REST API, the dashboard and the CLI ---------------------------
    Operation(
        "nuke",
        'Delete every memory of the collection (confirm "DELETE ALL").',
        p.Nuke,
        cli=Cli("nuke", confirm=True),
        rest=(Rest("POST", "/nuke", ok(r.obj({"ok": r.BOOL, "deleted": r.INT}))),),
        writes=True,
        destructive=True,
        mcp=False,
    ),
    Operation(
        "subgraph",
        "Link graph reachable from ids.",
        p.Subgraph,
        rest=(
            Rest(
                "POST",
                "/subgraph",
                ok(
                    r.obj(
                        {
                            "nodes": r.arr(r.MEMORY),
                            "edges": r.arr(r.obj({"src": r.STR, "dst": r.STR, "rel": r.STR})),
                        },
                        ("nodes", "edges"),
                    )
                ),
                tag="graph",
            ),
        ),
        cli=Cli(
            "graph",
            arguments=("memory_ids",),
            terminal=(Terminal("--dot", "Print Graphviz DOT instead."),),
        ),
        mcp=False,
    ),
    Operation(
        "collections",
        "Collections (those the token may use) with their counts.",
        p.NoParams,
        rest=(
            Rest(
                "GET",
                "/collections",
                ok(
                    r.obj(
                        {
                            "collections": r.arr(
                                r.obj(
                                    {
                                        "name": r.STR,
                                        "count": r.t(["integer", "null"]),
                                        "default": r.BOOL,
                                    },
                                    ("name",),
                                )
                            )
                        },
                        ("collections",),
                    )
                ),
                tag="ops",
            ),
        ),
        scope="global",
        mcp=False,
    ),
    Operation(
        "readiness",
        "Readiness (backend + embedder probe, cached ~5 s).",
        p.NoParams,
        rest=(
            Rest(
                "GET",
                "/ready",
                {
                    200: ("Ready", r.obj({"ready": r.BOOL, "checks": r.OBJECT}, ("ready",))),
                    503: ("Not ready", r.obj({"ready": r.BOOL, "checks": r.OBJECT})),
                },
                name="ready",
                tag="ops",
                summary=(
                    "Readiness (backend + embedder probe, cached ~5 s): 200 ready / 503; no auth."
                ),
            ),
        ),
        scope="public",
        mcp=False,
    ),
    Operation(
        "health",
        "Liveness: {status, count}.",
        p.NoParams,
        rest=(
            Rest(
                "GET",
                "/health",
                ok(r.obj({"status": r.STR, "count": r.INT}, ("status",))),
                tag="ops",
                summary=(
                    "Liveness: {status, count}; no auth (with tokens configured, the count "
                    "only for a token that may read the collection)."
                ),
            ),
        ),
        scope="public",
        mcp=False,
    ),
    Operation(
        "export_stream",
        "Download the collection (filtered) as a .ahkai archive.",
        p.ExportStream,
        rest=(
            Rest(
                "GET",
                "/export",
                ok({"type": "string", "contentMediaType": "application/gzip"}),
                tag="portability",
                content_type="application/gzip",
                summary=(
                    "Download the collection (filtered) as a .ahkai archive (gzipped JSONL) "
                    "in the body."
                ),
            ),
        ),
        mcp=False,
    ),
    Operation(
        "import_stream",
        "Import a .ahkai archive sent as the request body.",
        p.ImportOptions,
        writes=True,
        mcp=False,
    ),
    Operation(
        "whoami",
        "What the caller's token may do: read_only and its collections (null = all).",
        p.NoParams,
        rest=(
            Rest(
                "GET",
                "/whoami",
                ok(
                    r.obj(
                        {
                            "auth": r.BOOL,
                            "read_only": r.BOOL,
                            "collections": r.t(["array", "null"], items=r.STR),
                        },
                        ("read_only",),
                    )
                ),
                tag="dashboard",
            ),
        ),
        scope="global",
        mcp=False,
    ),
    Operation(
        "browse",
        "One keyset page of memories, highest sort key first.",
        p.Browse,
        rest=(
            Rest(
                "GET",
                "/browse",
                ok(
                    r.obj(
                        {
                            "sort": r.STR,
                            "memories": r.arr(r.MEMORY),
                            "next": r.t(["string", "null"]),
                        },
                        ("memories", "next"),
                    )
                ),
                tag="dashboard",
                summary=(
                    "One keyset page of memories, highest sort key first (created, "
                    "importance or decay score); pass the reply's next as after for the "
                    "following page."
                ),
            ),
        ),
        result="memories",
        mcp=False,
    ),
    Operation(
        "facets",
        "Active memories per type and the most used tags.",
        p.Facets,
        rest=(
            Rest(
                "GET",
                "/facets",
                ok(
                    r.obj(
                        {
                            "by_type": r.OBJECT,
                            "active": r.INT,
                            "top_tags": r.OBJECT,
                            **r.FRESHNESS,
                        },
                        ("by_type", "top_tags"),
                    )
                ),
                tag="dashboard",
            ),
        ),
        mcp=False,
    ),
    Operation(
        "growth",
        "Memories created per hour/day/week and Redis bytes per memory.",
        p.Growth,
        rest=(
            Rest(
                "GET",
                "/growth",
                ok(
                    r.obj(
                        {
                            "bucket": r.STR,
                            "series": r.arr(r.obj({"t": r.INT, "n": r.INT, "total": r.INT})),
                            "count": r.INT,
                            "redis": r.OBJECT,
                            **r.FRESHNESS,
                        },
                        ("series",),
                    )
                ),
                tag="dashboard",
            ),
        ),
        mcp=False,
    ),
    Operation(
        "overview",
        "The Health view's stats at once: the last figures while fresh ones are computed.",
        p.NoParams,
        rest=(
            Rest(
                "GET",
                "/overview",
                ok(
                    r.obj(
                        {"count": r.INT, "collection": r.STR, **r.FRESHNESS},
                        ("count", "as_of", "stale"),
                        extra=True,
                    )
                ),
                tag="dashboard",
                summary=(
                    "The stats figures at once: the last ones computed, with as_of, stale "
                    "and refreshing (a background recount is running; ask again)."
                ),
            ),
        ),
        mcp=False,
    ),
    Operation(
        "pipeline_status",
        "Queue depths, embedding workers and the maintenance schedule.",
        p.NoParams,
        rest=(
            Rest(
                "GET",
                "/pipeline",
                ok(
                    r.obj(
                        {
                            "queues": r.OBJECT,
                            "workers": r.arr(r.OBJECT),
                            "workers_alive": r.INT,
                            "maintenance": r.OBJECT,
                        },
                        ("queues", "workers", "maintenance"),
                        extra=True,
                    )
                ),
                tag="jobs",
            ),
        ),
        mcp=False,
    ),
    Operation(
        "job_retry",
        "Re-queue the failed memories of one job (or, without job_id, of the collection).",
        p.JobRetry,
        cli=Cli("jobs retry", arguments=("job_id",)),
        rest=(
            Rest(
                "POST",
                "/jobs/{job_id}/retry",
                ok(r.obj({"job_id": r.STR, "requeued": r.INT})),
                tag="jobs",
            ),
        ),
        writes=True,
        mcp=False,
    ),
    Operation(
        "prune",
        "Delete memories whose decay score fell below the threshold (dry_run: only list).",
        p.Prune,
        rest=(
            Rest(
                "POST",
                "/prune",
                ok(
                    r.obj(
                        {
                            "dry_run": r.BOOL,
                            "count": r.INT,
                            "pruned": r.INT,
                            "memories": r.arr(r.MEMORY),
                        }
                    )
                ),
                tag="ops",
            ),
        ),
        cli=Cli(
            "prune",
            defaults={"dry_run": True},
            switches=(Switch("--apply", "dry_run", False, "Actually delete (default: dry-run)."),),
            confirm=True,
            terminal=(SHOW,),
        ),
        writes=True,
        destructive=True,
        mcp=False,
    ),
    Operation(
        "reflect",
        "Summarise clusters of similar episodic memories into semantic ones.",
        p.Reflect,
        rest=(
            Rest(
                "POST",
                "/reflect",
                ok(r.obj({"dry_run": r.BOOL, "count": r.INT, "memories": r.arr(r.MEMORY)})),
                tag="ops",
            ),
        ),
        cli=Cli(
            "reflect",
            defaults={"dry_run": True},
            switches=(Switch("--apply", "dry_run", False, "Actually write (default: dry-run)."),),
            confirm=True,
        ),
        writes=True,
        admin_params=("summarizer",),
        mcp=False,
    ),
    # --- CLI-only operations (no REST route, no MCP tool) ----------------------------------
    # Collections are created, deleted and copied by the local user (admin of their own
    # data); a remote binding needs an admin-only scope first (docs/adr/0050).
    # Server paths: a remote binding would apply the one server-path policy (admin token,
    # inside export_dir) as export/import do; the CLI is the local user's own process.
    Operation(
        "backup",
        "Snapshot the embedded Redis Stack (BGSAVE, then copy RDB + AOF to a timestamped folder).",
        p.Backup,
        scope="global",
        server_paths=("dest",),
        mcp=False,
        cli=Cli("backup"),
    ),
    Operation(
        "archive_info",
        "Describe a .ahkai archive (header and memory count) without touching the store.",
        p.ArchivePath,
        scope="global",
        server_paths=("path",),
        mcp=False,
        cli=Cli("info", arguments=("path",)),
    ),
    Operation(
        "collection_create",
        "Create an empty collection (its index, with the current embedder's dimension).",
        p.CollectionRef,
        scope="global",
        writes=True,
        mcp=False,
        cli=Cli("collections create", arguments=("name",)),
    ),
    Operation(
        "collection_delete",
        "Delete a collection: memories, index, journal and metrics. Irreversible.",
        p.CollectionRef,
        scope="global",
        writes=True,
        destructive=True,
        mcp=False,
        cli=Cli("collections delete", arguments=("name",), confirm=True),
    ),
    Operation(
        "collection_migrate",
        "Re-write a collection's vectors in another type, in place (resumable).",
        p.CollectionMigrate,
        scope="global",
        writes=True,
        mcp=False,
        cli=Cli("collections migrate", arguments=("name",), confirm=True),
    ),
    Operation(
        "collection_copy",
        "Copy every memory of src into dst (created if missing), vectors included.",
        p.CollectionCopy,
        scope="global",
        writes=True,
        mcp=False,
        cli=Cli("collections copy", arguments=("src", "dst"), confirm=True),
    ),
    Operation(
        "job_cancel",
        "Cancel a job: its still-pending memories become failed (cancelled), retryable.",
        p.JobRef,
        writes=True,
        mcp=False,
        cli=Cli("jobs cancel", arguments=("job_id",)),
    ),
    Operation(
        "journal_entry",
        "One journal entry in full (before/after snapshots), by entry id or timestamp.",
        p.JournalEntryRef,
        mcp=False,
        cli=Cli("journal show", arguments=("entry",)),
    ),
    Operation(
        "tag",
        "Add or remove tags (metadata only; the vector is untouched).",
        p.Retag,
        method="retag",
        writes=True,
        mcp=False,
        short={"add": "-a", "remove": "-r"},
        cli=Cli("tag", arguments=("memory_id",)),
    ),
    Operation(
        "bump",
        "Adjust importance: +0.2, -0.1, or =0.9 (clamped to 0..1).",
        p.Bump,
        writes=True,
        mcp=False,
        cli=Cli("bump", arguments=("memory_id", "delta")),
    ),
    *SESSION_OPERATIONS,  # houkai/app/operations/session_ops.py
)

BY_NAME: dict[str, Operation] = {op.name: op for op in OPERATIONS}
#: Operations the service's ``dispatch`` runs by name (those with a service method).
DISPATCHABLE: tuple[str, ...] = tuple(
    op.name
    for op in OPERATIONS
    if op.mcp or op.name in ("nuke", "subgraph", "collections", "readiness", "health")
)
