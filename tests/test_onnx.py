"""The ONNX Runtime backend: same vectors as torch, exported once, light CLI imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from houkai.bench.ingest import synthetic_texts
from houkai.engines import onnx_export
from houkai.engines.embeddings import (
    MINILM_BACKENDS,
    MINILM_DEFAULT,
    SentenceTransformerEmbedder,
    build_embedder,
    resolve_spec,
)
from houkai.engines.onnx_embedder import OnnxEmbedder

HEAVY = ("torch", "transformers", "sentence_transformers")


def _texts() -> list[str]:
    """A few hundred varied texts: synthetic notes, long and short, non-ASCII, empty-ish."""
    texts = synthetic_texts(240, seed=11)
    texts += [
        "",
        "ok",
        "Ünïcödé straße café naïve — 東京 への 旅行",
        "word " * 400,  # longer than max_seq_length: truncated identically
        "Melanie painted a sunrise over the lake last summer and sold it in May.",
    ]
    texts += [f"question {i}: when did Caroline go to the LGBTQ support group?" for i in range(60)]
    return texts


@pytest.fixture(scope="module")
def torch_vectors(embedder) -> np.ndarray:
    torch_embedder = build_embedder("minilm-torch")
    assert isinstance(torch_embedder, SentenceTransformerEmbedder)
    return torch_embedder.encode(_texts())


def test_fp32_onnx_matches_torch_exactly(torch_vectors, settings) -> None:
    onnx = build_embedder("minilm-onnx")
    assert isinstance(onnx, OnnxEmbedder) and onnx.backend == "onnx-fp32"
    vectors = onnx.encode(_texts())
    assert vectors.shape == torch_vectors.shape and vectors.dtype == np.float32
    cosines = (vectors * torch_vectors).sum(axis=1)
    assert cosines.min() > 0.99995  # prints as 1.0000
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # The ONNX path never needed torch's tokenizer or model in this object.
    # Exported into the configured model cache (the session's shared one here).
    assert onnx.model_path is not None
    assert onnx.model_path.parent.parent == Path(settings.model_cache_dir)


def test_int8_stays_in_the_same_space_and_ranks_like_torch(torch_vectors) -> None:
    int8 = build_embedder("minilm-onnx-int8")
    assert int8.name == "all-MiniLM-L6-v2" and int8.backend == "onnx-int8"
    vectors = int8.encode(_texts())
    cosines = (vectors * torch_vectors).sum(axis=1)
    assert cosines.mean() > 0.97, cosines.mean()
    # Searching int8 queries against torch-stored vectors finds the same top hit
    # for nearly every text: stored vectors stay usable across a switch.
    same = (np.argmax(vectors @ torch_vectors.T, axis=1) == np.arange(len(vectors))).mean()
    assert same > 0.95, same


def test_default_spec_resolves_to_the_measured_backend() -> None:
    assert resolve_spec("minilm")[0] == MINILM_DEFAULT
    assert "quality gate" in resolve_spec("minilm")[1]
    assert resolve_spec("minilm-torch") == (
        "minilm-torch",
        "embedder=minilm-torch (named explicitly)",
    )
    default = build_embedder("minilm")
    assert default.backend == MINILM_BACKENDS[MINILM_DEFAULT]
    assert default.backend_reason.startswith("embedder=minilm")
    with pytest.raises(ValueError, match="minilm-onnx-int8"):
        build_embedder("minilm-onnx-int4")


def test_dimension_is_known_without_loading_any_model() -> None:
    for spec in ("minilm-onnx", "minilm-onnx-int8", "minilm-torch"):
        embedder = build_embedder(spec)
        assert embedder.dimension == 384
        assert getattr(embedder, "_session", None) is None
        assert getattr(embedder, "_model", None) is None


def test_default_falls_back_to_torch_when_onnx_cannot_run(tmp_path) -> None:
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not an onnx file")
    fallback = OnnxEmbedder("int8", onnx_path=broken, cache_dir=tmp_path, fallback=True)
    vector = fallback.encode(["hello"])
    assert vector.shape == (1, 384)
    assert fallback.backend == "torch" and "torch fallback" in fallback.backend_reason
    strict = OnnxEmbedder("int8", onnx_path=broken, cache_dir=tmp_path)
    with pytest.raises(Exception, match=r"(?i)protobuf|invalid|load"):
        strict.encode(["hello"])


def test_streams_share_one_session_and_match_one_stream(embedder) -> None:
    """The worker's layout: two encodes at once on one session, same vectors as one stream.

    fp32 is exact whatever the batching; int8 quantizes activations with one
    scale per batch, so a text's vector moves slightly with its batch-mates.
    """
    texts = synthetic_texts(64, seed=5)
    for spec, atol, min_cos in (("minilm-onnx", 1e-5, 0.99999), ("minilm-onnx-int8", 1.0, 0.98)):
        single = build_embedder(spec).encode(texts)
        parallel = build_embedder(spec, streams=2)
        assert parallel._threads == max(1, len(os.sched_getaffinity(0)) // 2)
        results: dict[int, np.ndarray] = {}

        def run(i: int, parallel=parallel, results=results) -> None:
            results[i] = parallel.encode(texts[i * 32 : (i + 1) * 32])

        threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        both = np.vstack([results[0], results[1]])
        assert np.allclose(both, single, atol=atol)
        assert (both * single).sum(axis=1).min() > min_cos, spec


def test_int8_vector_of_a_text_does_not_depend_on_its_batch(embedder) -> None:
    """Fixed activation scales (ADR 0074): the dynamic int8 model gave a text encoded in a
    batch of 32 a cosine of 0.977 at worst to the same text encoded alone, enough for ten
    near-identical siblings to outrank a memory's own words."""
    from houkai.corpora import clustered

    int8 = build_embedder("minilm-onnx-int8")
    texts = clustered.logs_corpus(200, 40, seed=3, generator=1).texts
    texts += ["word " * 300, "ok", "Ünïcödé straße café — 東京"]
    batched = int8.encode(texts)
    alone = np.vstack([int8.encode([t])[0] for t in texts])
    assert float((batched * alone).sum(axis=1).min()) > 0.99999


def test_export_runs_once_under_concurrency_and_writes_atomically(tmp_path, monkeypatch) -> None:
    """Concurrent first uses wait on the lock; the file appears whole, exactly once."""
    model_dir = onnx_export.bundled_model_path()
    calls: list[int] = []
    started = threading.Event()

    def fake_export(src: Path, target: Path, max_length: int) -> None:
        calls.append(1)
        started.set()
        partial = target.with_suffix(".partial")
        partial.write_bytes(b"x" * 1000)
        threading.Event().wait(0.3)  # a slow export: the others must wait, not start their own
        os.replace(partial, target)

    monkeypatch.setattr(onnx_export, "_export_fp32", fake_export)
    paths: list[Path] = []

    def use() -> None:
        paths.append(onnx_export.ensure_onnx(model_dir, tmp_path, "fp32", name="m", max_length=256))

    threads = [threading.Thread(target=use) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(set(paths)) == 1
    assert paths[0].read_bytes() == b"x" * 1000
    folder = paths[0].parent
    assert folder.name.startswith("m-") and folder.name.endswith(
        f"-x{onnx_export.EXPORTER_VERSION}"
    )
    assert not [p for p in folder.iterdir() if p.suffix in (".partial", ".tmp")]
    # The content hash is remembered (no 90 MB re-hash per process) and keyed by
    # the files' size and mtime, so new weights get a new directory.
    memo = json.loads((tmp_path / "hashes.json").read_text())
    assert list(memo.values()) == [folder.name.split("-")[1]]


def _run_cli(settings, code: str) -> dict:
    env = dict(
        os.environ,
        HOUKAI_REDIS_URL=settings.redis_url,
        REDIS_URL=settings.redis_url,
        HOUKAI_DATA_DIR=settings.data_dir,
        HOUKAI_KEY_PREFIX=settings.key_prefix,
        HOUKAI_CONFIG=os.devnull,
    )
    env.pop("HOUKAI_EMBEDDER", None)
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


_PROBE = """
import io, json, sys, contextlib
from houkai.cli import main
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    try:
        main({args!r})
    except SystemExit as exc:
        code = exc.code
mods = [m for m in ("torch", "transformers", "sentence_transformers", "onnxruntime", "celery",
                    "flask", "mcp") if m in sys.modules]
print(json.dumps({{"code": code, "mods": mods}}))
"""


@pytest.mark.parametrize(
    "args",
    [["--help"], ["list", "--limit", "3"], ["stats"]],
    ids=["help", "list", "stats"],
)
def test_cli_commands_that_do_not_embed_import_no_model_stack(settings, embedder, args) -> None:
    result = _run_cli(settings, _PROBE.format(args=args))
    assert result["code"] == 0
    assert not set(result["mods"]) & {*HEAVY, "onnxruntime", "celery", "flask", "mcp"}, result


def test_cli_recall_loads_the_onnx_session_only(settings, embedder) -> None:
    build_embedder("minilm").encode(["export first"])  # the file exists, as after a first use
    result = _run_cli(settings, _PROBE.format(args=["recall", "what runs on Fridays?"]))
    assert result["code"] == 0
    assert "onnxruntime" in result["mods"] and not set(result["mods"]) & set(HEAVY), result


def test_bench_recall_compare_runs_torch_and_the_default_in_one_run(settings, embedder, tmp_path):
    from click.testing import CliRunner

    from houkai.cli import cli
    from houkai.domain.config import set_settings

    env = {
        "REDIS_URL": settings.redis_url,
        "HOUKAI_KEY_PREFIX": settings.key_prefix,
        "HOUKAI_DATA_DIR": settings.data_dir,
        "HOUKAI_CONFIG": str(tmp_path / "absent.toml"),
    }
    args = ["bench", "recall", "--sizes", "60", "--queries", "4", "--no-rest", "--ef-sweep", "64"]
    try:
        result = CliRunner().invoke(
            cli, [*args, "--compare", "--collection-prefix", "tcmp", "--json"], env=env
        )
        bad = CliRunner().invoke(cli, [*args, "--embedder", "word2vec"], env=env)
    finally:
        set_settings(settings)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert list(data["results"]) == ["minilm-torch", MINILM_DEFAULT]
    label = data["results"][MINILM_DEFAULT]["config"]["embedder"]
    assert label.endswith(f"@{MINILM_BACKENDS[MINILM_DEFAULT]}-x{onnx_export.EXPORTER_VERSION}")
    ratios = data["ratios"]
    assert ratios["N=60 minilm-torch cold semantic p50 / torch"] == 1.0
    assert ratios[f"N=60 {MINILM_DEFAULT} cold semantic p50 / torch"] > 0
    assert ratios[f"N=60 {MINILM_DEFAULT} HNSW recall@k (ef=64)"] > 0.9
    assert bad.exit_code == 1 and "Error: unknown embedder 'word2vec'" in bad.output
