"""The wheel installs everything under the ``houkai`` namespace, nothing generic at the top."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_maps_api_and_workers_under_houkai(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("houkai-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names} == {
        "houkai",
        wheel.name.split("-py3")[0] + ".dist-info",
    }
    for module in (
        "houkai/api/rest.py",
        "houkai/api/mcp_server.py",
        "houkai/workers/app.py",
        "houkai/workers/tasks.py",
        "houkai/cli/__init__.py",
        "houkai/store/core.py",
        "houkai/api/ui/templates/index.html",  # the dashboard's page and assets
        "houkai/api/ui/static/app.js",
        "houkai/api/ui/static/explain.js",
        "houkai/api/ui/static/app.css",
    ):
        assert module in names
