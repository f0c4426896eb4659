"""``houkai bench cli``: fresh processes against a throwaway collection (structure, no timing)."""

from __future__ import annotations

import os

from houkai.connection import connect

from houkai.bench import cli_wall


def test_bench_cli_times_each_command_and_reports_heavy_imports(
    settings, embedder, monkeypatch
) -> None:
    monkeypatch.setenv("HOUKAI_CONFIG", os.devnull)  # the children read the session's settings
    before = set(connect(settings.redis_url).keys(f"{settings.key_prefix}:*bench-cli-*"))
    result = cli_wall.run(
        settings.replace(collection="bench-default"), memories=3, repeat=1, server=True
    )
    rows = {t.command: t for t in result.commands if t.mode == cli_wall.IN_PROCESS}
    served = {t.command: t for t in result.commands if t.mode == cli_wall.VIA_SERVER}
    # issue #26: the same commands through a running server, timed in the same run; they
    # load no model (the in-process recall does)
    assert list(served) == ["list", "stats", "recall"]
    assert all(t.exit_code == 0 and t.target_s == 0.5 for t in served.values())
    assert all(not {"onnxruntime", "torch"} & set(t.heavy_imports) for t in served.values())
    assert any("× in-process" in line for line in result.lines())
    from houkai.app import runtime

    assert runtime.find(settings.data_dir) is None  # the server it started is gone
    assert list(rows) == ["--version", "--help", "list", "stats", "recall"]
    assert rows["--version"].target_s == 0.3 and rows["--help"].target_s == 0.5
    assert rows["recall"].target_s == 1.5
    assert rows["--version"].heavy_imports == rows["--help"].heavy_imports == []
    assert all(t.exit_code == 0 and len(t.runs) == 1 and t.median_s > 0 for t in rows.values())
    # what issue #13 asks: no torch stack anywhere; only recall loads ONNX Runtime
    assert all(not {"torch", "sentence_transformers"} & set(t.heavy_imports) for t in rows.values())
    assert "onnxruntime" in rows["recall"].heavy_imports
    assert "onnxruntime" not in rows["list"].heavy_imports
    data = result.to_dict()
    assert data["memories"] == 3 and {r["command"] for r in data["commands"]} == set(rows)
    assert all("met" in r for r in data["commands"])
    assert any("heavy imports" in line for line in result.lines())
    assert data["loadavg_start"] and data["loadavg_end"]  # a miss is judged against the load
    # the throwaway collection is dropped
    assert set(connect(settings.redis_url).keys(f"{settings.key_prefix}:*bench-cli-*")) == before
