"""The Noda & Ito and CDD-MPTCP reproductions: their quick experiments load, one
replication of one variant of each runs and measures sensible values, every claim
listed from the papers has a Claim, and the verdicts follow the data (data contradicting a
claim gives "not reproduced")."""

import math

import pandas as pd
import pytest

import mpcc
from mpcc.papers import cdd, load, noda_ito
from mpcc.reproduce.plan import apply_overrides, load_scenario_data, paper_scenario_data, plan

# The claims the project listed from the two papers (Noda & Ito; Tao & Yan; docs/references.md).
SEEDS_CLAIMS = {
    "noda_ito": {"lowest_rtt_variance", "lower_throughput_env145", "not_lower_throughput_env236"},
    "cdd": {"cdd_goodput", "mptcp_slow_path", "buffer"},
}


@pytest.mark.parametrize("name", ["noda_ito", "cdd"])
def test_every_seeds_claim_has_a_claim(name):
    paper = load(name)
    assert paper.pending is None
    paper.check()
    assert {c.id for c in paper.claims} == SEEDS_CLAIMS[name]
    assert all(c.text and c.source for c in paper.claims)


@pytest.mark.parametrize("name", ["noda_ito", "cdd"])
def test_quick_plan_loads_every_scenario(name):
    paper = load(name)
    specs = plan(paper, quick=True, version="test")
    assert {s.experiment for s in specs} == {e.name for e in paper.experiments}
    for exp in paper.experiments:
        seeds = sorted({s.seed for s in specs if s.experiment == exp.name})
        assert seeds == list(range(exp.first_seed, exp.first_seed + exp.quick_replications))
    # The time-series (and, for cdd, per-block) experiments reuse the summary experiments' runs.
    assert len({s.key for s in specs}) < len(specs)


def test_noda_ito_quick_ramp_keeps_every_joiner_inside_the_run():
    for env in noda_ito.RAMP_ENVS:
        exp = noda_ito.ENV_EXPERIMENTS[env - 1]
        data, _ = load_scenario_data(exp.scenario)
        data = apply_overrides(data, exp.quick_overrides)
        flows = mpcc.Scenario.from_dict(data).to_config()["flows"]
        starts = [f["start_ns"] / 1e9 for f in flows if "_join" in f["name"]]
        assert len(starts) == 2 * noda_ito.JOINERS_PER_PATH
        assert noda_ito.QUICK["warmup"] < min(starts) and max(starts) < noda_ito.QUICK["duration"]
        # The overrides moved the joiners, not the connections present from the start.
        assert sum(f.get("start_ns", 0) == 0 for f in flows) == 1 + 2 * 10


def _run_one(exp, variant_name, paper):
    """One quick run of a variant, in the paper's TCP profile as `mpcc reproduce` runs it."""
    variant = next(v for v in exp.variants if v.name == variant_name)
    data, base = paper_scenario_data(paper.PAPER, exp)
    data = apply_overrides(apply_overrides(data, variant.overrides), exp.quick_overrides)
    result = mpcc.run(mpcc.Scenario.from_dict(data, base), seed=exp.first_seed, plots=False)
    return result, variant


def test_noda_ito_env4_run_measures_the_connection():
    result, variant = _run_one(noda_ito.ENV_EXPERIMENTS[3], "Proposal", noda_ito)
    row = noda_ito.run_metrics(result, variant)
    assert result.config["flows"][0]["cc"] == "noda_ito"
    # Base RTTs 200 ms and 100 ms (one-way delays both ways): the connection's RTT mean lies between.
    assert 0.1 < row["rtt_mean_s"] < 0.2 + 0.1
    # Pooled over both paths, the variance holds the paths' difference; per subflow it does not.
    assert row["rtt_var_s2"] > row["subflow_rtt_var_s2"] > 0
    assert 0 < row["goodput_bps"] < 20e6
    series = noda_ito.series_metrics(result, variant)
    assert {r["subflow"] for r in series} == {"path1", "path2"}
    assert all(abs(r["t_s"] * 2 - round(r["t_s"] * 2)) < 1e-6 for r in series)


def test_cdd_constant_run_measures_blocks_and_storage():
    result, variant = _run_one(cdd.EXPERIMENTS[0], cdd.CDD, cdd)
    assert result.config["flows"][0]["scheduler"] == "cdd"
    row = cdd.run_metrics(result, variant)
    assert row["capacity_bps"] == pytest.approx(6e6 * 1450 / 1502, rel=1e-3)
    assert 0 < row["goodput_bps"] <= row["capacity_bps"] * 1.001
    blocks = cdd.block_metrics(result, variant)
    assert row["blocks"] == len(blocks) > 50
    # Each block is 100 packets; storage is 100 plus what was held out of order (at most the buffer).
    assert all(100 <= b["storage_packets"] <= 100 + 101 for b in blocks)
    times = [b["t_s"] for b in blocks]
    assert times == sorted(times)
    # The mean over blocks of 100 x MSS / block time is close to the run's goodput.
    mean_block = sum(b["goodput_bps"] for b in blocks) / len(blocks)
    assert mean_block == pytest.approx(row["goodput_bps"], rel=0.2)
    # With in-order bursts spread (goodput_smooth_bps) no block goes past the paths' capacity (10 ms
    # sampling: one packet per sample either way), while the raw per-block goodput does after head-of-line
    # blocking.
    assert max(b["smooth_goodput_bps"] for b in blocks) <= row["capacity_bps"] * 1.05
    assert max(b["goodput_bps"] for b in blocks) > row["capacity_bps"] * 1.05


def _noda_data(proposal_var: float, proposal_goodput: float) -> dict:
    rows = []
    for env in noda_ito.ENVS:
        for _, alg in noda_ito.ALGORITHMS:
            mine = alg == noda_ito.PROPOSAL
            for rep in range(3):
                rows.append({"env": env, "algorithm": alg, "replication": rep,
                             "rtt_var_s2": (proposal_var if mine else 1e-3) * (1 + 0.01 * rep),
                             "subflow_rtt_var_s2": 1e-3, "goodput_bps": proposal_goodput if mine else 1e6})
    df = pd.DataFrame(rows)
    return {f"env{env}": df[df.env == env] for env in noda_ito.ENVS}


def _verdicts(paper, data) -> dict:
    return {c.id: c.verdict(data)[0] for c in paper.claims}


def test_noda_ito_verdicts_follow_the_data():
    # The proposal with the highest variance and the highest throughput everywhere.
    v = _verdicts(noda_ito.PAPER, _noda_data(2e-3, 2e6))
    assert v == {"lowest_rtt_variance": "not reproduced", "lower_throughput_env145": "not reproduced",
                 "not_lower_throughput_env236": "reproduced"}
    # Lowest variance and lowest throughput everywhere: the paper's contrast between Env1/4/5 and
    # Env2/3/6 is absent, so "lower in Env1/4/5" is only partly reproduced.
    v = _verdicts(noda_ito.PAPER, _noda_data(0.5e-3, 0.5e6))
    assert v == {"lowest_rtt_variance": "reproduced", "lower_throughput_env145": "partly",
                 "not_lower_throughput_env236": "not reproduced"}
    assert "contrast is absent" in noda_ito.lower_throughput_verdict(_noda_data(0.5e-3, 0.5e6))[1]
    # The paper's picture: lower in Env1/4/5, higher in Env2/3/6.
    data = _noda_data(0.5e-3, 0.5e6)
    for env in noda_ito.NOT_LOWER_IN:
        df = data[f"env{env}"].copy()
        df.loc[df.algorithm == noda_ito.PROPOSAL, "goodput_bps"] = 2e6
        data[f"env{env}"] = df
    v = _verdicts(noda_ito.PAPER, data)
    assert v["lower_throughput_env145"] == "reproduced" and v["not_lower_throughput_env236"] == "reproduced"


def _cdd_data(cdd_ratio: float, cdd_cov: float, slow_share: float, cdd_storage: float, mptcp_storage: float):
    rows = []
    for name, ratio, cov, share, storage in ((cdd.CDD, cdd_ratio, cdd_cov, 0.0, cdd_storage),
                                             (cdd.MPTCP, 0.8, 0.5, slow_share, mptcp_storage)):
        rows.append({"variant": name, "goodput_ratio": ratio, "goodput_bps": ratio * 5.8e6, "capacity_bps": 5.8e6,
                     "slow_capacity_bps": 1.9e6, "block_goodput_cov": cov, "slow_blocks_share": share,
                     "storage_median": storage, "storage_p95": storage})
    df = pd.DataFrame(rows)
    return {f"{setup}_runs": df for setup in cdd.SETUPS}


def test_cdd_verdicts_follow_the_data():
    v = _verdicts(cdd.PAPER, _cdd_data(0.97, 0.05, 0.2, 102, 180))
    assert v == {"cdd_goodput": "reproduced", "mptcp_slow_path": "reproduced", "buffer": "reproduced"}
    v = _verdicts(cdd.PAPER, _cdd_data(0.5, 0.6, 0.0, 180, 110))
    assert v == {"cdd_goodput": "not reproduced", "mptcp_slow_path": "not reproduced", "buffer": "not reproduced"}
    # Close to the aggregate but unstable: partly.
    assert cdd.goodput_verdict(_cdd_data(0.97, 0.6, 0.0, 100, 100))[0] == "partly"
    assert not math.isnan(cdd._mean(_cdd_data(0.97, 0.05, 0.2, 102, 180), "constant", cdd.CDD, "storage_median"))
