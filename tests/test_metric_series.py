"""`metric_series`: the controllers' and schedulers' own figures over time (issue 12:
coupling terms recorded as time series through `metrics()`)."""

import tomllib

import numpy as np
import pandas as pd

import mpcc
from mpcc.scenario import Scenario

from conftest import ROOT

TWO_PATHS = """
description = "LIA over two paths beside a CUBIC flow"
duration = "10s"
sample_interval = "250ms"
metric_series = {metric_series}

[links.a]
rate = "10Mbps"
delay = "10ms"
queue = {{ kind = "droptail", packets = 50 }}

[links.b]
rate = "5Mbps"
delay = "30ms"
queue = {{ kind = "droptail", packets = 50 }}

[[flows]]
name = "mp"
cc = "lia"
paths = [["a"], ["b"]]

[[flows]]
name = "c"
cc = "cubic"
path = ["a"]
"""


def run(text, tmp_path):
    return mpcc.run(Scenario.from_toml(text, tmp_path), out=tmp_path / "out", plots=False)


def test_lia_alpha_over_time_is_rfc_6356s_alpha_of_the_sampled_windows(tmp_path):
    result = run(TWO_PATHS.format(metric_series="true"), tmp_path)
    ms, fs = result.metric_series, result.flow_series
    assert {"cc.alpha", "cc.increase", "cc.w_max", "cc.k"} <= set(ms.columns)
    assert ms[ms.flow == "c"]["cc.alpha"].isna().all()  # CUBIC has no alpha
    both = fs[fs.flow == "mp"].merge(ms[ms.flow == "mp"], on=["t_s", "flow", "subflow"])
    checked = 0
    for t, rows in both.groupby("t_s"):
        if len(rows) < 2 or (rows["srtt_s"] <= 0).any():
            continue
        w, rtt = rows["cwnd"].to_numpy(), rows["srtt_s"].to_numpy()
        alpha = w.sum() * (w / rtt**2).max() / (w / rtt).sum() ** 2  # RFC 6356 section 3
        assert np.allclose(rows["cc.alpha"], alpha, rtol=1e-6), t
        checked += 1
    assert checked >= 30


def test_the_table_is_kept_only_when_asked_and_changes_nothing_else(tmp_path):
    on = run(TWO_PATHS.format(metric_series="true"), tmp_path / "on")
    off = run(TWO_PATHS.format(metric_series="false"), tmp_path / "off")
    assert off.metric_series is None and not (tmp_path / "off/out/metric_series.parquet").exists()
    pd.testing.assert_frame_equal(on.flow_series, off.flow_series)
    on.summary["sim"].pop("wall_s")
    off.summary["sim"].pop("wall_s")
    assert on.summary == off.summary
    saved = pd.read_parquet(tmp_path / "on/out/metric_series.parquet")
    pd.testing.assert_frame_equal(saved, on.metric_series)


def test_a_schedulers_figures_are_recorded_on_its_connections_rows(tmp_path):
    from mpcc.papers.park import _tsc_flow

    with open(ROOT / "scenarios/park/ch2_conventional.toml", "rb") as f:
        data = tomllib.load(f)
    data["flows"] = [_tsc_flow(0.2)]
    data["duration"], data["warmup"], data["metric_series"] = "6s", "1s", True
    result = mpcc.run(Scenario.from_dict(data, ROOT / "scenarios/park"), plots=False)
    ms = result.metric_series
    assert {"sched.tsc_slots", "sched.tsc_mean_slot_s", "sched.tsc_delay_bound_s"} <= set(ms.columns)
    assert "sched.tsc_within_bound" not in ms  # a fraction of delay samples: a summary figure only
    per_time = ms.groupby("t_s")["sched.tsc_slots"]
    assert (per_time.nunique() == 1).all()  # the connection's figure, repeated on each subflow
    slots = per_time.first().to_numpy()
    assert (np.diff(slots) >= 0).all() and slots[-1] > slots[0]
    assert np.allclose(ms["sched.tsc_delay_bound_s"], 0.3)
