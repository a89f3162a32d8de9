"""Runs what the cache does not hold yet, in parallel on local cores.

Workers are spawned processes; each calls `mpcc.run` on one scenario and seed and
writes the result to the cache itself, so a run finished before an interruption
is kept. The main process only counts completions.

Several reproductions may share one cache: a worker computes a run only while it
holds the entry's lock, and a run another process is computing is put off to a
second round that waits for that lock (and then finds the run cached)."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import warnings
from dataclasses import dataclass

from .cache import RunCache, run_key
from .plan import RunSpec
from .progress import Progress


@dataclass(frozen=True)
class RunStats:
    total: int  # distinct runs the reproduction needs
    cached: int  # found in the cache (or computed meanwhile by another process)
    computed: int  # simulated now, by this process


class StoppedEarly(Exception):
    """A run reached the memory limit; it is not cached and no report is written."""


COMPUTED, CACHED, BUSY = "computed", "cached", "busy"


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def execute(specs: list[RunSpec], cache: RunCache, version: str, jobs: int, label: str = "runs",
            max_memory: int | None = None) -> RunStats:
    cache.root.mkdir(parents=True, exist_ok=True)
    cache.remove_stale_temporaries()
    unique = list({s.key: s for s in specs}.values())
    todo = [s for s in unique if not cache.has(s.key)]
    progress = Progress(label, len(unique), len(unique) - len(todo))
    tasks = [(s.scenario, s.base_dir, s.seed, s.key, str(cache.root), version, _label(s), max_memory)
             for s in todo]
    computed, wait = 0, False
    try:
        while tasks:  # a second round waits for the runs other processes were computing
            outcomes = _run_all([(*t, wait) for t in tasks], jobs, progress)
            computed += sum(status == COMPUTED for _, status in outcomes)
            busy = {key for key, status in outcomes if status == BUSY}
            tasks, wait = [t for t in tasks if t[3] in busy], True
            if tasks:
                _say_waiting(label, len(tasks), cache, progress)
    finally:
        progress.close()
    return RunStats(len(unique), len(unique) - computed, computed)


def _say_waiting(label: str, runs: int, cache: RunCache, progress: Progress) -> None:
    """One line, so that a wait on a stopped (e.g. suspended) process is not a mystery."""
    line = f"{label}: waiting for {runs} runs another mpcc process is computing in {cache.root}"
    print(("\n" if progress.tty else "") + line, file=sys.stderr, flush=True)


def _label(spec: RunSpec) -> str:
    return f"{spec.experiment}/{spec.variant.name} seed {spec.seed}"


def _run_all(tasks, jobs: int, progress: Progress) -> list[tuple[str, str]]:
    """(key, status) of each task; progress advances for each run now in the cache."""
    outcomes = []
    if jobs <= 1 or len(tasks) <= 1:
        for task in tasks:
            outcomes.append(run_one(task))
            if outcomes[-1][1] != BUSY:
                progress.advance()
    else:
        _in_pool(tasks, jobs, progress, outcomes)
    return outcomes


def _in_pool(tasks, jobs: int, progress: Progress, outcomes: list) -> None:
    context = multiprocessing.get_context("spawn")
    previous = signal.getsignal(signal.SIGTERM)
    # SIGTERM leaves through the `except` below, which terminates the workers.
    signal.signal(signal.SIGTERM, _raise_interrupt)
    pool = context.Pool(min(jobs, len(tasks)), initializer=_ignore_sigint)
    try:
        for outcome in pool.imap_unordered(run_one, tasks):
            outcomes.append(outcome)
            if outcome[1] != BUSY:
                progress.advance()
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()  # workers gone and the pool's semaphores released before we leave
        signal.signal(signal.SIGTERM, previous)


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def _ignore_sigint():
    # Ctrl-C reaches the whole process group; the parent stops the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_one(task) -> tuple[str, str]:
    """Worker: simulate one scenario with one seed and store it under its key, unless
    the cache holds it already; (key, COMPUTED, CACHED or BUSY: another process holds
    its lock and `wait` is false)."""
    data, base_dir, seed, key, cache_root, version, label, max_memory, wait = task
    cache = RunCache(cache_root)
    with cache.lock(key, wait) as mine:
        if not mine:
            return key, BUSY
        if cache.valid(key):
            return key, CACHED
        _compute(cache, data, base_dir, seed, key, version, label, max_memory)
        return key, COMPUTED


def _compute(cache: RunCache, data, base_dir, seed, key, version, label, max_memory) -> None:
    from ..run import StoppedEarlyWarning, run
    from ..scenario import Scenario

    with warnings.catch_warnings():  # an early stop is raised below instead
        warnings.simplefilter("ignore", StoppedEarlyWarning)
        result = run(Scenario.from_dict(data, base_dir), seed=seed, max_memory=max_memory)
    if result.stopped_early:
        raise StoppedEarly(f"run {label}: {result.stopped_early}; not cached, no report written "
                           "(pass a larger --max-memory)")
    if run_key(result.config, version) != key:
        raise RuntimeError("the configuration simulated differs from the one planned")
    cache.store(key, result.config, result.summary, result.tables)
