"""The `mpcc` command.

    mpcc run SCENARIO [--out DIR] [--force] [--seed N] [--no-plots] [--max-memory SIZE] [--record-cc FILE]
    mpcc list
    mpcc plot RESULTS_DIR [--flows A,B] [--metrics throughput,...,rtt_cdf,app_delay_cdf] [--format png,svg,pdf]
    mpcc reproduce PAPER|all [--quick] [--jobs N] [--out DIR] [--cache DIR] [--max-memory SIZE]
    mpcc sweep SCENARIO --param KEY=v1,v2 [--seeds N] [--jobs N] [--out DIR] [--force] [--dask ADDRESS]
    mpcc kernel list|load NAME|unload NAME|status
    mpcc testbed run|check SCENARIO [--out DIR] [--force] [--keep-raw DIR]
    mpcc compare A B [--out DIR] [--force] [--labels LA,LB]

Output folders are never overwritten blindly: `run --out DIR` refuses an existing
DIR unless --force, and even then replaces it only if mpcc wrote every file in it;
`reproduce` replaces `DIR/PAPER` only if it is a report mpcc wrote (mpcc.output).

Exit codes:
    0    done
    2    a user error (bad scenario or flag, unknown name, simulator rejection,
         unreadable file, an output folder mpcc may not replace, a scenario
         estimated to exceed --max-memory): one line `mpcc: error: ...` on stderr,
         nothing written
    3    results incomplete: a run reached --max-memory and stopped early (`run`
         saves what it simulated; `reproduce` keeps its finished runs in the cache
         but writes no report), or memory ran out while writing (what could be
         written is saved, summary.json first); one line on stderr says which
    130  interrupted (Ctrl-C or SIGTERM): `mpcc: interrupted`; finished runs stay
         in the cache and no half-written output folder is left
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import threading
import time
import warnings
from pathlib import Path

from .terminate import TerminateAsInterrupt

EXIT_USAGE = 2
EXIT_INCOMPLETE = 3
EXIT_INTERRUPTED = 130


class UserError(Exception):
    """An error to report as one line, without a traceback."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line instead of usage + message
        raise UserError(f"{message} (see `{self.prog} --help`)")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = _build_parser(argv[0] if argv else None)
    # SIGTERM ends the command like Ctrl-C: temporary folders removed, exit 130.
    with TerminateAsInterrupt():
        try:
            args = parser.parse_args(argv)
            return args.func(args)
        except KeyboardInterrupt:
            return _interrupted()
        except BrokenPipeError:  # `mpcc list | head`
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        except UserError as e:
            return _fail(str(e))
        except ValueError as e:  # ScenarioError, SimulationError, OutputFolderError
            return _fail(e)
        except OSError as e:
            return _fail(f"{e.filename or ''}: {e.strerror or e}" if e.filename else str(e))
        except MemoryError:
            return _fail("out of memory; try a shorter or smaller scenario, or a lower --max-memory")


def _fail(message, code: int = EXIT_USAGE, kind: str = "error") -> int:
    """One line per problem: a ScenarioError may carry several (`problems`)."""
    for problem in getattr(message, "problems", None) or [message]:
        print(f"mpcc: {kind}: {_line(problem)}", file=sys.stderr)
    return code


def _line(text) -> str:
    """`text` as one terminal-safe line: whitespace runs become one space, other
    control characters (ANSI escapes, bidi overrides) are shown escaped, e.g. \\x1b."""
    return _shown(" ".join(str(text).split()))


def _shown(text) -> str:
    """`text` with control characters escaped (\\x1b, \\n), so a name read from a
    scenario can neither drive the terminal nor break an output line."""
    return "".join(c if c.isprintable() or c == " " else c.encode("unicode_escape").decode("ascii")
                   for c in str(text))


def _interrupted() -> int:
    """A normal exit with 130, so that multiprocessing cleans up its semaphores."""
    print("\nmpcc: interrupted", file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    return EXIT_INTERRUPTED


def _leave_interrupted():
    """Exits at once: a simulation thread still running cannot be joined, and would
    abort the interpreter's shutdown."""
    _interrupted()
    os._exit(EXIT_INTERRUPTED)


# Commands whose parsers live with their packages (kernel, testbed, compare): imported
# only when the command line may need them, so that `mpcc run` does not pay for them.
_OWN_COMMANDS = ("run", "list", "plot", "reproduce", "sweep")


def _build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; for `command` one of _OWN_COMMANDS (the first
    argument), the kernel, testbed and compare subcommands are left out: they are
    not parsed, and the package imports they need cost `mpcc run` ~0.02 s."""
    parser = _Parser(prog="mpcc", description="mpcc: a multipath congestion-control lab")
    parser.add_argument("--version", action=_Version, help="print the version and source commit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("run", help="run a scenario and write results and plots")
    p.add_argument("scenario", help="scenario TOML file")
    p.add_argument("--out", help="results folder (default: results/<scenario name>)")
    p.add_argument("--force", action="store_true",
                   help="replace an existing results folder (only if mpcc wrote every file in it)")
    p.add_argument("--seed", type=_seed, help="override the scenario's seed")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--max-memory", type=_size, default=None, metavar="SIZE",
                   help="memory the simulation may use, e.g. 16GB (default: mpcc.limits.DEFAULT_MAX_MEMORY_BYTES)")
    p.add_argument("--record-cc", metavar="FILE", help="record the multipath connection's congestion-control events")
    p.add_argument("--event-log", action="store_true", help="also write the per-event log (events.parquet)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("list", help="list congestion controllers, schedulers, queues, loss models, capacity kinds")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("plot", help="redraw the plots of a results folder")
    p.add_argument("results", help="results folder written by `mpcc run`")
    p.add_argument("--flows", type=_names, default=None, metavar="NAME,...", help="only these flows (default: all)")
    p.add_argument("--metrics", type=_names, default=None, metavar="NAME,...",
                   help="plots to draw: throughput, cwnd, rtt, queue, throughput_delay, rtt_cdf, "
                        "app_delay_cdf (default: the four time series)")
    p.add_argument("--format", type=_names, default=["png"], metavar="FMT,...", help="png, svg and/or pdf (default png)")
    p.set_defaults(func=cmd_plot)

    p = sub.add_parser("reproduce", help="reproduce a paper's evaluation and write its report")
    p.add_argument("paper", help="a paper from `mpcc list`, or `all`")
    p.add_argument("--quick", action="store_true", help="shorter runs and fewer replications")
    p.add_argument("--jobs", type=_jobs, default=None, help="parallel runs (default: the number of cores)")
    p.add_argument("--out", default="report", help="reports folder (default: report)")
    p.add_argument("--cache", default=None, help="run cache folder (default: .cache/reproduce)")
    p.add_argument("--max-memory", type=_size, default=None, metavar="SIZE",
                   help="memory each run may use, e.g. 16GB (default: mpcc.limits.DEFAULT_MAX_MEMORY_BYTES)")
    p.set_defaults(func=cmd_reproduce)

    p = sub.add_parser("sweep", help="run a scenario over a grid of parameter values and seeds")
    p.add_argument("scenario", help="scenario TOML file (its [sweep] table, if any, gives params and seeds)")
    p.add_argument("--param", action="append", default=[], metavar="DOTTED.KEY=v1,v2",
                   help="a swept parameter and its values, e.g. links.b.rate=5Mbps,10Mbps (repeatable)")
    p.add_argument("--seeds", type=_jobs, default=None, help="seeds per point (default: the [sweep] table's, or 1)")
    p.add_argument("--jobs", type=_jobs, default=None, help="parallel runs (default: the number of cores)")
    p.add_argument("--out", help="results folder (default: results/<scenario name>-sweep)")
    p.add_argument("--force", action="store_true", help="replace an existing results folder that mpcc wrote")
    p.add_argument("--cache", default=None, help="run cache folder (default: .cache/reproduce)")
    p.add_argument("--dask", metavar="ADDRESS", help="run on this Dask scheduler, e.g. tcp://scheduler:8786")
    p.add_argument("--max-memory", type=_size, default=None, metavar="SIZE",
                   help="memory each run may use, e.g. 16GB (default: mpcc.limits.DEFAULT_MAX_MEMORY_BYTES)")
    p.set_defaults(func=cmd_sweep)

    if command in _OWN_COMMANDS:
        return parser
    from .kernel.cli import add_parser as add_kernel_parser

    add_kernel_parser(sub)
    from .testbed.cli import add_parser as add_testbed_parser

    add_testbed_parser(sub)
    from .compare import add_parser as add_compare_parser

    add_compare_parser(sub)
    return parser


class _Version(argparse.Action):
    """`--version`: the version and source commit, found only when asked (it may run git)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        from .version import line

        print(line())
        parser.exit()


def _names(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f'"{text}" names nothing; allowed: a comma-separated list')
    return names


def _jobs(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f'"{text}" is not a positive whole number')
    return int(text)


def _size(text: str) -> int:
    from .units import size_bytes

    try:
        value = size_bytes(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f'"{text}" is not a positive size; e.g. "16GB"')
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'"{text}" is not a whole number') from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"{value} is out of range; allowed: 0 to 2^64-1")
    return value


# ---- run -----------------------------------------------------------------------------


def cmd_run(args) -> int:
    from . import output, version
    from .run import StoppedEarlyWarning, run

    version.prefetch_commit()  # for summary.json: git runs while the scenario is validated and simulated
    from .scenario import Scenario

    scenario = Scenario.from_file(args.scenario)
    scenario.to_config(seed=args.seed)  # report scenario errors before starting
    out = Path(args.out) if args.out else Path("results") / Path(args.scenario).stem
    output.check_replaceable(out, args.force, flag="--force")  # before spending the simulation time
    warnings.simplefilter("ignore", StoppedEarlyWarning)  # said below, in one line
    started = time.monotonic()
    try:
        result = _in_background(lambda: run(scenario, out=out, seed=args.seed, plots=not args.no_plots,
                                            force=args.force, max_memory=args.max_memory,
                                            record_cc=args.record_cc, event_log=args.event_log))
    except output.OutputsIncomplete as e:
        _print_run(args, scenario, e.result, time.monotonic() - started)
        return _fail(f"{e}; the run itself finished", EXIT_INCOMPLETE, "warning")
    _print_run(args, scenario, result, time.monotonic() - started)
    files = "summary.json, flow_series.parquet, link_series.parquet, delay_cdf.parquet"
    files += ", metric_series.parquet" if result.tables.get("metric_series") is not None else ""
    files += ", events.parquet" if result.tables.get("event_log") is not None else ""
    print(f"results: {_shown(out)}/ ({files})")
    if result.plots:  # only the plots this run wrote
        print("plots:   " + ", ".join(_shown(p) for p in sorted(result.plots)))
    if result.stopped_early:
        covered = result.summary.get("sim", {}).get("duration_s")
        return _fail(f"{result.stopped_early}; results cover only the first {_num(covered, 1, '.3f')} s",
                     EXIT_INCOMPLETE, "warning")
    return 0


def _print_run(args, scenario, result, wall: float) -> None:
    sim_wall = result.summary.get("sim", {}).get("wall_s")
    sim_part = f"in {sim_wall:.2f} s, " if isinstance(sim_wall, (int, float)) else ""
    simulated = f"{scenario.duration / 1e9:g} s"
    if result.stopped_early:  # the summary covers only up to where it stopped
        simulated = f"{_num(result.summary['sim'].get('duration_s'), 1, '.3f')} s of {simulated}"
    print(f"mpcc: ran {_shown(args.scenario)}: {simulated} simulated {sim_part}{wall:.1f} s with output")
    flows = result.summary.get("flows", {})
    names = [n for n in result.flow_names if n in flows] + sorted(n for n in flows if n not in result.flow_names)
    columns = {key for name in names for key in flows[name]}  # a field missing on one flow reads n/a
    for name in names:
        row = flows[name]
        parts = []
        if "throughput_bps" in columns:
            parts.append(f"throughput {_num(row.get('throughput_bps'), 1e-6)} Mbit/s")
        if "rtt_mean_s" in columns:
            parts.append(f"mean RTT {_num(row.get('rtt_mean_s'), 1e3)} ms")
        if "retransmissions" in columns:
            parts.append(f"{_num(row.get('retransmissions'), 1, '.0f')} retransmissions")
        print(f"  flow {_shown(name)}: " + ", ".join(parts))
        app_line = _app_line(row)
        if app_line:
            print(f"    {app_line}")
        if len(row.get("subflows") or []) > 1:
            _print_subflows(result, name)


def _print_subflows(result, name) -> None:
    flow = result.summary["flows"][name]
    print(f"    goodput {_num(flow.get('goodput_bps'), 1e-6)} Mbit/s, scheduler {flow.get('scheduler', 'n/a')}, "
          f"{_num(flow.get('reinjections'), 1, '.0f')} reinjections")
    config = next((f for f in result.config["flows"] if f["name"] == name), {})
    routes = config.get("subflows") or [{"path": config.get("path", [])}]
    for i, row in enumerate(flow["subflows"]):
        path = ", ".join(result.link_names[j] for j in (routes[i]["path"] if i < len(routes) else []))
        print(f"    subflow {i} ({_shown(path)}): throughput {_num(row.get('throughput_bps'), 1e-6)} Mbit/s, "
              f"mean RTT {_num(row.get('rtt_mean_s'), 1e3)} ms, {_num(row.get('retransmissions'), 1, '.0f')} "
              "retransmissions")


def _app_line(flow: dict) -> str:
    """The application's summary fields (streams, web, on-off), if the flow has them."""
    if "stalls" in flow:
        return (f"stream: {_num(flow['stalls'], 1, '.0f')} stalls, {_num(flow.get('stall_s'), 1)} s stalled, "
                f"{_num(flow.get('app_blocked_bytes'), 1, '.0f')} bytes blocked by the send buffer")
    if "pages" in flow:
        return (f"web: {_num(flow['pages'], 1, '.0f')} pages, load time mean {_num(flow.get('page_load_mean_s'), 1e3)}"
                f" ms, p50 {_num(flow.get('page_load_p50_s'), 1e3)} ms, p95 {_num(flow.get('page_load_p95_s'), 1e3)} ms")
    if "on_periods" in flow:
        return f"on-off: {_num(flow['on_periods'], 1, '.0f')} on periods"
    if flow.get("fct_s") is not None:  # a finished file transfer; its rates cover its own lifetime
        return f"file: completed in {_num(flow['fct_s'], 1, '.3f')} s, {_num(flow.get('delivered_bytes'), 1, '.0f')} bytes"
    return ""


def _num(value, scale, fmt=".2f") -> str:
    """`value` scaled and formatted; "n/a" when missing or not a number (no samples)."""
    try:
        number = float(value) * scale
    except (TypeError, ValueError):
        return "n/a"
    return format(number, fmt) if math.isfinite(number) else "n/a"


def _in_background(work):
    """Runs `work` in a thread so that Ctrl-C is seen while the simulator runs
    (it releases the GIL); shows the elapsed time on a terminal after a second."""
    box = {}
    finished = threading.Event()  # not Thread.join: a join cut by Ctrl-C can mark the thread stopped

    def target():
        try:
            box["value"] = work()
        except BaseException as e:  # re-raised in the main thread
            box["error"] = e
        finally:
            finished.set()

    thread = threading.Thread(target=target, name="mpcc-run", daemon=True)
    started = time.monotonic()
    thread.start()
    shown = False
    try:
        while not finished.wait(0.1):
            elapsed = time.monotonic() - started
            if elapsed > 1 and sys.stderr.isatty():
                print(f"\rmpcc: simulating... {elapsed:.0f} s", end="", file=sys.stderr, flush=True)
                shown = True
    except KeyboardInterrupt:
        _leave_interrupted()
    if shown:
        print("\r" + " " * 40 + "\r", end="", file=sys.stderr, flush=True)
    if "error" in box:
        raise box["error"]
    return box["value"]


# ---- list ----------------------------------------------------------------------------


def cmd_list(args) -> int:
    from ._core import kinds, tcp_profiles
    from .units import user_name


    registry = kinds()  # every family, as the simulator registers it

    def shown(v, unit):
        if v is None:
            return "none"
        return {"duration": f'"{v / 1e9:g}s"', "rate": f'"{v:g}bps"', "size": f'"{v:.0f}B"',
                "whole": f"{v:.0f}"}.get(unit, f"{v:g}")

    def allowed(p):
        """What a parameter takes, for the structured units (files, choices, ...)."""
        u, of = p["unit"], p.get("of")
        return {"file": f"a {p.get('format')} file", "choice": " | ".join(p.get("choices", ())),
                "distribution": f'a distribution of {of}s, {{ kind = "NAME", ... }}',
                "list": f"a list of {of}s, each {shown(p['min'], of)} to {shown(p['max'], of)}",
                "steps": '[{ at = "0s", rate = "10Mbps" }, ...]', "of_field": "in the unit of the field"}.get(u)

    def params(entry, indent):
        for p in entry["params"]:
            u, d = p["unit"], p["default"]
            if u == "choice" and d is not None:
                d, u = p["choices"][int(d)], "text"
            elif u == "distribution" and d is not None:
                d, u = f"fixed {shown(d, p['of'])}", "text"
            what = allowed(p) or (f"above {shown(p['min'], u)}, at most {shown(p['max'], u)}" if p.get("open_min")
                                  else f"{shown(p['min'], u)} to {shown(p['max'], u)}")
            print(f"{indent}{user_name(p)} = {d if u == 'text' else shown(d, u)} ({what}): {p['help']}")

    algos = registry["cc"]
    width = max(len(a["name"]) for a in algos)
    print('congestion controllers (cc = "NAME", cc_params = { ... }):')
    for a in algos:
        print(f"  {a['name']:<{width}}  {a['kind']:<6}  {a['summary']}")
        params(a, " " * (width + 14))
    for title, field in (("MPTCP packet schedulers", "scheduler"), ("receiver controllers", "receiver")):
        entries = registry[field]
        print(f'\n{title} ({field} = "NAME", {field}_params = {{ ... }}; default {entries[0]["name"]}):')
        w = max(len(e["name"]) for e in entries)
        for e in entries:
            print(f"  {e['name']:<{w}}  {e['summary']}")
            params(e, " " * (w + 6))
    profiles = tcp_profiles()
    print(f'\nTCP profiles (tcp.profile = "NAME"; default {next(p["name"] for p in profiles if p["default"])}; every switch can be set in tcp.*):')
    w = max(len(p["name"]) for p in profiles)
    for p in profiles:
        print(f"  {p['name']:<{w}}  {p['description']}")
        switches = ", ".join(f"{k} = {v}" for k, v in p["mechanisms"].items())
        print(f"  {'':<{w}}  {switches}")
        cc = ", ".join(f"{k} = {v:g}" for k, v in p["cc_params"].items())
        print(f"  {'':<{w}}  cc_params left out: {cc}; an MPTCP data segment's DSS option: "
              f"{p['mptcp_dss_bytes']} bytes")
    titles = {
        "queue": 'queues (queue = { kind = "NAME", ... })',
        "loss": 'loss models (loss = { kind = "NAME", ... })',
        "capacity": 'capacity kinds (rate = "10Mbps", or capacity = { kind = "NAME", ... })',
        "app": 'applications (app = { kind = "NAME", ... })',
        "distribution": 'distributions (think, on, off, object_count, object_bytes = { kind = "NAME", ... })',
    }
    for group, title in titles.items():
        entries = registry[group]
        print(f"\n{title}:")
        w = max(len(e["name"]) for e in entries)
        for e in entries:
            print(f"  {e['name']:<{w}}  {e['summary']}")
            params(e, " " * (w + 6))
    from .papers import all_papers

    papers = all_papers()
    print("\npapers (mpcc reproduce NAME):")
    w = max(len(p.name) for p in papers)
    for paper in papers:
        status = f" [not runnable yet: {paper.pending.split(':')[0]}]" if paper.pending else ""
        print(f"  {paper.name:<{w}}  {paper.title}{status}")
    print("\nSee docs/scenarios.md for every field, unit and default.")
    return 0


# ---- reproduce -----------------------------------------------------------------------


def cmd_reproduce(args) -> int:
    from .papers import NAMES, load
    from .reproduce.pipeline import reproduce
    from .reproduce.report import write_index
    from .reproduce.runner import StoppedEarly

    names = NAMES if args.paper == "all" else (args.paper,)
    try:
        papers = [load(name) for name in names]
    except KeyError as e:
        raise UserError(e.args[0]) from None
    if args.paper != "all" and papers[0].pending:
        raise UserError(f"{papers[0].name} cannot run yet: {papers[0].pending}")
    _check_report_folders(Path(args.out), [p for p in papers if not p.pending], args.paper == "all")
    index = []
    for paper in papers:
        if paper.pending:
            print(f"{paper.name}: not run: {paper.pending}")
            index.append((paper.name, paper.title, f"not run: {paper.pending}", "", paper.planned_claims))
            continue
        try:
            outcome = reproduce(paper, out=args.out, quick=args.quick, jobs=args.jobs, cache=args.cache,
                                max_memory=args.max_memory)
        except StoppedEarly as e:
            return _fail(f"{paper.name}: {e}", EXIT_INCOMPLETE)
        st = outcome.stats
        verdicts = [c.verdict for c in outcome.claims]
        tally = ", ".join(f"{verdicts.count(v)} {v}" for v in ("reproduced", "partly", "not reproduced",
                                                                 "not tested here"))
        print(f"{paper.name}: {st.total} runs ({st.cached} from cache, {st.computed} computed); claims: {tally}")
        for c in outcome.claims:
            print(f"  {c.id}: {c.verdict}: {_line(c.reason)}")
        print(f"report: {_shown(outcome.folder / 'index.html')}")
        index.append((paper.name, paper.title, f"claims: {tally}", f"{paper.name}/index.html", ()))
    if args.paper == "all":
        print(f"index: {_shown(write_index(Path(args.out), index, quick=args.quick))}")
    return 0


def cmd_sweep(args) -> int:
    from .reproduce.runner import StoppedEarly
    from .sweep import load, run_sweep

    sweep = load(args.scenario, args.param, args.seeds)
    out = Path(args.out) if args.out else Path("results") / f"{Path(args.scenario).stem}-sweep"
    try:
        outcome = run_sweep(sweep, out, jobs=args.jobs, cache=args.cache, force=args.force,
                            max_memory=args.max_memory, dask=args.dask)
    except StoppedEarly as e:
        return _fail(str(e), EXIT_INCOMPLETE)
    points = len(sweep.points())
    print(f"sweep: {points} points x {len(sweep.seeds)} seeds = {outcome.runs} runs "
          f"({outcome.cached} from cache, {outcome.computed} computed)")
    print(f"results: {_shown(out)}/ (runs.csv, summary.csv, links.csv, Parquet twins, plots)")
    return 0


def _check_report_folders(out: Path, papers, with_index: bool) -> None:
    """Refuses, before anything runs, report folders (and the index) that mpcc did not write."""
    from . import output
    from .reproduce.report import INDEX

    for paper in papers:
        output.check_replaceable(out / paper.name)
    if with_index:
        output.check_file_replaceable(out, INDEX)


# ---- plot ----------------------------------------------------------------------------


def cmd_plot(args) -> int:
    from . import output
    from .plots import FORMATS, METRICS, plot_results

    out = Path(args.results)
    if not out.is_dir():
        raise UserError(f'results folder "{out}" not found')
    for name in (output.SUMMARY, output.FLOW_SERIES, output.LINK_SERIES):
        if not (out / name).is_file():
            raise UserError(f'"{out}" has no {name}; expected a folder written by `mpcc run`')
    for flag, given, allowed in (("--metrics", args.metrics, METRICS), ("--format", args.format, FORMATS)):
        unknown = [n for n in given or () if n not in allowed]
        if unknown:
            raise UserError(f'{flag}: "{unknown[0]}" is not one of {", ".join(allowed)}')
    if args.flows:
        summary, _, _ = output.read(out)
        unknown = [n for n in args.flows if n not in summary.get("flows", {})]
        if unknown:
            raise UserError(f'--flows: no flow "{unknown[0]}" in "{out}"; its flows: {", ".join(summary["flows"])}')
    try:
        written = plot_results(out, flows=args.flows, metrics=args.metrics, formats=args.format)
    except Exception as e:  # a damaged Parquet or JSON file
        raise UserError(f'cannot read results in "{out}": {e}') from None
    if not written:
        raise UserError(f'"{out}" has nothing to plot for these options (was sample_interval 0?)')
    output.record_written(out, [p.name for p in written])
    print("plots: " + ", ".join(_shown(p) for p in written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
