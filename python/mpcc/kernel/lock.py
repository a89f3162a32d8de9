"""One user of mpcc's kernel controllers at a time on this machine.

The controllers are loaded machine-wide: a kernel test that unloads what it loaded,
or a testbed run that unloads what it loaded, would pull a controller from under
another run's connections. Everything that loads them (the kernel tests, a testbed
run) holds this lock from loading to unloading. Re-entrant within a process.
"""

from __future__ import annotations

import contextlib
import fcntl
import threading
from pathlib import Path

PATH = Path("/run/lock" if Path("/run/lock").is_dir() else "/tmp") / "mpcc-kernel-tests.lock"

_held = threading.local()


@contextlib.contextmanager
def machine_lock():
    """Waits for the machine-wide lock and holds it for the `with` block."""
    depth = getattr(_held, "depth", 0)
    if depth:
        _held.depth = depth + 1
        try:
            yield
        finally:
            _held.depth -= 1
        return
    with open(PATH, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        _held.depth = 1
        try:
            yield
        finally:
            _held.depth = 0
            fcntl.flock(f, fcntl.LOCK_UN)
