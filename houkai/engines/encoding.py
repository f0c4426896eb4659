"""The encode machinery every local embedder shares: the CPU gate, batching, bundle settings.

Kept apart from the backends (:mod:`.torch_embedder`, :mod:`.onnx_embedder`) and from
the factory that picks one (:mod:`.embeddings`), so a backend imports this module and
never the factory: no import circle between the backends and the factory.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import numpy as np

DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"


def normalise(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix.reshape(1, -1)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


# Set while a query (an interactive read) encodes: see :class:`EncodeGate`.
_INTERACTIVE: ContextVar[bool] = ContextVar("houkai_INTERACTIVE_encode", default=False)


def is_interactive() -> bool:
    """Whether the encodes running now are interactive (inside :func:`interactive`)."""
    return _INTERACTIVE.get()


@contextmanager
def interactive() -> Iterator[None]:
    """Mark the encodes in this block as interactive: they go before bulk sub-batches."""
    token = _INTERACTIVE.set(True)
    try:
        yield
    finally:
        _INTERACTIVE.reset(token)


class EncodeGate:
    """At most *slots* encode batches on the cores at once; interactive ones go first.

    A bulk encode takes a slot per sub-batch (``batch_size`` texts), not for the
    whole call, so a query encode (marked with :func:`interactive`) that arrives
    while 256 texts embed waits for at most one sub-batch per slot instead of the
    whole call (issue #27, ADR 0073). With *priority* off a bulk call holds its
    slot throughout and every waiter is equal: the behaviour before.

    Queries win every slot they wait for: a flood of them delays bulk work, which
    resumes as soon as no query waits.
    """

    def __init__(self, slots: int, *, priority: bool = True) -> None:
        self.slots = slots
        self.priority = priority
        self._free = slots
        self._urgent = 0  # interactive callers waiting for a slot
        self._waiting = 0  # every caller waiting for a slot
        self._cond = threading.Condition()

    @property
    def waiting(self) -> int:
        """Callers waiting for a slot now."""
        with self._cond:
            return self._waiting

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Hold one slot for one batch."""
        urgent = self.priority and _INTERACTIVE.get()
        with self._cond:
            self._waiting += 1
            self._urgent += urgent
            try:
                while self._free == 0 or (self._urgent and not urgent):
                    self._cond.wait()
            finally:
                self._waiting -= 1
                self._urgent -= urgent
                self._cond.notify_all()  # bulk waiters re-check once no query waits
            self._free -= 1
        try:
            yield
        finally:
            with self._cond:
                self._free += 1
                self._cond.notify_all()

    @contextmanager
    def call(self) -> Iterator[Callable[[], Any]]:
        """One ``encode`` call: yields ``batch()``, the context each sub-batch runs in.

        With priority each sub-batch takes its own slot; without, the call holds one
        slot across all its sub-batches.
        """
        if self.priority:
            yield self.slot
            return
        with self.slot():
            yield _held


@contextmanager
def _held() -> Iterator[None]:
    yield


def encode_batched(
    texts: list[str],
    *,
    batch_size: int,
    dimension: int,
    gate: EncodeGate,
    run: Callable[[list[str]], np.ndarray],
) -> np.ndarray:
    """Encode *texts* in sub-batches of *batch_size* through *gate*, normalised.

    Longest first, as sentence-transformers does: batches pad less.
    """
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    out = np.empty((len(texts), dimension), dtype=np.float32)
    with gate.call() as batch:
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            with batch():
                out[rows] = run([texts[i] for i in rows])
    return normalise(out)


def cpu_count() -> int:
    """Cores this process may run on (the affinity mask, not the machine's total)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def bundle_settings(model_dir: Path) -> tuple[int, int]:
    """(dimension, max_seq_length) from a sentence-transformers model's config files.

    Knowing the dimension this way lets a store open (``houkai list``, ``stats``)
    without loading any model.
    """
    dim, max_length = 0, 256
    try:
        pooling = json.loads((model_dir / "1_Pooling" / "config.json").read_text())
        dim = int(pooling["word_embedding_dimension"])
    except (OSError, ValueError, KeyError):
        dim = int(json.loads((model_dir / "config.json").read_text())["hidden_size"])
    try:
        st = json.loads((model_dir / "sentence_bert_config.json").read_text())
        max_length = int(st.get("max_seq_length", max_length))
    except (OSError, ValueError):
        pass
    return dim, max_length


def serialise_tokenizer(model: Any) -> None:
    """Let concurrent ``encode`` calls share *model*: Hugging Face fast tokenizers
    raise "Already borrowed" when two threads tokenise at once, so that step
    (cheap next to the forward pass) takes a lock; the forward passes overlap.

    sentence-transformers 5+ tokenises through ``preprocess`` (older releases
    through ``tokenize``); exactly one of them is wrapped, so a call from one
    into the other cannot deadlock on the lock.
    """
    name = "preprocess" if hasattr(model, "preprocess") else "tokenize"
    step = getattr(model, name)
    lock = threading.Lock()

    def locked(*args: Any, **kwargs: Any) -> Any:
        with lock:
            return step(*args, **kwargs)

    setattr(model, name, locked)
