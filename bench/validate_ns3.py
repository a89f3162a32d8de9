"""Cross-check of mpcc against ns-3 (`make validate`).

Runs the dumbbell of issue 2 (10 Mbit/s, 50 ms one-way, 100-packet DropTail, 60 s;
NewReno and CUBIC, 1 and 10 flows) in both simulators and compares, per scenario, the
aggregate goodput (bytes delivered to the receiving applications over the whole run,
within 10 %) and the mean RTT (per-flow means weighted by delivered bytes, within 15 %).
ns-3 is configured to run the same algorithms as mpcc (RFC 6675 recovery without PRR,
CUBIC without HyStart; see common.NS3_ALIGN); `--ns3-defaults` keeps ns-3's own.
The random-loss checks compare means over five seeds of each simulator (RANDOM_CHECKS).
Prints a table, writes bench/out/validation.json, exits 1 if any check fails.
docs/validation.md records the numbers and how each side measures RTT.

    python bench/validate_ns3.py [--ns3-defaults] [SCENARIO ...]
"""

from __future__ import annotations

import argparse
import json
import sys

import common

CROSS_CHECKS = [
    "ns3_dumbbell_newreno_1",
    "ns3_dumbbell_newreno_10",
    "ns3_dumbbell_cubic_1",
    "ns3_dumbbell_cubic_10",
]
GOODPUT_TOLERANCE = 0.10
RTT_TOLERANCE = 0.15
# The recovery stress tests (issue 14): mpcc's `ns3` profile against ns-3's defaults,
# goodput within 5 % and retransmissions within 25 %.
RECOVERY_CHECKS = [
    "ns3_recovery_small_bdp",
    "ns3_recovery_direct",
    "ns3_recovery_step",
    "ns3_recovery_loss_1",
    "ns3_recovery_loss_5",
    "ns3_recovery_short_buffer_10",
    "ns3_recovery_cbr_loss_1",
    "ns3_recovery_newreno_1",
    "ns3_recovery_newreno_10",
    "ns3_recovery_cubic_1",
    "ns3_recovery_cubic_10",
    # ns-3's TcpVegas, TcpVeno (Beta 6) and TcpWestwoodPlus against the controllers'
    # ns3 variants (`variant = 1`); added 2026-11-27 (session 18) with the variants.
    *(f"ns3_recovery_{cc}_{kind}" for cc in ("vegas", "veno", "westwood") for kind in ("1", "10", "loss_1")),
    # One flow losing every 100th packet in both simulators (added the same day).
    *(f"ns3_recovery_{cc}_every_100" for cc in ("reno", "cubic", "vegas", "veno", "westwood")),
]
RECOVERY_GOODPUT_TOLERANCE = 0.05
RECOVERY_RETX_TOLERANCE = 0.25
# Their reference is ns-3 3.44 with its PRR's 32-bit overflow fixed (ns-3 issue #1282;
# bench/ns3/dumbbell.cc `--recovery=PrrNoWrap`): 3.44 forms prrDelivered x ssThresh in
# 32 bits, which wraps within a recovery once ssthresh is large, and the `ns3` profile
# models the algorithm, not that bug. 3.44 as shipped (`--recovery=Prr`) runs beside it
# and is reported, not judged. Changed 2026-11-27, after ns3_recovery_cubic_1 had failed
# against 3.44 as shipped (docs/validation.md).
NS3_FIXED_PRR = ["--recovery=PrrNoWrap"]
# Random loss: the two simulators draw their losses from different generators, so one
# run of each compares two random draws; these are compared as means over SEEDS runs of
# each (mpcc's `seed`, ns-3's `--seed` run number). Changed 2026-11-26, after seed 1
# alone had been compared and loss_5 had missed there (+9.0 %) while its five-seed mean
# was within the tolerance (docs/validation.md).
RANDOM_CHECKS = {"ns3_recovery_loss_1", "ns3_recovery_loss_5", "ns3_recovery_cbr_loss_1",
                 "ns3_recovery_vegas_loss_1", "ns3_recovery_veno_loss_1", "ns3_recovery_westwood_loss_1"}
SEEDS = range(1, 6)


def mean_result(results: list[dict]) -> dict:
    """The figures of several runs averaged (each field's mean), with the runs kept."""
    keys = [k for k, v in results[0].items() if isinstance(v, (int, float))]
    return {**{k: sum(r[k] for r in results) / len(results) for k in keys}, "runs": results}


def run_all(name: str, mpcc: str, ns3: str, ns3_defaults: bool, seed: int | None) -> tuple[dict, dict, dict | None]:
    """mpcc, the ns-3 reference, and for a recovery check ns-3 3.44 as shipped."""
    config = common.mpcc_config(name)
    ns3_extra = []
    if seed is not None:
        data = json.loads(config.read_text())
        data["seed"] = seed
        config = config.with_name(f"{name}_seed{seed}.json")
        config.write_text(json.dumps(data))
        ns3_extra = [f"--seed={seed}"]
    out, *_ = common.run_measured([mpcc, str(config)])
    m = common.mpcc_result(json.loads(out))
    args = [ns3] + common.ns3_args(name, ns3_defaults) + ns3_extra
    out, *_ = common.run_measured(args + (NS3_FIXED_PRR if name in RECOVERY_CHECKS else []))
    n = common.ns3_result(json.loads(out))
    shipped = None
    if name in RECOVERY_CHECKS:
        out, *_ = common.run_measured(args)
        shipped = common.ns3_result(json.loads(out))
        # The fixed build is 3.44's PRR but for the overflow: where no product passed
        # 2^32 (prr_wraps = 0) the two ns-3 runs must be the same run.
        same = all(n[k] == shipped[k] for k in ("goodput_bps", "rtt_mean_s", "retransmissions", "timeouts"))
        n["faithful"] = float(n["prr_wraps"] > 0 or same)
    return m, n, shipped


def check(name: str, mpcc: str, ns3: str, ns3_defaults: bool) -> dict:
    if name in RANDOM_CHECKS:
        runs = [run_all(name, mpcc, ns3, ns3_defaults, seed) for seed in SEEDS]
        m, n, shipped = (mean_result([r[i] for r in runs]) if runs[0][i] else None for i in range(3))
    else:
        m, n, shipped = run_all(name, mpcc, ns3, ns3_defaults, None)
    goodput_err = m["goodput_bps"] / n["goodput_bps"] - 1
    rtt_err = m["rtt_mean_s"] / n["rtt_mean_s"] - 1
    retx_err = m["retransmissions"] / n["retransmissions"] - 1 if n["retransmissions"] else float(m["retransmissions"] > 0)
    if name in RECOVERY_CHECKS:
        ok = abs(goodput_err) <= RECOVERY_GOODPUT_TOLERANCE and abs(retx_err) <= RECOVERY_RETX_TOLERANCE
        if n["faithful"] < 1:
            print(f"  {name}: ns-3 with the fixed PRR differs from 3.44 although no product wrapped", file=sys.stderr)
            ok = False
    else:
        ok = abs(goodput_err) <= GOODPUT_TOLERANCE and abs(rtt_err) <= RTT_TOLERANCE
    return {
        "scenario": name,
        "seeds": list(SEEDS) if name in RANDOM_CHECKS else None,
        "ns3_command": common.ns3_args(name, ns3_defaults) + (NS3_FIXED_PRR if shipped else []),
        "mpcc": m,
        "ns3": n,
        "ns3_3_44_as_shipped": shipped,
        "goodput_rel_diff": goodput_err,
        "rtt_rel_diff": rtt_err,
        "retransmissions_rel_diff": retx_err,
        "ok": ok,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--ns3-defaults",
        action="store_true",
        help="run ns-3 with its own defaults (PRR recovery, CUBIC HyStart) instead of mpcc's algorithms",
    )
    parser.add_argument("scenarios", nargs="*", default=CROSS_CHECKS + RECOVERY_CHECKS)
    args = parser.parse_args()

    ns3 = str(common.ns3_binary())
    mpcc = str(common.mpcc_binary())
    rows = []
    for name in args.scenarios:
        rows.append(check(name, mpcc, ns3, args.ns3_defaults))
        print(f"  {name}: done", file=sys.stderr)

    head = (
        f"{'scenario':26} {'ns-3 Mbit/s':>11} {'mpcc Mbit/s':>11} {'diff':>7} "
        f"{'ns-3 RTT ms':>11} {'mpcc RTT ms':>11} {'diff':>7}  {'drops ns-3/mpcc':>15}  {'retx ns-3/mpcc':>15} "
        f"{'RTOs ns-3/mpcc':>14}  result  {'3.44 as shipped: retx, RTOs':>28}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        n, m = r["ns3"], r["mpcc"]
        print(
            f"{r['scenario'].removeprefix('ns3_dumbbell_'):26} {n['goodput_bps'] / 1e6:11.3f} "
            f"{m['goodput_bps'] / 1e6:11.3f} {r['goodput_rel_diff']:+7.1%} {n['rtt_mean_s'] * 1e3:11.1f} "
            f"{m['rtt_mean_s'] * 1e3:11.1f} {r['rtt_rel_diff']:+7.1%}  "
            f"{n['bottleneck_drops']:>7.0f}/{m['bottleneck_drops']:<7.0f}  "
            f"{n['retransmissions']:>7.0f}/{m['retransmissions']:<7.0f} {n['timeouts']:>6.1f}/{m['timeouts']:<7.1f}  "
            f"{'ok  ' if r['ok'] else 'FAIL'}"
            + (f"  {s['retransmissions']:>20.0f}, {s['timeouts']:.1f}" if (s := r["ns3_3_44_as_shipped"]) else "")
            + (f"  (means of seeds {SEEDS[0]}-{SEEDS[-1]})" if r["seeds"] else "")
        )
    failed = [r["scenario"] for r in rows if not r["ok"]]
    print(
        f"tolerances: goodput {GOODPUT_TOLERANCE:.0%}, mean RTT {RTT_TOLERANCE:.0%} (ns3_dumbbell_*); goodput "
        f"{RECOVERY_GOODPUT_TOLERANCE:.0%}, retransmissions {RECOVERY_RETX_TOLERANCE:.0%} (ns3_recovery_*, against "
        "ns-3 3.44 with its PRR overflow fixed); "
        + (f"FAILED: {', '.join(failed)}" if failed else "all within tolerance")
    )
    common.OUT.mkdir(parents=True, exist_ok=True)
    (common.OUT / ("validation_ns3_defaults.json" if args.ns3_defaults else "validation.json")).write_text(json.dumps(rows, indent=2) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
