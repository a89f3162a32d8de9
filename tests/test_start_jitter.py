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


# ---- the reproductions use it ---------------------------------------------------------------

def _jittered_experiments():
    """Replicated experiments of the reproductions whose scenario has no random element but
    start_jitter (issue 15)."""
    import tomllib

    from mpcc.papers import all_papers

    out = []
    for paper in all_papers():
        for exp in paper.experiments:
            if isinstance(exp.scenario, dict) or exp.replications < 2 or exp.name.endswith("_series"):
                continue
            with open(exp.scenario, "rb") as f:
                if "start_jitter" in tomllib.load(f):
                    out.append(pytest.param(paper, exp, id=f"{paper.name}.{exp.name}"))
    return out


JITTERED = _jittered_experiments()


def test_the_deterministic_reproductions_are_jittered():
    names = {p.id for p in JITTERED}  # (paper, experiment) pairs
    assert {"park.rtsc", "park.rtsc_early", "park.pop_periodic"} <= names


def _variant(exp):
    """The variant whose runs the offsets change most visibly: R-TSC's start-up (the
    conventional receiver's runs over constant links are nearly time-invariant), or the
    first one."""
    return next((v for v in exp.variants if v.params.get("receiver") == "rtsc"), exp.variants[0])


@pytest.mark.parametrize("paper, exp", JITTERED)
def test_two_seeds_of_a_reproduction_give_different_results(paper, exp):
    import math

    import mpcc
    from mpcc.reproduce.plan import apply_overrides, paper_scenario_data

    variant = _variant(exp)
    data, base = paper_scenario_data(paper, exp)  # as the reproduction runs it
    data = apply_overrides(apply_overrides(data, variant.overrides), exp.quick_overrides)
    data = apply_overrides(data, {"duration": "12s", "warmup": "2s"})
    rows = []
    for seed in (exp.first_seed, exp.first_seed + 1):
        row = exp.metrics(mpcc.run(mpcc.Scenario.from_dict(data, base), seed=seed, plots=False), variant)
        rows.append(row if isinstance(row, dict) else row[0])
    numeric = [k for k, v in rows[0].items() if isinstance(v, float) and not math.isnan(v) and v != 0]
    # Materially different runs, not the same run seen through a shifted sampling grid (< 0.1 %).
    spread = max(abs(rows[0][k] - rows[1][k]) / abs(rows[0][k]) for k in numeric)
    assert spread > 0.005, spread
