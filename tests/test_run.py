"""End to end through the simulator: the Python API, the results folder, determinism."""

import json

import pandas as pd
import pytest

import mpcc
from conftest import ROOT, dumbbell, run_cli


@pytest.fixture(scope="module")
def result():
    return mpcc.run(dumbbell("5s", p=0.001))


def test_summary_has_the_promised_fields(result):
    flow_keys = {"throughput_bps", "goodput_bps", "rtt_mean_s", "rtt_var_s2", "rtt_p95_s", "retransmissions",
                 "losses", "timeouts"}
    assert set(result.summary["flows"]) == {"a", "b"}
    for name in ("a", "b"):
        assert flow_keys <= set(result.summary["flows"][name])
    assert {"utilization", "drops", "queue_delay_mean_s"} <= set(result.summary["links"]["bottleneck"])
    assert {"events", "packets", "wall_s"} <= set(result.summary["sim"])


def test_entity_frames_follow_the_summary(result):
    assert list(result.flows.index) == ["a", "b"] and result.flows.index.name == "flow"
    assert result.flows.loc["a", "throughput_bps"] == result.summary["flows"]["a"]["throughput_bps"]
    assert list(result.links.index) == ["bottleneck"]
    # Two Reno flows keep a 10 Mbit/s bottleneck busy.
    assert 0.8 < result.links.loc["bottleneck", "utilization"] <= 1.0
    # Payload delivered by both flows over the 5 s fits the link and nearly fills it.
    payload_bps = 8 * result.flows["delivered_bytes"].sum() / 5.0
    assert 0.85 * 10e6 * 1448 / 1500 < payload_bps <= 10e6


def test_series_use_names_and_derive_throughput(result):
    fs, ls = result.flow_series, result.link_series
    assert set(fs["flow"]) == {"a", "b"} and set(ls["link"]) == {"bottleneck"}
    for col in ("t_s", "cwnd", "srtt_s", "delivered_bytes", "throughput_bps", "goodput_bps"):
        assert col in fs
    for col in ("t_s", "queue_packets"):
        assert col in ls
    # A single-path flow has one subflow, 0.
    assert fs["subflow"].eq(0).all() and list(fs.columns[:3]) == ["t_s", "flow", "subflow"]
    a = fs[fs["flow"] == "a"].sort_values("t_s")
    # Sampled every 100 ms: the derived rates integrate back to the delivered bytes
    # (goodput) and to the bytes that reached the receiver (throughput).
    assert a["t_s"].diff().dropna().round(9).eq(0.1).all()
    dt = a["t_s"].diff().fillna(a["t_s"].iloc[0])
    assert (a["goodput_bps"] * dt).sum() / 8 == pytest.approx(a["delivered_bytes"].iloc[-1], rel=1e-9)
    assert (a["throughput_bps"] * dt).sum() / 8 == pytest.approx(a["received_bytes"].iloc[-1], rel=1e-9)
    # Flow b starts at 1 s: nothing delivered before.
    b = fs[fs["flow"] == "b"]
    assert (b[b["t_s"] < 1.0]["delivered_bytes"] == 0).all() and b["delivered_bytes"].iloc[-1] > 0


def test_single_path_flows_have_one_subflow_row(result):
    sf = result.subflows
    assert list(sf.index) == [("a", 0), ("b", 0)] and list(sf["path"]) == ["bottleneck", "bottleneck"]
    for name in ("a", "b"):
        flow = result.summary["flows"][name]
        assert sf.loc[(name, 0), "throughput_bps"] == pytest.approx(flow["throughput_bps"])
        assert sf.loc[(name, 0), "retransmissions"] == flow["retransmissions"]


def test_results_folder_and_plots(tmp_path):
    out = tmp_path / "demo"
    proc = run_cli("run", ROOT / "scenarios/demo.toml", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert str(out) in proc.stdout and "throughput.png" in proc.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["flows"]) == {"reno", "cubic"}
    fs = pd.read_parquet(out / "flow_series.parquet")
    ls = pd.read_parquet(out / "link_series.parquet")
    assert set(fs["flow"]) == {"reno", "cubic"} and len(ls) > 0
    assert (out / "scenario.toml").read_text() == (ROOT / "scenarios/demo.toml").read_text()
    assert json.loads((out / "config.json").read_text())["links"][0]["name"] == "bottleneck"
    pngs = ["throughput.png", "cwnd.png", "rtt.png", "queue.png"]
    for name in pngs:
        data = (out / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    # `mpcc plot` redraws them from the folder alone.
    for name in pngs:
        (out / name).unlink()
    proc = run_cli("plot", out)
    assert proc.returncode == 0, proc.stderr
    assert all((out / name).stat().st_size > 5000 for name in pngs)


def _summary_without_wall_time(path):
    lines = path.read_text().splitlines(keepends=True)
    wall = [line for line in lines if '"wall_s"' in line]
    assert len(wall) == 1
    return "".join(line for line in lines if '"wall_s"' not in line)


def test_same_seed_gives_byte_identical_summary(write_scenario, tmp_path):
    path = write_scenario(dumbbell("5s", p=0.01))
    for run in ("one", "two"):
        assert run_cli("run", path, "--out", tmp_path / run, "--no-plots").returncode == 0
    one = _summary_without_wall_time(tmp_path / "one/summary.json")
    two = _summary_without_wall_time(tmp_path / "two/summary.json")
    assert one == two
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "one/flow_series.parquet"), pd.read_parquet(tmp_path / "two/flow_series.parquet")
    )


def test_another_seed_changes_the_random_draws(write_scenario, tmp_path):
    path = write_scenario(dumbbell("5s", p=0.01))
    assert run_cli("run", path, "--out", tmp_path / "s1", "--no-plots").returncode == 0
    assert run_cli("run", path, "--out", tmp_path / "s2", "--no-plots", "--seed", "2").returncode == 0
    s1 = json.loads((tmp_path / "s1/summary.json").read_text())
    s2 = json.loads((tmp_path / "s2/summary.json").read_text())
    assert s1["flows"]["a"]["losses"] > 0
    assert s1["flows"] != s2["flows"]


def test_seed_argument_of_run_matches_the_scenario_seed():
    text = dumbbell("3s", p=0.02)
    by_argument = mpcc.run(text, seed=7).summary
    by_scenario = mpcc.run(text.replace("seed = 1", "seed = 7")).summary
    assert by_argument["flows"] == by_scenario["flows"]


def test_run_from_dict_writes_a_readable_scenario_copy(tmp_path):
    import tomllib

    data = tomllib.loads(dumbbell("2s", p=0.0))
    res = mpcc.run(data, out=tmp_path / "r", plots=False)
    assert res.out == tmp_path / "r"
    copy = tomllib.loads((tmp_path / "r/scenario.toml").read_text())
    assert copy == data
    assert mpcc.Scenario.from_dict(copy).to_config() == res.config


def _one_flow(tcp: str) -> str:
    return f"""
duration = "3s"
sample_interval = "10ms"
{tcp}
[links.l]
rate = "100Mbps"
delay = "10ms"
queue = {{ kind = "droptail", packets = 1000 }}
[[flows]]
name = "f"
cc = "{{cc}}"
path = ["l"]
"""


@pytest.mark.parametrize("cc", ["reno", "cubic", "lia"])
def test_initial_ssthresh_ends_slow_start_there(cc):
    """tcp.init_ssthresh: slow start ends at 20 segments (no loss on this path), so the
    window grows by about one segment per RTT afterwards; without it, slow start goes on
    (CUBIC's HyStart, which would end it too, is switched off for the comparison). The
    textbook sender: Linux's CUBIC would grow 5 % per RTT after it (until a first loss,
    which this path never has)."""
    limited = mpcc.run(_one_flow('tcp = { init_ssthresh = "28960B", profile = "rfc" }').replace("{cc}", cc),
                       plots=False)
    free = mpcc.run(_one_flow("tcp = { hystart = false }").replace("{cc}", cc), plots=False)
    s = limited.flow_series
    assert s["ssthresh"].iloc[0] == pytest.approx(20.0)
    assert limited.summary["flows"]["f"]["losses"] == 0
    # 3 s at RTT 20 ms is 150 RTTs: at most about 150 segments of linear (or CUBIC) growth.
    assert s["cwnd"].max() < 400, s["cwnd"].max()
    assert free.flow_series["cwnd"].max() > 1000


def test_initial_ssthresh_below_two_segments_names_the_field():
    with pytest.raises(mpcc.ScenarioError) as e:
        mpcc.load_scenario(_one_flow('tcp = { init_ssthresh = "2000B" }').replace("{cc}", "reno"))
    assert e.value.field == "tcp.init_ssthresh"
    assert "allowed: at least 2 segments (2896 bytes)" in e.value.message


def test_cwnd_validation_reaches_the_simulator_and_names_a_bad_value():
    """tcp.cwnd_validation: a 5 Mbit/s stream over 100 Mbit/s keeps a small window
    with it and a runaway one without it (crates/mpcc-sim/tests/applications.rs has
    the engine-level test); the linux profile validates, as Linux does, ns3 does not."""
    stream = '\n[flows.app]\nkind = "cbr"\nrate = "5Mbps"\n'
    on = mpcc.run(_one_flow("tcp = { cwnd_validation = true }").replace("{cc}", "reno") + stream, plots=False)
    off = mpcc.run(_one_flow("tcp = { cwnd_validation = false }").replace("{cc}", "reno") + stream, plots=False)
    assert on.flow_series["cwnd"].max() < 60
    assert off.flow_series["cwnd"].max() > 1000
    linux = mpcc.run(_one_flow("").replace("{cc}", "reno") + stream, plots=False)
    ns3 = mpcc.run(_one_flow('tcp = { profile = "ns3" }').replace("{cc}", "reno") + stream, plots=False)
    assert linux.flow_series["cwnd"].max() < 60 and ns3.flow_series["cwnd"].max() > 600
    with pytest.raises(mpcc.ScenarioError) as e:
        mpcc.load_scenario(_one_flow('tcp = { cwnd_validation = "sometimes" }').replace("{cc}", "reno"))
    assert e.value.field == "tcp.cwnd_validation"


def test_delay_cdf_is_drawn_from_every_sample_and_matches_the_percentiles():
    r = mpcc.run(ROOT / "scenarios" / "streaming_demo.toml", plots=False)
    cdf = r.delay_cdf
    for flow, f in r.summary["flows"].items():
        for metric in ("rtt", "app_delay"):
            rows = cdf[(cdf.flow == flow) & (cdf.metric == metric)]
            assert len(rows) == 201 and rows["q"].is_monotonic_increasing and rows["delay_s"].is_monotonic_increasing
            at = dict(zip(rows["q"].round(3), rows["delay_s"]))
            assert abs(at[0.5] - f[f"{metric}_p50_s"]) < 1e-9 and abs(at[0.95] - f[f"{metric}_p95_s"]) < 1e-9
            assert abs(at[0.0] - f[f"{metric}_min_s"]) < 1e-6  # the CDF has microsecond resolution


def test_exact_percentiles_opt_in_and_the_sketch_within_its_error():
    """By default the percentiles come from the quantile sketch (docs/metrics.md):
    within 2^-8 of the exact ones, and nothing else in the summary or the time series
    moves; `exact_percentiles = true` keeps every sample for the exact values."""
    text = (ROOT / "scenarios" / "streaming_demo.toml").read_text()
    sketch = mpcc.run(text, plots=False)
    exact = mpcc.run("exact_percentiles = true\n" + text, plots=False)
    assert "exact_percentiles" not in sketch.config and exact.config["exact_percentiles"] is True
    moved = 0
    for flow, e in exact.summary["flows"].items():
        s = sketch.summary["flows"][flow]
        assert s.keys() == e.keys()
        for k in e:
            if k.endswith(("_p50_s", "_p95_s", "_p99_s")):
                assert abs(s[k] - e[k]) <= e[k] / 256 * (1 + 1e-9), (flow, k, s[k], e[k])
                moved += s[k] != e[k]
            elif k.startswith("app_delay_within_"):
                assert 0 <= s[k] <= 1 and abs(s[k] - e[k]) < 0.01, (flow, k, s[k], e[k])
            elif k != "subflows":
                assert s[k] == e[k], (flow, k)
        for ss, se in zip(s["subflows"], e["subflows"]):
            assert {k: v for k, v in ss.items() if not k.startswith("rtt_p")} == \
                   {k: v for k, v in se.items() if not k.startswith("rtt_p")}
    assert moved > 0, "the sketch rounds some percentile (else this compares nothing)"
    for link, e in exact.summary["links"].items():
        s, e = dict(sketch.summary["links"][link]), dict(e)
        for k in ("queue_delay_p50_s", "queue_delay_p95_s", "queue_delay_p99_s"):
            a, b = s.pop(k), e.pop(k)
            assert abs(a - b) <= b / 256 * (1 + 1e-9), (link, k, a, b)
        assert s == e, link
    pd.testing.assert_frame_equal(sketch.flow_series, exact.flow_series)
    pd.testing.assert_frame_equal(sketch.link_series, exact.link_series)
