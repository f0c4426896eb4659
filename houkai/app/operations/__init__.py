"""The operation registry: each operation declared once, every door generated from it.

- :data:`OPERATIONS` / :func:`get` — the declarations (:class:`Operation`).
- :func:`params_schema` — an operation's parameter JSON Schema (MCP inputSchema,
  OpenAPI request schema, provider tool parameters).
- :func:`check_arguments` — the one boundary validation (``"param: problem"`` errors).
- :func:`houkai.app.operations.cli.cli_options` — click options for a command.
- :mod:`houkai.app.operations.docs` — the README reference tables.

See ``docs/adr/0034-operation-registry.md`` for adding an operation or a parameter.
"""

from __future__ import annotations

from .catalog import BY_NAME, DISPATCHABLE, OPERATIONS
from .schema import (
    check_arguments,
    check_value,
    coerce_arguments,
    describe,
    model_schema,
    params_schema,
)
from .spec import Operation, Params, ResultKind, Scope


def get(name: str) -> Operation:
    """The operation called *name* (KeyError when there is none)."""
    return BY_NAME[name]


def mcp_operations() -> tuple[Operation, ...]:
    """The operations exposed as MCP tools (and to the agent examples), in order."""
    return tuple(op for op in OPERATIONS if op.mcp)


def seed_tools() -> tuple[str, ...]:
    """The seed's 23 tool names, in the seed's order."""
    return tuple(op.name for op in OPERATIONS if op.seed)


__all__ = [
    "BY_NAME",
    "DISPATCHABLE",
    "OPERATIONS",
    "Operation",
    "Params",
    "ResultKind",
    "Scope",
    "check_arguments",
    "check_value",
    "coerce_arguments",
    "describe",
    "get",
    "mcp_operations",
    "model_schema",
    "params_schema",
    "seed_tools",
]
