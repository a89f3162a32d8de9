"""Drawing helpers for paper figures, and deterministic PNG/SVG output (no dates,
fixed SVG ids), so the same data always gives the same bytes."""

from __future__ import annotations

import math
from pathlib import Path


def new_figure(ncols: int = 1, width: float = 7.0, height: float = 3.6):
    """A matplotlib Figure (Agg, no global state) and its axes (a list if ncols > 1)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width * (1 if ncols == 1 else 0.62 * ncols), height), dpi=100, layout="constrained")
    axes = fig.subplots(1, ncols)
    return fig, (list(axes) if ncols > 1 else axes)


def errorbars(ax, summary, x: str, metric: str, scale: float = 1.0, label: str | None = None, **style):
    """Means with their confidence half-widths (`<metric>_mean`, `<metric>_ci`) against x."""
    import numpy as np

    mean = summary[f"{metric}_mean"].to_numpy(dtype=float) * scale
    ci = summary[f"{metric}_ci"].to_numpy(dtype=float) * scale
    yerr = None if all(math.isnan(c) for c in ci) else np.nan_to_num(ci)
    style = {"marker": "o", "capsize": 4, "linestyle": "none", **style}
    return ax.errorbar(summary[x].to_numpy(dtype=float), mean, yerr=yerr, label=label, **style)


def save(fig, folder: Path, name: str) -> tuple[Path, Path]:
    """Writes `name`.png and `name`.svg into `folder`."""
    import matplotlib

    folder.mkdir(parents=True, exist_ok=True)
    png, svg = folder / f"{name}.png", folder / f"{name}.svg"
    fig.savefig(png, dpi=100, metadata={"Software": None})
    with matplotlib.rc_context({"svg.hashsalt": f"mpcc-{name}", "svg.fonttype": "path"}):
        fig.savefig(svg, metadata={"Date": None, "Creator": None})
    return png, svg


# The per-subflow views users of MPTCP tools ask for: (series column, scale, axis label).
SUBFLOW_VIEWS = (
    ("cwnd", 1.0, "cwnd (segments)"),
    ("srtt_s", 1e3, "smoothed RTT (ms)"),
    ("throughput_bps", 1e-6, "throughput (Mbit/s)"),
)


def plot_subflow(axes, rows, **style) -> None:
    """One subflow's cwnd, RTT and throughput over time onto three axes (SUBFLOW_VIEWS order)."""
    for ax, (column, scale, _) in zip(axes, SUBFLOW_VIEWS):
        ax.plot(rows.t_s, rows[column] * scale, **style)


def label_subflow_axes(axes, xlabel: bool = True) -> None:
    """Axis labels and grids for three axes drawn by `plot_subflow`."""
    for ax, (_, _, ylabel) in zip(axes, SUBFLOW_VIEWS):
        ax.set(ylabel=ylabel, xlabel="time (s)" if xlabel else None)
        ax.grid(True, alpha=0.3)


def subflow_grid(series, by: str, order, colors: dict, subflows=(("path1", "-"), ("path2", "--"))):
    """Per-subflow views in a grid: one column per value of `series[by]` (in `order`),
    one row per view of SUBFLOW_VIEWS, one line per subflow (`series.subflow` labels)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 7), dpi=100, layout="constrained")
    axes = fig.subplots(3, len(order), sharex=True, sharey="row", squeeze=False)
    for col, name in enumerate(order):
        rows = series[series[by] == name]
        column = [a[col] for a in axes]
        for sub, style in subflows:
            r = rows[rows.subflow == sub]
            plot_subflow(column, r, linestyle=style, color=colors[name], linewidth=0.9, label=sub)
        axes[0][col].set_title(name, fontsize="medium")
        for ax in column:
            ax.grid(True, alpha=0.3)
        axes[2][col].set_xlabel("time (s)")
    for ax, (_, _, ylabel) in zip((a[0] for a in axes), SUBFLOW_VIEWS):
        ax.set_ylabel(ylabel)
    axes[0][0].legend(fontsize="x-small")
    return fig


def throughput_vs_delay(runs, by: str, rate: str = "goodput_bps", delay: str = "rtt_p95_s", title: str | None = None):
    """The throughput against 95th-percentile delay summary: one point per run, coloured
    by `by`, with each group's mean marked large."""
    fig, ax = new_figure(height=4.0)
    for i, (name, rows) in enumerate(runs.groupby(by, sort=False)):
        color = f"C{i % 10}"
        ax.plot(rows[delay] * 1e3, rows[rate] * 1e-6, "o", color=color, alpha=0.35, markersize=3)
        ax.plot(rows[delay].mean() * 1e3, rows[rate].mean() * 1e-6, "D", color=color, markersize=8, label=name)
    ax.set(xlabel="95th percentile of RTT (ms)" if delay == "rtt_p95_s" else f"{delay} (ms)",
           ylabel="goodput (Mbit/s)", title=title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="x-small")
    return fig
