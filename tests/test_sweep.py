"""`mpcc sweep`: the cartesian product of parameter values and seeds, cached, resumable,
identical on local cores and on a Dask cluster."""

import filecmp
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from mpcc.cli import main
from mpcc.sweep import load, run_sweep

SCENARIO = """
duration = "3s"
sample_interval = "0s"

[links.b]
rate = "10Mbps"
delay = "10ms"
loss = { kind = "bernoulli", p = 0.001 }

[[flows]]
name = "a"
cc = "reno"
path = ["b"]
"""


def _scenario(tmp_path, text=SCENARIO, name="s.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _same_folders(a: Path, b: Path) -> None:
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir())
    _, mismatch, errors = filecmp.cmpfiles(a, b, names, shallow=False)
    assert mismatch == [] and errors == [], mismatch


def test_the_grid_is_the_cartesian_product_with_parameters_as_columns(tmp_path):
    sweep = load(_scenario(tmp_path), ["links.b.rate=5Mbps,10Mbps", "flows.0.cc=reno,cubic"], seeds=3)
    outcome = run_sweep(sweep, tmp_path / "out", jobs=2, cache=tmp_path / "cache")
    assert (outcome.runs, outcome.computed) == (12, 12)
    runs = pd.read_csv(tmp_path / "out" / "runs.csv")
    assert list(runs.columns[:4]) == ["links.b.rate", "flows.0.cc", "seed", "flow"]
    assert len(runs) == 12 and runs.groupby(["links.b.rate", "flows.0.cc"]).size().tolist() == [3] * 4
    summary = pd.read_csv(tmp_path / "out" / "summary.csv")
    assert len(summary) == 4 and (summary["n"] == 3).all()
    fast = summary[summary["links.b.rate"] == "10Mbps"]["goodput_bps_mean"]
    slow = summary[summary["links.b.rate"] == "5Mbps"]["goodput_bps_mean"]
    assert fast.min() > slow.max()
    assert (tmp_path / "out" / "goodput_bps.png").is_file()
    # Seeds differ here (random loss): the intervals are not zero-width.
    assert (summary["goodput_bps_ci"] > 0).all()


def test_a_sweep_table_in_the_scenario_and_command_line_override(tmp_path):
    text = SCENARIO + '\n[sweep]\nseeds = 2\nparams = { "links.b.rate" = ["5Mbps", "10Mbps", "20Mbps"] }\n'
    path = _scenario(tmp_path, text)
    assert len(load(path).points()) == 3 and load(path).seeds == [1, 2]
    sweep = load(path, ["links.b.rate=7Mbps"], seeds=1)
    assert sweep.points() == [{"links.b.rate": "7Mbps"}] and sweep.seeds == [1]


def test_local_and_dask_backends_write_identical_tables(tmp_path):
    distributed = pytest.importorskip("distributed")
    path = _scenario(tmp_path)
    params = ["flows.0.cc=reno,cubic,lia"]
    run_sweep(load(path, params, seeds=2), tmp_path / "local", jobs=2, cache=tmp_path / "c1")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        outcome = run_sweep(load(path, params, seeds=2), tmp_path / "dask", cache=tmp_path / "c2",
                            dask=c.scheduler_address)
    assert outcome.computed == 6
    for name in ("runs.csv", "links.csv", "summary.csv", "runs.parquet", "summary.parquet"):
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "dask" / name).read_bytes(), name


def test_a_killed_sweep_resumes_from_its_finished_runs_and_writes_the_same_bytes(tmp_path):
    # Runs long enough (about 0.1 s of simulation each) that the kill lands while most of them are
    # still to do: with 40 s at 10 Mbit/s a faster simulator finished all twelve before the poll saw three.
    path = _scenario(tmp_path, SCENARIO.replace('duration = "3s"', 'duration = "400s"').replace(
        'rate = "10Mbps"', 'rate = "100Mbps"'))
    args = [sys.executable, "-m", "mpcc", "sweep", str(path), "--param", "flows.0.cc=reno,cubic,lia,olia",
            "--seeds", "3", "--jobs", "1", "--cache", str(tmp_path / "cache")]
    proc = subprocess.Popen([*args, "--out", str(tmp_path / "a")], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while len(list((tmp_path / "cache").glob("*/*.npz"))) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done = len(list((tmp_path / "cache").glob("*/*.npz")))
    assert 3 <= done < 12, done
    resumed = subprocess.run([*args, "--out", str(tmp_path / "a")], capture_output=True, text=True, check=True)
    assert f"({done} from cache, {12 - done} computed)" in resumed.stdout
    fresh = subprocess.run([*args[:-2], "--cache", str(tmp_path / "cache2"), "--out", str(tmp_path / "b")],
                           capture_output=True, text=True, check=True)
    assert "(0 from cache, 12 computed)" in fresh.stdout
    _same_folders(tmp_path / "a", tmp_path / "b")


def test_editing_a_trace_reruns_exactly_the_runs_that_read_it(tmp_path):
    for name, gap in (("one.trace", 1), ("two.trace", 2)):
        (tmp_path / name).write_text("".join(f"{t}\n" for t in range(gap, 101, gap)))
    text = SCENARIO.replace('rate = "10Mbps"', 'capacity = { kind = "trace", path = "one.trace" }')
    path = _scenario(tmp_path, text)
    sweep = lambda: load(path, ["links.b.capacity.path=one.trace,two.trace"], seeds=2)  # noqa: E731
    first = run_sweep(sweep(), tmp_path / "o1", jobs=2, cache=tmp_path / "cache")
    assert first.computed == 4
    (tmp_path / "two.trace").write_text("".join(f"{t}\n" for t in range(3, 101, 3)))
    second = run_sweep(sweep(), tmp_path / "o2", jobs=2, cache=tmp_path / "cache")
    assert (second.cached, second.computed) == (2, 2)


def test_bad_sweeps_are_one_line_errors(tmp_path, capsys):
    path = _scenario(tmp_path)
    cases = [
        (["--param", "links.b.rate"], "--param"),
        (["--param", "links.nope.rate=5Mbps"], "--param links.nope.rate: the scenario has no links.nope"),
        (["--param", "links.b.rate=5Mbps,-3Mbps"], "links.b.rate"),
        ([], "nothing to sweep"),
    ]
    for extra, field in cases:
        code = main(["sweep", str(path), *extra, "--out", str(tmp_path / "x"), "--cache", str(tmp_path / "c")])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and err[0].startswith("mpcc: error: ") and field in err[0], (extra, err)
