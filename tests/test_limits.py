"""mpcc.limits: scenarios estimated to exhaust memory or CPU are refused before they
run, naming the fields that drive the estimate; every shipped scenario and paper
plan passes."""

import time

import pytest

from conftest import ROOT
from hostile_cases import BASE  # the one small valid scenario both files build on
from mpcc import limits
from mpcc.scenario import Scenario, ScenarioError


def config(text: str, base_dir=".") -> dict:
    return Scenario.from_toml(text, base_dir).to_config()


def edit(**changes) -> str:
    """BASE with lines replaced: key = the old line's start, value = the new lines."""
    lines = BASE.strip().splitlines()
    for old, new in changes.items():
        i = next(k for k, line in enumerate(lines) if line.startswith(old.replace("__", ".")))
        lines[i] = new
    return "\n".join(lines) + "\n"


FLOW = 'path = ["b"]'

# The resource bombs of issue 13, each with the field its message must name.
BOMBS = [
    ("1 Tbit/s for 1000 s", edit(duration='duration = "1000s"', rate='rate = "1Tbps"'), "links.b.rate x duration"),
    ("1e6 s at 1 Mbit/s", edit(duration='duration = "1e6s"', rate='rate = "1Mbps"'), "sample_interval x duration"),
    ("1 ns samples", edit(duration='duration = "10s"\nsample_interval = "1ns"'), "sample_interval x duration"),
    ("a million flows (the schema's ceiling of count)", edit(path=f'{FLOW}\ncount = 1000000', duration='duration = "1s"'),
     "flows[0].count"),
    ("a hundred thousand flows", edit(path=f'{FLOW}\ncount = 100000', duration='duration = "1s"'), "flows[0].count"),
    ("a billion-packet queue at 10 Gbit/s for 60 s",
     edit(duration='duration = "60s"', rate='rate = "10Gbps"\nqueue = { kind = "droptail", packets = 1000000000 }',
          cc='cc = "cubic"'), "links.b.queue.packets"),
    ("a 1 PB web object", edit(path=f'{FLOW}\napp = {{ kind = "web", objects = ["1000000GB"] }}'),
     "flows[0].app.objects"),
    ("CBR at 100 Gbit/s for 100 s, unlimited send buffer",
     edit(duration='duration = "100s"', path=f'{FLOW}\napp = {{ kind = "cbr", rate = "100Gbps" }}'), "flows[0].app.rate"),
    ("CBR at 7 Gbit/s in 1-byte chunks", edit(path=f'{FLOW}\napp = {{ kind = "cbr", rate = "7Gbps", chunk = "1B" }}'),
     "flows[0].app.rate"),
    ("1 ns on/off periods for 10 s",
     edit(duration='duration = "10s"', path=f'{FLOW}\napp = {{ kind = "onoff", on = {{ kind = "fixed", value = "1ns" }}, '
                                            'off = { kind = "fixed", value = "1ns" } }'), "flows[0].app.on"),
    ("a 1 ns random-walk step for 10 s",
     edit(duration='duration = "10s"', rate='capacity = { kind = "random_walk", initial = "10Mbps", min = "1Mbps", '
                                             'max = "20Mbps", step = "1ns", sigma = 0.1 }'),
     "links.b.capacity.step"),
]


@pytest.mark.parametrize("text, field", [b[1:] for b in BOMBS], ids=[b[0] for b in BOMBS])
def test_bombs_are_refused_naming_the_field(text, field):
    with pytest.raises(ScenarioError) as err:
        limits.check_resources(config(text))
    message = str(err.value)
    assert message.startswith(field + ": "), message
    assert "\n" not in message and ("the limit is" in message or "allowed: 1 to 100000" in message)


def test_a_vbr_frame_of_a_terabyte_is_refused(tmp_path):
    (tmp_path / "frames.txt").write_text("1000000000000\n")
    text = edit(path=f'{FLOW}\napp = {{ kind = "vbr", fps = 25, trace = "frames.txt" }}')
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.app\.trace: about .* TB of memory"):
        limits.check_resources(config(text, tmp_path))


def test_a_hundred_thousand_flow_tables_are_refused():
    flows = "".join(f'[[flows]]\nname = "f{i}"\ncc = "reno"\npath = ["b"]\n' for i in range(100_000))
    cfg = config(BASE.split("[[flows]]")[0] + flows)
    with pytest.raises(ScenarioError, match=r"^flows: about .* \(100000 simulated flows\)"):
        limits.check_resources(cfg)


def test_the_message_names_the_limit_and_the_override():
    # Only exact percentiles keep memory per packet (the sketch's is bounded per flow).
    text = edit(duration='duration = "1000s"\nexact_percentiles = true', rate='rate = "1Tbps"')
    with pytest.raises(ScenarioError) as err:
        limits.check_resources(config(text))
    message = str(err.value)
    assert message.startswith("links.b.rate x duration: "), message
    assert "the limit is 8 GiB" in message and "--max-memory" in message and "exact_percentiles" in message


def test_memory_per_packet_only_with_exact_percentiles():
    """30 Gbit/s for 300 s: within the event limit; its delay samples would take
    12 GB with exact percentiles, nothing per packet with the sketch, whose estimate
    does not grow with the duration (no time series)."""
    def text(duration, exact):
        return edit(duration=f'duration = "{duration}"\nsample_interval = "0s"' + ("\nexact_percentiles = true" if exact else ""),
                    rate='rate = "30Gbps"')
    limits.check_resources(config(text("300s", False)))
    with pytest.raises(ScenarioError, match=r"^links\.b\.rate x duration: about .* of memory"):
        limits.check_resources(config(text("300s", True)))
    total = lambda c: sum(cost.amount for cost in limits.estimate_memory(c))
    assert total(config(text("300s", False))) == total(config(text("30s", False)))
    assert total(config(text("300s", True))) > 5 * total(config(text("30s", True)))


def test_a_raised_limit_lets_a_bomb_through_and_a_lower_one_refuses_the_base():
    cfg = config(edit(duration='duration = "1000s"', rate='rate = "100Mbps"'))
    with pytest.raises(ScenarioError):
        limits.check_resources(cfg, max_memory_bytes=2**20)
    limits.check_resources(cfg, max_memory_bytes=2**40)
    with pytest.raises(ScenarioError, match="the limit is 100 KB"):
        limits.check_resources(config(BASE), max_memory_bytes=10**5)


def test_bounded_applications_and_send_buffers_lower_the_estimate():
    bulk = config(edit(duration='duration = "1000s"', rate='rate = "1Tbps"'))
    small_file = config(edit(duration='duration = "1000s"', rate='rate = "1Tbps"',
                             path=f'{FLOW}\napp = {{ kind = "file", size = "10MB" }}'))
    limits.check_resources(small_file)
    with pytest.raises(ScenarioError):
        limits.check_resources(bulk)
    buffered = config(edit(duration='duration = "100s"',
                           path=f'{FLOW}\napp = {{ kind = "cbr", rate = "100Gbps" }}\ntcp = {{ send_buf = "10MB" }}'))
    limits.check_resources(buffered)


def test_two_second_cpu_heavy_scenarios_pass():
    """1 ns on/off for 2 s is about 2e9 events: a minute of simulation, not refused."""
    limits.check_resources(config(edit(path=f'{FLOW}\napp = {{ kind = "onoff", on = {{ kind = "fixed", value = "1ns" }}, '
                                                 'off = { kind = "fixed", value = "1ns" } }')))


def test_every_shipped_scenario_and_paper_plan_passes():
    from mpcc.papers import all_papers
    from mpcc.reproduce.plan import plan

    paths = sorted(ROOT.glob("scenarios/*.toml")) + sorted(ROOT.glob("scenarios/*/*.toml"))
    assert len(paths) > 20
    for path in paths:
        limits.check_resources(Scenario.from_file(path).to_config())
    checked = 0
    for paper in all_papers():
        if paper.pending:
            continue
        for quick in (False, True):
            for spec in plan(paper, quick, "test"):
                limits.check_resources(spec.config)
                checked += 1
    assert checked > 1000


def test_copies_made_by_count_are_one_users_flow():
    cfg = config(BASE + '[[flows]]\nname = "x"\ncc = "reno"\npath = ["b"]\ncount = 3\n')
    assert [where for where, _ in limits._user_flows(cfg["flows"])] == ["flows[0]", "flows[1]"]
    assert [len(group) for _, group in limits._user_flows(cfg["flows"])] == [1, 3]


def test_the_check_is_fast_for_many_flows():
    flows = "".join(f'[[flows]]\nname = "f{i}"\ncc = "reno"\npath = ["b"]\n' for i in range(20_000))
    cfg = config(BASE.split("[[flows]]")[0] + flows)
    t0 = time.perf_counter()
    limits.check_resources(cfg)
    assert time.perf_counter() - t0 < 5
