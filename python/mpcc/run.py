"""`mpcc.run`: validate a scenario, simulate it, and hand back the results as
pandas DataFrames (and, with `out=`, as files on disk)."""

from __future__ import annotations

import json
import warnings
from array import array
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from .parquet import Booleans

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
    if out is not None:
        from . import version

        version.prefetch_commit()  # summary.json names the commit; git runs while the simulator does
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
        self._columns: dict = {}
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
        import pandas as pd

        return pd.DataFrame(self.columns("flow_series"))

    @cached_property
    def delay_cdf(self):
        """Each flow's delay distributions over the measurement window, drawn from
        every sample: `flow` (name), `metric` ("rtt" or "app_delay"), `q` (0 to 1, 201
        points from the minimum to the maximum) and `delay_s` (nearest rank)."""
        import pandas as pd

        return pd.DataFrame(self.columns("delay_cdf"))

    @cached_property
    def events(self):
        """The per-event log (None unless the run kept it): one row per event with
        `t_s`, `kind` (send, receive, drop, loss, rto, recovery_enter, recovery_exit,
        subflow_on, subflow_off, undo, probe, receiver_dupack, receiver_off, receiver_on),
        `flow` (name), `subflow`, `seq` and `dsn` (in
        segments), `link` (name of a drop's link, else ""), `ack` (a dropped ACK) and
        `count` (send: 1 for data never sent before; loss: segments marked lost)."""
        import pandas as pd

        columns = self.columns("event_log")
        return None if columns is None else pd.DataFrame(columns)

    @cached_property
    def metric_series(self):
        """The controllers' and schedulers' own figures over time (None unless the
        scenario asked for them, `metric_series = true`): one row per (time, flow,
        subflow), a column per figure named `cc.NAME` or `sched.NAME` (docs/metrics.md)."""
        import pandas as pd

        columns = self.columns("metric_series")
        return None if columns is None else pd.DataFrame(columns)

    @cached_property
    def link_series(self):
        import pandas as pd

        return pd.DataFrame(self.columns("link_series"))

    def columns(self, table: str) -> dict | None:
        """A result table as named numpy columns (what the DataFrames are built from;
        see mpcc.tables): "flow_series", "link_series", "delay_cdf", "metric_series" or
        "event_log" (these two None unless the run kept them). Names stay lists of str."""
        plain = self.plain_columns(table)
        if plain is None:
            return None
        import numpy as np

        return {name: np.array(values, dtype=bool) if isinstance(values, Booleans)
                else np.array(values) if isinstance(values, array) else values
                for name, values in plain.items()}

    def plain_columns(self, table: str) -> dict | None:
        """`columns(table)` without numpy: `array.array` numbers, lists of names and
        `parquet.Booleans`, as the Parquet files are written from (mpcc.tables)."""
        if table not in self._columns:
            from . import tables

            raw = self.tables.get(table)
            if table == "flow_series":
                interval = self.config.get("sample_interval_ns", 0) / 1e9
                cols = tables.flow_series(raw or {}, self.flow_names, interval)
            elif table == "link_series":
                cols = tables.link_series(raw or {}, self.link_names)
            elif table == "metric_series":
                cols = None if raw is None else tables.metric_series(raw, self.flow_names)
            elif table == "delay_cdf":
                cols = tables.delay_cdf(raw, self.flow_names)
            elif table == "event_log":
                cols = None if raw is None else tables.events(raw, self.flow_names, self.link_names)
            else:
                raise KeyError(f"no table {table!r}")
            self._columns[table] = cols
        return self._columns[table]

    def save(self, out, plots: bool = True, force: bool = False) -> Path:
        """Writes the results folder and, if `plots`, the PNG plots (see mpcc.output.write)."""
        from . import output

        try:
            self.out, self.plots = output.write(self, out, force=force, plots=plots)
        except output.OutputsIncomplete as e:
            self.out = e.folder
            raise
        return self.out


def _entities(by_name: dict, order: list[str], label: str):
    """One row per entity, in configuration order, indexed by name."""
    import pandas as pd

    names = [n for n in order if n in by_name] + sorted(n for n in by_name if n not in order)
    df = pd.DataFrame.from_dict({n: by_name[n] for n in names}, orient="index")
    df.index.name = label
    return df
