"""The delay-minimising rate split (3.10) and the window thresholds that realise it
under LIA (3.20), thesis chapter 3.

Units: rates in packets/s, T_p in seconds, windows in packets.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from scipy import optimize as sciopt

from . import _check
from .delay import _forward_delays, send_buffer_delay_gm1
from .lia import lia_rates
from .rate import RENO_BETA


@dataclass(frozen=True)
class DelayOptimum:
    """Solution of (3.10). When `feasible` is False the rates are nan and `message`
    says why."""

    feasible: bool
    rates: np.ndarray  # x*_r, packets/s
    delay: float  # the minimised bound (3.4), s
    send_delay: float  # its send-buffer term (3.1), s
    network_delay: float  # its network term max_r (3.2) over subflows with x_r > 0, s
    message: str


def _rates_at_delay(d, c, t_p):
    """The split that gives every subflow the forward delay d (3.2), or rate 0 where
    even an idle subflow's delay T_p/2 exceeds d."""
    return np.maximum(0.0, c * (1.0 - t_p / (d + t_p / 2.0)))


def minimize_delay(f, c, t_p, ca=1.0) -> DelayOptimum:
    """Eq. 3.10: the subflow rates that minimise the delay bound (3.4),

        minimise (f / S) / (S - f) (1 + C_a^2) / 2 + max_r (c_r T_p,r / (c_r - x_r) - T_p,r / 2)
        subject to S = sum x_r >= f, 0 <= x_r <= c_r,

    the maximum running over the subflows with x_r > 0 (the set R of the thesis).

    For a given sum S the maximum is least when every used subflow has the same
    forward delay D (water-filling: x_r = c_r (1 - T_p,r / (D + T_p,r / 2)), or 0
    when T_p,r / 2 >= D), so the problem is convex in S alone: scipy's bounded
    Brent method minimises it over f < S < sum c_r, inverting S(D) with brentq.

    `f` > 0 and `c` > 0 in packets/s, `t_p` > 0 in s, `ca` >= 0 the arrivals'
    coefficient of variation. f >= sum(c) is infeasible: the result says so.
    """
    f = _check.positive("f", f, "packets/s")
    c = _check.vector("c", c, strict=True, unit="packets/s")
    t_p = _check.vector("t_p", t_p, n=c.size, strict=True, unit="s")
    ca = _check.nonnegative("ca", ca)
    nan = np.full(c.size, np.nan)
    capacity = float(c.sum())
    if f >= capacity:
        return DelayOptimum(False, nan, np.inf, np.inf, np.inf,
                            f"infeasible: f = {f:g} packets/s is not below the total capacity {capacity:g} packets/s")

    d_idle = float(t_p.min()) / 2.0

    def delay_for_sum(s):
        d_hi = d_idle + float(np.dot(c, t_p)) / (capacity - s) + float(t_p.max())
        return sciopt.brentq(lambda d: _rates_at_delay(d, c, t_p).sum() - s, d_idle, d_hi, xtol=1e-14, rtol=1e-13)

    def objective(s):
        return send_buffer_delay_gm1(f, [s], ca) + delay_for_sum(s)

    gap = capacity - f
    res = sciopt.minimize_scalar(objective, bounds=(f + 1e-9 * gap, capacity - 1e-9 * gap), method="bounded",
                                 options={"xatol": 1e-10 * capacity})
    if not res.success:
        return DelayOptimum(False, nan, np.inf, np.inf, np.inf, f"solver failed: {res.message}")
    rates = _rates_at_delay(delay_for_sum(res.x), c, t_p)
    send = send_buffer_delay_gm1(f, rates, ca)
    net = float(_forward_delays(rates, c, t_p)[rates > 0].max())
    return DelayOptimum(True, rates, send + net, send, net, "optimal")


@dataclass(frozen=True)
class Thresholds:
    """Outcome of the window-threshold search (3.20). `found` is False when no
    thresholds in [W_BDP, 2 W_BDP] bring every rate within eps of its target; the
    closest ones are still given."""

    found: bool
    w_bar: np.ndarray  # W_bar_loss per subflow, packets
    rates: np.ndarray  # the LIA rates (3.11-3.19) these thresholds give, packets/s
    error: np.ndarray  # |rates - target| per subflow, packets/s
    evaluations: int  # LIA analyses run
    message: str


def window_thresholds(target, c, t_p, eps=None, beta=RENO_BETA, points=11, refinements=3,
                      b_rule="pointwise") -> Thresholds:
    """Eq. 3.20: window thresholds W_bar_loss,r in [W_BDP,r, 2 W_BDP,r] whose LIA
    rates (lia_rates, 3.11-3.19) come within eps of the target rates x*_r (e.g.
    from minimize_delay) for every subflow.

    Exhaustive search as in the thesis: every combination of `points` thresholds
    per subflow (points^n LIA analyses), keeping the combination with the least
    largest error; then `refinements` times the same search on a grid one step
    either side of the best. `target` >= 0 and `c` > 0 in packets/s, `t_p` > 0 in s,
    `eps` > 0 in packets/s (default: 1 % of each subflow's capacity).
    """
    c = _check.vector("c", c, strict=True, unit="packets/s")
    n = c.size
    target = _check.vector("target", target, n=n, unit="packets/s")
    t_p = _check.vector("t_p", t_p, n=n, strict=True, unit="s")
    eps = 0.01 * c if eps is None else _check.vector("eps", eps, n=n, strict=True, unit="packets/s")
    points = int(_check.number("points", points, minimum=2))
    refinements = int(_check.nonnegative("refinements", refinements))
    w_bdp = c * t_p
    lo, hi = w_bdp.copy(), 2.0 * w_bdp

    best = None  # (largest error relative to eps, w_bar, rates)
    evaluations = 0
    warm = None
    for _ in range(refinements + 1):
        grids = [np.linspace(lo[r], hi[r], points) for r in range(n)]
        for w_bar in itertools.product(*grids):
            w_bar = np.array(w_bar)
            res = lia_rates(c, t_p, w_bar, beta=beta, b_rule=b_rule, initial=warm)
            warm = res.rates
            evaluations += 1
            score = float(np.max(np.abs(res.rates - target) / eps))
            if best is None or score < best[0]:
                best = (score, w_bar, res.rates)
        step = (hi - lo) / (points - 1)
        lo, hi = np.maximum(best[1] - step, w_bdp), np.minimum(best[1] + step, 2.0 * w_bdp)
    score, w_bar, rates = best
    error = np.abs(rates - target)
    if score < 1.0:
        return Thresholds(True, w_bar, rates, error, evaluations, "found")
    return Thresholds(False, w_bar, rates, error, evaluations,
                      f"not found: no thresholds in [W_BDP, 2 W_BDP] bring every rate within eps; "
                      f"the closest leave errors {np.round(error, 3).tolist()} packets/s")
