"""Register the houkai MCP server with MCP clients (Claude Code, Cursor, OpenCode).

Importing this package is side-effect free: no Redis connection, no model.
"""

from __future__ import annotations

from .claude_code import CLAUDEMD_SNIPPET, ClaudeCodeInstaller
from .common import (
    MEMORY_GUIDE,
    SERVER_NAME,
    BaseInstaller,
    build_env,
    load_json,
    merge_server_block,
    remove_server_block,
    resolve_command,
    verify_server,
    write_json,
)
from .cursor import RULE_SNIPPET, CursorInstaller
from .opencode import AGENTS_SNIPPET, OpenCodeInstaller

INSTALLERS: dict[str, type[BaseInstaller]] = {
    "claude-code": ClaudeCodeInstaller,
    "cursor": CursorInstaller,
    "opencode": OpenCodeInstaller,
}

__all__ = [
    "AGENTS_SNIPPET",
    "CLAUDEMD_SNIPPET",
    "INSTALLERS",
    "MEMORY_GUIDE",
    "RULE_SNIPPET",
    "SERVER_NAME",
    "BaseInstaller",
    "ClaudeCodeInstaller",
    "CursorInstaller",
    "OpenCodeInstaller",
    "build_env",
    "load_json",
    "merge_server_block",
    "remove_server_block",
    "resolve_command",
    "verify_server",
    "write_json",
]
