"""Every operation, declared once. The doors (REST, OpenAPI, MCP, CLI, docs) read this."""

from __future__ import annotations

from . import params as p
from .spec import Operation

OPERATIONS: tuple[Operation, ...] = (
    # --- the seed's 23 tools, in the seed's order ---------------------------------------
    Operation(
        "remember",
        "Store one memory (waits until it is recallable unless wait=false).",
        p.Remember,
        description="Store one new long-term memory: a fact, decision, convention, preference "
        "or event, written as a single self-contained statement. By default waits until it is "
        "recallable. Returns {id, stored, importance, expires_at}, or {stored: false, "
        "conflicts} when on_conflict=raise found a near-duplicate/contradiction.",
        writes=True,
        result="memory",
        short={"type": "-t", "tags": "-g", "importance": "-i", "source": "-s"},
        seed=True,
    ),
    Operation(
        "remember_many",
        "Store many memories as one job (all-or-nothing validation).",
        p.RememberMany,
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
        description="Change an existing memory in place (keeps its id, links and history; "
        "journaled and undoable). Only the given fields change; a new text is re-embedded. Use "
        "this to fix or refine a memory instead of forget + remember.",
        writes=True,
        result="memory",
        soft_error={"ok": False},
        seed=True,
    ),
    Operation(
        "recall",
        "Search memories, best first (semantic or hybrid).",
        p.Recall,
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
        description="Permanently delete one memory by id (journaled; undo is possible from the "
        "journal). Returns {deleted}. Prefer edit to fix a memory, supersede to replace it.",
        writes=True,
        destructive=True,
        idempotent=True,
        seed=True,
    ),
    Operation(
        "purge_expired",
        "Hard-delete memories whose TTL passed.",
        p.PurgeExpired,
        description="Hard-delete memories whose TTL has passed. Returns {purged, dry_run, ids}.",
        writes=True,
        destructive=True,
        seed=True,
    ),
    Operation(
        "list_recent",
        "Newest memories first.",
        p.ListRecent,
        description="The most recently created memories, newest first.",
        result="memories",
        short={"limit": "-n", "type": "-t"},
        seed=True,
    ),
    Operation(
        "stats",
        "Memory count and where the store lives.",
        p.NoParams,
        description="Memory count and where the store lives: {count, collection, ...}.",
        seed=True,
    ),
    Operation(
        "metrics",
        "Runtime counters and recall latency.",
        p.NoParams,
        description="Runtime counters: {uptime_seconds, count, calls, recall_latency_ms, ...}.",
        seed=True,
    ),
    Operation(
        "link",
        "Add a typed directed link src -> dst (idempotent).",
        p.Link,
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
        description="Memories linked to a memory: list of {id, text, type, tags, importance, rel}.",
        result="memories",
        seed=True,
    ),
    Operation(
        "find_conflicts",
        "Duplicate / contradiction scan (one memory or the whole collection).",
        p.FindConflicts,
        description="Find near-duplicate or contradicting memories, for one memory or the whole "
        "store. Returns a list of {kind, reason, similarity, a, b}.",
        result="conflicts",
        seed=True,
    ),
    Operation(
        "supersede",
        "Hide old_id in favour of new_id (restorable, linked).",
        p.Supersede,
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
        description="Run the maintenance jobs that are due (decay pruning, TTL purge, "
        "reflection, ...); safe to call often, jobs only run when their interval has elapsed. "
        "Returns {summary, ran_decay, ran_reflect, ran_purge, decayed, reflected, purged, ...}.",
        writes=True,
        seed=True,
    ),
    Operation(
        "journal_tail",
        "Audit-journal tail, newest first.",
        p.JournalTail,
        description="Recent audit-journal entries, newest first: list of {ts, op, actor, id, "
        "summary, meta}.",
        result="journal",
        short={"n": "-n"},
        seed=True,
    ),
    Operation(
        "history",
        "Journaled timeline of one memory, oldest first.",
        p.MemoryRef,
        description="Full change timeline of one memory, oldest first: list of {ts, op, actor, "
        "id, before, after, meta, summary}.",
        result="journal",
        seed=True,
    ),
    Operation(
        "state_at",
        "All live memories reconstructed as of a past time.",
        p.StateAt,
        description="The whole store as it was at a point in time: {ts, count, memories}.",
        seed=True,
    ),
    Operation(
        "get_at",
        "One memory as of a past time.",
        p.GetAt,
        description="One memory as it was at a point in time: {ok, ts, ...memory} or "
        "{ok: false, error}.",
        seed=True,
    ),
    Operation(
        "export",
        "Write a .ahkai archive to a server path (remote: admin tokens, inside export_dir).",
        p.Export,
        description="Export memories to a portable .ahkai file on the server. Returns {path, "
        "count, bytes, elapsed}.",
        writes=True,
        server_paths=("path",),
        seed=True,
    ),
    Operation(
        "import",
        "Import a .ahkai archive from a server path (remote: admin tokens, inside export_dir).",
        p.Import,
        description="Import memories from a .ahkai file on the server. Returns {ok, imported, "
        "skipped, overwritten, renamed, errors, vectors_regenerated}.",
        method="import_",
        writes=True,
        server_paths=("path",),
        soft_error={"ok": False},
        seed=True,
    ),
    # --- houkai additions (MCP tools) ---------------------------------------------------
    Operation(
        "get",
        "One memory by id.",
        p.MemoryRef,
        description="Fetch one memory by id with all its fields.",
        result="memory",
    ),
    Operation(
        "restore",
        "Un-supersede a memory so recall finds it again.",
        p.MemoryRef,
        writes=True,
        idempotent=True,
    ),
    Operation(
        "undo",
        "Reverse one journaled change (by entry_id, else the newest touching memory_id, "
        "else the newest).",
        p.Undo,
        description="Reverse one journaled change: a journal entry by entry_id, else the newest "
        "change to memory_id, else the newest change in the collection. Returns {ok, op, id, "
        "ts, actor, entry_id}.",
        writes=True,
    ),
    Operation(
        "job",
        "One background job's progress.",
        p.JobRef,
        description="Progress of a background job (from remember_many or ingest): {id, state, "
        "total, done, failed, rejected, eta_seconds, errors, conflicts, ...}.",
        result="job",
    ),
    Operation(
        "jobs",
        "Recent background jobs, newest first.",
        p.Jobs,
        result="jobs",
        short={"limit": "-n"},
    ),
    Operation(
        "ingest",
        "Chunk documents into memories as one job.",
        p.Ingest,
        description="Chunk and store whole documents (notes, docs); by default waits until "
        "every chunk is recallable (wait=false returns a job id). Give documents inline, or a "
        "server-local path (file, folder or glob of .md/.txt/.jsonl).",
        writes=True,
        server_paths=("path",),
    ),
    # --- not MCP tools: the REST API, the dashboard and the CLI ---------------------------
    Operation(
        "nuke",
        'Delete every memory of the collection (confirm "DELETE ALL").',
        p.Nuke,
        writes=True,
        destructive=True,
        mcp=False,
    ),
    Operation(
        "subgraph",
        "Link graph reachable from ids.",
        p.Subgraph,
        mcp=False,
    ),
    Operation(
        "collections",
        "Collections (those the token may use) with their counts.",
        p.NoParams,
        scope="global",
        mcp=False,
    ),
    Operation(
        "readiness",
        "Readiness (backend + embedder probe, cached ~5 s).",
        p.NoParams,
        scope="public",
        mcp=False,
    ),
    Operation(
        "health",
        "Liveness: {status, count}.",
        p.NoParams,
        scope="public",
        mcp=False,
    ),
    Operation(
        "export_stream",
        "Download the collection (filtered) as a .ahkai archive.",
        p.ExportStream,
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
        scope="global",
        mcp=False,
    ),
    Operation(
        "browse",
        "One keyset page of memories, highest sort key first.",
        p.Browse,
        result="memories",
        mcp=False,
    ),
    Operation(
        "facets",
        "Active memories per type and the most used tags.",
        p.Facets,
        mcp=False,
    ),
    Operation(
        "growth",
        "Memories created per hour/day/week and Redis bytes per memory.",
        p.Growth,
        mcp=False,
    ),
    Operation(
        "pipeline_status",
        "Queue depths, embedding workers and the maintenance schedule.",
        p.NoParams,
        mcp=False,
    ),
    Operation(
        "job_retry",
        "Re-queue the failed memories of one job.",
        p.JobRef,
        writes=True,
        mcp=False,
    ),
)

BY_NAME: dict[str, Operation] = {op.name: op for op in OPERATIONS}
#: Operations the service's ``dispatch`` runs by name (those with a service method).
DISPATCHABLE: tuple[str, ...] = tuple(
    op.name
    for op in OPERATIONS
    if op.mcp or op.name in ("nuke", "subgraph", "collections", "readiness", "health")
)
