"""The environment of a child process a test starts (CLI, worker, server, MCP).

The test runner's own ``HOUKAI_*`` settings and ``REDIS_URL`` must not leak into
a child, which gets exactly the settings the test names; the shared model cache
(``HOUKAI_MODEL_CACHE_DIR``, set once per session in conftest) is kept so no
child exports the ONNX model again, and so is the session's absent config file
(``HOUKAI_CONFIG``): conftest removed the user's settings already.
"""

from __future__ import annotations

import os

KEEP = ("HOUKAI_MODEL_CACHE_DIR", "HOUKAI_CONFIG", "HOUKAI_BROKER_URL")  # broker: cluster runs


def child_env(**settings: str) -> dict[str, str]:
    """``os.environ`` without houkai's settings (but the model cache), plus *settings*."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOUKAI_") or k in KEEP}
    env.pop("REDIS_URL", None)
    env.update(settings)
    return env


def cli_env(settings, tmp_path, **extra: str) -> dict[str, str]:
    """The settings a CLI run in-process (``CliRunner(env=…)``) needs to reach the same
    collection as *settings*: inline pipeline, hash embedder, no config file."""
    return {
        "REDIS_URL": settings.redis_url,
        "HOUKAI_KEY_PREFIX": settings.key_prefix,
        "HOUKAI_DATA_DIR": settings.data_dir,
        "HOUKAI_CONFIG": str(tmp_path / "absent.toml"),
        "HOUKAI_COLLECTION": settings.collection,
        "HOUKAI_PIPELINE_MODE": "inline",
        "HOUKAI_EMBEDDER": "hash:384",
        **extra,
    }


def bench_cli(settings, tmp_path, *command: str, key_prefix: str | None = None):
    """``houkai *command* ARGS…`` run in this process against *settings*' Redis (no config
    file, no colour); the test's settings are put back after each run, since the CLI
    installs its own."""
    from click.testing import CliRunner

    from houkai.cli import cli
    from houkai.domain.config import set_settings

    env = {
        "REDIS_URL": settings.redis_url,
        "HOUKAI_KEY_PREFIX": key_prefix or settings.key_prefix,
        "HOUKAI_DATA_DIR": settings.data_dir,
        "HOUKAI_CONFIG": str(tmp_path / "absent.toml"),
        "NO_COLOR": "1",
    }
    runner = CliRunner()

    def invoke(*args: str):
        try:
            return runner.invoke(cli, [*command, *args], env=env, catch_exceptions=False)
        finally:
            set_settings(settings)

    return invoke
