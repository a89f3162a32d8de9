"""Which mpcc made a result: the package version and the source commit.

In a source checkout the commit is asked of git at run time (`git describe --always
--dirty`, so it is current even when the extension was built before the last
commit); an installed package reports the commit its extension was built from
(`_core.__commit__`, baked in by crates/mpcc-py/build.rs).
"""

from __future__ import annotations

import subprocess
from functools import lru_cache
from pathlib import Path

from . import __version__

_CHECKOUT = Path(__file__).resolve().parents[2]


@lru_cache(maxsize=1)
def commit() -> str:
    if (_CHECKOUT / ".git").exists() and (_CHECKOUT / "crates" / "mpcc-py").is_dir():
        try:
            out = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=_CHECKOUT, capture_output=True,
                                 text=True, timeout=10)
            if out.returncode == 0 and out.stdout.strip():
                return out.stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            pass
    from . import _core

    return getattr(_core, "__commit__", "unknown")


def describe() -> dict:
    """{"version": ..., "commit": ...}, as recorded in summary.json and reports."""
    return {"version": __version__, "commit": commit()}


def line() -> str:
    return f"mpcc {__version__} (commit {commit()})"
