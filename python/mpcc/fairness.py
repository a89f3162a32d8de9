"""Fairness over chosen flows of a run."""

from __future__ import annotations

from typing import Iterable


def jain(values: Iterable[float]) -> float:
    """Jain's index (sum x)^2 / (n sum x^2): 1 when all are equal, 1/n when one takes all."""
    xs = [float(x) for x in values]
    if not xs:
        raise ValueError("jain: no values")
    if any(x < 0 for x in xs):
        raise ValueError("jain: values must not be negative")
    squares = sum(x * x for x in xs)
    return float("nan") if squares == 0 else sum(xs) ** 2 / (len(xs) * squares)


def fairness(result, flows: Iterable[str] | None = None, metric: str = "goodput_bps") -> float:
    """Jain's index of `metric` (a per-flow summary field) over `flows` (names; all by default).

    A multipath connection counts as one flow, as RFC 6356's fairness goal does."""
    summary = result.summary["flows"]
    names = list(summary) if flows is None else list(flows)
    unknown = [n for n in names if n not in summary]
    if unknown:
        raise ValueError(f"fairness: unknown flow(s) {', '.join(unknown)}; flows: {', '.join(summary)}")
    return jain(summary[n][metric] for n in names)
