"""Register houkai with OpenCode (``~/.config/opencode/opencode.json`` or ``./opencode.json``).

OpenCode has its own schema: servers live under ``mcp``, each with
``type: "local"``, the whole argv as ``command`` and ``environment``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .common import MEMORY_GUIDE, BaseInstaller, seed_arguments

OPENCODE_SCHEMA = "https://opencode.ai/config.json"
AGENTS_SNIPPET = f"## Memory (houkai MCP)\n\n{MEMORY_GUIDE}\n"


@seed_arguments
@dataclass
class OpenCodeInstaller(BaseInstaller):
    client_name: ClassVar[str] = "OpenCode"
    slug: ClassVar[str] = "opencode"
    config_key: ClassVar[str] = "mcp"
    default_collection: ClassVar[str] = "opencode"
    user_config: ClassVar[str] = ".config/opencode/opencode.json"
    project_config: ClassVar[str] = "opencode.json"
    snippet_file: ClassVar[str] = "AGENTS.md"
    reload_hint: ClassVar[str] = "Restart OpenCode to pick it up; add the snippet to AGENTS.md."

    def build_mcp_block(self) -> dict[str, Any]:
        return {
            "type": "local",
            "command": list(self.command),
            "environment": self.build_env(),
            "enabled": True,
        }

    def config_defaults(self) -> dict[str, Any]:
        return {"$schema": OPENCODE_SCHEMA}

    @classmethod
    def snippet(cls) -> str:
        return AGENTS_SNIPPET

    @staticmethod
    def agents_snippet() -> str:
        return AGENTS_SNIPPET


def main(argv: list[str] | None = None) -> int:
    """``houkai-install-opencode`` console script."""
    return OpenCodeInstaller.main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
