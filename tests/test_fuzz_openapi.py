"""A bounded Schemathesis pass over ``/openapi.json`` against the Flask app.

For every documented operation (bar the server-path archive routes, whose
policy lives elsewhere) Schemathesis derives positive and negative requests
from the published schema and runs its default checks on each answer: never
a 5xx, status code / content type / response body as declared, a schema-valid
request accepted and a schema-violating one rejected. The ``/c/{collection}``
twins run the same handlers and are left to the longer run whose figures are
in ``changes/hard-api-reliability.md`` (``st run`` against a live server).
"""

from __future__ import annotations

import uuid

import pytest
import schemathesis
from houkai.api.rest import create_app
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from houkai.app.service import MemoryService

TOKEN = "fuzz-admin"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
EXAMPLES = 3  # per operation and mode: bounded, the suite must stay fast


@pytest.fixture(scope="module")
def fuzz_schema(settings, embedder):
    name = f"fz-{uuid.uuid4().hex[:8]}"
    # wrong tokens are not throttled here: a 429 would end the exploration early
    s = settings.replace(
        collection=name,
        pipeline_mode="inline",
        http_max_body=256 * 1024,
        http_auth_max_failures=0,
    )
    service = MemoryService(s, actor="http")
    for text in ("alpha memory about fuzzing", "beta memory about schemas"):
        service.remember(text)
    app = create_app(s, service, tokens=TOKEN)
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app)
    schema = schema.exclude(operation_id_regex="export|import").exclude(path_regex="^/c/")
    yield schema
    service.store(name).drop()


def _fuzz(operation, mode: GenerationMode, failures: list[str]) -> int:
    """Run EXAMPLES generated requests of one operation and mode; returns how many ran."""
    tried = 0

    @hsettings(
        max_examples=EXAMPLES,
        database=None,
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(generation_mode=mode))
    def run(case) -> None:
        nonlocal tried
        tried += 1
        response = case.call(headers=AUTH)
        try:
            case.validate_response(response, headers=AUTH)
        except Exception as exc:  # collected, reported together by the caller
            first = str(exc).strip().splitlines()[:6]
            failures.append(f"{operation.label} [{mode.value}]: {' | '.join(first)}")

    try:
        run()
    except Unsatisfiable:  # nothing to violate (no parameters, no body)
        assert mode is GenerationMode.NEGATIVE, operation.label
    return tried


@pytest.mark.timeout(900)  # bounded, but the shared CI box can be slow
def test_api_conforms_to_its_openapi_document(fuzz_schema):
    failures: list[str] = []
    tried = 0
    for result in fuzz_schema.get_all_operations():
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            tried += _fuzz(result.ok(), mode, failures)
    assert tried >= 100
    assert failures == [], "\n".join(sorted(set(failures)))
