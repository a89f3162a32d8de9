"""Side-by-side benchmark of mpcc and ns-3 (`make bench`).

Runs both simulators on each benchmark scenario of scenarios/validation/ (the dumbbell
of issue 2: N bulk flows through one 10 or 100 Mbit/s bottleneck, base RTT 100 ms,
as docs/validation.md and bench/ns3/dumbbell.cc describe it), a few times each, alternating, and prints the
medians: wall time of the whole process, delivered packets, delivered packets per wall
second, peak memory, and the mpcc / ns-3 ratio of packets per wall second (target:
at least 50); also the same ratio computed from CPU time (user + system), which other
load on the machine disturbs less. Writes bench/out/bench.json. docs/performance.md
records the figures.

    python bench/bench.py [--reps N] [SCENARIO ...]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys

import common

BENCHMARKS = [
    "ns3_dumbbell_newreno_1",
    "ns3_dumbbell_newreno_10",
    "ns3_dumbbell_cubic_10",
    "ns3_dumbbell_newreno_10_100mbps",
]
TARGET_RATIO = 50.0


def measure(name: str, reps: int, mpcc: str, ns3: str) -> dict:
    mpcc_cmd = [mpcc, str(common.mpcc_config(name))]
    ns3_cmd = [ns3] + common.ns3_args(name)
    runs = {"mpcc": [], "ns3": []}
    for rep in range(reps):
        for tool, cmd in (("ns3", ns3_cmd), ("mpcc", mpcc_cmd)):
            out, wall, rss, cpu = common.run_measured(cmd)
            runs[tool].append((json.loads(out), wall, rss, cpu))
            print(
                f"  {name} {tool} run {rep + 1}/{reps}: {wall:.3f} s wall, {cpu:.3f} s CPU, {rss / 1024:.1f} MiB",
                file=sys.stderr,
            )
    row = {"scenario": name, "reps": reps, "ns3_command": ns3_cmd[1:]}
    for tool, parse in (("mpcc", common.mpcc_result), ("ns3", common.ns3_result)):
        walls = [w for _, w, _, _ in runs[tool]]
        packets = parse(runs[tool][0][0])["delivered_packets"]
        wall = statistics.median(walls)
        row[tool] = {
            "wall_s": wall,
            "wall_s_all": walls,
            "delivered_packets": packets,
            "packets_per_wall_s": packets / wall,
            "cpu_s": statistics.median(c for *_, c in runs[tool]),
            "peak_rss_kib": statistics.median(r for _, _, r, _ in runs[tool]),
            "events": parse(runs[tool][0][0])["events"],
        }
    row["ratio"] = row["mpcc"]["packets_per_wall_s"] / row["ns3"]["packets_per_wall_s"]
    # The same ratio from CPU time (user + system), less sensitive to other load on the machine.
    row["ratio_cpu"] = (row["mpcc"]["delivered_packets"] / row["mpcc"]["cpu_s"]) / (
        row["ns3"]["delivered_packets"] / row["ns3"]["cpu_s"]
    )
    return row


def source_version() -> str:
    """The commit of the simulator measured, marked dirty when crates/ has local changes."""
    if os.environ.get("MPCC_SIM"):
        return f"binary given by MPCC_SIM ({os.environ['MPCC_SIM']})"
    run = lambda *a: subprocess.run(["git", *a], cwd=common.ROOT, capture_output=True, text=True).stdout.strip()
    commit = run("rev-parse", "--short", "HEAD") or "unknown"
    return commit + (" (with local changes in crates/)" if run("status", "--porcelain", "--", "crates") else "")


def machine() -> dict:
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(), "python": platform.python_version()}


def table(rows: list[dict]) -> str:
    head = (
        f"{'scenario':34} {'ns-3 wall':>10} {'mpcc wall':>10} {'ns-3 pkts':>10} {'mpcc pkts':>10} "
        f"{'ns-3 pkt/s':>11} {'mpcc pkt/s':>11} {'ratio':>7} {'ns-3 MiB':>9} {'mpcc MiB':>9} {'CPU ratio':>9}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        n, m = r["ns3"], r["mpcc"]
        lines.append(
            f"{r['scenario']:34} {n['wall_s']:9.3f}s {m['wall_s']:9.3f}s {n['delivered_packets']:10d} "
            f"{m['delivered_packets']:10d} {n['packets_per_wall_s']:11.0f} {m['packets_per_wall_s']:11.0f} "
            f"{r['ratio']:6.1f}x {n['peak_rss_kib'] / 1024:9.1f} {m['peak_rss_kib'] / 1024:9.1f} "
            f"{r['ratio_cpu']:8.1f}x"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="runs of each simulator per scenario (median taken)")
    parser.add_argument("scenarios", nargs="*", default=BENCHMARKS)
    args = parser.parse_args()

    ns3 = str(common.ns3_binary())
    mpcc = str(common.mpcc_binary())
    rows = [measure(name, args.reps, mpcc, ns3) for name in args.scenarios]

    print(table(rows))
    below = [r["scenario"] for r in rows if r["ratio"] < TARGET_RATIO]
    if below:
        print(f"below the {TARGET_RATIO:.0f}x target: {', '.join(below)}")
    else:
        print(f"mpcc delivers at least {TARGET_RATIO:.0f}x ns-3's packets per wall second on every scenario")
    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine(),
        "mpcc_source": source_version(),
        "mpcc_binary": mpcc,
        "ns3_binary": ns3,
        "peak_memory_from": "GNU time %M" if common.GNU_TIME.exists() else "wait4 ru_maxrss (upper bound)",
        "target_ratio": TARGET_RATIO,
        "rows": rows,
    }
    common.OUT.mkdir(parents=True, exist_ok=True)
    (common.OUT / "bench.json").write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {common.OUT / 'bench.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
