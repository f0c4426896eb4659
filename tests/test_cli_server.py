"""The CLI as a client of a running ``houkai serve`` (issue #26, item 2).

One real server per module (``--port 0``: it records the port it got in the session data
dir's ``houkai-api.json``). Every command is run twice on the same collection, once sent
to the server and once in-process (``HOUKAI_LOCAL=1``), and must print the same thing;
the fallbacks (stale runtime file, wrong port, another server, a token the server would
refuse, ``--local``) run in-process and send nothing the server's limiter would count.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path

import pytest
from _childenv import child_env
from click.testing import CliRunner, Result

from houkai.app import runtime
from houkai.cli import Context, cli
from houkai.cli import remote as client
from houkai.domain.config import Settings, set_settings

HOUKAI = str(Path(sys.executable).with_name("houkai"))
UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _env(settings: Settings, collection: str, **extra: str) -> dict[str, str]:
    return {
        "REDIS_URL": settings.redis_url,
        "HOUKAI_KEY_PREFIX": settings.key_prefix,
        "HOUKAI_DATA_DIR": settings.data_dir,
        "HOUKAI_JOURNAL_ARCHIVE_DIR": settings.journal_archive_dir,
        "HOUKAI_COLLECTION": collection,
        "HOUKAI_PIPELINE_MODE": "inline",
        "NO_COLOR": "1",
        **extra,
    }


@pytest.fixture(scope="module")
def server(settings: Settings, tmp_path_factory) -> Iterator[tuple[runtime.ApiServer, str]]:
    """A real ``houkai serve`` for the session's data dir, on a port it picks itself."""
    collection = f"srv-{uuid.uuid4().hex[:8]}"
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [HOUKAI, "serve", "--host", "127.0.0.1", "--port", "0"],
            env=child_env(**_env(settings, collection)),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 180
        found = None
        while found is None or not client.Remote(found).alive():
            assert proc.poll() is None, log.read_text()[-2000:]
            assert time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.3)
            found = runtime.find(settings.data_dir)
            found = found if found is not None and found.pid == proc.pid else None
        yield found, collection
    finally:
        proc.send_signal(signal.SIGTERM)  # as `houkai up` stops it
        proc.wait(timeout=30)
        from houkai import MemoryStore

        MemoryStore(collection=collection, settings=settings).drop()
    # a clean stop takes the runtime file with it
    assert not (Path(settings.data_dir) / runtime.API_FILE).exists()


@pytest.fixture()
def houkai(settings: Settings, embedder, server, monkeypatch) -> Callable[..., Result]:
    """``houkai ARGS`` in this process on the server's collection: ``local=True`` runs it
    in-process (``HOUKAI_LOCAL=1``), else it must go to the server (an in-process call fails)."""
    _, collection = server
    runner = CliRunner()
    here = Context._call_here

    def invoke(*args: str, local: bool = False, flag: bool = False, **extra: str) -> Result:
        def refuse(self, *a, **k):
            raise AssertionError("ran in-process although a server runs")

        monkeypatch.setattr(Context, "_call_here", here if local else refuse)
        env = _env(settings, collection, **extra)
        if local and flag:
            args = ("--local", *args)
        elif local:
            env["HOUKAI_LOCAL"] = "1"
        try:
            return runner.invoke(cli, list(args), env=env, catch_exceptions=False)
        finally:
            set_settings(settings)

    return invoke


def both(houkai, *args: str) -> tuple[Result, Result]:
    """The command through the server, then in-process: same exit code, same output."""
    remote, local = houkai(*args), houkai(*args, local=True)
    assert (remote.exit_code, remote.stdout, remote.stderr) == (
        local.exit_code,
        local.stdout,
        local.stderr,
    ), args
    return remote, local


def _remember(houkai, text: str, *args: str, local: bool = False) -> str:
    result = houkai("remember", text, *args, local=local)
    assert result.exit_code == 0, result.output
    out = result.stdout.strip()
    assert UUID_RE.fullmatch(out), out
    return out


# --------------------------------------------------------------------------- runtime file


def test_the_runtime_file_names_the_server_but_no_token(server, settings: Settings) -> None:
    found, collection = server
    path = Path(settings.data_dir) / runtime.API_FILE
    state = json.loads(path.read_text())
    assert state["url"] == found.url and found.url.startswith("http://127.0.0.1:")
    assert not found.url.endswith(":0")  # the port it got, not the 0 it asked for
    assert state["key_prefix"] == settings.key_prefix and state["collection"] == collection
    assert state["tokens_required"] is False and state["started_at"] > 0
    assert path.stat().st_mode & 0o077 == 0  # the owner's alone


def test_stale_runtime_files_are_ignored(tmp_path: Path) -> None:
    sleeper = subprocess.Popen(["sleep", "30"])
    # Popen can return while the child is still inside execve, when its command line reads
    # empty (which process_alive counts as a server starting up): wait until it reads.
    cmdline = Path(f"/proc/{sleeper.pid}/cmdline")
    deadline = time.monotonic() + 10
    while cmdline.exists() and not cmdline.read_bytes() and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        common = dict(
            data_dir=str(tmp_path),
            host="127.0.0.1",
            port=9,
            key_prefix="p",
            redis_url="redis://127.0.0.1:1/0",
            collection="c",
            tokens=["s3cret"],
        )
        written = runtime.record(**common, pid=sleeper.pid)
        assert "s3cret" not in (tmp_path / runtime.API_FILE).read_text()
        assert written.accepts("s3cret") and not written.accepts("s3cret2")
        assert runtime.find(tmp_path) is None  # alive, but no houkai server
        assert runtime.find(tmp_path, check_pid=False) == written
    finally:
        sleeper.kill()
        sleeper.wait()
    assert runtime.find(tmp_path) is None  # a dead pid
    (tmp_path / runtime.API_FILE).write_text("{not json")
    assert runtime.find(tmp_path, check_pid=False) is None


# --------------------------------------------------------------------------- same output


def test_remember_answers_alike(houkai) -> None:
    sent = json.loads(houkai("remember", "The staging database listens on 5433", "--json").stdout)
    here = json.loads(
        houkai("remember", "The staging cache listens on 6380", "--json", local=True).stdout
    )
    volatile = ("id", "text", "created_at", "last_accessed", "job_id")

    def shape(reply: dict) -> dict:
        memory = {k: v for k, v in reply.pop("memory").items() if k not in volatile}
        return {**{k: v for k, v in reply.items() if k not in volatile}, "memory": memory}

    assert list(sent) == list(here) and shape(sent) == shape(here)
    _remember(houkai, "Deploys run from the main branch through the buildkite pipeline")


def test_the_journal_signs_a_command_as_the_clis_either_way(houkai) -> None:
    """A write the CLI sends through the server is the CLI's in the audit journal, as
    in-process: the server signs it with the actor the client names (X-Houkai-Actor)."""
    sent = _remember(houkai, "Signed through the server")
    here = _remember(houkai, "Signed in-process", local=True)
    entries = json.loads(houkai("journal", "tail", "-n", "2", "--json").stdout)
    assert {(e["id"], e["actor"]) for e in entries} == {(sent, "cli"), (here, "cli")}


@pytest.mark.parametrize(
    "args",
    [
        ("recall", "which port does staging use", "--no-touch", "--json"),
        ("recall", "which port does staging use", "--no-touch", "--format", "table"),
        ("recall", "which port does staging use", "--no-touch", "-k", "2", "-m", "semantic"),
        ("recall", "deploy pipeline", "--no-touch", "--explain", "--json"),
        ("list",),
        ("list", "--json", "-n", "2"),
        ("stats",),
        ("stats", "--json"),
        ("pack", "staging ports", "--no-touch"),
        ("journal", "tail", "-n", "3", "--json"),
    ],
    ids=lambda a: " ".join(a),
)
def test_reads_print_the_same_both_ways(houkai, seeded, args: tuple[str, ...]) -> None:
    remote, _ = both(houkai, *args)
    assert remote.exit_code == 0, remote.output


@pytest.fixture()
def seeded(houkai) -> None:
    """Two memories in the server's collection (written once, through the server)."""
    if not _SEEDED:
        _SEEDED.append(_remember(houkai, "The staging database listens on port 5433"))
        _SEEDED.append(_remember(houkai, "Deploys run through the buildkite pipeline"))


_SEEDED: list[str] = []


def test_show_and_history_by_prefix_print_the_same(houkai) -> None:
    memory_id = _remember(houkai, "The on-call rota lives in the ops wiki")
    for args in (("show", memory_id[:8]), ("show", memory_id, "--json"), ("history", memory_id)):
        both(houkai, *args)


def test_forget_prints_the_same_both_ways(houkai) -> None:
    first = _remember(houkai, "A note to delete through the server")
    second = _remember(houkai, "A note to delete in-process")
    sent = houkai("forget", first, "--yes")
    here = houkai("forget", second, "--yes", local=True)
    assert sent.exit_code == here.exit_code == 0
    assert sent.stdout == f"Deleted {first[:8]}\n" and here.stdout == f"Deleted {second[:8]}\n"
    remote, _ = both(houkai, "forget", first, "--yes")  # the id lookup refuses it
    assert remote.exit_code == 1 and first in remote.stderr


def test_forgetting_a_missing_memory_is_the_services_answer(settings, server) -> None:
    from houkai.app.operations import get

    _, collection = server
    remote = client.open_remote(_settings_for(settings, server), collection)
    assert remote is not None
    missing = {"memory_id": str(uuid.UUID(int=9))}
    # REST's 404 "memory not found" is the service's {deleted: false}, as in-process
    assert remote.call(get("forget"), missing, collection) == {"deleted": False}


@pytest.mark.parametrize(
    "args",
    [
        ("recall", ""),  # the server's check: the same words as the in-process one
        ("recall", "x", "--min-importance", "2"),
        ("-C", "nosuch", "list"),
        ("-C", "nosuch", "recall", "x"),
        ("show", "zzzz"),
        ("show", str(uuid.UUID(int=7))),
        ("remember", "bad \udcff\udcfe bytes"),  # argv bytes that are not UTF-8
        ("recall", "x", "--min-importance", "nan"),
        ("remember", "x" * 100_001),  # the text limit, not the HTTP body limit
    ],
    ids=lambda a: " ".join(a)[:40],
)
def test_errors_are_the_same_line_both_ways(houkai, args: tuple[str, ...]) -> None:
    remote, _ = both(houkai, *args)
    assert remote.exit_code == 1 and remote.stderr.startswith("Error: "), remote.output
    assert len(remote.stderr.splitlines()) == 1 and "Traceback" not in remote.output


def test_a_conflict_refusal_reads_the_same(houkai) -> None:
    _remember(houkai, "The release train leaves every Thursday at noon")
    args = ("remember", "The release train leaves every Thursday at noon", "--on-conflict")
    both(houkai, *args, "raise")


# --------------------------------------------------------------------------- fallbacks


def test_local_flag_and_env_run_in_process(houkai, monkeypatch) -> None:
    def unreachable(*_a, **_k):
        raise AssertionError("sent to the server")

    monkeypatch.setattr(client.Remote, "_request", unreachable)
    assert houkai("list", local=True).exit_code == 0  # HOUKAI_LOCAL=1
    assert houkai("stats", local=True, flag=True).exit_code == 0  # --local


def _settings_for(settings: Settings, server) -> Settings:
    return settings.replace(collection=server[1])


def test_what_the_server_cannot_take_runs_in_process(settings, server, tmp_path) -> None:
    """Not this server: another key prefix, Redis or default collection; a runtime file whose
    port answers nothing, or another server's nonce; a token the server would refuse."""
    found, collection = server
    mine = _settings_for(settings, server)
    assert client.open_remote(mine, collection) is not None
    assert client.open_remote(mine.replace(key_prefix="other"), collection) is None
    assert client.open_remote(mine.replace(redis_url="redis://127.0.0.1:1/0"), collection) is None
    assert client.open_remote(mine, "another") is None

    def crafted(**changes) -> Settings:
        (tmp_path / runtime.API_FILE).write_text(json.dumps({**asdict(found), **changes}))
        return mine.replace(data_dir=str(tmp_path))

    dead_port = f"http://127.0.0.1:{_free_port()}"
    assert client.open_remote(crafted(url=dead_port), collection) is None
    assert client.open_remote(crafted(instance="0" * 16), collection) is None

    needs = runtime.record(
        data_dir=str(tmp_path),
        host="127.0.0.1",
        port=int(found.url.rsplit(":", 1)[1]),
        key_prefix=mine.key_prefix,
        redis_url=mine.redis_url,
        collection=collection,
        tokens=["s3cret"],
        pid=found.pid,
    )
    path = tmp_path / runtime.API_FILE
    path.write_text(json.dumps({**json.loads(path.read_text()), "instance": found.instance}))
    sent: list[str] = []
    real = client.Remote._request

    def spy(self, method, path_, body=None, timeout=client.TIMEOUT):
        sent.append(f"{method} {path_} {self.token}")
        return real(self, method, path_, body, timeout)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(client.Remote, "_request", spy)
        local = mine.replace(data_dir=str(tmp_path))
        assert client.open_remote(local, collection) is None  # no token
        assert client.open_remote(local.replace(token="wrong"), collection) is None
        assert sent == []  # never sent: a wrong token would count against the limiter
        chosen = client.open_remote(local.replace(token="s3cret"), collection)
        assert chosen is not None and chosen.token == "s3cret"
        # the CLI's own http_tokens: the one the server accepts (an admin one first)
        own = local.replace(http_tokens="ro-tok:ro,s3cret")
        assert client.open_remote(own, collection).token == "s3cret"  # type: ignore[union-attr]
    assert needs.tokens_required


def _free_port() -> int:
    from houkai.db.server import free_port

    return free_port()


def test_routes_the_cli_may_take_answer_as_the_service_does() -> None:
    """The one rule: an operation goes to the server only by a route whose answer is the
    service's result (or its envelope), or one :data:`REPLIES` turns back; never one that
    names a file on the server."""
    from houkai.api.routes import ADAPTERS, ROUTES

    from houkai.app.operations import OPERATIONS

    taken = set()
    for op in OPERATIONS:
        arguments = {name: None for name in op.required()}
        route = client.route_for(op, arguments)
        if route is None:
            continue
        taken.add(op.name)
        assert not op.server_paths, op.name
        assert route.name not in ADAPTERS or route.name in client.REPLIES, route.name
        assert not route.upload
    assert {"recall", "list_recent", "get", "stats", "forget", "remember"} <= taken
    assert not {"ingest", "export", "import_", "archive_info", "edit"} & taken
    assert set(client.REPLIES) <= {r.name for r in ROUTES}


# --------------------------------------------------------------------------- what it imports

_PROBE = """
import json, sys
from houkai.cli import main
sys.argv = ["houkai", *sys.argv[1:]]
try:
    main()
except SystemExit as exc:
    code = exc.code
names = ("numpy", "torch", "onnxruntime", "transformers", "houkai.engines.embeddings",
         "houkai.store", "houkai.app.service")
print(json.dumps([m for m in names if m in sys.modules]), file=sys.stderr)
"""


@pytest.mark.parametrize("local", [False, True], ids=["via server", "in-process"])
def test_a_command_through_the_server_loads_no_model(settings, server, local: bool) -> None:
    _, collection = server
    env = child_env(**_env(settings, collection, **({"HOUKAI_LOCAL": "1"} if local else {})))
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, "recall", "staging port", "--no-touch", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    heavy = json.loads(done.stderr.strip().splitlines()[-1])
    assert json.loads(done.stdout)  # it found something, either way
    if local:  # the probe can tell: in-process, recall loads the model
        assert {"numpy", "houkai.engines.embeddings"} <= set(heavy)
    else:
        assert heavy == []


def test_up_says_the_cli_uses_its_server() -> None:
    from houkai.cli.commands.pipeline_cmds import cli_banner

    assert "--local" in cli_banner("http://127.0.0.1:8765")


def _offline(url: str = "http://127.0.0.1:9") -> client.Remote:
    return client.Remote(
        runtime.ApiServer(
            url=url,
            pid=1,
            started_at=0.0,
            instance="n",
            key_prefix="p",
            redis="",
            collection="c",
            tokens_required=False,
        )
    )


def test_a_lost_server_falls_back_for_reads_and_is_an_error_for_writes() -> None:
    from houkai.app.operations import get
    from houkai.domain.errors import HoukaiError

    remote = _offline(f"http://127.0.0.1:{_free_port()}")
    with pytest.raises(client.Unavailable):
        remote.call(get("recall"), {"query": "x"}, "c")
    with pytest.raises(HoukaiError, match="may have run") as caught:
        remote.call(get("remember"), {"text": "x"}, "c")
    assert caught.value.status == 503


@pytest.mark.parametrize("status", [401, 403, 421, 429])
def test_a_refusal_of_this_caller_runs_in_process(monkeypatch, status: int) -> None:
    from houkai.app.operations import get

    remote = _offline()
    monkeypatch.setattr(client.Remote, "_request", lambda *a, **k: (status, {"error": "no"}, "n"))
    with pytest.raises(client.Unavailable):
        remote.call(get("forget"), {"memory_id": "m"}, "c")


def test_other_error_answers_are_the_typed_errors(monkeypatch) -> None:
    from houkai.app.operations import get
    from houkai.domain.errors import HoukaiError, NotFound

    remote = _offline()
    answers = iter(
        [(404, {"error": "no collection named 'x'"}, "n"), (503, {"error": "down"}, "n")]
    )
    monkeypatch.setattr(client.Remote, "_request", lambda *a, **k: next(answers))
    with pytest.raises(NotFound, match="no collection named 'x'"):
        remote.call(get("list_recent"), {}, "x")
    with pytest.raises(HoukaiError, match="down") as caught:
        remote.call(get("stats"), {}, "x")
    assert caught.value.status == 503


def test_migrate_warns_while_a_server_runs_for_the_data_dir(houkai, server) -> None:
    """``collections migrate`` rewrites vectors in place: it says so when this data dir's
    server (and so, likely, its workers) is running, before it starts."""
    _, collection = server
    result = houkai("collections", "migrate", collection, "--yes", local=True)
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("Warning: a houkai server runs for this data dir (http")
