"""Which Redis the session runs on: one node (default) or a local 3-master Redis Cluster.

``HOUKAI_TEST_REDIS=cluster`` makes the session's storage a real local cluster started once
by conftest (houkai's own ``houkai.db.cluster``), with the single embedded node as the Celery
broker and result backend. ``./dev test`` runs the door files (``tests/doors.txt``) a
second time that way (ADR 0079).
"""

from __future__ import annotations

import os

import pytest

CLUSTER_MODE = os.environ.get("HOUKAI_TEST_REDIS", "").strip().lower() == "cluster"


def single_node_only(reason: str) -> pytest.MarkDecorator:
    """Skip a test on the cluster pass: it checks something only one node has (say why)."""
    return pytest.mark.skipif(CLUSTER_MODE, reason=f"single node only: {reason}")
