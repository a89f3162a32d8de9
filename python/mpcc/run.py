"""`mpcc.run`: validate a scenario, simulate it, and hand back the results as
pandas DataFrames (and, with `out=`, as files on disk)."""

from __future__ import annotations

import json
import warnings
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .scenario import Scenario


class SimulationError(ValueError):
    """The simulator rejected the configuration; the message is its one line."""


class StoppedEarlyWarning(RuntimeWarning):
    """The run reached its memory limit and stopped before the scenario's end; its
    results cover only the simulated time (`Result.stopped_early` says why)."""


def kinds() -> dict[str, list[dict]]:
    """Every pluggable family's registry, owned by the simulator: {family: [{name,
    summary, doc, params: [{name, default, min, max, help, unit}]}]} for cc,
    scheduler, receiver, queue, loss, capacity, app and distribution; the first of
    each is the default."""
    from . import _core

    return _core.kinds()


def algorithms() -> list[dict]:
    """The controller registry: [{name, kind, summary, doc, params: [{name, default, min, max, help, unit}]}]."""
    return kinds()["cc"]


def schedulers() -> list[dict]:
    """The MPTCP packet schedulers: [{name, summary, doc, params}]; the first is the default."""
    return kinds()["scheduler"]


def receivers() -> list[dict]:
    """The receiver controllers: [{name, summary, doc, params}]; the first (none) is the default."""
    return kinds()["receiver"]


def run(scenario, out=None, seed: int | None = None, plots: bool = True, force: bool = False,
        max_memory: int | None = None, record_cc=None, event_log: bool = False) -> "Result":
    """Runs `scenario` (a Scenario, a path to a TOML file, TOML text or a dict).

    `seed` overrides the scenario's seed. With `out`, writes summary.json, the time
    series as Parquet, a copy of the scenario and (if `plots`) PNG plots there (see
    mpcc.output); an existing `out` is replaced only with `force=True`, and only if
    mpcc wrote everything in it. `max_memory` (bytes) bounds the simulator's memory:
    a scenario estimated to need more is refused, and a run that reaches it stops
    early with `summary["sim"]["stopped_early"]` saying so (default:
    mpcc.limits.DEFAULT_MAX_MEMORY_BYTES).
    Raises ScenarioError for an invalid scenario, SimulationError if the simulator
    rejects it, OutputFolderError for an `out` it may not replace (before
    simulating), KeyboardInterrupt at once on Ctrl-C, and OutputsIncomplete (its
    `result` is the run) if some outputs could not be written (out of memory, a
    failed plot) after saving the others. `record_cc` (a path) records the
    congestion-control events of the first multipath connection there, for the
    eBPF replay harness (docs/kernel.md). `event_log` keeps the per-event log
    (`Result.events`, events.parquet), as the scenario's `event_log = true` does.
    """
    from . import _core
    from .scenario import load

    scenario = load(scenario)
    config = scenario.to_config(seed=seed)
    max_memory_bytes = _check_resources(config, max_memory)
    if out is not None:
        from . import output

        output.check_replaceable(out, force)  # before spending the simulation time
    if record_cc is not None:
        config["record_cc"] = {"path": str(record_cc)}
    if event_log:
        config["event_log"] = True
    try:
        summary_json, tables, pcaps = _core.run(json.dumps(config), max_memory_bytes=max_memory_bytes)
    except ValueError as e:
        raise SimulationError(str(e)) from None
    result = Result(scenario, config, json.loads(summary_json), tables, pcaps)
    if result.stopped_early:  # never hand back partial results without a word
        warnings.warn(f"{result.stopped_early}; the results cover only the simulated time", StoppedEarlyWarning,
                      stacklevel=2)
    if out is not None:
        result.save(out, plots=plots, force=force)
    return result


def _check_resources(config: dict, max_memory: int | None) -> int:
    """Refuses a scenario estimated to need more than `max_memory` bytes (ScenarioError
    naming the fields that drive the estimate); returns the limit for the simulator."""
    from . import limits

    limits.check_resources(config, max_memory)
    return max_memory if max_memory is not None else limits.DEFAULT_MAX_MEMORY_BYTES


class Result:
    """The outcome of one run.

    - `summary`: the summary dict (flows, links, sim), as written to summary.json
    - `flows`, `links`: one row per flow / link (index: its name)
    - `subflows`: one row per subflow (index: flow name, subflow id), with `path`
      (its link names)
    - `flow_series`, `link_series`: time series in long format with a `flow` /
      `link` column holding names; `flow_series` has one row per (time, flow,
      subflow) and derived rates per sample interval: `throughput_bps` from the
      subflow's `received_bytes`, `goodput_bps` from the connection's
      `delivered_bytes` (repeated on each subflow row, like that counter)
    - `out`: the results folder, once saved; `plots`: the PNG files saved with it
    - `stopped_early`: why the simulation stopped before the scenario's end (it
      reached its memory limit), or None
    - `pcaps`: the packet captures the scenario asked for (`pcap`), as
      {"link-NAME" or "flow-NAME": pcap file bytes}; saved as NAME.pcap
    """

    def __init__(self, scenario: Scenario, config: dict, summary: dict, tables: dict, pcaps: dict | None = None):
        self.scenario = scenario
        self.config = config
        self.summary = summary
        self.tables = tables
        self.pcaps = dict(pcaps or {})
        self.out: Path | None = None
        self.plots: list[Path] = []
        self.flow_names = [f["name"] for f in config["flows"]]
        self.link_names = [link["name"] for link in config["links"]]

    def __repr__(self) -> str:
        return f"<mpcc.Result flows={self.flow_names} links={self.link_names}>"

    @property
    def stopped_early(self) -> str | None:
        return self.summary.get("sim", {}).get("stopped_early")

    @cached_property
    def flows(self):
        df = _entities(self.summary.get("flows", {}), self.flow_names, "flow")
        return df.drop(columns="subflows", errors="ignore")  # see `subflows`

    @cached_property
    def links(self):
        return _entities(self.summary.get("links", {}), self.link_names, "link")

    @cached_property
    def subflows(self):
        import pandas as pd

        rows = []
        for f in self.config["flows"]:
            stats = self.summary.get("flows", {}).get(f["name"], {}).get("subflows", [])
            routes = f.get("subflows") or [{"path": f.get("path", [])}]
            for i, sf in enumerate(stats):
                path = routes[i]["path"] if i < len(routes) else []
                names = ", ".join(self.link_names[j] for j in path)
                rows.append({"flow": f["name"], "subflow": i, "path": names, **sf})
        df = pd.DataFrame(rows, columns=None if rows else ["flow", "subflow", "path"])
        return df.set_index(["flow", "subflow"])

    @cached_property
    def flow_series(self):
        df = _series(self.tables.get("flow_series", {}), "flow", self.flow_names)
        if "subflow" in df:
            df["subflow"] = df["subflow"].astype("int64")
        interval = self.config.get("sample_interval_ns", 0) / 1e9
        if "received_bytes" in df and "throughput_bps" not in df:
            df["throughput_bps"] = _rate_bps(df, ["flow", "subflow"], "received_bytes", interval)
        if "delivered_bytes" in df and "goodput_bps" not in df:
            df["goodput_bps"] = _connection_rate_bps(df, "delivered_bytes", interval)
        if "delivered_bytes" in df and "received_bytes" in df and "goodput_smooth_bps" not in df:
            df["goodput_smooth_bps"] = _smooth_goodput_bps(df, interval)
        return df

    @cached_property
    def delay_cdf(self):
        """Each flow's delay distributions over the measurement window, drawn from
        every sample: `flow` (name), `metric` ("rtt" or "app_delay"), `q` (0 to 1, 201
        points from the minimum to the maximum) and `delay_s` (nearest rank)."""
        import pandas as pd

        table = self.tables.get("delay_cdf") or {"flow": [], "metric": [], "q": [], "delay_s": []}
        df = pd.DataFrame({col: values for col, values in table.items()})
        df["flow"] = [self.flow_names[int(i)] for i in df["flow"]]
        df["metric"] = [("rtt", "app_delay")[int(m)] for m in df["metric"]]
        return df[["flow", "metric", "q", "delay_s"]]

    @cached_property
    def events(self):
        """The per-event log (None unless the run kept it): one row per event with
        `t_s`, `kind` (send, receive, drop, loss, rto, recovery_enter, recovery_exit,
        subflow_on, subflow_off, undo, probe), `flow` (name), `subflow`, `seq` and `dsn` (in
        segments), `link` (name of a drop's link, else ""), `ack` (a dropped ACK) and
        `count` (send: 1 for data never sent before; loss: segments marked lost)."""
        import pandas as pd

        table = self.tables.get("event_log")
        if table is None:
            return None
        df = pd.DataFrame({col: values for col, values in table.items()})
        if df.empty:
            return pd.DataFrame(columns=EVENT_COLUMNS)
        names = {"flow": self.flow_names, "link": self.link_names, "kind": EVENT_KINDS}
        for col, labels in names.items():
            df[col] = [labels[int(i)] if 0 <= i < len(labels) else "" for i in df[col]]
        for col in ("subflow", "seq", "dsn", "count"):
            df[col] = df[col].astype("int64")
        df["ack"] = df["ack"].astype(bool)
        return df[EVENT_COLUMNS]

    @cached_property
    def link_series(self):
        return _series(self.tables.get("link_series", {}), "link", self.link_names)

    def save(self, out, plots: bool = True, force: bool = False) -> Path:
        """Writes the results folder and, if `plots`, the PNG plots (see mpcc.output.write)."""
        from . import output

        try:
            self.out, self.plots = output.write(self, out, force=force, plots=plots)
        except output.OutputsIncomplete as e:
            self.out = e.folder
            raise
        return self.out


# The per-event log's kinds, in the simulator's order (crates/mpcc-sim/src/event_log.rs).
EVENT_KINDS = ["send", "receive", "drop", "loss", "rto", "recovery_enter", "recovery_exit", "subflow_on",
               "subflow_off", "undo", "probe"]
EVENT_COLUMNS = ["t_s", "kind", "flow", "subflow", "seq", "dsn", "link", "ack", "count"]


def _entities(by_name: dict, order: list[str], label: str):
    """One row per entity, in configuration order, indexed by name."""
    import pandas as pd

    names = [n for n in order if n in by_name] + sorted(n for n in by_name if n not in order)
    df = pd.DataFrame.from_dict({n: by_name[n] for n in names}, orient="index")
    df.index.name = label
    return df


def _series(table: dict, key: str, names: list[str]):
    """A long-format DataFrame whose `key` column holds entity names instead of indices."""
    import pandas as pd

    df = pd.DataFrame({col: values for col, values in table.items()})
    if key in df:
        idx = df[key].astype("int64")
        df[key] = [names[i] if 0 <= i < len(names) else str(i) for i in idx]
    first = ("t_s", key, "subflow")
    ordered = [c for c in first if c in df] + [c for c in df if c not in first]
    return df[ordered]


def _rate_bps(df, keys: list[str], cumulative_bytes: str, interval_s: float):
    """Bits per second between consecutive samples of a cumulative byte counter, per entity.

    The first sample of each entity is measured from one interval earlier (not
    before time 0) and 0 bytes: a subflow's counters start when it joins; a sample
    at time 0 has rate 0."""
    import numpy as np

    rate = np.full(len(df), np.nan)
    keys = [k for k in keys if k in df]
    for _, rows in df.groupby(keys if len(keys) > 1 else keys[0], sort=False).groups.items():
        sub = df.loc[rows].sort_values("t_s")
        t_s = sub["t_s"].to_numpy(dtype=float)
        t = np.concatenate([[max(0.0, t_s[0] - interval_s) if interval_s > 0 else 0.0], t_s])
        b = np.concatenate([[0.0], sub[cumulative_bytes].to_numpy(dtype=float)])
        dt = np.diff(t)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(dt > 0, np.diff(b) * 8.0 / dt, 0.0)
        rate[df.index.get_indexer(sub.index)] = r
    return rate


def _smooth_goodput_bps(df, interval_s: float):
    """Goodput for plots: in-order delivery spread at the rate data reached the receiver. Data held back by
    a gap is released at once when the gap fills, so the goodput of a sample interval can exceed every
    link's capacity. Here the delivered bytes shown by sample k are S_k = min(D_k, S_{k-1} + (R_k - R_{k-1})),
    D the connection's in-order delivered bytes and R the bytes its subflows received: never more per
    interval than arrived in it (so never above the paths' capacity), and S catches up with D as soon as
    arrivals allow, so no byte is lost, only shown later. Copied to every row of the flow and time."""
    import numpy as np
    import pandas as pd

    per_t = df.groupby(["flow", "t_s"], sort=True).agg(D=("delivered_bytes", "first"), R=("received_bytes", "sum"))
    out = pd.Series(np.nan, index=per_t.index)
    for flow, rows in per_t.groupby(level="flow", sort=False):
        t = rows.index.get_level_values("t_s").to_numpy(dtype=float)
        d, r = rows["D"].to_numpy(dtype=float), rows["R"].to_numpy(dtype=float)
        shown, prev_s, prev_r = np.empty(len(t)), 0.0, 0.0
        for k in range(len(t)):
            prev_s = min(d[k], prev_s + max(0.0, r[k] - prev_r))
            prev_r = r[k]
            shown[k] = prev_s
        t0 = np.concatenate([[max(0.0, t[0] - interval_s) if interval_s > 0 else 0.0], t])
        dt = np.diff(t0)
        with np.errstate(divide="ignore", invalid="ignore"):
            out.loc[rows.index] = np.where(dt > 0, np.diff(np.concatenate([[0.0], shown])) * 8.0 / dt, 0.0)
    return out.reindex(pd.MultiIndex.from_frame(df[["flow", "t_s"]])).to_numpy()


def _connection_rate_bps(df, cumulative_bytes: str, interval_s: float):
    """`_rate_bps` of a per-connection counter repeated on each subflow's rows: computed
    once per (flow, time) and copied back to every row of that flow and time."""
    import pandas as pd

    conn = df.drop_duplicates(["flow", "t_s"])[["t_s", "flow", cumulative_bytes]].reset_index(drop=True)
    rate = pd.Series(_rate_bps(conn, ["flow"], cumulative_bytes, interval_s),
                     index=pd.MultiIndex.from_frame(conn[["flow", "t_s"]]))
    return rate.reindex(pd.MultiIndex.from_frame(df[["flow", "t_s"]])).to_numpy()
