"""Parsing of the units scenarios are written in.

Durations become integer nanoseconds, rates bits per second (float) and sizes
integer bytes. Decimal arithmetic keeps "1.5us" exactly 1500 ns. Every error is
a `UnitError` whose message quotes the input and shows a valid example.

Every value has a ceiling (docs/scenarios.md, "Units"), so that nothing wraps
around in the simulator's 64-bit nanoseconds, no rate becomes infinite, and every
number survives JSON exactly.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

DURATION_UNITS = {"ns": 1, "us": 10**3, "µs": 10**3, "ms": 10**6, "s": 10**9, "min": 60 * 10**9}
RATE_UNITS = {"bps": 1, "kbps": 10**3, "mbps": 10**6, "gbps": 10**9, "tbps": 10**12}
# SI prefixes (KB = 1000 B), binary ones spelt KiB, MiB, GiB.
SIZE_UNITS = {"b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "kib": 2**10, "mib": 2**20, "gib": 2**30}

# ASCII digits only: "２s" (full-width) or "²" are not numbers.
_NUMBER_UNIT = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([A-Za-zµ]*)\s*$", re.ASCII)

# Ceilings. Times: 10^6 s (11.6 days) is far below the 584 years of u64 nanoseconds,
# so a start plus a delay plus a backed-off RTO cannot wrap. Rates: 1 bit/s to
# 10 Tbit/s. Sizes: below 2^53 bytes, the largest integers a JSON double holds exactly.
MAX_DURATION_S = 10**6
MAX_DURATION_NS = MAX_DURATION_S * 10**9
MIN_RATE_BPS = 1
MAX_RATE_BPS = 10**13
MAX_SIZE_BYTES = 2**53 - 1
_HUGE_EXPONENT = 100


class UnitError(ValueError):
    """A value that is not a valid duration, rate or size."""


def _split(value, what: str, example: str, units: dict) -> tuple[Decimal, int]:
    """Returns (number, multiplier) of `value`, a bare number or a string with a unit."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise UnitError(f"{_show(value)} is not a {what}; expected a string like \"{example}\"")
    if isinstance(value, (int, float)):
        number, multiplier = Decimal(repr(value)) if isinstance(value, float) else Decimal(value), 1
    else:
        m = _NUMBER_UNIT.match(value)
        if not m:
            raise UnitError(f"{_show(value)} is not a {what}; expected a number with a unit like \"{example}\"")
        try:
            number = Decimal(m.group(1))
        except InvalidOperation:  # pragma: no cover - the pattern admits only valid numbers
            raise UnitError(f"{_show(value)} is not a number; expected a {what} like \"{example}\"") from None
        unit = m.group(2)
        key = unit if unit in units else unit.lower()
        if unit == "":
            multiplier = 1
        elif key in units:
            multiplier = units[key]
        else:
            allowed = ", ".join(u for u in units if u != "µs")
            raise UnitError(f"{_show(value)} has unknown unit \"{unit}\"; allowed: {allowed} (e.g. \"{example}\")")
    if not number.is_finite():
        raise UnitError(f"{_show(value)} is not finite; expected a {what} like \"{example}\"")
    # Beyond every ceiling, or below every unit: keep Decimal arithmetic in range
    # ("1e9999999s" would overflow its exponent).
    if number and number.adjusted() > _HUGE_EXPONENT:
        number = Decimal(f"1e{_HUGE_EXPONENT}")
    elif number and number.adjusted() < -_HUGE_EXPONENT:
        number = Decimal(f"1e-{_HUGE_EXPONENT}")
    if number < 0:
        raise UnitError(f"{_show(value)} is negative; expected a positive {what} like \"{example}\"")
    return number, multiplier


def _show(value) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


def duration_ns(value) -> int:
    """ "20ms" -> 20_000_000; a bare number is seconds. At most 10^6 s."""
    number, mult = _split(value, "duration", "20ms", DURATION_UNITS)
    if isinstance(value, (int, float)) or _NUMBER_UNIT.match(value).group(2) == "":
        mult = DURATION_UNITS["s"]
    ns = number * mult
    if ns > MAX_DURATION_NS:
        raise UnitError(f"{_show(value)} is too long; allowed: at most {MAX_DURATION_S} s")
    return int(ns.to_integral_value())


def rate_bps(value, allow_zero: bool = False) -> float:
    """ "10Mbps" -> 1e7; a bare number is bits per second. 1 bit/s to 10 Tbit/s;
    zero is refused unless allowed (a capacity schedule's outage)."""
    _refuse_bytes_per_second(value)
    number, mult = _split(value, "rate", "10Mbps", RATE_UNITS)
    bps = number * mult
    if number == 0 and allow_zero:
        return 0.0
    if number == 0:
        raise UnitError(f"{_show(value)} is zero; expected a positive rate like \"10Mbps\"")
    if bps < MIN_RATE_BPS:
        raise UnitError(f"{_show(value)} is too low; allowed: at least 1 bit/s")
    if bps > MAX_RATE_BPS:
        raise UnitError(f"{_show(value)} is too high; allowed: at most 10 Tbit/s")
    return float(bps)


def _refuse_bytes_per_second(value) -> None:
    """ "10MBps" is megabytes per second to many readers: not taken as megabits."""
    m = _NUMBER_UNIT.match(value) if isinstance(value, str) else None
    if m and m.group(2).lower().endswith("bps") and "B" in m.group(2)[-3:]:
        raise UnitError(f"{_show(value)} has unit \"{m.group(2)}\": B is bytes; rates are in bits per second "
                        "(bps, kbps, Mbps, Gbps, Tbps), e.g. \"10Mbps\"")


def size_bytes(value) -> int:
    """ "64KB" -> 64000, "1MiB" -> 1048576; a bare number is bytes. Below 2^53 bytes."""
    number, mult = _split(value, "size", "64KB", SIZE_UNITS)
    total = number * mult
    if total > MAX_SIZE_BYTES:
        raise UnitError(f"{_show(value)} is too large; allowed: below 2^53 bytes (9 PB)")
    if total != total.to_integral_value():
        raise UnitError(f"{_show(value)} is not a whole number of bytes; expected a size like \"64KB\"")
    return int(total)


# Canonical parameter names carry their unit as a suffix, which the user's name
# drops: `target_ns` is written `target = "5ms"` (see `_core.kinds()`).
_UNIT_SUFFIX = {"duration": "_ns", "rate": "_bps", "size": "_bytes"}


def user_name(param: dict) -> str:
    """The scenario's name of a registered member's parameter (`{name, unit}`, and
    `user_name` where the entry gives one): the name less its unit's suffix (a
    distribution's or list's: its values' unit)."""
    if param.get("user_name"):
        return param["user_name"]
    suffix = _UNIT_SUFFIX.get(param.get("of") or param["unit"], "")
    name = param["name"]
    return name[: -len(suffix)] if suffix and name.endswith(suffix) and len(name) > len(suffix) else name
