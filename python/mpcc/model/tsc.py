"""The per-time-slot quantities of MPTCP with traffic split control (TSC), thesis
chapter 2, Eqs. 2.12-2.17: estimates of the application rate and of each
subflow's capacity, the rate cap from the network-delay threshold, the total rate
the send-buffer threshold needs, and the greedy cheapest-first allocation.

Units: rates in packets/s, backlogs in packets, times in seconds; a subflow's
cost coefficient is per unit of rate (its total cost is sum a_s x_s).
The simulator's TSC controller calls or mirrors these functions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _check


def estimate_app_rate(backlog, next_backlog, dt, rates) -> float:
    """Eq. 2.12: the application rate of the last slot, (b_{k+1} - b_k) / dt + sum_s x_s:
    what entered the send buffer is what it grew by plus what the subflows took.
    Backlogs in packets, dt > 0 in seconds, `rates` the subflow rates of the slot."""
    b0 = _check.nonnegative("backlog", backlog, "packets")
    b1 = _check.nonnegative("next_backlog", next_backlog, "packets")
    dt = _check.positive("dt", dt, "s")
    x = _check.vector("rates", rates, unit="packets/s")
    return (b1 - b0) / dt + float(x.sum())


def estimate_capacity(x, rtt, rtt_min, hops=1) -> float:
    """Eq. 2.13: the bottleneck capacity implied by a subflow's rate and RTT,
    (x RTT + M - 1) / (RTT - RTT_min): (2.4) with RTT = 2 d_net solved for c.
    Packets/s; needs rtt > rtt_min (without queueing the capacity is not observable)."""
    x = _check.nonnegative("x", x, "packets/s")
    rtt = _check.positive("rtt", rtt, "s")
    rtt_min = _check.nonnegative("rtt_min", rtt_min, "s")
    hops = _check.number("hops", hops, minimum=1.0)
    if rtt <= rtt_min:
        raise _check.fail("rtt", rtt, f"is not above rtt_min = {rtt_min:g} s",
                          "rtt > rtt_min: without queueing (2.13) cannot see the capacity")
    return (x * rtt + hops - 1.0) / (rtt - rtt_min)


def rate_cap(c, rtt_min, d_net, hops=1) -> float:
    """Eq. 2.15: the largest rate whose network delay (2.4) stays within d_net,
    x_bar = c - (M - 1 + c RTT_min) / (2 d_net). Packets/s, never below 0: a
    threshold under the path's own minimum one-way delay (M - 1)/(2c) + RTT_min/2
    leaves the subflow no rate at all."""
    c = _check.positive("c", c, "packets/s")
    rtt_min = _check.nonnegative("rtt_min", rtt_min, "s")
    d_net = _check.positive("d_net", d_net, "s")
    hops = _check.number("hops", hops, minimum=1.0)
    return max(0.0, c - (hops - 1.0 + c * rtt_min) / (2.0 * d_net))


def total_rate(f, d_send) -> float:
    """Eq. 2.16: the total rate T = f + 1/d_send that keeps the M/M/1 send-buffer
    delay (2.1) at d_send. Packets/s; f >= 0, d_send > 0 seconds."""
    return _check.nonnegative("f", f, "packets/s") + 1.0 / _check.positive("d_send", d_send, "s")


@dataclass(frozen=True)
class Allocation:
    """The outcome of one slot's greedy allocation (2.17)."""

    rates: np.ndarray  # x_s, packets/s, in the order the subflows were given
    caps: np.ndarray  # the bound of (2.14) each subflow had: x_cw, or min(x_cw, x_bar)
    order: list[int]  # the subflows visited, cheapest first
    demand: float  # T of (2.16)
    unmet: float  # the part of T no subflow could take (0 when feasible)
    cost: float  # sum_s a_s x_s

    @property
    def feasible(self) -> bool:
        """True when the subflows carry T, i.e. both delay thresholds can be met."""
        return self.unmet <= 0.0


def allocate(f, d_send, d_net, costs, c, rtt_min, x_cw, slow_start=False, x_min=0.0, hops=1) -> Allocation:
    """Eqs. 2.14 and 2.17: one slot of TSC's greedy cheapest-first split.

    T = f + 1/d_send (2.16). Visiting the subflows by increasing cost a_s (ties in
    the given order), each takes min(x_bar_s, T, x_cw_s), or min(T, x_cw_s) in
    slow start, raised to x_min_s if below it, and T decreases by what it took.
    When T reaches 0 the subflows not yet visited get x_min_s (the floor of 2.14,
    so that their RTT and capacity stay measurable; the thesis's "0" is the
    default x_min = 0). If T is still positive after every subflow, the thresholds
    cannot be met and the result says so (`feasible` False, `unmet` > 0).

    Per-subflow arguments are sequences (a scalar applies to every subflow):
    `costs` >= 0, `c` > 0 and `x_cw` >= 0 in packets/s, `rtt_min` in seconds,
    `slow_start` booleans, `x_min` >= 0 in packets/s, `hops` >= 1.
    """
    a = _check.vector("costs", costs)
    n = a.size
    c = _check.vector("c", c, n=n, strict=True, unit="packets/s")
    rtt_min = _check.vector("rtt_min", rtt_min, n=n, unit="s")
    x_cw = _check.vector("x_cw", x_cw, n=n, unit="packets/s")
    x_min = _check.vector("x_min", x_min, n=n, unit="packets/s")
    hops = _check.vector("hops", hops, n=n, minimum=1.0)
    in_ss = np.broadcast_to(np.asarray(slow_start, dtype=bool), (n,)) if np.ndim(slow_start) == 0 \
        else np.asarray(slow_start, dtype=bool)
    if in_ss.shape != (n,):
        raise _check.fail("slow_start", slow_start, f"has {in_ss.size} entries", f"{n}, one per subflow")
    _check.positive("d_net", d_net, "s")
    demand = total_rate(f, d_send)

    caps = np.array([x_cw[s] if in_ss[s] else min(x_cw[s], rate_cap(c[s], rtt_min[s], d_net, hops[s]))
                     for s in range(n)])
    order = sorted(range(n), key=lambda s: a[s])
    rates = x_min.copy()
    left = demand
    for s in order:
        if left <= 0.0:
            break
        rates[s] = max(min(caps[s], left), x_min[s])
        left -= rates[s]
    return Allocation(rates, caps, order, demand, max(left, 0.0), float(np.dot(a, rates)))
