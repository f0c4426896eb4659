"""``houkai stats`` (with ``--health``) and ``houkai doctor``."""

from __future__ import annotations

import time
from typing import Any

import click

from .. import Context, pass_ctx
from ..output import echo_json, output_options, print_mapping, short_id, truncate
from ._ops import arguments, operation_options


def health_report(
    ctx: Context, *, stale_days: float, decay_rate: float | None, frequency_weight: float | None
) -> dict[str, Any]:
    """The service's decay report, its most recalled texts cut for a terminal."""
    report = ctx.service.decay_report(
        stale_days=stale_days,
        decay_rate=decay_rate,
        frequency_weight=frequency_weight,
        collection=ctx.collection,
    )
    for row in report["top_recalled"]:
        row["text"] = truncate(row["text"], 60)
    return report


@click.command("stats")
@operation_options("stats")
@output_options
@pass_ctx
def stats(
    ctx: Context,
    health: bool,
    stale_days: float,
    decay_rate: float | None,
    frequency_weight: float | None,
) -> None:
    """Counts by type and tag for the collection (and optionally its health)."""
    data: dict[str, Any] = {k: v for k, v in ctx.call("stats").items() if k != "health"}
    if health:  # only on request, as in the seed (scripts read the plain counts)
        data["health"] = health_report(
            ctx, stale_days=stale_days, decay_rate=decay_rate, frequency_weight=frequency_weight
        )
    if ctx.fmt != "table":
        print_mapping(ctx.fmt, data)
        return
    basic = {k: v for k, v in data.items() if k != "health"}
    print_mapping(ctx.fmt, basic, title=f"Collection {ctx.collection}")
    if health:
        h = dict(data["health"])
        top = h.pop("top_recalled")
        hist = h.pop("decay_histogram")
        print_mapping(ctx.fmt, h, title="Health")
        widest = max(hist.values()) or 1
        for label, count in hist.items():
            bar = "█" * round(count / widest * 20)
            click.echo(f"  {label}  {count:>7}  {bar}")
        for row in top:
            click.echo(f"  {short_id(row['id'])}  recalled {row['access_count']}×  {row['text']}")


# --------------------------------------------------------------------------- doctor
def _check(checks: list[dict[str, Any]], name: str, fn) -> Any:
    started = time.perf_counter()
    try:
        detail = fn() or {}
        ok = bool(detail.pop("ok", True))
    except Exception as exc:
        detail, ok = {"error": f"{type(exc).__name__}: {' '.join(str(exc).split())}"}, False
    detail["ms"] = round((time.perf_counter() - started) * 1000, 1)
    checks.append({"name": name, "ok": ok, **detail})
    return ok


@click.command("doctor")
@output_options
@pass_ctx
def doctor(ctx: Context) -> None:
    """Check config, Redis Stack, the index, the embedder and the journal; exit 1 on failure."""
    from ...domain.config import config_path

    s = ctx.settings
    checks: list[dict[str, Any]] = []
    path = config_path()
    _check(
        checks,
        "config",
        lambda: {
            "collection": s.collection,
            "key_prefix": s.key_prefix,
            "redis": s.redis_url or f"embedded ({s.data_dir})",
            "embedder": s.embedder,
            "config_file": str(path) + ("" if path.is_file() else " (absent)"),
        },
    )
    holder: dict[str, Any] = {}

    def backend() -> dict[str, Any]:
        # doctor prepares what it checks (index included), as `houkai up` does
        store = holder["store"] = ctx.store()
        store.client.ping()
        return {"url": s.redis_url or f"embedded ({s.data_dir})"}

    if not _check(checks, "redis", backend):
        _finish(ctx, checks)
        return
    store = holder["store"]
    _check(
        checks,
        "store",
        lambda: {
            "collection": store.collection_name,
            "count": store.count(),
            "index": store.keys.index,
        },
    )

    def embedder() -> dict[str, Any]:
        return dict(store.probe_embedding())

    _check(checks, "embedder", embedder)

    def dimension() -> dict[str, Any]:
        raw = store.client.hget(store.keys.meta, "dim")
        stored = int(raw) if raw else None
        return {
            "ok": stored in (None, store.embedder.dimension),
            "index_dim": stored,
            "embedder_dim": store.embedder.dimension,
        }

    _check(checks, "embed_dim", dimension)
    readiness = getattr(store, "readiness", None)
    if callable(readiness):

        def ready() -> dict[str, Any]:
            report = readiness()
            checks = report.get("checks") or {}
            failed = [name for name, c in checks.items() if not c.get("ok")]
            return {"ok": bool(report.get("ready")), "failed": ",".join(failed) or None}

        _check(checks, "readiness", ready)
    _check(
        checks,
        "journal",
        lambda: {"enabled": s.journal_enabled, "entries": len(store.journal)},
    )
    _check(checks, "findable", lambda: _findability(store.findability()))
    _check(checks, "words", lambda: _words(store))
    _finish(ctx, checks)


def _words(store: Any) -> dict[str, Any]:
    """The doctor line of how the collection's words are counted and indexed, and its
    update links inferred: a collection an earlier release wrote misses words by keyword,
    or links to the facts its updates replace, until ``collections migrate``."""
    from ...store.lexmigrate import words_current
    from ...store.updates import links_current

    client, key = store.client, store.keys.lexstats
    missed = [
        what
        for what, current in (
            ("some words are not found by keyword", words_current(client, key)),
            ("some updates are not linked to the facts they replace", links_current(client, key)),
        )
        if not current
    ]
    if not missed:
        return {"ok": True, "indexed": "as this release reads them"}
    name, vector_type = store.collection_name, store.vector_type
    # a warning, not a failure: recall works, some words are found by meaning only
    return {
        "ok": True,
        "warning": "indexed by an earlier release: " + "; ".join(missed),
        "fix": f"houkai collections migrate {name} --vector-type {vector_type}",
    }


def _findability(report: dict[str, Any] | None) -> dict[str, Any]:
    """The doctor line of a collection's last findability check."""
    if report is None:
        return {"ok": True, "checked": "not yet (`houkai findable` checks now)"}
    return {
        "ok": bool(report.get("ok")),
        "own_vector": report.get("own_vector"),
        "own_text": report.get("own_text"),
        "own_word": report.get("own_word"),
        "sampled": report.get("sampled"),
        "checked": time.strftime("%Y-%m-%d %H:%M", time.localtime(report["checked_at"])),
        "hint": None if report.get("ok") else "run `houkai findable` (repairs the graph)",
    }


@click.command("findable")
@operation_options("check_findable")
@output_options
@pass_ctx
def findable(ctx: Context, **values: Any) -> None:
    """Ask a sample of memories for by their own vector, text and rare words; re-insert into
    the HNSW graph what its vector misses. Exits 1 when the collection is under the
    threshold."""
    report = ctx.call("check_findable", **arguments(values))
    if ctx.fmt == "json":
        echo_json(report)
    else:
        print_mapping(ctx.fmt, {k: v for k, v in report.items() if k not in _MISSED})
        for name in _MISSED:
            if report.get(name):
                click.echo(f"{name}: {' '.join(short_id(i) for i in report[name])}")
    if not report.get("ok"):
        raise click.exceptions.Exit(1)


#: The report's lists of missed memories, printed as short ids below its table.
_MISSED = ("missed_text", "missed_vector", "missed_word")


def _finish(ctx: Context, checks: list[dict[str, Any]]) -> None:
    ok = all(c["ok"] for c in checks)
    if ctx.fmt == "json":
        echo_json({"ok": ok, "checks": checks})
    else:
        for c in checks:
            extras = " ".join(
                f"{k}={v}" for k, v in c.items() if k not in ("name", "ok") and v is not None
            )
            click.echo(f"{'[ok]' if c['ok'] else '[!!]'} {c['name']:<10} {extras}")
        click.echo("OK — ready" if ok else "NOT READY — see the failures above")
    if not ok:
        raise click.exceptions.Exit(1)


def register(cli: click.Group) -> None:
    cli.add_command(stats)
    cli.add_command(doctor)
    cli.add_command(findable)
