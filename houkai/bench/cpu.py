"""CPU seconds spent by the processes of a benchmark: where a throughput figure's cores went.

Wall-clock rates on a shared machine say little on their own; CPU seconds per item
per process (encoder, Redis, the submitting client) say what each one costs and give
the ceiling the cores allow (``cores / total CPU seconds per item``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def redis_cpu_seconds(client: Any) -> float:
    """redis-server's user + system CPU seconds since it started (``INFO cpu``)."""
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def _stat(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the command name (field 2) may hold spaces: split after its closing parenthesis
    return raw[raw.rindex(")") + 2 :].split()


def process_tree_cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of *pid* and its live children (Linux ``/proc``), or None.

    Children that already exited count through the parent's ``cutime``/``cstime``.
    """
    fields = _stat(pid)
    if fields is None:
        return None
    # after the name: state ppid ... utime(12th) stime cutime cstime
    total = sum(int(v) for v in fields[11:15])
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != pid:
            child = _stat(int(entry.name))
            if child is not None and int(child[1]) == pid:
                total += sum(int(v) for v in child[11:13])
    return total / _TICKS
