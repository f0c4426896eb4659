"""REST request values checked against the schemas the OpenAPI document publishes.

The schemas are the operations' parameter schemas (:mod:`houkai.app.operations`),
checked with the registry's one validator (:func:`check_value`, the same
``param: problem`` wording as MCP and the CLI), so what ``/openapi.json``
forbids is refused (400) and the document cannot promise more than the server
accepts. Here only the query string's text is typed as its schema declares.
"""

from __future__ import annotations

import math
import re
from typing import Any

from werkzeug.routing import BaseConverter

from houkai.app.operations import check_value

from .routes import Route

_INT = re.compile(r"^[+-]?\d{1,20}$")
_TRUE = {"true", "1"}
_FALSE = {"false", "0"}


class MemoryIdConverter(BaseConverter):
    """A ``/memories/{id}`` segment that is never the literal ``batch``, so
    ``/memories/batch`` is only ever the batch route (GET on it is a 405)."""

    regex = r"(?!batch(?![^/]))[^/]+"


def _query_value(schema: dict[str, Any], raw: str) -> Any:
    """A query-string value typed as its schema declares (left a string when it is not)."""
    kinds: list[str] = []
    for option in [schema, *schema.get("anyOf", ()), *schema.get("oneOf", ())]:
        kind = option.get("type", [])
        kinds += kind if isinstance(kind, list) else [kind]
    if "integer" in kinds and _INT.match(raw):
        return int(raw)
    if "number" in kinds:
        try:
            number = float(raw)
        except ValueError:
            pass
        else:
            if math.isfinite(number) and raw.strip() == raw and raw:
                return int(number) if _INT.match(raw) else number
    if "boolean" in kinds:
        if raw.lower() in _TRUE:
            return True
        if raw.lower() in _FALSE:
            return False
    return raw


def check_query(route: Route, values: dict[str, str]) -> dict[str, Any]:
    """Typed query values; validated here only when no bound service method will
    check them (:attr:`Route.self_checked`), so each request is checked once."""
    typed: dict[str, Any] = {}
    for name, raw in values.items():
        schema = route.query[name]
        value = _query_value(schema, raw)
        if not route.self_checked:
            check_value(schema, value, name)
        typed[name] = value
    return typed


def check_body(route: Route, data: Any) -> None:
    """Refuse a body the route's declared schema does not allow (400 naming the field).

    A route served by a bound service method leaves the parameters to that method's
    one (strict) check and checks here only the route's own wire rules (``body_extra``)."""
    if route.body is None:
        return
    if not route.self_checked:
        check_value(route.body, data)
        return
    if route.body_rules is not None:
        check_value(route.body_rules, data)
