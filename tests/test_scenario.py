"""The schema: defaults, conversion to the canonical configuration, errors naming the field."""

import json
import subprocess
import sys

import pytest

from conftest import ROOT
from mpcc.scenario import Scenario, ScenarioError


def test_issue_example_converts_to_canonical_config():
    cfg = Scenario.from_file(ROOT / "scenarios/example.toml").to_config()
    assert cfg["duration_ns"] == 60_000_000_000 and cfg["seed"] == 1
    assert cfg["links"] == [
        {
            "name": "bottleneck",
            "capacity": {"kind": "constant", "bps": 10e6},
            "delay_ns": 20_000_000,
            "queue": {"kind": "droptail", "packets": 100, "bytes": None},
            "loss": {"kind": "bernoulli", "p": 0.01},
        }
    ]
    (flow,) = cfg["flows"]
    assert flow["name"] == "a" and flow["cc"] == "reno" and flow["path"] == [0]
    assert flow["reverse_path"] is None and flow["app"] == {"kind": "bulk"}
    assert "subflows" not in flow and "scheduler" not in flow  # single path: as before multipath flows
    assert flow["tcp"]["mss"] == 1448 and flow["tcp"]["min_rto_ns"] == 200_000_000
    json.dumps(cfg)  # JSON-ready


def test_demo_scenario_is_valid():
    cfg = Scenario.from_file(ROOT / "scenarios/demo.toml").to_config()
    assert [f["name"] for f in cfg["flows"]] == ["reno", "cubic"]
    assert cfg["links"][0]["capacity"]["bps"] == 10e6 and cfg["links"][0]["delay_ns"] == 20_000_000


def test_seed_override_and_optional_fields():
    s = Scenario.from_toml(
        """
        duration = 10
        warmup = "2s"
        sample_interval = "50ms"
        tcp = { mss = "1000B", delayed_ack = true }
        [links.up]
        capacity = { kind = "schedule", steps = [{ at = "0s", rate = "10Mbps" }, { at = "4s", rate = "2Mbps" }], period = "5s" }
        delay = "10ms"
        queue = { kind = "codel" }
        [links.down]
        rate = 1e9
        queue = { kind = "red", min_th = 5, max_th = 15, max_p = 0.1, weight = 0.002, limit = 50, gentle = true }
        loss = { kind = "gilbert_elliott", p_gb = 0.01, p_bg = 0.3 }
        [[flows]]
        name = "x"
        cc = "reno"
        cc_params = { beta = 0.7 }
        path = ["up"]
        reverse_path = ["down"]
        count = 3
        start = "1s"
        stop = "9s"
        app = { kind = "file", size = "1MB" }
        tcp = { mss = 1460, rcv_buf = "4MB" }
        """
    )
    cfg = s.to_config(seed=42)
    assert cfg["seed"] == 42 and cfg["warmup_ns"] == 2_000_000_000 and cfg["sample_interval_ns"] == 50_000_000
    up, down = cfg["links"]
    assert up["capacity"] == {"kind": "schedule", "steps": [[0, 10e6], [4_000_000_000, 2e6]], "period_ns": 5_000_000_000}
    assert up["queue"] == {"kind": "codel", "target_ns": 5_000_000, "interval_ns": 100_000_000, "limit": 1000, "mtu": 1500}
    assert down["queue"]["gentle"] is True and down["queue"]["mean_pktsize"] == 1500
    assert down["loss"] == {"kind": "gilbert_elliott", "p_gb": 0.01, "p_bg": 0.3, "loss_good": 0.0, "loss_bad": 1.0}
    assert [f["name"] for f in cfg["flows"]] == ["x.0", "x.1", "x.2"]
    f = cfg["flows"][0]
    assert f["path"] == [0] and f["reverse_path"] == [1] and f["cc_params"] == {"beta": 0.7}
    assert f["start_ns"] == 1_000_000_000 and f["stop_ns"] == 9_000_000_000
    assert f["app"] == {"kind": "file", "bytes": 1_000_000}
    # The flow's own tcp table wins; unset fields come from the scenario-wide one.
    assert f["tcp"]["mss"] == 1460 and f["tcp"]["delayed_ack"] is True and f["tcp"]["rcv_buf_bytes"] == 4_000_000


BASE = """
duration = "10s"
[links.bottleneck]
rate = "10Mbps"
delay = "20ms"
[[flows]]
name = "a"
cc = "reno"
path = ["bottleneck"]
"""


@pytest.mark.parametrize(
    "old, new, field, words",
    [
        ('rate = "10Mbps"', 'rate = "-5Mbps"', "links.bottleneck.rate", ['"-5Mbps" is negative', '"10Mbps"']),
        ('rate = "10Mbps"', 'rate = "10Mbps"\ncapacity = { kind = "constant", rate = 1 }', "links.bottleneck.rate", ["exactly one"]),
        ('delay = "20ms"', 'delay = "20 lightyears"', "links.bottleneck.delay", ["unknown unit"]),
        ('delay = "20ms"', 'delay = "20ms"\nqueue = { kind = "droptail" }', "links.bottleneck.queue", ["packets", "bytes"]),
        ('delay = "20ms"', 'delay = "20ms"\nqueue = { kind = "fifo" }', "links.bottleneck.queue", ['"fifo"', "droptail, red, codel"]),
        ('delay = "20ms"', 'delay = "20ms"\nloss = { kind = "bernoulli", p = -0.1 }', "links.bottleneck.loss.p", ["-0.1"]),
        ('delay = "20ms"', 'delay = "20ms"\nloss = { p = 0.1 }', "links.bottleneck.loss", ["missing `kind`", "bernoulli"]),
        ('delay = "20ms"', 'delay = "20ms"\ncapacity = { kind = "schedule", steps = [{ at = "1s", rate = "1Mbps" }] }', "links.bottleneck.capacity.steps", ['"0s"']),
        ('cc = "reno"', 'cc = "tahoe"', "flows[0].cc", ['"tahoe"', "allowed: reno"]),
        ('cc = "reno"', 'cc = "reno"\ncc_params = { gamma = 1 }', "flows[0].cc_params", ["gamma"]),
        ('path = ["bottleneck"]', 'path = ["bottleneck", "nowhere"]', "flows[0].path[1]", ['"nowhere"', "bottleneck"]),
        ('path = ["bottleneck"]', 'path = ["bottleneck"]\nreverse_path = ["back"]', "flows[0].reverse_path[0]", ['"back"']),
        ('path = ["bottleneck"]', "path = []", "flows[0].path", ["at least 1"]),
        ('path = ["bottleneck"]', "", "flows[0].path", ["missing", "path, paths or subflows"]),
        ('path = ["bottleneck"]', 'paths = [["bottleneck"], ["back"]]', "flows[0].paths[1][0]", ['"back"']),
        ('path = ["bottleneck"]', 'path = ["bottleneck"]\nscheduler = "fastest"', "flows[0].scheduler", ["minrtt"]),
        ('path = ["bottleneck"]', 'path = ["bottleneck"]\ntcp = { mss = 70000 }', "flows[0].tcp.mss", ["65000"]),
        ('path = ["bottleneck"]', 'path = ["bottleneck"]\nstart = "11s"', "flows[0].start", ["duration"]),
        ('path = ["bottleneck"]', 'path = ["bottleneck"]\npriority = 3', "flows[0].priority", ["unknown field", "cc_params"]),
        ('duration = "10s"', 'duration = "0s"', "duration", ["positive"]),
        ('duration = "10s"', "", "duration", ["required"]),
    ],
)
def test_errors_name_the_field(old, new, field, words):
    with pytest.raises(ScenarioError) as err:
        Scenario.from_toml(BASE.replace(old, new, 1)).to_config()
    assert err.value.field == field, str(err.value)
    message = str(err.value)
    assert message.startswith(field + ": ") and "\n" not in message
    for w in words:
        assert w in message


def test_duplicate_flow_names_rejected():
    text = BASE + '[[flows]]\nname = "a"\ncc = "reno"\npath = ["bottleneck"]\n'
    with pytest.raises(ScenarioError, match=r'^flows\[1\].name: "a" is already used by flows\[0\]'):
        Scenario.from_toml(text).to_config()


def test_trace_paths_resolve_against_the_scenario_folder(tmp_path):
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces/cell.up").write_text("0\n1\n1\n3\n")
    path = tmp_path / "s.toml"
    path.write_text(BASE.replace('rate = "10Mbps"', 'capacity = { kind = "trace", path = "traces/cell.up" }'))
    cap = Scenario.from_file(path).to_config()["links"][0]["capacity"]
    assert cap == {"kind": "trace", "path": str(tmp_path / "traces/cell.up"), "bytes_per_opportunity": 1500}


def test_decreasing_trace_rejected_with_line(tmp_path):
    (tmp_path / "t").write_text("0\n5\n4\n")
    path = tmp_path / "s.toml"
    path.write_text(BASE.replace('rate = "10Mbps"', 'capacity = { kind = "trace", path = "t" }'))
    with pytest.raises(ScenarioError, match=r"^links.bottleneck.capacity.path: .*line 3"):
        Scenario.from_file(path).to_config()


def test_run_accepts_a_dict():
    import tomllib

    from mpcc.scenario import load

    s = load(tomllib.loads(BASE))
    assert s.flow_names() == ["a"]
