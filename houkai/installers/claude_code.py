"""Register houkai with Claude Code.

Claude Code reads MCP servers from ``~/.claude.json`` (user scope) or a
project's ``.mcp.json``, never from ``settings.json``. The supported interface
is ``claude mcp add``, so :meth:`ClaudeCodeInstaller.install` uses the CLI when
it is on PATH (``remove`` first, so re-running is idempotent) and falls back to
an atomic JSON merge into the right file otherwise.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import Any, ClassVar, TextIO

from .common import (
    LEGACY_SERVER_NAMES,
    MEMORY_GUIDE,
    BaseInstaller,
    merge_server_block,
    seed_arguments,
)

CLAUDEMD_SNIPPET = f"## Memory (houkai MCP)\n\n{MEMORY_GUIDE}\n"
CLI_TIMEOUT = 30.0


@seed_arguments
@dataclass
class ClaudeCodeInstaller(BaseInstaller):
    """``claude mcp add --scope user|project houkai -- houkai mcp``, or the JSON fallback."""

    #: Use the ``claude`` CLI when found; ``False`` forces the direct JSON merge.
    use_cli: bool = True

    client_name: ClassVar[str] = "Claude Code"
    slug: ClassVar[str] = "claude-code"
    default_collection: ClassVar[str] = "claude_code"
    user_config: ClassVar[str] = ".claude.json"
    project_config: ClassVar[str] = ".mcp.json"
    snippet_file: ClassVar[str] = "CLAUDE.md"
    reload_hint: ClassVar[str] = "Check with `claude mcp list`; new Claude Code sessions see it."

    def build_mcp_block(self) -> dict[str, Any]:
        return {
            "type": "stdio",
            "command": self.command[0],
            "args": self.command[1:],
            "env": self.build_env(),
        }

    def cli_path(self) -> str | None:
        return shutil.which("claude") if self.use_cli else None

    def cli_add_command(self, scope: str = "user") -> list[str]:
        """The ``claude mcp add`` argv (the name precedes ``-e``: that option is variadic)."""
        argv = ["claude", "mcp", "add", "--scope", scope, self.server_name]
        for key, value in self.build_env().items():
            argv += ["-e", f"{key}={value}"]
        return [*argv, "--", *self.command]

    def install(self, *, scope: str = "user", overwrite_unparseable: bool = True) -> str:
        """Register; returns the command run or the file written."""
        self.config_path(scope)  # validates scope
        claude = self.cli_path()
        if claude and not self.settings_path:
            return self._install_via_cli(claude, scope)
        return merge_server_block(
            self.config_path(scope),
            self.config_key,
            self.server_name,
            self.build_mcp_block(),
            overwrite_unparseable=overwrite_unparseable,
        )

    def _install_via_cli(self, claude: str, scope: str) -> str:
        cwd = self.project_dir or None
        # `add` refuses to overwrite: remove first (and the seed's ai-houkai
        # registration, which this one replaces); "not found" is fine.
        for name in dict.fromkeys((self.server_name, *LEGACY_SERVER_NAMES)):
            subprocess.run(
                [claude, "mcp", "remove", "--scope", scope, name],
                capture_output=True,
                text=True,
                timeout=CLI_TIMEOUT,
                cwd=cwd,
            )
        argv = self.cli_add_command(scope)
        result = subprocess.run(
            [claude, *argv[1:]], capture_output=True, text=True, timeout=CLI_TIMEOUT, cwd=cwd
        )
        if result.returncode != 0:
            detail = (result.stderr or result.stdout).strip()
            raise RuntimeError(f"`claude mcp add` failed (exit {result.returncode}): {detail}")
        return " ".join(argv[:6])

    def is_installed(self, *, scope: str = "user") -> bool:
        claude = self.cli_path()
        if claude and not self.settings_path:
            try:
                result = subprocess.run(
                    [claude, "mcp", "get", self.server_name],
                    capture_output=True,
                    text=True,
                    timeout=CLI_TIMEOUT,
                    cwd=self.project_dir or None,
                )
            except (OSError, subprocess.SubprocessError):
                return False
            return result.returncode == 0
        return super().is_installed(scope=scope)

    def print_config(self, *, scope: str = "user", stream: TextIO | None = None) -> None:
        stream = stream or sys.stdout
        print("Register with the Claude Code CLI (preferred):\n", file=stream)
        print(
            "    " + " ".join(shlex.quote(a) for a in self.cli_add_command(scope)) + "\n",
            file=stream,
        )
        print(f"or merge this into {self.config_path(scope)}:\n", file=stream)
        print(json.dumps(self.build_settings_block(), indent=2), file=stream)
        print(f"\n{self.reload_hint}", file=stream)

    @classmethod
    def snippet(cls) -> str:
        return CLAUDEMD_SNIPPET

    @staticmethod
    def claudemd_snippet() -> str:
        return CLAUDEMD_SNIPPET


def main(argv: list[str] | None = None) -> int:
    """``houkai-install-claude-code`` console script."""
    return ClaudeCodeInstaller.main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
