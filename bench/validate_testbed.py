"""The simulator against the real kernel (`make validate`; docs/validation.md,
"Simulator against the real kernel").

Runs each scenarios/validation/testbed_*.toml in the simulator (its `linux`
profile) with five seeds and five times on the testbed (`mpcc testbed run`). The
kernel's runs differ by themselves; the simulator's seeds differ by a start jitter
of up to 200 ms (`start_jitter`, simulator only: the testbed refuses it), so both
sides are means over runs that start their loss cycles at different phases. Run i on
the testbed takes seed i too: where a link loses packets at random (testbed_random_loss)
the emulator, which applies the simulator's link models, loses the same packets as the
simulator's seed i. Writes
the results and the `mpcc compare` report of the first simulation against the
first testbed run under bench/out/testbed/NAME/, and checks per flow, mean against
mean: throughput within 15 %, mean RTT within 20 % and retransmissions within 20 %
(or, below 50 retransmissions on both sides, within 10). Prints a Markdown table,
writes bench/out/testbed.json, exits 1 if any check fails. Needs root (the
testbed); the eBPF controllers for the LIA scenarios.

    python bench/validate_testbed.py [--whole-run] [--runs N] [--seeds N] [NAME ...]

`--whole-run` measures from time 0 instead of after the scenarios' 5 s warm-up,
so slow start counts (where CUBIC's HyStart makes the kernel differ most).
"""

from __future__ import annotations

import json
import re
import sys

import common

SCENARIOS = ["testbed_single_path", "testbed_two_paths", "testbed_shared_bottleneck", "testbed_capacity_step",
             "testbed_random_loss", "testbed_two_paths_loss", "testbed_paced_small_buffer"]
THROUGHPUT_TOLERANCE = 0.15
RTT_TOLERANCE = 0.20
RETX_TOLERANCE = 0.20
# Few retransmissions are a handful of loss events: compared in absolute terms.
RETX_SMALL, RETX_SLACK = 50, 10


def relative(a, b):
    return None if a in (None, 0) or b is None else (b - a) / a


def mean_flow(runs: list[dict]) -> dict:
    """The runs' mean of the compared fields, and the throughput's range."""
    out = {k: sum(r[k] for r in runs) / len(runs) for k in ("throughput_bps", "rtt_mean_s", "retransmissions")}
    out["retransmissions"] = round(out["retransmissions"])
    out["range"] = (min(r["throughput_bps"] for r in runs), max(r["throughput_bps"] for r in runs))
    return out


def check_flow(sim: dict, tb: dict) -> dict:
    thr = relative(sim["throughput_bps"], tb["throughput_bps"])
    rtt = relative(sim["rtt_mean_s"], tb["rtt_mean_s"])
    rs, rt = sim["retransmissions"], tb["retransmissions"]
    if max(rs, rt) < RETX_SMALL:
        retx_ok = abs(rs - rt) <= RETX_SLACK
    else:
        retx_ok = abs(rt - rs) <= RETX_TOLERANCE * max(rs, 1)
    return {
        "sim_mbps": sim["throughput_bps"] / 1e6, "tb_mbps": tb["throughput_bps"] / 1e6, "throughput": thr,
        "sim_range_mbps": [x / 1e6 for x in sim["range"]], "tb_range_mbps": [x / 1e6 for x in tb["range"]],
        "sim_rtt_ms": sim["rtt_mean_s"] * 1e3, "tb_rtt_ms": (tb["rtt_mean_s"] or 0) * 1e3, "rtt": rtt,
        "sim_retx": rs, "tb_retx": rt,
        "ok_throughput": thr is not None and abs(thr) <= THROUGHPUT_TOLERANCE,
        "ok_rtt": rtt is not None and abs(rtt) <= RTT_TOLERANCE,
        "ok_retx": retx_ok,
    }


def seeded(scenario: str, seed: int) -> str:
    """The scenario with `seed` (first line)."""
    return f"seed = {seed}\n" + re.sub(r'(?m)^(seed|start_jitter) = .*$\n?', '', scenario)


def jittered(scenario: str, seed: int) -> str:
    """The scenario with `seed` and a start jitter of up to 200 ms (first lines)."""
    return 'start_jitter = "200ms"\n' + seeded(scenario, seed)


def main(names: list[str], whole_run: bool = False, runs: int = 5, seeds: int = 5) -> int:
    import mpcc
    import mpcc.testbed as testbed
    from mpcc.compare import compare

    missing = testbed.missing_requirement()
    if missing:
        print(f"validate_testbed: skipped: {missing}")
        return 0
    out = common.OUT / "testbed"
    rows, failed = [], False
    for name in names or SCENARIOS:
        scenario = (common.SCENARIOS / f"{name}.toml").read_text()
        if whole_run:
            scenario = re.sub(r'(?m)^warmup = .*$', 'warmup = "0s"', scenario)
        folder = out / (name + ("-whole" if whole_run else ""))
        sims = [mpcc.run(jittered(scenario, seed), out=folder / f"simulator-{seed}", force=True)
                for seed in range(1, seeds + 1)]
        # Run i on the testbed takes seed i, as the simulator's seed i: the emulator
        # applies the simulator's link models, so a random loss model loses the same
        # packets (by their order on the link) in both (added 2026-11-27 with
        # testbed_random_loss; before, every testbed run took the scenario's seed).
        tbs = [testbed.run(seeded(scenario, i + 1), out=folder / f"testbed-{i + 1}", force=True) for i in range(runs)]
        compare(folder / "simulator-1", folder / "testbed-1", folder / "compare", force=True,
                labels=("simulator", "testbed"))
        for flow in sims[0].summary["flows"]:
            r = check_flow(mean_flow([sim.summary["flows"][flow] for sim in sims]),
                           mean_flow([tb.summary["flows"][flow] for tb in tbs]))
            r.update(scenario=name, flow=flow)
            rows.append(r)
            failed |= not (r["ok_throughput"] and r["ok_rtt"] and r["ok_retx"])
    print(f"| scenario | flow | throughput sim / testbed Mbit/s (ranges: {seeds} seeds / {runs} runs) | diff | "
          "mean RTT sim / testbed ms | diff | retransmissions sim / testbed | result |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        bad = [k for k in ("throughput", "rtt", "retx") if not r[f"ok_{k}"]]
        (slo, shi), (lo, hi) = r["sim_range_mbps"], r["tb_range_mbps"]
        print(f"| {r['scenario'].removeprefix('testbed_')} | {r['flow']} | {r['sim_mbps']:.2f} / {r['tb_mbps']:.2f} "
              f"({slo:.2f}-{shi:.2f} / {lo:.2f}-{hi:.2f}) "
              f"| {r['throughput'] * 100:+.1f} % | {r['sim_rtt_ms']:.1f} / {r['tb_rtt_ms']:.1f} | "
              f"{r['rtt'] * 100:+.1f} % | {r['sim_retx']} / {r['tb_retx']} | "
              f"{'ok' if not bad else '**' + ', '.join(bad) + '**'} |")
    (common.OUT / f"testbed{'-whole' if whole_run else ''}.json").write_text(json.dumps(rows, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="the simulator against the real kernel")
    parser.add_argument("names", nargs="*")
    parser.add_argument("--whole-run", action="store_true")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seeds", type=int, default=5)
    a = parser.parse_args()
    sys.exit(main(a.names, whole_run=a.whole_run, runs=a.runs, seeds=a.seeds))
