"""The service layer: one method per seed MCP tool (§8), shared by every front door.

REST, MCP, the CLI and the agent examples call :class:`MemoryService`. Each
method is bound to its operation (:func:`houkai.app.operations.bind.operation`):
its signature is the operation's parameter model and each call is checked once,
against the registry, before the body runs; the body routes writes through the
ingestion pipeline, calls the store, and returns the seed tool's JSON-able shape. Errors
are raised (``houkai.domain.errors`` types, ``ValueError``, ``MemoryNotFound``,
``ConflictError``) and each front door maps them with :func:`houkai.domain.errors.classify`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..domain.errors import BadRequest
from ..domain.model import ConflictError
from . import operations
from .operations import DISPATCHABLE, check_arguments
from .operations import params as params
from .operations.bind import checks_itself, strict
from .service_admin import AdminOps
from .service_history import HistoryOps
from .service_ingest import IngestOps
from .service_lifecycle import LifecycleOps
from .service_portability import PortabilityOps
from .service_reads import ReadOps
from .service_writes import WriteOps
from .session_service import SessionServiceMixin
from .shapes import conflict_payload, conflict_to_dict, entry_to_dict, memory_to_dict

NUKE_CONFIRM = "DELETE ALL"

# Tool name → service method name, and the seed's 23 tools: generated from the
# operation registry (houkai.app.operations), where each operation is declared once.
TOOLS: dict[str, str] = {name: operations.get(name).service_method for name in DISPATCHABLE}
SEED_TOOLS: tuple[str, ...] = operations.seed_tools()


class MemoryService(
    WriteOps,
    IngestOps,
    ReadOps,
    HistoryOps,
    PortabilityOps,
    LifecycleOps,
    AdminOps,
    SessionServiceMixin,
):
    """Every front door's entry point: validated, seed-shaped operations over stores.

    Each operation lives in the module of its concern (``service_writes``, ``service_ingest``,
    ``service_reads``, ``service_history``, ``service_portability``,
    ``service_lifecycle``, ``service_admin``, ``session_service``), all over the shared
    plumbing of :class:`~houkai.app.service_base.ServiceBase`; this class puts them
    together and adds :meth:`dispatch`, the by-name entry point.
    """

    # ------------------------------------------------------------------ dispatch
    def dispatch(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        """Call tool *name* with *arguments* (the MCP / agent-example entry point).

        Unknown tools, unknown or missing arguments are :class:`BadRequest`. A
        ``remember`` refused by ``on_conflict="raise"`` returns the seed's
        ``{stored: false, conflicts}`` instead of raising, as the seed tool did.
        """
        method_name = TOOLS.get(name) if isinstance(name, str) else None
        if method_name is None:
            raise BadRequest(f"unknown tool {name!r}; known tools: {', '.join(TOOLS)}")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            raise BadRequest(f"arguments for {name!r} must be an object")
        method = getattr(self, method_name)
        try:
            if checks_itself(method):
                with strict():  # the method's check is the call's one, strict as JSON arrives
                    return method(**arguments)
            check_arguments(operations.get(name), dict(arguments))
            return method(**arguments)
        except ConflictError as exc:
            if name == "remember":
                return conflict_payload(exc)
            raise


def tool_parameters(name: str) -> dict[str, bool]:
    """``{argument: required}`` for tool *name*, from its registry declaration."""
    op = operations.get(name)
    required = set(op.required())
    out = {field: field in required for field in op.fields()}
    if op.scope == "collection":
        out["collection"] = False
    return out


__all__ = [
    "NUKE_CONFIRM",
    "SEED_TOOLS",
    "TOOLS",
    "MemoryService",
    "conflict_payload",
    "conflict_to_dict",
    "entry_to_dict",
    "memory_to_dict",
    "tool_parameters",
]
