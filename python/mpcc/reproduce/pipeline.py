"""`reproduce(paper)`: plan the runs, run what the cache lacks, measure, judge the
claims and write the report."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .cache import RunCache, simulator_version
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
        results.append(ClaimResult(claim.id, claim.text, claim.figure, verdict, " ".join(str(reason).split())))
    return results


def reproduce(paper: Paper, out="report", quick: bool = False, jobs: int | None = None, cache=None) -> Outcome:
    if paper.pending:
        raise PaperPending(f"{paper.name}: {paper.pending}")
    paper.check()
    version = simulator_version()
    store = RunCache(cache if cache is not None else DEFAULT_CACHE)
    specs = plan(paper, quick, version)
    stats = execute(specs, store, version, jobs or default_jobs(), label=paper.name)
    data = measure(paper, specs, store)
    claims = evaluate_claims(paper, data)
    folder = write_report(paper, Path(out), data, claims, quick, version)
    return Outcome(paper.name, folder, stats, claims)
