"""PNG plots of a results folder: throughput, cwnd, RTT and queue length over time.

Flows draw one line each, labelled by name; a multipath flow (more than one
subflow) draws one line per subflow, labelled "NAME/ID", and on the throughput plot
also its connection goodput, labelled "NAME". A single-path flow's throughput line
is its goodput (data delivered in order), as before connections existed.

Uses matplotlib's object API with the Agg backend (no display, no global figure state)."""

from __future__ import annotations

from pathlib import Path

# (file, column, y label, scale, skip zeros): one line per flow or subflow.
# An srtt of 0 means "no sample yet" (e.g. before a flow starts) and is not drawn.
FLOW_PLOTS = [
    ("cwnd.png", "cwnd", "cwnd (segments)", 1.0, False),
    ("rtt.png", "srtt_s", "smoothed RTT (ms)", 1e3, True),
]
THROUGHPUT = "throughput.png"
QUEUE = ("queue.png", "queue_packets", "queue length (packets)", 1.0)


def plot_results(out) -> list[Path]:
    """Draws every plot whose data the results folder has; returns the files written."""
    from . import output

    out = Path(out)
    _, flow_series, link_series = output.read(out)
    written = []
    if "flow" in flow_series and len(flow_series):
        fs = flow_series if "subflow" in flow_series else flow_series.assign(subflow=0)
        title = "flow/subflow" if _multipath(fs) else "flow"
        lines = _throughput_lines(fs)
        if lines:
            _line_plot(lines, "throughput (Mbit/s)", title, out / THROUGHPUT)
            written.append(out / THROUGHPUT)
        for filename, column, ylabel, scale, skip_zeros in FLOW_PLOTS:
            if column in fs:
                _line_plot(_subflow_lines(fs, column, scale, skip_zeros), ylabel, title, out / filename)
                written.append(out / filename)
    filename, column, ylabel, scale = QUEUE
    if column in link_series and "link" in link_series and len(link_series):
        lines = [(name, rows["t_s"], rows[column] * scale, "-") for name, rows in _groups(link_series, "link")]
        _line_plot(lines, ylabel, "link", out / filename)
        written.append(out / filename)
    return written


def _groups(df, key):
    """(value, rows sorted by time) per value of `key`, in order of first appearance."""
    for name in dict.fromkeys(df[key]):
        yield name, df[df[key] == name].sort_values("t_s")


def _multipath(fs) -> set:
    """Names of the flows with more than one subflow."""
    counts = fs.groupby("flow", sort=False)["subflow"].nunique()
    return set(counts[counts > 1].index)


def _subflow_lines(fs, column, scale, skip_zeros, style="-"):
    multi = _multipath(fs)
    lines = []
    for name, rows in _groups(fs, "flow"):
        for sf, sub in _groups(rows, "subflow"):
            if skip_zeros:
                sub = sub[sub[column] != 0]
            label = f"{name}/{sf}" if name in multi else str(name)
            lines.append((label, sub["t_s"], sub[column] * scale, style if name in multi else "-"))
    return lines


def _throughput_lines(fs):
    """Per-subflow throughput (dashed) and connection goodput of multipath flows; the
    goodput of single-path flows. Folders written before `goodput_bps` existed hold
    the goodput in `throughput_bps`."""
    goodput = "goodput_bps" if "goodput_bps" in fs else "throughput_bps"
    if goodput not in fs:
        return []
    multi = _multipath(fs)
    lines = []
    for name, rows in _groups(fs, "flow"):
        if name in multi and "throughput_bps" in fs:
            lines += _subflow_lines(rows, "throughput_bps", 1e-6, False, style="--")
        conn = rows.drop_duplicates("t_s")
        lines.append((str(name), conn["t_s"], conn[goodput] * 1e-6, "-"))
    return lines


def _line_plot(lines, ylabel: str, title: str, path: Path) -> None:
    """`lines`: (label, x, y, linestyle)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 3.5), dpi=100, layout="constrained")
    ax = fig.subplots()
    for label, x, y, style in lines:
        ax.plot(x, y, style, label=_literal(label), linewidth=1.2)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    if 1 < len(lines) <= 12:
        ax.legend(title=title, loc="best", fontsize="small")
    elif len(lines) == 1:
        ax.set_title(f"{title} {_literal(lines[0][0])}", fontsize="medium")
    fig.savefig(path, metadata={"Software": None})


def _literal(name, limit: int = 60) -> str:
    """A flow or link name as plain text: a `$` would start matplotlib's mathtext (and a
    name like "$\\frac{$" would make the plot fail); a very long name is cut, since
    laying out a 100 000-character legend takes tens of seconds."""
    text = str(name)
    if len(text) > limit:
        text = text[: limit - 1] + "\u2026"
    return text.replace("$", r"\$")
