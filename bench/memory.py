"""Peak memory of the native simulator against the duration and the number of flows
(issue 18: memory bounded by flows, not packets). Writes bench/out/memory.json.

    python bench/memory.py [--base COMMIT] [CASE ...]

Cases (bench/ab.py's N Reno flows of 10 Mbit/s each through one N x 10 Mbit/s
bottleneck, no time series): `reno_10000` (10 s, the issue's target: at most 400 MB),
and `reno_100_60s` / `reno_100_600s` (the same scenario for 60 s and for 600 s: the
peaks should agree within 10 %), and `reno_100000` (100 000 flows for 2 s: the issue's
"100 000 flows run"; its CPU per delivered packet is printed beside `reno_10`'s, the same
scenario with 10 flows for 2 s). Each case runs once per binary (memory is
deterministic to a few hundred KiB); with --base, also with mpcc-sim built from that
commit (bench/ab.py's export and build), for a before / after.
"""

from __future__ import annotations

import argparse
import json

from ab import S, base_binary, reno_flows
from common import OUT, mpcc_binary, run_measured


def reno(n: int, duration_s: int):
    def make() -> dict:
        config = reno_flows(n)
        config["duration_ns"] = duration_s * S
        return config
    return make


CASES = {
    "reno_10000": reno(10_000, 10),
    "reno_100_60s": reno(100, 60),
    "reno_100_600s": reno(100, 600),
    "reno_10": reno(10, 2),
    "reno_100000": reno(100_000, 2),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", choices=[*CASES, []], help="cases to run (default: all)")
    parser.add_argument("--base", help="also measure mpcc-sim built from this commit")
    args = parser.parse_args()
    binaries = {"head": mpcc_binary()}
    if args.base:
        binaries = {"base": base_binary(args.base)[1], **binaries}
    results = {}
    print(f"{'case':<16}" + "".join(f"{side + ' MiB':>12}{side + ' packets':>16}{'ns/packet':>11}"
                                    for side in binaries))
    for name in args.cases or list(CASES):
        path = OUT / "configs" / f"memory_{name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(CASES[name]()))
        row = results[name] = {}
        for side, binary in binaries.items():
            out, wall, rss_kib, cpu = run_measured([binary, path])
            row[side] = {"peak_mib": rss_kib / 1024, "packets": json.loads(out)["sim"]["packets"], "cpu_s": cpu,
                         "wall_s": wall}
        print(f"{name:<16}" + "".join(f"{r['peak_mib']:>12.1f}{r['packets']:>16,}"
                                      f"{r['cpu_s'] * 1e9 / max(r['packets'], 1):>11.0f}" for r in row.values()),
              flush=True)
    for side in binaries:
        if "reno_100_60s" in results and "reno_100_600s" in results:
            ratio = results["reno_100_600s"][side]["peak_mib"] / results["reno_100_60s"][side]["peak_mib"]
            print(f"{side}: 600 s / 60 s peak memory {ratio:.3f} (target: within 10 %)")
        if "reno_10" in results and "reno_100000" in results:
            per = {n: results[n][side]["cpu_s"] / max(results[n][side]["packets"], 1) for n in ("reno_10", "reno_100000")}
            print(f"{side}: CPU per packet, 100 000 flows / 10 flows {per['reno_100000'] / per['reno_10']:.2f}")
    (OUT / "memory.json").write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {OUT / 'memory.json'}")


if __name__ == "__main__":
    main()
