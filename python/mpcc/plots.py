"""Plots of a results folder: throughput, cwnd, RTT and queue length over time, and
each flow's goodput against its delay (PNG, SVG or PDF).

Flows draw one line each, labelled by name; a multipath flow (more than one
subflow) draws one line per subflow, labelled "NAME/ID", and on the throughput plot
also its connection goodput, labelled "NAME". A single-path flow's throughput line
is its goodput (data delivered in order), as before connections existed.

Uses matplotlib's object API with the Agg backend (no display, no global figure state)."""

from __future__ import annotations

from pathlib import Path

# (name, column, y label, scale, skip zeros): one line per flow or subflow.
# An srtt of 0 means "no sample yet" (e.g. before a flow starts) and is not drawn.
FLOW_PLOTS = [
    ("cwnd", "cwnd", "cwnd (segments)", 1.0, False),
    ("rtt", "srtt_s", "smoothed RTT (ms)", 1e3, True),
]
THROUGHPUT = "throughput"
QUEUE = ("queue", "queue_packets", "queue length (packets)", 1.0)
THROUGHPUT_DELAY = "throughput_delay"
# Every plot `mpcc plot --metrics` can name, and the image formats it can write.
# Delay CDFs drawn from delay_cdf.parquet (every sample), one line per flow.
CDFS = {"rtt_cdf": ("rtt", "RTT (ms)"), "app_delay_cdf": ("app_delay", "application delay (ms)")}
METRICS = (THROUGHPUT, "cwnd", "rtt", "queue", THROUGHPUT_DELAY, *CDFS)
DEFAULT_METRICS = METRICS[:4]  # the time series, as `mpcc run` draws them
FORMATS = ("png", "svg", "pdf")


def plot_results(out, flows=None, metrics=None, formats=("png",)) -> list[Path]:
    """Draws the time-series plots whose data the results folder has (or `metrics`,
    any of METRICS, for only `flows`), in each of `formats`; returns the files written."""
    from . import output

    out = Path(out)
    summary, flow_series, link_series = output.read(out)
    wanted = set(DEFAULT_METRICS if metrics is None else metrics)
    if flows is not None and "flow" in flow_series:
        flow_series = flow_series[flow_series["flow"].isin(flows)]
    written = []

    def draw(name, lines, ylabel, title):
        for fmt in formats:
            path = out / f"{name}.{fmt}"
            _line_plot(lines, ylabel, title, path)
            written.append(path)

    if "flow" in flow_series and len(flow_series):
        fs = flow_series if "subflow" in flow_series else flow_series.assign(subflow=0)
        title = "flow/subflow" if _multipath(fs) else "flow"
        lines = _throughput_lines(fs)
        if lines and THROUGHPUT in wanted:
            draw(THROUGHPUT, lines, "throughput (Mbit/s)", title)
        for name, column, ylabel, scale, skip_zeros in FLOW_PLOTS:
            if column in fs and name in wanted:
                draw(name, _subflow_lines(fs, column, scale, skip_zeros), ylabel, title)
    name, column, ylabel, scale = QUEUE
    if column in link_series and "link" in link_series and len(link_series) and name in wanted:
        lines = [(link, rows["t_s"], rows[column] * scale, "-") for link, rows in _groups(link_series, "link")]
        draw(name, lines, ylabel, "link")
    cdf_path = out / output.DELAY_CDF
    if wanted & set(CDFS) and cdf_path.is_file():
        import pandas as pd

        cdf = pd.read_parquet(cdf_path)
        if flows is not None:
            cdf = cdf[cdf["flow"].isin(flows)]
        for name, (metric, xlabel) in CDFS.items():
            rows = cdf[cdf["metric"] == metric]
            if name in wanted and len(rows):
                lines = [(flow, g["delay_s"] * 1e3, g["q"], "-") for flow, g in rows.groupby("flow", sort=False)]
                for fmt in formats:
                    path = out / f"{name}.{fmt}"
                    _line_plot(lines, "fraction of samples", "flow", path, xlabel=xlabel, ylim=(0, 1))
                    written.append(path)
    if THROUGHPUT_DELAY in wanted:
        points = _throughput_delay_points(summary, flows)
        for fmt in formats if points else ():
            path = out / f"{THROUGHPUT_DELAY}.{fmt}"
            _throughput_delay_plot(points, path)
            written.append(path)
    return written


def _throughput_delay_points(summary: dict, flows) -> list:
    """(flow, goodput in Mbit/s, 95th-percentile RTT in ms) of every flow with both."""
    points = []
    for name, f in summary.get("flows", {}).items():
        if flows is not None and name not in flows:
            continue
        rate, delay = f.get("goodput_bps"), f.get("rtt_p95_s")
        if isinstance(rate, (int, float)) and isinstance(delay, (int, float)):
            points.append((name, rate * 1e-6, delay * 1e3))
    return points


def _throughput_delay_plot(points, path: Path) -> None:
    """Each flow's goodput against its 95th-percentile RTT, the delay axis reversed
    (better is up and to the right), as Pantheon draws its summaries."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.5, 4), dpi=100, layout="constrained")
    ax = fig.subplots()
    for name, rate, delay in points:
        ax.plot([delay], [rate], "o")
        ax.annotate(_literal(name), (delay, rate), textcoords="offset points", xytext=(4, 4), fontsize="small")
    ax.set_xlabel("95th-percentile RTT (ms)")
    ax.set_ylabel("goodput (Mbit/s)")
    ax.invert_xaxis()
    ax.grid(True, alpha=0.3)
    fig.savefig(path, metadata=_metadata(path))


def _metadata(path: Path) -> dict:
    """No software or date stamp, so the same data gives the same bytes."""
    return {"png": {"Software": None}, "svg": {"Date": None, "Creator": None},
            "pdf": {"CreationDate": None, "Producer": None, "Creator": None}}[path.suffix[1:]]


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
    # The smoothed goodput never exceeds what arrived (tables.smooth_goodput_bps): no in-order bursts.
    goodput = next(c for c in ("goodput_smooth_bps", "goodput_bps", "throughput_bps") if c in fs or c == "throughput_bps")
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


def _line_plot(lines, ylabel: str, title: str, path: Path, xlabel: str = "time (s)", ylim=None) -> None:
    """`lines`: (label, x, y, linestyle)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 3.5), dpi=100, layout="constrained")
    ax = fig.subplots()
    for label, x, y, style in lines:
        ax.plot(x, y, style, label=_literal(label), linewidth=1.2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    ax.set_xlim(left=0)
    ax.set_ylim(*(ylim or (0, None)))
    if 1 < len(lines) <= 12:
        ax.legend(title=title, loc="best", fontsize="small")
    elif len(lines) == 1:
        ax.set_title(f"{title} {_literal(lines[0][0])}", fontsize="medium")
    fig.savefig(path, metadata=_metadata(path))


def _literal(name, limit: int = 60) -> str:
    """A flow or link name as plain text: a `$` would start matplotlib's mathtext (and a
    name like "$\\frac{$" would make the plot fail); a very long name is cut, since
    laying out a 100 000-character legend takes tens of seconds."""
    text = str(name)
    if len(text) > limit:
        text = text[: limit - 1] + "\u2026"
    return text.replace("$", r"\$")
