"""The `mpcc` command: every user error is one line on stderr and exit code 2."""

import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT, mpcc_command, run_cli

FLOW = """
[[flows]]
name = "a"
cc = "reno"
path = ["bottleneck"]
"""
LINK = """
duration = "2s"
[links.bottleneck]
rate = "10Mbps"
delay = "20ms"
"""

BAD = {
    "malformed TOML": ('duration = "2s"\n[links.b\nrate = 1\n', "line 2"),
    "unknown algorithm": (LINK + FLOW.replace('"reno"', '"nosuchcc"'), "flows[0].cc"),
    "negative rate": (LINK.replace('"10Mbps"', '"-5Mbps"') + FLOW, "links.bottleneck.rate"),
    "unknown link in path": (LINK + FLOW.replace('["bottleneck"]', '["bottleneck", "ghost"]'), "flows[0].path[1]"),
    "missing trace file": (
        LINK.replace('rate = "10Mbps"', 'capacity = { kind = "trace", path = "no/such.trace" }') + FLOW,
        "links.bottleneck.capacity.path",
    ),
    "malformed trace file": (
        LINK.replace('rate = "10Mbps"', 'capacity = { kind = "trace", path = "bad.trace" }') + FLOW,
        "line 3",
    ),
    "unknown field": (LINK.replace("delay", "dealy") + FLOW, "links.bottleneck.dealy"),
    "unknown queue kind": (LINK + 'queue = { kind = "fifo" }\n' + FLOW, "links.bottleneck.queue"),
    "unknown scheduler": (LINK + FLOW + 'scheduler = "fastest"\n', "allowed: minrtt, roundrobin"),
    "unknown link in a subflow": (
        LINK + FLOW.replace('path = ["bottleneck"]', 'subflows = [{ path = ["bottleneck"] }, { path = ["lte2"] }]'),
        'flows[0].subflows[1].path[0]: unknown link "lte2"; defined links: bottleneck',
    ),
}


def assert_one_line_error(proc, *words):
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("mpcc: error: ")
    assert "Traceback" not in proc.stderr and "panicked" not in proc.stderr
    for w in words:
        assert w in lines[0]


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_gives_one_line_and_exit_2(case, write_scenario, tmp_path):
    text, field = BAD[case]
    (tmp_path / "bad.trace").write_text("0\n3\n1.5\n")
    path = write_scenario(text)
    proc = run_cli("run", path, "--out", tmp_path / "out")
    assert_one_line_error(proc, field)
    assert not (tmp_path / "out").exists()


def test_missing_scenario_file(tmp_path):
    assert_one_line_error(run_cli("run", tmp_path / "nope.toml"), "nope.toml", "not found")


def test_usage_errors_are_one_line():
    assert_one_line_error(run_cli("frobnicate"), "frobnicate")
    assert_one_line_error(run_cli("run", "x.toml", "--seed", "minus-one"), "--seed")
    assert_one_line_error(run_cli("plot", "/nonexistent/results"), "not found")


def test_simulator_error_is_one_line(monkeypatch, write_scenario, tmp_path, capsys):
    """A configuration the simulator rejects: its message, one line, exit code 2."""
    from mpcc import _core, cli

    def reject(config_json, **kwargs):
        raise ValueError("flows.a.tcp.mss: 70000; allowed: 1 to 65000 bytes")

    monkeypatch.setattr(_core, "run", reject)
    code = cli.main(["run", str(write_scenario(LINK + FLOW)), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    assert err == "mpcc: error: flows.a.tcp.mss: 70000; allowed: 1 to 65000 bytes\n"


def test_list_shows_algorithms_params_and_kinds():
    proc = run_cli("list")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for word in ["reno", "NewReno", "beta", "init_cwnd", "droptail", "red", "codel", "bernoulli",
                 "gilbert_elliott", "schedule", "random_walk", "trace"]:
        assert word in out
    # The simulator's schedulers, each with its one-line description.
    from mpcc import schedulers

    assert 'schedulers (scheduler = "NAME", scheduler_params = { ... }; default minrtt)' in out
    for s in schedulers():
        assert f"{s['name']}  " in out and s["summary"] in out
    assert "d_net = 0.2 (0.001 to 100)" in out  # a scheduler's parameters
    # The receiver controllers (thesis ch. 3-4) and their parameters.
    from mpcc import receivers

    assert 'receiver controllers (receiver = "NAME", receiver_params = { ... }; default none)' in out
    assert [r["name"] for r in receivers()] == ["none", "popctl", "rtsc"]
    for r in receivers():
        assert r["summary"] in out and r["doc"].startswith("docs/")
        for p in r["params"]:
            assert f"{p['name']} = {p['default']:g} ({p['min']:g} to {p['max']:g})" in out


def test_list_does_not_import_heavy_modules():
    code = (
        "import sys; from mpcc.cli import main; main(['list']); "
        "heavy = [m for m in ('pandas', 'matplotlib', 'pyarrow', 'pydantic') if m in sys.modules]; "
        "assert not heavy, heavy"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_run_exits_130(write_scenario, tmp_path, sig):
    """Ctrl-C (or SIGTERM) while the simulator runs (with the GIL released) stops at once
    with code 130, one line, and no results folder, temporary or not."""
    long_run = """
    duration = "3600s"
    [links.bottleneck]
    rate = "1Gbps"
    delay = "5ms"
    queue = { kind = "droptail", packets = 1000 }
    [[flows]]
    name = "a"
    cc = "reno"
    path = ["bottleneck"]
    count = 20
    """
    path = write_scenario(long_run)
    proc = subprocess.Popen(
        [*mpcc_command(), "run", str(path), "--out", str(tmp_path / "out")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    time.sleep(2.0)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail(f"mpcc did not stop within 10 s of {sig.name}")
    assert proc.returncode == 130, err
    assert err.split() == ["mpcc:", "interrupted"], err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml"]


def test_unwritable_results_folder_is_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    proc = run_cli("run", ROOT / "scenarios/example.toml", "--out", blocker / "out", "--no-plots")
    assert_one_line_error(proc, str(blocker))


def test_python_dash_m_mpcc_is_the_command():
    proc = subprocess.run([sys.executable, "-m", "mpcc", "list"], capture_output=True, text=True)
    assert proc.returncode == 0 and "reno" in proc.stdout


def test_a_finished_download_prints_its_completion_time_and_own_throughput(tmp_path, capsys):
    """A 20 MB download on 10 Mbit/s finishing long before the run's end: its
    throughput is over its own lifetime (it used to be averaged to the end)."""
    from mpcc.cli import main

    path = tmp_path / "file.toml"
    path.write_text('duration = "60s"\nsample_interval = "0s"\n[links.b]\nrate = "10Mbps"\ndelay = "10ms"\n'
                    '[[flows]]\nname = "dl"\ncc = "cubic"\npath = ["b"]\napp = { kind = "file", size = "20MB" }\n')
    assert main(["run", str(path), "--out", str(tmp_path / "out"), "--no-plots"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if "file: completed in" in x)
    fct = float(line.split("completed in ")[1].split(" s")[0])
    assert 16 < fct < 20 and "20000000 bytes" in line
    mbps = float(next(x for x in out.splitlines() if "flow dl:" in x).split("throughput ")[1].split(" ")[0])
    assert 8.5 < mbps <= 10.0, mbps


def test_a_scenario_with_several_problems_reports_each_on_its_own_line(tmp_path, capsys):
    from mpcc.cli import main

    path = tmp_path / "bad.toml"
    path.write_text('duration = "1s"\nsample_interval = "fast"\n[links.b]\nrate = "-5Mbps"\n'
                    '[[flows]]\nname = "a"\ncc = "reno"\npath = ["b"]\ncount = "2"\n')
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 3 and all(x.startswith("mpcc: error: ") for x in lines), lines
    for field in ("sample_interval", "links.b.rate", "flows[0].count"):
        assert sum(field in x for x in lines) == 1, (field, lines)


def test_plot_selects_flows_metrics_and_formats(tmp_path, capsys):
    from mpcc.cli import main

    out = tmp_path / "r"
    assert main(["run", str(ROOT / "scenarios" / "demo.toml"), "--out", str(out), "--no-plots"]) == 0
    capsys.readouterr()
    args = ["plot", str(out), "--flows", "cubic", "--metrics", "rtt,throughput_delay", "--format", "svg,pdf"]
    assert main(args) == 0
    drawn = sorted(p.name for p in out.iterdir() if p.suffix in (".png", ".svg", ".pdf"))
    assert drawn == ["rtt.pdf", "rtt.svg", "throughput_delay.pdf", "throughput_delay.svg"]
    first = (out / "throughput_delay.pdf").read_bytes()
    assert main(args) == 0 and (out / "throughput_delay.pdf").read_bytes() == first  # no date stamps
    for bad, flag in ((["--metrics", "jitter"], "--metrics"), (["--format", "gif"], "--format"),
                      (["--flows", "nope"], "--flows")):
        assert main(["plot", str(out), *bad]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"mpcc: error: {flag}: "), err
