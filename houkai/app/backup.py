"""Snapshots of the Redis data (``backup``) and archive descriptions (``archive_info``).

The operations behind ``houkai backup`` and ``houkai info``: local file work the
service runs for the CLI (see docs/adr/0050-terminal-options-and-one-check.md for
why they have no remote door yet).
"""

from __future__ import annotations

import shutil
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..domain.config import Settings
from ..domain.errors import HoukaiError, NotFound, Unavailable


def _data_files(data_dir: Path) -> list[Path]:
    from ..db.server import LOG_FILE, STATE_FILE

    skip = {STATE_FILE, LOG_FILE}
    return [p for p in sorted(data_dir.iterdir()) if p.name not in skip]


def _bgsave(client: Any, timeout: float) -> float:
    """Run BGSAVE to completion (waiting out a save or rewrite already running)."""
    import redis

    deadline = time.monotonic() + timeout
    idle_refusals = 0
    while True:
        try:
            client.bgsave()
            break
        except redis.ResponseError as exc:
            # Another save or AOF rewrite running: wait our turn. The server's state says
            # so (not the error's wording); one refusal with nothing running may be a save
            # that just ended, so it is tried once more.
            persistence = client.info("persistence")
            busy = persistence.get("rdb_bgsave_in_progress") or persistence.get(
                "aof_rewrite_in_progress"
            )
            idle_refusals += not busy
            if idle_refusals > 1 or time.monotonic() > deadline:
                raise Unavailable(f"BGSAVE failed: {exc}") from None
            time.sleep(0.2)
    while time.monotonic() < deadline:
        persistence = client.info("persistence")
        if not persistence.get("rdb_bgsave_in_progress"):
            if persistence.get("rdb_last_bgsave_status", "ok") != "ok":
                raise Unavailable("BGSAVE failed; see the server log")
            return float(persistence.get("rdb_last_save_time") or time.time())
        time.sleep(0.1)
    raise Unavailable(f"BGSAVE did not finish within {timeout:.0f}s")


def _backup_cluster(url: str, timeout: float) -> dict[str, Any]:
    """A Redis Cluster: BGSAVE on every master (each snapshot stays in its node's dir)."""
    from ..db.cluster_client import HoukaiCluster, cluster_nodes, display

    nodes, options = cluster_nodes(url)
    cluster = HoukaiCluster(startup_nodes=nodes, protocol=2, socket_connect_timeout=5, **options)
    try:
        saved = []
        for node in cluster.get_primaries():
            client = cluster.get_redis_connection(node)
            server_dir = client.config_get("dir").get("dir", "?")
            saved.append({"node": node.name, "bgsave_at": _bgsave(client, timeout),
                          "server_dir": server_dir})  # fmt: skip
    finally:
        cluster.close()
    return {
        "embedded": False,
        "cluster": True,
        "url": display(url),
        "bgsave_at": min(n["bgsave_at"] for n in saved),
        "server_dir": ", ".join(f"{n['node']}={n['server_dir']}" for n in saved),
        "nodes": saved,
        "copied": None,
    }


def backup(settings: Settings, dest: str | None, timeout: float) -> dict[str, Any]:
    """BGSAVE, then copy RDB + AOF of the embedded server to ``<dest>/<UTC stamp>``; on an
    external server only the snapshot is taken (its files are not houkai's to copy)."""
    import redis

    from ..db import server as redis_server
    from ..db.cluster_client import is_cluster_url

    if settings.redis_url and is_cluster_url(settings.redis_url):
        return _backup_cluster(settings.redis_url, timeout)
    if settings.redis_url:
        client = redis.Redis.from_url(settings.redis_url, socket_connect_timeout=5)
        try:
            saved = _bgsave(client, timeout)
            server_dir = client.config_get("dir").get("dir", "?")
        finally:
            client.close()
        return {
            "embedded": False,
            "url": settings.redis_url,
            "bgsave_at": saved,
            "server_dir": server_dir,
            "copied": None,
        }
    data_dir = Path(settings.data_dir).expanduser().resolve()
    server = redis_server.status(data_dir)
    if server is None:
        raise Unavailable(
            f"the embedded Redis Stack under {data_dir} is not running; "
            "start it with `houkai redis start`"
        )
    client = redis.Redis.from_url(server.url, socket_connect_timeout=5)
    try:
        saved = _bgsave(client, timeout)
    finally:
        client.close()
    stamp = datetime.now(tz=UTC).strftime("%Y%m%dT%H%M%SZ")
    parent = Path(dest).expanduser() if dest else data_dir.parent / f"{data_dir.name}-backups"
    target = parent / stamp
    if target.exists():
        raise HoukaiError(f"{target} already exists")
    target.mkdir(parents=True)
    copied = []
    for item in _data_files(data_dir):
        if item.resolve() == parent.resolve():
            continue
        if item.is_dir():
            shutil.copytree(item, target / item.name)
        else:
            shutil.copy2(item, target / item.name)
        copied.append(item.name)
    return {"embedded": True, "path": str(target), "bgsave_at": saved, "copied": copied}


def archive_info(path: str) -> dict[str, Any]:
    """The header and memory count of a .ahkai archive, without touching the store."""
    from ..store.archive import iter_archive

    file = Path(path).expanduser()
    if not file.is_file():
        raise NotFound(f"path: {path!r} does not exist (or is not a file)")
    header, rows = iter_archive(str(file))
    count = bad = 0
    for _, row in rows:
        if isinstance(row, dict):
            count += 1
        else:
            bad += 1
    return {**header, "path": str(Path(path)), "memories": count, "bad_lines": bad}
