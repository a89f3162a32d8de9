"""Bit-identity check for changes that must not move any result (issue 18, item 2).

Runs a dozen varied scenarios through the simulator (the Python extension, as
`mpcc run` does) and reduces each run to digests: the summary as canonical JSON
without the fields that measure the simulator rather than the network (`sim.wall_s`,
`sim.events`), and every column of every table (time series, delay CDFs, event log)
byte for byte, plus the packet captures. Record the digests at a base commit, then
check a later build against them:

    python bench/identical.py --record bench/out/identical-base.json   # at the base
    make setup && python bench/identical.py --check bench/out/identical-base.json

To record a base other than the working tree: `git archive BASE | tar -x -C DIR`,
`cargo build --release -p mpcc-py` there, copy `target/release/lib_core.so` to
`DIR/python/mpcc/_core.abi3.so` and this script to `DIR/bench/`, and run it there
with this virtualenv's Python (it imports the `mpcc` package beside it).

Scenarios: the demo (with the event log), multipath, streaming and example scenarios,
papers' scenarios (CoDel, RED, TSC pacing, a time-varying capacity), the ns-3
dumbbell and its random-loss twin, a testbed scenario with host jitter turned into
one with NIC pacing and packet captures, and the A/B benchmark's LIA connection over
a 0 ms link plus a dumbbell whose access links have no delay (zero-delay hops), and
400 Reno flows (a run large enough for the radix heap). Long
scenarios are cut to `MAX_S` simulated seconds (the same cut on both sides).
`--every-file` adds every scenario file under `scenarios/` (all the reproductions'
inputs, each in its paper's TCP profile as `mpcc reproduce` runs it), the check behind
refactors that must not move any result (issue 12).

A change that adds data (a new summary counter or column) names it with `--new NAME`:
summary fields of that name (flows, subflows, links) are left out of the summary
digest and listed as new, and table columns absent from the base are listed as
new rather than different; every other value must still be identical.

A change that moves only the last bits of some summary fields (session 15: the exact
delay means and variances) names them with `--new` too and compares their values
with the base's: `--values FILE` writes them (run at the base, as above),
`--values-against FILE` reports the largest relative difference per field.
"""

from __future__ import annotations

import argparse
import copy
import functools
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "bench"))

MAX_S = 20
S = 1_000_000_000


def _toml(rel: str) -> dict:
    """A scenario file's configuration; a file a paper's experiments run is taken in
    their TCP profile unless it names one, as `mpcc reproduce` runs it."""
    from mpcc.reproduce.plan import paper_scenario_data
    from mpcc.scenario import Scenario, load

    path = ROOT / "scenarios" / rel
    found = _experiments_by_file().get(path.resolve())
    if found is None:
        return load(path).to_config()
    data, base = paper_scenario_data(*found)
    return Scenario.from_dict(data, base).to_config()


@functools.cache
def _experiments_by_file() -> dict:
    """A (paper, experiment) that runs each scenario file; the experiments that share
    a file must share its TCP profile too (else a file would have no one digest)."""
    from mpcc import papers

    found = {}
    for paper in papers.all_papers():
        for exp in paper.experiments:
            if isinstance(exp.scenario, dict):
                continue
            path = Path(exp.scenario).resolve()
            if path in found:
                other = found[path][0].profile_of(found[path][1])[0]
                if other != paper.profile_of(exp)[0]:
                    raise ValueError(f"{path}: run in the {other} and the {paper.profile_of(exp)[0]} profile")
            found.setdefault(path, (paper, exp))
    return found


def _paced_with_captures() -> dict:
    config = _toml("validation/testbed_shared_bottleneck.toml")
    for flow in config["flows"]:
        flow["tcp"].update(pacing=True, nic_backpressure=True, nic_rate_bps=1_000_000_000)
    config["pcap"] = {"links": [2], "flows": [0, 1]}
    return config


def _zero_delay_dumbbell() -> dict:
    config = _toml("validation/ns3_dumbbell_newreno_10.toml")
    for link in config["links"]:
        if link["name"] != "bottleneck":
            link["delay_ns"] = 0
    return config


def _lia_zero_delay() -> dict:
    from ab import lia_two_paths

    config = lia_two_paths()
    config.update(duration_ns=10 * S, sample_interval_ns=100_000_000)
    return config


def _many_flows() -> dict:
    """Enough flows for the radix heap (engine::RADIX_FROM_FLOWS), with time series."""
    from ab import reno_flows

    config = reno_flows(400)
    config.update(duration_ns=3 * S, sample_interval_ns=100_000_000)
    return config


def _with_event_log(rel: str) -> dict:
    config = _toml(rel)
    config["event_log"] = True
    return config


SCENARIOS = {
    "demo+event_log": lambda: _with_event_log("demo.toml"),
    "multipath_demo": lambda: _toml("multipath_demo.toml"),
    "streaming_demo": lambda: _toml("streaming_demo.toml"),
    "example": lambda: _toml("example.toml"),
    "park_cubic_codel_static": lambda: _toml("park/cubic_codel_static.toml"),
    "park_rtsc_minrtt_rtsc": lambda: _toml("park/rtsc_minrtt_rtsc.toml"),
    "mpveno_wireless_red": lambda: _toml("mpveno/wireless.toml"),
    "cdd_wireless": lambda: _toml("cdd/wireless.toml"),
    "noda_ito_env1": lambda: _toml("noda_ito/env1.toml"),
    "mpmtp_comparison": lambda: _toml("mpmtp/comparison.toml"),
    "ns3_dumbbell_newreno_10": lambda: _toml("validation/ns3_dumbbell_newreno_10.toml"),
    "ns3_recovery_loss_1": lambda: _toml("validation/ns3_recovery_loss_1.toml"),
    "tcp_reno_random_loss": lambda: _toml("tcp/reno_random_loss.toml"),
    "testbed_capacity_step": lambda: _toml("validation/testbed_capacity_step.toml"),
    "jitter_pacing_nic_pcap": _paced_with_captures,
    "lia_1g_0ms_2m": _lia_zero_delay,
    "dumbbell_zero_delay_access": _zero_delay_dumbbell,
    "reno_400_flows": _many_flows,
}


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _column_bytes(values) -> bytes:
    try:
        import numpy as np

        if isinstance(values, np.ndarray):
            return values.dtype.str.encode() + values.tobytes()
    except ImportError:
        pass
    return json.dumps(values, sort_keys=True).encode()


def _drop_fields(node, names: set[str], found: dict, at: str = ""):
    """Removes the fields `names` from every dict in `node`, noting those present
    with their values by path."""
    if isinstance(node, dict):
        for k in list(node):
            if k in names:
                found[f"{at}.{k}"] = node.pop(k)
            else:
                _drop_fields(node[k], names, found, f"{at}.{k}")
    elif isinstance(node, list):
        for i, x in enumerate(node):
            _drop_fields(x, names, found, f"{at}[{i}]")


def run_one(config: dict, new: frozenset[str] = frozenset()) -> dict:
    from mpcc import _core

    config = copy.deepcopy(config)
    config["duration_ns"] = min(config["duration_ns"], MAX_S * S)
    config["warmup_ns"] = min(config.get("warmup_ns", 0), config["duration_ns"] // 2)
    summary_json, tables, pcaps = _core.run(json.dumps(config))
    summary = json.loads(summary_json)
    summary["sim"].pop("wall_s", None)
    events = summary["sim"].pop("events", None)
    found: dict = {}
    _drop_fields(summary, set(new), found)
    out = {"summary": _digest(json.dumps(summary, sort_keys=True).encode()),
           "packets": summary["sim"]["packets"], "events": events}
    if found:
        out["new_summary_fields"] = sorted({k.rsplit(".", 1)[1] for k in found})
        out["new_summary_values"] = found
    for table, columns in sorted(tables.items()):
        for name, values in sorted(columns.items()):
            out[f"{table}.{name}"] = _digest(_column_bytes(values))
    for name, data in sorted(pcaps.items()):
        out[f"pcap.{name}"] = _digest(bytes(data))
    return out


def _compare_values(want: dict, got: dict) -> None:
    """Prints, per field name, the largest relative difference over every scenario and
    where it is (fields missing on one side are listed)."""
    worst: dict = {}
    for name in sorted(set(want) | set(got)):
        w, g = want.get(name, {}), got.get(name, {})
        for path in sorted(set(w) | set(g)):
            field = path.rsplit(".", 1)[1]
            if path not in w or path not in g:
                print(f"MISSING {name} {path}: base {w.get(path)}, this build {g.get(path)}")
                continue
            a, b = w[path], g[path]
            if a == b:
                rel = 0.0
            elif a is None or b is None:  # a NaN on one side only
                rel = float("inf")
            else:
                rel = abs(b - a) / max(abs(a), abs(b))
            if rel >= worst.get(field, (-1.0,))[0]:
                worst[field] = (rel, f"{name} {path}", a, b)
    for field, (rel, where, a, b) in sorted(worst.items()):
        print(f"{field:<20} max relative difference {rel:.3g} ({where}: {a!r} -> {b!r})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--record", metavar="FILE", help="write the digests of this build to FILE")
    mode.add_argument("--check", metavar="FILE", help="compare this build's digests with FILE")
    parser.add_argument("--every-file", action="store_true",
                        help="also run every scenario file under scenarios/ (the reproductions' inputs)")
    parser.add_argument("--new", action="append", default=[], metavar="NAME",
                        help="a summary field this change adds (left out of the summary digest, reported as new)")
    parser.add_argument("--values", metavar="FILE", help="write the values of the --new fields to FILE")
    parser.add_argument("--values-against", metavar="FILE",
                        help="report the largest relative difference of the --new fields from FILE's values")
    parser.add_argument("scenarios", nargs="*", help="names to run (default: all)")
    args = parser.parse_args()
    scenarios = dict(SCENARIOS)
    if args.every_file:
        for path in sorted((ROOT / "scenarios").rglob("*.toml")):
            rel = path.relative_to(ROOT / "scenarios").as_posix()
            scenarios[f"file:{rel}"] = lambda rel=rel: _toml(rel)
    names = args.scenarios or list(scenarios)
    results = {}
    for name in names:
        results[name] = run_one(scenarios[name](), frozenset(args.new))
        print(f"{name:<30} packets {results[name]['packets']:>9}  events {results[name]['events']}", flush=True)
    values = {name: r.pop("new_summary_values", {}) for name, r in results.items()}
    if args.values:
        Path(args.values).write_text(json.dumps(values, indent=1, sort_keys=True) + "\n")
    if args.values_against:
        _compare_values(json.loads(Path(args.values_against).read_text()), values)
    if args.record:
        Path(args.record).parent.mkdir(parents=True, exist_ok=True)
        Path(args.record).write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
        print(f"recorded {len(results)} scenarios in {args.record}")
        return 0
    base = json.loads(Path(args.check).read_text())
    failed = unknown = 0
    for name, got in results.items():
        if name not in base:
            unknown += 1
            print(f"NEW {name}: not in {args.check} (record the base again to include it)")
            continue
        want = base[name]
        added = sorted(k for k in set(got) - set(want) if k != "new_summary_fields")
        added += [f"summary.{k}" for k in got.get("new_summary_fields", [])]
        diff = sorted(k for k in set(want) | set(got)
                      if k not in ("events", "new_summary_fields") and k in want and want.get(k) != got.get(k))
        note = f"; new: {', '.join(added)}" if added else ""
        if diff:
            failed += 1
            print(f"DIFFERENT {name}: {', '.join(diff)}{note}")
        else:
            print(f"identical {name} (events {want['events']} -> {got['events']}){note}")
    print(f"{len(results) - failed - unknown} of {len(results)} scenarios identical"
          + (f", {unknown} not in the base" if unknown else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
