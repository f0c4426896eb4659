"""houkai's additions to the MCP tools: get, restore, undo, job, jobs, ingest."""

from __future__ import annotations

from . import params as p
from . import results as r
from .spec import Cli, Operation, Rest, Switch, ok

TOOL_OPERATIONS: tuple[Operation, ...] = (
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
        "else the newest); undo after undo walks back, it does not undo the undo.",
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
)
