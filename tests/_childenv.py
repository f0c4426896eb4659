"""The environment of a child process a test starts (CLI, worker, server, MCP).

The test runner's own ``HOUKAI_*`` settings and ``REDIS_URL`` must not leak into
a child, which gets exactly the settings the test names; the shared model cache
(``HOUKAI_MODEL_CACHE_DIR``, set once per session in conftest) is kept so no
child exports the ONNX model again, and so is the session's absent config file
(``HOUKAI_CONFIG``): conftest removed the user's settings already.
"""

from __future__ import annotations

import os

KEEP = ("HOUKAI_MODEL_CACHE_DIR", "HOUKAI_CONFIG", "HOUKAI_BROKER_URL")  # broker: cluster runs


def child_env(**settings: str) -> dict[str, str]:
    """``os.environ`` without houkai's settings (but the model cache), plus *settings*."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOUKAI_") or k in KEEP}
    env.pop("REDIS_URL", None)
    env.update(settings)
    return env
