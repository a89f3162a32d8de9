"""The time-varying-RTT model of one Reno (AIMD) flow, thesis chapter 3, Eqs. 3.5-3.9.

A flow with window w on a path of capacity c and propagation RTT T_p has RTT
max(T_p, w/c) (3.5). Between losses its window climbs from beta W_loss to W_loss,
one packet per RTT: at constant RTT T_p while w <= W_BDP = c T_p (phase 1), then
with RTT w/c (phase 2), where it sends at exactly c. W_loss is the window at which
a packet is lost: W_BDP plus the buffer (plus the packet being transmitted).

The sums over windows of (3.6) and (3.8) are taken as integrals (the fluid limit),
as the thesis does to reach (3.9); the printed (3.8) keeps a "+1" of the discrete
sum that (3.9) drops.

Units: c in packets/s, windows in packets, times in seconds; rates come out in
the unit of c.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _check

RENO_BETA = 0.5


def rtt(w, c, t_p):
    """Eq. 3.5: RTT of a window of w packets, T_p + max(0, w - c T_p)/c = max(T_p, w/c).
    Seconds; `w` may be an array (w >= 0), c > 0 packets/s, t_p > 0 seconds."""
    c = _check.positive("c", c, "packets/s")
    t_p = _check.positive("t_p", t_p, "s")
    w = np.asarray(w, dtype=float)
    if np.any(~np.isfinite(w)) or np.any(w < 0):
        raise _check.fail("w", w, "has a negative or non-finite entry", "windows >= 0 packets")
    out = np.maximum(t_p, w / c)
    return float(out) if out.ndim == 0 else out


def bdp(c, t_p) -> float:
    """W_BDP = c T_p, the window at which the bottleneck queue starts to build. Packets."""
    return _check.positive("c", c, "packets/s") * _check.positive("t_p", t_p, "s")


@dataclass(frozen=True)
class Cycle:
    """One loss cycle of the window, Eqs. 3.6-3.8 (times in s, rates in packets/s)."""

    tau1: float  # duration of the constant-RTT phase (3.6)
    tau2: float  # duration of the linear-RTT phase (3.6)
    x1: float  # mean rate in phase 1 (3.8), (W_BDP + beta W_loss) / (2 T_p)
    x2: float  # mean rate in phase 2 (3.8): c
    rate: float  # (3.7): time-weighted mean of x1 and x2
    mean_rtt: float  # time average of (3.5) over the cycle


def reno_cycle(c, t_p, w_loss, beta=RENO_BETA) -> Cycle:
    """Eqs. 3.6-3.8: the two phases of a Reno flow's loss cycle and its mean rate.

    tau1 = T_p (W_BDP - beta W_loss), tau2 = (W_loss^2 - W_BDP^2) / (2c),
    x1 = (W_BDP + beta W_loss) / (2 T_p), x2 = c, rate = (tau1 x1 + tau2 x2)/(tau1 + tau2).

    Defined for any w_loss > 0: when beta W_loss >= W_BDP phase 1 is empty (the
    rate is c); when W_loss <= W_BDP phase 2 is empty (the window never fills the
    pipe and the rate is the mean window over T_p). 0 < beta < 1.
    """
    c = _check.positive("c", c, "packets/s")
    t_p = _check.positive("t_p", t_p, "s")
    w_loss = _check.positive("w_loss", w_loss, "packets")
    beta = _beta(beta)
    w_bdp = c * t_p
    lo, hi = beta * w_loss, w_loss
    a, b = lo, min(hi, w_bdp)  # phase 1 window range
    tau1 = t_p * (b - a) if b > a else 0.0
    sent1 = (b * b - a * a) / 2.0 if b > a else 0.0  # packets: integral of w dw / T_p * T_p
    a2 = max(lo, w_bdp)  # phase 2 window range [a2, hi]
    tau2 = (hi * hi - a2 * a2) / (2.0 * c) if hi > a2 else 0.0
    rtt_time2 = (hi ** 3 - a2 ** 3) / (3.0 * c * c) if hi > a2 else 0.0  # integral of T dt
    total = tau1 + tau2
    x1 = sent1 / tau1 if tau1 > 0 else float("nan")
    return Cycle(tau1, tau2, x1, c, (sent1 + c * tau2) / total, (t_p * tau1 + rtt_time2) / total)


def _beta(beta) -> float:
    beta = _check.positive("beta", beta)
    if beta >= 1:
        raise _check.fail("beta", beta, "is not below 1", "a multiplicative decrease factor in (0, 1)")
    return beta


def single_flow_rate_ratio(r, beta=RENO_BETA) -> float:
    """Eq. 3.9 as x / c in terms of r = W_BDP / W_loss:
    (1 - beta^2) / (1 - 2 beta r + r^2), which for Reno (beta = 1/2) is
    (3/4) / (1 - r + r^2).

    Valid for beta <= r <= 1 (beta W_loss <= W_BDP <= W_loss, the thesis's
    condition): 1 at r = beta, 3/4 at r = 1 for Reno, decreasing in between.
    For 0 < r < beta the window never drops below the BDP and the ratio is 1.
    r > 1 (a loss window below the BDP) is outside the formula: ValueError.
    """
    r = _check.positive("r", r)
    beta = _beta(beta)
    if r > 1.0:
        raise _check.fail("r", r, "is above 1 (W_loss below W_BDP)",
                          "0 < r <= 1; reno_cycle covers a loss window under the BDP")
    if r <= beta:
        return 1.0
    return (1.0 - beta * beta) / (1.0 - 2.0 * beta * r + r * r)


def single_flow_rate(c, t_p, w_loss, beta=RENO_BETA) -> float:
    """Eq. 3.9: mean rate of one Reno flow, x = (3/4) c / (1 - r + r^2) with
    r = W_BDP / W_loss = c T_p / W_loss (general beta: see single_flow_rate_ratio).

    c in packets/s, t_p in seconds, w_loss in packets (W_BDP + buffer); the
    rate is in packets/s. Valid for W_BDP <= W_loss; for W_loss > W_BDP / beta
    (r < beta, a buffer above (1/beta - 1) BDP) the rate is c.
    """
    c = _check.positive("c", c, "packets/s")
    r = bdp(c, t_p) / _check.positive("w_loss", w_loss, "packets")
    if r > 1.0:
        raise _check.fail("w_loss", w_loss, f"is below W_BDP = c t_p = {c * t_p:g} packets",
                          "w_loss >= W_BDP for (3.9); reno_cycle covers smaller loss windows")
    return c * single_flow_rate_ratio(r, beta)
