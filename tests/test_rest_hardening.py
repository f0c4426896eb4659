"""Hardening of the REST front door: job scoping, the body cap on chunked bodies,
error mapping (only validation is a 400; other bugs are 500s with a request id),
and the docs page under a trailing slash."""

from __future__ import annotations

import io
import uuid

import pytest
from click.testing import CliRunner
from houkai.api import mcp_server
from houkai.api.rest import create_app

from houkai.app.service import MemoryService
from houkai.cli import cli
from houkai.domain.config import set_settings

TOKENS = "admin-t,ro-a:{a}:ro,rw-a:{a}"


@pytest.fixture()
def two(settings, make_store, embedder):
    """A REST app with collections a and b, a job in each, and tokens scoped to a."""
    a, b = f"ha-{uuid.uuid4().hex[:8]}", f"hb-{uuid.uuid4().hex[:8]}"
    s = settings.replace(collection=a, pipeline_mode="inline", http_max_body=4096)
    service = MemoryService(s, actor="http")
    for name in (a, b):
        service._stores[name] = make_store(name, actor="http")
    job_a = service.remember_many(["job of collection a"], wait=True, collection=a)["job_id"]
    job_b = service.remember_many(["secret of collection b"], wait=True, collection=b)["job_id"]
    app = create_app(s, service, tokens=TOKENS.format(a=a))
    return {
        "app": app,
        "client": app.test_client(),
        "service": service,
        "settings": s,
        "a": a,
        "b": b,
        "job_a": job_a,
        "job_b": job_b,
    }


def _get(env, path, token):
    return env["client"].get(path, headers={"Authorization": f"Bearer {token}"})


def test_a_job_is_invisible_outside_its_collection_over_rest(two):
    a, b, job_b = two["a"], two["b"], two["job_b"]
    for path in (f"/c/{a}/jobs/{job_b}", f"/jobs/{job_b}", f"/jobs/{job_b}?collection={a}"):
        r = _get(two, path, "ro-a")
        assert r.status_code == 404, (path, r.get_json())
        assert "secret" not in r.get_data(as_text=True) and b not in r.get_data(as_text=True)
    # even an admin token sees it only in its own collection
    assert _get(two, f"/c/{a}/jobs/{job_b}", "admin-t").status_code == 404
    r = _get(two, f"/c/{b}/jobs/{job_b}", "admin-t")
    assert r.status_code == 200 and r.get_json()["collection"] == b
    assert _get(two, f"/c/{a}/jobs/{two['job_a']}", "ro-a").status_code == 200
    listed = {j["id"] for j in _get(two, f"/c/{a}/jobs", "ro-a").get_json()["jobs"]}
    assert listed == {two["job_a"]}
    assert _get(two, f"/c/{b}/jobs/{job_b}", "ro-a").status_code == 403


def test_a_job_is_invisible_outside_its_collection_over_mcp_and_cli(two, settings, tmp_path):
    mcp_server.set_service(two["service"])
    try:
        with pytest.raises(Exception, match="no job"):
            mcp_server.call_tool("job", {"job_id": two["job_b"], "collection": two["a"]})
        got = mcp_server.call_tool("job", {"job_id": two["job_b"], "collection": two["b"]})
        assert got["id"] == two["job_b"]
        listed = mcp_server.call_tool("jobs", {"collection": two["a"]})
        assert [j["id"] for j in listed] == [two["job_a"]]
    finally:
        mcp_server.set_service(None)
    env = {
        "REDIS_URL": settings.redis_url,
        "HOUKAI_KEY_PREFIX": settings.key_prefix,
        "HOUKAI_DATA_DIR": settings.data_dir,
        "HOUKAI_CONFIG": str(tmp_path / "absent.toml"),
        "HOUKAI_COLLECTION": two["a"],
        "HOUKAI_PIPELINE_MODE": "inline",
    }
    try:
        runner = CliRunner()
        shown = runner.invoke(cli, ["jobs", "show", two["job_b"]], env=env)
        assert shown.exit_code == 1 and "no job" in shown.output
        for verb in ("cancel", "retry"):
            other = runner.invoke(cli, ["jobs", verb, two["job_b"]], env=env)
            assert other.exit_code == 1 and "no job" in other.output, other.output
        own = runner.invoke(cli, ["jobs", "show", two["job_a"], "--json"], env=env)
        assert own.exit_code == 0, own.output
    finally:
        set_settings(settings)


def _chunked(env, path, payload: bytes, token="admin-t"):
    """A body with no Content-Length, framed by the server (as chunked input is)."""
    return env["client"].open(
        path,
        method="POST",
        input_stream=io.BytesIO(payload),
        headers={
            "Authorization": f"Bearer {token}",
            "Transfer-Encoding": "chunked",
            "Content-Type": "application/json",
        },
        environ_overrides={"wsgi.input_terminated": True},
    )


def test_chunked_body_over_the_cap_is_413_not_truncated(two):
    over = b'{"text": "chunked"' + b" " * 5000 + b"}"
    r = _chunked(two, "/memories", over)
    assert r.status_code == 413 and "too large" in r.get_json()["error"]
    assert two["service"].stats(collection=two["a"])["count"] == 1  # nothing stored
    r = _chunked(two, "/memories?wait=true", b'{"text": "small chunked body"}')
    assert r.status_code == 201, r.get_json()
    exact = b'{"text": "x"' + b" " * (4096 - 13) + b"}"
    assert len(exact) == 4096
    assert _chunked(two, "/memories", exact).status_code in (201, 202)
    # a server that does not frame chunked input: refused, not read as an empty body
    r = two["client"].open(
        "/memories",
        method="POST",
        input_stream=io.BytesIO(b'{"text": "lost?"}'),
        headers={
            "Authorization": "Bearer admin-t",
            "Transfer-Encoding": "chunked",
            "Content-Type": "application/json",
        },
    )
    assert r.status_code == 411 and "Content-Length" in r.get_json()["error"]


def test_docs_page_loads_the_document_with_or_without_a_trailing_slash(two):
    for path in ("/docs", "/docs/"):
        r = two["client"].get(path)
        page = r.get_data(as_text=True)
        assert r.status_code == 200 and 'fetch("/openapi.json")' in page, path
    assert two["client"].get("/openapi.json").status_code == 200
    assert two["client"].get("/docs/openapi.json").status_code == 404


def test_a_bare_value_error_is_a_500_with_a_request_id_not_a_400(two, caplog):
    """Only validation errors are 400s: an unexpected ValueError is a server bug."""

    def broken(*_a, **_kw):
        raise ValueError("internal invariant broke")

    two["service"].stats = broken
    r = two["client"].get(f"/c/{two['a']}/stats", headers={"Authorization": "Bearer admin-t"})
    body = r.get_json()
    assert r.status_code == 500 and set(body) == {"error", "request_id"}
    assert "invariant" not in r.get_data(as_text=True)
    assert body["request_id"] == r.headers["X-Request-Id"]
    assert any(body["request_id"] in rec.getMessage() for rec in caplog.records)
    r = two["client"].get(
        f"/c/{two['a']}/recall?query=x&k=0", headers={"Authorization": "Bearer admin-t"}
    )
    assert r.status_code == 400 and "k" in r.get_json()["error"]


def test_get_patch_delete_never_treat_batch_as_a_memory_id(two):
    h = {"Authorization": "Bearer admin-t"}
    for method in ("GET", "PATCH", "DELETE"):
        r = two["client"].open(f"/c/{two['a']}/memories/batch", method=method, headers=h)
        assert r.status_code == 405 and "POST" in r.headers["Allow"], method


@pytest.mark.parametrize(
    ("path", "body", "param"),
    [
        ("/recall", '{"query": "x", "min_importance": NaN}', "min_importance"),
        ("/recall", '{"query": "x", "mode": "hybrid", "min_cosine": NaN}', "min_cosine"),
        ("/recall", '{"query": "x", "diversity": Infinity}', "diversity"),
        ("/recall", '{"query": "x", "dedup_threshold": NaN}', "dedup_threshold"),
        ("/recall", '{"query": "x", "expand": {"score": -Infinity}}', "expand.score"),
        ("/memories", '{"text": "x", "timeout": NaN}', "timeout"),
    ],
)
def test_nan_and_infinity_are_refused_by_name(two, path, body, param):
    """Python's JSON reads NaN and Infinity; JSON Schema's bounds let NaN through. Each is
    a 400 naming the parameter, never a 500 (a NaN bound is a Redis syntax error) nor a
    filter that silently drops everything, nor a write that waits forever."""
    r = two["client"].post(
        path,
        data=body,
        headers={"Authorization": "Bearer admin-t", "Content-Type": "application/json"},
    )
    assert r.status_code == 400, r.get_json()
    assert r.get_json()["error"].startswith(f"{param}: must be a finite number"), r.get_json()


def test_a_refused_write_leaves_no_collection_behind(two):
    """Only a write that adds memories creates its collection: an undo or a restore aimed
    at a mistyped name is refused, and the name stays unknown."""
    client = two["client"]
    auth = {"Authorization": "Bearer admin-t"}
    fresh = f"fresh-{uuid.uuid4().hex[:8]}"
    undo = client.post(f"/c/{fresh}/undo", json={}, headers=auth)
    assert undo.status_code == 404 and fresh in undo.get_json()["error"]
    restore = client.post(f"/c/{fresh}/restore", json={"memory_id": "nope"}, headers=auth)
    assert restore.status_code == 404
    for path in (f"/c/{fresh}/jobs/nope", f"/c/{fresh}/jobs"):  # the job reads too
        assert client.get(path, headers=auth).status_code == 404, path
    listed = client.get("/collections", headers=auth).get_json()["collections"]
    assert fresh not in {c["name"] for c in listed}
    assert client.get(f"/c/{fresh}/stats", headers=auth).status_code == 404
    # the first write that adds a memory creates it, as the manual says
    made = client.post(f"/c/{fresh}/memories", json={"text": "now it exists"}, headers=auth)
    assert made.status_code in (200, 201, 202), made.get_json()
    listed = client.get("/collections", headers=auth).get_json()["collections"]
    assert fresh in {c["name"] for c in listed}
    two["service"].store(fresh).drop()


def test_a_client_names_its_actor_in_a_header(two):
    """X-Houkai-Actor signs what the request journals (the CLI says "cli"); a name that is
    no short lower-case label is a 400, and without the header the server signs."""
    client, a = two["client"], two["a"]
    auth = {"Authorization": "Bearer admin-t"}
    made = client.post(
        f"/c/{a}/memories",
        json={"text": "signed by a bot", "wait": True},
        headers={**auth, "X-Houkai-Actor": "bot-7"},
    )
    assert made.status_code in (200, 201), made.get_json()
    bad = client.post(
        f"/c/{a}/memories", json={"text": "x"}, headers={**auth, "X-Houkai-Actor": "Robert'); --"}
    )
    assert bad.status_code == 400 and "X-Houkai-Actor" in bad.get_json()["error"]
    taken = client.post(
        f"/c/{a}/memories", json={"text": "x"}, headers={**auth, "X-Houkai-Actor": "import"}
    )
    assert taken.status_code == 400 and "houkai's own" in taken.get_json()["error"]
    tail = client.get(f"/c/{a}/journal?n=1", headers=auth).get_json()
    entries = tail["entries"] if isinstance(tail, dict) else tail
    assert entries[0]["actor"] == "bot-7"
