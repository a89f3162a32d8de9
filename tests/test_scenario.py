"""The schema: defaults, conversion to the canonical configuration, errors naming the field."""

import json
import textwrap
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


# ---- issue 13: every number in range, strict types, the user's field names ----------


@pytest.mark.parametrize(
    "old, new, field, words",
    [
        ('rate = "10Mbps"', 'rate = "1e400Mbps"', "links.bottleneck.rate", ["at most 10 Tbit/s"]),
        ('duration = "10s"', 'duration = "1e12s"', "duration", ["at most 1000000 s"]),
        ('delay = "20ms"', 'delay = "1e30s"', "links.bottleneck.delay", ["at most 1000000 s"]),
        ('delay = "20ms"', "delay = 9223372036854775807", "links.bottleneck.delay", ["at most"]),
        ('path = ["bottleneck"]', 'path = ["bottleneck"]\ntcp = { max_rto = "1e12s" }', "flows[0].tcp.max_rto", ["at most"]),
        ('path = ["bottleneck"]', 'path = ["bottleneck"]\ntcp = { header_bytes = "5GB" }', "flows[0].tcp.header_bytes",
         ["65000"]),
        ('path = ["bottleneck"]', 'path = ["bottleneck"]\ntcp = { header_bytes = "4294967000B" }',
         "flows[0].tcp.header_bytes", ["65000"]),
        ('path = ["bottleneck"]', 'path = ["bottleneck"]\napp = { kind = "file", size = "1e21B" }', "flows[0].app.size",
         ["2^53"]),
        ('path = ["bottleneck"]', 'path = ["bottleneck"]\napp = { kind = "file", size = "0B" }', "flows[0].app.size",
         ["positive"]),
        ('path = ["bottleneck"]', 'path = ["bottleneck"]\ncount = "2"', "flows[0].count", ['"2"']),
        ('path = ["bottleneck"]', 'path = ["bottleneck"]\ntcp = { delayed_ack = "yes" }', "flows[0].tcp.delayed_ack",
         ['"yes"']),
        ('path = ["bottleneck"]', 'path = ["bottleneck"]\ntcp = { initial_rto = "0ms", min_rto = "0ms" }',
         "flows[0].tcp.min_rto", ["positive"]),
        ('path = ["bottleneck"]', 'path = ["bottleneck"]\ncc_params = { beta = nan }', "flows[0].cc_params.beta",
         ["finite"]),
        ('path = ["bottleneck"]', 'path = ["bottleneck"]\nscheduler_params = { beta = inf }',
         "flows[0].scheduler_params.beta", ["finite"]),
        ('path = ["bottleneck"]', 'path = ["bottleneck"]\nreceiver = "popctl"\nreceiver_params = { interval_s = nan }',
         "flows[0].receiver_params.interval_s", ["finite"]),
        ('path = ["bottleneck"]', 'paths = [["bottleneck"]]\nscheduler = "ecf"\nscheduler_params = { gamma = 1 }',
         "flows[0].scheduler_params.gamma", ["unknown parameter", "beta"]),
        ('path = ["bottleneck"]', 'path = ["bottleneck"]\nreceiver = "popctl"\nreceiver_params = { min_on = 0 }',
         "flows[0].receiver_params.min_on", ["allowed: 1 to 1024"]),
        ('path = ["bottleneck"]', 'path = ["bottleneck"]\ncount = 18446744073709551616', "flows[0].count", ["allowed: 1 to 100000"]),
        ('delay = "20ms"', 'delay = "20ms"\nqueue = { kind = "codel", target = "0ms" }', "links.bottleneck.queue.target",
         ["positive"]),
        ('delay = "20ms"', 'delay = "20ms"\nqueue = { kind = "codel", interval = "0s" }',
         "links.bottleneck.queue.interval", ["positive"]),
        ('delay = "20ms"', 'delay = "20ms"\nqueue = { kind = "codel", mtu = "0B" }', "links.bottleneck.queue.mtu", ["1"]),
        ('delay = "20ms"', 'delay = "20ms"\nqueue = { kind = "red", min_th = 5, max_th = inf, max_p = 0.1, weight = 0.002, '
         "limit = 50 }", "links.bottleneck.queue.max_th", ["finite"]),
        ('delay = "20ms"', 'delay = "20ms"\nqueue = { kind = "droptail", packets = 1e3 }', "links.bottleneck.queue.packets",
         ["1000.0"]),
        ('delay = "20ms"', 'delay = "20ms"\nqueue = { kind = "droptail", packets = 9007199254740993 }',
         "links.bottleneck.queue.packets", ["allowed: 1 to 9007199254740991"]),
        ('rate = "10Mbps"', 'capacity = { kind = "random_walk", initial = "5Mbps", min = "1Mbps", max = "10Mbps", '
         'step = "1s", sigma = inf }', "links.bottleneck.capacity.sigma", ["finite"]),
        ('rate = "10Mbps"', 'capacity = { kind = "trace", path = "t", bytes_per_opportunity = "5GB" }',
         "links.bottleneck.capacity.bytes_per_opportunity", ["allowed: 1 to 1000000 bytes"]),
        ('rate = "10Mbps"', 'rate = "1e-30bps"', "links.bottleneck.rate", ["at least 1 bit/s"]),
        ('path = ["bottleneck"]', 'path = ["bottleneck"]\napp = { kind = "cbr", rate = "1Mbps", chunk = "5GB" }',
         "flows[0].app.chunk", ["allowed: 1 to 1000000000 bytes"]),
        ('path = ["bottleneck"]', 'path = ["bottleneck"]\nname = 5', "flows[0].name", ["string"]),
    ],
)
def test_out_of_range_and_mistyped_values_name_the_users_field(old, new, field, words):
    text = BASE.replace(old, new, 1)
    if 'name = 5' in new:
        text = text.replace('name = "a"\n', "", 1)
    with pytest.raises(ScenarioError) as err:
        Scenario.from_toml(text).to_config()
    message = str(err.value)
    assert err.value.field == field, message
    assert message.startswith(field + ": ") and "\n" not in message
    for w in words:
        assert w in message, message


def test_every_problem_of_one_table_gets_its_own_line():
    """A member's table with several bad values (an application, a queue) names each
    one, not just the first; a bound that is itself refused reads "above"."""
    text = BASE.replace('path = ["bottleneck"]', 'path = ["bottleneck"]\n'
                        'app = { kind = "vbr", fps = 0, cv = 11, rate = "1Mbps", colour = 1 }', 1)
    with pytest.raises(ScenarioError) as err:
        Scenario.from_toml(text).to_config()
    assert err.value.problems == [
        "flows[0].app.colour: unknown field; allowed: kind, fps, trace, loop_trace, rate, cv, startup, rebuffer",
        "flows[0].app.fps: 0 is too small; allowed: above 0, at most 10000",
        "flows[0].app.cv: 11 is too large; allowed: 0 to 10",
    ]


def test_initial_rto_of_zero_is_impossible():
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.tcp\.(min|initial)_rto: "):
        Scenario.from_toml(BASE.replace('path = ["bottleneck"]', 'path = ["bottleneck"]\ntcp = { initial_rto = "0ms" }'))


def test_whole_floats_are_not_counts_but_ints_are_rates():
    cfg = Scenario.from_toml(BASE.replace('rate = "10Mbps"', "rate = 1000000")).to_config()
    assert cfg["links"][0]["capacity"]["bps"] == 1e6
    cfg = Scenario.from_toml(BASE.replace('cc = "reno"', 'cc = "reno"\nreceiver = "popctl"\n'
                                                         'receiver_params = { min_on = 2 }')).to_config()
    assert cfg["flows"][0]["receiver_params"] == {"min_on": 2.0}


def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "s.toml"
    path.write_bytes(b"\xef\xbb\xbf" + BASE.encode())
    assert Scenario.from_file(path).to_config()["duration_ns"] == 10**10
    assert Scenario.from_toml("\ufeff" + BASE).flow_names() == ["a"]


def test_load_tells_toml_text_from_a_path():
    from mpcc.scenario import load

    assert load(BASE).duration == 10**10
    with pytest.raises(ScenarioError, match=r"^links: required field is missing"):
        load('duration = "1s"')  # one line of TOML text, not a path
    with pytest.raises(ScenarioError, match='scenario file "nothere.toml" not found'):
        load("nothere.toml")


@pytest.mark.parametrize("make", ["directory", "fifo", "devzero", "big"])
def test_scenario_files_must_be_regular_and_bounded(tmp_path, make):
    import os

    path = tmp_path / "s.toml"
    if make == "directory":
        path.mkdir()
        words = "is a directory"
    elif make == "fifo":
        os.mkfifo(path)
        words = "not a regular file"
    elif make == "devzero":
        path = "/dev/zero"
        words = "not a regular file"
    else:
        path.write_bytes(b"#" * (16 * 2**20 + 1))
        words = "16 MiB"
    with pytest.raises(ScenarioError) as err:
        Scenario.from_file(path)
    assert words in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("text", ["x = " + "[" * 100_000 + "]" * 100_000, "x = " + "{a=" * 5000 + "1" + "}" * 5000,
                                  "x = " + "[" * 65 + "]" * 65])
def test_deep_nesting_names_the_limit(text):
    with pytest.raises(ScenarioError) as err:
        Scenario.from_toml(text)
    assert "nested deeper than 64" in str(err.value)


def test_nesting_inside_strings_and_comments_is_ignored():
    deep = "[" * 100
    text = BASE.replace('duration = "10s"', f'duration = "10s"\ndescription = "{deep}" # {deep}\n', 1)
    assert Scenario.from_toml(text).description == deep


@pytest.mark.parametrize(
    "content, words",
    [
        ("0\n1\n²\n", ["line 3", "not a whole number"]),
        ("0\n１\n", ["line 2", "not a whole number"]),
        ("0\n" + "9" * 30 + "\n", ["line 2", "at most"]),
        ("root:x:0:0:root:/root:/bin/bash\n", ["line 1", "not a whole number"]),
    ],
)
def test_trace_lines_are_described_not_echoed(tmp_path, content, words):
    (tmp_path / "t").write_text(content)
    path = tmp_path / "s.toml"
    path.write_text(BASE.replace('rate = "10Mbps"', 'capacity = { kind = "trace", path = "t" }'))
    with pytest.raises(ScenarioError) as err:
        Scenario.from_file(path).to_config()
    message = str(err.value)
    assert message.startswith("links.bottleneck.capacity.path: ")
    for w in words:
        assert w in message
    assert "root" not in message and str(tmp_path) not in message


@pytest.mark.parametrize("target", ["/dev/zero", "."])
def test_traces_must_be_regular_files(tmp_path, target):
    path = tmp_path / "s.toml"
    path.write_text(BASE.replace('rate = "10Mbps"', f'capacity = {{ kind = "trace", path = "{target}" }}'))
    with pytest.raises(ScenarioError, match="not a regular file|is a directory"):
        Scenario.from_file(path).to_config()


def test_frame_trace_lines_are_described_not_echoed(tmp_path):
    (tmp_path / "f").write_text("1000\nsecret-token\n")
    path = tmp_path / "s.toml"
    path.write_text(BASE.replace('path = ["bottleneck"]', 'path = ["bottleneck"]\napp = { kind = "vbr", fps = 25, '
                                                          'trace = "f" }'))
    with pytest.raises(ScenarioError) as err:
        Scenario.from_file(path).to_config()
    assert "line 2" in str(err.value) and "secret" not in str(err.value)


def _many_flows(n: int) -> str:
    return BASE.split("[[flows]]")[0] + "".join(
        f'[[flows]]\nname = "f{i}"\ncc = "reno"\npath = ["bottleneck"]\n' for i in range(n))


def test_validation_is_linear_in_the_number_of_flows():
    import time

    def seconds(n):
        s = Scenario.from_toml(_many_flows(n))
        t0 = time.perf_counter()
        s.to_config()
        return time.perf_counter() - t0

    seconds(200)  # warm up
    small, large = seconds(2000), seconds(8000)
    # Quadratic would be 16x; linear is 4x. Allow generous noise on a shared machine.
    assert large < 9 * small + 0.5, (small, large)


def test_twenty_thousand_flows_validate_in_seconds():
    import time

    text = _many_flows(20_000)
    t0 = time.perf_counter()
    assert len(Scenario.from_toml(text).to_config()["flows"]) == 20_000
    assert time.perf_counter() - t0 < 20  # about 1 s; 54 s for 10 000 when it was quadratic


def test_tcp_defaults_are_the_simulators():
    """The schema keeps no copy of the TCP defaults: a scenario that sets none writes
    `TcpConfig::default()`'s values (docs/architecture.md)."""
    from mpcc import _core

    config = Scenario.from_toml(textwrap.dedent("""
        duration = "1s"
        [links.l]
        rate = "10Mbps"
        delay = "10ms"
        queue = { kind = "droptail", packets = 10 }
        [[flows]]
        name = "f"
        cc = "reno"
        path = ["l"]
    """)).to_config()
    tcp = config["flows"][0]["tcp"]
    defaults = _core.tcp_defaults()
    for name in ("mss", "header_bytes", "initial_rto_ns", "max_rto_ns", "dupthresh"):
        assert tcp[name] == defaults[name], name
    assert defaults["mss"] == 1448 and defaults["initial_rto_ns"] == 1_000_000_000  # RFC 6298's 1 s


def test_model_defaults_built_without_validation_equal_the_validated_ones():
    """The schema builds its `tcp` defaults with `model_construct` (no validator at
    import, for start-up time): they must be what validation gives."""
    from mpcc.scenario import Tcp

    assert Tcp.model_construct() == Tcp()
