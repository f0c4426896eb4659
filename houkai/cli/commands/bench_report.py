"""What every ``houkai bench`` command does around its measurement: a progress line on a
terminal, the result as JSON (``-f json``, ``--out FILE``) or as the benchmark's lines."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import click

from .. import Context
from ..output import resolve_format


class Progress:
    """``progress(message)`` rewrites one stderr line while a benchmark runs (only on a
    terminal); :meth:`done` clears it."""

    def __init__(self) -> None:
        self.show = sys.stderr.isatty()

    def __call__(self, message: str) -> None:
        if self.show:
            click.echo(f"\r\033[K{message[:150]}", nl=False, err=True)

    def done(self) -> None:
        if self.show:
            click.echo("\r\033[K", nl=False, err=True)


def report(
    ctx: Context,
    result: dict[str, Any],
    lines: Callable[[dict[str, Any]], Iterable[str]],
    out: str | None,
    progress: Progress | None = None,
) -> None:
    """Print *result* (JSON, or the benchmark's *lines*), after writing it to *out* when
    given, with the command line that made it."""
    result["command"] = " ".join(["houkai", *sys.argv[1:]])
    if progress is not None:
        progress.done()
    if out:
        Path(out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    if resolve_format(ctx.output_format) == "json":
        click.echo(json.dumps(result))
    else:
        for line in lines(result):
            click.echo(line)
