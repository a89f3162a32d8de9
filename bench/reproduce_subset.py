"""Runs some experiments of one paper's reproduction, as `mpcc reproduce` runs them (the
paper's TCP profile, its seeds and replications, the run cache), and prints the named
claims' verdicts and each experiment's mean figures per variant. For a change that
moves one part of a paper, before and after, without the whole reproduction:

    python bench/reproduce_subset.py park ch2_conventional ch2_tsc ch2_tsc_departure \\
        --claims tsc tsc_wifi_rtt

The claims must find the experiments they read among those given. Nothing is written
but the cache (default: .cache/reproduce, shared with `mpcc reproduce`)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))


def main() -> None:
    from mpcc import papers
    from mpcc.reproduce.cache import RunCache, simulator_version
    from mpcc.reproduce.pipeline import DEFAULT_CACHE, _run_and_measure, evaluate_claims
    from mpcc.reproduce.plan import plan

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paper")
    ap.add_argument("experiments", nargs="+")
    ap.add_argument("--claims", nargs="*", default=[], help="claims to judge (default: none)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cache", default=str(DEFAULT_CACHE))
    args = ap.parse_args()

    paper = papers.load(args.paper)
    known = {e.name: e for e in paper.experiments}
    missing = [e for e in args.experiments if e not in known]
    if missing:
        sys.exit(f"{args.paper}: no experiment {', '.join(missing)}; has {', '.join(known)}")
    subset = replace(paper, experiments=tuple(known[e] for e in args.experiments), figures=(),
                     claims=tuple(c for c in paper.claims if c.id in args.claims))
    version = simulator_version()
    specs = plan(subset, args.quick, version)
    _, data = _run_and_measure(subset, specs, RunCache(args.cache), version, args.jobs, None)
    for name in args.experiments:
        df = data[name]
        keys = [c for c in df.columns if c in ("variant",)] or [df.columns[0]]
        print(f"== {name} ({len(df)} runs), mean per variant")
        print(df.groupby(keys, sort=False).mean(numeric_only=True).to_string())
    for c in evaluate_claims(subset, data):
        print(f"{c.id}: {c.verdict}: {c.reason}")


if __name__ == "__main__":
    main()
