"""mpcc: a multipath congestion-control lab.

    import mpcc
    result = mpcc.run("scenarios/demo.toml", out="results/demo")
    result.flows            # one row per flow (throughput_bps, rtt_mean_s, ...)
    result.flow_series      # time series, one row per (time, flow)

Heavy modules (pandas, matplotlib) are imported only when needed.
"""

from .scenario import Scenario, ScenarioError, load as load_scenario
from .run import Result, run, algorithms

__all__ = ["Scenario", "ScenarioError", "load_scenario", "Result", "run", "algorithms"]
__version__ = "0.1.0"
