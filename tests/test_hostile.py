"""The campaign of broken and hostile inputs (tests/hostile_cases.py): each must end
with exit code 2 and exactly one stderr line `mpcc: error: ...` naming the user's
field, no traceback, within 10 s, the whole campaign under 1 GB of memory.

The cases run in-process through `mpcc.cli.main`, all in one child process (a
hang or a crash there cannot take pytest with it); a sample also runs through the
installed `mpcc` command."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

sys.path.insert(0, str(Path(__file__).parent))
import hostile_cases  # noqa: E402

CASES = hostile_cases.all_cases()
SECONDS_PER_CASE = 10
MAX_RSS_BYTES = 2**30
CAMPAIGN_TIMEOUT_S = 300
MPCC = ROOT / ".venv" / "bin" / "mpcc"


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    """Every case's record, by id, from one run of the campaign."""
    root = tmp_path_factory.mktemp("hostile")
    results = root / "results.jsonl"
    command = [sys.executable, str(Path(hostile_cases.__file__)), str(root / "cases"), str(results)]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=CAMPAIGN_TIMEOUT_S, cwd=root)
        stopped = proc.returncode != 0 and proc.stderr[-2000:]
    except subprocess.TimeoutExpired:
        stopped = f"still running after {CAMPAIGN_TIMEOUT_S} s"
    records = {}
    if results.exists():
        records = {r["id"]: r for r in map(json.loads, results.read_text().splitlines())}
    if stopped:
        pending = next((c.id for c in CASES if c.id not in records), None)
        pytest.fail(f"the campaign stopped at case {pending} ({len(records)} done): {stopped}")
    return records


def test_the_campaign_covers_every_class_of_the_review():
    groups = {c.group for c in CASES}
    assert len(CASES) >= 300
    assert groups == {"syntax", "types", "unknown fields", "unknown names", "numeric ranges", "parameters", "units",
                      "topology", "trace files", "strings", "files and CLI", "resource bombs"}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_one_clear_line_per_problem_naming_the_field(campaign, case):
    record = campaign[case.id]
    assert not record["crashed"], record["crashed"]
    lines = record["stderr"].splitlines()
    assert record["code"] == 2, record
    assert len(lines) == case.problems, record["stderr"]
    assert all(line.startswith("mpcc: error: ") for line in lines), record["stderr"]
    assert case.field in lines[0], lines[0]
    assert "Traceback" not in record["stderr"] and record["stdout"] == ""
    assert record["seconds"] < SECONDS_PER_CASE, record["seconds"]


def test_the_campaign_stays_under_a_gigabyte(campaign):
    peak = max(r["max_rss_kb"] for r in campaign.values()) * 1024
    assert peak < MAX_RSS_BYTES, f"peak resident memory {peak / 2**20:.0f} MiB"


# A sample through the real command: argument parsing, exit code and stderr as a user sees them.
SAMPLE = ["syntax-deep-arrays", "syntax-bad-utf8", "types-19-flows[0].count", "types-26-flows[0].tcp.delayed_ack",
          "unknown-field-00", "unknown-name-00", "range-005-links.b.rate", "range-059-links.b.queue.target",
          "params-03", "unit-rate-02", "topology-11", "trace-fifo", "trace-dev-zero", "cli-scenario-fifo",
          "bomb-1tbps-1000s", "bomb-onoff-1ns"]


@pytest.mark.parametrize("case_id", SAMPLE)
def test_a_sample_through_the_command(case_id, tmp_path):
    case = next(c for c in CASES if c.id == case_id)
    argv = hostile_cases.materialise(case, str(tmp_path))
    proc = subprocess.run([str(MPCC), *argv], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "RUST_BACKTRACE": "1"})
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1 and lines[0].startswith("mpcc: error: ") and case.field in lines[0], proc.stderr
    assert proc.stdout == "" and not (tmp_path / "out").exists()
