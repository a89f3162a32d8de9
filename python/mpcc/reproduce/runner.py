"""Runs what the cache does not hold yet, in parallel on local cores.

Workers are spawned processes; each calls `mpcc.run` on one scenario and seed and
writes the result to the cache itself, so a run finished before an interruption
is kept. The main process only counts completions."""

from __future__ import annotations

import multiprocessing
import os
import signal
from dataclasses import dataclass

from .cache import RunCache, run_key
from .plan import RunSpec
from .progress import Progress


@dataclass(frozen=True)
class RunStats:
    total: int  # distinct runs the reproduction needs
    cached: int  # found in the cache
    computed: int  # simulated now


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def execute(specs: list[RunSpec], cache: RunCache, version: str, jobs: int, label: str = "runs") -> RunStats:
    cache.root.mkdir(parents=True, exist_ok=True)
    cache.remove_stale_temporaries()
    unique = list({s.key: s for s in specs}.values())
    todo = [s for s in unique if not cache.has(s.key)]
    cached = len(unique) - len(todo)
    progress = Progress(label, len(unique), cached)
    tasks = [(s.scenario, s.base_dir, s.seed, s.key, str(cache.root), version) for s in todo]
    try:
        if jobs <= 1 or len(tasks) <= 1:
            for task in tasks:
                run_one(task)
                progress.advance()
        else:
            _in_pool(tasks, jobs, progress)
    finally:
        progress.close()
    return RunStats(len(unique), cached, len(todo))


def _in_pool(tasks, jobs: int, progress: Progress) -> None:
    context = multiprocessing.get_context("spawn")
    previous = signal.getsignal(signal.SIGTERM)
    # SIGTERM leaves through the `with` below, which terminates the workers.
    signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        with context.Pool(min(jobs, len(tasks)), initializer=_ignore_sigint) as pool:
            for _ in pool.imap_unordered(run_one, tasks):
                progress.advance()
    finally:
        signal.signal(signal.SIGTERM, previous)


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def _ignore_sigint():
    # Ctrl-C reaches the whole process group; the parent stops the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_one(task) -> str:
    """Worker: simulate one scenario with one seed and store it under its key."""
    from ..run import run
    from ..scenario import Scenario

    data, base_dir, seed, key, cache_root, version = task
    result = run(Scenario.from_dict(data, base_dir), seed=seed)
    if run_key(result.config, version) != key:
        raise RuntimeError("the configuration simulated differs from the one planned")
    RunCache(cache_root).store(key, result.config, result.summary, result.tables)
    return key
