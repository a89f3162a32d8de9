"""`mpcc compare A B` (docs/outputs.md, "Comparing two runs"): the tables hold each
side's values and B / A, missing values show as a dash, the report is
deterministic, and bad folders are refused in one line."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli
from mpcc import run
from mpcc.compare import DASH, compare

SCENARIO = """
duration = "3s"
seed = {seed}
[links.b]
rate = "{rate}"
delay = "10ms"
queue = {{ kind = "droptail", packets = 30 }}
[[flows]]
name = "x"
cc = "reno"
path = ["b"]
[[flows]]
name = "y"
cc = "cubic"
path = ["b"]
"""


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    base = tmp_path_factory.mktemp("compare")
    run(SCENARIO.format(seed=1, rate="10Mbps"), out=base / "a", plots=False)
    run(SCENARIO.format(seed=1, rate="5Mbps"), out=base / "b", plots=False)
    return base


def rows(report: str, section: str) -> dict[tuple[str, str], list[str]]:
    part = report.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    out = {}
    for line in part.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 5 and cells[0] not in ("flow", "subflow", "link", "---"):
            out[(cells[0], cells[1])] = cells[2:]
    return out


def test_values_and_ratios_come_from_the_summaries(folders):
    out = compare(folders / "a", folders / "b", folders / "ab")
    report = (out / "report.md").read_text()
    sa = json.loads((folders / "a" / "summary.json").read_text())
    sb = json.loads((folders / "b" / "summary.json").read_text())
    flows = rows(report, "Flows")
    for name in ("x", "y"):
        a, b = sa["flows"][name]["goodput_bps"] / 1e6, sb["flows"][name]["goodput_bps"] / 1e6
        assert flows[(name, "goodput (Mbit/s)")] == [f"{a:.3f}", f"{b:.3f}", f"{b / a:.3f}"]
        ra, rb = sa["flows"][name]["retransmissions"], sb["flows"][name]["retransmissions"]
        assert flows[(name, "retransmissions")][:2] == [f"{ra}", f"{rb}"]
    links = rows(report, "Links")
    ua, ub = sa["links"]["b"]["utilization"], sb["links"]["b"]["utilization"]
    assert links[("b", "utilization")] == [f"{ua:.3f}", f"{ub:.3f}", f"{ub / ua:.3f}"]
    assert ("x/0", "throughput (Mbit/s)") in rows(report, "Subflows")
    for png in ("goodput.png", "cwnd.png", "srtt.png", "queue.png", "rtt_cdf.png"):
        assert (out / png).stat().st_size > 1000
        assert f"({png})" in report and f"src='{png}'" in (out / "index.html").read_text()


def test_report_is_deterministic(folders):
    one = compare(folders / "a", folders / "b", folders / "r1")
    two = compare(folders / "a", folders / "b", folders / "r2")
    assert (one / "report.md").read_text() == (two / "report.md").read_text()
    for name in ("cwnd.png", "rtt_cdf.png"):
        assert (one / name).read_bytes() == (two / name).read_bytes()


def test_missing_values_and_flows_show_a_dash(folders, tmp_path):
    partial = tmp_path / "partial"
    partial.mkdir()
    summary = json.loads((folders / "b" / "summary.json").read_text())
    summary["flows"]["x"]["rtt_mean_s"] = None           # the testbed has no value
    del summary["flows"]["x"]["retransmissions"]           # or no field
    summary["flows"]["only_here"] = {"goodput_bps": 1e6}  # a flow A lacks
    (partial / "summary.json").write_text(json.dumps(summary))
    out = compare(folders / "a", partial, tmp_path / "r")
    flows = rows((out / "report.md").read_text(), "Flows")
    assert flows[("x", "RTT mean (ms)")][1:] == [DASH, DASH]
    assert flows[("x", "retransmissions")][1:] == [DASH, DASH]
    assert flows[("only_here", "goodput (Mbit/s)")] == [DASH, "1.000", DASH]
    assert not (out / "cwnd.png").exists() or (out / "cwnd.png").stat().st_size > 0  # A's series still drawn


def test_cli_refuses_bad_folders_in_one_line(folders, tmp_path):
    r = run_cli("compare", tmp_path, folders / "b", "--out", tmp_path / "x")
    assert r.returncode == 2
    assert r.stderr.strip() == f"mpcc: error: A: {tmp_path} has no summary.json; allowed: a results folder of " \
                               f"`mpcc run` or `mpcc testbed run`"
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "summary.json").write_text("{not json")
    r = run_cli("compare", folders / "a", bad, "--out", tmp_path / "y")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "B:" in r.stderr and "unreadable" in r.stderr
    r = run_cli("compare", folders / "a", folders / "b", "--out", tmp_path / "z", "--labels", "only")
    assert r.returncode == 2 and "--labels" in r.stderr


def test_cli_does_not_overwrite_without_force(folders, tmp_path):
    out = tmp_path / "cmp"
    assert run_cli("compare", folders / "a", folders / "b", "--out", out, "--labels", "sim,tb").returncode == 0
    assert "| flow | metric | sim | tb | ratio |" in (out / "report.md").read_text()
    r = run_cli("compare", folders / "a", folders / "b", "--out", out)
    assert r.returncode == 2 and "already exists" in r.stderr
    assert run_cli("compare", folders / "a", folders / "b", "--out", out, "--force").returncode == 0
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    r = run_cli("compare", folders / "a", folders / "b", "--out", foreign, "--force")
    assert r.returncode == 2 and (foreign / "notes.txt").read_text() == "keep me"
