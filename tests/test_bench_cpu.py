"""CPU accounting of the ingest benchmark: per-process costs and the ceiling they allow."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from houkai.bench import ingest
from houkai.bench.cpu import process_tree_cpu_seconds

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc")


def test_a_process_tree_counts_its_busy_children() -> None:
    busy = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.6: pass\n"
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import subprocess, sys; subprocess.run([sys.executable, '-c', {busy!r}])",
        ]
    )
    seen = 0.0
    while parent.poll() is None:
        seen = max(seen, process_tree_cpu_seconds(parent.pid) or 0.0)
        time.sleep(0.05)
    assert seen >= 0.4  # the grandchild's spin, not the idle parent's
    assert process_tree_cpu_seconds(parent.pid) is None  # gone: no figure rather than 0


def test_costs_per_memory_and_the_ceiling_they_allow() -> None:
    start = {"worker": 10.0, "redis": 2.0, "submitter": 1.0}
    end = {"worker": 14.0, "redis": 2.5, "submitter": 1.5}
    costs = ingest._cpu_costs(start, end, 1000)
    assert costs == {"worker": 4.0, "redis": 0.5, "submitter": 0.5}
    assert ingest._ceiling(costs) == round((os.cpu_count() or 1) * 1000 / 5.0, 1)
    assert ingest._ceiling({"worker": None, "redis": 0.5}) is None  # unknown cost: no ceiling
    result = ingest.IngestBenchResult(
        n=1000,
        mode="worker",
        embedder="e",
        seconds=1.0,
        memories_per_second=1000.0,
        raw_encode_per_second=500.0,
        ratio=2.0,
        bytes_per_memory=1.0,
        bytes_per_memory_without_journal=1.0,
        failed=0,
        cpu_ms_per_memory=costs,
        cpu_ceiling_per_second=ingest._ceiling(costs),
    )
    text = "\n".join(result.lines())
    assert "worker 4.00, redis 0.50, submitter 0.50 ms" in text and "cpu ceiling" in text
