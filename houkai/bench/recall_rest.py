"""The REST side of ``bench recall``: the real app under gunicorn, as production serves it.

werkzeug's development server (plain ``houkai serve``) closes every
connection, so the benchmark serves the app the way ``houkai serve --workers``
does — gunicorn with one gthread worker — which keeps HTTP/1.1 connections
alive. The app is :func:`houkai.api.rest.create_app` unchanged, plus one
benchmark-only route, ``/_bench/cache``, that exists only in this factory:
``POST`` gives the served store a fresh (empty) query-embedding cache and
``GET`` reads its hit/miss counters, so REST passes follow the same cold/warm
protocol as library passes.
"""

from __future__ import annotations

import dataclasses
import http.client
import importlib.util
import json
import logging
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ..domain.config import Settings

log = logging.getLogger(__name__)

CACHE_ROUTE = "/_bench/cache"


def app():  # pragma: no cover - runs inside the gunicorn worker
    """gunicorn app factory: the REST app for ``$HOUKAI_COLLECTION`` plus the cache route."""
    from flask import jsonify

    from ..api.rest import create_app
    from ..app.service import MemoryService
    from ..domain.config import load_settings
    from ..engines.embeddings import QueryCache

    settings = load_settings()
    service = MemoryService(settings, actor="bench")
    store = service.store(settings.collection)  # load the model before the first request
    store.embedder.encode(["warm up"])
    flask_app = create_app(settings, service, tokens="")

    def cache_view():
        from flask import request

        if request.method == "POST":
            store.query_cache = QueryCache(store.embedder, settings.query_cache_size)
        cache = store.query_cache
        return jsonify(hits=cache.hits, misses=cache.misses, size=cache.size, items=len(cache))

    flask_app.add_url_rule(CACHE_ROUTE, "bench_cache", cache_view, methods=["GET", "POST"])
    return flask_app


def settings_env(settings: Settings) -> dict[str, str]:
    """Every setting as a ``HOUKAI_*`` variable, so the server resolves exactly *settings*."""
    env: dict[str, str] = {}
    for f in dataclasses.fields(Settings):
        value = getattr(settings, f.name)
        env[f"HOUKAI_{f.name.upper()}"] = (
            ("true" if value else "false") if isinstance(value, bool) else str(value)
        )
    if settings.redis_url:
        env["REDIS_URL"] = settings.redis_url
    return env


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RestServer:
    """``gunicorn --workers 1 --threads N --keep-alive`` serving :func:`app` on loopback."""

    def __init__(
        self,
        settings: Settings,
        collection: str,
        *,
        threads: int = 4,
        start_timeout: float = 300,
        app_spec: str = "houkai.bench.recall_rest:app()",
    ) -> None:
        self.settings = settings.replace(collection=collection, http_tokens="")
        self.threads = threads
        self.app_spec = app_spec
        self.start_timeout = start_timeout
        self.port = _free_port()
        self.proc: subprocess.Popen | None = None
        fd, name = tempfile.mkstemp(prefix="houkai-bench-rest-", suffix=".log")
        os.close(fd)
        self._log_path = Path(name)

    def _gunicorn(self) -> list[str]:
        candidate = Path(sys.executable).parent / "gunicorn"
        if candidate.exists():
            return [str(candidate)]
        if importlib.util.find_spec("gunicorn") is not None:  # installed without its script
            return [sys.executable, "-m", "gunicorn"]
        raise RuntimeError("gunicorn is not installed in this environment")

    def __enter__(self) -> RestServer:
        env = dict(os.environ)
        env.update(settings_env(self.settings))
        env["HOUKAI_CONFIG"] = str(self._log_path.with_suffix(".absent.toml"))
        env.setdefault("TQDM_DISABLE", "1")
        args = [
            *self._gunicorn(),
            "--bind",
            f"127.0.0.1:{self.port}",
            "--workers",
            "1",
            "--threads",
            str(self.threads),
            "--worker-class",
            "gthread",
            "--keep-alive",
            "60",
            "--timeout",
            "300",
            "--log-level",
            "warning",
            self.app_spec,
        ]
        with self._log_path.open("wb") as log_file:
            self.proc = subprocess.Popen(
                args, env=env, stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True
            )
        deadline = time.monotonic() + self.start_timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the benchmark REST server exited: {self._tail()}")
            try:
                self.cache("GET")
                return self
            except (OSError, http.client.HTTPException):
                if time.monotonic() > deadline:
                    tail = self._tail()
                    self.__exit__()
                    raise RuntimeError(f"the benchmark REST server did not start: {tail}") from None
                time.sleep(0.3)

    def _tail(self) -> str:
        try:
            return self._log_path.read_text(errors="replace")[-1500:]
        except OSError:
            return "(no log)"

    def cache(self, method: str = "GET") -> dict[str, Any]:
        """Read (GET) or reset (POST) the server's query-cache counters."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request(method, CACHE_ROUTE)
            resp = conn.getresponse()
            body = resp.read()
            if resp.status != 200:
                raise http.client.HTTPException(f"{CACHE_ROUTE}: HTTP {resp.status}")
            return json.loads(body)
        finally:
            conn.close()

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._log_path.unlink(missing_ok=True)
