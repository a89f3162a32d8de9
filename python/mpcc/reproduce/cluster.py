"""Runs on a Dask cluster (`--dask tcp://scheduler:8786`) instead of local cores.

Each run is one task calling the same worker function as the local pool
(`runner.run_one`), which simulates and writes the result into the cache; the
results are therefore identical to a local run. The workers must see the cache
folder, the scenario's input files and the mpcc package at the same paths as the
submitting machine: a shared file system, as on a typical cluster (docs/sweeps.md).
A worker waits for the lock of a run another process is computing, then finds it
cached.
"""

from __future__ import annotations

import sys

from .cache import RunCache
from .progress import Progress
from .runner import COMPUTED, RunStats, _label, run_one


def execute_on_dask(specs: list, cache: RunCache, version: str, address: str, label: str = "sweep",
                    max_memory: int | None = None) -> RunStats:
    try:
        from distributed import Client, as_completed
    except ImportError:  # pragma: no cover - a dependency of mpcc
        sys.exit("mpcc: error: --dask needs the 'distributed' package (pip install distributed)")
    cache.root.mkdir(parents=True, exist_ok=True)
    unique = list({s.key: s for s in specs}.values())
    todo = [s for s in unique if not cache.has(s.key)]
    tasks = [(s.scenario, s.base_dir, s.seed, s.key, str(cache.root.resolve()), version, _label(s), max_memory, True)
             for s in todo]
    progress = Progress(label, len(unique), len(unique) - len(todo))
    computed = 0
    try:
        with Client(address, timeout="30s") as client:
            futures = client.map(run_one, tasks, pure=False)
            try:
                for future in as_completed(futures):
                    _, status = future.result()
                    computed += status == COMPUTED
                    progress.advance()
            except BaseException:
                client.cancel(futures)
                raise
    finally:
        progress.close()
    return RunStats(len(unique), len(unique) - computed, computed)
