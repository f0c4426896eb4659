"""The ``houkai`` command line (click).

The root group resolves configuration once (flags → env → config file →
defaults) and hands command modules a lazy :class:`Context`. Every module in
``houkai/cli/commands/`` exposes ``register(cli)``; the root discovers them,
so adding a command never means editing this file.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import sys
from dataclasses import dataclass, field
from typing import Any

import click

from ..config import Settings, load_settings, set_settings


@dataclass
class Context:
    """What every command gets: settings, plus a store created on first use."""

    settings: Settings
    output_format: str = "auto"
    _stores: dict[str, Any] = field(default_factory=dict)

    @property
    def collection(self) -> str:
        return self.settings.collection

    def store(self, collection: str | None = None):
        """The MemoryStore for *collection* (default: the configured one), created once."""
        from ..store import MemoryStore

        name = collection or self.settings.collection
        if name not in self._stores:
            self._stores[name] = MemoryStore(collection=name, settings=self.settings, actor="cli")
        return self._stores[name]


pass_ctx = click.make_pass_decorator(Context)


class HoukaiGroup(click.Group):
    """Turns expected errors into one line ``Error: …`` and exit 1, never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        from ..errors import user_message

        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except KeyboardInterrupt:
            raise click.exceptions.Exit(130) from None
        except Exception as exc:  # noqa: BLE001 - the CLI's last line of defence
            message = user_message(exc)
            if message is None:
                logging.getLogger("houkai.cli").debug("unexpected error", exc_info=True)
                message = f"unexpected {type(exc).__name__}: {exc}"
            raise click.ClickException(message) from None


@click.group(cls=HoukaiGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--collection", "-c", envvar="HOUKAI_COLLECTION", help="Collection to use.")
@click.option("--redis-url", envvar="REDIS_URL",
              help="Redis Stack URL (default: the embedded server under the data dir).")
@click.option("--data-dir", envvar="HOUKAI_DATA_DIR", type=click.Path(file_okay=False),
              help="Data directory of the embedded Redis Stack.")
@click.option("--format", "output_format", type=click.Choice(["auto", "table", "tsv", "json"]),
              default="auto", show_default=True,
              help="Output format: table on a terminal, TSV when piped, or JSON.")
@click.option("-v", "--verbose", count=True, help="Log more (-vv for debug).")
@click.version_option(package_name="houkai")
@click.pass_context
def cli(ctx: click.Context, collection: str | None, redis_url: str | None,
        data_dir: str | None, output_format: str, verbose: int) -> None:
    """houkai: long-term memory for AI agents, on Redis Stack."""
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    settings = load_settings({"collection": collection, "redis_url": redis_url,
                              "data_dir": data_dir})
    if settings.collection:
        from ..index import validate_collection

        try:
            validate_collection(settings.collection)
        except ValueError as exc:
            raise click.ClickException(f"--collection: {exc}") from None
    set_settings(settings)
    ctx.obj = Context(settings=settings, output_format=output_format)


def _discover() -> None:
    from . import commands

    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(cli)


_discover()


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    cli.main(args=argv if argv is not None else sys.argv[1:], prog_name="houkai")
