"""The eBPF controllers' integer C cores against the Rust controllers: the
simulator records one connection's congestion-control events, ebpf/build/replay
runs them through the C core, and the two window trajectories must agree
within the tolerance stated in docs/kernel.md. Needs only a C compiler."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from conftest import ROOT
from mpcc.run import run

EBPF = ROOT / "ebpf"
ALGOS = ["lia", "olia", "balia", "wvegas", "noda_ito", "mpveno", "mpmtp"]

# The textbook sender: the recorder does not record undo (a spurious reduction
# restored), which the linux profile uses and the C cores do not implement yet.
HEAD = 'duration = "DURATION"\nseed = 3\nsample_interval = "1s"\ntcp = { profile = "rfc" }\n'
SCENARIOS = {
    # Two subflows and one Reno flow through one bottleneck.
    "shared": HEAD + """
[links.b]
rate = "10Mbps"
delay = "10ms"
queue = { kind = "droptail", packets = 60 }
[[flows]]
name = "m"
cc = "CC"
paths = [["b"], ["b"]]
[[flows]]
name = "tcp"
cc = "reno"
path = ["b"]
""",
    # Two disjoint paths with 20 ms and 80 ms base RTTs.
    "disjoint": HEAD + """
[links.short]
rate = "10Mbps"
delay = "10ms"
queue = { kind = "droptail", packets = 50 }
[links.long]
rate = "20Mbps"
delay = "40ms"
queue = { kind = "droptail", packets = 100 }
[[flows]]
name = "m"
cc = "CC"
paths = [["short"], ["long"]]
""",
    # Two disjoint paths with 0.5 % and 0.1 % random loss, narrow enough that the
    # windows reach the queues between losses.
    "lossy": HEAD + """
[links.a]
rate = "4Mbps"
delay = "15ms"
queue = { kind = "droptail", packets = 40 }
loss = { kind = "bernoulli", p = 0.005 }
[links.c]
rate = "6Mbps"
delay = "25ms"
queue = { kind = "droptail", packets = 40 }
loss = { kind = "bernoulli", p = 0.001 }
[[flows]]
name = "m"
cc = "CC"
paths = [["a"], ["c"]]
""",
}

# Stated tolerance (docs/kernel.md): at 99 % of the events the C window is within
# 2 % + 0.5 segment of the Rust window, and the mean relative gap is below 1 %.
REL, ABS, SHARE, MEAN = 0.02, 0.5, 0.99, 0.01


@pytest.fixture(scope="module")
def replay_bin():
    if not shutil.which(os.environ.get("CC", "cc")):
        pytest.skip("replay: no C compiler (cc)")
    proc = subprocess.run(["make", "-s", "-C", str(EBPF), "build/replay"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return EBPF / "build" / "replay"


def trajectories(replay_bin, tmp_path, algo: str, scenario: str, duration: str = "20s"):
    record = tmp_path / f"{algo}-{scenario}.rec"
    text = SCENARIOS[scenario].replace('"CC"', f'"{algo}"').replace("DURATION", duration)
    run(text, record_cc=record)
    proc = subprocess.run([str(replay_bin), str(record)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines()]
    return [(float(r), float(c)) for _, _, r, c in rows]


@pytest.mark.parametrize("scenario", list(SCENARIOS))
@pytest.mark.parametrize("algo", ALGOS)
def test_c_core_follows_the_rust_controller(replay_bin, tmp_path, algo, scenario):
    pairs = trajectories(replay_bin, tmp_path, algo, scenario)
    assert len(pairs) > 2000, "too few events to compare"
    within = sum(abs(r - c) <= REL * r + ABS for r, c in pairs) / len(pairs)
    mean_gap = sum(abs(r - c) / r for r, c in pairs) / len(pairs)
    assert within >= SHARE and mean_gap <= MEAN, (
        f"{algo}/{scenario}: {within:.4f} of {len(pairs)} events within tolerance, mean gap {mean_gap:.4f}"
    )


def test_replay_detects_a_different_controller(replay_bin, tmp_path):
    """The comparison can fail: LIA's record replayed as uncoupled OLIA's growth diverges."""
    pairs = trajectories(replay_bin, tmp_path, "lia", "shared")
    record = next(tmp_path.glob("lia-shared.rec"))
    text = record.read_text().replace("cc=lia", "cc=noda_ito", 1)
    record.write_text(text)
    proc = subprocess.run([str(replay_bin), str(record)], capture_output=True, text=True)
    rows = [line.split() for line in proc.stdout.splitlines()]
    within = sum(abs(float(r) - float(c)) <= REL * float(r) + ABS for _, _, r, c in rows) / len(rows)
    assert len(pairs) == len(rows) and within < SHARE


def test_record_cc_bad_path_is_one_line(tmp_path):
    from conftest import run_cli

    scen = tmp_path / "s.toml"
    scen.write_text(SCENARIOS["disjoint"].replace('"CC"', '"lia"').replace("DURATION", "1s"))
    proc = run_cli("run", scen, "--out", tmp_path / "out", "--no-plots", "--record-cc", tmp_path / "no" / "such" / "f")
    assert proc.returncode == 2 and proc.stderr.startswith("mpcc: error: record_cc.path:"), proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
