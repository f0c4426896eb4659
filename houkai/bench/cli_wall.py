"""``houkai bench cli``: wall time of CLI commands run as fresh processes.

A CLI that imports torch and loads a model on every call takes seconds even for
``houkai list``; issue #13 set targets for a fresh process on the embedded
default (``--help`` under 0.5 s; ``list``, ``stats``, ``recall`` under 1.5 s).
This runs each command *repeat* times as a new ``houkai`` process against a
throwaway collection of realistic memories, reports the median wall time
against its target, and, in one extra in-process run per command, which heavy
modules (torch, transformers, sentence-transformers, onnxruntime) it imported.

Those processes run in-process (``HOUKAI_LOCAL=1``: a server the user runs is not
used). With ``server=True`` each command is also timed as a client of a running
``houkai serve`` for the same data dir (issue #26: under 0.5 s), in the same run, so
the ratio between the two is the figure that carries over to another machine.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..domain.config import Settings
from ..domain.model import ValidationError

log = logging.getLogger(__name__)

QUERY = "which ticket changed the deploy pipeline"
HEAVY = ("torch", "transformers", "sentence_transformers", "onnxruntime")
# (label, arguments after the global options, target seconds)
COMMANDS: tuple[tuple[str, tuple[str, ...], float], ...] = (
    ("--version", ("--version",), 0.3),  # issue #26: commands are imported on first use
    ("--help", ("--help",), 0.5),
    ("list", ("list",), 1.5),
    ("stats", ("stats",), 1.5),
    ("recall", ("recall", QUERY), 1.5),
)
#: Targets of the same commands sent to a running server (issue #26).
SERVER_TARGETS: dict[str, float] = {"list": 0.5, "stats": 0.5, "recall": 0.5}
IN_PROCESS, VIA_SERVER = "in-process", "via server"

# Runs the CLI in-process, then reports which heavy modules got imported.
_PROBE = (
    "import json, sys\n"
    "from houkai.cli import main\n"
    "sys.argv = ['houkai', *sys.argv[1:]]\n"
    "try:\n"
    "    main()\n"
    "except SystemExit:\n"
    "    pass\n"
    f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]), file=sys.stderr)\n"
)


@dataclass
class CommandTiming:
    command: str
    target_s: float
    median_s: float
    min_s: float
    max_s: float
    runs: list[float]
    heavy_imports: list[str]
    exit_code: int
    mode: str = IN_PROCESS

    @property
    def met(self) -> bool:
        return self.exit_code == 0 and self.median_s < self.target_s


@dataclass
class CliBenchResult:
    memories: int
    repeat: int
    embedder: str
    commands: list[CommandTiming] = field(default_factory=list)
    # the targets are for a quiet machine: a reader needs the load to judge a miss
    loadavg_start: str = ""
    loadavg_end: str = ""

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for row, timing in zip(out["commands"], self.commands, strict=True):
            row["met"] = timing.met
        return out

    def lines(self) -> list[str]:
        head = (
            f"fresh `houkai` processes, {self.repeat} runs each, "
            f"{self.memories} memories, embedder {self.embedder}, "
            f"load average {self.loadavg_start} → {self.loadavg_end}"
        )
        rows = [
            head,
            f"{'command':10s} {'mode':10s} {'median':>8s} {'min':>7s} {'max':>7s} {'target':>7s}",
        ]
        local = {t.command: t.median_s for t in self.commands if t.mode == IN_PROCESS}
        for t in self.commands:
            verdict = "met" if t.met else ("FAILED" if t.exit_code else "MISSED")
            heavy = ", ".join(t.heavy_imports) or "none"
            ratio = ""
            if t.mode == VIA_SERVER and local.get(t.command):
                ratio = f"  {t.median_s / local[t.command]:.2f}× in-process"
            rows.append(
                f"{t.command:10s} {t.mode:10s} {t.median_s:7.3f}s {t.min_s:6.3f}s "
                f"{t.max_s:6.3f}s {t.target_s:6.1f}s  {verdict:6s}  heavy imports: {heavy}{ratio}"
            )
        return rows


def loadavg() -> str:
    try:
        return "/".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def _env(settings: Settings) -> dict[str, str]:
    """The child's environment: this process's settings, as a user's shell would set them."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's install has its bytecode cache
    env.update(
        HOUKAI_DATA_DIR=settings.data_dir,
        HOUKAI_KEY_PREFIX=settings.key_prefix,
        HOUKAI_EMBEDDER=settings.embedder,
        HOUKAI_COLLECTION=settings.collection,
    )
    if settings.redis_url:
        env["HOUKAI_REDIS_URL"] = settings.redis_url
    if settings.redis_port:
        env["HOUKAI_REDIS_PORT"] = str(settings.redis_port)
    return env


def _wall(argv: list[str], env: dict[str, str]) -> tuple[float, int]:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start, done.returncode


def _heavy_imports(args: list[str], env: dict[str, str]) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    for line in reversed(done.stderr.strip().splitlines()):
        try:
            found = json.loads(line)
        except ValueError:
            continue
        if isinstance(found, list):
            return [str(m) for m in found]
    return ["?"]


def _time(
    label: str,
    argv: list[str],
    modes: list[tuple[str, dict[str, str], float]],
    repeat: int,
    progress: Callable[[str, int], None] | None,
) -> list[CommandTiming]:
    """*repeat* runs of *argv* in each of *modes* ``(mode, env, target)``, interleaved run
    by run, so a load burst on a shared machine hits every mode alike."""
    for _, env, _ in modes:
        _wall(argv, env)  # one untimed run: page cache and bytecode, as a user's 2nd call
    runs: dict[str, list[float]] = {mode: [] for mode, _, _ in modes}
    codes = dict.fromkeys(runs, 0)
    for i in range(repeat):
        for mode, env, _ in modes:
            seconds, rc = _wall(argv, env)
            runs[mode].append(seconds)
            codes[mode] = codes[mode] or rc
        if progress is not None:
            progress(label, i + 1)
    return [
        CommandTiming(
            command=label,
            target_s=target,
            median_s=round(statistics.median(runs[mode]), 3),
            min_s=round(min(runs[mode]), 3),
            max_s=round(max(runs[mode]), 3),
            runs=[round(r, 3) for r in runs[mode]],
            heavy_imports=_heavy_imports(argv[1:], env),
            exit_code=codes[mode],
            mode=mode,
        )
        for mode, env, target in modes
    ]


@contextlib.contextmanager
def _server(settings: Settings, env: dict[str, str], exe: Path) -> Iterator[None]:
    """A ``houkai serve`` for the data dir: the user's when one runs that the CLI would
    use, else one of our own on a free port, stopped afterwards."""
    from ..app import runtime
    from ..cli.remote import Remote, open_remote

    if open_remote(settings, settings.collection) is not None:
        yield
        return
    argv = [str(exe), "serve", "--host", "127.0.0.1", "--port", "0"]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                stderr = proc.stderr.read().decode() if proc.stderr else ""
                raise ValidationError(f"houkai serve exited: {stderr[-500:]}")
            found = runtime.find(settings.data_dir)
            if found is not None and found.pid == proc.pid and Remote(found).alive():
                break
            if time.monotonic() > deadline:
                raise ValidationError("houkai serve did not come up within 180 s")
            time.sleep(0.2)
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run(
    settings: Settings,
    *,
    memories: int = 300,
    repeat: int = 7,
    server: bool = False,
    progress: Callable[[str, int], None] | None = None,
) -> CliBenchResult:
    """Time :data:`COMMANDS` as fresh processes over a throwaway collection of *memories*;
    with *server*, each again as a client of a running ``houkai serve`` (same run)."""
    from ..bench.recall_corpus import generate
    from ..db.server import resolve_url
    from ..engines.embeddings import backend_label, get_embedder
    from ..store import MemoryStore

    if repeat < 1 or memories < 0:
        raise ValidationError("repeat must be >= 1 and memories >= 0")
    exe = Path(sys.executable).parent / "houkai"
    if not exe.exists():
        raise ValidationError(f"no `houkai` executable next to {sys.executable}")
    # Resolve (and start, when embedded) the server first, so no timed run pays for it.
    resolve_url(settings.redis_url, settings.data_dir, settings.redis_port)
    collection = f"bench-cli-{uuid.uuid4().hex[:8]}"
    embedder = get_embedder(settings.embedder)
    store = MemoryStore(collection=collection, settings=settings, embedder=embedder)
    env = _env(settings)
    local_env = {**env, "HOUKAI_LOCAL": "1"}
    result = CliBenchResult(
        memories=memories,
        repeat=repeat,
        embedder=backend_label(embedder),
        loadavg_start=loadavg(),
    )
    try:
        if memories:
            store.remember_many(
                [{"text": m.text, "type": m.type, "tags": m.tags} for m in generate(memories)]
            )
        base = ["--collection", collection, "--format", "tsv"]
        with _server(settings, env, exe) if server else contextlib.nullcontext():
            for label, args, target in COMMANDS:
                modes = [(IN_PROCESS, local_env, target)]
                if server and label in SERVER_TARGETS:
                    modes.append((VIA_SERVER, env, SERVER_TARGETS[label]))
                argv = [str(exe), *base, *args]
                result.commands += _time(label, argv, modes, repeat, progress)
        result.commands.sort(key=lambda t: t.mode != IN_PROCESS)
    finally:
        store.drop()
    result.loadavg_end = loadavg()
    return result
