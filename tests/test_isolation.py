"""The suite never reads or writes the user's houkai: config, environment, data, models.

A fresh clone where the user already ran ``./dev up`` (their config file, their
``HOUKAI_*`` variables, their data directory and model cache) must give the same
run as a bare machine. ``conftest`` drops those settings before houkai reads any;
the second test runs a part of the suite under a hostile home and environment and
checks that nothing leaked in or out.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

from _childenv import child_env
from conftest import TEST_HOME, TEST_PREFIX

from houkai.domain.config import Settings, _default_data_dir, config_path

ROOT = Path(__file__).resolve().parent.parent
#: The only settings conftest itself gives the session (every other key is a default).
SESSION_KEYS = ("redis_url", "data_dir", "model_cache_dir", "key_prefix", "journal_archive_dir")


def test_the_session_settings_are_the_suites_own(settings: Settings) -> None:
    defaults = dataclasses.replace(
        Settings(), **{key: getattr(settings, key) for key in SESSION_KEYS}
    )
    assert settings == defaults  # nothing from a config file or the environment
    assert settings.key_prefix.startswith("hk-test-")
    for path in (config_path(), Path(_default_data_dir())):
        assert str(path).startswith(TEST_HOME), path
    assert not config_path().exists()
    allowed = {"HOUKAI_CONFIG", "HOUKAI_MODEL_CACHE_DIR"}
    left = {k for k in os.environ if k.startswith("HOUKAI_") and not k.startswith(TEST_PREFIX)}
    assert left <= allowed
    # the test run's own variables can never be read as a setting
    assert not [f.name for f in dataclasses.fields(Settings) if f.name.startswith("test_")]
    assert os.environ["HOUKAI_MODEL_CACHE_DIR"] == settings.model_cache_dir
    assert "REDIS_URL" not in child_env() and "AI_HOUKAI_PATH" not in child_env()


HOSTILE_CONFIG = """\
data_dir = "{home}/file-data"
collection = "hostile_file"
key_prefix = "hostile-file"
vector_type = "FLOAT32"
recall_stages = ""
embedder = "openai:text-embedding-3-small"
model_cache_dir = "{home}/file-models"
http_tokens = "hostile-token"
maintenance_reflect_similarity_threshold = 0.99
"""


#: Not houkai's: ONNX Runtime keeps a telemetry device id under ~/.cache/Microsoft.
FOREIGN = ".cache/Microsoft"


def _tree(root: Path) -> list[str]:
    found = (str(p.relative_to(root)) for p in root.rglob("*"))
    return sorted(p for p in found if p != ".cache" and not p.startswith(FOREIGN))


def test_a_hostile_user_setup_does_not_leak(settings: Settings, tmp_path: Path) -> None:
    home = tmp_path / "home"
    config = home / ".config" / "houkai" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(HOSTILE_CONFIG.format(home=home))
    before = _tree(home)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HOUKAI_", "XDG_"))}
    env.update(
        HOME=str(home),
        HOUKAI_CONFIG=str(config),
        HOUKAI_DATA_DIR=str(home / "env-data"),
        HOUKAI_KEY_PREFIX="hostile-env",
        HOUKAI_COLLECTION="hostile_env",
        HOUKAI_MODEL_CACHE_DIR=str(home / "env-models"),
        HOUKAI_EMBEDDER="openai:text-embedding-3-small",
        HOUKAI_PIPELINE_MODE="celery",
        REDIS_URL="redis://127.0.0.1:9/0",  # nothing listens there
        AI_HOUKAI_PATH=str(home / "seed-data"),
        AI_HOUKAI_COLLECTION="hostile_seed",
        # the outer session's server and exported model: a second run costs seconds
        HOUKAI_TEST_REDIS_URL=settings.redis_url,
        HOUKAI_TEST_MODEL_CACHE_DIR=settings.model_cache_dir,
    )
    inner = [
        "tests/test_isolation.py::test_the_session_settings_are_the_suites_own",
        "tests/test_cli.py::test_remember_list_show_forget_nuke",
        "tests/test_cli.py::test_recall_finds_by_meaning_with_filters",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *inner],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "3 passed" in done.stdout
    assert _tree(home) == before, _tree(home)  # no data dir, model cache or journal there
