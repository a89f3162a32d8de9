"""Multipath flows through the front end: `paths` and `subflows` in the schema,
per-subflow results, plots, command-line errors and determinism."""

import json

import numpy as np
import pandas as pd
import pytest

import mpcc
from conftest import ROOT, run_cli
from mpcc.scenario import Scenario, ScenarioError

TWO_PATHS = """
duration = "{duration}"
seed = 1
[links.wifi]
rate = "10Mbps"
delay = "10ms"
queue = {{ kind = "droptail", packets = 50 }}
[links.lte]
rate = "20Mbps"
delay = "40ms"
queue = {{ kind = "droptail", packets = 100 }}
loss = {{ kind = "bernoulli", p = 0.001 }}
[links.lte_up]
rate = "5Mbps"
delay = "40ms"
[[flows]]
name = "mp"
cc = "lia"
start = "1s"
{route}
"""


def scenario(route: str, duration: str = "10s") -> str:
    return TWO_PATHS.format(route=route, duration=duration)


def config(route: str) -> dict:
    return Scenario.from_toml(scenario(route)).to_config()["flows"][0]


# ---- schema -------------------------------------------------------------------------


def test_paths_shorthand_is_subflows_with_default_scheduler():
    flow = config('paths = [["wifi"], ["lte", "wifi"]]')
    assert "path" not in flow and "reverse_path" not in flow
    assert flow["subflows"] == [
        {"path": [0], "reverse_path": None, "start_ns": None, "stop_ns": None},
        {"path": [1, 0], "reverse_path": None, "start_ns": None, "stop_ns": None},
    ]
    assert flow["scheduler"] == "minrtt" == mpcc.schedulers()[0]["name"]
    assert flow == config('subflows = [{ path = ["wifi"] }, { path = ["lte", "wifi"] }]')


def test_subflows_convert_times_and_reverse_routes():
    flow = config('scheduler = "roundrobin"\nsubflows = [{ path = ["wifi"] }, '
                  '{ path = ["lte"], reverse_path = ["lte_up"], start = "2.5s", stop = "8s" }]')
    assert flow["scheduler"] == "roundrobin" and flow["start_ns"] == 1_000_000_000
    assert flow["subflows"][1] == {"path": [1], "reverse_path": [2], "start_ns": 2_500_000_000,
                                   "stop_ns": 8_000_000_000}
    json.dumps(flow)


def test_subflow_cost_per_mbit_reaches_the_simulator():
    flow = config('subflows = [{ path = ["wifi"], cost_per_mbit = 1 }, '
                  '{ path = ["lte"], cost_per_mbit = 10 }]')
    assert [sf["cost_per_mbit"] for sf in flow["subflows"]] == [1.0, 10.0]
    assert "cost_per_mbit" not in config('subflows = [{ path = ["wifi"] }]')["subflows"][0], "0: omitted"
    with pytest.raises(ScenarioError) as err:
        config('subflows = [{ path = ["wifi"], cost_per_mbit = -1 }]')
    assert err.value.field == "flows[0].subflows[0].cost_per_mbit", str(err.value)


def test_single_path_configuration_is_unchanged():
    # No `scheduler` key unless given: the canonical form (and run cache keys) of
    # single-path flows stay what they were before multipath flows.
    flow = config('path = ["wifi"]')
    assert flow["path"] == [0] and flow["reverse_path"] is None
    assert "scheduler" not in flow and "subflows" not in flow
    assert config('path = ["wifi"]\nscheduler = "roundrobin"')["scheduler"] == "roundrobin"


def test_schedulers_come_from_the_simulator():
    names = [s["name"] for s in mpcc.schedulers()]
    assert {"minrtt", "roundrobin"} <= set(names)
    assert all(s["summary"] for s in mpcc.schedulers())


@pytest.mark.parametrize(
    "route, field, words",
    [
        ('paths = [["wifi"]]\nscheduler = "fastest"', "flows[0].scheduler", ['"fastest"', "allowed: minrtt, roundrobin"]),
        ('subflows = [{ path = ["wifi"] }, { path = [] }]', "flows[0].subflows[1].path", ["at least 1"]),
        ('paths = [["wifi"], []]', "flows[0].paths[1]", ["at least 1"]),
        ("paths = []", "flows[0].paths", ["at least 1"]),
        ('subflows = [{ path = ["wifi"] }, { path = ["lte2"] }]', "flows[0].subflows[1].path[0]",
         ['unknown link "lte2"', "defined links: wifi, lte, lte_up"]),
        ('paths = [["wifi"], ["wifi", "x"]]', "flows[0].paths[1][1]", ['unknown link "x"']),
        ('subflows = [{ path = ["wifi"], reverse_path = ["y"] }]', "flows[0].subflows[0].reverse_path[0]",
         ['unknown link "y"']),
        ('path = ["wifi"]\nsubflows = [{ path = ["lte"] }]', "flows[0].subflows", ["exactly one", "path and subflows"]),
        ('path = ["wifi"]\npaths = [["lte"]]', "flows[0].paths", ["exactly one"]),
        ("", "flows[0].path", ["missing", "path, paths or subflows"]),
        ('paths = [["wifi"]]\nreverse_path = ["lte_up"]', "flows[0].reverse_path", ["only with `path`"]),
        ('subflows = [{ path = ["lte"], start = "5s", stop = "4s" }]', "flows[0].subflows[0].stop", ["after start"]),
        ('subflows = [{ path = ["lte"], stop = "0.5s" }]', "flows[0].subflows[0].stop", ["after the flow's start"]),
        ('subflows = [{ path = ["lte"], start = "0.5s" }]', "flows[0].subflows[0].start", ["before the flow's start"]),
        ('subflows = [{ path = ["lte"], start = "10s" }]', "flows[0].subflows[0].start", ["duration"]),
        ('subflows = [{ path = ["lte"], begin = "2s" }]', "flows[0].subflows[0].begin",
         ["unknown field", "path, reverse_path, start, stop"]),
    ],
)
def test_multipath_errors_name_the_field(route, field, words):
    with pytest.raises(ScenarioError) as err:
        Scenario.from_toml(scenario(route)).to_config()
    message = str(err.value)
    assert err.value.field == field, message
    assert message.startswith(field + ": ") and "\n" not in message
    for w in words:
        assert w in message


@pytest.mark.parametrize(
    "route, words",
    [
        ('paths = [["wifi"]]\nscheduler = "fastest"', ["flows[0].scheduler", "allowed: minrtt, roundrobin"]),
        ('subflows = [{ path = [] }]', ["flows[0].subflows[0].path"]),
        ('subflows = [{ path = ["wifi"] }, { path = ["lte2"] }]', ["flows[0].subflows[1].path[0]", '"lte2"']),
        ('path = ["wifi"]\nsubflows = [{ path = ["lte"] }]', ["flows[0].subflows", "exactly one"]),
        ('subflows = [{ path = ["lte"], start = "5s", stop = "4s" }]', ["flows[0].subflows[0].stop", "after start"]),
    ],
)
def test_cli_rejects_bad_multipath_flows_in_one_line(route, words, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(scenario(route))
    proc = run_cli("run", path, "--out", tmp_path / "out")
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line.startswith("mpcc: error: ") and "Traceback" not in proc.stderr
    for w in words:
        assert w in line
    assert not (tmp_path / "out").exists()


# ---- results --------------------------------------------------------------------------

JOIN_LEAVE = 'subflows = [{ path = ["wifi"] }, { path = ["lte"], reverse_path = ["lte_up"], start = "3.05s", stop = "7s" }]'


@pytest.fixture(scope="module")
def result():
    return mpcc.run(scenario(JOIN_LEAVE), plots=False)


def test_subflows_frame_follows_the_summary(result):
    sf = result.subflows
    assert list(sf.index) == [("mp", 0), ("mp", 1)] and sf.index.names == ["flow", "subflow"]
    assert list(sf["path"]) == ["wifi", "lte"]
    flow = result.summary["flows"]["mp"]
    assert sf.loc[("mp", 1), "throughput_bps"] == flow["subflows"][1]["throughput_bps"] > 0
    assert sf["sent_packets"].sum() == flow["sent_packets"]
    assert "subflows" not in result.flows  # the lists live in `subflows`
    assert result.flows.loc["mp", "scheduler"] == "minrtt"


def test_series_have_one_row_per_subflow_while_it_exists(result):
    fs = result.flow_series
    assert list(fs.columns[:3]) == ["t_s", "flow", "subflow"]
    span = fs.groupby("subflow")["t_s"].agg(["min", "max"])
    assert span.loc[1, "min"] == pytest.approx(3.1) and span.loc[1, "max"] < 7.0
    assert span.loc[0, "max"] == pytest.approx(10.0)


def test_subflow_throughput_and_connection_goodput(result):
    fs = result.flow_series
    for sf, rows in fs.groupby("subflow"):
        rows = rows.sort_values("t_s")
        dt = rows["t_s"].diff().fillna(rows["t_s"].iloc[0] if sf == 0 else 0.1)
        # The per-subflow rate integrates back to that subflow's received bytes ...
        assert (rows["throughput_bps"] * dt).sum() / 8 == pytest.approx(rows["received_bytes"].iloc[-1], rel=1e-9)
    # ... and the connection goodput, the same on every subflow row of a time, to the
    # delivered bytes; while both subflows carry data it exceeds each one's throughput.
    both = fs[fs["t_s"].between(4.0, 6.5)]
    assert both.groupby("t_s")["goodput_bps"].nunique().eq(1).all()
    conn = fs.drop_duplicates("t_s").sort_values("t_s")
    dt = conn["t_s"].diff().fillna(conn["t_s"].iloc[0])
    assert (conn["goodput_bps"] * dt).sum() / 8 == pytest.approx(conn["delivered_bytes"].iloc[-1], rel=1e-9)
    mean = both.groupby("subflow")["throughput_bps"].mean()
    assert both["goodput_bps"].mean() > 1.2 * mean.max() and mean.min() > 1e6


def test_multipath_run_writes_per_subflow_series_and_plots(tmp_path):
    out = tmp_path / "mp"
    proc = run_cli("run", ROOT / "scenarios/multipath_demo.toml", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "subflow 0 (wifi)" in proc.stdout and "subflow 1 (lte)" in proc.stdout
    fs = pd.read_parquet(out / "flow_series.parquet")
    assert set(map(tuple, fs[["flow", "subflow"]].drop_duplicates().to_numpy())) == {
        ("mptcp", 0), ("mptcp", 1), ("reno", 0)}
    for name in ("throughput.png", "cwnd.png", "rtt.png", "queue.png"):
        data = (out / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000


def test_plot_lines_are_per_subflow_for_multipath_flows(tmp_path):
    from mpcc import plots

    res = mpcc.run(ROOT / "scenarios/multipath_demo.toml")
    fs = res.flow_series
    labels = [line[0] for line in plots._throughput_lines(fs)]
    assert labels == ["mptcp/0", "mptcp/1", "mptcp", "reno"]
    styles = [line[3] for line in plots._throughput_lines(fs)]
    assert styles == ["--", "--", "-", "-"]
    assert [line[0] for line in plots._subflow_lines(fs, "cwnd", 1.0, False)] == ["mptcp/0", "mptcp/1", "reno"]
    # The connection line is the goodput as plots draw it (goodput_smooth_bps: in-order
    # bursts spread at the arrival rate, docs/scenarios.md), one point per sample time.
    conn = plots._throughput_lines(fs)[2]
    assert len(conn[1]) == fs[fs["flow"] == "mptcp"]["t_s"].nunique()
    assert np.allclose(conn[2].to_numpy(), fs[fs["subflow"] == 0].query("flow == 'mptcp'")["goodput_smooth_bps"] * 1e-6)


def test_single_path_plot_lines_keep_their_labels(tmp_path):
    from mpcc import plots

    fs = mpcc.run(ROOT / "scenarios/demo.toml").flow_series
    lines = plots._throughput_lines(fs)
    assert [line[0] for line in lines] == ["reno", "cubic"]
    assert np.allclose(lines[0][2].to_numpy(), fs[fs["flow"] == "reno"].sort_values("t_s")["goodput_smooth_bps"] * 1e-6)


def test_plots_of_a_folder_without_subflow_columns(tmp_path):
    """A results folder written before multipath flows: no `subflow`, no `goodput_bps`."""
    from mpcc.plots import plot_results

    res = mpcc.run(ROOT / "scenarios/demo.toml", out=tmp_path / "old", plots=False)
    old = res.flow_series.drop(columns=["subflow", "goodput_bps"]).assign(throughput_bps=res.flow_series["goodput_bps"])
    old.to_parquet(tmp_path / "old/flow_series.parquet", index=False)
    written = plot_results(tmp_path / "old")
    assert sorted(p.name for p in written) == ["cwnd.png", "queue.png", "rtt.png", "throughput.png"]


# ---- determinism ------------------------------------------------------------------------


def _without_wall_time(path):
    return [line for line in path.read_text().splitlines() if '"wall_s"' not in line]


def test_multipath_runs_are_deterministic(tmp_path):
    path = tmp_path / "mp.toml"
    path.write_text(scenario(JOIN_LEAVE))
    for name, extra in (("one", []), ("two", []), ("other", ["--seed", "2"])):
        proc = run_cli("run", path, "--out", tmp_path / name, "--no-plots", *extra)
        assert proc.returncode == 0, proc.stderr
    assert _without_wall_time(tmp_path / "one/summary.json") == _without_wall_time(tmp_path / "two/summary.json")
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "one/flow_series.parquet"), pd.read_parquet(tmp_path / "two/flow_series.parquet")
    )
    # The LTE link's random loss draws depend on the seed.
    one = json.loads((tmp_path / "one/summary.json").read_text())["flows"]["mp"]
    other = json.loads((tmp_path / "other/summary.json").read_text())["flows"]["mp"]
    assert one["subflows"][1]["losses"] > 0 and one["subflows"] != other["subflows"]


def test_scheduler_params_reach_the_simulator(tmp_path):
    route = 'paths = [["wifi"], ["lte"]]\nscheduler = "ecf"\nscheduler_params = { beta = 0.5 }'
    assert config(route)["scheduler_params"] == {"beta": 0.5}
    assert "scheduler_params" not in config('paths = [["wifi"], ["lte"]]\nscheduler = "ecf"')
    path = tmp_path / "bad.toml"
    path.write_text(scenario(route.replace("beta", "gamma"), duration="2s"))
    proc = run_cli("run", path, "--out", tmp_path / "out")
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.splitlines()
    assert "scheduler_params.gamma" in line and "allowed: beta" in line


def _two_paths(name: str, scheduler: str, extra: str = "") -> dict:
    text = (ROOT / "scenarios" / "validation" / f"{name}.toml").read_text()
    text = text.replace('scheduler = "linger"\n', "").replace(
        'paths = [["path1"], ["path2"]]', f'paths = [["path1"], ["path2"]]\nscheduler = "{scheduler}"{extra}')
    return mpcc.run(text, plots=False).summary["flows"]["mptcp"]


def test_linger_and_minrtt_run_a_bulk_transfer_alike():
    """With bulk data every window stays full, so upstream Linux's linger-time rule and
    minrtt give the same run (docs/schedulers.md#linger)."""
    a, b = _two_paths("testbed_two_paths_loss", "minrtt"), _two_paths("testbed_two_paths_loss", "linger")
    assert a["retransmissions"] > 50
    assert [s["sent_packets"] for s in a["subflows"]] == [s["sent_packets"] for s in b["subflows"]]
    assert a["goodput_bps"] == b["goodput_bps"]


def test_linger_splits_an_application_limited_stream_as_the_kernel_does():
    """A 12 Mbit/s CBR stream over 10 and 20 Mbit/s paths: Linux 6.18 carried 9.51 and
    2.51 Mbit/s on them (two testbed runs, docs/schedulers.md#linger); linger with the
    linux profile's window validation within 15 % of both, where minrtt with validation
    leaves the short path (its smoothed RTT stale) nearly idle."""
    linger = [s["throughput_bps"] / 1e6 for s in _two_paths("testbed_two_paths_cbr", "linger")["subflows"]]
    minrtt = [s["throughput_bps"] / 1e6 for s in _two_paths("testbed_two_paths_cbr", "minrtt")["subflows"]]
    assert abs(linger[0] / 9.51 - 1) <= 0.15 and abs(linger[1] / 2.51 - 1) <= 0.15, linger
    assert minrtt[0] < 1.0 < 10.0 < minrtt[1], minrtt
