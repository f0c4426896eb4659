"""MCP-client installers: idempotent, atomic JSON merges; CLI-first for Claude Code.

Every test runs with a temporary HOME and working directory, so nothing
touches the real user's client configs.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from houkai.installers import (
    INSTALLERS,
    ClaudeCodeInstaller,
    CursorInstaller,
    OpenCodeInstaller,
    common,
    load_json,
    write_json,
)


@pytest.fixture()
def home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(project)
    # no real `claude` CLI from the machine
    monkeypatch.setenv(
        "PATH",
        os.pathsep.join(
            p
            for p in os.environ.get("PATH", "").split(os.pathsep)
            if not (Path(p) / "claude").exists()
        ),
    )
    return home


CMD = ["/opt/venv/bin/houkai", "mcp"]


def test_claude_code_direct_merge_keeps_other_servers_and_is_idempotent(home):
    config = home / ".claude.json"
    config.write_text(
        json.dumps(
            {
                "numStartups": 7,
                "projects": {"/x": {"allowedTools": []}},
                "mcpServers": {"github": {"type": "stdio", "command": "gh-mcp"}},
            }
        )
    )
    inst = ClaudeCodeInstaller(use_cli=False, command=CMD)
    assert inst.install() == str(config)
    first = config.read_text()
    data = json.loads(first)
    assert data["numStartups"] == 7 and data["projects"] == {"/x": {"allowedTools": []}}
    assert data["mcpServers"]["github"] == {"type": "stdio", "command": "gh-mcp"}
    assert data["mcpServers"]["houkai"] == {
        "type": "stdio",
        "command": CMD[0],
        "args": ["mcp"],
        "env": {"HOUKAI_COLLECTION": "claude_code"},
    }
    inst.install()
    assert config.read_text() == first  # re-running changes nothing
    # a changed setting replaces only our entry
    ClaudeCodeInstaller(
        use_cli=False, command=CMD, collection="work", redis_url="redis://db:6379"
    ).install()
    data = json.loads(config.read_text())
    assert data["mcpServers"]["houkai"]["env"] == {
        "HOUKAI_COLLECTION": "work",
        "REDIS_URL": "redis://db:6379",
    }
    assert set(data["mcpServers"]) == {"github", "houkai"}
    assert inst.is_installed()


def test_seed_arguments_and_the_seed_registration_is_replaced(home, tmp_path):
    config = tmp_path / "client.json"
    seed_block = {"type": "stdio", "command": "ai-houkai-mcp", "env": {"AI_HOUKAI_PATH": "/m"}}
    config.write_text(json.dumps({"mcpServers": {"ai-houkai": seed_block, "gh": {"command": "x"}}}))
    for cls in (ClaudeCodeInstaller, CursorInstaller):
        inst = cls(memory_path="~/mem", collection="col", config_path=str(config), command=CMD)
        assert inst.data_dir == "~/mem" and inst.settings_path == str(config)
        if cls is ClaudeCodeInstaller:
            inst.use_cli = False
        assert inst.install() == str(config)
        servers = json.loads(config.read_text())["mcpServers"]
        assert set(servers) == {"gh", "houkai"}  # ai-houkai replaced, not left beside it
        assert servers["houkai"]["env"]["HOUKAI_DATA_DIR"] == str(home / "mem")
        config.write_text(json.dumps({"mcpServers": {"ai-houkai": seed_block, **servers}}))


def test_claude_code_project_scope_writes_mcp_json(home):
    written = ClaudeCodeInstaller(use_cli=False, command=CMD).install(scope="project")
    assert Path(written) == Path.cwd() / ".mcp.json"
    assert json.loads(Path(written).read_text())["mcpServers"]["houkai"]["args"] == ["mcp"]
    assert not (home / ".claude.json").exists()
    with pytest.raises(ValueError, match="scope"):
        ClaudeCodeInstaller(use_cli=False).install(scope="global")


def fake_claude(bin_dir: Path, *, fail_add: bool = False) -> Path:
    """A `claude` executable that logs its argv (JSON per line) and mimics the real CLI."""
    bin_dir.mkdir(exist_ok=True)
    log = bin_dir / "claude.log"
    script = bin_dir / "claude"
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        f"open({str(log)!r}, 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n"
        "if sys.argv[1:3] == ['mcp', 'remove']:\n"
        "    sys.stderr.write('No MCP server found\\n'); sys.exit(1)\n"
        f"if sys.argv[1:3] == ['mcp', 'add'] and {fail_add!r}:\n"
        "    sys.stderr.write('error: invalid environment variable\\n'); sys.exit(1)\n"
        "if sys.argv[1:3] == ['mcp', 'get']:\n"
        "    sys.exit(0 if sys.argv[3] == 'houkai' else 1)\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return log


def test_claude_code_prefers_the_cli(home, tmp_path, monkeypatch):
    log = fake_claude(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    inst = ClaudeCodeInstaller(command=CMD, collection="proj_a")
    assert inst.install(scope="project") == "claude mcp add --scope project houkai"
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert calls == [
        ["mcp", "remove", "--scope", "project", "houkai"],
        ["mcp", "remove", "--scope", "project", "ai-houkai"],  # the seed's registration
        [
            "mcp",
            "add",
            "--scope",
            "project",
            "houkai",
            "-e",
            "HOUKAI_COLLECTION=proj_a",
            "--",
            *CMD,
        ],
    ]
    assert not (home / ".claude.json").exists() and not Path(".mcp.json").exists()
    assert inst.is_installed()


def test_claude_code_cli_failure_is_reported(home, tmp_path, monkeypatch):
    fake_claude(tmp_path / "bin", fail_add=True)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(RuntimeError, match="invalid environment variable"):
        ClaudeCodeInstaller(command=CMD).install()


def test_cursor_user_and_project(home):
    user = CursorInstaller(command=CMD).install()
    assert Path(user) == home / ".cursor" / "mcp.json"
    block = json.loads(Path(user).read_text())["mcpServers"]["houkai"]
    assert block == {"command": CMD[0], "args": ["mcp"], "env": {"HOUKAI_COLLECTION": "cursor"}}
    project = CursorInstaller(command=CMD).install(scope="project")
    assert Path(project) == Path.cwd() / ".cursor" / "mcp.json"
    assert "alwaysApply: true" in CursorInstaller.rule_snippet()


def test_opencode_uses_its_own_schema(home):
    path = home / ".config" / "opencode" / "opencode.json"
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps(
            {
                "$schema": "custom",
                "theme": "dark",
                "mcp": {"other": {"type": "remote", "url": "http://x"}},
            }
        )
    )
    OpenCodeInstaller(command=CMD, data_dir="~/mem").install()
    data = json.loads(path.read_text())
    assert data["$schema"] == "custom" and data["theme"] == "dark"
    assert data["mcp"]["other"] == {"type": "remote", "url": "http://x"}
    assert data["mcp"]["houkai"] == {
        "type": "local",
        "command": CMD,
        "enabled": True,
        "environment": {"HOUKAI_COLLECTION": "opencode", "HOUKAI_DATA_DIR": str(home / "mem")},
    }
    fresh = OpenCodeInstaller(command=CMD).install(scope="project")
    assert json.loads(Path(fresh).read_text())["$schema"] == "https://opencode.ai/config.json"
    assert "recall" in OpenCodeInstaller.agents_snippet()


def test_uninstall_removes_only_ours(home):
    inst = CursorInstaller(command=CMD)
    path = Path(inst.install())
    data = json.loads(path.read_text())
    data["mcpServers"]["keep"] = {"command": "x"}
    path.write_text(json.dumps(data))
    assert inst.uninstall() is True
    assert json.loads(path.read_text())["mcpServers"] == {"keep": {"command": "x"}}
    assert inst.uninstall() is False


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '"just a string"'])
def test_unparseable_config_is_backed_up_then_replaced(home, content):
    config = home / ".claude.json"
    config.write_text(content)
    inst = ClaudeCodeInstaller(use_cli=False, command=CMD)
    with pytest.raises(ValueError, match=str(config)):
        inst.install(overwrite_unparseable=False)
    assert config.read_text() == content  # untouched when refusing
    inst.install()  # default: keep a .bak, write a fresh config
    assert (home / ".claude.json.bak").read_text() == content
    assert "houkai" in json.loads(config.read_text())["mcpServers"]


def test_write_json_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "cfg.json"
    write_json(path, {"keep": 1})
    path.chmod(0o600)

    def explode(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(common.json, "dump", explode)
    with pytest.raises(OSError, match="disk full"):
        write_json(path, {"new": 2})
    monkeypatch.undo()
    assert json.loads(path.read_text()) == {"keep": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["cfg.json"]  # no temp file left
    write_json(path, {"new": 2})
    assert load_json(path) == {"new": 2}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # permissions kept


def test_invalid_collection_is_rejected(home):
    with pytest.raises(ValueError):
        CursorInstaller(command=CMD, collection="bad name!").install()
    assert not (home / ".cursor" / "mcp.json").exists()


def test_resolve_command_prefers_the_venv_script():
    command = common.resolve_command()
    assert command[-1] == "mcp"
    assert Path(command[0]).name == "houkai"


def test_houkai_install_cli(home):
    from houkai.cli import cli

    runner = CliRunner()
    env = {"HOME": str(home), "HOUKAI_CONFIG": str(home / "none.toml"), "REDIS_URL": ""}
    printed = runner.invoke(cli, ["install", "opencode", "--print"], env=env)
    assert printed.exit_code == 0, printed.output
    assert '"type": "local"' in printed.output
    assert not (home / ".config" / "opencode").exists()

    done = runner.invoke(
        cli, ["install", "claude-code", "--no-cli", "--collection", "mine", "--snippet"], env=env
    )
    assert done.exit_code == 0, done.output
    assert "## Memory (houkai MCP)" in done.output
    block = json.loads((home / ".claude.json").read_text())["mcpServers"]["houkai"]
    assert block["env"]["HOUKAI_COLLECTION"] == "mine" and block["args"] == ["mcp"]

    project = runner.invoke(cli, ["-c", "team", "install", "cursor", "--project"], env=env)
    assert project.exit_code == 0, project.output
    cursor = json.loads((Path.cwd() / ".cursor" / "mcp.json").read_text())
    assert cursor["mcpServers"]["houkai"]["env"]["HOUKAI_COLLECTION"] == "team"

    bad = runner.invoke(cli, ["install", "vim"], env=env)
    assert bad.exit_code != 0


def test_houkai_install_registers_the_collection_the_cli_uses(home):
    """The Quickstart's promise: `houkai remember` and the agent `install` registers share
    one collection (ai_houkai unless the CLI is told otherwise), not a per-client one."""
    from houkai.cli import cli

    runner = CliRunner()
    env = {"HOME": str(home), "HOUKAI_CONFIG": str(home / "none.toml"), "REDIS_URL": ""}
    plain = runner.invoke(cli, ["install", "claude-code", "--no-cli"], env=env)
    assert plain.exit_code == 0 and "collection 'ai_houkai'" in plain.output, plain.output
    block = json.loads((home / ".claude.json").read_text())["mcpServers"]["houkai"]
    assert block["env"]["HOUKAI_COLLECTION"] == "ai_houkai"
    configured = home / "houkai.toml"
    configured.write_text('collection = "notes"\n')
    shared = runner.invoke(
        cli, ["install", "cursor", "--print"], env={**env, "HOUKAI_CONFIG": str(configured)}
    )
    assert shared.exit_code == 0 and '"HOUKAI_COLLECTION": "notes"' in shared.output


def test_houkai_install_passes_the_model_cache_on(home):
    """A server the client starts finds the model where the CLI does, instead of
    exporting it again under the data directory."""
    from houkai.cli import cli

    runner = CliRunner()
    env = {"HOME": str(home), "HOUKAI_CONFIG": str(home / "none.toml"), "REDIS_URL": ""}
    cached = runner.invoke(
        cli, ["install", "cursor", "--print"], env={**env, "HOUKAI_MODEL_CACHE_DIR": "models"}
    )
    assert cached.exit_code == 0, cached.output
    assert f'"HOUKAI_MODEL_CACHE_DIR": "{Path.cwd() / "models"}"' in cached.output
    default = runner.invoke(
        cli, ["install", "cursor", "--print"], env={**env, "HOUKAI_MODEL_CACHE_DIR": ""}
    )
    assert default.exit_code == 0 and "HOUKAI_MODEL_CACHE_DIR" not in default.output


def test_console_script_main(home, capsys):
    assert set(INSTALLERS) == {"claude-code", "cursor", "opencode"}
    from houkai.installers import cursor

    assert cursor.main(["--install", "--collection", "cli_coll"]) == 0
    assert "registered" in capsys.readouterr().out
    data = json.loads((home / ".cursor" / "mcp.json").read_text())
    assert data["mcpServers"]["houkai"]["env"]["HOUKAI_COLLECTION"] == "cli_coll"
    assert cursor.main(["--collection", "bad name!"]) == 1
    assert "error" in capsys.readouterr().err


def test_verify_runs_the_configured_server(home, settings, capsys):
    """verify() spawns exactly the registered command and asks it for stats."""
    inst = ClaudeCodeInstaller(
        use_cli=False,
        collection="verify_coll",
        redis_url=settings.redis_url,
        extra_env={
            "HOUKAI_KEY_PREFIX": settings.key_prefix,
            "HOUKAI_PIPELINE_MODE": "inline",
            "HOUKAI_CONFIG": str(home / "none.toml"),
        },
    )
    inst.install()
    try:
        assert inst.verify() is True
        out = capsys.readouterr().out
        assert "'verify_coll' holds 0 memories" in out and "registered in" in out
    finally:
        from houkai import MemoryStore

        MemoryStore(collection="verify_coll", settings=settings).drop()
    broken = ClaudeCodeInstaller(use_cli=False, command=["/nonexistent/houkai", "mcp"])
    assert broken.verify() is False
    assert "not found" in capsys.readouterr().out
