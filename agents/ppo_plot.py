"""Training curves of a run directory (TensorBoard event files) as ``curves.png``."""

from __future__ import annotations

from pathlib import Path

PANELS = [
    ("eval/winrate_vs_random", "eval/winrate_vs_expert_rules", "eval/winrate_vs_expert",
     "charts/winrate_vs_pool"),
    ("losses/policy_loss", "losses/value_loss"),
    ("losses/entropy", "losses/explained_variance"),
    ("charts/SPS",),
    ("losses/kl_ref", "losses/distill_ce", "distill/agreement"),
    ("losses/approx_kl", "losses/clipfrac"),
]


def read_scalars(run_dir: str | Path) -> dict[str, tuple[list[int], list[float]]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    acc.Reload()
    out = {}
    for tag in acc.Tags()["scalars"]:
        ev = acc.Scalars(tag)
        out[tag] = ([e.step for e in ev], [e.value for e in ev])
    return out


def plot_run(run_dir: str | Path, out: str | Path | None = None) -> Path:
    """Plot the main charts of a run into ``out`` (default ``run_dir/curves.png``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = read_scalars(run_dir)
    fig, axes = plt.subplots(2, 3, figsize=(15, 8))
    for ax, tags in zip(axes.flat, PANELS, strict=True):
        for tag in tags:
            if tag in data:
                marker = "." if "eval" in tag else None
                ax.plot(*data[tag], label=tag.split("/", 1)[1], marker=marker)
        ax.set_xlabel("environment steps")
        if ax.lines:
            ax.legend(fontsize=8)
        else:  # a run too short to have logged these tags yet
            ax.text(0.5, 0.5, "not logged yet", ha="center", va="center",
                    transform=ax.transAxes, color="grey")
        ax.grid(alpha=0.3)
    fig.suptitle(Path(run_dir).name)
    fig.tight_layout()
    out = Path(out) if out else Path(run_dir) / "curves.png"
    fig.savefig(out, dpi=80)
    plt.close(fig)
    return out
