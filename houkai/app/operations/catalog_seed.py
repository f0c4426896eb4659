"""The seed's 23 MCP tools, in the seed's order (catalog.py puts every area together)."""

from __future__ import annotations

from . import params as p
from . import results as r
from .spec import SHOW, Cli, Operation, Rest, Switch, Terminal, ok

SEED_OPERATIONS: tuple[Operation, ...] = (
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
        "Check that memories come back by their own vector, text and rare words; repair the graph.",
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
                            "own_word": r.t(["number", "null"]),
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
        "HNSW graph, k=10), their own text (semantic recall, k=5) and a word only they hold "
        "(hybrid recall, k=5); write again into the graph what its vector misses. Returns "
        "{sampled, own_vector, own_text, own_word, repaired, unrepaired, exact, ok, ...}; "
        "/stats shows the last report.",
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
)
