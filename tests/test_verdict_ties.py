"""No claim that compares measured quantities is "reproduced" when those quantities are
equal within their 95 % confidence intervals (issue 15): every verdict function of a
claim marked `compares` is driven with synthetic data in which the compared schemes
(variants, receivers, d_net settings...) measure the same values up to replication
noise, exactly equal or shifted by less than the noise."""

import pandas as pd
import pytest

from mpcc.papers import cdd, load, mpmtp, mpveno, noda_ito, park
from mpcc.reproduce import verdicts

REPS = 3
NOISE = (-0.05, 0.0, 0.05)  # per replication: the 95 % intervals are about +-12 % wide


def value(base, group: int, rep: int, shift: float) -> float:
    """`base` with replication noise, group `group` moved by `shift` x group (well inside the noise)."""
    return base * (1 + NOISE[rep]) * (1 + shift * group)


def noda_data(shift):
    rows = [{"env": env, "algorithm": alg, "replication": rep,
             "rtt_var_s2": value(1e-3, g, rep, shift), "subflow_rtt_var_s2": value(1e-3, g, rep, shift),
             "goodput_bps": value(1e6, g, rep, shift)}
            for env in noda_ito.ENVS for g, (_, alg) in enumerate(noda_ito.ALGORITHMS) for rep in range(REPS)]
    df = pd.DataFrame(rows)
    return {f"env{env}": df[df.env == env] for env in noda_ito.ENVS}


def mpveno_data(shift):
    ccs = [label for label, _, _ in mpveno.WIRELESS_CCS]
    rows = [{"sweep": sweep, "p2": p, "cc": cc, "replication": rep, "goodput_bps": value(5e6, g, rep, shift),
             "capacity_bps": 19.2e6}
            for sweep in ("both", "path2") for p in mpveno.LOSS_RATES for g, cc in enumerate(ccs)
            for rep in range(REPS)]
    wireless = pd.DataFrame(rows)
    friendly = pd.DataFrame([{"test": label, "replication": rep, "test_bps": value(5e6, 1, rep, shift),
                              "olia_bps": value(5e6, 0, rep, shift)}
                             for label in ("MPTCPW", "MPVeno b=3", "MPVeno b=6") for rep in range(REPS)])
    fairness = pd.DataFrame([{"mpveno_bytes": value(1e8, 1, rep, shift), "veno_bytes": value(1e8, 0, rep, shift),
                              "mpveno_bps": value(5e6, 1, rep, shift), "veno_bps": value(5e6, 0, rep, shift)}
                             for rep in range(REPS)])
    return {"wireless_both": wireless[wireless.sweep == "both"], "wireless_path2": wireless[wireless.sweep == "path2"],
            "friendliness": friendly, "fairness": fairness}


def mpmtp_data(shift):
    def frame(labels, **columns):
        return pd.DataFrame([{"cc": label, "replication": rep,
                              **{c: value(b, g, rep, shift) for c, b in columns.items()}}
                             for g, label in enumerate(labels) for rep in range(REPS)])

    three = [x[0] for x in (mpmtp.MPMTP, mpmtp.LIA, mpmtp.MPCUBIC)]
    bw = frame([mpmtp.MPMTP[0], mpmtp.MPCUBIC[0]], ramp_s=5.0, losses_after=20.0, losses_total=300.0,
               share_at_stop=0.3).assign(ramp_reached=1.0)
    return {
        "congested": frame(three, losses=100.0),
        "bandwidth_increase": bw,
        "load_balancing": frame(["MPMTP without B_r", "MPMTP with B_r"], loss_rate1=1e-3, throughput1_bps=3e6,
                                throughput2_bps=5e6),
        "comparison": frame([label for label, _, _ in mpmtp.COMPARED], goodput_bps=5e6, losses=100.0),
        "binomial": frame([label for label, _, _ in mpmtp.BINOMIAL], losses=500.0),
    }


def cdd_data(shift):
    df = pd.DataFrame([{"variant": name, "replication": rep, "storage_median": value(150.0, g, rep, shift),
                        "storage_p95": value(160.0, g, rep, shift)}
                       for g, name in enumerate((cdd.CDD, cdd.MPTCP)) for rep in range(REPS)])
    return {f"{setup}_runs": df for setup in cdd.SETUPS}


def park_data(shift):
    conv = pd.DataFrame([{"mptcp": m, "seed": rep + 1, "cost": value(22.0, g, rep, shift),
                          **{f"within_{ms}ms": min(1.0, value(0.96, g, rep, shift)) for ms in park.TSC_BOUNDS_MS}}
                         for g, m in enumerate(("uncoupled", "coupled")) for rep in range(REPS)])
    tsc = pd.DataFrame([{"d_net_s": d, "seed": rep + 1, "cost": value(22.0, g, rep, shift),
                         "within_bound": min(1.0, value(0.96, g, rep, shift)), "app_delay_p95_s": 0.15}
                        for g, d in enumerate(park.TSC_D_NET) for rep in range(REPS)])
    rtsc = pd.DataFrame([{"scheduler": s, "c1_mbps": c1, "receiver": r, "replication": rep,
                          "app_delay_p95_s": value(0.5, g, rep, shift)}
                         for s in park.RTSC_SCHEDULERS for c1 in (15, 12, 8)
                         for g, r in enumerate(("none", "rtsc")) for rep in range(REPS)])
    pop = pd.DataFrame([{"kind": kind, "capacity_mbps": c, "scheme": scheme, "replication": rep,
                         "utilization": value(0.8, g, rep, shift), "app_delay_p95_s": value(0.5, g, rep, shift),
                         "app_delay_p99_s": value(0.8, g, rep, shift), "near_full_share": 0.5}
                        for kind in park.POP_KINDS for c in (20, 40, 80)
                        for g, scheme in enumerate(("population control", "CoDel, 1 subflow", "CoDel, 20 subflows"))
                        for rep in range(REPS)])
    return {"ch2_tsc": tsc, "ch2_conventional": conv, "rtsc": rtsc, "rtsc_early": rtsc,
            **{f"pop_{k}": pop[pop.kind == k] for k in park.POP_KINDS}}


BUILDERS = {"noda_ito": noda_data, "mpveno": mpveno_data, "mpmtp": mpmtp_data, "cdd": cdd_data, "park": park_data}
COMPARING = [(name, claim) for name in ("tcp", *BUILDERS) for claim in load(name).claims if claim.compares]


def test_every_comparing_claim_has_equal_data_here():
    assert {name for name, _ in COMPARING} <= set(BUILDERS)
    assert len(COMPARING) >= 15


@pytest.mark.parametrize("shift", [0.0, 0.01, -0.01])
@pytest.mark.parametrize("name,claim", COMPARING, ids=[f"{n}.{c.id}" for n, c in COMPARING])
def test_no_verdict_is_reproduced_on_a_tie(name, claim, shift):
    verdict, reason = claim.verdict(BUILDERS[name](shift))
    assert verdict != "reproduced", reason
    assert verdict in ("partly", "not reproduced", verdicts.NOT_TESTED)


@pytest.mark.parametrize("name,claim", COMPARING, ids=[f"{n}.{c.id}" for n, c in COMPARING])
def test_a_claim_with_only_ties_is_not_tested(name, claim):
    """Where every compared quantity ties, the verdict says so, unless a part of the claim
    that is not a comparison (e.g. "no loss after 20 s") decides it."""
    verdict, reason = claim.verdict(BUILDERS[name](0.0))
    if verdict != verdicts.NOT_TESTED:
        assert verdict in ("partly", "not reproduced") and reason


def test_compare_separates_only_when_the_intervals_do_not_overlap():
    assert verdicts.compare([1.0, 1.05, 0.95], [1.01, 1.06, 0.96]) == verdicts.TIE
    assert verdicts.compare([2.0, 2.1, 1.9], [1.0, 1.05, 0.95]) == verdicts.ABOVE
    assert verdicts.compare([1.0, 1.05, 0.95], [2.0, 2.1, 1.9]) == verdicts.BELOW
    # An interval computed elsewhere (e.g. a paired change) against zero.
    assert verdicts.compare(verdicts.Interval(-0.005, 0.007), 0.0) == verdicts.TIE
    assert verdicts.compare(verdicts.Interval(-0.05, 0.01), 0.0) == verdicts.BELOW
    # One value per side: a tie only when equal.
    assert verdicts.compare([0.0153], [0.0153]) == verdicts.TIE
    assert verdicts.compare([0.0153], [0.0160]) == verdicts.BELOW
    assert verdicts.points([("a", 1.0, None)], "x", "y")[0] == verdicts.NOT_TESTED
    # Passing where tested, a tie elsewhere: only partly.
    assert verdicts.points([("a", 1.0, None), ("b", 2.0, True)], "x", "y")[0] == "partly"
    assert verdicts.points([("a", 1.0, None), ("b", 2.0, False)], "x", "y")[0] == "not reproduced"
    assert verdicts.points([("a", 1.0, True), ("b", 2.0, True)], "x", "y")[0] == "reproduced"
