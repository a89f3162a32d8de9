"""The analytical model of MPTCP's application-level delay (Se-Yong Park's thesis,
chapters 2 and 3); docs/model.md maps every function to its equation.

Units throughout: rates in packets per second, windows and buffers in packets,
times in seconds (`units` converts from bit/s).

- `delay`: delay elements, Eqs. 2.1-2.9 and 3.1-3.4
- `tsc`: traffic split control per time slot, Eqs. 2.12-2.17
- `rate`: one Reno flow under time-varying RTT, Eqs. 3.5-3.9
- `lia`: subflow rates of an LIA connection, Eqs. 3.11-3.19
- `optimize`: the delay-minimising split (3.10) and window thresholds (3.20)
"""

from . import delay, lia, optimize, rate, tsc, units
from .delay import (
    DelayBound,
    app_delay_bound,
    expected_rtt,
    forward_delay,
    loss_recovery_delay,
    loss_recovery_delay_at_rates,
    network_delay,
    reordering_delays,
    send_buffer_delay,
    send_buffer_delay_gm1,
    streaming_delay_bound,
    window_rate,
)
from .lia import LiaRates, lia_rates
from .optimize import DelayOptimum, Thresholds, minimize_delay, window_thresholds
from .rate import Cycle, bdp, reno_cycle, rtt, single_flow_rate, single_flow_rate_ratio
from .tsc import Allocation, allocate, estimate_app_rate, estimate_capacity, rate_cap, total_rate
from .units import bits_per_second, packets_per_second

__all__ = [
    "delay", "lia", "optimize", "rate", "tsc", "units",
    "DelayBound", "app_delay_bound", "expected_rtt", "forward_delay", "loss_recovery_delay",
    "loss_recovery_delay_at_rates", "network_delay", "reordering_delays", "send_buffer_delay",
    "send_buffer_delay_gm1", "streaming_delay_bound", "window_rate",
    "LiaRates", "lia_rates",
    "DelayOptimum", "Thresholds", "minimize_delay", "window_thresholds",
    "Cycle", "bdp", "reno_cycle", "rtt", "single_flow_rate", "single_flow_rate_ratio",
    "Allocation", "allocate", "estimate_app_rate", "estimate_capacity", "rate_cap", "total_rate",
    "bits_per_second", "packets_per_second",
]
