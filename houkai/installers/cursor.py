"""Register houkai with Cursor (``~/.cursor/mcp.json`` or a project's ``.cursor/mcp.json``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .common import MEMORY_GUIDE, BaseInstaller, seed_arguments

RULE_SNIPPET = (
    "---\n"
    "description: Use houkai long-term memory\n"
    "alwaysApply: true\n"
    "---\n\n"
    f"# Memory (houkai MCP)\n\n{MEMORY_GUIDE}\n"
)


@seed_arguments
@dataclass
class CursorInstaller(BaseInstaller):
    """Cursor uses the same ``mcpServers`` shape as Claude, without a ``type`` field."""

    client_name: ClassVar[str] = "Cursor"
    slug: ClassVar[str] = "cursor"
    default_collection: ClassVar[str] = "cursor"
    user_config: ClassVar[str] = ".cursor/mcp.json"
    project_config: ClassVar[str] = ".cursor/mcp.json"
    snippet_file: ClassVar[str] = ".cursor/rules/houkai-memory.mdc"
    reload_hint: ClassVar[str] = (
        "Reload Cursor (or toggle the server in Settings → MCP) to pick it up; save the rule "
        "snippet as .cursor/rules/houkai-memory.mdc."
    )

    def build_mcp_block(self) -> dict[str, Any]:
        return {"command": self.command[0], "args": self.command[1:], "env": self.build_env()}

    @classmethod
    def snippet(cls) -> str:
        return RULE_SNIPPET

    @staticmethod
    def rule_snippet() -> str:
        return RULE_SNIPPET


def main(argv: list[str] | None = None) -> int:
    """``houkai-install-cursor`` console script."""
    return CursorInstaller.main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
