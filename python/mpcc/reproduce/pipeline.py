"""`reproduce(paper)`: plan the runs, run what the cache lacks, measure, judge the
claims and write the report."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .cache import DamagedEntry, RunCache, simulator_version
from .measure import measure
from .model import VERDICTS, Paper
from .plan import plan
from .report import ClaimResult, write_report
from .runner import RunStats, default_jobs, execute

DEFAULT_CACHE = Path(".cache") / "reproduce"


class PaperPending(Exception):
    """The paper cannot run yet; the message says why."""


@dataclass(frozen=True)
class Outcome:
    paper: str
    folder: Path
    stats: RunStats
    claims: list[ClaimResult]


def evaluate_claims(paper: Paper, data: dict) -> list[ClaimResult]:
    results = []
    for claim in paper.claims:
        verdict, reason = claim.verdict(data)
        if verdict not in VERDICTS:
            raise ValueError(f"claim {claim.id}: verdict {verdict!r} is not one of {', '.join(VERDICTS)}")
        results.append(ClaimResult(claim.id, claim.text, claim.figure, verdict, " ".join(str(reason).split()),
                                   claim.source, claim.quote, claim.rule, claim.history_text()))
    return results


def reproduce(paper: Paper, out="report", quick: bool = False, jobs: int | None = None, cache=None,
              max_memory: int | None = None) -> Outcome:
    """Runs what the cache lacks and writes the report to `out/<paper>`. Refuses, before
    running anything, to replace an `out/<paper>` that mpcc did not write, and any run
    estimated to need more than `max_memory` bytes."""
    from .. import output

    if paper.pending:
        raise PaperPending(f"{paper.name}: {paper.pending}")
    paper.check()
    output.check_replaceable(Path(out) / paper.name)
    version = simulator_version()
    store = RunCache(cache if cache is not None else DEFAULT_CACHE)
    specs = plan(paper, quick, version)
    check_resources(specs, max_memory)
    stats, data = _run_and_measure(paper, specs, store, version, jobs or default_jobs(), max_memory)
    claims = evaluate_claims(paper, data)
    folder = write_report(paper, Path(out), data, claims, quick, version)
    return Outcome(paper.name, folder, stats, claims)


def check_resources(specs, max_memory: int | None) -> None:
    """Every distinct run within the memory limit (mpcc.limits), before any runs."""
    from ..limits import check_resources as check
    from ..scenario import ScenarioError

    for spec in {s.key: s for s in specs}.values():
        try:
            check(spec.config, max_memory)
        except ScenarioError as e:
            raise ScenarioError(f"{spec.experiment}/{spec.variant.name}", str(e)) from None


def _run_and_measure(paper, specs, store, version, jobs, max_memory):
    """Runs what the cache lacks and measures. An entry found damaged while measuring
    (it was reported and discarded) is recomputed in a second pass."""
    computed = 0
    for attempt in (1, 2):
        stats = execute(specs, store, version, jobs, label=paper.name, max_memory=max_memory)
        computed += stats.computed
        try:
            data = measure(paper, specs, store)
            return RunStats(stats.total, stats.total - computed, computed), data
        except DamagedEntry:
            if attempt == 2:
                raise
