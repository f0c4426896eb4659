"""``houkai mcp`` (serve the MCP tools) and ``houkai install <client>`` (register them)."""

from __future__ import annotations

import os
from typing import Any

import click

from ...domain.config import Settings
from .. import Context, pass_ctx

CLIENTS = ("claude-code", "cursor", "opencode")


@click.command("mcp")
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio for local clients (Claude Code, Cursor, OpenCode); http for remote agents.",
)
@click.option("--host", default=None, help="HTTP bind address (default: mcp_host, 127.0.0.1).")
@click.option("--port", type=int, default=None, help="HTTP port (default: mcp_port, 8766).")
@click.option(
    "--token",
    "tokens",
    multiple=True,
    help="Accepted bearer token, token:coll1|coll2 or token:colls:ro (repeatable; "
    "default: HOUKAI_HTTP_TOKENS).",
)
@pass_ctx
def mcp_command(
    ctx: Context, transport: str, host: str | None, port: int | None, tokens: tuple[str, ...]
) -> None:
    """Serve houkai's memory tools over MCP (stdio by default)."""
    from ...api.mcp_server import check_http_exposure, serve

    if transport == "stdio" and (host or port or tokens):
        raise click.UsageError("--host/--port/--token only apply to --transport http")
    if tokens:
        from ...app.auth import parse_tokens

        parse_tokens(list(tokens))  # fail fast on a malformed spec
    if transport == "http":
        shown_host = host or ctx.settings.mcp_host
        check_http_exposure(shown_host, ",".join(tokens) if tokens else ctx.settings.http_tokens)
        click.echo(
            f"houkai MCP on http://{shown_host}:{port or ctx.settings.mcp_port}/mcp "
            f"(collection {ctx.collection})",
            err=True,
        )
    serve(transport, host=host, port=port, tokens=",".join(tokens) if tokens else None)


@click.command("install")
@click.argument("client", type=click.Choice(CLIENTS))
@click.option(
    "--project",
    is_flag=True,
    help="Register for the current project (.mcp.json, .cursor/mcp.json, "
    "opencode.json) instead of for your user.",
)
@click.option(
    "--print", "print_only", is_flag=True, help="Only print the configuration; write nothing."
)
@click.option(
    "--collection",
    "install_collection",
    default=None,
    help="Collection the client's memories go to (default: the one this CLI uses: the "
    "global --collection, HOUKAI_COLLECTION or `collection`, else ai_houkai).",
)
@click.option(
    "--snippet",
    is_flag=True,
    help="Also print the guidance snippet (CLAUDE.md / Cursor rule / AGENTS.md).",
)
@click.option(
    "--verify",
    is_flag=True,
    help="Afterwards, start the server as the client will and check it answers.",
)
@click.option(
    "--no-cli",
    is_flag=True,
    help="Claude Code: edit the JSON config even when the `claude` CLI is on PATH.",
)
@pass_ctx
def install_command(
    ctx: Context,
    client: str,
    project: bool,
    print_only: bool,
    install_collection: str | None,
    snippet: bool,
    verify: bool,
    no_cli: bool,
) -> None:
    """Register the houkai MCP server with CLIENT (claude-code, cursor or opencode)."""
    from ...installers import INSTALLERS, ClaudeCodeInstaller

    # The CLI's own collection: what you remember here, the agent recalls (Quickstart).
    collection = install_collection or ctx.collection
    kwargs: dict[str, Any] = {"collection": collection, **_connection_env(ctx.settings)}
    if client == "claude-code":
        kwargs["use_cli"] = not no_cli
    installer = INSTALLERS[client](**kwargs)
    scope = "project" if project else "user"
    if print_only:
        installer.print_config(scope=scope)
    else:
        where = installer.install(scope=scope)
        label = (
            "ran"
            if isinstance(installer, ClaudeCodeInstaller) and where.startswith("claude ")
            else "wrote"
        )
        click.echo(
            f"Registered MCP server {installer.server_name!r} with "
            f"{installer.client_name} ({scope} scope, collection "
            f"{installer.collection!r}): {label} {where}"
        )
        if installer.reload_hint:
            click.echo(installer.reload_hint)
    if snippet:
        click.echo(f"\n--- {installer.snippet_file} ---\n{installer.snippet()}")
    if verify and not installer.verify(scope=scope):
        raise click.ClickException("the MCP server did not pass verification (see above)")


def _connection_env(settings: Settings) -> dict[str, Any]:
    """Where the installing user's memory and model live, so the spawned server uses the
    same places (a server without the model cache would export the model again)."""
    out: dict[str, Any] = {}
    if settings.redis_url:
        out["redis_url"] = settings.redis_url
    elif settings.data_dir != Settings().data_dir:
        out["data_dir"] = settings.data_dir
    if settings.model_cache_dir:
        cache = os.path.abspath(os.path.expanduser(settings.model_cache_dir))
        out["extra_env"] = {"HOUKAI_MODEL_CACHE_DIR": cache}
    return out


def register(cli: click.Group) -> None:
    cli.add_command(mcp_command)
    cli.add_command(install_command)
