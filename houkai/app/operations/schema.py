"""JSON Schema of an operation's parameters, and validation against it.

One schema per operation, generated from its pydantic model: MCP publishes it
as the tool's ``inputSchema``, the agent examples as the provider tool's
parameters, OpenAPI as the request body / query parameters, and every door
validates arguments against it here, so what a door publishes is exactly what
it accepts and every door words an error the same way (``name: problem``).
"""

from __future__ import annotations

import copy
import inspect
import json
import math
from functools import cache
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema

from houkai.domain.errors import BadRequest
from houkai.domain.model import ValidationError, check_unicode, leaves

from .spec import Operation

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError as SchemaError


class InvalidArgument(BadRequest, ValidationError):
    """A refused argument: a 400 / tool error / ``Error:`` line naming the parameter."""


NULLABLE = "x-nullable"  # marks a field where ``null`` is a meaningful value


class _Flat(GenerateJsonSchema):
    """Tool-friendly schemas: no titles, ``X | None`` published as ``X``."""

    def nullable_schema(self, schema: Any) -> Any:
        return self.generate_inner(schema["schema"])

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        if "$ref" in node:
            target = defs[node["$ref"].rsplit("/", 1)[-1]]
            return _inline({**target, **{k: v for k, v in node.items() if k != "$ref"}}, defs)
        out = {}
        for key, value in node.items():
            if key == "title" and isinstance(value, str):
                continue
            if key == "default" and value is None:
                continue
            out[key] = _inline(value, defs)
        if out.pop(NULLABLE, False):
            kind = out.get("type")
            if isinstance(kind, str):
                out["type"] = [kind, "null"]
        return out
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


@cache
def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema, flattened (no ``$defs``), properties in declaration order."""
    raw = model.model_json_schema(schema_generator=_Flat)
    defs = raw.pop("$defs", {})
    schema = _inline(raw, defs)
    props = schema.get("properties", {})
    schema["properties"] = {name: props[name] for name in field_order(model)}
    schema["additionalProperties"] = False
    return schema


def field_order(model: type[BaseModel]) -> list[str]:
    """The model's fields: its own and its bases' (base first), then those of the
    shared groups it mixes in (``group = True``: filters, ranking, compression)."""
    classes = [c for c in reversed(model.__mro__) if issubclass(c, BaseModel)]
    own = [c for c in classes if not c.__dict__.get("group", False)]
    groups = [c for c in model.__mro__ if c.__dict__.get("group", False)]
    order: list[str] = []
    for cls in [*own, *groups]:
        for name in inspect.get_annotations(cls):
            if name in model.model_fields and name not in order:
                order.append(name)
    return order


def params_schema(op: Operation) -> dict[str, Any]:
    """A fresh copy of *op*'s parameter schema (callers may extend it)."""
    return copy.deepcopy(model_schema(op.params))


# --------------------------------------------------------------------------- validation

#: Compiled validators by schema object: schemas passed to :func:`check_value` live as
#: long as the process (built once: the models', the routes'), or this would grow per call.
_VALIDATORS: dict[int, tuple[dict[str, Any], Draft202012Validator]] = {}


def check_value(schema: dict[str, Any], value: Any, name: str = "") -> None:
    """Raise :class:`InvalidArgument` ``"name: problem"`` when *value* breaks *schema*
    (or holds a string that is not valid Unicode: a lone surrogate)."""
    _check_leaves(value, name)
    entry = _VALIDATORS.get(id(schema))
    if entry is None:
        from jsonschema import Draft202012Validator

        entry = _VALIDATORS[id(schema)] = (schema, Draft202012Validator(schema))
    errors = sorted(entry[1].iter_errors(value), key=lambda e: (len(e.absolute_path), e.path))
    if errors:
        raise InvalidArgument(describe(errors[0], name))


def _check_leaves(value: Any, name: str) -> None:
    """Refuse, in one walk over *value*, a string that is not valid Unicode (a lone
    surrogate: :func:`~houkai.domain.model.check_unicode`) and NaN or ±Infinity. Python's
    JSON reads those numbers and no parameter means anything by them: JSON Schema's
    bounds let NaN through (NaN < 0 is false), and past them a NaN bound is a Redis syntax
    error or a filter that drops everything."""
    for path, leaf in leaves(value, name):
        if isinstance(leaf, str):
            try:
                check_unicode(leaf, path)
            except ValidationError as exc:
                raise InvalidArgument(str(exc)) from None
        elif isinstance(leaf, float) and not math.isfinite(leaf):
            where = f"{path}: " if path else ""
            raise InvalidArgument(f"{where}must be a finite number, got {leaf}")


_TYPES = {
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "boolean": "a boolean (true/false)",
    "array": "a list",
    "object": "an object",
    "null": "null",
}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "…"


def _kinds(schema: Any) -> str:
    kind = schema.get("type", schema.get("const", "?")) if isinstance(schema, dict) else "?"
    kinds = kind if isinstance(kind, list) else [kind]
    return " or ".join(_TYPES.get(str(k), str(k)) for k in kinds)


def describe(error: SchemaError, name: str = "") -> str:
    """One error as ``"param: problem"``: the parameter path, what is allowed, what came."""
    path = ".".join(str(p) for p in [*([name] if name else []), *error.absolute_path])
    where = f"{path}: " if path else ""
    got = _short(error.instance)
    value = error.validator_value
    kind = error.validator
    if kind == "type":
        return f"{where}expected {_kinds(error.schema)}, got {got}"
    if kind == "enum":  # worded as the store's own vocabulary checks word it
        subject = f"{path} " if path else ""
        return f"{subject}must be one of {', '.join(map(str, value))} — got {got}"
    if kind == "const":
        return f"{where}must be {json.dumps(value)}, got {got}"
    if kind == "minimum":
        return f"{where}must be >= {value}, got {got}"
    if kind == "maximum":
        return f"{where}must be <= {value}, got {got}"
    if kind == "exclusiveMinimum":
        return f"{where}must be > {value}, got {got}"
    if kind == "minLength":
        return f"{where}must not be empty" if value == 1 else f"{where}at least {value} characters"
    if kind == "maxLength":
        return f"{where}at most {value} characters (got {len(error.instance)})"
    if kind == "minProperties":
        fields = ", ".join(error.schema.get("properties", {}))
        allowed = f" ({fields})" if fields else ""
        return f"{where}give at least {value} field{'s' if value != 1 else ''}{allowed}, got {got}"
    if kind == "minItems":
        return f"{where}needs at least {value} item(s)"
    if kind == "maxItems":
        return f"{where}at most {value} item(s) (got {len(error.instance)})"
    if kind == "pattern":
        from .fields import PATTERN_MEANINGS

        meaning = PATTERN_MEANINGS.get(value)
        if meaning:
            return f"{where}{meaning}, got {got}"
        return f"{where}{got} does not match {value!r}"
    if kind in ("anyOf", "oneOf") and all("required" in s for s in value):
        names = " or ".join(str(s["required"][0]) for s in value)
        return f"{where}give {'at least' if kind == 'anyOf' else 'exactly'} one of {names}"
    if kind in ("anyOf", "oneOf"):
        # A value of a type one branch takes failed inside that branch: say why there.
        inner = [e for e in error.context or () if e.validator != "type" or e.relative_path]
        if inner:
            return describe(min(inner, key=lambda e: len(e.relative_path)), name)
        return f"{where}expected {' or '.join(_kinds(s) for s in value)}, got {got}"
    if kind == "required":
        return f"{where}{error.message}"
    if kind == "additionalProperties":
        return f"{where}{error.message}"
    if kind == "not" and isinstance(value, dict) and len(value.get("required", ())) == 2:
        first, second = value["required"]
        return f"{where}pass either {first} or {second}, not both"
    if kind == "not":
        return f"{where}{error.message}"
    message = error.message if len(error.message) < 300 else error.message[:300] + "…"
    return f"{where}{message}"


def check_arguments(op: Operation, arguments: dict[str, Any]) -> dict[str, Any]:
    """Validate *arguments* (nulls already dropped) against *op*; returns them unchanged.

    Unknown and missing arguments, then each value against its schema. The
    ``collection`` of a collection-bound operation is the door's to resolve.
    """
    schema = model_schema(op.params)
    props = schema["properties"]
    collection = op.scope == "collection" and "collection" in arguments
    unknown = sorted(set(arguments) - set(props) - ({"collection"} if collection else set()))
    if unknown:
        allowed = [*props, *(["collection"] if op.scope == "collection" else [])]
        raise InvalidArgument(
            f"{op.name}: unknown argument(s) {unknown}; allowed: {', '.join(allowed) or '(none)'}"
        )
    missing = [p for p in schema.get("required", ()) if p not in arguments]
    if missing:
        raise InvalidArgument(f"{op.name}: missing required argument(s) {missing}")
    for name, value in arguments.items():
        if name in props:
            check_value(props[name], value, name)
    check_whole(op, {k: v for k, v in arguments.items() if k in props})
    return arguments


def _kinds_of(schema: dict[str, Any]) -> set[str]:
    kinds: list[Any] = [schema.get("type"), *(o.get("type") for o in schema.get("anyOf", ()))]
    flat = {str(k) for kind in kinds for k in (kind if isinstance(kind, list) else [kind]) if k}
    enum = schema.get("enum", ())
    if enum and all(isinstance(v, int) and not isinstance(v, bool) for v in enum):
        flat.add("integer")
    return flat


def _lax(schema: dict[str, Any], value: Any, strings: bool = True) -> Any:
    """*value* as the scalar kind *schema* takes, when it spells one (``"3"``, ``"true"``,
    ``6.0`` for an integer; inside objects too); anything else as is. ``strings=False``
    only turns JSON's integral numbers into ints (a wire door's already-checked values)."""
    from houkai.domain.coerce import as_bool

    if isinstance(value, dict):
        for branch in (schema, *schema.get("anyOf", ())):
            props = branch.get("properties")
            if props:
                return {
                    k: _lax(props[k], v, strings) if k in props else v for k, v in value.items()
                }
        return value
    kinds = _kinds_of(schema)
    if isinstance(value, float) and value.is_integer() and "integer" in kinds - {"number"}:
        return int(value)  # JSON's 6.0 is the integer 6
    if not strings or not isinstance(value, str) or "string" in kinds:
        return value
    try:
        if "integer" in kinds and value.strip().lstrip("+-").isdigit():
            return int(value)
        if "number" in kinds:
            return float(value)
        if "boolean" in kinds:
            return as_bool(value, "")
    except (ValueError, BadRequest):
        pass
    return value


def coerce_arguments(
    op: Operation, arguments: dict[str, Any], *, strings: bool = True
) -> dict[str, Any]:
    """Library callers' strings as the declared scalars (``k="3"``, ``explain="true"``):
    the lax step before :func:`check_arguments`; a value that spells nothing stays
    as is, so the check words the error as every door does. ``strings=False``: only
    JSON's ``6.0`` as the integer 6 (after a strict check, which accepts it)."""
    props = model_schema(op.params)["properties"]
    return {
        name: _lax(props[name], value, strings) if name in props else value
        for name, value in arguments.items()
    }


def check_whole(op: Operation, arguments: dict[str, Any]) -> None:
    """The cross-field rules of the model (``not``, ``anyOf``, ``oneOf``,
    ``minProperties``), if any."""
    rules = _whole_rules(op.params)
    if rules:
        check_value(rules, arguments)


@cache
def _whole_rules(model: type[BaseModel]) -> dict[str, Any]:
    """*model*'s cross-field rules as one schema, built once: the validator
    :func:`check_value` compiles is kept per schema object, so a schema built anew for
    every call would keep one more each time."""
    schema = model_schema(model)
    return {k: v for k, v in schema.items() if k in ("not", "anyOf", "oneOf", "minProperties")}
