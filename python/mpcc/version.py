"""Which mpcc made a result: the package version and the source commit.

In a source checkout the commit is asked of git at run time (`git describe --always
--dirty`, so it is current even when the extension was built before the last
commit); an installed package reports the commit its extension was built from
(`_core.__commit__`, baked in by crates/mpcc-py/build.rs).
"""

from __future__ import annotations

import subprocess
import threading
from functools import lru_cache
from pathlib import Path

from . import __version__

_CHECKOUT = Path(__file__).resolve().parents[2]
_lookup: threading.Thread | None = None  # a `git describe` started by prefetch_commit
_found: list[str | None] = []


def _in_checkout() -> bool:
    return (_CHECKOUT / ".git").exists() and (_CHECKOUT / "crates" / "mpcc-py").is_dir()


def _git_describe() -> str | None:
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=_CHECKOUT, capture_output=True,
                             text=True, timeout=10)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        pass
    return None


def prefetch_commit() -> None:
    """Starts asking git for the commit in a background thread, so that its ~0.02 s
    overlaps other work (`mpcc run` calls it first, `mpcc.run` before simulating);
    `commit()` waits for the answer. Does nothing outside a source checkout or once
    started or known."""
    global _lookup
    if _lookup is None and commit.cache_info().currsize == 0 and _in_checkout():
        _lookup = threading.Thread(target=lambda: _found.append(_git_describe()), name="mpcc-commit", daemon=True)
        _lookup.start()


@lru_cache(maxsize=1)
def commit() -> str:
    if _in_checkout():
        if _lookup is not None:
            _lookup.join()
            described = _found[0] if _found else None
        else:
            described = _git_describe()
        if described:
            return described
    from . import _core

    return getattr(_core, "__commit__", "unknown")


def describe() -> dict:
    """{"version": ..., "commit": ...}, as recorded in summary.json and reports."""
    return {"version": __version__, "commit": commit()}


def line() -> str:
    return f"mpcc {__version__} (commit {commit()})"
