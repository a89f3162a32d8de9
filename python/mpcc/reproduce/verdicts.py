"""Helpers for verdict functions: turn per-point checks into a verdict and a
one-line reason, and compare two measured quantities with their confidence
intervals.

A point whose compared quantities are equal within their intervals (a tie), or
where the baseline leaves nothing to improve, tests nothing: it is counted apart,
never as a pass. A claim with only such points is "not tested here"; one with some is
at most "partly" (it holds only where it could be tested)."""

from __future__ import annotations

import math
from typing import NamedTuple

NOT_TESTED = "not tested here"
TIE = "tie"
ABOVE, BELOW = "above", "below"
# Means this close (relative) are equal even without an interval (one replication).
EQUAL_RELATIVE = 1e-6


def from_share(passed: int, total: int, untested: int = 0) -> str:
    """`total` tested points, `passed` of them passing, `untested` more that test nothing.
    Every point tested and passing: reproduced; some passing: partly (also when the others
    were not tested: the claim holds only where it could be tested); none passing: not
    reproduced; none tested: not tested here."""
    if total == 0 and untested > 0:
        return NOT_TESTED
    if total > 0 and passed == total and untested == 0:
        return "reproduced"
    if passed > 0:
        return "partly"
    return "not reproduced"


def within(measured: float, reference: float, tolerance: float) -> bool:
    return abs(measured - reference) <= tolerance * abs(reference)


class Interval(NamedTuple):
    """A mean and the half-width of its 95 % interval, computed elsewhere (e.g. paired)."""

    mean: float
    half: float


def _interval(x) -> tuple[float, float]:
    """(mean, half-width) of replications' values, of an Interval, or of one number
    (half-width 0)."""
    from .stats import mean_ci

    if isinstance(x, Interval):
        mean, half = float(x.mean), float(x.half)
    elif isinstance(x, (int, float)):
        mean, half = float(x), 0.0
    else:
        mean, half, _ = mean_ci(list(x))
    return mean, (0.0 if math.isnan(half) else half)


def compare(a, b) -> str:
    """"above" or "below" when the 95 % intervals of the means of `a` and `b` do not
    overlap, else "tie". `a`, `b`: the replications' values, an Interval, or one
    number. Means equal to EQUAL_RELATIVE are a tie whatever the intervals."""
    ma, ha = _interval(a)
    mb, hb = _interval(b)
    if math.isnan(ma) or math.isnan(mb):
        return TIE
    if abs(ma - mb) <= EQUAL_RELATIVE * max(abs(ma), abs(mb)) or abs(ma - mb) <= ha + hb:
        return TIE
    return ABOVE if ma > mb else BELOW


def interval_text(x, fmt: str = ".3g", scale: float = 1.0) -> str:
    mean, half = _interval(x)
    return f"{mean * scale:{fmt}} +- {half * scale:{fmt}}"


def points(checks: list[tuple], what: str, tolerance_text: str, fmt: str = ".4g") -> tuple[str, str]:
    """`checks`: (label, value, passed) per point, `passed` None for a point that
    tests nothing (a tie, or no effect to show). Reason: range of values, how many
    tested points pass, the worst failing points and the untested ones."""
    if not checks:
        return "not reproduced", f"no measured data for {what}"
    tested = [c for c in checks if c[2] is not None]
    untested = [c for c in checks if c[2] is None]
    passed = sum(bool(ok) for _, _, ok in tested)
    values = [v for _, v, _ in checks]
    reason = (f"{what} {min(values):{fmt}} to {max(values):{fmt}}; {passed} of {len(tested)} tested points "
              f"{tolerance_text}")
    failing = [f"{label}: {v:{fmt}}" for label, v, ok in tested if not ok]
    if failing:
        reason += " (outside: " + ", ".join(failing[:3]) + (", ..." if len(failing) > 3 else "") + ")"
    if untested:
        labels = [f"{label}: {v:{fmt}}" for label, v, _ in untested]
        reason += (f"; {len(untested)} not tested (ties within the 95 % intervals, or nothing to improve): "
                   + ", ".join(labels[:4]) + (", ..." if len(labels) > 4 else ""))
    return from_share(passed, len(tested), len(untested)), reason


def magnitude(measured, paper: float, band: tuple[float, float] = (0.8, 1.25)) -> bool:
    """The measured mean is within `band` x the paper's figure. (A paper figure merely
    inside a wide interval of few replications is no match.)"""
    mean, _ = _interval(measured)
    return band[0] * paper <= mean <= band[1] * paper


def combine(parts: dict) -> str:
    """A verdict from sub-verdicts of one claim (each one of the verdicts): all
    reproduced: reproduced; every tested part failed: not reproduced; nothing
    tested: not tested here; otherwise (also reproduced parts beside untested ones)
    partly."""
    tested = [v for v in parts.values() if v != NOT_TESTED]
    if not tested:
        return NOT_TESTED
    if all(v == "reproduced" for v in tested) and len(tested) == len(parts):
        return "reproduced"
    if all(v == "not reproduced" for v in tested):
        return "not reproduced"
    return "partly"
