"""Issue 27 items 7 and 8: bad rows that slipped through, and smaller holes.

7. Zero-norm vectors (a NaN cosine for every recall meeting one) and lone surrogates
   (unencodable text: a 500, or an import half written) are refused where values are
   validated, so every door answers 400 / a tool error / ``Error:``.
8. Read-only grants change nothing (no access counted), scoped tokens see no
   Redis-wide figures, unauthenticated ``/health`` shows liveness only, an ingest glob
   cannot leave ``export_dir``, wrong tokens are throttled (429), and the 413 / 414 /
   431 answers name their limit in JSON.
"""

from __future__ import annotations

import gzip
import json
import socket
import threading
import uuid

import numpy as np
import pytest
from click.testing import CliRunner
from houkai.api import mcp_server
from houkai.api.rest import JsonErrorHandler, create_app

from houkai.app.auth import FailureLimiter, TooManyFailures, parse_tokens
from houkai.app.service import MemoryService
from houkai.cli import cli
from houkai.domain.config import set_settings
from houkai.domain.model import ValidationError
from houkai.store import codec

LONE = "\ud800"


class App:
    """A REST app over a fresh collection *a* (and *b*), with optional tokens."""

    def __init__(self, settings, make_store, tokens: str | None = None, **overrides) -> None:
        self.a, self.b = f"hi-{uuid.uuid4().hex[:8]}", f"hj-{uuid.uuid4().hex[:8]}"
        self.settings = settings.replace(collection=self.a, pipeline_mode="inline", **overrides)
        self.service = MemoryService(self.settings, actor="http")
        for name in (self.a, self.b):
            self.service._stores[name] = make_store(name, actor="http")
        spec = None if tokens is None else tokens.format(a=self.a, b=self.b)
        self.app = create_app(self.settings, self.service, tokens=spec)
        self.client = self.app.test_client()

    def call(self, method, path, body=None, token=None, raw=None, headers=None, **kw):
        h = dict(headers or {})
        if token:
            h["Authorization"] = f"Bearer {token}"
        if raw is not None:
            h.setdefault("Content-Type", "application/json")
            return self.client.open(path, method=method, data=raw, headers=h, **kw)
        return self.client.open(path, method=method, json=body, headers=h, **kw)


@pytest.fixture()
def app(settings, make_store, embedder):
    return App(settings, make_store)


# --------------------------------------------------------------------------- item 7


def test_zero_and_overflowing_vectors_are_refused_where_vectors_are_checked():
    for bad in (np.zeros(4), np.full(4, 1e-30), np.full(4, 1e20)):
        with pytest.raises(ValidationError, match="zero length"):
            codec.check_vectors(bad, 4)
    with pytest.raises(ValidationError, match=r"row 2"):
        codec.check_vectors([[1, 0, 0, 0], [0, 0, 0, 0]], 4)
    with pytest.raises(ValidationError, match="zero length"):  # rounds to 0 in half precision
        codec.vector_bytes(np.full(4, 1e-9), "FLOAT16")
    with pytest.raises(ValidationError, match="zero length"):
        codec.vector_bytes(np.full(4, 1e-39), "BFLOAT16")
    assert codec.check_vectors([0.0, 0.0, 0.0, 1e-3], 4).shape == (1, 4)


def test_a_store_write_with_a_zero_vector_writes_nothing(make_store):
    store = make_store()
    memory = store.build_memory("a memory with a broken vector")
    with pytest.raises(ValidationError, match="zero length"):
        store.write([memory], np.zeros((1, int(store.index_params.dim)), dtype=np.float32))
    assert store.get(memory.id) is None


def _archive(header: dict, rows: list[dict]) -> bytes:
    return gzip.compress(b"\n".join(json.dumps(x).encode() for x in [header, *rows]))


def _header_and_vector(app: App) -> tuple[dict, list[float]]:
    """The header of a real export of collection *a* and one real vector."""
    app.call("POST", "/memories", {"text": "a memory to take a vector from", "wait": True})
    raw = app.call("GET", "/export").get_data()
    lines = [json.loads(x) for x in gzip.decompress(raw).splitlines()]
    return lines[0], lines[1]["vector"]


def test_an_imported_zero_vector_is_a_reported_row_and_recall_keeps_working(app):
    header, vector = _header_and_vector(app)
    dim = len(vector)
    rows = [
        {"id": "good-1", "text": "Deploys go out on Tuesdays", "vector": vector},
        {"id": "zero-1", "text": "A row whose vector is all zeros", "vector": [0.0] * dim},
    ]
    gz = {"Content-Type": "application/gzip"}
    r = app.call("POST", "/import", raw=_archive(header, rows), headers=gz)
    assert r.status_code == 200, r.get_json()
    out = r.get_json()
    assert out["imported"] == 1 and out["errors_total"] == 1
    assert out["errors"][0]["id"] == "zero-1" and "zero length" in out["errors"][0]["error"]
    assert app.call("GET", "/memories/zero-1").status_code == 404
    for mode in ("semantic", "hybrid"):
        r = app.call("POST", "/recall", {"query": "when do deploys go out", "k": 5, "mode": mode})
        assert r.status_code == 200, r.get_data(as_text=True)
    mcp_server.set_service(app.service)
    try:
        hits = mcp_server.call_tool("recall", {"query": "deploys", "collection": app.a})
        assert {h["id"] for h in hits} >= {"good-1"}
    finally:
        mcp_server.set_service(None)


def test_an_upload_with_one_lone_surrogate_row_writes_the_rest_and_says_so(app):
    """300 good rows and one whose tag is a lone surrogate, past the first write batch
    (256): the first pass reports the row; nothing half written, no 500."""
    header, vector = _header_and_vector(app)
    rows = [
        {"id": f"row-{i}", "text": f"good row number {i}", "vector": vector} for i in range(300)
    ]
    rows.insert(280, {"id": "bad", "text": "bad row", "vector": vector, "meta": {"tags": [LONE]}})
    gz = {"Content-Type": "application/gzip"}
    r = app.call("POST", "/import", raw=_archive(header, rows), headers=gz)
    assert r.status_code == 200, r.get_data(as_text=True)
    out = r.get_json()
    assert out["imported"] == 300 and out["errors_total"] == 1, out
    assert out["errors"][0]["id"] == "bad" and "tags" in out["errors"][0]["error"]
    assert "surrogate" in out["errors"][0]["error"]
    # a surrogate in the id itself: reported by line, never echoed
    rows = [{"id": "x" + LONE, "text": "bad id", "vector": vector}]
    out = app.call("POST", "/import", raw=_archive(header, rows), headers=gz).get_json()
    assert out["errors_total"] == 1 and out["errors"][0]["id"] == "line:2"


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/memories", {"text": "x", "tags": [LONE]}, "tags"),
        ("/memories", {"text": "x", "source": "a" + LONE}, "source"),
        ("/memories", {"text": "x" + LONE}, "text"),
        ("/memories/batch", {"items": [{"text": "ok"}, {"text": "x", "tags": [LONE]}]}, "items"),
        ("/recall", {"query": "deploy " + LONE}, "query"),
        ("/recall", {"query": "deploy", "tag": LONE}, "tag"),
        ("/recall", {"query": "deploy", "source": LONE}, "source"),
    ],
)
def test_lone_surrogates_are_400s_naming_the_field(app, path, body, field):
    raw = json.dumps(body).encode()  # json.dumps writes "\ud800" as an escape, as a client would
    r = app.call("POST", path, raw=raw)
    assert r.status_code == 400, r.get_data(as_text=True)
    error = r.get_json()["error"]
    assert error.startswith(field) and "surrogate" in error, error
    assert app.service.stats(collection=app.a)["count"] == 0


def test_lone_surrogates_are_refused_by_mcp_the_cli_and_the_library(app, settings, tmp_path):
    mcp_server.set_service(app.service)
    try:
        with pytest.raises(Exception, match="query: holds a lone"):
            mcp_server.call_tool("recall", {"query": LONE, "collection": app.a})
        with pytest.raises(Exception, match=r"tags\.0: holds a lone"):
            mcp_server.call_tool("remember", {"text": "x", "tags": [LONE], "collection": app.a})
    finally:
        mcp_server.set_service(None)
    with pytest.raises(ValidationError, match="tag: holds a lone"):
        app.service.recall("deploy", tag=LONE, collection=app.a)
    store = app.service.store(app.a)
    with pytest.raises(ValidationError, match="tags: holds a lone"):
        store.remember("x", tags=[LONE])
    with pytest.raises(ValidationError, match="source: holds a lone"):
        store.remember("x", source=LONE)
    env = {
        "REDIS_URL": settings.redis_url,
        "HOUKAI_KEY_PREFIX": settings.key_prefix,
        "HOUKAI_DATA_DIR": settings.data_dir,
        "HOUKAI_CONFIG": str(tmp_path / "absent.toml"),
        "HOUKAI_COLLECTION": app.a,
        "HOUKAI_PIPELINE_MODE": "inline",
    }
    try:
        result = CliRunner().invoke(cli, ["recall", "deploy\udcff"], env=env)
        assert result.exit_code == 1 and "Error:" in result.output, result.output
        assert "query: holds a lone" in result.output
    finally:
        set_settings(settings)


# --------------------------------------------------------------------------- item 8

TOKENS = "admin-t,ro-t:ro,ro-a:{a}:ro,rw-a:{a}"


@pytest.fixture()
def secured(settings, make_store, embedder):
    return App(settings, make_store, tokens=TOKENS)


def _access(env: App, memory_id: str, token: str = "admin-t") -> tuple[int, float]:
    m = env.call("GET", f"/c/{env.a}/memories/{memory_id}", token=token).get_json()
    return m["access_count"], m["last_accessed"]


def test_read_only_reads_count_no_access(secured):
    r = secured.call(
        "POST",
        f"/c/{secured.a}/memories?wait=true",
        {"text": "Deploys are on Tuesdays"},
        token="admin-t",
    )
    mid = r.get_json()["id"]
    before = _access(secured, mid)
    for token in ("ro-t", "ro-a"):
        for path, body in (
            ("/recall", {"query": "when are deploys", "k": 3}),
            ("/recall_pack", {"query": "when are deploys"}),
            ("/auto_context", {"task": "plan the deploy"}),
        ):
            r = secured.call("POST", f"/c/{secured.a}{path}", body, token=token)
            assert r.status_code == 200, (token, path, r.get_json())
    assert _access(secured, mid) == before
    mcp_server.set_service(secured.service)
    try:
        grant = parse_tokens("ro-a:" + secured.a + ":ro")["ro-a"]
        policy = mcp_server.CallPolicy(grant=grant, allow_server_paths=False)
        mcp_server.call_tool("recall", {"query": "deploys", "collection": secured.a}, policy)
        mcp_server.call_tool("auto_context", {"task": "deploys", "collection": secured.a}, policy)
    finally:
        mcp_server.set_service(None)
    assert _access(secured, mid) == before
    # a read-write token's recall is counted: the check above can see a touch
    secured.call("POST", f"/c/{secured.a}/recall", {"query": "when are deploys"}, token="rw-a")
    assert _access(secured, mid)[0] == before[0] + 1


def test_scoped_tokens_see_no_redis_wide_figures(secured):
    for name in (secured.a, secured.b):
        r = secured.call(
            "POST", f"/c/{name}/memories?wait=true", {"text": f"memory of {name}"}, token="admin-t"
        )
        assert r.status_code == 201
    scoped = secured.call("GET", f"/c/{secured.a}/growth", token="rw-a").get_json()["redis"]
    assert scoped["used_memory"] is None and scoped["bytes_per_memory"] is None
    assert scoped["memories_in_redis"] == 1 and scoped["scope"] == "token"
    wide = secured.call("GET", f"/c/{secured.a}/growth", token="admin-t").get_json()["redis"]
    assert wide["used_memory"] > 0 and wide["memories_in_redis"] >= 2
    pipeline = secured.call("GET", f"/c/{secured.a}/pipeline", token="ro-a").get_json()
    assert pipeline["queues"] == {} and pipeline["workers"] == []
    assert pipeline["server_wide"] is False
    assert secured.call("GET", "/pipeline", token="admin-t").get_json()["server_wide"] is True


def test_unauthenticated_health_shows_only_liveness(secured, app):
    assert secured.call("GET", "/health").get_json() == {"status": "ok"}
    assert secured.call("GET", "/health", token="wrong").get_json() == {"status": "ok"}
    assert "count" in secured.call("GET", "/health", token="ro-a").get_json()
    assert "count" in app.call("GET", "/health").get_json()  # no tokens configured: as before


def test_an_ingest_glob_stays_inside_export_dir(settings, make_store, embedder, tmp_path):
    exports, outside = tmp_path / "exports", tmp_path / "outside"
    (exports / "docs").mkdir(parents=True)
    outside.mkdir()
    (exports / "docs" / "inside.md").write_text("A note inside the export folder.")
    (outside / "secret.md").write_text("A secret outside the export folder.")
    (exports / "docs" / "leak.md").symlink_to(outside / "secret.md")
    env = App(settings, make_store, tokens=TOKENS, export_dir=str(exports))
    r = env.call("POST", "/ingest", {"path": "docs", "glob": "**/*.md"}, token="admin-t")
    assert r.status_code == 403 and "outside" in r.get_json()["error"], r.get_json()
    r = env.call("POST", "/ingest", {"path": "docs/*.md"}, token="admin-t")
    assert r.status_code == 403, r.get_json()
    r = env.call("POST", "/ingest", {"path": "docs", "glob": "/etc/*"}, token="admin-t")
    assert r.status_code == 400 and r.get_json()["error"].startswith("glob"), r.get_json()
    r = env.call("POST", "/ingest", {"path": "docs", "glob": "../outside/*.md"}, token="admin-t")
    assert r.status_code == 403
    assert env.service.stats(collection=env.a)["count"] == 0
    (exports / "docs" / "leak.md").unlink()
    r = env.call("POST", "/ingest", {"path": "docs", "glob": "**/*.md"}, token="admin-t")
    assert r.status_code in (201, 202), r.get_json()
    # a path that names nothing to ingest is a 404 naming it, like an unknown id; the
    # pipeline says so with a type (NothingToIngest), not in words the service matches
    r = env.call("POST", "/ingest", {"path": "absent"}, token="admin-t")
    assert r.status_code == 404 and "no such file or folder" in r.get_json()["error"]
    (exports / "empty").mkdir()
    r = env.call("POST", "/ingest", {"path": "empty"}, token="admin-t")
    assert r.status_code == 404 and "no matching" in r.get_json()["error"], r.get_json()


def test_wrong_tokens_are_throttled_per_address(settings, make_store, embedder):
    env = App(settings, make_store, tokens=TOKENS, http_auth_max_failures=5)
    here, there = {"REMOTE_ADDR": "10.0.0.1"}, {"REMOTE_ADDR": "10.0.0.2"}
    for _ in range(50):  # right tokens and no token are never counted
        assert env.call("GET", "/stats", token="admin-t", environ_base=here).status_code == 200
        assert env.call("GET", "/stats", environ_base=here).status_code == 401
    for _ in range(5):
        assert env.call("GET", "/stats", token="guess", environ_base=here).status_code == 401
    r = env.call("GET", "/stats", token="guess", environ_base=here)
    assert r.status_code == 429 and 1 <= int(r.headers["Retry-After"]) <= 60
    assert "retry after" in r.get_json()["error"]
    # while throttled the address learns nothing: the right token is refused alike
    assert env.call("GET", "/stats", token="admin-t", environ_base=here).status_code == 429
    assert env.call("GET", "/stats", token="admin-t", environ_base=there).status_code == 200


def test_the_failure_window_slides():
    now = [0.0]
    limiter = FailureLimiter(limit=3, window=60, clock=lambda: now[0])
    for t in (0, 10, 20):
        now[0] = t
        limiter.failed("a")
    with pytest.raises(TooManyFailures) as caught:
        limiter.check("a")
    assert caught.value.retry_after == 40
    now[0] = 60.5  # the first failure left the window
    limiter.check("a")
    FailureLimiter(limit=0).failed("a")  # 0: off


def test_413_names_the_limit_that_applied(settings, make_store, embedder):
    env = App(settings, make_store, http_max_body=2048, http_max_upload=4096)
    r = env.call("POST", "/memories", {"text": "x" * 5000})
    assert r.status_code == 413 and "http_max_body = 2048" in r.get_json()["error"]
    gz = {"Content-Type": "application/gzip"}
    r = env.call("POST", "/import", raw=b"\0" * 10_000, headers=gz)
    assert r.status_code == 413, r.get_data(as_text=True)
    assert "http_max_upload = 4096" in r.get_json()["error"]
    assert "http_max_body" not in r.get_json()["error"]


def test_414_and_431_are_json_from_the_app(app):
    r = app.call("GET", "/recall?query=" + "x" * 9000)
    assert r.status_code == 414 and r.mimetype == "application/json"
    assert "8190" in r.get_json()["error"]
    many = {f"X-Filler-{i}": "1" for i in range(120)}
    r = app.call("GET", "/health", headers=many)
    assert r.status_code == 431 and "100" in r.get_json()["error"]
    r = app.call("GET", "/health", headers={"X-Big": "y" * 9000})
    assert r.status_code == 431 and r.mimetype == "application/json"


def _raw_http(port: int, request: bytes) -> tuple[int, str, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    ctype = next(
        (x.split(":", 1)[1].strip() for x in lines if x.lower().startswith("content-type")), ""
    )
    return int(lines[0].split()[1]), ctype, body


def test_the_serve_handler_answers_its_own_early_errors_in_json(app):
    """werkzeug's server refuses a >64 KiB request line (414) and >100 headers (431)
    before the app runs; ``houkai serve`` gives it a handler that answers in JSON."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app.app, threaded=True, request_handler=JsonErrorHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_port
        status, ctype, body = _raw_http(
            port, b"GET /health?" + b"x" * 70_000 + b" HTTP/1.1\r\nHost: localhost\r\n\r\n"
        )
        assert status == 414 and ctype == "application/json" and json.loads(body)["error"]
        headers = b"".join(b"X-H%d: 1\r\n" % i for i in range(150))
        status, ctype, body = _raw_http(
            port, b"GET /health HTTP/1.1\r\nHost: localhost\r\n" + headers + b"\r\n"
        )
        assert status == 431 and ctype == "application/json" and json.loads(body)["error"]
    finally:
        server.shutdown()
