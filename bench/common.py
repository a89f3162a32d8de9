"""Shared by bench/bench.py and bench/validate_ns3.py: finding (and building) the two
simulators, turning a scenario of scenarios/validation/ into the command line of each,
running a process while measuring its wall time and peak memory, and reading results.

mpcc runs as the native binary `mpcc-sim CONFIG.json` (CONFIG.json is the canonical
configuration that the Python front end makes from the TOML scenario, written once
before timing); ns-3 runs as bench/build/ns3-dumbbell. Both are timed as whole
processes, start-up included.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
SCENARIOS = ROOT / "scenarios" / "validation"
OUT = BENCH / "out"

sys.path.insert(0, str(ROOT / "python"))

# ns-3 options that make it run the same algorithms as mpcc (docs/validation.md):
# mpcc's loss recovery is RFC 6675 with cwnd set to ssthresh on entry, not ns-3's default
# Proportional Rate Reduction (RFC 6937), and mpcc's CUBIC has no HyStart (ns-3's default
# is on). With `ns3_defaults=True` these are left at ns-3's defaults.
NS3_CC = {"reno": ["--cc=NewReno"], "cubic": ["--cc=Cubic"], "vegas": ["--cc=Vegas"], "veno": ["--cc=Veno"],
          "westwood": ["--cc=WestwoodPlus"]}
NS3_ALIGN = {"reno": ["--recovery=Classic"], "cubic": ["--recovery=Classic", "--hystart=0"]}


def ns3_binary() -> Path:
    """bench/build/ns3-dumbbell, built against the ns3 wheel when missing or stale."""
    out = subprocess.run([str(BENCH / "build_ns3.sh")], check=True, stdout=subprocess.PIPE, text=True)
    return Path(out.stdout.strip().splitlines()[-1])


def mpcc_binary() -> Path:
    """$MPCC_SIM if set; otherwise `cargo build --release -p mpcc-sim` (a no-op when up to
    date) and the binary in $CARGO_TARGET_DIR (default: the workspace's target/)."""
    if os.environ.get("MPCC_SIM"):
        return Path(os.environ["MPCC_SIM"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    if subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "mpcc-sim"], cwd=ROOT).returncode != 0:
        sys.exit("bench: `cargo build --release -p mpcc-sim` failed (or set MPCC_SIM to a built binary)")
    return target / "release" / "mpcc-sim"


def mpcc_config(name: str) -> Path:
    """Writes the canonical JSON configuration of scenario `name`; returns its path."""
    from mpcc import scenario

    config = scenario.load(SCENARIOS / f"{name}.toml").to_config()
    path = OUT / "configs" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config))
    return path


def ns3_args(name: str, ns3_defaults: bool = False) -> list[str]:
    """The ns-3 program's options for scenario `name`, read from its TOML file (the
    layout of bench/make_scenarios.py: bottleneck, access_i, flows f0..fN-1)."""
    s = tomllib.loads((SCENARIOS / f"{name}.toml").read_text())
    bottleneck, access = s["links"]["bottleneck"], s["links"]["access_0"]
    # A scenario in mpcc's ns3 profile is compared with ns-3's own defaults.
    ns3_defaults = ns3_defaults or s["tcp"].get("profile") == "ns3"
    delayed_ack = s["tcp"].get("delayed_ack", s["tcp"].get("profile") == "ns3")
    extra = []
    if "loss" in bottleneck:
        loss = bottleneck["loss"]
        assert loss["kind"] in ("bernoulli", "periodic"), f"{name}: only bernoulli and periodic loss have ns-3 twins here"
        extra.append(f"--lossRate={loss['p']}" if loss["kind"] == "bernoulli" else f"--lossEvery={loss['every']}")
    rate = bottleneck.get("rate")
    if "capacity" in bottleneck:
        steps = bottleneck["capacity"]["steps"]
        assert len(steps) == 2 and _seconds(steps[0]["at"]) == 0, f"{name}: one step expected"
        rate = steps[0]["rate"]
        extra += [f"--stepAt={_seconds(steps[1]['at'])}", f"--stepRate={steps[1]['rate']}"]
    flows = s["flows"]
    ccs = {f["cc"] for f in flows}
    assert len(ccs) == 1, f"{name}: one congestion controller for all flows expected"
    starts = [_seconds(f.get("start", "0s")) for f in flows]
    gap = round(starts[1] - starts[0], 9) if len(starts) > 1 else 0.0
    assert all(abs(t - (starts[0] + i * gap)) < 1e-9 for i, t in enumerate(starts)), "evenly spaced starts expected"
    cc = ccs.pop()
    apps = {json.dumps(f.get("app", {"kind": "bulk"}), sort_keys=True) for f in flows}
    assert len(apps) == 1, f"{name}: one application for all flows expected"
    app = json.loads(apps.pop())
    if app["kind"] == "cbr":
        assert set(app) <= {"kind", "rate", "startup", "rebuffer"}, f"{name}: a cbr app writes one segment per write here"
        extra.append(f"--appRate={app['rate']}")
    else:
        assert app["kind"] == "bulk", f"{name}: only bulk and cbr applications have an ns-3 twin here"
    return NS3_CC[cc] + ([] if ns3_defaults else NS3_ALIGN[cc]) + [
        f"--flows={len(flows)}",
        f"--duration={_seconds(s['duration'])}",
        f"--bottleneckRate={rate}",
        f"--bottleneckDelay={bottleneck['delay']}",
        f"--queue={bottleneck['queue']['packets']}",
        f"--accessRate={access['rate']}",
        f"--accessDelay={access['delay']}",
        f"--accessQueue={access['queue']['packets']}",
        f"--segmentSize={s['tcp']['mss']}",
        f"--delAckCount={2 if delayed_ack else 1}",
        f"--start={starts[0]}",
        f"--gap={gap}",
    ] + extra


def _seconds(text: str) -> float:
    from mpcc import units

    return units.duration_ns(text) / 1e9


GNU_TIME = Path("/usr/bin/time")


def run_measured(cmd: list[str]) -> tuple[str, float, int, float]:
    """Runs `cmd`; returns (stdout, wall seconds of the whole process, peak RSS in KiB,
    CPU seconds (user + system) of the process).

    The peak comes from GNU time (`/usr/bin/time -f %M`, Debian package `time`) when it is
    installed. Without it, wait4's ru_maxrss of the child is used, which is an upper
    bound: Linux carries the high-water mark of the forking Python process (about 14 MiB)
    over the exec. The wall time is taken around the whole child either way.
    """
    with tempfile.NamedTemporaryFile() as peak, tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        argv = [str(c) for c in cmd]
        if GNU_TIME.exists():
            argv = [str(GNU_TIME), "-f", "%M", "-o", peak.name] + argv  # its own CPU time is negligible
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err)
        _, status, rusage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            tail = err.read().decode(errors="replace").strip()[-2000:]
            raise RuntimeError(f"{' '.join(argv)} failed ({proc.returncode}): {tail}")
        text = Path(peak.name).read_text().split()
        rss = int(text[-1]) if GNU_TIME.exists() and text else rusage.ru_maxrss
        cpu = rusage.ru_utime + rusage.ru_stime
        return out.read().decode(), wall, rss, cpu


def mpcc_result(summary: dict) -> dict:
    """Aggregate figures of an mpcc summary.json."""
    flows = summary["flows"].values()
    duration = summary["sim"]["duration_s"]
    result = _aggregate(
        [(f["delivered_bytes"], f["rtt_mean_s"]) for f in flows], duration, summary["sim"]["packets"],
        summary["sim"]["events"],
    )
    result["bottleneck_drops"] = summary["links"]["bottleneck"]["drops"]
    result["retransmissions"] = sum(f["retransmissions"] for f in flows)
    result["timeouts"] = sum(f["timeouts"] for f in flows)
    return result


def ns3_result(out: dict) -> dict:
    """Aggregate figures of the ns-3 program's JSON."""
    result = _aggregate(
        [(f["goodput_bytes"], f["rtt_mean_s"]) for f in out["per_flow"]], out["duration_s"],
        out["delivered_packets"], out["events"],
    )
    result["bottleneck_drops"] = out["bottleneck_drops"]
    result["retransmissions"] = sum(f["retransmissions"] for f in out["per_flow"])
    # Timer expiries, backed-off repeats included, as mpcc's `timeouts` counts them;
    # the program's `timeouts` are entries into CA_LOSS, which a repeat does not make.
    result["timeouts"] = sum(f["rto_expiries"] for f in out["per_flow"])
    result["loss_entries"] = sum(f["timeouts"] for f in out["per_flow"])
    result["prr_wraps"] = out["prr_wraps"]
    return result


def _aggregate(flows: list[tuple[int, float]], duration: float, packets: int, events: int) -> dict:
    """Goodput = bytes delivered to the receiving applications / the whole duration;
    mean RTT = the per-flow mean RTTs weighted by delivered bytes (about the mean over
    all samples, as samples are one per ACK)."""
    delivered = sum(b for b, _ in flows)
    return {
        "goodput_bps": delivered * 8 / duration,
        "rtt_mean_s": sum(b * r for b, r in flows) / delivered if delivered else 0.0,
        "delivered_packets": packets,
        "events": events,
        "per_flow_goodput_bps": [b * 8 / duration for b, _ in flows],
    }
