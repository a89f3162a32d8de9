"""Shared helpers: run the `mpcc` command as a user would, write scenario files."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def mpcc_command() -> list[str]:
    script = Path(sys.executable).parent / "mpcc"
    return [str(script)] if script.exists() else [sys.executable, "-m", "mpcc.cli"]


def run_cli(*args, cwd=None, timeout=300) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.run(
        [*mpcc_command(), *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env
    )


@pytest.fixture
def write_scenario(tmp_path):
    """write_scenario(text, name="s.toml") -> path of a dedented scenario file in tmp_path."""

    def write(text: str, name: str = "s.toml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text))
        return path

    return write


# A small dumbbell used by the tests that run the simulator.
DUMBBELL = """
duration = "{duration}"
seed = 1
sample_interval = "100ms"

[links.bottleneck]
rate = "10Mbps"
delay = "20ms"
queue = {{ kind = "droptail", packets = 50 }}
loss = {{ kind = "bernoulli", p = {p} }}

[[flows]]
name = "a"
cc = "reno"
path = ["bottleneck"]

[[flows]]
name = "b"
cc = "reno"
path = ["bottleneck"]
start = "1s"
"""


def dumbbell(duration: str = "5s", p: float = 0.01) -> str:
    return DUMBBELL.format(duration=duration, p=p)
