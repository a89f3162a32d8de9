"""Where mpcc and ns-3 first part: one flow's data transmissions compared in order.

Runs a validation scenario in mpcc (with its event log) and in ns-3
(`bench/ns3/dumbbell.cc --trace`, with the fixed PRR for the recovery checks, as
bench/validate_ns3.py runs them), lines up the two flows' transmissions (ns-3's times
shifted by the gap between the two first transmissions: what is left of the handshakes'
difference now that the `ns3` profile makes one too; before 2026-11-27, ns-3's whole
handshake) and prints
how many agree, in segment and within the tolerance in time, and the first that does
not with the next few on each side. docs/validation.md uses it for the `ns3` profile's
rules found this way.

    python bench/trace_ns3.py SCENARIO [--flow I] [--tolerance-ms T]
"""

from __future__ import annotations

import argparse
import subprocess

import common
from validate_ns3 import NS3_FIXED_PRR, RECOVERY_CHECKS


def ns3_sends(name: str, flow: int, mss: int) -> list[tuple[float, int]]:
    """(time s, segment) of every data transmission of ns-3's flow `flow`."""
    args = common.ns3_args(name) + (NS3_FIXED_PRR if name in RECOVERY_CHECKS else []) + [f"--trace={flow}"]
    err = subprocess.run([str(common.ns3_binary())] + args, capture_output=True, text=True, check=True).stderr
    sends = []
    for line in err.splitlines():
        t, kind, *rest = line.split()
        if kind == "tx":
            sends.append((float(t), (int(rest[0]) - 1) // mss))  # sequence numbers start at 1 after the SYN
    return sends


def mpcc_sends(name: str, flow: int) -> list[tuple[float, int]]:
    """(time s, segment) of every data transmission of mpcc's flow `f<flow>`."""
    import mpcc

    events = mpcc.run(str(common.SCENARIOS / f"{name}.toml"), plots=False, event_log=True).events
    sends = events[(events.flow == f"f{flow}") & (events.kind == "send")]
    return [(t, int(s)) for t, s in zip(sends.t_s, sends.seq)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", help="a file of scenarios/validation/ without .toml, e.g. ns3_recovery_cubic_1")
    parser.add_argument("--flow", type=int, default=0)
    parser.add_argument("--tolerance-ms", type=float, default=2.0)
    args = parser.parse_args()
    import tomllib

    mss = tomllib.loads((common.SCENARIOS / f"{args.scenario}.toml").read_text())["tcp"]["mss"]
    theirs, ours = ns3_sends(args.scenario, args.flow, mss), mpcc_sends(args.scenario, args.flow)
    shift = theirs[0][0] - ours[0][0]
    agree = 0
    for (tn, sn), (tm, sm) in zip(theirs, ours):
        if sn != sm or abs(tn - shift - tm) > args.tolerance_ms / 1e3:
            break
        agree += 1
    print(f"{args.scenario} flow {args.flow}: first transmissions {shift * 1e3:.3f} ms apart; "
          f"{agree} of {min(len(theirs), len(ours))} transmissions agree within {args.tolerance_ms} ms")
    if agree < min(len(theirs), len(ours)):
        fmt = lambda xs: ", ".join(f"{t:.4f} s #{s}" for t, s in xs)  # noqa: E731
        print(f"  ns-3 (shifted): {fmt([(t - shift, s) for t, s in theirs[agree:agree + 8]])}")
        print(f"  mpcc:           {fmt(ours[agree:agree + 8])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
