"""``houkai bench locomo`` and ``houkai bench storage``: retrieval quality and storage cost."""

from __future__ import annotations

import click

from ...bench.modes import HELDOUT_DEFAULT, LOCOMO_DEFAULT
from .. import Context, pass_ctx
from ..output import Column, echo_json, output_options, print_rows, resolve_format

DEFAULT_LOCOMO = "../shared/bench-data/locomo10.zip"


@click.command("locomo")
@click.option(
    "--data",
    "data",
    type=click.Path(exists=True, dir_okay=True),
    default=DEFAULT_LOCOMO,
    show_default=True,
    help="locomo10.zip, a folder of its JSON files, or locomo10.json.",
)
@click.option(
    "--modes",
    default=LOCOMO_DEFAULT,
    show_default=True,
    help="Comma-separated: semantic; plain (hybrid without stages), +query, +context, "
    "+prf, +specific (stages added in turn); hybrid (the defaults); hybrid+rrf.",
)
@click.option("--limit", type=click.IntRange(1), help="Only the first N conversations.")
@click.option(
    "--conversations",
    help="A split by position, e.g. 0-4 (the fusion weights' dev split) or 5-9.",
)
@click.option(
    "--reuse",
    is_flag=True,
    help="Keep the collections and reuse them when complete (no re-encoding between runs).",
)
@click.option(
    "--overfetch",
    type=click.IntRange(1, 100),
    default=4,
    show_default=True,
    help="Candidate pool = k × overfetch.",
)
@click.option("--lexical", type=click.FloatRange(0, 1), help="Hybrid lexical weight (β).")
@click.option("--cosine", type=click.FloatRange(0, 1), help="Hybrid cosine weight (α).")
@click.option(
    "--plot",
    "plot_path",
    type=click.Path(dir_okay=False),
    help="Write a PNG of the scores by mode.",
)
@click.option("--keep", is_flag=True, help="Keep the bench-locomo-* collections.")
@click.option(
    "--captions/--no-captions",
    default=False,
    show_default=True,
    help="Append each shared photo's BLIP caption to its turn, as LoCoMo's own "
    "retrieval baseline does ([shares a photo of …]).",
)
@click.option(
    "--embedder",
    help="Backend to score, e.g. minilm-torch, minilm-onnx-int8 (default: the configured one).",
)
@click.option(
    "--vector-type",
    type=click.Choice(["FLOAT16", "BFLOAT16", "FLOAT32"], case_sensitive=False),
    help="Element type of the benchmark collections' vectors (default: vector_type).",
)
@output_options
@pass_ctx
def bench_locomo(
    ctx: Context,
    data: str,
    modes: str,
    limit: int | None,
    overfetch: int,
    lexical: float | None,
    cosine: float | None,
    plot_path: str | None,
    keep: bool,
    captions: bool,
    conversations: str | None,
    reuse: bool,
    embedder: str | None,
    vector_type: str | None,
) -> None:
    """LoCoMo retrieval: recall@5, recall@10 and MRR over the evidence turns (categories 1-4)."""
    from ...bench import locomo
    from ...domain.model import HybridWeights
    from ...engines.embeddings import build_embedder

    settings = ctx.settings
    if embedder:
        build_embedder(embedder)  # an unknown spec fails here, before any work
        settings = settings.replace(embedder=embedder)
    if vector_type:
        settings = settings.replace(vector_type=vector_type.upper())

    options: dict = {"overfetch": overfetch}
    if lexical is not None or cosine is not None:
        defaults = HybridWeights()
        options["weights"] = HybridWeights(
            cosine=defaults.cosine if cosine is None else cosine,
            lexical=defaults.lexical if lexical is None else lexical,
        )
    if plot_path:
        require_matplotlib()
    try:
        result = locomo.run(
            data,
            modes=[m.strip() for m in modes.split(",") if m.strip()],
            limit=limit,
            settings=settings,
            keep=keep,
            recall_options=options,
            conversations=conversations,
            reuse=reuse,
            captions=captions,
        )
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    if plot_path:
        locomo.plot(result, plot_path)
    if resolve_format(ctx.output_format) == "json":
        echo_json(result)
        return
    anchor = result["anchor"]
    rows = [
        {
            "mode": m["mode"],
            "questions": m["questions"],
            "r5": f"{m['recall@5']:.1%}",
            "r10": f"{m['recall@10']:.1%}",
            "mrr": f"{m['mrr']:.3f}",
            "vs": f"{(m['recall@5'] - anchor['recall@5']) * 100:+.1f} pts",
        }
        for m in result["modes"]
    ]
    print_rows(
        resolve_format(ctx.output_format),
        rows,
        [
            Column("mode"),
            Column("questions", justify="right"),
            Column("r5", header="R@5", justify="right"),
            Column("r10", header="R@10", justify="right"),
            Column("mrr", header="MRR", justify="right"),
            Column("vs", header="R@5 vs 49.7%", justify="right"),
        ],
        title=f"LoCoMo: {result['conversations']} conversations, {result['turns']} turns "
        f"({result['embedder']}, {result['vector_type']} vectors)",
    )
    for m in result["modes"]:
        cats = ", ".join(
            f"{name} {c['recall@5']:.1%}/{c['mrr']:.3f}" for name, c in m["by_category"].items()
        )
        click.echo(f"{m['mode']}: R@5/MRR by category: {cats}")


@click.command("heldout")
@click.option(
    "--modes",
    default=HELDOUT_DEFAULT,
    show_default=True,
    help="Comma-separated, as for bench locomo; plain is today's hybrid without stages.",
)
@output_options
@pass_ctx
def bench_heldout(ctx: Context, modes: str) -> None:
    """The held-out set (never tuned on): recall@5 and MRR per query kind and mode."""
    from ...bench import heldout

    try:
        result = heldout.run(
            modes=[m.strip() for m in modes.split(",") if m.strip()], settings=ctx.settings
        )
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    if resolve_format(ctx.output_format) == "json":
        echo_json(result)
        return
    kinds = heldout.KINDS
    rows = [
        {
            "mode": m["mode"],
            "r5": f"{m['recall@5']:.1%}",
            "mrr": f"{m['mrr']:.3f}",
            **{kind: f"{m['by_kind'][kind]['recall@5']:.1%}" for kind in kinds},
        }
        for m in result["modes"]
    ]
    print_rows(
        resolve_format(ctx.output_format),
        rows,
        [
            Column("mode"),
            Column("r5", header="R@5", justify="right"),
            Column("mrr", header="MRR", justify="right"),
            *(Column(kind, header=f"{kind} R@5", justify="right") for kind in kinds),
        ],
        title=f"Held-out: {result['memories']} memories, {result['queries']} queries",
    )


@click.command("fit")
@click.option(
    "--data",
    "data",
    type=click.Path(exists=True, dir_okay=True),
    default=DEFAULT_LOCOMO,
    show_default=True,
    help="locomo10.zip, a folder of its JSON files, or locomo10.json.",
)
@click.option("--conversations", default="0-4", show_default=True, help="The dev split.")
@pass_ctx
def bench_fit(ctx: Context, data: str, conversations: str) -> None:
    """Fit the recall stages' weights per query kind on a LoCoMo dev split (prints JSON)."""
    from ...bench import fit

    try:
        echo_json(fit.run(data, conversations=conversations, settings=ctx.settings))
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None


@click.command("storage")
@click.option("--n", "n", type=click.IntRange(100), default=100_000, show_default=True)
@click.option("--layouts", default="hash,json", show_default=True)
@click.option(
    "--vector-type",
    "vector_type",
    type=click.Choice(["FLOAT32", "FLOAT16", "BFLOAT16"], case_sensitive=False),
    default=None,
    help="Vector type of the HASH layout (default: the configured vector_type).",
)
@output_options
@pass_ctx
def bench_storage(ctx: Context, n: int, layouts: str, vector_type: str | None) -> None:
    """Redis memory per memory for HASH and JSON documents (docs/adr/0001-storage.md)."""
    from ...bench import storage
    from ...db.connection import connect
    from ...engines.embeddings import get_embedder

    client = connect(ctx.settings.redis_url, ctx.settings.data_dir)
    dim = get_embedder().dimension
    measures = {"hash": storage.measure_hash, "json": storage.measure_json}
    results = []
    for name in (x.strip() for x in layouts.split(",") if x.strip()):
        if name not in measures:
            raise click.ClickException(f"unknown layout {name!r}: use hash and/or json")
        if name == "hash":
            vtype = (vector_type or ctx.settings.vector_type).upper()
            results.append(storage.measure_hash(client, n, dim, vector_type=vtype))
            if ctx.settings.exact_knn_max > 0:  # the layout a new collection has (ADR 0069)
                results.append(storage.measure_hash(client, n, dim, vector_type=vtype, exact=True))
        else:
            results.append(measures[name](client, n, dim))
    rows = [
        {
            "layout": r.layout,
            "n": r.n,
            "bytes": round(r.bytes_per_memory),
            "access": round(r.access_bytes_per_memory),
            "per_gb": round(r.memories_per_gb),
            "seconds": round(r.seconds, 1),
        }
        for r in results
    ]
    print_rows(
        resolve_format(ctx.output_format),
        rows,
        [
            Column("layout"),
            Column("n", justify="right"),
            Column("bytes", header="bytes/memory", justify="right"),
            Column("access", header="of which access docs", justify="right"),
            Column("per_gb", header="memories/GB", justify="right"),
            Column("seconds", header="load+index s", justify="right"),
        ],
    )


def require_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise click.ClickException("install houkai[bench] for --plot") from None


def register(cli: click.Group) -> None:
    """Add these benchmarks to ``houkai bench`` (the group lives in :mod:`.bench_cmds`)."""
    from .bench_cmds import bench_group

    bench_group.add_command(bench_locomo)
    bench_group.add_command(bench_heldout)
    bench_group.add_command(bench_fit)
    bench_group.add_command(bench_storage)
