"""`start_jitter`: seeded start offsets, so that replications of a deterministic
scenario differ, while one seed still gives one result."""

import pytest

from mpcc import scenario as sc
from mpcc.scenario import ScenarioError

BASE = {
    "duration": "5s",
    "links": {"bottleneck": {"rate": "10Mbps", "delay": "20ms", "queue": {"kind": "droptail", "packets": 50}}},
    "flows": [{"name": "a", "cc": "reno", "path": ["bottleneck"]}, {"name": "b", "cc": "cubic", "path": ["bottleneck"],
                                                                     "start": "1s", "stop": "4s"}],
}


def starts(data, seed):
    return [(f["start_ns"], f["stop_ns"]) for f in sc.Scenario.from_dict(data).to_config(seed=seed)["flows"]]


def test_no_jitter_keeps_the_configuration():
    assert starts(BASE, 1) == starts(BASE, 2) == [(0, None), (1_000_000_000, 4_000_000_000)]


def test_offsets_are_seeded_bounded_and_shift_the_stop():
    data = {**BASE, "start_jitter": "100ms"}
    one, again, two = starts(data, 1), starts(data, 1), starts(data, 2)
    assert one == again
    assert one != two
    for (start, stop), (base_start, base_stop) in zip(one + two, starts(BASE, 1) * 2):
        assert base_start <= start < base_start + 100_000_000
        if base_stop is not None:
            assert stop - start == base_stop - base_start


def test_two_seeds_give_different_results():
    from mpcc.run import run

    data = {**BASE, "start_jitter": "100ms", "sample_interval": "0s"}
    goodputs = [run(data, seed=seed, plots=False).summary["flows"]["a"]["goodput_bps"] for seed in (1, 2)]
    assert goodputs[0] != goodputs[1]


def test_a_jitter_reaching_past_the_end_is_refused():
    with pytest.raises(ScenarioError) as e:
        sc.Scenario.from_dict({**BASE, "start_jitter": "5s"}).to_config()
    assert "start_jitter" in str(e.value)
