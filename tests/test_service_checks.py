"""One validation per call, whatever the door (issue 11, "validation once, at the boundary").

Every schema check goes through :func:`houkai.app.operations.schema.check_value`
(``check_arguments`` calls it per parameter, REST's own checks call it on the
query values or the body). These tests count the *calls of* ``check_arguments``
and the checks REST/MCP would make on their own, for one call through REST, MCP
(``call_tool`` → ``dispatch``), the CLI and the library: exactly one
``check_arguments`` each, and no check of the door's own beside it.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner
from houkai.api import mcp_server, validation
from houkai.api.rest import create_app

from houkai.app.operations import bind, schema
from houkai.app.service import MemoryService
from houkai.cli import cli
from houkai.domain.config import set_settings


@pytest.fixture(scope="module")
def world(settings, embedder) -> Iterator[dict[str, Any]]:
    name = f"checks-{uuid.uuid4().hex[:8]}"
    s = settings.replace(collection=name, pipeline_mode="inline")
    service = MemoryService(s, actor="http")
    service.remember("The deploy pipeline runs on Fridays", type="procedural")
    yield {"collection": name, "service": service, "settings": s}
    service.store(name).drop()


@pytest.fixture()
def counts(monkeypatch) -> dict[str, int]:
    """How often the one check and the doors' own checks ran."""
    seen = {"check_arguments": 0, "door": 0}
    real = schema.check_arguments

    def counted(op, arguments):
        seen["check_arguments"] += 1
        return real(op, arguments)

    real_value = validation.check_value

    def door_value(*a: Any, **kw: Any) -> None:
        seen["door"] += 1
        real_value(*a, **kw)

    monkeypatch.setattr(bind, "check_arguments", counted)
    monkeypatch.setattr("houkai.app.service.check_arguments", counted)
    monkeypatch.setattr(validation, "check_value", door_value)
    return seen


def test_rest_checks_once(world, counts):
    client = create_app(world["settings"], world["service"]).test_client()
    r = client.post("/recall", json={"query": "deploy", "k": 2, "touch": False})
    assert r.status_code == 200, r.get_json()
    r2 = client.get("/memories?limit=3&type=procedural")
    assert r2.status_code == 200
    # JSON's 2.0 is the integer 2: the strict check accepts it and the store gets an int
    r3 = client.post("/recall", json={"query": "deploy", "k": 2.0, "touch": False})
    assert r3.status_code == 200, r3.get_json()
    assert counts == {"check_arguments": 3, "door": 0}


def test_rest_still_refuses_what_the_schema_forbids_with_one_check(world, counts):
    client = create_app(world["settings"], world["service"]).test_client()
    r = client.post("/recall", json={"query": "deploy", "k": "3"})  # JSON text, not a number
    assert r.status_code == 400
    assert r.get_json()["error"].startswith("k: expected an integer")
    r = client.get("/memories?limit=-1")
    assert r.status_code == 400 and r.get_json()["error"].startswith("limit: must be >= 0")
    assert counts == {"check_arguments": 2, "door": 0}


def test_mcp_checks_once_and_strictly(world, counts):
    mcp_server.set_service(world["service"])
    try:
        found = mcp_server.call_tool("recall", {"query": "deploy", "k": 2, "touch": False})
        assert found and found[0]["id"]
        assert counts["check_arguments"] == 1
        with pytest.raises(Exception, match="k: expected an integer"):
            mcp_server.call_tool("recall", {"query": "deploy", "k": "2"})
        assert counts["check_arguments"] == 2
    finally:
        mcp_server.set_service(None)
    assert counts["door"] == 0


def test_library_checks_once_and_leniently(world, counts):
    service = world["service"]
    assert service.recall("deploy", k="2", touch=False)  # a library string is coerced
    assert counts == {"check_arguments": 1, "door": 0}


def test_strict_covers_each_door_level_call_and_ends_with_the_block(world, counts):
    service = world["service"]
    with bind.strict():
        assert service.recall("deploy", k=2, touch=False)
        with pytest.raises(ValueError, match="k: expected an integer"):
            service.recall("deploy", k="2")  # still the door's strict check
    assert service.recall("deploy", k="2", touch=False)  # the library's again
    assert counts["check_arguments"] == 3


def test_cli_checks_once(world, counts, settings):
    s = world["settings"]
    env = {
        "REDIS_URL": s.redis_url,
        "HOUKAI_KEY_PREFIX": s.key_prefix,
        "HOUKAI_DATA_DIR": s.data_dir,
        "HOUKAI_COLLECTION": world["collection"],
        "HOUKAI_PIPELINE_MODE": "inline",
        "HOUKAI_CONFIG": "/nonexistent/houkai.toml",
    }
    try:
        result = CliRunner().invoke(
            cli, ["--format", "json", "recall", "deploy", "-k", "2", "--no-touch"], env=env
        )
    finally:
        set_settings(settings)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)
    assert counts == {"check_arguments": 1, "door": 0}
