"""Every result says which mpcc made it: `mpcc --version`, summary.json, reports."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import mpcc
from mpcc.reproduce.report import write_index

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _fresh_commit():
    """Other work may have committed since this session first asked for the commit."""
    from mpcc.version import commit

    commit.cache_clear()


def _describe() -> str:
    return subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_version_flag_prints_the_version_and_the_commit_git_describes():
    out = subprocess.run([sys.executable, "-m", "mpcc", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"mpcc {mpcc.__version__} (commit {_describe()})"


def test_summary_json_records_the_version_and_commit(tmp_path):
    mpcc.run(ROOT / "scenarios" / "demo.toml", out=tmp_path / "r", plots=False)
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["mpcc"] == {"version": mpcc.__version__, "commit": _describe()}


def test_the_index_says_quick_or_full_and_which_mpcc(tmp_path):
    for quick, mode in ((True, "quick"), (False, "full")):
        index = write_index(tmp_path / mode, [("tcp", "TCP", "claims: 6 reproduced", "tcp/index.html", ())], quick=quick)
        text = index.read_text()
        assert f"mpcc reproductions ({mode})" in text and f"commit {_describe()}" in text
