"""Who may name a file on the server over the network, and where (issue 10, item 2).

One policy for every remote door (REST and MCP over HTTP): a server-side path
is accepted only from an *admin* token (every collection, read-write) and
only inside the configured ``export_dir`` (default ``<data_dir>/exports``).
Relative paths resolve under it; ``..`` components, absolute paths outside it
and symlinks leading out of it are refused with 403. Everyone else streams
archives through the request/response body instead. Local callers (the CLI,
the stdio MCP server, the library) are the user's own process and use their
own paths unchanged.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from ..domain.errors import BadRequest, HoukaiError

log = logging.getLogger(__name__)

STREAM_HINT = (
    "stream the archive instead, over the REST API (GET /export returns the .ahkai, "
    "POST /import takes it as the request body)"
)


class PathForbidden(HoukaiError):
    """A remote caller named a server path it may not use (403)."""

    status = 403


def export_root(settings: Any) -> Path:
    """The folder remote server paths live in (created on first use)."""
    configured = str(getattr(settings, "export_dir", "") or "")
    root = Path(configured).expanduser() if configured else Path(settings.data_dir) / "exports"
    return root


def is_admin(grant: Any) -> bool:
    """An admin token: configured, every collection, read-write."""
    return (
        grant is not None
        and getattr(grant, "collections", ()) is None
        and not getattr(grant, "read_only", True)
    )


def resolve_server_path(raw: Any, *, settings: Any, grant: Any, param: str = "path") -> str:
    """The absolute path a remote caller with *grant* may use for *raw*, else an error.

    ``PathForbidden`` (403) for a non-admin caller or a path that leaves
    ``export_dir``; ``BadRequest`` (400) for a value that is not a path. The
    message never echoes file contents, only the caller's own argument.
    """
    if not is_admin(grant):
        raise PathForbidden(
            f"{param}: server file paths need an admin token (all collections, read-write); "
            + STREAM_HINT
        )
    if not isinstance(raw, str) or not raw.strip():
        raise BadRequest(f"{param}: expected a non-empty path string")
    if "\x00" in raw or len(raw) > 4096:
        raise BadRequest(f"{param}: not a valid path")
    given = Path(raw.strip()).expanduser()
    if ".." in given.parts:
        raise PathForbidden(f"{param}: '..' is not allowed in server paths")
    root = export_root(settings)
    root.mkdir(parents=True, exist_ok=True)
    root = root.resolve()
    target = (given if given.is_absolute() else root / given).resolve()  # follows symlinks
    if not _inside(target, root):
        log.warning("refused server path outside export_dir: %r", raw[:200])
        raise PathForbidden(
            f"{param}: server paths must stay inside the configured export_dir "
            "(relative paths resolve there; symlinks out of it are refused)"
        )
    return str(target)


def _inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def check_server_glob(path: str, glob: Any, *, settings: Any, param: str = "glob") -> None:
    """Refuse a remote ingest whose *glob* (or wildcard *path*, already resolved by
    :func:`resolve_server_path`) reaches a file outside ``export_dir``.

    The pattern must be relative (an absolute one is a 400) without ``..``; then
    every file it matches is resolved (symlinks followed) and one outside the
    folder is a 403, so a symlink inside ``export_dir`` cannot lead out of it."""
    wildcard = any(ch in path for ch in "*?[")
    if glob is None and not wildcard:
        return
    if glob is not None:
        if not isinstance(glob, str) or not glob.strip() or "\x00" in glob:
            raise BadRequest(f"{param}: expected a non-empty file pattern")
        if Path(glob).is_absolute() or glob.startswith("~"):
            raise BadRequest(f'{param}: must be relative to path (e.g. "**/*.md"), not absolute')
        if ".." in Path(glob).parts:
            raise PathForbidden(f"{param}: '..' is not allowed in server paths")
    from ..pipeline.write import expand_path

    root = export_root(settings).resolve()
    try:
        files = expand_path(path, glob)
    except ValueError:
        return  # nothing matches: the ingest itself answers (404)
    for name in files:
        if not _inside(Path(name).resolve(), root):
            log.warning("refused ingest match outside export_dir: %r", name[:200])
            raise PathForbidden(
                f"{param}: matches a file outside the configured export_dir "
                "(symlinks out of it are refused)"
            )


def resolve_server_args(
    args: dict[str, Any], params: tuple[str, ...], *, settings: Any, grant: Any, where: str = ""
) -> dict[str, Any]:
    """*args* with each server-path parameter of *params* resolved by the one policy, and
    an ingest ``glob`` checked by :func:`check_server_glob`: what every remote door calls."""
    out = dict(args)
    prefix = f"{where}: " if where else ""
    for param in params:
        if out.get(param) is not None:
            out[param] = resolve_server_path(
                out[param], settings=settings, grant=grant, param=f"{prefix}{param}"
            )
    if "path" in params and out.get("path") is not None:
        check_server_glob(out["path"], out.get("glob"), settings=settings, param=f"{prefix}glob")
    return out


class AdminRequired(HoukaiError):
    """A remote caller set a parameter only an admin token may set (403)."""

    status = 403


def require_admin_for(
    params: tuple[str, ...], args: dict[str, Any], *, grant: Any, operation: str
) -> None:
    """Refuse a remote, non-admin caller that sets one of *params* (an operation's
    ``admin_params``: choices that spend the server's own credentials, such as which
    LLM provider receives memory text). Leaving them out uses the server's settings."""
    given = [name for name in params if args.get(name) is not None]
    if given and not is_admin(grant):
        raise AdminRequired(
            f"{operation}: {', '.join(given)} may be set only with an admin token (all "
            "collections, read-write); leave it out to use the server's configured value"
        )
