"""A data dir's runtime files (``houkai-redis.json``, ``houkai-api.json``) and the check
that the process one names is still alive: shared by the embedded Redis server
(:mod:`houkai.db.server`) and the API server's runtime record (:mod:`houkai.app.runtime`)."""

from __future__ import annotations

import json
import os
from pathlib import Path


def read_runtime(path: Path) -> dict | None:
    """A data dir's runtime file (``houkai-redis.json``, ``houkai-api.json``) as a dict,
    None when it is missing or not a JSON object."""
    try:
        state = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) else None


def write_runtime(path: Path, state: dict, *, private: bool = False) -> None:
    """Replace the runtime file *path* with *state* atomically (readers never see half a
    file); *private*: readable by the owner alone."""
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o644)
    with os.fdopen(fd, "w") as fh:
        fh.write(json.dumps(state))
    tmp.replace(path)


def process_alive(pid: int, markers: tuple[bytes, ...]) -> bool:
    """True when *pid* is a live (not zombie) process whose command line holds one of
    *markers*: a runtime file naming a dead (or recycled) pid is stale."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, owned by someone else
    proc = Path("/proc") / str(pid)
    if not proc.exists():
        return True  # no procfs: trust kill(0)
    try:
        stat = (proc / "stat").read_text()
        if stat.rsplit(")", 1)[1].split()[0] in ("Z", "X"):
            return False
        cmdline = (proc / "cmdline").read_bytes()
    except OSError:
        return False
    return not cmdline or any(m in cmdline for m in markers)  # empty: mid-exec
