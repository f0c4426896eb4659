"""all-MiniLM-L6-v2 on ONNX Runtime: the default embedding backend.

Tokenisation is the fast ``tokenizers`` tokenizer from the bundle's
``tokenizer.json`` and the session's graph already pools and normalises (see
:mod:`houkai.engines.onnx_export`), so this path never imports torch, transformers or
sentence-transformers once the ONNX file exists.

Concurrency mirrors :class:`~houkai.engines.embeddings.SentenceTransformerEmbedder`:
*streams* ``encode`` calls may run at once on one shared session
(``InferenceSession.run`` is thread-safe), each with cores / streams intra-op
threads; only tokenisation (a Rust object that refuses concurrent borrows)
takes a lock. The streams are taken per sub-batch through an
:class:`~houkai.engines.embeddings.EncodeGate`, so a query encode waits for at
most one sub-batch of a bulk call, not all of it (ADR 0073).
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

from ..domain.model import ValidationError
from .encoding import (
    DEFAULT_MODEL_NAME,
    EncodeGate,
    bundle_settings,
    cpu_count,
    encode_batched,
)
from .onnx_export import (
    EXPORTER_VERSION,
    VARIANTS,
    bundled_model_path,
    ensure_onnx,
    load_tokenizer,
    session_feeds,
)

log = logging.getLogger(__name__)


class OnnxEmbedder:
    """The bundled MiniLM exported to ONNX (``fp32`` or ``int8``), run by ONNX Runtime.

    ``name`` stays the model's name whatever the variant: every backend embeds
    into the same space (fp32 is identical to torch; int8 ranks the same, see
    ADR 0019), so vectors stored by one stay searchable by another.
    """

    def __init__(
        self,
        variant: str = "int8",
        *,
        model_dir: str | os.PathLike | None = None,
        cache_dir: str | os.PathLike | None = None,
        onnx_path: str | os.PathLike | None = None,
        name: str = DEFAULT_MODEL_NAME,
        batch_size: int = 32,
        threads: int = 0,
        streams: int = 1,
        priority: bool = True,
        fallback: bool = False,
    ) -> None:
        if isinstance(streams, bool) or not isinstance(streams, int) or streams < 1:
            raise ValidationError(f"embed streams must be an integer >= 1 — got {streams!r}")
        if variant not in VARIANTS:
            raise ValidationError(
                f"unknown ONNX variant {variant!r}: use one of {', '.join(VARIANTS)}"
            )
        self.name = name
        self.variant = variant
        self.backend = f"onnx-{variant}"
        #: The int8 recipe's version: its vectors change with it (fp32's never did).
        self.revision = f"x{EXPORTER_VERSION}" if variant == "int8" else ""
        self.backend_reason = ""
        self._fallback_allowed = fallback  # torch when ONNX cannot run (``embedder=minilm``)
        self._fallback: Any = None
        self.batch_size = batch_size
        self.streams = streams
        self._threads = threads or (max(1, cpu_count() // streams) if streams > 1 else 0)
        self._model_dir = Path(model_dir) if model_dir else None
        self._cache_dir = Path(cache_dir) if cache_dir else None
        self._onnx_path = Path(onnx_path) if onnx_path else None  # benchmarks: a given file
        self._dimension: int | None = None
        self._max_length = 256
        self._session: Any = None
        self._tokenizer: Any = None
        self._input_names: tuple[str, ...] = ()
        self.model_path: Path | None = None
        self._lock = threading.Lock()
        self._tokenizer_lock = threading.Lock()
        # at most `streams` batches on the cores at once; queries first (ADR 0073)
        self._gate = EncodeGate(streams, priority=priority)

    # ------------------------------------------------------------------ setup
    def _resolve_dirs(self) -> tuple[Path, Path]:
        if self._model_dir is None:
            self._model_dir = bundled_model_path()
        if self._cache_dir is None:
            from ..domain.config import get_settings

            self._cache_dir = model_cache_dir(get_settings())
        return self._model_dir, self._cache_dir

    @property
    def dimension(self) -> int:
        """Read from the bundle's config: knowing it never loads the model."""
        if self._dimension is None:
            # Only the bundle is needed: the cache dir is resolved when the session
            # loads, under the settings in force then (not whoever asked for the size).
            if self._model_dir is None:
                self._model_dir = bundled_model_path()
            self._dimension, self._max_length = bundle_settings(self._model_dir)
        return self._dimension

    def _load(self) -> Any:
        if self._session is not None or self._fallback is not None:
            return self._session
        with self._lock:
            if self._session is None and self._fallback is None:
                try:
                    self._open()
                except Exception as exc:
                    if not self._fallback_allowed:
                        raise
                    self._use_torch(exc)
        return self._session

    def _use_torch(self, exc: Exception) -> None:
        from .torch_embedder import SentenceTransformerEmbedder

        log.warning(
            "ONNX backend unavailable (%s: %s); falling back to torch", type(exc).__name__, exc
        )
        self._fallback = SentenceTransformerEmbedder(
            name=self.name,
            batch_size=self.batch_size,
            threads=self._threads,
            streams=self.streams,
            priority=self._gate.priority,
        )
        self.backend = "torch"
        self.backend_reason = (
            f"{self.backend_reason}; ONNX unavailable ({type(exc).__name__}: {exc}): torch fallback"
        ).lstrip("; ")

    def _open(self) -> None:
        """Export if needed, then load the tokenizer and the ONNX Runtime session."""
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        import onnxruntime as ort

        model_dir, cache_dir = self._resolve_dirs()
        dim = self.dimension
        path = self._onnx_path or ensure_onnx(
            model_dir, cache_dir, self.variant, name=self.name, max_length=self._max_length
        )
        tokenizer = load_tokenizer(model_dir, self._max_length)
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if self._threads:
            options.intra_op_num_threads = self._threads
        options.inter_op_num_threads = 1
        # Idle intra-op threads sleep instead of spinning: on cores others share, spinning
        # threads fought the load and doubled a query's encode (16 → 7 ms p50, and bulk
        # encodes 105 → 155 texts/s, at load 3-4 on 2 cores; ADR 0084).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        session = ort.InferenceSession(
            str(path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._input_names = tuple(i.name for i in session.get_inputs())
        log.info(
            "loaded %s (%s, %d dims) from %s: %d stream(s), %s intra-op thread(s)",
            self.name,
            self.backend,
            dim,
            path,
            self.streams,
            self._threads or "default",
        )
        self.model_path = path
        self._tokenizer = tokenizer
        self._session = session

    # ------------------------------------------------------------------ encode
    def _tokenize(self, texts: list[str]) -> dict[str, np.ndarray]:
        with self._tokenizer_lock:
            encodings = self._tokenizer.encode_batch(texts)
        return session_feeds(encodings, "token_type_ids" in self._input_names)

    def encode(self, texts: list[str]) -> np.ndarray:
        session = self._load()
        if self._fallback is not None:
            return self._fallback.encode(texts)
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)

        def run(chunk: list[str]) -> np.ndarray:
            (vectors,) = session.run(None, self._tokenize(chunk))
            return vectors

        return encode_batched(
            texts, batch_size=self.batch_size, dimension=self.dimension, gate=self._gate, run=run
        )


def model_cache_dir(settings: Any) -> Path:
    """Where exported ONNX files live: ``model_cache_dir`` or ``<data_dir>/models``."""
    explicit = getattr(settings, "model_cache_dir", "")
    return Path(explicit or Path(settings.data_dir) / "models").expanduser()
