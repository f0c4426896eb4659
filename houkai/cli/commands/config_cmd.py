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


@config_group.command("synonyms")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option("-q", "--question", help="Show what each of this question's words also finds.")
@output_options
@pass_ctx
def synonyms(ctx: Context, file: str | None, question: str | None) -> None:
    """Check a synonyms file (FILE, default: the recall_synonyms setting) as recall reads it:
    its groups and abbreviations beside the built-in ones, or a bad line with its number.
    With --question, the words each question word also finds."""
    from ...domain.text import terms_of, tokenize
    from ...recall.synonyms import vocabulary

    if file is not None and not file.strip():
        raise click.BadParameter("an empty path names no file", param_hint="FILE")
    path = file if file is not None else ctx.settings.recall_synonyms
    vocab = vocabulary(path)  # a bad file raises its line: Error: … and exit 1
    built_in = vocabulary()
    payload: dict[str, Any] = {
        "path": path,
        "groups": len(vocab.groups),
        "abbreviations": len(vocab.abbreviations.known),
        "built_in_groups": len(built_in.groups),
        "built_in_abbreviations": len(built_in.abbreviations.known),
    }
    where = path or "no file (built-in only)"
    message = (
        f"{where}: {payload['groups']} groups and {payload['abbreviations']} abbreviations "
        f"({payload['built_in_groups']} and {payload['built_in_abbreviations']} built in)"
    )
    if question is not None:
        tokens = tokenize(question)
        related = vocab.related(terms_of(tokens), tokens)
        payload["question"] = question
        payload["related"] = {word: list(words) for word, words in related.items()}
        lines = [f"  {word}: {', '.join(words)}" for word, words in related.items()]
        message += "\n" + ("\n".join(lines) if lines else "  no word of it has a synonym")
    report(ctx.fmt, payload, message)
