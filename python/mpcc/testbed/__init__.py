"""The same scenario on the real Linux kernel: hosts in network namespaces, the
scenario's links emulated in userspace (crates/mpcc-emu), real MPTCP and TCP
sockets, results written as the simulator writes them (docs/testbed.md).

    result = mpcc.testbed.run("scenarios/multipath_demo.toml", out="results/tb")

`plan.plan_for` checks a scenario and refuses what the testbed cannot build; `Network`
builds and tears down; `measure` turns raw measurements into results.
"""

from __future__ import annotations

import os
import platform
import shutil
import tempfile
import time
from pathlib import Path

__all__ = ["Network", "TestbedError", "check", "leftovers", "missing_requirement", "plan_for", "run"]

# Imported on first use, so that `mpcc` commands other than the testbed's start fast.
_LAZY = {"Network": "network", "TestbedError": "network", "emulator_binary": "network", "leftovers": "network",
         "plan_for": "plan"}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def missing_requirement() -> str | None:
    """What this machine lacks to run the testbed, as one phrase, or None."""
    from .network import emulator_binary

    if os.geteuid() != 0:
        return "root is required to create network namespaces and TUN devices"
    if not Path("/dev/net/tun").exists():
        return "the kernel has no TUN device (/dev/net/tun is missing)"
    try:
        if Path("/proc/sys/net/mptcp/enabled").read_text().strip() != "1":
            return "MPTCP is disabled (net.mptcp.enabled is not 1)"
    except OSError:
        return "the kernel has no MPTCP (net.mptcp.enabled is missing)"
    if not shutil.which("ip"):
        return "the ip command (iproute2) is not installed"
    if not emulator_binary().exists():
        return f"the link emulator is not built ({emulator_binary()}; `cargo build --release -p mpcc-emu`)"
    return None


def check(scenario):
    """Loads a scenario (path, TOML text or Scenario) and returns its testbed plan;
    raises ValueError with one line per problem."""
    from ..scenario import Scenario, load
    from .plan import plan_for

    sc = scenario if isinstance(scenario, Scenario) else load(scenario)
    return plan_for(sc)


def run(scenario, out=None, force: bool = False, plots: bool = True, progress=None, keep_raw=None):
    """Runs a scenario on the testbed; returns an mpcc.run.Result (saved to `out`
    if given). `keep_raw`: a folder to keep the raw measurements in."""
    from ..run import Result
    from ..scenario import Scenario, load
    from .measure import results
    from .network import Network, TestbedError
    from .plan import plan_for

    sc = scenario if isinstance(scenario, Scenario) else load(scenario)
    p = plan_for(sc)
    if out is not None:
        from ..output import check_replaceable

        if Path(out).exists():
            check_replaceable(out, force, flag="--force")
    missing = missing_requirement()
    if missing:
        raise TestbedError(f"the testbed cannot run here: {missing}")
    if p.config.get("pcap", {}).get("flows") and not (shutil.which("dumpcap") and shutil.which("editcap")):
        raise TestbedError("pcap.flows: the testbed captures with dumpcap and editcap (Debian package "
                           "wireshark-common; `make tshark` installs it), which are not installed")
    work = Path(keep_raw) if keep_raw else Path(tempfile.mkdtemp(prefix="mpcc-testbed-"))
    started = time.monotonic()
    try:
        with Network(p, work) as net:
            raw = net.run(progress)
        raw["kernel"] = platform.release()
        summary, tables = results(p, raw, time.monotonic() - started)
    finally:
        if not keep_raw:
            shutil.rmtree(work, ignore_errors=True)
    result = Result(sc, p.config, summary, tables, raw.get("pcaps"))
    if out is not None:
        result.save(out, plots=plots, force=force)
    return result
