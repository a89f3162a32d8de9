"""SIGTERM as an interrupt, so that what a block set up is taken down.

Python's default action for SIGTERM ends the process at once: no `finally`, no
`__exit__`. A testbed killed that way leaves its network namespaces, processes and
registered struct_ops behind. While a block guarded here runs, SIGTERM raises
KeyboardInterrupt instead, as Ctrl-C does, and the block's teardown runs.
"""

from __future__ import annotations

import signal
import threading


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


class TerminateAsInterrupt:
    """A context manager (nestable: an inner one finds the outer's handler and leaves it) that makes SIGTERM raise
    KeyboardInterrupt while it is entered. It changes nothing off the main thread
    (where Python cannot set handlers), nor when a handler other than the default is
    installed (the caller's own, e.g. the command line's, stays in charge)."""

    def __init__(self) -> None:
        self._previous = None

    def __enter__(self) -> "TerminateAsInterrupt":
        if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            self._previous = signal.signal(signal.SIGTERM, _raise_interrupt)
        return self

    def __exit__(self, *exc) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGTERM, self._previous)
            self._previous = None
