"""A/B benchmark: the simulator of the working tree against an earlier commit of mpcc,
in one invocation (`make bench` runs it against 68e71ae, the commit the performance
targets are stated against).

Both `mpcc-sim` binaries run the same canonical configurations, alternating run by run
so that load on the machine hits both alike; the medians are compared. Each binary runs
from several fresh copies of its file (`--copies`, default 3), every copy in every round:
the same bytes run up to 18 % slower from some files than from others for as long as
their pages stay cached (docs/performance.md, "The same binary runs at different speeds
from different files"), so one file per side can put that error into the ratio. The
medians are over all runs of all copies; ab.json keeps each copy's runs. Per case it
prints CPU nanoseconds per delivered packet (user + system time of the whole process
over `sim.packets`), events per packet, peak memory, and the ratio of the working
tree's CPU per packet to the base's (below 1: faster). Writes bench/out/ab.json.

    python bench/ab.py [--base COMMIT] [--head COMMIT] [--reps N] [--copies K] [CASE ...]

`--head` measures an earlier commit instead of the working tree, to isolate what
landed between two commits. Each commit is exported with `git archive` into bench/build/ab-<commit>/ and built there
once (its own release profile and target folder); later invocations reuse it.
"""

from __future__ import annotations

import argparse
import io
import json
import platform
import shutil
import statistics
import subprocess
import tarfile
import tempfile
from pathlib import Path

from common import BENCH, OUT, ROOT, mpcc_binary, mpcc_config, run_measured

MS = 1_000_000
S = 1_000_000_000


def link(name: str, bps: float, delay_ms: int, packets: int) -> dict:
    return {"name": name, "capacity": {"kind": "constant", "bps": bps}, "delay_ns": delay_ms * MS,
            "queue": {"kind": "droptail", "packets": packets}}


def reno_flows(n: int) -> dict:
    """n Reno flows of 10 Mbit/s each: one bottleneck of n x 10 Mbit/s, 10 s."""
    flows = [{"name": f"f{i}", "cc": "reno", "app": {"kind": "bulk"}, "path": [0], "start_ns": (i % 100) * MS}
             for i in range(n)]
    # One bandwidth-delay product of buffer: n x 10 Mbit/s x 40 ms / 12 000 bits per
    # packet. (Until 2026-11-26 the integer divisions made this 100 packets whatever n.)
    bdp_packets = max(100, n * 10_000_000 * 40 // 1000 // 12_000)
    return {"duration_ns": 10 * S, "seed": 1, "sample_interval_ns": 0,
            "links": [link("bottleneck", n * 10e6, 20, bdp_packets)], "flows": flows}


def lia_two_paths() -> dict:
    """One two-subflow LIA connection over a 1 Gbit/s and a 2 Mbit/s path, 60 s."""
    flow = {"name": "mp", "cc": "lia", "app": {"kind": "bulk"}, "subflows": [{"path": [0]}, {"path": [1]}]}
    return {"duration_ns": 60 * S, "seed": 1, "sample_interval_ns": 0,
            "links": [link("fast", 1e9, 0, 1000), link("slow", 2e6, 10, 100)], "flows": [flow]}


def dumbbell() -> dict:
    config = json.loads(mpcc_config("ns3_dumbbell_newreno_10_100mbps").read_text())
    # The textbook sender (`rfc`, the simulator's own default): every mechanism of the
    # TCP profiles off, which is what an A/B against a commit before them measures.
    for flow in config["flows"]:
        flow["tcp"].pop("profile", None)
    return config


CASES = {
    "dumbbell_10x100mbps": dumbbell,
    "lia_1g_2m": lia_two_paths,
    "reno_10": lambda: reno_flows(10),
    "reno_1000": lambda: reno_flows(1000),
    "reno_10000": lambda: reno_flows(10_000),
}


def base_binary(commit: str):
    """mpcc-sim built from `commit` (exported with git archive, built once)."""
    sha = subprocess.run(["git", "rev-parse", "--verify", f"{commit}^{{commit}}"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.strip()
    home = BENCH / "build" / f"ab-{sha[:12]}"
    binary = home / "mpcc-sim"
    if binary.exists():
        return sha, binary
    src = home / "src"
    src.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "archive", sha], cwd=ROOT, check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(src, filter="data")
    target = home / "target"
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "mpcc-sim", "--target-dir", str(target)],
                   cwd=src, check=True)
    (target / "release" / "mpcc-sim").rename(binary)
    return sha, binary


def fresh_copies(binaries: dict, copies: int, folder: Path) -> dict:
    """Each side's binary copied to `copies` new files in `folder` (names of one length)."""
    out = {}
    for side, binary in binaries.items():
        out[side] = []
        for i in range(copies):
            copy = folder / f"{side}{i:02d}"
            shutil.copy2(binary, copy)
            out[side].append(copy)
    return out


def measure(copies: dict, config_path, reps: int) -> dict:
    """`reps` rounds; in each, every copy of each side runs once, the sides alternating
    (base, head, base, head, ...; the other way round every other round) so that both see
    the same load."""
    runs = {side: [] for side in copies}
    n = len(next(iter(copies.values())))
    for rep in range(reps):
        order = list(copies) if rep % 2 == 0 else list(reversed(copies))
        for i in range(n):
            for side in order:
                out, wall, rss_kib, cpu = run_measured([copies[side][i], config_path])
                sim = json.loads(out)["sim"]
                runs[side].append({"copy": i, "cpu_s": cpu, "wall_s": wall, "peak_kib": rss_kib,
                                   "packets": sim["packets"], "events": sim["events"]})
    result = {}
    for side, rs in runs.items():
        cpu = statistics.median(r["cpu_s"] for r in rs)
        packets = rs[0]["packets"]
        per_copy = [statistics.median(r["cpu_s"] for r in rs if r["copy"] == i) * 1e9 / max(packets, 1)
                    for i in range(n)]
        result[side] = {"cpu_s": cpu, "packets": packets, "ns_per_packet": cpu * 1e9 / max(packets, 1),
                        "copies_ns_per_packet": per_copy,
                        "events_per_packet": rs[0]["events"] / max(packets, 1),
                        "peak_mib": statistics.median(r["peak_kib"] for r in rs) / 1024, "runs": rs}
    result["ratio"] = result["head"]["ns_per_packet"] / result["base"]["ns_per_packet"]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", choices=[*CASES, []], help="cases to run (default: all)")
    parser.add_argument("--base", default="68e71ae", help="commit to compare against (default: 68e71ae)")
    parser.add_argument("--head", help="a commit to measure instead of the working tree (e.g. to isolate one "
                                       "change between two earlier commits)")
    parser.add_argument("--reps", type=int, default=3, help="rounds per case (default: 3)")
    parser.add_argument("--copies", type=int, default=3,
                        help="fresh copies of each binary, each run once per round (default: 3)")
    args = parser.parse_args()
    if args.reps < 1 or args.copies < 1:
        parser.error("--reps and --copies must be at least 1")
    sha, base = base_binary(args.base)
    head_sha, head = base_binary(args.head) if args.head else (None, mpcc_binary())
    binaries = {"base": base, "head": head}
    (BENCH / "build").mkdir(exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="ab-run-", dir=BENCH / "build"))
    try:
        run_cases(args, binaries, fresh_copies(binaries, args.copies, folder), sha, head_sha)
    finally:
        shutil.rmtree(folder)


def run_cases(args, binaries: dict, copies: dict, sha: str, head_sha) -> None:
    results = {}
    head_name = f"{args.head} ({head_sha[:12]})" if args.head else "working tree"
    print(f"A/B: {head_name} against {args.base} ({sha[:12]}), medians of {args.reps} alternating rounds "
          f"over {args.copies} fresh copies of each binary")
    print(f"{'case':<22}{'base ns/pkt':>12}{'head ns/pkt':>12}{'head/base':>10}{'events/pkt':>12}"
          f"{'base MiB':>10}{'head MiB':>10}{'copies spread':>15}")
    for name in args.cases or list(CASES):
        path = OUT / "configs" / f"ab_{name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(CASES[name]()))
        r = results[name] = measure(copies, path, args.reps)
        b, h = r["base"], r["head"]
        # The slowest copy's median over the fastest's, per side: how much the files differed.
        spread = "/".join(f"{max(x['copies_ns_per_packet']) / min(x['copies_ns_per_packet']):.2f}" for x in (b, h))
        print(f"{name:<22}{b['ns_per_packet']:>12.0f}{h['ns_per_packet']:>12.0f}{r['ratio']:>10.3f}"
              f"{h['events_per_packet']:>12.2f}{b['peak_mib']:>10.1f}{h['peak_mib']:>10.1f}{spread:>15}", flush=True)
    report = {"base": sha, "head": head_sha or "working tree", "reps": args.reps, "copies": args.copies,
              "binaries": {side: str(b) for side, b in binaries.items()}, "machine": platform.platform(), "processor": platform.processor(),
              "cases": results}
    (OUT / "ab.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {OUT / 'ab.json'}")


if __name__ == "__main__":
    main()
