"""Output folders: mpcc never deletes or overwrites a file it did not write, never
lists a file an earlier run wrote, and never leaves a half-written folder under the
final name (full disk, out of memory, SIGTERM)."""

import importlib.util
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, mpcc_command, run_cli

# A small paper for `mpcc reproduce`: 3 variants x 2 replications of a one-link
# scenario kept in scenarios/tinypaper/ next to the module (like the real papers).
# TINY_RATE and TINY_DURATION make each run slower; TINY_DRAW_SLEEP slows down
# report writing.
TINY_PAPER = '''
import os, time
from pathlib import Path
from mpcc.reproduce import Claim, Experiment, Figure, Paper, Variant

SCENARIO = Path(__file__).parent / "scenarios" / "tinypaper" / "base.toml"
RATE = os.environ.get("TINY_RATE", "10Mbps")
DURATION = os.environ.get("TINY_DURATION", "2s")

def metrics(result, variant):
    return {"goodput_bps": sum(f["goodput_bps"] for f in result.summary["flows"].values())}

def draw(data):
    time.sleep(float(os.environ.get("TINY_DRAW_SLEEP", "0")))
    from mpcc.reproduce.figures import new_figure
    fig, ax = new_figure()
    ax.plot(data["sweep"]["p"], data["sweep"]["goodput_bps"], "o")
    return fig

def verdict(data):
    return "reproduced", f"mean goodput {data['sweep']['goodput_bps'].mean():.9g}"

PAPER = Paper(
    name="tinypaper", title="A tiny test paper", reference="tests", summary="One Reno flow, random loss.",
    tcp_profile_reason="a test paper: the scenario default",
    experiments=(Experiment("sweep", SCENARIO,
                            tuple(Variant(f"p={p}", {"links.l.loss.p": p, "links.l.rate": RATE, "duration": DURATION},
                                          {"p": p})
                                  for p in (0.001, 0.01, 0.02)),
                            metrics, replications=2, quick_replications=2),),
    figures=(Figure("goodput", "Goodput", "one point per run", draw),),
    claims=(Claim("c", "The flow moves data.", "goodput", verdict, source="tests", quote="The flow moves data.",
                  rule="always reproduced"),),
)
'''
TINY_SCENARIO = """
duration = "2s"
sample_interval = "100ms"
[links.l]
rate = "10Mbps"
delay = "10ms"
loss = { kind = "bernoulli", p = 0.001 }
queue = { kind = "droptail", packets = 500 }
[[flows]]
name = "a"
cc = "reno"
path = ["l"]
"""
TINY_RUNS = 6


def write_tiny_paper(folder: Path) -> Path:
    """tinypaper.py and its scenario in `folder`; returns the scenario file."""
    (folder / "tinypaper.py").write_text(TINY_PAPER)
    scenario = folder / "scenarios" / "tinypaper" / "base.toml"
    scenario.parent.mkdir(parents=True, exist_ok=True)
    scenario.write_text(TINY_SCENARIO)
    return scenario


def tiny_paper(folder: Path):
    """The tiny Paper, its scenario in `folder` (imported under a name of its own)."""
    write_tiny_paper(folder)
    spec = importlib.util.spec_from_file_location(f"tinypaper_{abs(hash(folder))}", folder / "tinypaper.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.PAPER


def reproduce_tiny(folder: Path, *args, env=None, **popen):
    """`mpcc reproduce tinypaper ARGS` in `folder` (started, not waited for)."""
    env = dict(os.environ, PYTHONPATH=str(folder), PYTHONUNBUFFERED="1", **(env or {}))
    return subprocess.Popen([*mpcc_command(), "reproduce", "tinypaper", *map(str, args)], cwd=folder, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def assert_one_line(err: str, prefix: str, *words):
    lines = err.strip("\n").splitlines()
    assert len(lines) == 1 and lines[0].startswith(prefix), err
    assert "Traceback" not in err
    for w in words:
        assert w in lines[0], lines[0]


def tree(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ---- mpcc run --out ---------------------------------------------------------------------------

SCENARIO = """
duration = "2s"
sample_interval = "{interval}"
[links.l]
rate = "10Mbps"
delay = "10ms"
[[flows]]
name = "a"
cc = "reno"
path = ["l"]
"""


def cli(capsys, *args):
    from mpcc import cli as command

    code = command.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_run_refuses_an_existing_folder_unless_forced_and_all_of_it_is_mpccs(tmp_path, capsys):
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.format(interval="100ms"))
    out = tmp_path / "out"
    assert cli(capsys, "run", scenario, "--out", out, "--no-plots")[0] == 0
    first = tree(out)
    assert ".mpcc-manifest.json" in first and "summary.json" in first

    code, stdout, err = cli(capsys, "run", scenario, "--out", out, "--no-plots")
    assert code == 2 and stdout == ""  # refused before simulating
    assert_one_line(err, "mpcc: error: ", str(out), "--force")

    code, _, err = cli(capsys, "run", scenario, "--out", out, "--force")
    assert code == 0, err
    assert {"summary.json", "throughput.png"} <= set(tree(out))

    (out / "notes.txt").write_text("mine")
    code, stdout, err = cli(capsys, "run", scenario, "--out", out, "--force")
    assert code == 2 and stdout == ""
    assert_one_line(err, "mpcc: error: ", "notes.txt")
    assert (out / "notes.txt").read_text() == "mine" and (out / "summary.json").is_file()

    (out / "notes.txt").unlink()
    (out / "summary.json").write_text("{}")  # edited by the user: not mpcc's any more
    code, _, err = cli(capsys, "run", scenario, "--out", out, "--force")
    assert code == 2 and "summary.json" in err and (out / "summary.json").read_text() == "{}"

    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "data.csv").write_text("1,2\n")
    code, _, err = cli(capsys, "run", scenario, "--out", plain, "--force")
    assert code == 2 and ".mpcc-manifest.json" in err and (plain / "data.csv").is_file()
    assert not [p for p in tmp_path.iterdir() if ".mpcc-" in p.name]  # no temporary folder left


def test_plots_redrawn_by_mpcc_plot_still_count_as_mpccs(tmp_path, capsys):
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.format(interval="100ms"))
    out = tmp_path / "out"
    assert cli(capsys, "run", scenario, "--out", out, "--no-plots")[0] == 0
    code, stdout, _ = cli(capsys, "plot", out)
    assert code == 0 and "throughput.png" in stdout
    code, _, err = cli(capsys, "run", scenario, "--out", out, "--force")
    assert code == 0, err


def test_api_run_needs_force_for_an_existing_folder(tmp_path):
    import mpcc
    from mpcc.output import OutputFolderError

    text = SCENARIO.format(interval="100ms")
    mpcc.run(text, out=tmp_path / "r", plots=False)
    with pytest.raises(OutputFolderError, match="force=True"):
        mpcc.run(text, out=tmp_path / "r", plots=False)
    res = mpcc.run(text, out=tmp_path / "r", plots=False, force=True)
    assert res.out == tmp_path / "r" and res.plots == []


def test_only_the_plots_this_run_wrote_are_listed(tmp_path, capsys):
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.format(interval="100ms"))
    out = tmp_path / "out"
    code, stdout, _ = cli(capsys, "run", scenario, "--out", out)
    assert code == 0 and "throughput.png" in stdout
    scenario.write_text(SCENARIO.format(interval="0s"))  # no time series, so no plots
    code, stdout, err = cli(capsys, "run", scenario, "--out", out, "--force")
    assert code == 0, err
    assert ".png" not in stdout and not list(out.glob("*.png"))


def _limit_file_size(limit: int):
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_a_write_failure_names_the_folder_and_leaves_no_partial_folder(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.run([*mpcc_command(), "run", str(ROOT / "scenarios/demo.toml"), "--out", str(out)],
                          capture_output=True, text=True, timeout=120, preexec_fn=_limit_file_size(20_000))
    assert proc.returncode == 2, proc.stderr
    assert_one_line(proc.stderr, "mpcc: error: ", str(out), "File too large")
    assert list(tmp_path.iterdir()) == []  # neither `out` nor a temporary folder


def test_memory_error_while_writing_keeps_the_summary_and_says_so(tmp_path, capsys, monkeypatch):
    from mpcc import parquet

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(parquet, "write", no_memory)
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.format(interval="100ms"))
    out = tmp_path / "out"
    code, stdout, err = cli(capsys, "run", scenario, "--out", out)
    assert code == 3
    assert_one_line(err, "mpcc: warning: ", "out of memory", str(out), "flow_series.parquet")
    assert "flow a: throughput" in stdout  # the run's numbers are still shown
    summary = json.loads((out / "summary.json").read_text())
    assert summary["flows"]["a"]["throughput_bps"] > 0
    assert sorted(json.loads((out / ".mpcc-manifest.json").read_text())["files"]) == [
        "config.json", "scenario.toml", "summary.json"]


def test_a_failed_plot_keeps_the_data(tmp_path, capsys, monkeypatch):
    from mpcc import plots

    def broken(folder):
        (Path(folder) / "cwnd.png").write_bytes(b"half")
        raise RuntimeError("no fonts")

    monkeypatch.setattr(plots, "plot_results", broken)
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.format(interval="100ms"))
    code, _, err = cli(capsys, "run", scenario, "--out", tmp_path / "out")
    assert code == 3
    assert_one_line(err, "mpcc: warning: ", "plotting failed", "no fonts", "not written: plots")
    assert (tmp_path / "out/flow_series.parquet").is_file() and not list((tmp_path / "out").glob("*.png"))


def test_mathtext_in_a_flow_name_is_drawn_as_text(tmp_path, capsys):
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.format(interval="100ms").replace('name = "a"', 'name = "$\\\\frac{$"'))
    code, stdout, err = cli(capsys, "run", scenario, "--out", tmp_path / "out")
    assert code == 0, err
    assert "flow $\\frac{$: throughput" in stdout and (tmp_path / "out/throughput.png").is_file()


def test_early_stop_saves_the_results_warns_and_exits_3(tmp_path, capsys, monkeypatch):
    from mpcc import _core

    real = _core.run

    def stopped(config_json, **kwargs):
        summary, tables, pcaps = real(config_json)
        data = json.loads(summary)
        data["sim"]["stopped_early"] = "stopped at 1.250 s of 2.000 s: the simulator's memory passed the limit"
        data["sim"]["duration_s"] = 1.25
        return json.dumps(data), tables, pcaps

    monkeypatch.setattr(_core, "run", stopped)
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.format(interval="100ms"))
    code, stdout, err = cli(capsys, "run", scenario, "--out", tmp_path / "out", "--no-plots", "--max-memory", "1GB")
    assert code == 3
    assert_one_line(err, "mpcc: warning: ", "memory passed the limit", "results cover only the first 1.250 s")
    assert "stopped_early" in (tmp_path / "out/summary.json").read_text()


def test_the_api_warns_of_an_early_stop(monkeypatch):
    import mpcc
    from mpcc import _core
    from mpcc.run import StoppedEarlyWarning

    real = _core.run

    def stopped(config_json, **kwargs):
        summary, tables, pcaps = real(config_json)
        data = json.loads(summary)
        data["sim"]["stopped_early"] = "stopped at 1.250 s of 2.000 s: the simulator's memory passed the limit"
        return json.dumps(data), tables, pcaps

    monkeypatch.setattr(_core, "run", stopped)
    with pytest.warns(StoppedEarlyWarning, match="stopped at 1.250 s"):
        result = mpcc.run(SCENARIO.format(interval="0s"))
    assert result.stopped_early.startswith("stopped at 1.250 s")


def test_max_memory_takes_a_size():
    proc = run_cli("run", "x.toml", "--max-memory", "lots")
    assert proc.returncode == 2 and "--max-memory" in proc.stderr and len(proc.stderr.splitlines()) == 1


def test_a_scenario_above_max_memory_is_refused_before_running(tmp_path, capsys):
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.format(interval="100ms"))
    code, stdout, err = cli(capsys, "run", scenario, "--out", tmp_path / "out", "--max-memory", "1KB")
    assert code == 2 and stdout == ""
    assert_one_line(err, "mpcc: error: ", "--max-memory")
    assert not (tmp_path / "out").exists()

    write_tiny_paper(tmp_path)
    proc = reproduce_tiny(tmp_path, "--out", "report", "--cache", "cache", "--max-memory", "1KB")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2
    assert_one_line(err, "mpcc: error: ", "sweep/p=0.001", "--max-memory")
    assert not (tmp_path / "cache").exists() and not (tmp_path / "report").exists()


def test_control_characters_in_names_are_shown_escaped(tmp_path, capsys):
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.format(interval="0s").replace('name = "a"', 'name = "a\\u001b[31mred\\nx"'))
    code, stdout, err = cli(capsys, "run", scenario, "--out", tmp_path / "out")
    assert code == 0, err
    assert "\x1b" not in stdout + err
    assert any(line.startswith("  flow a\\x1b[31mred\\nx: throughput") for line in stdout.splitlines()), stdout


def test_a_subflow_without_rtt_samples_shows_n_a(tmp_path, capsys, monkeypatch):
    from mpcc import _core

    real = _core.run

    def no_samples(config_json, **kwargs):
        summary, tables, pcaps = real(config_json)
        data = json.loads(summary)
        data["flows"]["m"]["subflows"][1]["rtt_mean_s"] = float("nan")
        return json.dumps(data), tables, pcaps

    monkeypatch.setattr(_core, "run", no_samples)
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.format(interval="0s").replace('name = "a"', 'name = "m"').replace(
        'path = ["l"]', 'subflows = [{ path = ["l"] }, { path = ["l2"] }]') + '[links.l2]\nrate = "5Mbps"\n')
    code, stdout, err = cli(capsys, "run", scenario, "--out", tmp_path / "out")
    assert code == 0, err
    line = next(line for line in stdout.splitlines() if "subflow 1" in line)
    assert "mean RTT n/a ms" in line and "nan" not in stdout


# ---- mpcc reproduce --out ----------------------------------------------------------------------


def test_reproduce_refuses_a_folder_mpcc_did_not_write_before_running_anything(tmp_path):
    write_tiny_paper(tmp_path)
    (tmp_path / "myout" / "tinypaper").mkdir(parents=True)
    (tmp_path / "myout" / "tinypaper" / "notes.txt").write_text("mine")
    proc = reproduce_tiny(tmp_path, "--out", "myout", "--cache", "cache", "--jobs", "1")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2
    assert_one_line(err, "mpcc: error: ", "myout/tinypaper")
    assert (tmp_path / "myout" / "tinypaper" / "notes.txt").read_text() == "mine"
    assert not (tmp_path / "cache").exists()  # nothing ran

    # The paper's own scenario folder: `--out scenarios` from the folder holding it.
    before = tree(tmp_path / "scenarios")
    proc = reproduce_tiny(tmp_path, "--out", "scenarios", "--cache", "cache", "--jobs", "1")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and "scenarios/tinypaper" in err
    assert tree(tmp_path / "scenarios") == before and not (tmp_path / "cache").exists()


def test_reproduce_into_the_repository_scenarios_is_refused_up_front():
    """`mpcc reproduce tcp --out scenarios` once deleted scenarios/tcp/*.toml: the check
    that now runs first refuses it (called directly here, so that nothing can run)."""
    from mpcc.cli import _check_report_folders
    from mpcc.output import OutputFolderError
    from mpcc.papers import load

    with pytest.raises(OutputFolderError, match="scenarios/tcp"):
        _check_report_folders(ROOT / "scenarios", [load("tcp")], with_index=False)
    assert list((ROOT / "scenarios" / "tcp").glob("*.toml"))


def test_reproduce_replaces_its_own_report_and_keeps_a_foreign_index(tmp_path):
    from mpcc.output import OutputFolderError, check_file_replaceable, write_file
    from mpcc.reproduce.pipeline import reproduce

    paper = tiny_paper(tmp_path)
    first = reproduce(paper, out=tmp_path / "report", jobs=1, cache=tmp_path / "cache")
    files = tree(first.folder)
    second = reproduce(paper, out=tmp_path / "report", jobs=1, cache=tmp_path / "cache")
    assert second.stats.cached == TINY_RUNS and tree(second.folder) == files  # replaced, same bytes

    write_file(tmp_path / "report", "index.html", "<p>one</p>\n")
    write_file(tmp_path / "report", "index.html", "<p>two</p>\n")  # mpcc's own: replaced
    (tmp_path / "report" / "index.html").write_text("<p>the user's</p>\n")
    with pytest.raises(OutputFolderError, match="index.html"):
        check_file_replaceable(tmp_path / "report", "index.html")


def test_sigterm_while_the_report_is_written_exits_130_and_leaves_no_partial_report(tmp_path):
    write_tiny_paper(tmp_path)
    proc = reproduce_tiny(tmp_path, "--out", "report", "--cache", "cache", "--jobs", "1",
                          env={"TINY_DRAW_SLEEP": "30"})
    deadline = time.monotonic() + 60
    while len(list((tmp_path / "cache").glob("*/*.npz"))) < TINY_RUNS and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)  # measuring, then drawing (asleep)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == "mpcc: interrupted" and "Traceback" not in err
    assert sorted(p.name for p in (tmp_path / "report").iterdir()) == []  # no report, no temporary folder


def test_ctrl_c_in_the_pool_leaves_no_semaphore_warning(tmp_path):
    write_tiny_paper(tmp_path)
    proc = reproduce_tiny(tmp_path, "--out", "report", "--cache", "cache", "--jobs", "2",
                          env={"TINY_RATE": "1Gbps", "TINY_DURATION": "6s"}, start_new_session=True)
    deadline = time.monotonic() + 60
    while not list((tmp_path / "cache").glob("*/*.npz")) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "leaked" not in err and "resource_tracker" not in err and "Traceback" not in err, err


def test_report_folder_contents_are_listed_in_its_manifest(tmp_path):
    from mpcc.output import MANIFEST, read_manifest

    paper = tiny_paper(tmp_path)
    from mpcc.reproduce.pipeline import reproduce

    folder = reproduce(paper, out=tmp_path / "report", jobs=1, cache=tmp_path / "cache").folder
    listed = read_manifest(folder)
    assert sorted(listed) == sorted(name for name in tree(folder) if name != MANIFEST)
    assert "scenarios/base.toml" in listed and "figures/goodput.png" in listed


def test_reproduce_all_refuses_an_index_mpcc_did_not_write_before_running(tmp_path, capsys):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "index.html").write_text("<p>my page</p>")
    code, stdout, err = cli(capsys, "reproduce", "all", "--quick", "--out", tmp_path / "out",
                            "--cache", tmp_path / "cache")
    assert code == 2 and stdout == ""
    assert_one_line(err, "mpcc: error: ", "index.html")
    assert (tmp_path / "out" / "index.html").read_text() == "<p>my page</p>" and not (tmp_path / "cache").exists()


def test_reproduce_with_a_run_stopped_early_writes_no_report_and_exits_3(tmp_path, capsys, monkeypatch):
    from mpcc import _core

    real = _core.run

    def stopped(config_json, **kwargs):
        summary, tables, pcaps = real(config_json)
        data = json.loads(summary)
        data["sim"]["stopped_early"] = "stopped at 1.000 s of 2.000 s: the simulator's memory passed the limit"
        return json.dumps(data), tables, pcaps

    monkeypatch.setattr(_core, "run", stopped)
    write_tiny_paper(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        code, _, err = cli(capsys, "reproduce", "tinypaper", "--jobs", "1", "--out", tmp_path / "report",
                           "--cache", tmp_path / "cache", "--max-memory", "1GB")
    finally:
        sys.modules.pop("tinypaper", None)  # imported from this test's folder
    assert code == 3
    assert_one_line(err.splitlines()[-1], "mpcc: error: ", "tinypaper", "stopped at 1.000 s", "--max-memory")
    assert not list((tmp_path / "cache").glob("*/*.npz")) and not (tmp_path / "report" / "tinypaper").exists()


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2 exchange", "two renames"])
def test_a_replaced_folder_is_swapped_whole(tmp_path, monkeypatch, exchange):
    from mpcc import output

    if not exchange:
        monkeypatch.setattr(output, "_exchange", lambda a, b: False)
    for text in ("old", "new"):
        with output.building(tmp_path / "r") as folder:
            (folder / "data.txt").write_text(text)
            (folder / "sub").mkdir()
            (folder / "sub" / text).write_text(text)
    assert sorted(tree(tmp_path / "r")) == [".mpcc-manifest.json", "data.txt", "sub/new"]
    assert (tmp_path / "r" / "data.txt").read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["r"]  # nothing left aside
