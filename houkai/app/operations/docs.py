"""The README's reference tables, generated from the registry (and checked by a test).

Each table sits between ``<!-- registry:NAME -->`` and ``<!-- /registry:NAME -->``
in README.md. ``python -m houkai.app.operations.docs --write`` rewrites them;
``--check`` exits 1 when one drifted from the code (``tests/test_registry.py``
does the same), so a parameter added to a model reaches the README in one edit.
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

README = Path(__file__).resolve().parents[3] / "README.md"


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


BLOCKS: dict[str, Callable[[], str]] = {
    "rest-routes": rest_table,
    "mcp-tools": mcp_table,
}


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(
        rf"(<!-- registry:{re.escape(name)} -->\n)(.*?)(<!-- /registry:{re.escape(name)} -->)",
        re.S,
    )


def update(text: str) -> str:
    """*text* with every generated block re-rendered (blocks it lacks are left out)."""
    for name, render in BLOCKS.items():
        table = render()

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite the README's tables")
    mode.add_argument("--check", action="store_true", help="exit 1 on drift (the default)")
    parser.add_argument("--readme", type=Path, default=README)
    args = parser.parse_args(argv)
    text = args.readme.read_text(encoding="utf-8")
    fresh = update(text)
    if args.write:
        if fresh != text:
            args.readme.write_text(fresh, encoding="utf-8")
        print(f"{args.readme}: {len(blocks_in(fresh))} generated table(s) up to date")
        return 0
    if fresh != text:
        print(f"{args.readme}: generated tables drifted; run with --write", file=sys.stderr)
        return 1
    print(f"{args.readme}: {len(blocks_in(text))} generated table(s) up to date")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
