"""Cross-check of mpcc against ns-3 (`make validate`).

Runs the dumbbell of issue 2 (10 Mbit/s, 50 ms one-way, 100-packet DropTail, 60 s;
NewReno and CUBIC, 1 and 10 flows) in both simulators and compares, per scenario, the
aggregate goodput (bytes delivered to the receiving applications over the whole run,
within 10 %) and the mean RTT (per-flow means weighted by delivered bytes, within 15 %).
ns-3 is configured to run the same algorithms as mpcc (RFC 6675 recovery without PRR,
CUBIC without HyStart; see common.NS3_ALIGN); `--ns3-defaults` keeps ns-3's own.
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
]
RECOVERY_GOODPUT_TOLERANCE = 0.05
RECOVERY_RETX_TOLERANCE = 0.25


def check(name: str, mpcc: str, ns3: str, ns3_defaults: bool) -> dict:
    out, *_ = common.run_measured([mpcc, str(common.mpcc_config(name))])
    m = common.mpcc_result(json.loads(out))
    out, *_ = common.run_measured([ns3] + common.ns3_args(name, ns3_defaults))
    n = common.ns3_result(json.loads(out))
    goodput_err = m["goodput_bps"] / n["goodput_bps"] - 1
    rtt_err = m["rtt_mean_s"] / n["rtt_mean_s"] - 1
    retx_err = m["retransmissions"] / n["retransmissions"] - 1 if n["retransmissions"] else float(m["retransmissions"] > 0)
    if name in RECOVERY_CHECKS:
        ok = abs(goodput_err) <= RECOVERY_GOODPUT_TOLERANCE and abs(retx_err) <= RECOVERY_RETX_TOLERANCE
    else:
        ok = abs(goodput_err) <= GOODPUT_TOLERANCE and abs(rtt_err) <= RTT_TOLERANCE
    return {
        "scenario": name,
        "ns3_command": common.ns3_args(name, ns3_defaults),
        "mpcc": m,
        "ns3": n,
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
        f"{'RTOs ns-3/mpcc':>14}  result"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        n, m = r["ns3"], r["mpcc"]
        print(
            f"{r['scenario'].removeprefix('ns3_dumbbell_'):26} {n['goodput_bps'] / 1e6:11.3f} "
            f"{m['goodput_bps'] / 1e6:11.3f} {r['goodput_rel_diff']:+7.1%} {n['rtt_mean_s'] * 1e3:11.1f} "
            f"{m['rtt_mean_s'] * 1e3:11.1f} {r['rtt_rel_diff']:+7.1%}  "
            f"{n['bottleneck_drops']:>7d}/{m['bottleneck_drops']:<7d}  "
            f"{n['retransmissions']:>7d}/{m['retransmissions']:<7d} {n['timeouts']:>6d}/{m['timeouts']:<7d}  "
            f"{'ok' if r['ok'] else 'FAIL'}"
        )
    failed = [r["scenario"] for r in rows if not r["ok"]]
    print(
        f"tolerances: goodput {GOODPUT_TOLERANCE:.0%}, mean RTT {RTT_TOLERANCE:.0%} (ns3_dumbbell_*); goodput "
        f"{RECOVERY_GOODPUT_TOLERANCE:.0%}, retransmissions {RECOVERY_RETX_TOLERANCE:.0%} (ns3_recovery_*); "
        + (f"FAILED: {', '.join(failed)}" if failed else "all within tolerance")
    )
    common.OUT.mkdir(parents=True, exist_ok=True)
    (common.OUT / ("validation_ns3_defaults.json" if args.ns3_defaults else "validation.json")).write_text(json.dumps(rows, indent=2) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
