"""`mpcc testbed run SCENARIO` and `mpcc testbed check SCENARIO`: the scenario on the
real kernel (docs/testbed.md). A scenario the testbed cannot build is refused
before anything is built, one line per problem, exit code 2; a failure of the
kernel or the machine during the run is one line with exit code 1, after
everything built was torn down."""

from __future__ import annotations

import sys
import time
from pathlib import Path

EXIT_FAILED = 1


def add_parser(sub) -> None:
    p = sub.add_parser("testbed", help="run a scenario on the real Linux kernel: namespaces, emulated links, MPTCP")
    ts = p.add_subparsers(dest="testbed_command", required=True, metavar="ACTION")
    t = ts.add_parser("run", help="build the scenario's network, run its traffic for real, write results (root)")
    t.add_argument("scenario", help="scenario TOML file, as `mpcc run` takes it")
    t.add_argument("--out", help="results folder (default: results/<scenario name>-testbed)")
    t.add_argument("--force", action="store_true",
                   help="replace an existing results folder (only if mpcc wrote every file in it)")
    t.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    t.add_argument("--keep-raw", metavar="DIR", help="keep the raw measurements (emulator, clients, server) in DIR")
    t.set_defaults(func=cmd_run)
    t = ts.add_parser("check", help="say whether the testbed can build a scenario, without building it")
    t.add_argument("scenario")
    t.set_defaults(func=cmd_check)


def cmd_check(args) -> int:
    from . import check, missing_requirement

    plan = check(args.scenario)
    hosts = len(plan.flows) + 1
    subflows = sum(len(f.subflows) for f in plan.flows)
    print(f"mpcc: the testbed can build {args.scenario}: {hosts} hosts, {len(plan.config['links'])} emulated links, "
          f"{subflows} subflows; controllers: {', '.join(sorted({f.kernel_cc for f in plan.flows}))}")
    missing = missing_requirement()
    if missing:
        print(f"mpcc: but not on this machine: {missing}")
    return 0


def cmd_run(args) -> int:
    from ..output import check_replaceable
    from . import TestbedError, run
    from .plan import plan_for
    from ..scenario import Scenario

    scenario = Scenario.from_file(args.scenario)
    plan_for(scenario)  # refuse before anything else
    out = Path(args.out) if args.out else Path("results") / f"{Path(args.scenario).stem}-testbed"
    check_replaceable(out, args.force, flag="--force")
    started = time.monotonic()
    try:
        result = run(scenario, out=out, force=args.force, plots=not args.no_plots, keep_raw=args.keep_raw)
    except TestbedError as e:
        print(f"mpcc: error: testbed: {' '.join(str(e).split())}", file=sys.stderr)
        return EXIT_FAILED
    print(f"mpcc: ran {args.scenario} on the testbed (Linux {result.summary['testbed']['kernel']}) "
          f"in {time.monotonic() - started:.1f} s")
    for name, f in result.summary["flows"].items():
        rtt = f["rtt_mean_s"]
        print(f"  {name:<12} {f['kernel_cc']:<10} goodput {f['goodput_bps'] / 1e6:8.3f} Mbit/s  "
              f"rtt {rtt * 1e3 if rtt is not None else float('nan'):7.1f} ms  "
              f"retransmissions {f['retransmissions']}")
    print(f"results: {out}/ (summary.json, flow_series.parquet, link_series.parquet, delay_cdf.parquet)")
    return 0
