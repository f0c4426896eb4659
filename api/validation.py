"""Request validation against the same JSON Schemas the OpenAPI document publishes.

The route table declares each operation's query parameters and body once; the
server checks requests against exactly those schemas before the service sees
them, so what ``/openapi.json`` forbids is refused (400) and the document
cannot promise more than the server accepts. The service still validates
values (ranges it knows best); the schema carries the same bounds so both agree.
"""

from __future__ import annotations

import math
import re
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError as SchemaError
from werkzeug.routing import BaseConverter

from houkai.domain.errors import BadRequest

from .routes import Route

_INT = re.compile(r"^[+-]?\d{1,20}$")
_TRUE = {"true", "1"}
_FALSE = {"false", "0"}


class MemoryIdConverter(BaseConverter):
    """A ``/memories/{id}`` segment that is never the literal ``batch``, so
    ``/memories/batch`` is only ever the batch route (GET on it is a 405)."""

    regex = r"(?!batch(?![^/]))[^/]+"


# Route schemas are module-level constants: one compiled validator each, keyed by
# identity (the schema is kept alongside so its id cannot be reused).
_VALIDATORS: dict[int, tuple[dict[str, Any], Draft202012Validator]] = {}


def _check(schema: dict[str, Any], value: Any, where: str) -> None:
    entry = _VALIDATORS.get(id(schema))
    if entry is None:
        entry = _VALIDATORS[id(schema)] = (schema, Draft202012Validator(schema))
    errors = sorted(entry[1].iter_errors(value), key=lambda e: list(e.absolute_path))
    if errors:
        raise BadRequest(_describe(errors[0], where))


def _describe(error: SchemaError, where: str) -> str:
    path = ".".join(str(p) for p in error.absolute_path)
    field = f"{where} field {path!r}" if path else where
    if error.validator in ("oneOf", "anyOf"):
        expected = ", ".join(
            str(s.get("type", s.get("const", "?"))) for s in error.validator_value or ()
        )
        return f"{field}: expected one of {expected}, got {_short(error.instance)}"
    if error.validator == "additionalProperties":
        return f"{field}: {error.message}"
    if error.validator == "minProperties":
        return f"{field}: must contain at least {error.validator_value} field(s)"
    if error.validator == "pattern":
        return f"{field}: {_short(error.instance)} does not match {error.validator_value!r}"
    return f"{field}: {error.message if len(error.message) < 300 else error.message[:300] + '…'}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "…"


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
    """Typed query values, validated against the route's declared parameter schemas."""
    typed: dict[str, Any] = {}
    for name, raw in values.items():
        schema = route.query[name]
        value = _query_value(schema, raw)
        _check(schema, value, f"query parameter {name!r}")
        typed[name] = value
    return typed


def check_body(route: Route, data: Any) -> None:
    """Refuse a body the route's declared schema does not allow (400 naming the field)."""
    if route.body is not None:
        _check(route.body, data, "body")
