"""Subflow rates of an MPTCP-LIA connection under time-varying RTT, thesis chapter 3,
Eqs. 3.11-3.19.

Each subflow r has its own bottleneck (capacity c_r, propagation RTT T_p,r) and
halves its window at W_loss,r. LIA (3.11) raises w_r per ACK by
min(a / w_tot, 1 / w_r); per RTT that is alpha_r = min(1, w_r max_i(w_i/T_i^2) /
(sum_i w_i/T_i)^2) packets (3.13). The thesis holds every other subflow i at its
mean rate x_i and mean RTT T_i (3.14-3.15), so that one subflow's window follows a
one-dimensional law through the two phases of (3.5):

    alpha_r(w) = min(1, w max(k_r(w), K_r) / (w / T_r(w) + X_r)^2)     (3.13)
    k_r(w) = w / T_r(w)^2,   K_r = max_{i != r} x_i / T_i

With b_rule="fixed" the maximum is settled once per iteration by the subflow b
with the largest x_i / T_i, which gives the thesis's two cases literally:

    r != b:  alpha_r(w) = w (x_b / T_b) / (w / T_r(w) + X_r)^2        (3.16)
    r == b:  alpha_b(w) = (w / T_b(w))^2 / (w / T_b(w) + X_b)^2       (3.17)

With b_rule="pointwise" (the default) the maximum is taken at every window, as
LIA does; the two agree whenever one subflow dominates (the thesis's assumption),
and "pointwise" also converges when none does (e.g. identical subflows, where
"fixed" flips b every iteration).

X_r is the sum of the other subflows' mean rates; w / T_r(w) is w / T_p,r in
phase 1 and c_r in phase 2. The window grows at alpha / T(w) packets per second,
so a phase lasts tau = integral of T(w) / alpha(w) dw, and the subflow's mean
rate is what it sent over the cycle divided by the cycle's length (3.18-3.19,
read as in 3.7: phase 1 sends integral of w / alpha dw, phase 2 sends at c_r).
The subflows' rates are iterated to a fixed point. With one subflow alpha = 1 and
the result is the single-flow rate (3.9).

Units: c in packets/s, T_p in seconds, windows in packets, rates in packets/s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _check
from .rate import RENO_BETA, _beta, reno_cycle

# Composite Gauss-Legendre rule on [0, 1]: 8 panels of 16 nodes. The integrands are
# smooth apart from a kink where LIA's cap alpha <= 1 starts to bind.
_PANELS, _ORDER = 8, 16
_g, _gw = np.polynomial.legendre.leggauss(_ORDER)
_NODES = ((np.arange(_PANELS)[:, None] + (_g[None, :] + 1.0) / 2.0) / _PANELS).ravel()
_WEIGHTS = np.tile(_gw / (2.0 * _PANELS), _PANELS)


@dataclass(frozen=True)
class SubflowCycle:
    """One subflow's loss cycle under LIA (times in s, rates in packets/s)."""

    tau1: float  # constant-RTT phase duration
    tau2: float  # linear-RTT phase duration
    x1: float  # mean rate in phase 1 (nan if the phase is empty)
    x2: float  # mean rate in phase 2: c_r
    rate: float  # mean rate over the cycle
    mean_rtt: float  # time average of the RTT (3.5)


@dataclass(frozen=True)
class LiaRates:
    """The fixed point of the LIA analysis."""

    rates: np.ndarray  # mean rate per subflow, packets/s
    mean_rtt: np.ndarray  # time-averaged RTT per subflow, s
    best: int  # b: the subflow with the largest x / T
    cycles: list[SubflowCycle]
    iterations: int
    converged: bool


def _subflow_cycle(r, c, t_p, w_loss, beta, rates, rtts, best, fixed_best) -> SubflowCycle:
    """Integrates subflow r's window over one cycle with the others held at `rates`."""
    cr, tp, wl = c[r], t_p[r], w_loss[r]
    others = rates.sum() - rates[r]
    k_others = max((rates[i] / rtts[i] for i in range(c.size) if i != r), default=0.0)

    def alpha(w, inst_rate):
        k_own = inst_rate * inst_rate / w  # w / T^2
        if fixed_best:
            k = k_own if r == best else k_others
        else:
            k = np.maximum(k_own, k_others)
        return np.minimum(w * k / (inst_rate + others) ** 2, 1.0)

    w_bdp = cr * tp
    lo = beta * wl
    tau1 = sent1 = tau2 = rtt_time2 = 0.0
    if min(wl, w_bdp) > lo:  # phase 1: RTT = T_p, dt = T_p / alpha dw
        a, b = lo, min(wl, w_bdp)
        w = a + (b - a) * _NODES
        inv = (b - a) * _WEIGHTS / alpha(w, w / tp)
        tau1 = tp * inv.sum()
        sent1 = float(np.dot(w, inv))
    if wl > max(lo, w_bdp):  # phase 2: RTT = w / c, dt = (w / c) / alpha dw, rate c
        a, b = max(lo, w_bdp), wl
        w = a + (b - a) * _NODES
        inv = (b - a) * _WEIGHTS / alpha(w, cr)
        tau2 = float(np.dot(w / cr, inv))
        rtt_time2 = float(np.dot((w / cr) ** 2, inv))
    total = tau1 + tau2
    x1 = sent1 / tau1 if tau1 > 0 else float("nan")
    return SubflowCycle(tau1, tau2, x1, cr, (sent1 + cr * tau2) / total, (tp * tau1 + rtt_time2) / total)


def lia_rates(c, t_p, w_loss, beta=RENO_BETA, b_rule="pointwise", tol=1e-7, max_iter=500, damping=0.5,
              initial=None) -> LiaRates:
    """Eqs. 3.11-3.19: mean rate of each subflow of an LIA connection.

    `c` (packets/s, > 0), `t_p` (s, > 0) and `w_loss` (packets, > 0) give one
    entry per subflow, one or more subflows on disjoint bottlenecks; a scalar
    applies to every subflow. Any w_loss > 0 is accepted: a phase the window
    never enters is empty (see rate.reno_cycle). The fixed point starts from each
    subflow's uncoupled Reno rate (or `initial`, packets/s) and moves by `damping`
    of each step until no rate changes by more than `tol` c_r; `converged` says
    whether it got there within `max_iter` steps. `b_rule`: "pointwise" or
    "fixed", see the module's docstring.
    """
    c = _check.vector("c", c, strict=True, unit="packets/s")
    n = c.size
    t_p = _check.vector("t_p", t_p, n=n, strict=True, unit="s")
    w_loss = _check.vector("w_loss", w_loss, n=n, strict=True, unit="packets")
    beta = _beta(beta)
    if b_rule not in ("pointwise", "fixed"):
        raise _check.fail("b_rule", b_rule, "is unknown", '"pointwise" or "fixed"')
    tol = _check.positive("tol", tol)
    damping = _check.positive("damping", damping)
    if damping > 1:
        raise _check.fail("damping", damping, "is above 1", "a step fraction in (0, 1]")

    reno = [reno_cycle(c[r], t_p[r], w_loss[r], beta) for r in range(n)]
    rates = np.array([cy.rate for cy in reno])
    rtts = np.array([cy.mean_rtt for cy in reno])
    if initial is not None:
        rates = _check.vector("initial", initial, n=n, strict=True, unit="packets/s")
    cycles = reno
    for it in range(1, int(max_iter) + 1):
        best = int(np.argmax(rates / rtts))
        cycles = [_subflow_cycle(r, c, t_p, w_loss, beta, rates, rtts, best, b_rule == "fixed") for r in range(n)]
        new_rates = np.array([cy.rate for cy in cycles])
        new_rtts = np.array([cy.mean_rtt for cy in cycles])
        change = float(np.max(np.abs(new_rates - rates) / c))
        rates = rates + damping * (new_rates - rates)
        rtts = rtts + damping * (new_rtts - rtts)
        if change < tol:
            return LiaRates(new_rates, new_rtts, best, cycles, it, True)
    return LiaRates(rates, rtts, int(np.argmax(rates / rtts)), cycles, int(max_iter), False)
