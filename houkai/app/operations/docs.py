"""The manual's reference tables, generated from the code (and checked by a test).

Each table sits between ``<!-- registry:NAME -->`` and ``<!-- /registry:NAME -->``
in one page of the manual (:data:`PAGES`): the REST routes, the MCP tools, every
CLI command, each operation's doors, the index of design records, and the README's
benchmark-suite tables and the manual's full suite page (both from
``docs/bench/suite.json``).
``python -m houkai.app.operations.docs --write`` rewrites them;
``--check`` exits 1 when one drifted from the code (``tests/test_registry.py``
does the same), so a parameter added to a model reaches the manual in one edit.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .catalog import OPERATIONS
from .schema import params_schema
from .spec import Operation, Rest

ROOT = Path(__file__).resolve().parents[3]
ADR_DIR = ROOT / "docs" / "adr"

# Which page of the manual holds each generated block (relative to the repo root).
PAGES: dict[str, str] = {
    "rest-routes": "docs/rest.md",
    "mcp-tools": "docs/mcp.md",
    "cli-commands": "docs/cli.md",
    "operation-doors": "docs/reference/operations.md",
    "adr-index": "docs/design-decisions.md",
    "bench-suite": "README.md",
    "bench-suite-full": "docs/bench/suite-table.md",
}
SUITE_RESULT = ROOT / "docs" / "bench" / "suite.json"


def _args(names: list[str], required: set[str]) -> str:
    return ", ".join(f"**{n}**" if n in required else n for n in names) or "—"


def _rest_params(op: Operation, rest: Rest) -> str:
    schema = params_schema(op)
    props = schema["properties"]
    in_path = [p for p in props if "{" + p + "}" in rest.path]
    names = [p for p in props if p not in in_path]
    if rest.method in ("GET", "DELETE") and rest.params_in != "body":
        names = [n for n in names if _scalar(props[n])]
        where = "query"
    else:
        where = "body"
    if rest.upload:
        extra = list(params_schema(_op(rest.upload))["properties"])
        required = set(schema.get("required", ()))
        return f"body: {_args(names, required)}; or a file, query: {_args(extra, set())}"
    if not names:
        return "—"
    return f"{where}: {_args(names, set(schema.get('required', ())))}"


def _scalar(schema: dict[str, Any]) -> bool:
    kinds = [schema.get("type"), *(o.get("type") for o in schema.get("anyOf", ()))]
    return not {"array", "object"} & {str(k) for k in kinds}


def _op(name: str) -> Operation:
    return next(op for op in OPERATIONS if op.name == name)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def rest_table() -> str:
    rows = ["| Method & path | Parameters (required in **bold**) | Does |", "|---|---|---|"]
    for op in OPERATIONS:
        for rest in op.rest:
            codes = "/".join(str(c) for c in sorted(rest.responses) if c < 300)
            summary = rest.summary or op.doc
            auth = {"public": " No auth.", "global": "", "collection": ""}[op.scope]
            rows.append(
                f"| `{rest.method} {rest.path}` | {_cell(_rest_params(op, rest))} | "
                f"{_cell(summary)} ({codes}){auth} |"
            )
    return "\n".join(rows)


def mcp_table() -> str:
    rows = ["| Tool | Arguments (required in **bold**) | Does |", "|---|---|---|"]
    for op in OPERATIONS:
        if not op.mcp:
            continue
        schema = params_schema(op)
        args = _args(list(schema["properties"]), set(schema.get("required", ())))
        flags = "" if op.writes else " Read-only."
        rows.append(f"| `{op.name}` | {args} | {_cell(op.doc)}{flags} |")
    return "\n".join(rows)


def _commands() -> list[tuple[str, Any]]:
    """Every (visible) command of the ``houkai`` CLI as ``(path, click.Command)``."""
    import click

    from houkai.cli import cli

    found: list[tuple[str, Any]] = []

    def walk(group: click.Group, prefix: str, ctx: click.Context) -> None:
        for name in group.list_commands(ctx):
            cmd = group.get_command(ctx, name)
            if cmd is None or cmd.hidden:
                continue
            path = f"{prefix} {name}".strip()
            if isinstance(cmd, click.Group):
                walk(cmd, path, click.Context(cmd, parent=ctx, info_name=name))
            else:
                found.append((path, cmd))

    walk(cli, "", click.Context(cli, info_name="houkai"))
    return found


def _no_design_refs(text: str) -> str:
    """Help text without its pointers into the design records (the manual links them once)."""
    return re.sub(r"\s*\((?:see )?docs/adr/[^)]*\)", "", text)


# Left out of each row: the output options every printing command shares (the page says so).
_COMMON = {"--help", "--format", "--json"}


def cli_table() -> str:
    import click

    rows = ["| Command | Options | Does |", "|---|---|---|"]
    for path, cmd in _commands():
        args = " ".join(p.human_readable_name for p in cmd.params if isinstance(p, click.Argument))
        opts = [
            "/".join([*p.opts, *p.secondary_opts])
            for p in cmd.params
            if isinstance(p, click.Option) and not p.hidden and not _COMMON & set(p.opts)
        ]
        usage = f"`{path} {args}`" if args else f"`{path}`"
        help_text = _no_design_refs(cmd.get_short_help_str(limit=200))
        listed = ", ".join(f"`{o}`" for o in opts) or "—"
        rows.append(f"| {usage} | {_cell(listed)} | {_cell(help_text)} |")
    return "\n".join(rows)


def _command_of() -> dict[str, list[str]]:
    """Operation name → the CLI commands whose parameters it declares."""
    from houkai.cli.output import DECLARED_BY

    found: dict[str, list[str]] = {}
    paths = []
    for path, cmd in _commands():
        paths.append(path)
        for name in dict.fromkeys(getattr(p, DECLARED_BY, None) for p in cmd.params):
            if name:
                found.setdefault(name, []).append(path)
    for op in OPERATIONS:  # a hand-written command named after its operation
        name = op.name.replace("_", "-")
        if op.name not in found and name in paths:
            found[op.name] = [name]
    return found


def operations_table() -> str:
    commands = _command_of()
    rows = ["| Operation | CLI | REST | MCP tool | Does |", "|---|---|---|---|---|"]
    for op in OPERATIONS:
        cli = "<br>".join(f"`houkai {c}`" for c in commands.get(op.name, ())) or "—"
        rest = "<br>".join(f"`{r.method} {r.path}`" for r in op.rest) or "—"
        tool = f"`{op.name}`" if op.mcp else "—"
        rows.append(f"| {op.name} | {cli} | {rest} | {tool} | {_cell(op.doc)} |")
    return "\n".join(rows)


_TITLE = re.compile(r"^#\s*(?:ADR\s*)?\d{4}\s*[:—-]\s*")


def adr_table(folder: Path | None = None) -> str:
    """One row per design record in ``docs/adr``: its number, decision and status."""
    rows = ["| Record | Decision | Status |", "|---|---|---|"]
    for path in sorted((folder or ADR_DIR).glob("[0-9][0-9][0-9][0-9]-*.md")):
        lines = path.read_text(encoding="utf-8").splitlines()
        title = _TITLE.sub("", lines[0]).strip() if lines else path.stem
        status = next(
            (ln.split(":", 1)[1] for ln in lines if ln.lower().lstrip("*").startswith("status")),
            "",
        )
        word = re.match(r"\s*\**\s*([A-Za-z]+)", status)
        rows.append(
            f"| [{path.name[:4]}](adr/{path.name}) | {_cell(title)} | "
            f"{word.group(1).lower() if word else '—'} |"
        )
    return "\n".join(rows)


def suite_table() -> str:
    """The benchmark suite's headline and per-stage tables, from its last committed run
    (``houkai bench suite --split test`` writes ``docs/bench/suite.json``)."""
    import json

    from ...bench.suite import readme_block

    return readme_block(json.loads(SUITE_RESULT.read_text(encoding="utf-8"))).rstrip()


def suite_full() -> str:
    """Every table of that run, set by set and mode by mode (the manual's benchmark page
    includes this file)."""
    import json

    from ...bench.suite import markdown

    return markdown(json.loads(SUITE_RESULT.read_text(encoding="utf-8"))).rstrip()


BLOCKS: dict[str, Callable[[], str]] = {
    "rest-routes": rest_table,
    "mcp-tools": mcp_table,
    "cli-commands": cli_table,
    "operation-doors": operations_table,
    "adr-index": adr_table,
    "bench-suite": suite_table,
    "bench-suite-full": suite_full,
}


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(
        rf"(<!-- registry:{re.escape(name)} -->\n)(.*?)(<!-- /registry:{re.escape(name)} -->)",
        re.S,
    )


def update(text: str, names: list[str] | None = None) -> str:
    """*text* with every generated block (or those in *names*) re-rendered; blocks it
    lacks are left out."""
    for name in names if names is not None else BLOCKS:
        table = BLOCKS[name]()

        def fill(match: re.Match[str], table: str = table) -> str:
            return match.group(1) + table + "\n" + match.group(3)

        text = _pattern(name).sub(fill, text)
    return text


def blocks_in(text: str) -> dict[str, str]:
    """The current content of each generated block found in *text*."""
    out = {}
    for name in BLOCKS:
        match = _pattern(name).search(text)
        if match:
            out[name] = match.group(2)
    return out


def pages(root: Path = ROOT) -> dict[Path, list[str]]:
    """Each page of the manual that holds generated blocks, with the blocks it holds."""
    out: dict[Path, list[str]] = {}
    for name, page in PAGES.items():
        out.setdefault(root / page, []).append(name)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite the manual's tables")
    mode.add_argument("--check", action="store_true", help="exit 1 on drift (the default)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository to check")
    args = parser.parse_args(argv)
    drifted = []
    for page, names in pages(args.root).items():
        text = page.read_text(encoding="utf-8")
        missing = sorted(set(names) - set(blocks_in(text)))
        if missing:
            print(f"{page}: no markers for {', '.join(missing)}", file=sys.stderr)
            return 1
        fresh = update(text, names)
        if fresh == text:
            continue
        if args.write:
            page.write_text(fresh, encoding="utf-8")
            print(f"{page}: rewritten")
        else:
            drifted.append(page)
    if drifted:
        for page in drifted:
            print(f"{page}: generated tables drifted; run with --write", file=sys.stderr)
        return 1
    print(f"{len(PAGES)} generated table(s) in {len(pages(args.root))} page(s) up to date")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
