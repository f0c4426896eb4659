"""Shared test fixtures: one real Redis Stack and one loaded model per session.

Tests isolate by collection (a fresh, uniquely named collection per test,
dropped afterwards) under a per-session key prefix, never by new servers.
Set ``HOUKAI_TEST_REDIS_URL`` to run against an existing Redis Stack instead
of the embedded one, and ``HOUKAI_TEST_MODEL_CACHE_DIR`` to reuse exported
ONNX models between runs (else each session exports its own, ~10 s).

The suite never sees the user's houkai: before anything is imported, the
user's ``HOUKAI_*`` settings, ``REDIS_URL`` and the seed's variables leave
this process's environment, and the config file and default data directory
resolve inside a throw-away home (``tests/test_isolation.py`` proves it
against a hostile config).
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator

import pytest

from houkai.domain.config import SEED_ENV  # resolves nothing at import

#: The variables a test run may set for itself (``HOUKAI_TEST_REDIS_URL``,
#: ``HOUKAI_TEST_MODEL_CACHE_DIR``, ``HOUKAI_TEST_REDIS``, ``HOUKAI_TEST_RESTARTS``, …); all
#: others named HOUKAI_* are the user's.
TEST_PREFIX = "HOUKAI_TEST_"
#: Not HOUKAI_*, but read as settings all the same.
FOREIGN_SETTINGS = ("REDIS_URL", *SEED_ENV)


def _isolate_from_the_user() -> str:
    """Drop the user's settings from the environment and point the config file and the
    default data directory into a fresh temporary home; returns that home. Runs at
    import, before houkai resolves anything (children inherit the same environment)."""
    for key in list(os.environ):
        mine = key.startswith("HOUKAI_") and not key.startswith(TEST_PREFIX)
        if mine or key in FOREIGN_SETTINGS:
            del os.environ[key]
    home = tempfile.mkdtemp(prefix="houkai-test-home-")
    atexit.register(shutil.rmtree, home, True)
    os.environ["XDG_CONFIG_HOME"] = os.path.join(home, "config")
    os.environ["XDG_DATA_HOME"] = os.path.join(home, "data")
    os.environ["HOUKAI_CONFIG"] = os.path.join(home, "config", "houkai", "config.toml")
    return home


TEST_HOME = _isolate_from_the_user()

from _redis_mode import CLUSTER_MODE  # noqa: E402

from houkai.db import server as redis_server  # noqa: E402  (after the isolation above)
from houkai.domain.config import Settings, load_settings, set_settings  # noqa: E402

# ``HOUKAI_TEST_REDIS=cluster`` (tests/_redis_mode.py): the session's storage is a local
# 3-master Redis Cluster (``redis_url`` is its ``redis+cluster://`` URL) and the single node
# is the Celery broker and result backend (``broker_url``, also exported as
# ``HOUKAI_BROKER_URL`` for children and in-process CLIs).


def pytest_report_header() -> str:
    if CLUSTER_MODE:
        return "houkai storage: a local 3-master Redis Cluster (HOUKAI_TEST_REDIS=cluster)"
    return "houkai storage: one Redis node"


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory):
    """A real local 3-master Redis Cluster (free ports chosen now), started once per
    session via houkai's own ``houkai.db.cluster`` and stopped at the end (ADR 0079)."""
    from houkai.db import cluster

    base = tmp_path_factory.mktemp("houkai-cluster")
    info = cluster.start(base, masters=3)
    yield info
    cluster.stop(base)
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def broker_url(single_redis_url: str) -> str:
    """The Celery broker: the single node (on a cluster session too: Celery cannot use one)."""
    return single_redis_url


@pytest.fixture(scope="session")
def redis_url(request: pytest.FixtureRequest, single_redis_url: str) -> str:
    """The session's storage: one node, or the cluster under ``HOUKAI_TEST_REDIS=cluster``."""
    if not CLUSTER_MODE:
        return single_redis_url
    os.environ["HOUKAI_BROKER_URL"] = single_redis_url  # children and in-process CLIs
    return str(request.getfixturevalue("redis_cluster").url)


@pytest.fixture(scope="session")
def single_redis_url() -> Iterator[str]:
    url = os.environ.get("HOUKAI_TEST_REDIS_URL")
    if url:
        yield url
        return
    data_dir = tempfile.mkdtemp(prefix="houkai-test-redis-")
    info = redis_server.start(data_dir, redis_server.free_port())
    yield info.url
    redis_server.stop(data_dir)
    # the server's dump and log are this session's alone: leave no directory behind
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def settings(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    data_dir = tmp_path_factory.mktemp("houkai-data")
    # One exported ONNX model per session: every test and every child process
    # (`houkai up`, workers, the REST server) shares it instead of exporting again
    # into its own fresh data dir (20 s quiet, over 60 s on a loaded machine).
    model_cache = os.environ.get("HOUKAI_TEST_MODEL_CACHE_DIR") or str(
        tmp_path_factory.mktemp("houkai-models")
    )
    os.environ["HOUKAI_MODEL_CACHE_DIR"] = model_cache  # children (tests/_childenv.py)
    s = load_settings(
        {
            "redis_url": redis_url,
            "data_dir": str(data_dir),
            "model_cache_dir": model_cache,
            "key_prefix": f"hk-test-{uuid.uuid4().hex[:8]}",
            "journal_archive_dir": str(data_dir / "journal-archive"),
            **({"broker_url": os.environ["HOUKAI_BROKER_URL"]} if CLUSTER_MODE else {}),
        },
        env={},
    )
    set_settings(s)
    _SESSION_SETTINGS.append(s)
    yield s
    _SESSION_SETTINGS.clear()
    set_settings(None)


_SESSION_SETTINGS: list[Settings] = []


@pytest.fixture(autouse=True)
def _keep_session_settings() -> Iterator[None]:
    """A test that runs a CLI in-process replaces the process-wide settings; put the
    session's back, so no later test (or the shared embedder) reads the user's data dir."""
    yield
    if _SESSION_SETTINGS:
        set_settings(_SESSION_SETTINGS[0])


@pytest.fixture(scope="session")
def embedder(settings: Settings):
    from houkai.engines.embeddings import get_embedder

    set_settings(settings)  # the model cache lives under the session's data dir
    e = get_embedder()
    e.encode(["warm up"])
    return e


@pytest.fixture()
def make_store(settings: Settings, embedder) -> Iterator[Callable[..., object]]:
    """Factory for isolated stores: each call gets a fresh collection unless one is named."""
    from houkai import MemoryStore

    created: list[MemoryStore] = []

    def factory(
        collection: str | None = None, vector_type: str | None = None, **kwargs
    ) -> MemoryStore:
        name = collection or f"t-{uuid.uuid4().hex[:10]}"
        own = kwargs.pop("settings", settings)  # a test's own settings, e.g. exact_knn_max
        own = own if vector_type is None else own.replace(vector_type=vector_type)
        store = MemoryStore(collection=name, settings=own, **kwargs)
        created.append(store)
        return store

    yield factory
    seen: set[str] = set()
    for store in created:
        if store.collection_name not in seen:
            seen.add(store.collection_name)
            store.drop()


@pytest.fixture()
def store(make_store):
    return make_store()


# ----------------------------------------------------------------- Redis Cluster (ADR 0079)
@pytest.fixture(scope="session")
def cluster_settings(settings: Settings, redis_cluster, broker_url: str) -> Settings:
    """The session's settings with storage on the cluster and the Celery broker on the
    session's single node (Celery cannot use a cluster)."""
    return settings.replace(
        redis_url=redis_cluster.url,
        broker_url=broker_url,
        key_prefix=f"hk-cl-{uuid.uuid4().hex[:8]}",
        pipeline_mode="inline",
    )
