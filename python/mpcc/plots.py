"""PNG plots of a results folder: throughput, cwnd, RTT and queue length over time.

Uses matplotlib's object API with the Agg backend (no display, no global figure state)."""

from __future__ import annotations

from pathlib import Path

# (file, table, column, y label, scale, skip zeros): one line per flow or link.
# An srtt of 0 means "no sample yet" (e.g. before a flow starts) and is not drawn.
PLOTS = [
    ("throughput.png", "flow", "throughput_bps", "throughput (Mbit/s)", 1e-6, False),
    ("cwnd.png", "flow", "cwnd", "cwnd (segments)", 1.0, False),
    ("rtt.png", "flow", "srtt_s", "smoothed RTT (ms)", 1e3, True),
    ("queue.png", "link", "queue_packets", "queue length (packets)", 1.0, False),
]


def plot_results(out) -> list[Path]:
    """Draws every plot whose data the results folder has; returns the files written."""
    from . import output

    out = Path(out)
    _, flow_series, link_series = output.read(out)
    tables = {"flow": flow_series, "link": link_series}
    written = []
    for filename, key, column, ylabel, scale, skip_zeros in PLOTS:
        df = tables[key]
        if column in df and key in df and len(df):
            if skip_zeros:
                df = df[df[column] != 0]
            _line_plot(df, key, column, ylabel, scale, out / filename)
            written.append(out / filename)
    return written


def _line_plot(df, key: str, column: str, ylabel: str, scale: float, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 3.5), dpi=100, layout="constrained")
    ax = fig.subplots()
    names = list(dict.fromkeys(df[key]))  # order of first appearance
    for name in names:
        rows = df[df[key] == name].sort_values("t_s")
        ax.plot(rows["t_s"], rows[column] * scale, label=str(name), linewidth=1.2)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    if 1 < len(names) <= 12:
        ax.legend(title=key, loc="best", fontsize="small")
    elif len(names) == 1:
        ax.set_title(f"{key} {names[0]}", fontsize="medium")
    fig.savefig(path, metadata={"Software": None})
