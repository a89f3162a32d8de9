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

Python's bytecode is cached as on a user's machine (an installed package ships it; a
checkout writes `__pycache__` on its first run): the runs use a bytecode folder of
their own (PYTHONPYCACHEPREFIX, in a temporary folder, filled by one warm-up run),
even where PYTHONDONTWRITEBYTECODE is set, as on our development machines, where
every run would otherwise compile mpcc's sources again (~0.05 s).
`--compile-each-run` measures that case instead.

`--base DIR` also runs the checkout DIR (its `python/` first on PYTHONPATH, with
DIR/.venv's Python if it has one, else this one), interleaved with this one: an A/B
in the same invocation. For an earlier commit: `git archive BASE | tar -x -C DIR`
and copy this build's `python/mpcc/_core.abi3.so` into DIR/python/mpcc/, so that
both sides run the same extension.

    python bench/e2e.py [--runs N] [--base DIR] [--compile-each-run]
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


def one_cli_run(scenario: Path, out: Path, python: str = sys.executable, cwd: Path = ROOT,
                env: dict | None = None, path: str | None = None) -> tuple[float, float, float]:
    """(wall, cpu, simulation wall) of one `mpcc run --no-plots` process."""
    if path is not None:
        env = {**(env or os.environ), "PYTHONPATH": path}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    proc = subprocess.run([python, "-m", "mpcc", "run", str(scenario), "--out", str(out), "--force",
                           "--no-plots"], capture_output=True, text=True, cwd=cwd, env=env)
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
    parser.add_argument("--base", type=Path, help="also run this checkout (with its DIR/.venv), interleaved")
    parser.add_argument("--compile-each-run", action="store_true",
                        help="no bytecode cache: every run compiles mpcc's sources (PYTHONDONTWRITEBYTECODE)")
    args = parser.parse_args()
    env_python = os.path.dirname(sys.executable)
    print(f"python {sys.version.split()[0]} ({env_python}), {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    sides = {"this": (sys.executable, ROOT, None)}
    if args.base:
        base = args.base.resolve()
        python = base / ".venv" / "bin" / "python"
        sides["base"] = (str(python) if python.exists() else sys.executable, base, str(base / "python"))
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ)
        if args.compile_each_run:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        else:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
            for python, cwd, path in sides.values():  # writes the bytecode
                one_cli_run(ROOT / "scenarios" / SCENARIOS[-1], Path(tmp) / "out", python, cwd, env, path)
        samples = {(side, s): [] for side in sides for s in SCENARIOS}
        loads = []
        for i in range(args.runs):
            order = list(sides.items()) if i % 2 == 0 else list(reversed(sides.items()))
            for s in SCENARIOS:  # interleaved, so a slow moment hits every scenario and side alike
                for side, (python, cwd, path) in order:
                    samples[side, s].append(one_cli_run(ROOT / "scenarios" / s, Path(tmp) / "out", python, cwd, env,
                                                        path))
            loads.append(os.getloadavg()[0])
        cache = "compiled on each run" if args.compile_each_run else "cached"
        print(f"\n`mpcc run --no-plots`, one process per run, medians of {args.runs} (bytecode {cache}, "
              f"load {min(loads):.2f}-{max(loads):.2f}):")
        print(f"{'scenario':<52} {'side':<5} {'simulation':>10} {'added wall':>11} {'added CPU':>10}")
        for (side, s), runs in samples.items():
            sim = statistics.median(r[2] for r in runs)
            wall = statistics.median(r[0] - r[2] for r in runs)
            cpu = statistics.median(r[1] - r[2] for r in runs)
            print(f"{s:<52} {side:<5} {sim:>9.3f}s {wall:>10.3f}s {cpu:>9.3f}s")

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
