"""`mpcc sweep SCENARIO`: one scenario over the cartesian product of parameter values
and seeds, run in parallel (local cores or a Dask cluster), every run cached under a
key that covers its whole configuration, the files it reads and the simulator build.

    mpcc sweep scenarios/demo.toml --param links.bottleneck.rate=5Mbps,10Mbps \\
        --param flows.0.cc=reno,cubic --seeds 5 --jobs 2 --out results/sweep

The same in the scenario file, beside the scenario's own fields:

    [sweep]
    seeds = 5
    params = { "links.bottleneck.rate" = ["5Mbps", "10Mbps"], "flows.0.cc" = ["reno", "cubic"] }

A `--param` on the command line replaces the file's values for that key. The output
folder (written aside and swapped in whole, like every mpcc output) holds:

    runs.csv, runs.parquet        one row per (point, seed, flow): the swept parameters
                                  as columns, `seed`, `flow`, and every scalar of the
                                  flow's summary (docs/metrics.md)
    links.csv, links.parquet      the same per (point, seed, link)
    summary.csv, summary.parquet  per (point, flow): `<metric>_mean`, `<metric>_ci`
                                  (95 % half-width, Student's t over seeds) and `n`
    <metric>.png, .svg            each default metric against the first swept
                                  parameter, one line per value of the second (and per
                                  flow), error bars the 95 % intervals
    sweep.json                    the points, seeds, mpcc version and commit

A sweep killed mid-way and restarted reuses every finished run (the cache) and writes
the same bytes as an uninterrupted one.
"""

from __future__ import annotations

import itertools
import json
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .scenario import ScenarioError

DEFAULT_METRICS = ("goodput_bps", "throughput_bps", "rtt_mean_s", "rtt_p95_s", "retransmissions")
MAX_POINTS = 100_000


@dataclass(frozen=True)
class Sweep:
    """A scenario (TOML data and the folder its relative paths start from), the values
    of each swept dotted key in order, and the seeds."""

    data: dict
    base_dir: Path
    params: dict  # dotted key -> list of values
    seeds: list

    def points(self) -> list[dict]:
        keys = list(self.params)
        return [dict(zip(keys, values)) for values in itertools.product(*self.params.values())]


def parse_param(text: str) -> tuple[str, list]:
    """`links.b.rate=5Mbps,10Mbps` -> ("links.b.rate", ["5Mbps", "10Mbps"]); numbers and
    true/false become numbers and booleans, anything else stays text (units included)."""
    key, sep, values = text.partition("=")
    key = key.strip()
    if not sep or not key or not values.strip():
        raise ScenarioError("--param", f'"{text}"; allowed: DOTTED.KEY=v1,v2,... e.g. links.b.rate=5Mbps,10Mbps')
    return key, [_value(v.strip()) for v in values.split(",")]


def _value(text: str):
    if text in ("true", "false"):
        return text == "true"
    for kind in (int, float):
        try:
            value = kind(text)
        except ValueError:
            continue
        if kind is float and not math.isfinite(value):
            break
        return value
    return text


def load(path, params: list[str] = (), seeds: int | None = None) -> Sweep:
    """The sweep of a scenario file: its [sweep] section, with `params` (--param texts)
    replacing the file's values for their keys and `seeds` its seed count."""
    from .scenario import Scenario

    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScenarioError("", f'scenario file "{path}" not found') from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ScenarioError(str(path), f"cannot read the scenario: {e}") from None
    section = data.pop("sweep", {})
    if not isinstance(section, dict) or set(section) - {"params", "seeds"}:
        raise ScenarioError("sweep", "allowed: a table with params (a table of lists) and seeds (a whole number)")
    swept = {}
    for key, values in (section.get("params") or {}).items():
        if not isinstance(values, list) or not values:
            raise ScenarioError(f"sweep.params.{key}", "allowed: a non-empty list of values")
        swept[key] = values
    for text in params:
        key, values = parse_param(text)
        swept[key] = values
    if not swept:
        raise ScenarioError("--param", "nothing to sweep; give --param DOTTED.KEY=v1,v2 or a [sweep] params table")
    count = section.get("seeds", 1) if seeds is None else seeds
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 10_000:
        raise ScenarioError("--seeds" if seeds is not None else "sweep.seeds", f"{count!r}; allowed: 1 to 10000")
    first = data.get("seed", 1)
    sweep = Sweep(data, path.parent, swept, list(range(first, first + count)))
    if len(sweep.points()) > MAX_POINTS:
        raise ScenarioError("--param", f"{len(sweep.points())} points; allowed: at most {MAX_POINTS}")
    Scenario.from_dict(data, path.parent)  # the base scenario itself must be valid
    return sweep


def plan(sweep: Sweep, version: str) -> list:
    """Every run of the sweep (point by point, seeds inner) as reproduce's RunSpecs."""
    from .reproduce.cache import run_key
    from .reproduce.model import Variant
    from .reproduce.plan import RunSpec, apply_overrides
    from .scenario import Scenario

    for key in sweep.params:
        _check_path(sweep.data, key)
    specs = []
    for i, point in enumerate(sweep.points()):
        data = apply_overrides(sweep.data, point)
        label = ", ".join(f"{k}={v}" for k, v in point.items())
        try:
            scenario = Scenario.from_dict(data, sweep.base_dir)
        except ScenarioError as e:
            raise ScenarioError(f"point {label}", str(e)) from None
        variant = Variant(f"p{i}", point, point)
        for rep, seed in enumerate(sweep.seeds):
            config = scenario.to_config(seed=seed)
            specs.append(RunSpec("sweep", variant, rep, seed, data, str(sweep.base_dir), config,
                                 run_key(config, version)))
    return specs


def _check_path(data: dict, key: str) -> None:
    """Every table or list on the way to a swept key exists in the scenario (the key
    itself may be new, e.g. `flows.0.stop`): a misspelt name is not a new link."""
    node, walked = data, []
    for part in key.split(".")[:-1]:
        walked.append(part)
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            raise ScenarioError(f"--param {key}", f"the scenario has no {'.'.join(walked)}; allowed: a path into "
                                "the scenario (tables by name, lists by index, e.g. flows.0.cc)")
    if not isinstance(node, dict):
        raise ScenarioError(f"--param {key}", f"{'.'.join(walked)} is not a table")


@dataclass(frozen=True)
class Outcome:
    folder: Path
    runs: int
    cached: int
    computed: int


def run_sweep(sweep: Sweep, out, jobs: int | None = None, cache=None, force: bool = False,
              max_memory: int | None = None, dask: str | None = None) -> Outcome:
    """Runs what the cache lacks (locally or on the Dask scheduler at `dask`) and
    writes the tables and plots to `out`."""
    from . import output
    from .reproduce.cache import RunCache, simulator_version
    from .reproduce.pipeline import DEFAULT_CACHE, check_resources
    from .reproduce.runner import default_jobs, execute

    output.check_replaceable(out, force, "--force")
    version = simulator_version()
    store = RunCache(cache if cache is not None else DEFAULT_CACHE)
    specs = plan(sweep, version)
    check_resources(specs, max_memory)
    if dask:
        from .reproduce.cluster import execute_on_dask

        stats = execute_on_dask(specs, store, version, dask, max_memory=max_memory)
    else:
        stats = execute(specs, store, version, jobs or default_jobs(), label="sweep", max_memory=max_memory)
    runs, links = measure(specs, store)
    with output.building(out, force, "--force") as folder:
        write_tables(folder, sweep, runs, links)
    return Outcome(Path(out), stats.total, stats.cached, stats.computed)


def measure(specs, store):
    """(runs, links): one row per (point, seed, flow) and per (point, seed, link)."""
    import pandas as pd

    flow_rows, link_rows = [], []
    for spec in specs:
        result = store.load(spec.key)
        ids = {**spec.variant.params, "seed": spec.seed}
        for name, stats in result.summary["flows"].items():
            flow_rows.append({**ids, "flow": name, **_scalars(stats)})
        for name, stats in result.summary["links"].items():
            link_rows.append({**ids, "link": name, **_scalars(stats)})
    return pd.DataFrame(flow_rows), pd.DataFrame(link_rows)


def _scalars(stats: dict) -> dict:
    return {k: v for k, v in stats.items() if isinstance(v, (int, float, str)) and not isinstance(v, bool)}


def write_tables(folder: Path, sweep: Sweep, runs, links) -> None:
    from . import __version__
    from .reproduce.stats import summarize
    from .version import commit

    params = list(sweep.params)
    _text_columns(runs, params)
    _text_columns(links, params)
    for name, df in (("runs", runs), ("links", links)):
        df.to_csv(folder / f"{name}.csv", index=False)
        df.to_parquet(folder / f"{name}.parquet", index=False)
    metrics = [c for c in runs.columns if c not in (*params, "seed", "flow") and runs[c].dtype.kind in "fiu"]
    summary = summarize(runs, [*params, "flow"], metrics)
    summary.to_csv(folder / "summary.csv", index=False)
    summary.to_parquet(folder / "summary.parquet", index=False)
    for metric in DEFAULT_METRICS:
        if f"{metric}_mean" in summary:
            _plot(folder, summary, params, metric)
    meta = {"params": sweep.params, "seeds": sweep.seeds, "points": len(sweep.points()),
            "mpcc": {"version": __version__, "commit": commit()}}
    (folder / "sweep.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _text_columns(df, params: list[str]) -> None:
    """Swept values as given: a column mixing numbers and text is stored as text."""
    for p in params:
        if p in df and df[p].map(type).nunique() > 1:
            df[p] = df[p].astype(str)


def _plot(folder: Path, summary, params: list[str], metric: str) -> None:
    """`metric` against the first swept parameter; a line per value of the second
    (and per flow when there are several)."""
    from .reproduce.figures import new_figure, save

    x = params[0]
    xs = list(dict.fromkeys(summary[x]))
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in xs)
    fig, ax = new_figure()
    groups = [p for p in params[1:2]] + (["flow"] if summary["flow"].nunique() > 1 else [])
    for keys, part in (summary.groupby(groups, sort=False) if groups else [((), summary)]):
        keys = keys if isinstance(keys, tuple) else (keys,)
        label = ", ".join(f"{g}={k}" for g, k in zip(groups, keys)) or None
        pos = part[x] if numeric else [xs.index(v) for v in part[x]]
        ax.errorbar(pos, part[f"{metric}_mean"], yerr=part[f"{metric}_ci"].fillna(0), marker="o", capsize=3,
                    label=label)
    if not numeric:
        ax.set_xticks(range(len(xs)), [str(v) for v in xs])
    ax.set_xlabel(x)
    ax.set_ylabel(metric)
    if groups:
        ax.legend(fontsize=8)
    save(fig, folder, metric)
