"""The MPVeno and MPMTP reproductions: their quick experiments load, one replication of
one variant of each runs and measures sensible values, every claim listed from the papers has a
Claim, and verdicts follow the data (data contradicting a claim gives "not reproduced")."""

from pathlib import Path

import pandas as pd
import pytest

import mpcc

ROOT = Path(__file__).resolve().parents[1]
from mpcc.papers import load, mpmtp, mpveno
from mpcc.reproduce.plan import apply_overrides, load_scenario_data, plan

# The claims the project listed from the two papers (Le, MPVeno; Lee & Chung, MPMTP;
# docs/references.md), plus each paper's headline.
SEEDS_CLAIMS = {
    "mpveno": {"congestion_balance", "fairness", "wireless_olia", "wireless_mptcpw", "beta",
               "friendliness_mptcpw", "friendliness_mpveno", "headline"},
    "mpmtp": {"congested", "bandwidth_increase", "load_balancing", "comparison", "cubic_fairness", "binomial",
              "headline"},
}


@pytest.mark.parametrize("name", ["mpveno", "mpmtp"])
def test_every_seeds_claim_has_a_claim_and_the_paper_is_consistent(name):
    paper = load(name)
    assert paper.pending is None
    paper.check()
    assert {c.id for c in paper.claims} == SEEDS_CLAIMS[name]
    figures = {f.id for f in paper.figures}
    assert all(c.figure in figures for c in paper.claims)


@pytest.mark.parametrize("name", ["mpveno", "mpmtp"])
def test_quick_plan_loads_every_scenario_with_distinct_seeds(name):
    paper = load(name)
    specs = plan(paper, quick=True, version="test")
    assert {s.experiment for s in specs} == {e.name for e in paper.experiments}
    for exp in paper.experiments:
        seeds = {s.seed for s in specs if s.experiment == exp.name}
        assert len(seeds) == exp.quick_replications >= 2
    # A series experiment shares its runs with its summary experiment: no extra simulation.
    keys = {s.key for s in specs}
    assert len(keys) < len(specs)


def _run_one(exp, variant_name, duration, warmup=None):
    variant = next(v for v in exp.variants if v.name == variant_name)
    data, base = load_scenario_data(exp.scenario)
    data = apply_overrides(apply_overrides(data, variant.overrides), exp.quick_overrides)
    data["duration"] = duration
    if warmup is not None:
        data["warmup"] = warmup
    result = mpcc.run(mpcc.Scenario.from_dict(data, base), seed=exp.first_seed, plots=False)
    return exp.metrics(result, variant), variant


def test_mpveno_wireless_run_measures_goodput_below_capacity():
    row, _ = _run_one(mpveno.WIRELESS_PATH2, "MPVeno b=3 p1=0.01% p2=1%", "20s", "5s")
    assert 0 < row["goodput_bps"] <= row["capacity_bps"]
    # Path 2 loses 1 % of its packets, path 1 only 0.01 %: subflow 2 carries less.
    assert row["subflow2_bps"] < row["subflow1_bps"]


def test_mpmtp_load_balancing_run_measures_per_subflow_losses():
    row, _ = _run_one(mpmtp.LOAD_BALANCING, "MPMTP with B_r", "30s", "10s")
    assert row["goodput_bps"] > 0
    assert 0 <= row["loss_rate1"] < 1 and 0 <= row["loss_rate2"] < 1
    assert row["losses"] == row["losses1"] + row["losses2"]
    assert row["cwnd1_mean"] > 0 and row["cwnd2_mean"] > 0


# ---- verdicts follow the data ----------------------------------------------------------


def test_mpveno_fairness_verdict_follows_the_data():
    fair = pd.DataFrame({"mpveno_bytes": [1.0e8, 1.1e8], "veno_bytes": [1.0e8, 1.0e8],
                         "mpveno_bps": [5e6, 5.5e6], "veno_bps": [5e6, 5e6]})
    assert mpveno.fairness_verdict({"fairness": fair})[0] == "reproduced"
    unfair = fair.assign(mpveno_bytes=[3e8, 3e8])
    verdict, reason = mpveno.fairness_verdict({"fairness": unfair})
    assert verdict == "not reproduced" and "3.000" in reason


def test_mpveno_congestion_balance_judges_the_papers_one_half():
    """Fig. 2(c): each wMPTCPW subflow gets 'approximately one-half' of a background flow's rate; the same share
    on both paths at another magnitude is only partly the paper's claim."""
    def data(w1, w2):
        return {"congestion_balance": pd.DataFrame({
            "cc": ["MPTCPW", "wMPTCPW"], "share1": [0.12, w1], "share2": [0.89, w2],
            "shift": [0.89 / 0.12, w2 / w1], "total_to_bg2": [1.0, 1.0]})}
    assert mpveno.congestion_balance_verdict(data(0.48, 0.55))[0] == "reproduced"
    verdict, reason = mpveno.congestion_balance_verdict(data(0.25, 0.25))
    assert verdict == "partly" and "one-half: no" in reason
    claim = next(c for c in mpveno.PAPER.claims if c.id == "congestion_balance")
    assert [h.date for h in claim.rule_history] == ["2026-11-25"]


def _wireless(goodput_by_cc, reps=3):
    rows = []
    for name, sweep in (("wireless_both", "both"), ("wireless_path2", "path2")):
        for p in mpveno.LOSS_RATES:
            for cc, g in goodput_by_cc.items():
                for rep in range(reps):
                    rows.append({"sweep": sweep, "p2": p, "cc": cc, "replication": rep,
                                 "goodput_bps": g(p) * (1 + 0.01 * rep), "capacity_bps": 19.2e6})
    df = pd.DataFrame(rows)
    return {"wireless_both": df[df.sweep == "both"], "wireless_path2": df[df.sweep == "path2"]}


def test_mpveno_wireless_verdicts_follow_the_data():
    low = lambda p: 2e6  # noqa: E731  (far below capacity: no ties)
    high = lambda p: 4e6  # noqa: E731
    claimed = _wireless({"MPVeno b=3": high, "MPVeno b=6": high, "OLIA": low, "MPTCPW": lambda p: 6e6, "LIA": low})
    assert mpveno.olia_verdict(claimed)[0] == "reproduced"
    assert mpveno.mptcpw_verdict(claimed)[0] == "reproduced"
    contradicted = _wireless({"MPVeno b=3": low, "MPVeno b=6": low, "OLIA": high, "MPTCPW": low, "LIA": low})
    assert mpveno.olia_verdict(contradicted)[0] == "not reproduced"
    assert mpveno.mptcpw_verdict(contradicted)[0] == "not reproduced"
    # beta 6 equal to beta 3 (within noise): a tie at every point, so nothing is tested.
    verdict, reason = mpveno.beta_verdict(claimed)
    assert verdict == "not tested here" and "14 not tested" in reason
    # beta 6 clearly below beta 3: not reproduced.
    below = _wireless({"MPVeno b=3": high, "MPVeno b=6": low})
    assert mpveno.beta_verdict(below)[0] == "not reproduced"
    # Capacity-limited points are ties and left out: nothing tested.
    full = _wireless({"MPVeno b=3": lambda p: 19e6, "MPVeno b=6": lambda p: 19e6, "OLIA": lambda p: 19e6,
                      "MPTCPW": lambda p: 19e6, "LIA": lambda p: 19e6})
    verdict, reason = mpveno.olia_verdict(full)
    assert verdict == "not tested here" and "both at capacity" in reason


def test_mpmtp_verdicts_follow_the_data():
    lb = pd.DataFrame({"cc": ["MPMTP without B_r"] * 3 + ["MPMTP with B_r"] * 3,
                       "loss_rate1": [3e-3, 3.1e-3, 2.9e-3, 1e-3, 1.1e-3, 0.9e-3],
                       "throughput1_bps": [4e6] * 3 + [2e6] * 3, "throughput2_bps": [5e6] * 3 + [7e6] * 3})
    assert mpmtp.load_balancing_verdict({"load_balancing": lb})[0] == "reproduced"  # a 67 % fall
    worse = lb.assign(loss_rate1=lb.loss_rate1.tolist()[3:] + lb.loss_rate1.tolist()[:3])
    assert mpmtp.load_balancing_verdict({"load_balancing": worse})[0] == "not reproduced"
    slight = lb.assign(loss_rate1=[3e-3, 3.01e-3, 2.99e-3, 2.8e-3, 2.81e-3, 2.79e-3])  # 7 %: below the paper's
    assert mpmtp.load_balancing_verdict({"load_balancing": slight})[0] == "partly"

    binom = pd.DataFrame({"cc": ["MPTCP (LIA)", "MPSQRT", "MPIAD"] * 2, "losses": [400, 6000, 1500, 410, 6100, 1520]})
    assert mpmtp.binomial_verdict({"binomial": binom})[0] == "reproduced"
    assert mpmtp.binomial_verdict({"binomial": binom.assign(losses=[400, 100, 200, 410, 110, 210])})[0] \
        == "not reproduced"

    fair = pd.DataFrame({"mpmtp_cwnd_mean": [200.0], "cubic_cwnd_mean": [210.0], "cwnd1_mean": [100.0],
                         "cwnd2_mean": [100.0], "mpmtp_bps": [2e7], "cubic_bps": [2e7]})
    assert mpmtp.cubic_fairness_verdict({"cubic_fairness": fair})[0] == "reproduced"
    unfair = fair.assign(mpmtp_cwnd_mean=[600.0], cwnd1_mean=[400.0], cwnd2_mean=[200.0])
    assert mpmtp.cubic_fairness_verdict({"cubic_fairness": unfair})[0] == "not reproduced"

    # MPMTP ramps 33 % faster with 39 % fewer losses, as the paper's headline says.
    ramp = pd.DataFrame({"cc": ["MPMTP", "MPCubic"] * 2, "ramp_s": [3.0, 4.0, 3.01, 4.0],
                         "ramp_reached": [1.0] * 4, "losses_after": [0.0, 30.0, 0.0, 31.0],
                         "share_at_stop": [0.3] * 4, "losses_total": [61.0, 100.0, 61.0, 100.5]})
    assert mpmtp.bandwidth_verdict({"bandwidth_increase": ramp})[0] == "reproduced"
    verdict, reason = mpmtp.headline_verdict({"bandwidth_increase": ramp})
    assert verdict == "reproduced", reason
    # Better, but 12 x faster and 70 % fewer losses: not the paper's magnitudes, partly.
    far = ramp.assign(ramp_s=[0.3, 4.0, 0.31, 4.0], losses_total=[30.0, 100.0, 30.5, 100.5])
    assert mpmtp.headline_verdict({"bandwidth_increase": far})[0] == "partly"
    slow = ramp.assign(ramp_s=[4.0, 3.0, 4.01, 3.0], losses_after=[30.0, 0.0, 31.0, 0.0],
                       losses_total=[100.0, 61.0, 100.5, 61.0])
    assert mpmtp.bandwidth_verdict({"bandwidth_increase": slow})[0] == "not reproduced"
    verdict, reason = mpmtp.headline_verdict({"bandwidth_increase": slow})
    assert verdict == "not reproduced" and "worse" in reason and "fewer" not in reason


def _alone_at_periodic_loss(cc: str, profile: str, every: int) -> float:
    """Goodput of one flow alone on a 1 Gbit/s, 100 ms path that loses every `every`-th
    packet (600 s, 60 s warm-up): the deterministic loss CUBIC's response function
    (RFC 9438 section 5.1) and Eq. 28 assume, with no queue for the flows to share."""
    route = {"paths": [["l"]]} if cc == "mpmtp" else {"path": ["l"]}
    data = {"duration": "600s", "warmup": "60s", "sample_interval": "0s",
            "tcp": {"mss": "1460B", "header_bytes": "40B", "profile": profile},
            "links": {"l": {"rate": "1Gbps", "delay": "50ms", "queue": {"kind": "droptail", "packets": 100000},
                            "loss": {"kind": "periodic", "every": every}}},
            "flows": [{"name": "f", "cc": cc, **route}]}
    return mpcc.run(data, plots=False).summary["flows"]["f"]["goodput_bps"]


# Measured 2026-11-26 (MPMTP / CUBIC goodput, every 1000th / 10 000th / 100 000th packet
# lost): rfc 0.80 / 1.07 / 0.99, linux 0.81 / 1.03 / 1.07, ns3 0.81 / 1.08 / 0.98; ns3
# before MPMTP counted delivered segments 0.62 / 0.64 / 0.57 (one growth step per
# delayed ACK halved its increase). Without delta (fairness = 0) 3.4-4.1 x in rfc.
@pytest.mark.parametrize("profile", ["ns3", "rfc", "linux"])
def test_one_mpmtp_subflow_matches_cubic_at_an_equal_loss_rate(profile):
    """Eq. 30 by construction: with one subflow delta sets MPMTP's increase so that its
    window at loss rate p is CUBIC's average window at p (Eq. 28). Alone on a path with
    the same periodic loss, one MPMTP subflow and one CUBIC flow get goodputs within
    issue 15's [0.8, 1.25]."""
    ratio = _alone_at_periodic_loss("mpmtp", profile, 10_000) / _alone_at_periodic_loss("cubic", profile, 10_000)
    assert 0.8 <= ratio <= 1.25, ratio


def _cubic_fairness_ratio(subflows: int, seed: int, profile: str = "rfc", **tcp) -> float:
    """MPMTP connection goodput / CUBIC goodput on the paper's Fig. 21 bottleneck
    (the scenario's own 200 s and 20 s warm-up; one run takes about a second), with
    `tcp` settings on top of the profile."""
    import tomllib

    from mpcc.scenario import Scenario

    data = tomllib.loads((ROOT / "scenarios/mpmtp/cubic_fairness.toml").read_text())
    flows = [dict(f) for f in data["flows"]]
    flows[0]["paths"] = flows[0]["paths"][:subflows]
    data.update(flows=flows, seed=seed, sample_interval="0s",
                tcp={**data.get("tcp", {}), "profile": profile, **tcp})
    f = mpcc.run(Scenario.from_dict(data, ROOT / "scenarios/mpmtp"), plots=False).summary["flows"]
    return f["mpmtp"]["goodput_bps"] / f["cubic"]["goodput_bps"]


# Measured 2026-11-25 after alpha was floored at 1 (Eq. 11) and delta's cycle mean took
# the applied alpha (docs/algorithms/mpmtp.md): ns3 1.233 / 0.917 / 1.247, rfc 1.066 /
# 0.976 / 1.687, linux 2.038 / 2.047 / 1.737 (seeds 1-3). Later that day the ns3 profile
# took ns-3's recovery rules: ns3 1.744 / 1.460 / 0.887. 2026-11-26, once MPMTP and CUBIC
# count delivered segments in ns3 (the sender had not taken CUBIC's exemption from ns-3's
# per-ACK counting): ns3 1.633 / 1.667 / 1.482; rfc and linux unchanged. The cause of every
# miss (docs/algorithms/mpmtp.md, "One subflow against CUBIC on a DropTail queue"): at an
# equal loss rate MPMTP matches CUBIC (the test above), but on the shared queue CUBIC's
# growth meets the overflows and MPMTP's linear approach does not: over 10 ns3 runs MPMTP
# missed 18 % of the congestion episodes (CUBIC 3 %) and CUBIC took 0.36 timeouts per
# episode, MPMTP 0.04. 20 seeds, 200 s: ns3 mean 1.73 (0 of 20 in the band); 1000 s:
# 1.85 +- 0.09. A systematic bias, not a phase effect (CUBIC against CUBIC: 0.97, 18 of 20).
# 2026-11-27, once the ns3 receiver acknowledges the first segment at once as ns-3's does
# (`first_data_ack`): ns3 1.921 / 1.541 / 1.746 (without it, the figures above); then with
# ns-3 3.44's SACKed retransmissions kept in pipe (`sacked_retx_in_pipe`): 1.612 / 1.843 / 1.616;
# then with CUBIC's reduction in whole segments (`whole_segments`, ns3): 2.468 / 1.679 / 1.792;
# then with ns-3's growth at the end of a timeout's recovery: 1.661 / 1.901 / 1.731.
# Later that day both profiles took the three-way handshake (`handshake`; flows start one
# round trip later, the first RTO from the SYN's sample): ns3 1.652 / 1.208 / 2.370, seed 2
# within the band; linux 2.009 / 2.286 / 2.831 (was 2.04 / 2.05 / 1.74 on 2026-11-25).
# Then ns-3's CUBIC growth in whole segments and its RTT sampling (`rtt_ns3`): ns3 2.371 /
# 1.672 / 1.876. 2026-11-27 (session 21), once the linux receiver compresses SACKs and
# starts quick ACKs as Linux 4.18+ does: linux 1.825 / 3.141 / 1.781 (ns3 and rfc unchanged).
_SHARE = "MPMTP misses the congestion episodes CUBIC's growth causes (Eq. 28 assumes equal loss rates)"
_CUBIC_MISSES = {
    ("ns3", 1): f"MPMTP takes 2.37 x: {_SHARE}",
    ("ns3", 2): f"MPMTP takes 1.67 x: {_SHARE}",
    ("ns3", 3): f"MPMTP takes 1.88 x: {_SHARE}",
    ("rfc", 3): f"MPMTP takes 1.69 x: {_SHARE}",
    ("linux", 1): f"MPMTP takes 1.83 x: {_SHARE}",
    ("linux", 2): f"MPMTP takes 3.14 x: {_SHARE}",
    ("linux", 3): f"MPMTP takes 1.78 x: {_SHARE}",
}


@pytest.mark.parametrize("profile,seed", [
    pytest.param(p, s, marks=[pytest.mark.xfail(reason=_CUBIC_MISSES[(p, s)], strict=True)]
                 if (p, s) in _CUBIC_MISSES else [])
    for p in ("ns3", "rfc", "linux") for s in (1, 2, 3)])
def test_one_mpmtp_subflow_shares_with_one_cubic_flow(profile, seed):
    """Issue 15's check: one-subflow MPMTP / one CUBIC flow within [0.8, 1.25] on
    cubic_fairness. Holds in rfc on seeds 1-2; the misses (strict xfail, measured figures
    above) are MPMTP taking more than CUBIC because its slow approach to the full buffer
    leaves the queue's overflows, and the timeouts that follow them, to CUBIC
    (docs/algorithms/mpmtp.md). Before the Eq. 11 floor, L -> 1/w froze MPMTP at
    0.17-0.84 x (ns3, rfc)."""
    ratio = _cubic_fairness_ratio(1, seed, profile)
    assert 0.8 <= ratio <= 1.25, ratio


# Measured 2026-11-26 with the mpmtp paper's own TCP (ns3 with ns-2's receivers, every
# segment acknowledged: Paper.tcp_settings): 1.363 / 1.651 / 1.719 on seeds 1-3 (ns3 with
# its delayed ACKs 1.633 / 1.667 / 1.482, as above). Immediate ACKs do not close the gap.
# 2026-11-27, with CUBIC's reduction in whole segments (ns-3's TcpCubic::GetSsThresh) in the
# profile and ns-2's pipe (`sacked_retx_in_pipe = false`) among the paper's settings:
# 1.425 / 1.022 / 1.326, seed 2 within the band; then with ns-3's growth at the end of a
# timeout's recovery: 1.742 / 2.320 / 1.079, seed 3 within it. The seed that passes moves
# with single sender rules: the ratio is chaotic in this setting, not near the band.
# 2026-11-27 (session 16), with ns-3's CUBIC growth in whole segments and RTT sampling
# (the handshake is off in the paper's TCP): 1.861 / 1.788 / 1.631, no seed in the band.
# 2026-11-27 (session 17), with ns-2's recovery without PRR among the paper's settings
# (NS2_NO_PRR): 1.484 / 1.794 / 1.580.
_PAPER_TCP_MISSES = {1: 1.48, 2: 1.79, 3: 1.58}


@pytest.mark.parametrize("seed", [
    pytest.param(s, marks=[pytest.mark.xfail(reason=f"MPMTP takes {_PAPER_TCP_MISSES[s]:.2f} x: {_SHARE}",
                                             strict=True)] if s in _PAPER_TCP_MISSES else [])
    for s in (1, 2, 3)])
def test_one_mpmtp_subflow_shares_with_one_cubic_flow_in_the_papers_tcp(seed):
    """The check above in the TCP the mpmtp reproduction runs: its profile with the
    settings the paper states on top of it (ns-2's receivers acknowledge every segment,
    its SACK sender has none of ns-3 3.44's pipe accounting and no PRR, and its one-way
    agents no handshake)."""
    paper = mpmtp.PAPER
    tcp = {s.name: s.value for s in paper.tcp_settings}
    assert tcp == {"delayed_ack": False, "sacked_retx_in_pipe": False, "handshake": False, "prr": False}
    ratio = _cubic_fairness_ratio(1, seed, paper.tcp_profile, **tcp)
    assert 0.8 <= ratio <= 1.25, ratio


def test_paced_senders_share_the_droptail_queue_evenly():
    """What decides the misses above: the bursts in which unpaced senders grow their windows. In the
    paper's TCP, over seeds 1-10, one MPMTP subflow takes 1.64 x CUBIC's goodput when neither paces and
    0.84 x when both pace (`tcp.pacing`, Linux's rule; ns-2's senders do not pace); CUBIC in MPMTP's
    place 1.07 and 0.95 (measured 2026-11-28, docs/algorithms/mpmtp.md). The mean over the seeds is
    judged here, the per-seed band in the check above."""
    import statistics

    tcp = {s.name: s.value for s in mpmtp.PAPER.tcp_settings}
    unpaced = statistics.mean(_cubic_fairness_ratio(1, seed, mpmtp.PAPER.tcp_profile, **tcp) for seed in range(1, 11))
    paced = statistics.mean(_cubic_fairness_ratio(1, seed, mpmtp.PAPER.tcp_profile, pacing=True, **tcp)
                            for seed in range(1, 11))
    assert unpaced > 1.25 and 0.8 <= paced <= 1.25, (unpaced, paced)


def test_beta_matters_with_a_standing_queue_and_not_without():
    """The standing-queue setting exists to exercise beta: there, at 0.1 % random loss, beta 6 gives
    MPVeno clearly more goodput than beta 3; on the paper's paths with no other traffic it does not."""
    import tomllib

    def goodput(scenario, loss_links, beta):
        total = 0.0
        for seed in (1, 2):
            with open(scenario, "rb") as f:
                sc = tomllib.load(f)
            sc["duration"], sc["warmup"] = "60s", "10s"
            for link in loss_links:
                sc["links"][link]["loss"]["p"] = 1e-3
            sc["flows"][0]["cc"], sc["flows"][0]["cc_params"] = "mpveno", {"beta": beta}
            sc.setdefault("tcp", {})["profile"] = "ns3"
            total += mpcc.run(sc, seed=seed, plots=False).summary["flows"]["mp"]["goodput_bps"]
        return total / 2

    queue = mpveno.HERE / "beta_standing_queue.toml"
    assert goodput(queue, ("wl1", "wl2"), 6) > 1.15 * goodput(queue, ("wl1", "wl2"), 3)
    plain = mpveno.HERE / "wireless.toml"
    assert goodput(plain, ("path1", "path2"), 6) < 1.1 * goodput(plain, ("path1", "path2"), 3)
