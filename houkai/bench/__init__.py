"""Benchmarks (``houkai bench …``); the retrieval metrics live in :mod:`houkai.bench.eval`
and are re-exported here under the same names."""

from .eval import *  # noqa: F403
from .eval import __all__ as __all__
