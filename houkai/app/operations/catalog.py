"""Every operation, declared once. The doors (REST, OpenAPI, MCP, CLI, docs) read this.

Each area declares its operations in its own module; their order here is the order of
the MCP tool list, the OpenAPI document and the reference tables.
"""

from __future__ import annotations

from .catalog_cli import CLI_OPERATIONS
from .catalog_seed import SEED_OPERATIONS
from .catalog_tools import TOOL_OPERATIONS
from .catalog_web import WEB_OPERATIONS
from .session_ops import SESSION_OPERATIONS
from .spec import SHOW, Operation, ok

OPERATIONS: tuple[Operation, ...] = (
    *SEED_OPERATIONS,  # the seed's 23 tools, in the seed's order (catalog_seed.py)
    *TOOL_OPERATIONS,  # houkai additions that are MCP tools (catalog_tools.py)
    *WEB_OPERATIONS,  # the REST API, the dashboard and the CLI, not MCP (catalog_web.py)
    *CLI_OPERATIONS,  # CLI-only (catalog_cli.py)
    *SESSION_OPERATIONS,  # conversations (session_ops.py)
)

BY_NAME: dict[str, Operation] = {op.name: op for op in OPERATIONS}
#: Operations the service's ``dispatch`` runs by name (those with a service method).
DISPATCHABLE: tuple[str, ...] = tuple(
    op.name
    for op in OPERATIONS
    if op.mcp or op.name in ("nuke", "subgraph", "collections", "readiness", "health")
)


__all__ = ["BY_NAME", "DISPATCHABLE", "OPERATIONS", "SHOW", "ok"]
