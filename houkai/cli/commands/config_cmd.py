"""``houkai config show|path``: the resolved settings and where each value came from."""

from __future__ import annotations

import os
import re
from dataclasses import fields
from typing import Any

import click

from ...domain import config as config_mod
from .. import Context, pass_ctx
from ..output import Column, output_options, print_rows, report

_URL_PASSWORD = re.compile(r"(://[^/:@]*:)[^@/]*@")


def sources(ctx: Context) -> list[dict[str, Any]]:
    """Every setting with its value and source: flag, env, file or default."""
    path = config_mod.config_path()
    try:
        from_file = config_mod.read_config_file(path)
    except ValueError:
        from_file = {}
    rows = []
    for f in fields(config_mod.Settings):
        env_name = config_mod.ENV_PREFIX + f.name.upper()
        if f.name in ctx.overrides:
            source = "flag"
        elif env_name in os.environ:
            source = f"env {env_name}"
        elif f.name == "redis_url" and os.environ.get("REDIS_URL"):
            source = "env REDIS_URL"
        elif f.name in from_file:
            source = f"file {path}"
        else:
            source = "default"
        value = getattr(ctx.settings, f.name)
        if f.name in ("http_tokens", "token") and value:
            value = "***"  # never print secrets
        elif isinstance(value, str) and "://" in value:
            value = _URL_PASSWORD.sub(r"\1***@", value)
        rows.append({"key": f.name, "value": value, "source": source})
    return rows


@click.group("config")
def config_group() -> None:
    """Show the resolved configuration (flags → env → config file → defaults)."""


@config_group.command("show")
@click.argument("keys", nargs=-1)
@output_options
@pass_ctx
def show(ctx: Context, keys: tuple[str, ...]) -> None:
    """Every setting (or only KEYS) with its value and where it came from."""
    rows = sources(ctx)
    if keys:
        known = {r["key"] for r in rows}
        unknown = [k for k in keys if k not in known]
        if unknown:
            raise click.BadParameter(f"unknown setting(s): {', '.join(unknown)}", param_hint="KEYS")
        rows = [r for r in rows if r["key"] in keys]
    print_rows(
        ctx.fmt,
        rows,
        [Column("key", "KEY"), Column("value", "VALUE"), Column("source", "SOURCE", style="dim")],
        json_data={r["key"]: {"value": r["value"], "source": r["source"]} for r in rows},
    )


@config_group.command("path")
@output_options
@pass_ctx
def path(ctx: Context) -> None:
    """Where the config file is read from ($HOUKAI_CONFIG or ~/.config/houkai/config.toml)."""
    p = config_mod.config_path()
    report(ctx.fmt, {"path": str(p), "exists": p.is_file()}, str(p))


def register(cli: click.Group) -> None:
    cli.add_command(config_group)
