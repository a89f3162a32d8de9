"""Delay elements of an MPTCP connection carrying a constant-rate stream.

Chapter 2 of the thesis (Eqs. 2.1-2.9): M/M/1 send buffer, closed-queueing-network
RTT, one-way network delay bound, reordering, loss recovery and their sum.
Chapter 3 (Eqs. 3.1-3.4): the G/M/1 (Kingman) send buffer, the forward network
delay with the propagation delay as the only fixed part, and the delay bound that
(3.10) minimises.

Units: rates (f, x, c) in packets/s, windows in packets, times in seconds;
`hops` (M_s) is the number of queues on the path, >= 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _check


def _subflows(x, c, delay, hops, delay_name="rtt_min"):
    """Per-subflow arrays of rates, capacities, fixed delays and hop counts."""
    c = _check.vector("c", c, minimum=0.0, strict=True, unit="packets/s")
    n = c.size
    x = _check.vector("x", x, n=n, unit="packets/s")
    delay = _check.vector(delay_name, delay, n=n, unit="s")
    hops = _check.vector("hops", hops, n=n, minimum=1.0)
    for i in range(n):
        if x[i] >= c[i]:
            raise _check.fail(f"x[{i}]", x[i], f"is not below the capacity c[{i}] = {c[i]:g} packets/s",
                              "0 <= x < c (the delay grows without bound as x approaches c)")
    return x, c, delay, hops


def _scalar_subflow(x, c, delay, hops, delay_name):
    """The checks of _subflows for one subflow given as scalars, naming the scalars."""
    x = _check.nonnegative("x", x, "packets/s")
    c = _check.positive("c", c, "packets/s")
    delay = _check.nonnegative(delay_name, delay, "s")
    hops = _check.number("hops", hops, minimum=1.0)
    if x >= c:
        raise _check.fail("x", x, f"is not below the capacity c = {c:g} packets/s",
                          "0 <= x < c (the delay grows without bound as x approaches c)")
    return np.array([x]), np.array([c]), np.array([delay]), np.array([hops])


def _service_rates(f, x):
    f = _check.nonnegative("f", f, "packets/s")
    x = _check.vector("x", x, unit="packets/s")
    total = float(x.sum())
    if total <= f:
        raise _check.fail("f", f, f"is not below the sum of the subflow rates ({total:g} packets/s)",
                          "f < sum(x): otherwise the send buffer grows without bound")
    return f, total


# --- Chapter 2 ------------------------------------------------------------------


def send_buffer_delay(f, x) -> float:
    """Eq. 2.1: mean time a packet spends in the send buffer, 1 / (sum x - f).

    M/M/1 sojourn time (waiting plus service) with Poisson arrivals at the
    application rate `f` and service at the sum of the subflow rates `x`
    (packets/s). Valid for 0 <= f < sum(x). Seconds.
    """
    f, total = _service_rates(f, x)
    return 1.0 / (total - f)


def expected_rtt(w, c, rtt_min, hops=1) -> float:
    """Eq. 2.2: mean RTT of a window of `w` packets on an M-hop closed queueing path,
    RTT_min + (w + M - 1) / c. Seconds; w >= 0, c > 0 packets/s."""
    w = _check.nonnegative("w", w, "packets")
    c = _check.positive("c", c, "packets/s")
    rtt_min = _check.nonnegative("rtt_min", rtt_min, "s")
    hops = _check.number("hops", hops, minimum=1.0)
    return rtt_min + (w + hops - 1.0) / c


def window_rate(w, c, rtt_min, hops=1) -> float:
    """Eq. 2.3: rate a window of `w` packets sustains, w / E[RTT] =
    w c / (w + M - 1 + c RTT_min). Packets/s; tends to c as w grows."""
    return _check.nonnegative("w", w, "packets") / expected_rtt(w, c, rtt_min, hops)


def network_delay(x, c, rtt_min, hops=1) -> float:
    """Eq. 2.4: bound on the mean one-way network delay of a subflow sending at x,
    (M - 1 + c RTT_min) / (2 (c - x)): half the RTT of (2.2) when the window is
    just large enough for rate x. Seconds; valid for 0 <= x < c."""
    x, c, rtt_min, hops = _scalar_subflow(x, c, rtt_min, hops, "rtt_min")
    return float(_network_delays(x, c, rtt_min, hops)[0])


def _network_delays(x, c, rtt_min, hops):
    return (hops - 1.0 + c * rtt_min) / (2.0 * (c - x))


def reordering_delays(net_delays) -> np.ndarray:
    """Eq. 2.5 (and 3.3): per subflow, the wait in the reordering buffer,
    max_i d_i - d_s, from the subflows' one-way network delays (seconds)."""
    d = _check.vector("net_delays", net_delays, unit="s")
    return d.max() - d


def loss_recovery_delay(rtts, loss_probs) -> float:
    """Eq. 2.6: added delay of fast-retransmit loss recovery, sum_s RTT_s p_s.
    `rtts` in seconds, `loss_probs` packet loss probabilities in [0, 1]."""
    rtts = _check.vector("rtts", rtts, unit="s")
    p = _loss_probs(loss_probs, rtts.size)
    return float(np.dot(rtts, p))


def _loss_probs(loss_probs, n):
    p = _check.vector("loss_probs", loss_probs, n=n)
    for i, v in enumerate(p):
        _check.probability(f"loss_probs[{i}]", v)
    return p


def loss_recovery_delay_at_rates(x, c, rtt_min, loss_probs, hops=1) -> float:
    """Eq. 2.7: (2.6) with each RTT taken from (2.4) as twice the one-way bound,
    sum_s (M_s - 1 + c_s RTT_min,s) / (c_s - x_s) p_s. Seconds; 0 <= x_s < c_s."""
    x, c, rtt_min, hops = _subflows(x, c, rtt_min, hops)
    p = _loss_probs(loss_probs, c.size)
    return float(np.dot(2.0 * _network_delays(x, c, rtt_min, hops), p))


@dataclass(frozen=True)
class DelayBound:
    """The terms of the application-level delay bound (2.8)/(2.9), in seconds."""

    send: float  # (2.1)
    network: np.ndarray  # (2.4) per subflow
    reordering: np.ndarray  # (2.5) per subflow
    loss: float  # (2.7)
    total: float  # (2.9): send + max(network) + loss


def app_delay_bound(f, x, c, rtt_min, loss_probs=0.0, hops=1) -> DelayBound:
    """Eq. 2.9: upper bound on the mean application-level delay,
    1/(sum x - f) + max_s (M_s - 1 + c_s RTT_min,s) / (2 (c_s - x_s)) + (2.7).

    The worst subflow's network plus reordering delay is the largest network delay
    (2.8). Rates in packets/s; valid for f < sum(x) and 0 <= x_s < c_s.
    """
    x, c, rtt_min, hops = _subflows(x, c, rtt_min, hops)
    send = send_buffer_delay(f, x)
    net = _network_delays(x, c, rtt_min, hops)
    loss = float(np.dot(2.0 * net, _loss_probs(loss_probs, c.size)))
    return DelayBound(send, net, net.max() - net, loss, send + float(net.max()) + loss)


# --- Chapter 3 ------------------------------------------------------------------


def send_buffer_delay_gm1(f, x, ca=1.0) -> float:
    """Eq. 3.1: Kingman's bound on the mean wait in the send buffer,
    (f / sum x) / (sum x - f) (1 + C_a^2) / 2, for arrivals at mean rate f with
    coefficient of variation `ca` (1 for Poisson) and exponential service at sum x.
    Seconds; valid for 0 <= f < sum(x). With ca = 1 it is the M/M/1 waiting time,
    i.e. (2.1) less one service time."""
    f, total = _service_rates(f, x)
    ca = _check.nonnegative("ca", ca)
    return (f / total) / (total - f) * (1.0 + ca * ca) / 2.0


def forward_delay(x, c, t_p) -> float:
    """Eq. 3.2: mean forward network delay of a subflow at rate x,
    c T_p / (c - x) - T_p / 2: the closed-loop RTT c T_p / (c - x) less the half
    of the propagation RTT T_p spent on the way back. Seconds; 0 <= x < c."""
    x, c, t_p, _ = _scalar_subflow(x, c, t_p, 1, "t_p")
    return float(_forward_delays(x, c, t_p)[0])


def _forward_delays(x, c, t_p):
    return c * t_p / (c - x) - t_p / 2.0


def streaming_delay_bound(f, x, c, t_p, ca=1.0) -> float:
    """Eq. 3.4: application-level delay bound T^s + max_r T^n_r, the objective of
    (3.10); the maximum runs over the subflows with a non-zero rate (the set R).
    Seconds; valid for f < sum(x), 0 <= x_r < c_r and at least one x_r > 0."""
    x, c, t_p, _ = _subflows(x, c, t_p, 1, "t_p")
    send = send_buffer_delay_gm1(f, x, ca)
    return send + float(_forward_delays(x, c, t_p)[x > 0].max())
