"""Click options generated from an operation's parameter model.

``cli_options(get("recall"))`` gives one :class:`click.Option` per parameter
(``--min-importance``; the declared short flag, e.g. ``-k``), typed from the
model: bounded ints/floats → ``IntRange``/``FloatRange``, ``Literal`` enums →
``Choice``, lists → ``multiple=True``, booleans → ``--x/--no-x`` flags. Required
parameters become arguments when listed in *arguments*. The option's default is
``None`` (unset) so the service applies the declared default; the help text
shows it. Values still go through :func:`check_arguments`, like every door.
"""

from __future__ import annotations

import json
from typing import Any

import click

from .schema import model_schema
from .spec import Operation


def _scalar(schema: dict[str, Any]) -> dict[str, Any]:
    """The scalar branch of *schema*: of an ``anyOf``, a string (it carries every
    form, e.g. a timestamp's "7d") before a number; arrays and objects never."""
    options = schema.get("anyOf", ())
    for kind in ("string", "number", "integer"):
        for option in options:
            if option.get("type") == kind:
                return option
    return schema


def _is_flag(schema: dict[str, Any]) -> bool:
    kinds = [schema.get("type"), *(o.get("type") for o in schema.get("anyOf", ()))]
    return "boolean" in kinds and not {"string", "number", "integer"} & set(map(str, kinds))


def _list_item(schema: dict[str, Any]) -> dict[str, Any] | None:
    if schema.get("type") == "array":
        return schema.get("items", {})
    for option in schema.get("anyOf", ()):
        if option.get("type") == "array":
            return option.get("items", {})
    return None


class IntChoice(click.Choice):
    """A ``Literal`` of ints (polarity -1/0/1): chosen as text, passed on as an int."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        return int(super().convert(str(value), param, ctx))


class JsonText(click.ParamType):
    """An object parameter (``ingest --documents '{"text": …}'``): JSON text, parsed."""

    name = "json"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value
        try:
            return json.loads(value)
        except ValueError as exc:
            self.fail(f"not JSON: {exc}", param, ctx)


def _is_object(schema: dict[str, Any]) -> bool:
    return schema.get("type") == "object" or "properties" in schema or "$ref" in schema


def click_type(schema: dict[str, Any]) -> Any:
    """The click parameter type for one JSON-Schema property."""
    enum = schema.get("enum", ())
    if enum and all(isinstance(v, int) and not isinstance(v, bool) for v in enum):
        return IntChoice([str(v) for v in enum])
    if "enum" in schema:
        return click.Choice([str(v) for v in schema["enum"]])
    kind = schema.get("type")
    lo = schema.get("minimum", schema.get("exclusiveMinimum"))
    hi = schema.get("maximum")
    if kind == "integer":
        return click.IntRange(lo, hi) if lo is not None or hi is not None else click.INT
    if kind == "number":
        if lo is None and hi is None:
            return click.FLOAT
        return click.FloatRange(lo, hi, min_open="exclusiveMinimum" in schema)
    return click.STRING


def cli_options(
    op: Operation, *, arguments: tuple[str, ...] | None = None, skip: tuple[str, ...] = ()
) -> list[click.Parameter]:
    """One click parameter per field of *op* (those in *arguments*, default the
    operation's CLI binding's, as positionals; its variadic one takes several values)."""
    schema = model_schema(op.params)
    binding = op.cli
    if arguments is None:
        arguments = binding.arguments if binding else ()
    variadic = binding.variadic if binding else ""
    optional = set(binding.optional) if binding else set()
    defaults = dict(binding.defaults) if binding else {}
    required = set(schema.get("required", ())) - optional
    out: list[click.Parameter] = []
    for name, prop in schema["properties"].items():
        if name in skip:
            continue
        if name in arguments:
            nargs = -1 if name == variadic else 1
            out.append(click.Argument([name], required=name in required, nargs=nargs))
            continue
        flag = "--" + name.replace("_", "-")
        decls = [flag] + ([op.short[name]] if name in op.short else [])
        help_text = prop.get("description", "")
        if name in defaults:
            help_text += f" [default here: {defaults[name]}]"
        elif "default" in prop:
            help_text += f" [default: {prop['default']}]"
        item = _list_item(prop)
        if _is_flag(prop):
            decls = [f"{flag}/--no-{flag[2:]}", *decls[1:]]
            out.append(click.Option(decls, name, default=None, help=help_text))
        elif item is not None and prop.get("type") != "object":
            kind = JsonText() if _is_object(item) else click_type(item)
            out.append(
                click.Option(decls, name, type=kind, multiple=True, default=(), help=help_text)
            )
        else:
            out.append(
                click.Option(
                    decls,
                    name,
                    type=click_type(_scalar(prop)),
                    required=name in required,
                    default=None,
                    help=help_text,
                )
            )
    return out


def collect(values: dict[str, Any]) -> dict[str, Any]:
    """Click values → operation arguments: unset (None, empty ``multiple``) dropped."""
    return {
        k: (list(v) if isinstance(v, tuple) else v)
        for k, v in values.items()
        if v is not None and v != ()
    }
