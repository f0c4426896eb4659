"""The suite's picture: R@5 per kind (or category) for the plain blend, the defaults and
RRF on every set, and each stage's effect (R@5 on minus off) per set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .suite import split_of

SHOWN = ("plain", "defaults", "rrf")


def plot(result: dict[str, Any], path: str | Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .suite import scored_sets
    from .suite import verdicts as verdicts_of

    panels = scored_sets(result)
    cols = min(3, len(panels) + 1)
    rows = -(-(len(panels) + 2) // cols)  # a spare cell for the sets' key of the stages
    fig, grid = plt.subplots(rows, cols, figsize=(5.2 * cols, 4.2 * rows), squeeze=False)
    axes = [ax for row in grid for ax in row]
    for ax in axes[len(panels) + 1 :]:
        ax.axis("off")
    for ax, (name, entry) in zip(axes, panels, strict=False):
        modes = [m for m in entry["modes"] if m["mode"] in SHOWN]
        parts = list(
            (modes[0].get("by_kind") or modes[0].get("by_category") or {}) if modes else {}
        )
        groups = ["all", *parts]
        width = 0.8 / max(1, len(modes))
        for i, m in enumerate(modes):
            table = m.get("by_kind") or m.get("by_category") or {}
            values = [m["recall@5"], *(table.get(p, {}).get("recall@5", 0.0) for p in parts)]
            ax.bar([x + i * width for x in range(len(groups))], values, width, label=m["mode"])
        ax.set_xticks(
            [x + 0.4 - width / 2 for x in range(len(groups))], groups, fontsize=7, rotation=30
        )
        ax.set_ylim(0, 1.05)
        split = split_of(result, name)
        ax.set_title(f"{name} ({split}): R@5 per kind or category", fontsize=9)
        ax.legend(fontsize=7, loc="lower right")
    ax = axes[len(panels)]
    verdicts = verdicts_of(result)
    stages = list(dict.fromkeys(v["stage"] for v in verdicts))
    sets = list(dict.fromkeys(v["set"] for v in verdicts))
    width = 0.8 / max(1, len(sets))
    # one colour per set: the default cycle repeats after ten, tab20 after twenty
    palette = [plt.get_cmap(name)(i) for name in ("tab20", "tab20b") for i in range(20)]
    for i, s in enumerate(sets):
        values = [
            next((v["delta_r5"] for v in verdicts if v["stage"] == st and v["set"] == s), 0.0)
            for st in stages
        ]
        ax.bar(
            [x + i * width for x in range(len(stages))],
            values,
            width,
            label=s,
            color=palette[i % len(palette)],
        )
    ax.axhline(0, color="black", linewidth=0.6)
    ticks = [x + 0.4 - width / 2 for x in range(len(stages))]
    ax.set_xticks(ticks, stages, fontsize=8, rotation=45, ha="right")
    ax.set_title("Each stage: R@5 on − off", fontsize=9)
    handles, labels = ax.get_legend_handles_labels()  # the key in the spare cell, not over the bars
    axes[len(panels) + 1].legend(
        handles, labels, fontsize=8, loc="center left", title="sets (stage panel)"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
