"""Helpers for verdict functions: turn per-point checks into a verdict and a
one-line reason."""

from __future__ import annotations


def from_share(passed: int, total: int) -> str:
    """All points pass: reproduced; some: partly; none (or no data): not reproduced."""
    if total > 0 and passed == total:
        return "reproduced"
    if passed > 0:
        return "partly"
    return "not reproduced"


def within(measured: float, reference: float, tolerance: float) -> bool:
    return abs(measured - reference) <= tolerance * abs(reference)


def points(checks: list[tuple[str, float, bool]], what: str, tolerance_text: str, fmt: str = ".4g") -> tuple[str, str]:
    """`checks`: (label, value, passed) per point. Reason: range of values, how many
    pass, and the worst failing points."""
    if not checks:
        return "not reproduced", f"no measured data for {what}"
    passed = sum(ok for _, _, ok in checks)
    values = [v for _, v, _ in checks]
    reason = f"{what} {min(values):{fmt}} to {max(values):{fmt}}; {passed} of {len(checks)} points {tolerance_text}"
    failing = [f"{label}: {v:{fmt}}" for label, v, ok in checks if not ok]
    if failing:
        reason += " (outside: " + ", ".join(failing[:3]) + (", ..." if len(failing) > 3 else "") + ")"
    return from_share(passed, len(checks)), reason
