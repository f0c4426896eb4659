"""What one operation declares: the single row every door is generated from."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

#: ``collection``: bound to one collection (token collection scope applies);
#: ``global``: not collection-bound (token needed when tokens are configured);
#: ``public``: no authentication at all (liveness, readiness).
Scope = Literal["collection", "global", "public"]

#: The result kinds, each with ONE serializer in :mod:`houkai.app.shapes`
#: (``memory_to_dict``, ``pack_to_dict``, ``entry_to_dict``, ``conflict_to_dict``);
#: unset fields are ``null`` in every door.
ResultKind = Literal[
    "memory",
    "memories",
    "pack",
    "journal",
    "conflicts",
    "job",
    "jobs",
    "object",
]


class Params(BaseModel):
    """Base of every parameter model: unknown fields are refused, declaration order kept."""

    model_config = {"extra": "forbid", "regex_engine": "python-re"}


Response = tuple[str, Mapping[str, Any] | None]


@dataclass(frozen=True)
class Rest:
    """One REST binding of an operation: verb, path, status codes, envelope.

    The path's ``{placeholders}`` are parameters of the operation; the others go
    in the query string (GET, DELETE) or the JSON body (POST, PATCH).
    """

    method: str
    path: str
    responses: Mapping[int, Response]
    #: Endpoint / OpenAPI operationId (default: the operation's name).
    name: str = ""
    tag: str = "memories"
    summary: str = ""
    #: A list result is answered as ``{envelope: [...]}``.
    envelope: str = ""
    #: Body parameters also accepted in the query string (``?wait=true``).
    query_extra: tuple[str, ...] = ()
    #: Extra keywords of the body schema (``minProperties``).
    body_extra: Mapping[str, Any] = field(default_factory=dict)
    content_type: str = "application/json"
    #: The operation whose parameters are the query of a file upload (a non-JSON body).
    upload: str = ""
    #: Where the parameters go; default: GET/DELETE → query, else body.
    params_in: Literal["query", "body"] | None = None


@dataclass(frozen=True)
class Switch:
    """A CLI-only flag that sets one parameter to a fixed value.

    ``Switch("--apply", "dry_run", False)``: the CLI's dry-run-by-default commands
    keep the seed's ``--apply`` while the operation keeps its one ``dry_run``.
    Without a *param* it is a terminal-only flag handed to the command as is
    (``ingest --dry-run`` previews the chunks; ``--inline`` embeds in-process).
    """

    flag: str
    param: str
    value: Any
    help: str = ""


@dataclass(frozen=True)
class Terminal:
    """A terminal-only option (presentation, interaction): no parameter of the operation,
    handed to the command as is (``graph --dot``, ``purge --show 50``, ``stats --health``).

    *schema* types it as a parameter's JSON Schema does (``{"type": "integer",
    "minimum": 0}`` → ``IntRange(0)``; ``{"enum": [...]}`` → ``Choice``); without one it
    is an on/off flag.
    """

    flag: str
    help: str = ""
    schema: Mapping[str, Any] | None = None
    default: Any = None
    short: str = ""


@dataclass(frozen=True)
class Cli:
    """How the CLI binds an operation; its options are still generated from ``params``.

    Only what a terminal needs and the wire does not: which parameters are
    positionals, one that repeats (the command runs the operation once per value),
    defaults of its own (purge previews unless ``--apply``), switches, and a
    ``--yes/-y`` confirmation for destructive commands.
    """

    #: The command's words: ``"forget"``, ``"jobs retry"``.
    command: str
    arguments: tuple[str, ...] = ()
    #: A scalar positional given several times (``forget ID ID…``): one call per value.
    variadic: str = ""
    #: Positionals that may be left out (the operation's own rule decides what then).
    optional: tuple[str, ...] = ()
    defaults: Mapping[str, Any] = field(default_factory=dict)
    switches: tuple[Switch, ...] = ()
    #: Add ``--yes/-y`` (skip the confirmation prompt).
    confirm: bool = False
    #: Add ``--all-collections``: run the operation on every collection.
    all_collections: bool = False
    #: Options taking a span (``--ttl 7d``) for a parameter in seconds (``ttl_seconds``).
    spans: Mapping[str, str] = field(default_factory=dict)
    #: Options taking a span from now (``edit --ttl 7d``) for a timestamp (``expires_at``).
    deadlines: Mapping[str, str] = field(default_factory=dict)
    #: Terminal-only options (presentation, interaction) the command reads itself.
    terminal: tuple[Terminal, ...] = ()


@dataclass(frozen=True)
class Operation:
    """One operation, declared once (see docs/adr/0034-operation-registry.md).

    ``params`` is a pydantic model whose fields (types, bounds, enums, defaults,
    one-line descriptions) are the operation's parameters in every door; the
    ``collection`` parameter is implied by ``scope == "collection"`` and added by
    each door (MCP argument, REST ``/c/<collection>`` or ``?collection=``, CLI ``-c``).
    """

    name: str
    doc: str
    params: type[BaseModel]
    #: What an agent reads (MCP tool / provider tool description); default ``doc``.
    description: str = ""
    #: The :class:`~houkai.app.service.MemoryService` method; default ``name``.
    method: str = ""
    writes: bool = False
    scope: Scope = "collection"
    #: Parameters naming a file on the server: remote callers need an admin
    #: token and a path inside ``export_dir`` (:mod:`houkai.app.serverpaths`).
    server_paths: tuple[str, ...] = ()
    #: Parameters only an admin token may set from a remote door (they spend the
    #: server's own credentials, e.g. the LLM provider that receives memory text);
    #: left out, the server's settings apply (:func:`houkai.app.serverpaths.require_admin_for`).
    admin_params: tuple[str, ...] = ()
    result: ResultKind = "object"
    #: Exposed as an MCP tool (and to the agent examples).
    mcp: bool = True
    #: Part of the seed's 23-tool surface.
    seed: bool = False
    destructive: bool = False
    idempotent: bool = False
    #: The seed's result for a refused call: ``{**soft_error, "error": message}``.
    soft_error: Mapping[str, Any] | None = None
    #: CLI short flags, declared once: ``{"k": "-k", "type": "-t"}``.
    short: Mapping[str, str] = field(default_factory=dict)
    #: REST bindings (a GET and a POST /recall are two bindings of ``recall``).
    rest: tuple[Rest, ...] = ()
    #: The CLI binding (positionals, switches, confirmation); None: options only.
    cli: Cli | None = None

    @property
    def service_method(self) -> str:
        return self.method or self.name

    @property
    def summary(self) -> str:
        return self.doc

    @property
    def agent_description(self) -> str:
        return self.description or self.doc

    def fields(self) -> list[str]:
        """The parameter names, in declaration order."""
        return list(self.params.model_fields)

    def required(self) -> list[str]:
        return [n for n, f in self.params.model_fields.items() if f.is_required()]


def ok(schema: Mapping[str, Any]) -> dict[int, Response]:
    """A 200 answer with *schema* (the common REST response of an operation)."""
    return {200: ("OK", schema)}


#: ``--show N``: how many candidates a dry-run lists (purge, prune).
SHOW = Terminal(
    "--show", "List at most this many candidates.", {"type": "integer", "minimum": 0}, 50
)
