"""The ``houkai`` command line (click).

The root group resolves configuration once (flags → env → config file →
defaults) and hands command modules a lazy :class:`Context`. Every module in
``houkai/cli/commands/`` exposes ``register(cli)``; the root imports a module only when
one of its commands runs (:mod:`houkai.cli.manifest` says which; ``python -m
houkai.cli.manifest --write`` after adding a command), so adding a command never means
editing this file.

Every failure — a usage error, a bad value, an unknown id, a store refusal —
ends as exactly one ``Error: …`` line on stderr and exit status 1.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from ..domain.config import Settings, load_settings, set_settings

if TYPE_CHECKING:
    from ..app.service import MemoryService

log = logging.getLogger("houkai.cli")

FORMATS: tuple[str, ...] = ("auto", "table", "tsv", "json")


@dataclass
class Context:
    """What every command gets: settings, the output format and the lazy service.

    ``settings.collection`` is the collection this command works on (``-C`` or
    the configured default). The service is built with the *configured* default
    (``default_collection``), as a REST server is, so ``-C nosuch`` reading an
    unknown collection is the same 404-style error as ``GET /c/nosuch/...``,
    while a write creates it.
    """

    settings: Settings
    output_format: str = "auto"
    overrides: dict[str, Any] = field(default_factory=dict)
    default_collection: str | None = None
    #: ``--local`` / ``HOUKAI_LOCAL=1``: never send operations to a running server.
    local: bool = False
    _service: Any = None
    _remote: Any = None
    _remote_known: bool = False

    @property
    def collection(self) -> str:
        return self.settings.collection

    @property
    def fmt(self) -> str:
        """The resolved output format: ``table``, ``tsv`` or ``json`` (decided per call)."""
        from .output import resolve_format

        return resolve_format(self.output_format)

    @property
    def service(self) -> MemoryService:
        """The shared :class:`~houkai.app.service.MemoryService` (actor ``cli``)."""
        if self._service is None:
            from ..app.service import MemoryService

            default = self.default_collection or self.settings.collection
            self._service = MemoryService(replace(self.settings, collection=default), actor="cli")
        return self._service

    @property
    def service_started(self) -> bool:
        """True once :attr:`service` has been built (its settings are then fixed)."""
        return self._service is not None

    @property
    def remote(self) -> Any:
        """The data dir's running REST server this process sends operations to
        (:mod:`houkai.cli.remote`), or None: everything runs in-process. Looked up once."""
        if not self._remote_known:
            self._remote_known = True
            if not self.local and self._service is None:
                from .remote import open_remote

                default = self.default_collection or self.settings.collection
                self._remote = open_remote(self.settings, default)
        return self._remote

    def call(self, operation: str, *args: Any, **kwargs: Any) -> Any:
        """Run service *operation* on this command's collection, the REST/MCP code path:
        arguments left unset (None) are dropped, as MCP drops nulls; the method checks the
        rest against the registry (same bounds and error words as every door).

        With a running server for this data dir (:attr:`remote`), the call goes to its
        REST route instead, where the same bound method checks it, and answers the same
        result or error; a call the server cannot take runs in-process. A process that
        built its service already stays in-process (the cost is paid)."""
        from ..app.operations import OPERATIONS

        op = next((o for o in OPERATIONS if o.service_method == operation), None)
        collection = kwargs.pop("collection", self.collection)
        remote = self.remote if op is not None else None
        if op is not None and remote is not None:
            from ..app.operations import check_arguments
            from .remote import Unavailable

            arguments = _arguments(op, args, kwargs)
            # checked here as in-process (undecodable argv bytes, a text over the limit,
            # NaN): the same words either way, and nothing the server would refuse is sent
            check_arguments(op, arguments)
            try:
                return remote.call(op, arguments, collection)
            except Unavailable as why:
                log.debug("%s runs in-process: %s", operation, why)
        return self._call_here(op, operation, args, kwargs, collection)

    def _call_here(
        self, op: Any, operation: str, args: tuple, kwargs: dict[str, Any], collection: str
    ) -> Any:
        import inspect

        method = getattr(self.service, operation)
        bound = inspect.signature(method).bind_partial(*args, **kwargs).arguments
        arguments = {k: v for k, v in bound.items() if v is not None and k != "collection"}
        if op is None or op.scope == "collection":
            arguments["collection"] = collection
        return method(**arguments)

    def store(self, collection: str | None = None) -> Any:
        """The MemoryStore of *collection* (created when missing): for writers and engines."""
        return self.service.store(collection or self.collection)

    def reader(self, collection: str | None = None) -> Any:
        """The store of an *existing* collection, for what the service has no operation
        for (id-prefix lookup): an unknown collection is an error, never created. With a
        running server, a plain Redis client answers the lookup (no store is loaded)."""
        name = collection or self.collection
        default = self.default_collection or self.settings.collection
        if self.remote is not None:
            from .remote import id_reader

            light = id_reader(self.settings, name, default, lambda: self.service.store(name))
            if light is not None:
                return light
        service = self.service
        if name != service.settings.collection and not service.has_collection(name):
            from ..domain.errors import NotFound

            raise NotFound(f"no collection named {name!r}")
        return service.store(name)


def _arguments(op: Any, args: tuple, kwargs: dict[str, Any]) -> dict[str, Any]:
    """*op*'s arguments from a call's positionals and keywords, unset ones dropped and
    library strings typed (``k="3"``) as the bound method does; the server's bound method
    then runs the one check (strictly, as JSON arrives), with the same error words."""
    from ..app.operations import coerce_arguments
    from ..app.operations.bind import signature
    from ..app.operations.schema import InvalidArgument

    try:
        bound = signature(op.name, []).bind_partial(None, *args, **kwargs).arguments
    except TypeError as exc:
        raise InvalidArgument(f"{op.name}: {exc}") from None
    bound.pop("self", None)
    given = {k: v for k, v in bound.items() if v is not None}
    return coerce_arguments(op, given)


pass_ctx = click.make_pass_decorator(Context)


def _one_line(message: str) -> str:
    return " ".join(str(message).split()) or "failed"


def error_message(exc: BaseException) -> str:
    """The user-facing text for *exc* (expected errors verbatim, others by type)."""
    from ..app.errors import user_message

    if isinstance(exc, click.BadParameter) and isinstance(
        getattr(exc.param, "type", None), click.Choice
    ):
        return _choice_message(exc)
    if isinstance(exc, click.ClickException):
        return exc.format_message()
    message = user_message(exc)
    if message is None:
        log.debug("unexpected error", exc_info=exc)
        message = f"unexpected {type(exc).__name__}: {exc}"
    return message


def _choice_message(exc: click.BadParameter) -> str:
    """A bad vocabulary value in the store's (and the seed's) words: ``mode must be one of …``."""
    param = exc.param
    assert param is not None
    name = (param.name or "value").rstrip("_")
    choices = ", ".join(str(c) for c in getattr(param.type, "choices", ()))
    got = exc.message.split(" is not ", 1)[0]
    hint = exc.param_hint or param.get_error_hint(exc.ctx) if exc.ctx else name
    return f"Invalid value for {hint}: {name} must be one of {choices} — got {got}"


class _LazyCommands(dict):
    """The root's commands, each imported when it is first read (:mod:`houkai.cli.manifest`
    says from where): ``houkai recall`` imports the recall module alone, ``houkai --help``
    none. Reading them all (iterating) imports every command module."""

    def __init__(self, load_one: Any, load_all: Any) -> None:
        super().__init__()
        self._load_one: Any = load_one
        self._load_all: Any = load_all

    def __getitem__(self, key: Any) -> Any:
        self._load_one(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self._load_one(key)
        return super().__contains__(key)

    def get(self, key: Any, default: Any = None) -> Any:
        self._load_one(key)
        return super().get(key, default)

    def loaded(self) -> dict[str, Any]:
        """The commands imported so far (imports nothing)."""
        return dict(super().items())

    def __iter__(self) -> Any:
        self._load_all()
        return super().__iter__()

    def __len__(self) -> int:
        self._load_all()
        return super().__len__()

    def keys(self) -> Any:
        self._load_all()
        return super().keys()

    def values(self) -> Any:
        self._load_all()
        return super().values()

    def items(self) -> Any:
        self._load_all()
        return super().items()


class HoukaiGroup(click.Group):
    """The root: a lazy group (a command's module is imported when the command runs or
    its help is asked for) that runs commands so that any failure is one ``Error: …``
    line and exit 1."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._loaded: set[str] = set()
        self.commands = _LazyCommands(self._load_command, self._load_all)

    # ------------------------------------------------------------------ lazy commands
    def _load(self, modules: Any) -> None:
        for name in modules:
            if name in self._loaded:
                continue
            self._loaded.add(name)  # first: a module's register may read another command
            module = importlib.import_module(f"{__name__}.commands.{name}")
            register = getattr(module, "register", None)
            if register is not None:
                register(self)

    def _load_command(self, name: Any) -> None:
        from .manifest import COMMANDS

        entry = COMMANDS.get(name) if isinstance(name, str) else None
        self._load(entry.modules if entry is not None else self._unlisted())

    def _load_all(self) -> None:
        from .manifest import module_names

        self._load(module_names())

    def _unlisted(self) -> list[str]:
        """Command modules the manifest does not know yet (imported eagerly)."""
        from .manifest import COMMANDS, HELPERS, module_names

        listed = {m for entry in COMMANDS.values() for m in entry.modules} | set(HELPERS)
        return [m for m in module_names() if m not in listed]

    def _commands(self) -> _LazyCommands:
        assert isinstance(self.commands, _LazyCommands)
        return self.commands

    def list_commands(self, ctx: click.Context) -> list[str]:
        from .manifest import COMMANDS

        self._load(self._unlisted())
        return sorted(set(COMMANDS) | set(self._commands().loaded()))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's listing, from the manifest for a command not imported yet."""
        from .manifest import COMMANDS

        rows: list[tuple[str, str]] = []
        names = [n for n in self.list_commands(ctx) if not getattr(COMMANDS.get(n), "hidden", 0)]
        limit = formatter.width - 6 - max((len(n) for n in names), default=0)
        for name in names:
            entry = COMMANDS.get(name)
            if entry is None:  # a module the manifest does not know: imported above
                command = self._commands().loaded().get(name)
                if command is not None and not command.hidden:
                    rows.append((name, command.get_short_help_str(limit)))
                continue
            # click's own shortening, on a stand-in that carries the recorded help
            stand_in = click.Command(name, help=entry.help, short_help=entry.short_help)
            rows.append((name, stand_in.get_short_help_str(limit)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def main(
        self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra: Any
    ) -> Any:
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.Exit as exc:
            code = exc.exit_code
        except click.exceptions.Abort:
            click.echo("Aborted.", err=True)
            code = 1
        except KeyboardInterrupt:
            click.echo("Interrupted.", err=True)
            code = 130
        except Exception as exc:
            no_args = getattr(click.exceptions, "NoArgsIsHelpError", None)
            if no_args is not None and isinstance(exc, no_args):
                click.echo(exc.format_message())  # a bare `houkai` / group: its help
                code = 0
            else:
                click.echo(f"Error: {_one_line(error_message(exc))}", err=True)
                code = 1
        else:
            code = rv if isinstance(rv, int) else 0
        if not standalone_mode:
            return code
        sys.exit(code)


@click.group(cls=HoukaiGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--collection",
    "-C",
    "-c",
    envvar=["HOUKAI_COLLECTION", "AI_HOUKAI_COLLECTION"],
    help="Collection to use (env HOUKAI_COLLECTION, or the seed's AI_HOUKAI_COLLECTION).",
)
@click.option(
    "--redis-url",
    envvar="REDIS_URL",
    help="Redis Stack URL (default: the embedded server under the data dir).",
)
@click.option(
    "--data-dir",
    "--store",
    "-S",
    "data_dir",
    envvar="HOUKAI_DATA_DIR",
    type=click.Path(file_okay=False),
    help="Data directory of the embedded Redis Stack (--store/-S: the seed's spelling).",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice([*FORMATS, "rich"]),
    default="auto",
    show_default=True,
    help="Output format: table on a terminal, TSV when piped, or JSON.",
)
@click.option(
    "--local",
    is_flag=True,
    envvar="HOUKAI_LOCAL",
    help="Run in this process, not on a running houkai server (env HOUKAI_LOCAL=1).",
)
@click.option("-v", "--verbose", count=True, help="Log more (-vv for debug).")
@click.version_option(None, "-V", "--version", package_name="houkai")
@click.pass_context
def cli(
    ctx: click.Context,
    collection: str | None,
    redis_url: str | None,
    data_dir: str | None,
    output_format: str,
    local: bool,
    verbose: int,
) -> None:
    """houkai: long-term memory for AI agents, on Redis Stack."""
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    overrides = {"collection": collection, "redis_url": redis_url, "data_dir": data_dir}
    settings = load_settings(overrides)
    if settings.collection:
        from ..db.keys import validate_collection

        try:
            validate_collection(settings.collection)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--collection") from None
    set_settings(settings)
    from ..db import server as redis_server

    redis_server.set_start_listener(_announce_started)
    redis_server.set_loading_listener(_announce_loading)
    from_flags = {
        k: v
        for k, v in overrides.items()
        if v is not None and ctx.get_parameter_source(k) is ParameterSource.COMMANDLINE
    }
    # A -C on the command line names a collection like /c/<name> does on REST; the
    # service's default (read even when empty, as REST's) is the configured one.
    default = (
        load_settings({**overrides, "collection": None}).collection
        if "collection" in from_flags
        else settings.collection
    )
    ctx.obj = Context(
        settings=settings,
        output_format=output_format,
        overrides=from_flags,
        default_collection=default,
        local=local,
    )


def _announce_started(info) -> None:
    """A command that starts the embedded server leaves it running: say so once."""
    click.echo(
        f"houkai: started the embedded Redis Stack at {info.url} (pid {info.pid}, data in "
        f"{info.data_dir}); it keeps running after this command: stop it with "
        f"`houkai redis stop`",
        err=True,
    )


def _announce_loading(loading) -> None:
    """A server loading a big data set takes minutes: show that it is alive and how far."""
    done = "" if loading.percent is None else f" {loading.percent:.0f}%"
    left = "" if not loading.eta else f", about {loading.eta:.0f}s left"
    click.echo(
        f"houkai: Redis at {loading.url} (pid {loading.pid}) is loading its data{done}{left}; "
        f"waiting ({loading.waited:.0f}s so far)",
        err=True,
    )


def _discover() -> None:
    """Import every command module now (the root otherwise imports each on first use)."""
    cli.commands.keys()


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    # Model-loading progress bars would land in every command's stderr.
    os.environ.setdefault("TQDM_DISABLE", "1")
    cli.main(args=argv if argv is not None else sys.argv[1:], prog_name="houkai")
