"""Applications through the front end: cbr, vbr, web and onoff in the schema, their
distributions, tcp.send_buf, errors through the CLI, and short runs."""

import re

import pytest

import mpcc
from conftest import ROOT, run_cli
from mpcc.scenario import Scenario, ScenarioError

BASE = """
duration = "{duration}"
seed = 1
[links.bottleneck]
rate = "10Mbps"
delay = "20ms"
queue = {{ kind = "droptail", packets = 100 }}
[[flows]]
name = "a"
cc = "reno"
path = ["bottleneck"]
"""


def scenario(flow_lines: str, duration: str = "10s") -> str:
    return BASE.format(duration=duration) + flow_lines + "\n"


def flow_config(flow_lines: str, base_dir=".") -> dict:
    return Scenario.from_toml(scenario(flow_lines), base_dir=base_dir).to_config()["flows"][0]


# ---- conversion ---------------------------------------------------------------------


def test_cbr_defaults_are_made_explicit():
    f = flow_config('app = { kind = "cbr", rate = "5Mbps" }\ntcp = { mss = "1000B" }')
    assert f["app"] == {"kind": "cbr", "rate_bps": 5e6, "chunk_bytes": 1000, "startup_ns": 10**9,
                        "rebuffer_ns": 10**9}
    assert "send_buf_bytes" not in f["tcp"]


def test_cbr_fields_convert():
    f = flow_config('app = { kind = "cbr", rate = "2.5Mbps", chunk = "10KB", startup = 0.5, rebuffer = "0s" }\n'
                    'tcp = { send_buf = "64KiB" }')
    assert f["app"] == {"kind": "cbr", "rate_bps": 2.5e6, "chunk_bytes": 10_000, "startup_ns": 500_000_000,
                        "rebuffer_ns": 0}
    assert f["tcp"]["send_buf_bytes"] == 65_536


def test_vbr_model_converts():
    f = flow_config('app = { kind = "vbr", fps = 30, rate = "3Mbps", cv = 0.8, startup = "2s" }')
    assert f["app"] == {"kind": "vbr", "fps": 30.0, "trace": None, "loop_trace": True, "rate_bps": 3e6,
                        "cv": 0.8, "startup_ns": 2 * 10**9, "rebuffer_ns": 2 * 10**9}


def test_vbr_trace_resolves_against_the_scenario_folder(tmp_path):
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces/frames.txt").write_text("# sizes\n12000\n\n8000\n")
    path = tmp_path / "s.toml"
    path.write_text(scenario('app = { kind = "vbr", fps = 25, trace = "traces/frames.txt", loop_trace = false }'))
    app = Scenario.from_file(path).to_config()["flows"][0]["app"]
    assert app["trace"] == str(tmp_path / "traces/frames.txt") and app["loop_trace"] is False
    assert app["rate_bps"] is None and app["fps"] == 25.0


def test_web_objects_and_defaults():
    f = flow_config('app = { kind = "web", objects = ["10KB", 1448, "1MiB"] }\ntcp = { send_buf = "1MB" }')
    assert f["app"] == {"kind": "web", "objects": [10_000, 1448, 2**20], "object_count": None,
                        "object_bytes": None, "think_ns": {"kind": "fixed", "value": 1e9}, "pages": None,
                        "fetch": "parallel"}
    assert f["tcp"]["send_buf_bytes"] == 1_000_000


def test_onoff_converts():
    f = flow_config('app = { kind = "onoff", on = { kind = "fixed", value = "2s" }, '
                    'off = { kind = "exponential", mean = 0.25 }, start_on = false }')
    assert f["app"] == {"kind": "onoff", "on_ns": {"kind": "fixed", "value": 2e9},
                        "off_ns": {"kind": "exponential", "mean": 2.5e8}, "start_on": False}


@pytest.mark.parametrize(
    "given, canonical",
    [
        ('{ kind = "fixed", value = "200ms" }', {"kind": "fixed", "value": 2e8}),
        ('{ kind = "uniform", min = "1s", max = 3 }', {"kind": "uniform", "min": 1e9, "max": 3e9}),
        ('{ kind = "exponential", mean = "1.5s" }', {"kind": "exponential", "mean": 1.5e9}),
        ('{ kind = "lognormal", mean = "500ms", cv = 2 }', {"kind": "lognormal", "mean": 5e8, "cv": 2.0}),
        ('{ kind = "pareto", mean = "2s", shape = 1.2 }', {"kind": "pareto", "mean": 2e9, "shape": 1.2}),
    ],
)
def test_duration_distributions_convert_to_ns(given, canonical):
    app = flow_config(f'app = {{ kind = "web", objects = [1000], think = {given} }}')["app"]
    assert app["think_ns"] == canonical


def test_size_and_count_distributions_and_page_options():
    app = flow_config('app = { kind = "web", object_count = { kind = "uniform", min = 2, max = 8 }, '
                      'object_bytes = { kind = "lognormal", mean = "30KB", cv = 1.5 }, pages = 4, '
                      'fetch = "sequential" }')["app"]
    assert app["objects"] is None
    assert app["object_count"] == {"kind": "uniform", "min": 2.0, "max": 8.0}
    assert app["object_bytes"] == {"kind": "lognormal", "mean": 30_000.0, "cv": 1.5}
    assert app["pages"] == 4 and app["fetch"] == "sequential"
    app = flow_config('app = { kind = "web", object_count = { kind = "pareto", mean = 3, shape = 2 }, '
                      'object_bytes = { kind = "fixed", value = 5000 } }')["app"]
    assert app["object_count"] == {"kind": "pareto", "mean": 3.0, "shape": 2.0}
    assert app["object_bytes"] == {"kind": "fixed", "value": 5000.0}


def test_scenario_wide_send_buf_applies_to_writing_applications_only():
    text = scenario('app = { kind = "cbr", rate = "1Mbps" }').replace("seed = 1", 'seed = 1\ntcp = { send_buf = "50KB" }')
    text += '[[flows]]\nname = "b"\ncc = "reno"\npath = ["bottleneck"]\n'
    a, b = Scenario.from_toml(text).to_config()["flows"]
    assert a["tcp"]["send_buf_bytes"] == 50_000
    assert "send_buf_bytes" not in b["tcp"] and b["app"] == {"kind": "bulk"}


def test_bulk_and_file_configurations_are_unchanged():
    # No send_buf_bytes key unless set: earlier canonical configurations (and run-cache keys) stay the same.
    f = flow_config('app = { kind = "file", size = "1MB" }')
    assert f["app"] == {"kind": "file", "bytes": 1_000_000} and "send_buf_bytes" not in f["tcp"]


def test_streaming_demo_is_a_multipath_stream():
    cfg = Scenario.from_file(ROOT / "scenarios/streaming_demo.toml").to_config()
    stream = cfg["flows"][0]
    assert stream["cc"] == "lia" and len(stream["subflows"]) == 2
    assert stream["app"]["kind"] in ("cbr", "vbr")


# ---- errors through the command line ------------------------------------------------

BAD = [
    ('app = { kind = "cbr", rate = "-5Mbps" }', "flows[0].app.rate", ['"-5Mbps" is negative']),
    ('app = { kind = "cbr" }', "flows[0].app.rate", ["required"]),
    ('app = { kind = "cbr", rate = "1Mbps", chunk = 0 }', "flows[0].app.chunk", ["at least 1 byte"]),
    ('app = { kind = "cbr", rate = "1Tbps", chunk = "1B" }', "flows[0].app.rate", ["one write per ns"]),
    ('app = { kind = "cbr", rate = "1Mbps", startup = "soon" }', "flows[0].app.startup", ["duration"]),
    ('app = { kind = "cbr", rate = "1Mbps", buffer = "1s" }', "flows[0].app.buffer", ["unknown field", "rebuffer"]),
    ('app = { kind = "stream" }', "flows[0].app", ['"stream"', "cbr, vbr, web, onoff"]),
    ('app = { kind = "vbr", fps = 30 }', "flows[0].app.trace", ["exactly one of trace", "rate"]),
    ('app = { kind = "vbr", fps = 30, rate = "1Mbps", trace = "f.txt" }', "flows[0].app.trace", ["exactly one"]),
    ('app = { kind = "vbr", fps = 0, rate = "1Mbps" }', "flows[0].app.fps", ["10000"]),
    ('app = { kind = "vbr", fps = 30, rate = "1Mbps", cv = 11 }', "flows[0].app.cv", ["0 to 10"]),
    ('app = { kind = "vbr", fps = 30, rate = "1Mbps", loop_trace = false }', "flows[0].app.loop_trace",
     ["only with trace"]),
    ('app = { kind = "vbr", fps = 30, trace = "missing.txt" }', "flows[0].app.trace", ['"missing.txt"', "not found"]),
    ('app = { kind = "vbr", fps = 30, trace = "bad.txt" }', "flows[0].app.trace", ['"bad.txt" line 3', '"12k"']),
    ('app = { kind = "web" }', "flows[0].app.objects", ["object_count and object_bytes"]),
    ('app = { kind = "web", objects = ["1KB", 0] }', "flows[0].app.objects[1]", ["positive"]),
    ('app = { kind = "web", objects = [1000], object_count = { kind = "fixed", value = 2 } }',
     "flows[0].app.object_count", ["not both"]),
    ('app = { kind = "web", object_count = { kind = "fixed", value = 2 } }', "flows[0].app.object_bytes",
     ["required"]),
    ('app = { kind = "web", objects = [1000], pages = 0 }', "flows[0].app.pages", ["at least 1"]),
    ('app = { kind = "web", objects = [1000], fetch = "pipelined" }', "flows[0].app.fetch", ["sequential"]),
    ('app = { kind = "web", objects = [1000], think = { kind = "gauss", mean = 1 } }', "flows[0].app.think",
     ['"gauss"', "fixed, uniform, exponential, lognormal, pareto"]),
    ('app = { kind = "web", objects = [1000], think = { kind = "pareto", mean = "1s", shape = 1 } }',
     "flows[0].app.think.shape", ["shape > 1"]),
    ('app = { kind = "web", objects = [1000], think = { kind = "uniform", min = "2s", max = "1s" } }',
     "flows[0].app.think.max", ['"1s" is below min', "min <= max"]),
    ('app = { kind = "web", objects = [1000], think = { kind = "exponential", mean = "-1s" } }',
     "flows[0].app.think.mean", ["negative"]),
    ('app = { kind = "web", objects = [1000], think = { kind = "lognormal", mean = "1s", cv = -1 } }',
     "flows[0].app.think.cv", ["0 to 10"]),
    ('app = { kind = "web", objects = [1000], think = { kind = "fixed", mean = "1s" } }',
     "flows[0].app.think.mean", ["unknown field", "value"]),
    ('app = { kind = "web", object_count = { kind = "fixed", value = "3" }, object_bytes = { kind = "fixed", '
     'value = 1 } }', "flows[0].app.object_count.value", ["not a number"]),
    ('app = { kind = "web", object_count = { kind = "fixed", value = 3 }, object_bytes = { kind = "fixed", '
     'value = "1.5B" } }', "flows[0].app.object_bytes.value", ["whole number of bytes"]),
    ('app = { kind = "onoff", on = { kind = "fixed", value = "0s" }, off = { kind = "fixed", value = 1 } }',
     "flows[0].app.on.value", ["not positive"]),
    ('app = { kind = "onoff", on = { kind = "fixed", value = "1s" } }', "flows[0].app.off", ["required"]),
    ('app = { kind = "onoff", on = { value = 1 }, off = { kind = "fixed", value = 1 } }', "flows[0].app.on",
     ["missing `kind`", "pareto"]),
    ('tcp = { send_buf = "64KB" }', "flows[0].tcp.send_buf", ["cbr, vbr and web", "not bulk"]),
    ('app = { kind = "onoff", on = { kind = "fixed", value = 1 }, off = { kind = "fixed", value = 1 } }\n'
     'tcp = { send_buf = "64KB" }', "flows[0].tcp.send_buf", ["not onoff"]),
    ('app = { kind = "cbr", rate = "1Mbps" }\ntcp = { send_buf = "1KB" }', "flows[0].tcp.send_buf",
     ["1000 bytes", "mss (1448 bytes)"]),
    ('app = { kind = "cbr", rate = "1Mbps" }\ntcp = { send_buf = "0B" }', "flows[0].tcp.send_buf", ["positive"]),
]


@pytest.mark.parametrize("lines, field, words", BAD, ids=[f"{i}-{b[1]}" for i, b in enumerate(BAD)])
def test_cli_rejects_bad_applications_in_one_line(lines, field, words, tmp_path):
    (tmp_path / "bad.txt").write_text("1000\n# comment\n12k\n")
    path = tmp_path / "s.toml"
    path.write_text(scenario(lines))
    proc = run_cli("run", path, "--out", tmp_path / "out", "--no-plots")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout == "" and not (tmp_path / "out").exists()
    lines_out = proc.stderr.splitlines()
    assert len(lines_out) == 1, proc.stderr
    assert lines_out[0].startswith(f"mpcc: error: {field}: "), lines_out[0]
    for w in words:
        assert w in lines_out[0], lines_out[0]


def test_empty_frame_trace_is_rejected(tmp_path):
    (tmp_path / "zeros.txt").write_text("# nothing\n0\n0\n")
    path = tmp_path / "s.toml"
    path.write_text(scenario('app = { kind = "vbr", fps = 30, trace = "zeros.txt" }'))
    with pytest.raises(ScenarioError, match=r'^flows\[0\]\.app\.trace: frame trace "zeros.txt" has no frame'):
        Scenario.from_file(path).to_config()


# ---- runs ---------------------------------------------------------------------------


def stream_summary(rate: str) -> dict:
    r = mpcc.run(scenario(f'app = {{ kind = "cbr", rate = "{rate}", startup = "500ms" }}', duration="8s"))
    return r.summary["flows"]["a"]


def test_cbr_stalls_only_above_capacity():
    below = stream_summary("5Mbps")
    assert below["stalls"] == 0 and below["stall_s"] == 0 and below["app_blocked_bytes"] == 0
    assert below["goodput_bps"] == pytest.approx(5e6, rel=0.03)
    above = stream_summary("12Mbps")  # the 10 Mbit/s link cannot keep up
    assert above["stalls"] > 0 and above["stall_s"] > 0.5
    assert above["goodput_bps"] < 10e6


def test_web_reports_page_loads():
    # One 10-segment object per page on an idle path: one round trip (40 ms) plus
    # the serialisation of 10 packets of 1500 bytes at 10 Mbit/s (12 ms).
    # The textbook sender, an ACK per segment: the closed form has no delayed ACKs.
    text = scenario('app = { kind = "web", objects = ["14480B"], pages = 5, '
                    'think = { kind = "fixed", value = "500ms" } }\ntcp = { profile = "rfc" }')
    f = mpcc.run(text).summary["flows"]["a"]
    assert f["pages"] == 5
    assert f["page_load_p50_s"] == pytest.approx(0.040 + 0.012, rel=0.02)
    # Every page is alike (no slow start after idle): mean and p95 are the same.
    assert f["page_load_mean_s"] == pytest.approx(f["page_load_p50_s"], rel=0.02)
    assert f["page_load_p95_s"] == pytest.approx(f["page_load_p50_s"], rel=0.02)
    assert "stalls" not in f and "on_periods" not in f


def test_onoff_reports_on_periods():
    text = scenario('app = { kind = "onoff", on = { kind = "fixed", value = "1s" }, '
                    'off = { kind = "fixed", value = "1s" } }')
    f = mpcc.run(text).summary["flows"]["a"]
    assert f["on_periods"] == 5  # on at 0, 2, 4, 6, 8 s of 10 s
    assert f["goodput_bps"] == pytest.approx(5e6, rel=0.15)


def test_cli_prints_application_results(tmp_path):
    proc = run_cli("run", ROOT / "scenarios/streaming_demo.toml", "--out", tmp_path / "out", "--no-plots")
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"^    stream: \d+ stalls, \d+\.\d\d s stalled, \d+ bytes blocked", proc.stdout, re.M)
    assert re.search(r"^    on-off: \d+ on periods", proc.stdout, re.M)
    path = tmp_path / "web.toml"
    path.write_text(scenario('app = { kind = "web", objects = ["50KB"], pages = 3 }'))
    proc = run_cli("run", path, "--out", tmp_path / "web", "--no-plots")
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"^    web: 3 pages, load time mean \d+\.\d\d ms, p50 \d+\.\d\d ms, p95 \d+\.\d\d ms",
                     proc.stdout, re.M)
    assert "stream:" not in proc.stdout


# ---- the examples of docs/scenarios.md ------------------------------------------------


def doc_examples() -> list[str]:
    text = (ROOT / "docs/scenarios.md").read_text()
    section = text[text.index("## Applications"):text.index("## Results")]
    return re.findall(r"```toml\n(.*?)```", section, re.S)


def test_documented_application_examples_are_valid(tmp_path):
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces/frames.txt").write_text("12000\n8000\n")
    blocks = doc_examples()
    assert len(blocks) >= 5
    kinds = set()
    for block in blocks:
        if block.startswith("duration"):
            texts = [block]
        elif block.startswith("[[flows]]"):
            texts = [BASE.format(duration="10s") + block]
        else:  # one `app = ...` line per alternative
            texts = [scenario(line) for line in block.splitlines() if line.startswith("app = ")]
        for t in texts:
            cfg = Scenario.from_toml(t, base_dir=tmp_path).to_config()
            kinds.update(f["app"]["kind"] for f in cfg["flows"])
    assert {"cbr", "vbr", "web", "onoff"} <= kinds
