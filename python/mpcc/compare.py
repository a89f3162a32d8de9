"""`mpcc compare A B`: two results folders side by side, typically a simulation
and a testbed run of the same scenario (docs/outputs.md, "Comparing two runs").

The report (report.md and index.html, with PNG plots) has, per flow, subflow and
link, each metric in A and in B and the ratio B / A; and the two runs' time series
overlaid (A solid, B dashed). A metric missing from one side, null (the testbed
does not measure everything the simulator does), or a ratio over a zero shows "—".
"""

from __future__ import annotations

import html
import json
import math
from pathlib import Path

from . import output

# (summary field, label, scale, unit format)
FLOW_METRICS = [
    ("goodput_bps", "goodput (Mbit/s)", 1e-6, ".3f"),
    ("throughput_bps", "throughput (Mbit/s)", 1e-6, ".3f"),
    ("rtt_mean_s", "RTT mean (ms)", 1e3, ".1f"),
    ("rtt_p50_s", "RTT p50 (ms)", 1e3, ".1f"),
    ("rtt_p95_s", "RTT p95 (ms)", 1e3, ".1f"),
    ("retransmissions", "retransmissions", 1, ".0f"),
    ("timeouts", "timeouts", 1, ".0f"),
    ("drops", "drops", 1, ".0f"),
    ("app_delay_mean_s", "app delay mean (ms)", 1e3, ".1f"),
    ("app_delay_p95_s", "app delay p95 (ms)", 1e3, ".1f"),
    ("fct_s", "completion time (s)", 1, ".3f"),
]
SUBFLOW_METRICS = [
    ("throughput_bps", "throughput (Mbit/s)", 1e-6, ".3f"),
    ("rtt_mean_s", "RTT mean (ms)", 1e3, ".1f"),
    ("retransmissions", "retransmissions", 1, ".0f"),
    ("drops", "drops", 1, ".0f"),
]
LINK_METRICS = [
    ("utilization", "utilization", 1, ".3f"),
    ("drops", "drops", 1, ".0f"),
    ("queue_delay_mean_s", "queueing delay mean (ms)", 1e3, ".2f"),
]
DASH = "—"


class CompareError(ValueError):
    """A folder that cannot be compared; the message is one line."""


def load(folder, arg: str) -> dict:
    """A results folder: its summary, scenario description and time series (None
    where a file is missing)."""
    import pandas as pd

    folder = Path(folder)
    if not folder.is_dir():
        raise CompareError(f"{arg}: {folder} is not a folder; allowed: a results folder of `mpcc run` or "
                           f"`mpcc testbed run`")
    try:
        summary = json.loads((folder / output.SUMMARY).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CompareError(f"{arg}: {folder} has no summary.json; allowed: a results folder of `mpcc run` or "
                           f"`mpcc testbed run`") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CompareError(f"{arg}: {folder}/summary.json is unreadable ({type(e).__name__})") from None
    if not isinstance(summary, dict) or not isinstance(summary.get("flows", {}), dict):
        raise CompareError(f"{arg}: {folder}/summary.json is not an mpcc summary")
    tables = {}
    for name in (output.FLOW_SERIES, output.LINK_SERIES, output.DELAY_CDF):
        try:
            tables[name] = pd.read_parquet(folder / name)
        except Exception:  # a missing or damaged table only leaves its plot out
            tables[name] = None
    return {"path": folder, "summary": summary, "tables": tables,
            "kind": "testbed" if "testbed" in summary else "simulator"}


def _value(d, key, scale):
    v = d.get(key) if isinstance(d, dict) else None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return None
    return v * scale


def _fmt(v, spec) -> str:
    return DASH if v is None else format(v, spec)


def _ratio(a, b) -> str:
    return DASH if a is None or b is None or a == 0 else f"{b / a:.3f}"


def _rows(entities_a: dict, entities_b: dict, metrics) -> list[list[str]]:
    rows = []
    for name in list(dict.fromkeys([*entities_a, *entities_b])):
        a, b = entities_a.get(name), entities_b.get(name)
        for key, label, scale, spec in metrics:
            va, vb = _value(a, key, scale), _value(b, key, scale)
            if va is None and vb is None:
                continue
            rows.append([str(name), label, _fmt(va, spec), _fmt(vb, spec), _ratio(va, vb)])
    return rows


def tables(a: dict, b: dict) -> dict[str, list[list[str]]]:
    fa, fb = a["summary"].get("flows", {}), b["summary"].get("flows", {})

    def subflows(flows):
        return {f"{n}/{i}": s for n, f in flows.items() if isinstance(f, dict)
                for i, s in enumerate(f.get("subflows") or [])}

    return {
        "flows": _rows(fa, fb, FLOW_METRICS),
        "subflows": _rows(subflows(fa), subflows(fb), SUBFLOW_METRICS),
        "links": _rows(a["summary"].get("links", {}), b["summary"].get("links", {}), LINK_METRICS),
    }


def _labelled(lines, label, style):
    return [(f"{label}: {name}", x, y, style) for name, x, y, _ in lines]


def plots(a: dict, b: dict, labels: tuple[str, str], folder: Path) -> list[str]:
    """Each time series of A (solid) and B (dashed) on one plot; the files written."""
    from .plots import _line_plot, _subflow_lines, _throughput_lines

    written = []

    def draw(name, make, ylabel, title, xlabel="time (s)"):
        lines = []
        for run, label, style in ((a, labels[0], "-"), (b, labels[1], "--")):
            got = make(run)
            lines += _labelled(got, label, style) if got else []
        if lines:
            _line_plot(lines, ylabel, title, folder / f"{name}.png", xlabel=xlabel)
            written.append(f"{name}.png")

    def series(run, name):
        return run["tables"].get(name)

    def goodput(run):
        fs = series(run, output.FLOW_SERIES)
        return [ln for ln in _throughput_lines(fs) if "/" not in ln[0]] if fs is not None else []

    def per_subflow(column, scale, skip_zeros):
        def make(run):
            fs = series(run, output.FLOW_SERIES)
            return _subflow_lines(fs, column, scale, skip_zeros) if fs is not None and column in fs else []
        return make

    def queue(run):
        ls = series(run, output.LINK_SERIES)
        if ls is None or "queue_packets" not in ls:
            return []
        return [(str(n), r["t_s"], r["queue_packets"], "-") for n, r in ls.sort_values("t_s").groupby("link")]

    def rtt_cdf(run):
        d = series(run, output.DELAY_CDF)
        if d is None or "metric" not in d:
            return []
        d = d[d["metric"] == "rtt"]
        return [(str(n), r["delay_s"] * 1e3, r["q"], "-") for n, r in d.groupby("flow")]

    draw("goodput", goodput, "goodput (Mbit/s)", "goodput")
    draw("cwnd", per_subflow("cwnd", 1.0, False), "cwnd (segments)", "cwnd")
    draw("srtt", per_subflow("srtt_s", 1e3, True), "smoothed RTT (ms)", "srtt")
    draw("queue", queue, "queue length (packets)", "queue")
    draw("rtt_cdf", rtt_cdf, "fraction of samples", "RTT CDF", xlabel="RTT (ms)")
    return written


def _origin(run: dict) -> str:
    mpcc = run["summary"].get("mpcc", {})
    version = f"mpcc {mpcc.get('version', '?')} ({mpcc.get('commit', '?')})"
    tb = run["summary"].get("testbed")
    where = f"testbed, Linux {tb.get('kernel', '?')}" if isinstance(tb, dict) else "simulator"
    return f"{where}; {version}"


def _description(run: dict) -> str:
    import tomllib

    try:
        return str(tomllib.loads((run["path"] / output.SCENARIO).read_text("utf-8")).get("description", ""))
    except (OSError, ValueError):
        return ""


def markdown(a: dict, b: dict, labels: tuple[str, str], tabs: dict, images: list[str]) -> str:
    out = [f"# {labels[0]} vs {labels[1]}", ""]
    for run, label in ((a, labels[0]), (b, labels[1])):
        desc = _description(run)
        out.append(f"- **{label}**: `{run['path']}` ({_origin(run)}){': ' + desc if desc else ''}")
    out += ["", f"Ratios are {labels[1]} / {labels[0]}; {DASH} where a side has no value or the "
            f"{labels[0]} value is 0.", ""]
    for title, key, first in (("Flows", "flows", "flow"), ("Subflows", "subflows", "subflow"),
                              ("Links", "links", "link")):
        if not tabs[key]:
            continue
        out += [f"## {title}", "", f"| {first} | metric | {labels[0]} | {labels[1]} | ratio |",
                "|---|---|---|---|---|"]
        out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in tabs[key]]
        out.append("")
    if images:
        out += ["## Time series", ""] + [f"![{i[:-4]}]({i})" for i in images] + [""]
    return "\n".join(out)


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|")


def to_html(md_tables: dict, a: dict, b: dict, labels: tuple[str, str], images: list[str]) -> str:
    esc = html.escape
    parts = ["<!doctype html><html><head><meta charset='utf-8'>",
             f"<title>{esc(labels[0])} vs {esc(labels[1])}</title>",
             "<style>body{font-family:sans-serif;max-width:70em;margin:auto}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child,td:nth-child(2)"
             "{text-align:left}</style></head><body>",
             f"<h1>{esc(labels[0])} vs {esc(labels[1])}</h1><ul>"]
    for run, label in ((a, labels[0]), (b, labels[1])):
        parts.append(f"<li><b>{esc(label)}</b>: <code>{esc(str(run['path']))}</code> ({esc(_origin(run))})</li>")
    parts.append(f"</ul><p>Ratios are {esc(labels[1])} / {esc(labels[0])}.</p>")
    for title, key in (("Flows", "flows"), ("Subflows", "subflows"), ("Links", "links")):
        if not md_tables[key]:
            continue
        parts.append(f"<h2>{title}</h2><table><tr><th>name</th><th>metric</th><th>{esc(labels[0])}</th>"
                     f"<th>{esc(labels[1])}</th><th>ratio</th></tr>")
        parts += ["<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in md_tables[key]]
        parts.append("</table>")
    parts += [f"<p><img src='{esc(i)}' alt='{esc(i)}'></p>" for i in images]
    parts.append("</body></html>\n")
    return "\n".join(parts)


def compare(a, b, out, force: bool = False, labels: tuple[str, str] | None = None) -> Path:
    """Writes the comparison of results folders `a` and `b` to folder `out`."""
    ra, rb = load(a, "A"), load(b, "B")
    if labels is None:
        labels = (ra["kind"], rb["kind"]) if ra["kind"] != rb["kind"] else ("A", "B")
    tabs = tables(ra, rb)
    with output.building(out, force, "--force") as tmp:
        images = plots(ra, rb, labels, tmp)
        (tmp / "report.md").write_text(markdown(ra, rb, labels, tabs, images), encoding="utf-8")
        (tmp / "index.html").write_text(to_html(tabs, ra, rb, labels, images), encoding="utf-8")
    return Path(out)


def add_parser(sub) -> None:
    p = sub.add_parser("compare", help="two results folders side by side (e.g. simulator vs testbed)")
    p.add_argument("a", help="results folder A (ratios are B / A)")
    p.add_argument("b", help="results folder B")
    p.add_argument("--out", help="report folder (default: results/compare-<A>-<B>)")
    p.add_argument("--force", action="store_true", help="replace an existing report folder mpcc wrote")
    p.add_argument("--labels", help="names of A and B in the report, e.g. simulator,testbed")
    p.set_defaults(func=cmd_compare)


def cmd_compare(args) -> int:
    labels = None
    if args.labels:
        labels = tuple(x.strip() for x in args.labels.split(","))
        if len(labels) != 2 or not all(labels):
            raise CompareError(f'--labels: "{args.labels}"; allowed: two names separated by a comma')
    out = Path(args.out) if args.out else Path("results") / f"compare-{Path(args.a).name}-{Path(args.b).name}"
    folder = compare(args.a, args.b, out, force=args.force, labels=labels)
    print(f"mpcc: compared {args.a} and {args.b}: {folder}/report.md, {folder}/index.html")
    return 0
