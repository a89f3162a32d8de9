"""What `mpcc run` adds to the simulation (issue 18, item 4: at most 0.2 s).

Runs `mpcc run --no-plots` as a user does (a fresh process each time) on a few
scenarios, and reports the median over interleaved runs of
- the process's wall time minus the simulation's own wall time (`sim.wall_s` in the
  summary): Python start-up, scenario validation, output writing, printing;
- the process's CPU time (user + system) minus the same simulation time, which is
  what remains comparable on a loaded machine.

A second section times many runs in one process (`mpcc.run` from Python, as the
sweeps and reproductions do): the start-up is paid once, so the per-run overhead is
the wall time per run minus the simulation's.

    python bench/e2e.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ["validation/ns3_dumbbell_newreno_10_100mbps.toml", "multipath_demo.toml", "demo.toml"]


def one_cli_run(scenario: Path, out: Path) -> tuple[float, float, float]:
    """(wall, cpu, simulation wall) of one `mpcc run --no-plots` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "mpcc", "run", str(scenario), "--out", str(out), "--force",
                           "--no-plots"], capture_output=True, text=True, cwd=ROOT)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"mpcc run {scenario} failed: {proc.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    sim = json.loads((out / "summary.json").read_text())["sim"]["wall_s"]
    return wall, cpu, sim


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per scenario (medians)")
    args = parser.parse_args()
    env_python = os.path.dirname(sys.executable)
    print(f"python {sys.version.split()[0]} ({env_python}), {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        samples: dict[str, list[tuple[float, float, float]]] = {s: [] for s in SCENARIOS}
        for _ in range(args.runs):
            for s in SCENARIOS:  # interleaved, so a slow moment hits every scenario alike
                samples[s].append(one_cli_run(ROOT / "scenarios" / s, Path(tmp) / "out"))
        print(f"\n`mpcc run --no-plots`, one process per run, medians of {args.runs}:")
        print(f"{'scenario':<52} {'simulation':>10} {'added wall':>11} {'added CPU':>10}")
        for s, runs in samples.items():
            sim = statistics.median(r[2] for r in runs)
            wall = statistics.median(r[0] - r[2] for r in runs)
            cpu = statistics.median(r[1] - r[2] for r in runs)
            print(f"{s:<52} {sim:>9.3f}s {wall:>10.3f}s {cpu:>9.3f}s")

        sys.path.insert(0, str(ROOT / "python"))
        import mpcc

        print(f"\nmany runs in one process (mpcc.run with out=...), medians of {args.runs}:")
        for s in SCENARIOS:
            added = []
            for i in range(args.runs):
                started = time.monotonic()
                result = mpcc.run(ROOT / "scenarios" / s, out=Path(tmp) / f"api-{Path(s).stem}-{i}", plots=False)
                added.append(time.monotonic() - started - result.summary["sim"]["wall_s"])
            print(f"{s:<52} added {statistics.median(added):.3f}s per run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
