"""mpcc: a multipath congestion-control lab.

    import mpcc
    result = mpcc.run("scenarios/demo.toml", out="results/demo")
    result.flows            # one row per flow (throughput_bps, rtt_mean_s, ...)
    result.flow_series      # time series, one row per (time, flow, subflow)
    result.subflows         # one row per subflow (flow, subflow): path, throughput_bps, ...
    mpcc.fairness(result, ["a", "b"])   # Jain's index of goodput over chosen flows

The schema (pydantic) is imported on first use, so `mpcc list` stays fast; heavy
modules (pandas, matplotlib) are imported only when results are built or drawn.
"""

from .fairness import fairness, jain
from .run import Result, SimulationError, algorithms, kinds, receivers, run, schedulers

__all__ = ["Scenario", "ScenarioError", "load_scenario", "Result", "SimulationError", "run", "algorithms", "schedulers", "receivers", "kinds", "fairness", "jain"]
__version__ = "0.1.0"

_LAZY = {
    "Scenario": ("scenario", "Scenario"),
    "ScenarioError": ("scenario", "ScenarioError"),
    "load_scenario": ("scenario", "load"),
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(f".{module}", __name__), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'mpcc' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + __all__)
