"""houkai's side of the seed comparison: drives :mod:`.seed_driver` in another interpreter.

The seed (``ai-houkai==0.16.0``) needs Chroma and its own pins, so it is installed in a
separate venv and never in houkai's dependencies; ``houkai bench stages --seed-python
PATH`` runs the driver script (by file path: it imports nothing from houkai) under that
interpreter, hands it the bench corpus (texts, metadata and the very vectors houkai
stores) and asks it for timed recalls between houkai's own rounds.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np

from ..domain.model import Memory

log = logging.getLogger(__name__)

DRIVER = Path(__file__).with_name("seed_driver.py")


class SeedUnavailable(RuntimeError):
    """The seed interpreter is missing, cannot import the seed, or failed a request."""


class SeedDriver:
    """A running :mod:`.seed_driver` process; use as a context manager."""

    def __init__(self, python: str, *, torch_threads: int = 0) -> None:
        self.python = python
        self.torch_threads = torch_threads
        self._tmp = tempfile.TemporaryDirectory(prefix="houkai-bench-seed-")
        self.workdir = Path(self._tmp.name)
        self.proc: subprocess.Popen[str] | None = None
        self._log: IO[bytes] | None = None
        self.info: dict[str, Any] = {}

    def __enter__(self) -> SeedDriver:
        if not Path(self.python).exists():
            self._tmp.cleanup()
            raise SeedUnavailable(f"no interpreter at {self.python}")
        env = dict(os.environ)
        env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TQDM_DISABLE="1")
        env.pop("PYTHONPATH", None)  # the seed's interpreter must not see houkai's tree
        self._log = (self.workdir / "driver.log").open("wb")
        self.proc = subprocess.Popen(
            [self.python, str(DRIVER), str(self.workdir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
            env=env,
            cwd=str(self.workdir),
        )
        try:
            self.info = self.call({"op": "hello", "torch_threads": self.torch_threads})
        except SeedUnavailable:
            self.__exit__()
            raise
        return self

    def tail(self) -> str:
        try:
            return (self.workdir / "driver.log").read_text(errors="replace")[-1500:]
        except OSError:
            return "(no log)"

    def call(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send one request and wait for its reply (raises SeedUnavailable on failure)."""
        proc = self.proc
        if proc is None or proc.stdin is None or proc.stdout is None:
            raise SeedUnavailable("the seed driver is not running")
        try:
            proc.stdin.write(json.dumps(msg) + "\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
        except (BrokenPipeError, OSError) as exc:
            raise SeedUnavailable(f"the seed driver died: {exc}; {self.tail()}") from None
        if not line:
            raise SeedUnavailable(f"the seed driver exited: {self.tail()}")
        reply: dict[str, Any] = json.loads(line)
        if not reply.get("ok"):
            raise SeedUnavailable(f"the seed driver failed {msg.get('op')}: {reply.get('error')}")
        return reply

    def load(self, memories: Sequence[Memory], vectors: np.ndarray) -> dict[str, Any]:
        """Write the corpus into the seed's Chroma collection (its metadata, these vectors)."""
        records = [
            {
                "id": m.id,
                "text": m.text,
                "type": m.type,
                "tags": list(m.tags),
                "importance": m.importance,
                "created_at": m.created_at,
            }
            for m in memories
        ]
        rec_path = self.workdir / "records.json"
        vec_path = self.workdir / "vectors.npy"
        rec_path.write_text(json.dumps(records), encoding="utf-8")
        np.save(vec_path, np.asarray(vectors, dtype=np.float32))
        try:
            return self.call({"op": "load", "records": str(rec_path), "vectors": str(vec_path)})
        finally:
            rec_path.unlink(missing_ok=True)
            vec_path.unlink(missing_ok=True)

    def measure(self, texts: Sequence[str], *, k: int, touch: bool) -> list[float]:
        """Wall ms of one seed hybrid ``recall`` per text (always cold: no query cache)."""
        reply = self.call(
            {"op": "measure", "queries": list(texts), "k": k, "mode": "hybrid", "touch": touch}
        )
        return [float(x) for x in reply["times_ms"]]

    def __exit__(self, *exc: object) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            try:
                if proc.poll() is None and proc.stdin is not None:
                    proc.stdin.write(json.dumps({"op": "quit"}) + "\n")
                    proc.stdin.flush()
                proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait(timeout=10)
        if self._log is not None:
            self._log.close()
            self._log = None
        self._tmp.cleanup()
