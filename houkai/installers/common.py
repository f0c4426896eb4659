"""What every MCP-client installer shares.

Each installer registers the same stdio server (``houkai mcp``) in a
client-specific place. They differ only in the file location, the JSON shape
the client expects and the guidance snippet, so everything else lives here:
command resolution, the environment block, atomic JSON read-merge-write that
never loses the user's other servers or settings, a real ``verify_server``
smoke test (spawn the server, list its tools, call ``stats``) and the
client-agnostic memory guide.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import shutil
import sys
import tempfile
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TextIO

from ..domain.model import ValidationError

log = logging.getLogger(__name__)

SERVER_NAME = "houkai"
#: The seed's registration name: installing houkai replaces such an entry
#: (a client would otherwise run both servers, one of them the old package).
LEGACY_SERVER_NAMES: tuple[str, ...] = ("ai-houkai",)
CONSOLE_SCRIPT = "houkai"
SCOPES: tuple[str, ...] = ("user", "project")
#: Tools an agent needs; verify_server fails if the server lacks any of them.
CORE_TOOLS: tuple[str, ...] = ("remember", "recall", "edit", "forget", "list_recent", "stats")


def resolve_command() -> list[str]:
    """The argv that starts the MCP server: ``[<abs path>/houkai, "mcp"]``.

    The absolute path of the console script next to the running interpreter is
    preferred, so a client launched with a different PATH (an IDE started from
    the dock) still finds the virtualenv's ``houkai``; otherwise the bare name.
    """
    candidate = Path(sys.executable).parent / CONSOLE_SCRIPT
    if candidate.is_file() and os.access(candidate, os.X_OK):
        return [str(candidate), "mcp"]
    found = shutil.which(CONSOLE_SCRIPT)
    return [found or CONSOLE_SCRIPT, "mcp"]


def build_env(
    collection: str,
    *,
    redis_url: str = "",
    data_dir: str = "",
    extra_env: dict[str, str] | None = None,
) -> dict[str, str]:
    """Environment the client passes to the server: only what differs from defaults."""
    from ..db.keys import validate_collection

    validate_collection(collection)
    env = {"HOUKAI_COLLECTION": collection}
    if redis_url:
        env["REDIS_URL"] = redis_url
    if data_dir:
        env["HOUKAI_DATA_DIR"] = os.path.expanduser(data_dir)
    for key, value in (extra_env or {}).items():
        env[str(key)] = str(value)
    return env


def load_json(path: str | os.PathLike, *, overwrite_unparseable: bool = True) -> dict[str, Any]:
    """A client config as a dict: ``{}`` when missing.

    A file that is not a JSON object cannot be merged into. By default it is
    moved aside to ``<file>.bak`` (so nothing is lost) and treated as empty;
    with ``overwrite_unparseable=False`` a ``ValueError`` names the file instead.
    """
    path = Path(path)
    if not path.is_file():
        return {}
    raw = path.read_text(encoding="utf-8")
    problem = ""
    try:
        loaded = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        problem = f"is not valid JSON ({exc})"
    else:
        if isinstance(loaded, dict):
            return loaded
        problem = f"holds a JSON {type(loaded).__name__}, not an object"
    if not overwrite_unparseable:
        raise ValidationError(f"{path} {problem}: fix or remove it, then re-run")
    backup = path.with_name(path.name + ".bak")
    shutil.copy2(path, backup)
    log.warning(
        "%s %s; saved a copy as %s and starting from an empty config", path, problem, backup
    )
    return {}


def write_json(path: str | os.PathLike, data: dict[str, Any]) -> str:
    """Write *data* to *path* atomically (temp file in the same dir + ``os.replace``).

    A crash mid-write leaves either the old file or the new one, never a
    truncated config. The original file's permission bits are kept.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else None
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, ensure_ascii=False)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return str(path)


def merge_server_block(
    path: str | os.PathLike,
    config_key: str,
    server_name: str,
    block: dict[str, Any],
    *,
    defaults: dict[str, Any] | None = None,
    overwrite_unparseable: bool = True,
    replaces: tuple[str, ...] = LEGACY_SERVER_NAMES,
) -> str:
    """Put *block* at ``config[config_key][server_name]``, keeping everything else.

    Read-modify-write: other servers and unrelated top-level keys survive, and
    re-running replaces only our entry (idempotent); the entries named in
    *replaces* (the seed's ``ai-houkai``) are removed. *defaults* seed top-level
    keys when absent (OpenCode's ``$schema``).
    """
    config = load_json(path, overwrite_unparseable=overwrite_unparseable)
    for key, value in (defaults or {}).items():
        config.setdefault(key, value)
    servers = config.get(config_key)
    if not isinstance(servers, dict):
        if servers is not None:
            log.warning("%s: %r was not an object; replacing it", path, config_key)
        servers = {}
    for old in replaces:
        if old != server_name and servers.pop(old, None) is not None:
            log.info("%s: replaced the %r registration by %r", path, old, server_name)
    servers[server_name] = block
    config[config_key] = servers
    return write_json(path, config)


def remove_server_block(path: str | os.PathLike, config_key: str, server_name: str) -> bool:
    """Drop our entry from a client config; ``True`` when something was removed."""
    path = Path(path)
    if not path.is_file():
        return False
    config = load_json(path, overwrite_unparseable=False)
    servers = config.get(config_key)
    if not isinstance(servers, dict) or server_name not in servers:
        return False
    del servers[server_name]
    write_json(path, config)
    return True


def verify_server(
    command: list[str],
    env: dict[str, str],
    *,
    stream: TextIO | None = None,
    timeout: float = 120.0,
) -> bool:
    """Smoke-test exactly what the client will run: spawn it over stdio, list tools, call stats.

    Returns ``True`` when the server starts, exposes :data:`CORE_TOOLS` and
    answers ``stats`` for the installed collection.
    """
    import anyio

    stream = stream or sys.stdout
    executable = shutil.which(command[0]) or (command[0] if os.path.isfile(command[0]) else None)
    if not executable:
        print(f"  err  {command[0]!r} not found: install houkai (pip install houkai)", file=stream)
        return False
    print(f"  ok   command: {' '.join(command)}", file=stream)

    async def probe(errlog: TextIO) -> tuple[list[str], Any]:
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import stdio_client

        params = StdioServerParameters(
            command=command[0], args=command[1:], env={**os.environ, **env}
        )
        with anyio.fail_after(timeout):
            async with Client(
                stdio_client(params, errlog=errlog), read_timeout_seconds=timeout
            ) as client:
                tools = [t.name for t in (await client.list_tools()).tools]
                result = await client.call_tool("stats", {})
                return tools, result

    # The server's stderr (model loading, logs) goes to a temp file, shown on failure.
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        try:
            tools, result = anyio.run(probe, errlog)
        except Exception as exc:  # report, don't crash the installer
            errlog.seek(0)
            tail = [line for line in errlog.read().splitlines() if line.strip()][-5:]
            print(f"  err  server did not answer: {type(exc).__name__}: {exc}", file=stream)
            for line in tail:
                print(f"       | {line}", file=stream)
            return False
        errlog.seek(0)
        for line in errlog.read().splitlines():
            if "started the embedded Redis Stack" in line:  # it outlives the probe: say so
                print(f"  note {line.removeprefix('houkai: ')}", file=stream)
    missing = [t for t in CORE_TOOLS if t not in tools]
    if missing:
        print(f"  err  server lacks tools: {', '.join(missing)}", file=stream)
        return False
    if result.is_error:
        text = " ".join(getattr(c, "text", "") for c in result.content)
        print(f"  err  stats failed: {text}", file=stream)
        return False
    stats = result.structured_content or {}
    print(
        f"  ok   {len(tools)} tools; collection {stats.get('collection')!r} holds "
        f"{stats.get('count')} memories",
        file=stream,
    )
    return True


# Client-agnostic guidance; each installer wraps it in its own file format.
MEMORY_GUIDE = textwrap.dedent(
    """
    You have a persistent long-term memory through the houkai MCP tools. It survives
    across sessions; use it instead of asking the user to repeat themselves.

    - **recall(query, k)**: search memory (semantic; `mode="hybrid"` adds keywords/recency)
    - **auto_context(task)** / **recall_pack(query, token_budget)**: a ready-to-read block
      of the most relevant memories within a token budget
    - **remember(text, type, tags, importance)**: store one fact, decision or preference
    - **edit(memory_id, ...)**: fix or refine a memory in place (keeps id, links, history)
    - **forget(memory_id)**: delete a memory that is wrong or obsolete
    - **list_recent()**: the newest memories

    ### When to use memory

    | Situation | Action |
    |---|---|
    | Starting a task | `auto_context` or `recall` relevant context first |
    | The user states a preference or convention | `remember` (`type="feedback"`/`"procedural"`) |
    | You learn a durable fact about the project | `remember` with `type="semantic"` |
    | Something notable happened (a fix, a release) | `remember` with `type="episodic"` |
    | A stored fact is outdated or has a typo | `edit` it; don't forget + remember |
    | The user corrects you | `remember` the correction, `forget`/`supersede` the wrong fact |

    Keep each memory one self-contained statement; add 1–3 short tags. Never store secrets.
    """
).strip()


@dataclass
class BaseInstaller:
    """Register ``houkai mcp`` with one MCP client. Subclasses declare the differences.

    ``install(scope=...)`` merges the server block into the client's config
    (``scope="user"``: the per-user file; ``"project"``: a file under
    ``project_dir``), ``print_config()`` shows what would be written, and
    ``verify()`` spawns the configured server and checks it answers.
    """

    collection: str = ""
    server_name: str = SERVER_NAME
    redis_url: str = ""
    data_dir: str = ""
    extra_env: dict[str, str] = field(default_factory=dict)
    command: list[str] = field(default_factory=list)
    #: Explicit config file; overrides the scope's default location.
    settings_path: str = ""
    project_dir: str = ""

    client_name: ClassVar[str] = ""
    slug: ClassVar[str] = ""
    config_key: ClassVar[str] = "mcpServers"
    default_collection: ClassVar[str] = "ai_houkai"
    user_config: ClassVar[str] = ""  # relative to $HOME
    project_config: ClassVar[str] = ""  # relative to project_dir
    snippet_file: ClassVar[str] = ""
    reload_hint: ClassVar[str] = ""

    def __post_init__(self) -> None:
        if not self.collection:
            self.collection = self.default_collection
        if not self.command:
            self.command = resolve_command()

    # --- what gets written ---------------------------------------------------
    def build_env(self) -> dict[str, str]:
        return build_env(
            self.collection,
            redis_url=self.redis_url,
            data_dir=self.data_dir,
            extra_env=self.extra_env,
        )

    def build_mcp_block(self) -> dict[str, Any]:
        """The per-server entry in this client's schema."""
        raise NotImplementedError

    def config_defaults(self) -> dict[str, Any]:
        """Top-level keys to seed when absent."""
        return {}

    def build_settings_block(self) -> dict[str, Any]:
        servers = {self.server_name: self.build_mcp_block()}
        return {**self.config_defaults(), self.config_key: servers}

    def config_path(self, scope: str = "user") -> Path:
        """Where *scope*'s config lives (``settings_path`` wins when set)."""
        _check_scope(scope)
        if self.settings_path:
            return Path(self.settings_path).expanduser()
        if scope == "project":
            return Path(self.project_dir or os.getcwd()) / self.project_config
        return Path(os.path.expanduser("~")) / self.user_config

    # --- actions -------------------------------------------------------------
    def install(self, *, scope: str = "user", overwrite_unparseable: bool = True) -> str:
        """Merge our block into the client config; returns the file written."""
        return merge_server_block(
            self.config_path(scope),
            self.config_key,
            self.server_name,
            self.build_mcp_block(),
            defaults=self.config_defaults(),
            overwrite_unparseable=overwrite_unparseable,
        )

    def uninstall(self, *, scope: str = "user") -> bool:
        return remove_server_block(self.config_path(scope), self.config_key, self.server_name)

    def is_installed(self, *, scope: str = "user") -> bool:
        path = self.config_path(scope)
        try:
            servers = load_json(path, overwrite_unparseable=False).get(self.config_key)
        except ValueError:
            return False
        return isinstance(servers, dict) and self.server_name in servers

    def print_config(self, *, scope: str = "user", stream: TextIO | None = None) -> None:
        stream = stream or sys.stdout
        print(f"Merge this into {self.config_path(scope)}:\n", file=stream)
        print(json.dumps(self.build_settings_block(), indent=2), file=stream)
        if self.reload_hint:
            print(f"\n{self.reload_hint}", file=stream)

    def verify(self, *, scope: str = "user", stream: TextIO | None = None) -> bool:
        stream = stream or sys.stdout
        ok = verify_server(self.command, self.build_env(), stream=stream)
        path = self.config_path(scope)
        if self.is_installed(scope=scope):
            print(f"  ok   registered in {path}", file=stream)
        else:
            print(f"  warn not registered in {path} yet: run install", file=stream)
        return ok

    @classmethod
    def snippet(cls) -> str:
        """Guidance text for this client's instruction file."""
        return MEMORY_GUIDE

    # --- console script ------------------------------------------------------
    @classmethod
    def main(cls, argv: list[str] | None = None) -> int:
        """``houkai-install-<client>``: print the config (default), install, verify, snippet."""
        parser = argparse.ArgumentParser(
            prog=f"houkai-install-{cls.slug}",
            description=f"Register the houkai MCP server with {cls.client_name}.",
        )
        parser.add_argument("--install", action="store_true", help="write the registration")
        parser.add_argument(
            "--project",
            action="store_true",
            help=f"project scope (./{cls.project_config}) instead of user scope",
        )
        parser.add_argument(
            "--collection",
            default=None,
            help=f"collection the client uses (default: {cls.default_collection})",
        )
        parser.add_argument(
            "--redis-url",
            default=os.environ.get("REDIS_URL", ""),
            help="Redis Stack URL the server should use (default: embedded)",
        )
        parser.add_argument("--settings", default="", help="explicit config file path")
        parser.add_argument(
            "--verify", action="store_true", help="spawn the server and check it answers"
        )
        parser.add_argument(
            "--snippet", action="store_true", help=f"print the {cls.snippet_file} guidance snippet"
        )
        args = parser.parse_args(argv)
        scope = "project" if args.project else "user"
        try:
            inst = cls(
                collection=args.collection or "",
                redis_url=args.redis_url,
                settings_path=args.settings,
            )
            if args.snippet:
                print(cls.snippet())
            if args.install:
                print(f"registered: {inst.install(scope=scope)}")
                if cls.reload_hint:
                    print(cls.reload_hint)
            elif not (args.verify or args.snippet):
                inst.print_config(scope=scope)
            if args.verify and not inst.verify(scope=scope):
                return 1
        except (ValueError, RuntimeError, OSError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        return 0


def seed_arguments(cls: type) -> type:
    """Let an installer class take the seed's ``memory_path`` and ``config_path`` arguments.

    ``memory_path`` (the seed's store directory) is houkai's ``data_dir``;
    ``config_path`` (an explicit client config file) is ``settings_path``.
    Applied on top of ``@dataclass``, whose generated ``__init__`` it wraps.
    """
    init = cls.__init__  # type: ignore[misc]

    def __init__(
        self: Any,
        *args: Any,
        memory_path: str | None = None,
        config_path: str | None = None,
        **kwargs: Any,
    ) -> None:
        if memory_path is not None:
            kwargs.setdefault("data_dir", memory_path)
        if config_path is not None:
            kwargs.setdefault("settings_path", config_path)
        init(self, *args, **kwargs)

    __init__.__doc__ = init.__doc__
    cls.__init__ = __init__  # type: ignore[misc]
    return cls


def _check_scope(scope: str) -> None:
    if scope not in SCOPES:
        raise ValidationError(f"scope must be one of {', '.join(SCOPES)}, got {scope!r}")
