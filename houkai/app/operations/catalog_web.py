"""Operations of the REST API, the dashboard and the CLI that are not MCP tools."""

from __future__ import annotations

from . import params as p
from . import results as r
from .spec import SHOW, Cli, Operation, Rest, Switch, Terminal, ok

WEB_OPERATIONS: tuple[Operation, ...] = (
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
)
