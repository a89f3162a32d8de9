"""Multipath benchmark (issue 3): what a coupled multipath connection costs per packet
compared with single-path flows carrying the same traffic, measured in one invocation.

Two cases, each run as a multipath configuration and as its single-path twin (every
subflow replaced by an independent Reno flow on the same path):
- `lia_2path`: one LIA connection, subflows over a 100 Mbit/s and a 50 Mbit/s path, 60 s.
- `lia_1000x2`: 1000 LIA connections with two subflows each over two shared bottlenecks
  (1 Gbit/s, 10 ms and 500 Mbit/s, 20 ms), 20 s.
Prints wall time, delivered packets per wall second and peak memory for both, and the
cost ratio (single-path packets per second / multipath packets per second; the target is
at most 1.5). Writes bench/out/bench_multipath.json. The canonical configurations are
built here as dicts (crates/mpcc-sim/src/config.rs) and run by the native `mpcc-sim`.
"""

from __future__ import annotations

import json
import statistics
import sys

from common import OUT, mpcc_binary, run_measured

MS = 1_000_000
S = 1_000_000_000


def link(name: str, bps: float, delay_ms: int, packets: int) -> dict:
    return {"name": name, "capacity": {"kind": "constant", "bps": bps}, "delay_ns": delay_ms * MS,
            "queue": {"kind": "droptail", "packets": packets}}


def two_paths(n: int, duration_s: int, links: list[dict], multipath: bool) -> dict:
    flows = []
    for i in range(n):
        start = (i % 100) * MS  # spread the starts over 100 ms
        if multipath:
            flows.append({"name": f"c{i}", "cc": "lia", "app": {"kind": "bulk"}, "start_ns": start,
                          "subflows": [{"path": [0]}, {"path": [1]}]})
        else:
            for sub in (0, 1):
                flows.append({"name": f"c{i}.{sub}", "cc": "reno", "app": {"kind": "bulk"},
                              "start_ns": start, "path": [sub]})
    return {"duration_ns": duration_s * S, "seed": 1, "sample_interval_ns": 0, "links": links, "flows": flows}


CASES = {
    "lia_2path": lambda mp: two_paths(1, 60, [link("a", 100e6, 10, 200), link("b", 50e6, 20, 200)], mp),
    "lia_1000x2": lambda mp: two_paths(1000, 20, [link("a", 1e9, 10, 2000), link("b", 500e6, 20, 2000)], mp),
}


def measure(binary, config: dict, name: str, reps: int) -> dict:
    path = OUT / "configs" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config))
    walls, rss, packets = [], [], 0
    for _ in range(reps):
        out, wall, peak, _cpu = run_measured([binary, path])
        walls.append(wall)
        rss.append(peak)
        packets = json.loads(out)["sim"]["packets"]
    wall = statistics.median(walls)
    return {"wall_s": wall, "packets": packets, "packets_per_wall_s": packets / wall, "peak_rss_kib": max(rss)}


def main() -> int:
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    binary = mpcc_binary()
    rows = []
    for name, make in CASES.items():
        multi = measure(binary, make(True), f"{name}_multipath", reps)
        single = measure(binary, make(False), f"{name}_singlepath", reps)
        rows.append({"case": name, "multipath": multi, "single_path": single,
                     "cost_ratio": single["packets_per_wall_s"] / multi["packets_per_wall_s"]})
    print("| case | variant | wall s | packets | packets / wall s | peak MiB |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        for label in ("multipath", "single_path"):
            m = r[label]
            print(f"| {r['case']} | {label} | {m['wall_s']:.3f} | {m['packets']} | "
                  f"{m['packets_per_wall_s']:,.0f} | {m['peak_rss_kib'] / 1024:.1f} |")
    for r in rows:
        verdict = "ok" if r["cost_ratio"] <= 1.5 else "ABOVE TARGET"
        print(f"{r['case']}: single-path / multipath packets per second = {r['cost_ratio']:.2f} (target <= 1.5: {verdict})")
    (OUT / "bench_multipath.json").write_text(json.dumps({"reps": reps, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
