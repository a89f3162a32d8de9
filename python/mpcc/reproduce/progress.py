"""A minimal progress bar on stderr: redrawn in place on a terminal, a few plain
lines otherwise (so logs stay short)."""

from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, label: str, total: int, done: int = 0, stream=None, width: int = 28):
        self.label, self.total, self.done, self.width = label, total, done, width
        self.stream = stream if stream is not None else sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.started = time.monotonic()
        self._last_quarter = -1
        self._draw()

    def advance(self, n: int = 1) -> None:
        self.done += n
        self._draw()

    def close(self) -> None:
        if self.tty:
            print(file=self.stream, flush=True)

    def _draw(self) -> None:
        total = max(self.total, 1)
        filled = int(self.width * self.done / total)
        bar = "#" * filled + "-" * (self.width - filled)
        elapsed = time.monotonic() - self.started
        line = f"{self.label} [{bar}] {self.done}/{self.total} runs, {elapsed:.0f} s"
        if self.tty:
            print("\r" + line, end="", file=self.stream, flush=True)
            return
        quarter = 4 * self.done // total
        if quarter != self._last_quarter:  # 0 %, 25 %, 50 %, 75 %, 100 %
            self._last_quarter = quarter
            print(line, file=self.stream, flush=True)
