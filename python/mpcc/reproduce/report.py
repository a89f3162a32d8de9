"""The report folder of a paper:

    index.html, report.md    claim table, figures, setup, links to the data
    figures/<id>.png, .svg   one per Figure
    data/<experiment>.csv, .parquet            one row per run (or per run and entity)
    data/<experiment>_summary.csv, .parquet    means and 95 % CI half-widths per variant
    data/claims.csv          the claim table
    scenarios/<file>.toml    copies of the scenario files used

    .mpcc-manifest.json      the files mpcc wrote (see mpcc.output)

Nothing in it depends on wall-clock time or on which runs came from the cache, so a
resumed reproduction writes the same bytes as an uninterrupted one. The folder is
built aside and swapped in whole (mpcc.output.building): an existing report is
replaced only if mpcc wrote all of it, and concurrent reproductions take turns.
"""

from __future__ import annotations

import html
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from .measure import ID_COLUMNS
from .model import Paper
from .plan import load_scenario_data, replications, tcp_choice
from ..version import commit


@dataclass(frozen=True)
class ClaimResult:
    id: str
    text: str
    figure: str
    verdict: str
    reason: str
    source: str = ""  # where the quote stands in the paper
    quote: str = ""  # the paper's sentence the claim tests
    rule: str = ""  # how the verdict is computed, in words
    rule_history: str = ""  # changes to the rule made after results were seen ("" if none)


def summary_table(df, params=()):
    """Means and CI half-widths of the numeric columns per variant (keeping the
    variant's `params`, and any text column the extractor added, e.g. a flow name)."""
    from .stats import summarize

    if df.empty:
        return df
    params = [p for p in params if p in df.columns]
    text = [c for c in df.columns if c not in ID_COLUMNS and c not in params and df[c].dtype.kind not in "fiub"]
    metrics = [c for c in df.columns if c not in ID_COLUMNS and c not in params and c not in text]
    return summarize(df, ["variant", *params, *text], metrics)


def write_report(paper: Paper, out: Path, data: dict, claims: list[ClaimResult], quick: bool, version: str) -> Path:
    from .. import output

    final = Path(out) / paper.name
    with output.building(final) as folder:
        _write_report_files(paper, folder, data, claims, quick, version)
    return final


def _write_report_files(paper: Paper, folder: Path, data: dict, claims: list[ClaimResult], quick: bool,
                        version: str) -> None:
    from .. import __version__
    from .figures import save

    (folder / "data").mkdir()

    figures = []
    for spec in paper.figures:
        fig = spec.draw(data)
        png, svg = save(fig, folder / "figures", spec.id)
        figures.append((spec, png.relative_to(folder).as_posix(), svg.relative_to(folder).as_posix()))

    datasets = []
    for exp in paper.experiments:
        name, df = exp.name, data[exp.name]
        for table, suffix in ((df, ""), (summary_table(df, variant_params(exp)), "_summary")):
            table.to_csv(folder / "data" / f"{name}{suffix}.csv", index=False)
            table.to_parquet(folder / "data" / f"{name}{suffix}.parquet", index=False)
        datasets.append(name)
    _claims_csv(claims, folder / "data" / "claims.csv")

    setups = [{**_setup(paper, exp, quick, folder), "identical": identical_replications(data[exp.name])}
              for exp in paper.experiments]
    meta = {"mpcc": __version__, "commit": commit(), "simulator": version, "mode": "quick" if quick else "full",
            "environment": environment_rows(paper, data),
            "sensitivity": [tuple(map(str, r)) for r in (paper.sensitivity(data) if paper.sensitivity else [])]}
    (folder / "index.html").write_text(_html(paper, claims, figures, setups, datasets, meta), encoding="utf-8")
    (folder / "report.md").write_text(_markdown(paper, claims, figures, setups, datasets, meta), encoding="utf-8")


ENV_FACTOR = 2.0  # a measured loss rate more than this factor from the paper's is flagged
COUNT_CONFIDENCE = 0.95  # the counting interval of a loss rate measured over a known number of packets


def loss_count_interval(losses: int, packets: int) -> tuple[float, float]:
    """The exact (Garwood) 95 % interval of a loss rate from `losses` Poisson-counted
    events in `packets` packets: the rates a run of this length cannot tell apart."""
    from scipy.stats import chi2

    tail = (1 - COUNT_CONFIDENCE) / 2
    lo = chi2.ppf(tail, 2 * losses) / 2 if losses > 0 else 0.0
    hi = chi2.ppf(1 - tail, 2 * losses + 2) / 2
    return lo / packets, hi / packets


def environment_rows(paper: Paper, data: dict) -> list[tuple[str, str, str, str]]:
    """(what, measured, paper's, note) for each loss rate the paper states, flagged when
    they differ by more than ENV_FACTOR either way. A row may carry a fourth element, the
    packets the measured rate counts (over every replication): then a difference that
    the count cannot resolve (the paper's rate inside the measured rate's counting
    interval, e.g. 0 losses in 10^5 packets against 10^-7) is said to be so, not flagged."""
    rows = []
    for label, measured, stated, *count in (paper.environment(data) if paper.environment else []):
        ratio = measured / stated if stated > 0 else float("inf")
        off = not (1 / ENV_FACTOR <= ratio <= ENV_FACTOR)
        note = f"{ratio:.3g} x the paper's"
        if count and count[0] > 0:
            packets = int(count[0])
            losses = round(measured * packets)
            lo, hi = loss_count_interval(losses, packets)
            note += f" ({losses} losses in {packets} packets, {COUNT_CONFIDENCE:.0%} interval {lo:.2g} to {hi:.2g})"
            if off and lo <= stated <= hi:
                off = False
                note += ": the difference is within counting error"
        if off:
            note += f": DIFFERS by more than {ENV_FACTOR:g} x"
        rows.append((label, f"{measured:.3g}", f"{stated:.3g}", note))
    return rows


def variant_params(exp) -> list[str]:
    """The parameter names of an experiment's variants, in order of first use."""
    return list(dict.fromkeys(k for v in exp.variants for k in v.params))


NEARLY_SAME = 1e-3  # replications whose every metric differs by less than this (relative) are the same run


def identical_replications(df) -> str:
    """A warning when some variant's replications measured the same values, exactly or
    to within NEARLY_SAME (the same run seen through a shifted sampling grid): its
    scenario has no random element, so its confidence intervals are (near) zero-width and
    the replications are copies; "" otherwise or with one replication."""
    if "replication" not in df or df["replication"].nunique() < 2:
        return ""
    ids = set(ID_COLUMNS)
    metrics = [c for c in df.columns if c not in ids and df[c].dtype.kind in "fiub"]
    values = df[metrics].astype(object).where(df[metrics].notna(), None)  # NaN equals NaN here
    same, near = [], []
    for variant, runs in values.groupby(df["variant"], sort=False):
        if len({tuple(map(tuple, r.to_numpy().tolist())) for _, r in runs.groupby(df["replication"])}) == 1:
            same.append(variant)
            continue
        numeric = df.loc[runs.index, metrics].astype(float)
        spread = (numeric.max() - numeric.min()).abs() / numeric.abs().max().where(lambda x: x > 0)
        if len(numeric) > 1 and bool((spread.fillna(0) < NEARLY_SAME).all()):
            near.append(variant)
    total = df["variant"].nunique()
    notes = []
    if same:
        notes.append(f"Replications identical in {len(same)} of {total} variants ({_names(same)}): their scenario has "
                     "no random element, so the seeds gave copies and the intervals are zero-width.")
    if near:
        notes.append(f"Replications nearly identical (every value within {NEARLY_SAME:.1%}) in {len(near)} of {total} "
                     f"variants ({_names(near)}): the seeds only shifted the same run, so the intervals are "
                     "near zero-width.")
    return " ".join(notes)


def _names(variants) -> str:
    return ", ".join(map(str, variants[:5])) + (", ..." if len(variants) > 5 else "")


CLAIM_COLUMNS = ["id", "text", "figure", "verdict", "reason", "source", "quote", "rule", "rule_history"]
VERDICT_ORDER = ("reproduced", "partly", "not reproduced", "not tested here")


def quoted(quote: str) -> str:
    """The paper's words in quotation marks; a note in parentheses (a formula, no paper) as is."""
    return quote if quote.startswith("(") else f"“{quote}”"


def tally(claims) -> str:
    return ", ".join(f"{sum(c.verdict == v for c in claims)} {v}" for v in VERDICT_ORDER)


def _claims_csv(claims: list[ClaimResult], path: Path) -> None:
    import pandas as pd

    pd.DataFrame([c.__dict__ for c in claims], columns=CLAIM_COLUMNS).to_csv(path, index=False)


def _setup(paper: Paper, exp, quick: bool, folder: Path) -> dict:
    """What was run for one experiment; copies its scenario file into the report."""
    scenario = "a scenario given as a dict (see the paper module)"
    if not isinstance(exp.scenario, dict):
        source = Path(exp.scenario)
        (folder / "scenarios").mkdir(exist_ok=True)
        shutil.copyfile(source, folder / "scenarios" / source.name)
        scenario = f"scenarios/{source.name}"
    n = replications(exp, quick)
    return {
        "name": exp.name,
        "description": exp.description,
        "scenario": scenario,
        "replications": n,
        "seeds": f"seeds {exp.first_seed} to {exp.first_seed + n - 1}" if n > 1 else f"seed {exp.first_seed}",
        "tcp": _tcp_profile(paper, exp),
        "quick_overrides": _compact(exp.quick_overrides) if quick and exp.quick_overrides else "",
        "variants": [(v.name, _compact(v.params), _compact(v.overrides)) for v in exp.variants],
    }


def _tcp_profile(paper: Paper, exp) -> str:
    """The TCP profile the experiment's runs use and the settings stated on top of it,
    each with why; a setting the scenario sets itself is shown with the scenario's value."""
    profile, reason, settings = tcp_choice(paper, exp, load_scenario_data(exp.scenario)[0])
    text = f"{profile} ({reason})" if reason else profile
    for setting, scenario_own in settings:
        if scenario_own:
            text += f"; tcp.{setting.name} named by the scenario (not the stated {_value(setting.value)})"
        else:
            text += f"; {setting.text()}"
    return text


def _compact(d: dict) -> str:
    """`key = value` pairs in TOML-like notation; a list of tables by its names."""
    return ", ".join(f"{k} = {_value(v)}" for k, v in d.items())


def _value(v) -> str:
    if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
        names = ", ".join(str(x.get("name", "?")) for x in v)
        return f"[{len(v)} tables: {names}]"
    return json.dumps(v, ensure_ascii=False)


# ---- HTML ----------------------------------------------------------------------------

_STYLE = """
body { font-family: sans-serif; max-width: 1000px; margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.4; }
table { border-collapse: collapse; margin: 1em 0; width: 100%; }
th, td { border: 1px solid #bbb; padding: 0.3em 0.5em; text-align: left; vertical-align: top; font-size: 0.92em; }
th { background: #eee; }
td.reproduced { background: #d8efd8; } td.partly { background: #fbefc6; } td.not-reproduced { background: #f6d5d5; }
td.not-tested-here { background: #e4e4ef; } blockquote { margin: 0.3em 0 0.3em 1em; color: #333; font-style: italic; }
.changed { color: #8a4b00; }
figure { margin: 1.5em 0; } figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-size: 0.9em; color: #444; } code { background: #f3f3f3; padding: 0 0.2em; }
.note { background: #f7f7f7; border-left: 4px solid #999; padding: 0.5em 1em; }
"""


def _html(paper, claims, figures, setups, datasets, meta) -> str:
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<link rel="icon" href="data:,">',
        f"<title>mpcc reproduction: {e(paper.title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{e(paper.title)}</h1>",
        f"<p>{e(paper.reference)}</p><p>{e(paper.summary)}</p><p>{e(paper.tcp_line())}</p>",
        f'<p class="note">{e(_mode_line(meta))}</p>',
        f"<h2>Claims</h2><p>{e(tally(claims))}. 'Not tested here': every compared point was a tie within "
        "the 95 % intervals, or the baseline left nothing to improve.</p>",
        "<table><tr><th>id</th><th>claim, the paper's words and the rule</th><th>figure</th><th>verdict</th>"
        "<th>measured</th></tr>",
    ]
    for c in claims:
        css = c.verdict.replace(" ", "-")
        changed = (f'<br><span class="changed"><b>Rule changed after results were seen:</b> {e(c.rule_history)}'
                   "</span>" if c.rule_history else "")
        parts.append(
            f"<tr><td>{e(c.id)}</td><td>{e(c.text)}<blockquote>{e(quoted(c.quote))} ({e(c.source)})</blockquote>"
            f"<b>Rule:</b> {e(c.rule)}{changed}</td><td><a href=\"#{e(c.figure)}\">{e(c.figure)}</a></td>"
            f'<td class="{css}">{e(c.verdict)}</td><td>{e(c.reason)}</td></tr>'
        )
    parts.append("</table><h2>Figures</h2>")
    for spec, png, svg in figures:
        parts.append(
            f'<figure id="{e(spec.id)}"><img src="{e(png)}" alt="{e(spec.title)}">'
            f"<figcaption><b>{e(spec.id)}: {e(spec.title)}.</b> {e(spec.caption)} "
            f'(<a href="{e(svg)}">SVG</a>)</figcaption></figure>'
        )
    parts.append("<h2>Setup</h2>")
    for key, title, head in (("environment", "Environment check: loss rates against the paper's",
                              ("what", "measured", "paper", "")),
                             ("sensitivity", "Sensitivity where the paper is silent",
                              ("open choice", "value", "measured", "claim holds"))):
        if meta.get(key):
            parts.append(f"<h3>{e(title)}</h3><table><tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>")
            parts += ["<tr>" + "".join(f"<td>{e(cell)}</td>" for cell in row) + "</tr>" for row in meta[key]]
            parts.append("</table>")
    for s in setups:
        parts.append(f"<h3>{e(s['name'])}</h3><p>{e(s['description'])}</p>")
        scenario = s["scenario"]
        link = f'<a href="{e(scenario)}">{e(scenario)}</a>' if scenario.startswith("scenarios/") else e(scenario)
        parts.append(
            f"<p>Scenario: {link}. Replications: {s['replications']} ({e(s['seeds'])}). "
            f"TCP profile: {e(s['tcp'])}.</p>"
        )
        if s["quick_overrides"]:
            parts.append(f"<p>Quick mode overrides: <code>{e(s['quick_overrides'])}</code></p>")
        if s["identical"]:
            parts.append(f"<p><b>{e(s['identical'])}</b></p>")
        parts.append("<table><tr><th>variant</th><th>parameters</th><th>overrides</th></tr>")
        for name, params, overrides in s["variants"]:
            parts.append(f"<tr><td>{e(name)}</td><td>{e(params)}</td><td><code>{e(overrides)}</code></td></tr>")
        parts.append("</table>")
    if paper.notes:
        parts.append("<h3>Choices and notes</h3><ul>")
        parts.extend(f"<li>{e(n)}</li>" for n in paper.notes)
        parts.append("</ul>")
    parts.append("<h2>Data</h2><ul>")
    for name in datasets:
        parts.append(
            f"<li>{e(name)}: per run <a href=\"data/{e(name)}.csv\">CSV</a>, "
            f"<a href=\"data/{e(name)}.parquet\">Parquet</a>; means and 95 % CI "
            f"<a href=\"data/{e(name)}_summary.csv\">CSV</a>, <a href=\"data/{e(name)}_summary.parquet\">Parquet</a></li>"
        )
    parts.append('<li>claims: <a href="data/claims.csv">CSV</a></li></ul>')
    parts.append(f"<p>{e(_versions_line(meta))}</p></body></html>")
    return "\n".join(parts) + "\n"


def _mode_line(meta) -> str:
    if meta["mode"] == "quick":
        return ("Quick mode: shortened durations and fewer replications; "
                "run without --quick for the full reproduction. Error bars: 95 % confidence intervals (t).")
    return "Full reproduction. Error bars: 95 % confidence intervals (Student's t) over replications."


def _versions_line(meta) -> str:
    return f"mpcc {meta['mpcc']} (commit {meta['commit']}), simulator {meta['simulator']}."


# ---- Markdown ------------------------------------------------------------------------


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _markdown(paper, claims, figures, setups, datasets, meta) -> str:
    lines = [f"# {paper.title}", "", paper.reference, "", paper.summary, "", paper.tcp_line(), "",
             f"_{_mode_line(meta)}_", "",
             "## Claims", "", f"{tally(claims)}. 'Not tested here': every compared point was a tie within the "
             "95 % intervals, or the baseline left nothing to improve.", "",
             "| id | claim | figure | verdict | measured |", "|---|---|---|---|---|"]
    for c in claims:
        lines.append(f"| {_md_cell(c.id)} | {_md_cell(c.text)} | {_md_cell(c.figure)} | **{c.verdict}** | "
                     f"{_md_cell(c.reason)} |")
    lines += ["", "### The papers' words and the rules", ""]
    for c in claims:
        lines += [f"- **{c.id}** ({c.source}): {quoted(c.quote)}", f"  - Rule: {c.rule}"]
        if c.rule_history:
            lines.append(f"  - **Rule changed after results were seen:** {c.rule_history}")
    lines += ["", "## Figures", ""]
    for spec, png, svg in figures:
        lines += [f"### {spec.id}: {spec.title}", "", f"![{spec.title}]({png})", "",
                  f"{spec.caption} ([SVG]({svg}))", ""]
    lines += ["## Setup", ""]
    if meta.get("environment"):
        lines += ["### Environment check: loss rates against the paper's", "", "| what | measured | paper | |",
                  "|---|---|---|---|"]
        lines += [f"| {_md_cell(a)} | {b} | {c} | {_md_cell(d)} |" for a, b, c, d in meta["environment"]] + [""]
    if meta.get("sensitivity"):
        lines += ["### Sensitivity where the paper is silent", "", "| open choice | value | measured | claim holds |",
                  "|---|---|---|---|"]
        lines += [f"| {' | '.join(_md_cell(x) for x in row)} |" for row in meta["sensitivity"]] + [""]
    for s in setups:
        lines += [f"### {s['name']}", "", s["description"], "",
                  f"Scenario: `{s['scenario']}`. Replications: {s['replications']} ({s['seeds']}). "
                  f"TCP profile: {s['tcp']}.", ""]
        if s["quick_overrides"]:
            lines += [f"Quick mode overrides: `{s['quick_overrides']}`", ""]
        if s["identical"]:
            lines += [f"**{s['identical']}**", ""]
        lines += ["| variant | parameters | overrides |", "|---|---|---|"]
        lines += [f"| {_md_cell(n)} | {_md_cell(p)} | `{_md_cell(o)}` |" for n, p, o in s["variants"]]
        lines.append("")
    if paper.notes:
        lines += ["### Choices and notes", ""] + [f"- {n}" for n in paper.notes] + [""]
    lines += ["## Data", ""]
    for name in datasets:
        lines.append(f"- {name}: per run [CSV](data/{name}.csv), [Parquet](data/{name}.parquet); means and 95 % CI "
                     f"[CSV](data/{name}_summary.csv), [Parquet](data/{name}_summary.parquet)")
    lines += ["- claims: [CSV](data/claims.csv)", "", _versions_line(meta), ""]
    return "\n".join(lines)


INDEX = "index.html"


def write_index(out: Path, rows: list[tuple[str, str, str, str, tuple]], quick: bool = False) -> Path:
    """report/index.html for `mpcc reproduce all`: per paper (name, title, status,
    link to its report or "", claims planned but not run yet); says whether the
    reproductions were quick or full, and which mpcc made them."""
    from .. import __version__

    e = html.escape
    meta = {"mode": "quick" if quick else "full", "mpcc": __version__, "commit": commit()}
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">',
             f"<title>mpcc reproductions</title><style>{_STYLE}</style></head><body>",
             f"<h1>mpcc reproductions ({meta['mode']})</h1>",
             f"<p>{e(_mode_line(meta))} mpcc {e(meta['mpcc'])} (commit {e(meta['commit'])}).</p>",
             "<table><tr><th>paper</th><th>title</th><th>status</th></tr>"]
    for name, title, status, link, planned in rows:
        cell = f'<a href="{e(link)}">{e(name)}</a>' if link else e(name)
        listed = "".join(f"<li>{e(c)}</li>" for c in planned)
        planned_html = f"<br>claims to check once it runs:<ul>{listed}</ul>" if planned else ""
        parts.append(f"<tr><td>{cell}</td><td>{e(title)}</td><td>{e(status)}{planned_html}</td></tr>")
    parts.append("</table></body></html>")
    from .. import output

    return output.write_file(out, INDEX, "\n".join(parts) + "\n")
