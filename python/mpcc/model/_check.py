"""Argument checks shared by the model: each failure is a ValueError whose message
starts with the argument's name, says what was given and what is allowed."""

from __future__ import annotations

import math

import numpy as np


def fail(name: str, value, problem: str, expected: str) -> ValueError:
    return ValueError(f"{name}: {_show(value)} {problem}; expected {expected}")


def _show(value) -> str:
    if isinstance(value, np.ndarray):
        value = value.tolist()
    return repr(value)


def number(name: str, value, *, minimum: float = -math.inf, strict: bool = False, unit: str = "") -> float:
    """`value` as a finite float >= minimum (> minimum if `strict`)."""
    what = f"a number{' in ' + unit if unit else ''}"
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise fail(name, value, "is not a number", what) from None
    if not math.isfinite(x):
        raise fail(name, value, "is not finite", what)
    if strict and x <= minimum:
        raise fail(name, value, "is too small" if minimum else "is not positive", f"{what} > {minimum:g}")
    if x < minimum:
        raise fail(name, value, "is negative" if minimum == 0 else "is too small", f"{what} >= {minimum:g}")
    return x


def positive(name: str, value, unit: str = "") -> float:
    return number(name, value, minimum=0.0, strict=True, unit=unit)


def nonnegative(name: str, value, unit: str = "") -> float:
    return number(name, value, minimum=0.0, unit=unit)


def probability(name: str, value) -> float:
    p = nonnegative(name, value)
    if p > 1:
        raise fail(name, value, "is above 1", "a probability in [0, 1]")
    return p


def vector(name: str, values, *, n: int | None = None, minimum: float = 0.0, strict: bool = False,
           unit: str = "") -> np.ndarray:
    """One value per subflow as a float array; a scalar is broadcast to `n` entries."""
    arr = np.atleast_1d(np.asarray(values, dtype=object))
    if arr.ndim != 1:
        raise fail(name, values, "is not a flat sequence", "one value per subflow")
    if n is not None and arr.size == 1 and np.ndim(values) == 0:
        arr = np.repeat(arr, n)
    if arr.size == 0:
        raise fail(name, values, "is empty", "at least one subflow")
    if n is not None and arr.size != n:
        raise fail(name, values, f"has {arr.size} entries", f"{n}, one per subflow")
    return np.array([number(f"{name}[{i}]", v, minimum=minimum, strict=strict, unit=unit)
                     for i, v in enumerate(arr)])
