"""Click options generated from the operation registry (:mod:`houkai.app.operations`).

A command decorated with :func:`operation_options` takes every parameter its
operation declares — type, bounds, enum choices, default shown in the help,
the short flag declared once in the registry — so a parameter added to the
operation reaches the CLI with no CLI edit. Its callback gets the click values
and hands :func:`arguments` of them to the service, the path REST and MCP take.
*aliases* adds a command's extra spellings (short flags); the older ones (``--budget``,
``-g``, ``recall --limit``) come from :mod:`houkai.compat`;
*overrides* sets attributes of a generated parameter where the CLI is more
lenient than the wire (``--expires-at`` also takes ISO-8601, so a string the
command parses; ``TEXT`` optional because stdin can give it).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

import click

from ...app.operations.spec import Switch, Terminal
from ...compat import CLI_SPELLINGS, CLI_SPELLINGS_BY_OPERATION


def operation_options(
    operation: str,
    *,
    arguments: tuple[str, ...] | None = None,
    aliases: Mapping[str, tuple[str, ...]] | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Add the click parameters of *operation* and of its CLI binding (positionals,
    switches such as ``--apply``, ``--yes``); *arguments* overrides the binding's."""
    from ...app.operations import get
    from ...app.operations.cli import cli_options

    op = get(operation)
    binding = op.cli
    extra = {
        **CLI_SPELLINGS,  # the older spellings, fenced in houkai.compat
        **CLI_SPELLINGS_BY_OPERATION.get(operation, {}),
        **(aliases or {}),
    }
    params = cli_options(op, arguments=arguments)
    for param in params:
        if isinstance(param, click.Option):
            # cli_options passes the name positionally, where click.Option takes
            # show_default: the help already carries the declared default.
            param.show_default = False
            param.opts.extend(a for a in extra.get(param.name or "", ()) if a not in param.opts)
        for attr, value in (overrides or {}).get(param.name or "", {}).items():
            setattr(param, attr, value)
    switches = binding.switches if binding else ()
    defaults = dict(binding.defaults) if binding else {}
    for switch in switches:
        params.append(
            click.Option(
                [switch.flag, _dest(switch)], is_flag=True, help=switch.help, show_default=False
            )
        )
    if binding and binding.confirm:
        params.append(confirm_option())
    spans = dict(binding.spans) if binding else {}
    for span_flag, seconds in spans.items():
        params.append(
            click.Option(
                [span_flag, _flag_dest(span_flag)],
                metavar="SPAN",
                help=f"As --{seconds.replace('_', '-')}, a span: 90s, 30m, 24h, 7d, 2w.",
            )
        )
    deadlines = dict(binding.deadlines) if binding else {}
    for span_flag, stamp in deadlines.items():
        params.append(
            click.Option(
                [span_flag, _flag_dest(span_flag)],
                metavar="SPAN",
                help=f"Set --{stamp.replace('_', '-')} this span from now: 90s, 30m, 24h, 7d.",
            )
        )
    for option in binding.terminal if binding else ():
        params.append(terminal_option(option))
    if binding and binding.all_collections:
        params.append(
            click.Option(
                ["--all-collections"],
                is_flag=True,
                help="Run on every collection.",
                show_default=False,
            )
        )

    from ..output import DECLARED_BY

    for param in params:
        setattr(param, DECLARED_BY, operation)

    floors = {param: _floor(op, param) for param in spans.values()}

    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        if any(s.param for s in switches) or defaults or spans or deadlines:
            f = _bind(f, switches, defaults, spans, deadlines, floors)
        memo: list[click.Parameter] = f.__dict__.setdefault("__click_params__", [])
        memo.extend(reversed(params))  # click reverses the list when it builds the command
        return f

    return decorate


def confirm_option() -> click.Option:
    """``--yes/-y``: the one confirmation flag of destructive commands."""
    return click.Option(
        ["--yes", "-y", "yes"],
        is_flag=True,
        help="Do not ask for confirmation.",
        show_default=False,
    )


def terminal_option(option: Terminal) -> click.Option:
    """The click option of a terminal-only flag declared in an operation's CLI binding."""
    from ...app.operations.cli import click_type

    decls = [option.flag, *([option.short] if option.short else []), _flag_dest(option.flag)]
    if option.schema is None:
        return click.Option(decls, is_flag=True, help=option.help, show_default=False)
    return click.Option(
        decls,
        type=click_type(dict(option.schema)),
        default=option.default,
        show_default=option.default is not None,
        help=option.help,
    )


def _flag_dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def _dest(switch: Switch) -> str:
    return _flag_dest(switch.flag)


def _bind(
    f: Callable[..., Any],
    switches: tuple[Switch, ...],
    defaults: Mapping[str, Any],
    spans: Mapping[str, str],
    deadlines: Mapping[str, str] | None = None,
    floors: Mapping[str, tuple[float, bool]] | None = None,
) -> Callable[..., Any]:
    """*f* with its switches, spans and deadlines turned into the parameters they set,
    then the CLI's defaults."""
    import time

    from ...domain.config import parse_duration

    @functools.wraps(f)
    def bound(*args: Any, **values: Any) -> Any:
        for flag, param, from_now in [
            *((flag, param, False) for flag, param in spans.items()),
            *((flag, param, True) for flag, param in (deadlines or {}).items()),
        ]:
            span = values.pop(_flag_dest(flag), None)
            if span is None:
                continue
            if values.get(param) is not None:
                option = "--" + param.replace("_", "-")
                raise click.UsageError(f"pass at most one of {flag} and {option}")
            try:
                seconds = parse_duration(span)
            except ValueError as exc:
                raise click.BadParameter(str(exc), param_hint=flag) from None
            # named by the flag typed: a deadline lies ahead, a span keeps its parameter's bound
            low, strict = (0.0, True) if from_now else (floors or {}).get(param, (0.0, False))
            if seconds < low or (strict and seconds == low):
                bound = f"> {low:g}" if strict else f">= {low:g}"
                raise click.BadParameter(f"must be {bound}, got {span!r}", param_hint=flag)
            values[param] = time.time() + seconds if from_now else seconds
        for switch in (s for s in switches if s.param):
            if values.pop(_dest(switch), False):
                given = values.get(switch.param)
                if given not in (None, ()) and given != switch.value:
                    option = "--" + switch.param.replace("_", "-")
                    raise click.UsageError(f"{switch.flag} contradicts {option}")
                values[switch.param] = switch.value
        for name, value in defaults.items():
            if values.get(name) is None:
                values[name] = value
        return f(*args, **values)

    return bound


def _floor(op: Any, param: str) -> tuple[float, bool]:
    """The lower bound of *op*'s *param* (a span's seconds) and whether it is strict."""
    from ...app.operations.schema import model_schema

    schema = model_schema(op.params)["properties"].get(param, {})
    for option in (schema, *schema.get("anyOf", ())):
        if "exclusiveMinimum" in option:
            return float(option["exclusiveMinimum"]), True
        if "minimum" in option:
            return float(option["minimum"]), False
    return 0.0, False


def arguments(values: Mapping[str, Any]) -> dict[str, Any]:
    """Click values → operation arguments: unset options (None, empty ``multiple``) dropped,
    so the operation's declared defaults apply, as when REST or MCP omit them."""
    from ...app.operations.cli import collect

    return collect(dict(values))
