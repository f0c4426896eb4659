"""CLI-only operations: no REST route, no MCP tool.

Collections are created, deleted and copied by the local user (admin of their own
data); a remote binding needs an admin-only scope first (docs/adr/0050).
Server paths: a remote binding would apply the one server-path policy (admin token,
inside export_dir) as export/import do; the CLI is the local user's own process.
"""

from __future__ import annotations

from . import params as p
from .spec import Cli, Operation

CLI_OPERATIONS: tuple[Operation, ...] = (
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
        "Re-write a collection's vectors in another type, in place (resumable); bring the "
        "statistics an earlier release wrote up to date.",
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
)
