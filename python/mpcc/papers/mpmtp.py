"""S. Lee & K. Chung: MPMTP, multipath congestion control for high-quality streaming
(Lee & Chung 2017, docs/references.md#lee-chung). Congested link, bandwidth increase,
load balancing, comparison with MPCubic, uncoupled, COUPLED and LIA, fairness with CUBIC,
and the binomial schemes' loss counts (Table 1). Scenarios: scenarios/mpmtp/."""

from __future__ import annotations

import math
from dataclasses import replace

from ..reproduce import Claim, Experiment, Figure, Paper, RuleChange, Variant
from ..reproduce import verdicts
from . import NS2_IMMEDIATE_ACKS, NS2_NO_HANDSHAKE, NS2_NO_PRR, NS2_PIPE, SCENARIOS

HERE = SCENARIOS / "mpmtp"

BG_STOP_S = 20.0  # bandwidth increase: the background leaves at 20 s
RAMP_TARGET = 0.9  # ramp time: until the connection's throughput reaches 90 % of the capacity
RAMP_WINDOW_S = 1.0  # throughput averaged over 1 s for the ramp test

# Thresholds of the verdicts.
SIMILAR = (0.8, 1.25)  # "similar": within 20 % either way
PARTLY = (2 / 3, 1.5)
EQUAL_SUBFLOWS = 0.15  # "almost the same": subflow windows within 15 %
# Table 2: the text says subflow-1 losses fall "by 30%", the table's rates fall by 74 %
# (3.19e-5 -> 8.3e-6): reproduced between 0.8 x the one and 1.25 x the other.
LB_BAND = (0.8 * 0.30, min(1.0, 1.25 * (1 - 8.3e-6 / 3.19e-5)))
HEADLINE_RAMP, HEADLINE_LOSS = 0.33, 0.39
# A single unreplicated figure of the paper: reproduced when the measured improvement is
# within the project's "similar" band of it.
HEADLINE_BAND = SIMILAR

LIA, MPCUBIC, MPMTP = ("MPTCP (LIA)", "lia", {}), ("MPCubic", "mpcubic", {}), ("MPMTP", "mpmtp", {})
# MPCubic without its fairness factor (delta = 1 on each subflow): its fairness factor is derived here, not
# taken from its paper (docs/algorithms/mpcubic.md), so the ramp comparison is also reported against this
# variant; the verdicts judge the coupled MPCubic.
MPCUBIC_UNCOUPLED = ("MPCubic, delta = 1", "mpcubic", {"coupled": 0})
COMPARED = (MPMTP, MPCUBIC, ("uncoupled", "reno", {}), ("COUPLED", "coupled", {}), ("LIA", "lia", {}))
BINOMIAL = (("MPTCP (LIA)", "lia", {}), ("MPSQRT", "mpsqrt", {}), ("MPIAD", "mpiad", {}))


def _variants(ccs, flow=0):
    return tuple(Variant(label, {f"flows.{flow}.cc": cc, f"flows.{flow}.cc_params": dict(params)}, {"cc": label})
                 for label, cc, params in ccs)


def _capacity_payload_bps(result, links) -> float:
    tcp = result.config["flows"][0]["tcp"]
    share = tcp["mss"] / (tcp["mss"] + tcp["header_bytes"])
    return sum(l["capacity"]["bps"] for l in result.config["links"] if l["name"] in links) * share


def _mean_cwnd(result, flow, after_s):
    """Per subflow: the time average of cwnd after `after_s`."""
    df = result.flow_series
    df = df[(df["flow"] == flow) & (df["t_s"] >= after_s)]
    return [float(rows["cwnd"].mean()) for _, rows in df.groupby("subflow", sort=True)]


def series_rows(result, flows, columns, every_s=None):
    """Time series of the named flows as rows, one per subflow and sample (`series` = "flow/id")."""
    df = result.flow_series
    df = df[df["flow"].isin(flows)]
    interval = result.config.get("sample_interval_ns", 0) / 1e9
    if every_s and interval:
        step = max(1, round(every_s / interval))
        df = df[(df["t_s"] / interval).round().astype("int64") % step == 0]
    rows = []
    for rec in df[["t_s", "flow", "subflow", *columns]].itertuples(index=False):
        row = {"series": f"{rec.flow}/{rec.subflow}", "t_s": float(rec.t_s)}
        row.update({c: float(getattr(rec, c)) for c in columns})
        rows.append(row)
    return rows


def connection_metrics(result, variant) -> dict:
    """Losses, goodput and windows of the connection "mp" (after the warm-up)."""
    mp = result.summary["flows"]["mp"]
    warmup = result.config.get("warmup_ns", 0) / 1e9
    cwnd = _mean_cwnd(result, "mp", warmup)
    sub = mp["subflows"]
    return {
        "losses": mp["losses"],
        "losses1": sub[0]["losses"],
        "losses2": sub[1]["losses"],
        "sent1": sub[0]["sent_packets"],
        "sent2": sub[1]["sent_packets"],
        "loss_rate1": sub[0]["losses"] / sub[0]["sent_packets"] if sub[0]["sent_packets"] else math.nan,
        "loss_rate2": sub[1]["losses"] / sub[1]["sent_packets"] if sub[1]["sent_packets"] else math.nan,
        "timeouts": mp["timeouts"],
        "goodput_bps": mp["goodput_bps"],
        "throughput1_bps": sub[0]["throughput_bps"],
        "throughput2_bps": sub[1]["throughput_bps"],
        "cwnd1_mean": cwnd[0],
        "cwnd2_mean": cwnd[1],
        "cwnd_total_mean": sum(cwnd),
        "rtt_p95_s": mp["rtt_p95_s"],
    }


def window_series(result, variant):
    return series_rows(result, ["mp"], ["cwnd", "losses", "srtt_s", "throughput_bps"], every_s=0.4)


def _pair(name, scenario, variants, metrics, series_metrics, reps, quick_reps, quick, description):
    main = Experiment(name, scenario, variants, metrics, reps, quick_reps, quick, description=description)
    return main, main.series(series_metrics, f"The same runs as {name}: per-subflow time series.")


CONGESTED, CONGESTED_SERIES = _pair(
    "congested", HERE / "congested.toml", _variants((LIA, MPCUBIC, MPMTP)), connection_metrics, window_series,
    5, 2, {"duration": "80s", "warmup": "20s"},
    "Fig. 17: a 2-path connection over two disjoint 20 Mbit/s links (RTT 100 ms, DropTail BDP), 10 Reno flows "
    "on each; 200 s with 20 s warm-up (quick: 80 s). losses = segments the connection marked lost after the "
    "warm-up.")

BINOMIAL_EXP, BINOMIAL_SERIES = _pair(
    "binomial", HERE / "binomial.toml", _variants(BINOMIAL), connection_metrics, window_series,
    5, 2, {"duration": "80s", "warmup": "20s"},
    "Table 1 / Fig. 2: MPTCP (LIA), MPSQRT, MPIAD in the congested-link topology; 200 s with 20 s warm-up "
    "(quick: 80 s).")


def bandwidth_metrics(result, variant) -> dict:
    df = result.flow_series
    mp = df[df["flow"] == "mp"]
    interval = result.config["sample_interval_ns"] / 1e9
    total = mp.groupby("t_s", sort=True)["throughput_bps"].sum()
    smooth = total.rolling(max(1, round(RAMP_WINDOW_S / interval)), min_periods=1).mean()
    capacity = _capacity_payload_bps(result, ("link1", "link2"))
    after = smooth[smooth.index > BG_STOP_S + 1e-9]
    reached = after[after >= RAMP_TARGET * capacity]
    end = result.config["duration_ns"] / 1e9
    losses = mp.groupby("t_s", sort=True)["losses"].sum()
    at_stop = float(losses[losses.index <= BG_STOP_S + 1e-9].iloc[-1]) if (losses.index <= BG_STOP_S).any() else 0.0
    cwnd = mp.groupby("t_s", sort=True)["cwnd"].sum()
    return {
        # Censored at the end of the run when the target is never reached.
        "ramp_s": float(reached.index[0] - BG_STOP_S) if len(reached) else end - BG_STOP_S,
        "ramp_reached": float(len(reached) > 0),
        "losses_after": float(losses.iloc[-1]) - at_stop,
        "losses_total": float(losses.iloc[-1]),
        "throughput_after_bps": float(after.mean()),
        # Where the ramp starts from: the share of the capacity in the last second before 20 s.
        "share_at_stop": float(smooth[smooth.index <= BG_STOP_S + 1e-9].iloc[-1] / capacity),
        "cwnd_after_mean": float(cwnd[cwnd.index > BG_STOP_S].mean()),
        "capacity_bps": capacity,
    }


def bandwidth_series(result, variant):
    return series_rows(result, ["mp"], ["cwnd", "losses", "srtt_s", "throughput_bps"], every_s=0.2)


BANDWIDTH, BANDWIDTH_SERIES = _pair(
    "bandwidth_increase", HERE / "bandwidth_increase.toml", _variants((MPCUBIC, MPMTP, LIA, MPCUBIC_UNCOUPLED)),
    bandwidth_metrics,
    bandwidth_series, 5, 2, {"duration": "45s"},
    f"Fig. 18: two disjoint 50 Mbit/s links (RTT 100 ms, DropTail BDP), 10 Reno flows on each stop at 20 s; "
    f"60 s (quick: 45 s). ramp_s = time after 20 s until the connection's throughput (1 s average) reaches "
    f"{RAMP_TARGET:.0%} of the 97.3 Mbit/s payload capacity (the rest of the run if never); losses_after = "
    f"segments marked lost after 20 s.")

LB_VARIANTS = tuple(Variant(label, {"flows.0.cc_params": {"load_balance": lb}}, {"load_balance": lb, "cc": label})
                    for label, lb in (("MPMTP without B_r", 0), ("MPMTP with B_r", 1)))
LOAD_BALANCING, LOAD_BALANCING_SERIES = _pair(
    "load_balancing", HERE / "load_balancing.toml", LB_VARIANTS, connection_metrics, window_series,
    10, 3, {"duration": "80s", "warmup": "20s"},
    "Fig. 19 / Table 2: 10 Mbit/s links (RTT 100 ms, DropTail BDP), 20 Reno flows on path 1 and 5 on path 2; "
    "MPMTP with and without its load-balancing factor; 200 s with 20 s warm-up (quick: 80 s). "
    "loss_rate1 = subflow 1's losses / its sent packets after the warm-up.")

# Table 2's environment: the paper's subflow-1 loss rate without B_r, 3.19e-5, is about one
# segment in 31,000. With 20 greedy Reno flows on the 10 Mbit/s link, that needs windows of
# some 200 segments each (Reno: p ~ 1.5 / W^2), far beyond the one-BDP buffer (83 packets,
# measured 5e-4 to 1e-2). A DropTail buffer of 3300 packets (40 BDP) on both links brings
# subflow 1 to a handful of losses in 200 s, the paper's order (ns3 profile, 2026-11-25:
# 3000 packets 3.7e-4, 3200 6.9e-5, 3300 4.7e-5, 3400-3800 none at all). In today's TCP
# it measures no loss; the rate there is one overflow episode or none (2026-11-28: 2100
# packets 1.3e-2, 2150 3.4e-5, 2300 2.7e-2), so the buffer was not re-chosen, and the
# report's counting interval says what 0 losses can and cannot tell apart. An environment
# variant only: no verdict is judged on it (docs/reproductions.md).
LB_CALIBRATED_BUFFER = 3300
LOAD_BALANCING_CALIBRATED = replace(
    LOAD_BALANCING,
    name="load_balancing_calibrated",
    variants=tuple(replace(v, overrides={**v.overrides,
                                         **{f"links.{link}.queue": {"kind": "droptail", "packets": LB_CALIBRATED_BUFFER}
                                            for link in ("link1", "link2")}})
                   for v in LB_VARIANTS),
    replications=3, quick_replications=2,
    description=f"load_balancing with DropTail buffers of {LB_CALIBRATED_BUFFER} packets (40 BDP) on both links, "
    "which brought subflow 1's loss rate without B_r to Table 2's order (3.19e-5) on 2026-11-25; at such buffers "
    "one overflow episode makes the rate (an environment variant: the paper does not state its buffers; no verdict "
    "is judged on it).",
)

COMPARISON, COMPARISON_SERIES = _pair(
    "comparison", HERE / "comparison.toml", _variants(COMPARED), connection_metrics, window_series,
    5, 2, {"duration": "80s", "warmup": "20s"},
    "Fig. 20: the load-balancing topology; MPMTP, MPCubic, uncoupled Reno subflows, COUPLED and LIA; "
    "200 s with 20 s warm-up (quick: 80 s).")


def cubic_fairness_metrics(result, variant) -> dict:
    warmup = result.config.get("warmup_ns", 0) / 1e9
    sub = _mean_cwnd(result, "mpmtp", warmup)
    (cubic,) = _mean_cwnd(result, "cubic", warmup)
    flows = result.summary["flows"]
    return {
        "cwnd1_mean": sub[0],
        "cwnd2_mean": sub[1],
        "mpmtp_cwnd_mean": sum(sub),
        "cubic_cwnd_mean": cubic,
        "window_ratio": sum(sub) / cubic,
        "subflow_ratio": sub[0] / sub[1],
        "mpmtp_bps": flows["mpmtp"]["goodput_bps"],
        "cubic_bps": flows["cubic"]["goodput_bps"],
    }


def cubic_fairness_series(result, variant):
    return series_rows(result, ["mpmtp", "cubic"], ["cwnd", "throughput_bps"], every_s=0.4)


CUBIC_FAIRNESS, CUBIC_FAIRNESS_SERIES = _pair(
    "cubic_fairness", HERE / "cubic_fairness.toml", (Variant("MPMTP + CUBIC", {}, {"cc": "MPMTP"}),),
    cubic_fairness_metrics, cubic_fairness_series, 10, 3, {"duration": "80s", "warmup": "20s"},
    "Fig. 21/22: a 2-subflow MPMTP connection and one CUBIC flow on a 50 Mbit/s bottleneck (RTT 100 ms, "
    "DropTail BDP); 200 s with 20 s warm-up (quick: 80 s). Windows are time averages after the warm-up.")

# Sensitivity: Fig. 21 names no queue. Besides the reproduction's one-BDP DropTail (417 packets), ns-2's
# default DropTail limit (50 packets) and RED with thresholds at a quarter and three quarters of the BDP.
BDP_PACKETS = 417
FAIRNESS_QUEUES = (
    ("DropTail, 50 packets (ns-2's default limit)", {"kind": "droptail", "packets": 50}),
    (f"RED, thresholds {BDP_PACKETS // 4} and {3 * BDP_PACKETS // 4} packets (a quarter and three quarters of "
     f"the BDP), max_p 0.1, gentle, weight 0.002",
     {"kind": "red", "min_th": BDP_PACKETS // 4, "max_th": 3 * BDP_PACKETS // 4, "max_p": 0.1, "weight": 0.002,
      "gentle": True, "limit": 2 * BDP_PACKETS}),
)
# What decides the split on the reproduction's DropTail (added 2026-11-28, after the runs that
# showed it; docs/algorithms/mpmtp.md): the same queue with every sender paced (`tcp.pacing`,
# Linux's rule), so that no sender's window growth reaches the full queue as a burst. Not the
# paper's setting: ns-2's TCP agents do not pace.
PACING = "every sender paced (tcp.pacing; ns-2's senders do not pace)"
PACED = f"DropTail, one BDP, {PACING}"
FAIRNESS_SETTINGS = tuple((label, {"links.bottleneck.queue": queue}) for label, queue in FAIRNESS_QUEUES) + (
    (PACED, {"tcp.pacing": True}),)
CUBIC_FAIRNESS_QUEUES = replace(
    CUBIC_FAIRNESS,
    name="cubic_fairness_queues",
    variants=tuple(Variant(f"MPMTP + CUBIC, {label}", overrides, {"cc": "MPMTP", "queue": label})
                   for label, overrides in FAIRNESS_SETTINGS),
    description="Sensitivity (Fig. 21 names no queue): the cubic_fairness runs with the bottleneck queue "
    "replaced by each of " + "; ".join(label for label, _ in FAIRNESS_QUEUES) + "; and, to show what decides "
    f"the split, the reproduction's queue with {PACING}.",
)


def sensitivity(data) -> list[tuple[str, str, str, str]]:
    """The cubic_fairness claim per bottleneck queue (the reproduction's DropTail of one BDP and the others)
    and with paced senders."""
    frames = [("DropTail, one BDP (417 packets; the reproduction's)", data.get("cubic_fairness"))]
    swept = data.get("cubic_fairness_queues")
    for label, _ in FAIRNESS_SETTINGS:
        frames.append((label, None if swept is None else swept[swept["queue"] == label]))
    rows = []
    for label, df in frames:
        if df is None or df.empty:
            continue
        verdict, reason = cubic_fairness_verdict({"cubic_fairness": df})
        choice = "the senders' pacing" if label == PACED else "Fig. 21's bottleneck queue"
        rows.append((choice, label, reason, f"cubic_fairness: {verdict}"))
    return rows

# ---- claims ------------------------------------------------------------------------


def _mean(df, cc, column):
    rows = df[df["cc"] == cc]
    return float(rows[column].mean()) if len(rows) else math.nan


def _values(df, cc, column):
    return df[df["cc"] == cc][column].dropna().tolist()


def _direction(cmp, wanted):
    """A point's outcome: passed when the comparison is `wanted`, None (not tested) on a tie."""
    return None if cmp == verdicts.TIE else cmp == wanted


def congested_verdict(data):
    df = data["congested"]
    mine = _values(df, MPMTP[0], "losses")
    checks = [(f"vs {label}", _mean(df, MPMTP[0], "losses") / _mean(df, label, "losses"),
               _direction(verdicts.compare(mine, _values(df, label, "losses")), verdicts.BELOW))
              for label in (LIA[0], MPCUBIC[0])]
    verdict, reason = verdicts.points(checks, "losses MPMTP / other", "below 1 (95 % intervals apart)", ".3f")
    counts = ", ".join(f"{label} {verdicts.interval_text(_values(df, label, 'losses'), '.0f')}"
                       for label in (MPMTP[0], LIA[0], MPCUBIC[0]))
    return verdict, f"{reason}; losses (mean +- 95 % CI) {counts}"


def _ramp(data):
    df = data["bandwidth_increase"]
    return {label: (_mean(df, label, "ramp_s"), _mean(df, label, "ramp_reached"), _mean(df, label, "losses_after"),
                    _mean(df, label, "share_at_stop"))
            for label in (MPMTP[0], MPCUBIC[0])}


def bandwidth_verdict(data):
    df = data["bandwidth_increase"]
    r = _ramp(data)
    (ramp_m, reached_m, loss_m, at_m), (ramp_c, reached_c, loss_c, at_c) = r[MPMTP[0]], r[MPCUBIC[0]]
    cmp = verdicts.compare(_values(df, MPMTP[0], "ramp_s"), _values(df, MPCUBIC[0], "ramp_s"))
    faster = (verdicts.NOT_TESTED if cmp == verdicts.TIE
              else "reproduced" if cmp == verdicts.BELOW and reached_m == 1.0 else "not reproduced")
    no_losses = "reproduced" if max(_values(df, MPMTP[0], "losses_after"), default=1) == 0 else "not reproduced"
    reason = (f"time to {RAMP_TARGET:.0%} of capacity after 20 s: MPMTP {ramp_m:.2f} s (reached in "
              f"{reached_m:.0%} of runs), MPCubic {ramp_c:.2f} s ({reached_c:.0%}) ({cmp}; faster: {faster}); mean "
              f"losses after 20 s: MPMTP {loss_m:.1f}, MPCubic {loss_c:.1f} (none in any run: {no_losses}); share "
              f"of capacity at 20 s: MPMTP {at_m:.0%}, MPCubic {at_c:.0%}")
    u = _values(df, MPCUBIC_UNCOUPLED[0], "ramp_s")
    if u:
        reason += (f"; not judged, MPCubic with delta = 1: ramp {sum(u) / len(u):.2f} s "
                   f"({verdicts.compare(_values(df, MPMTP[0], 'ramp_s'), u)} for MPMTP), losses after 20 s "
                   f"{_mean(df, MPCUBIC_UNCOUPLED[0], 'losses_after'):.1f}")
    return verdicts.combine({"faster": faster, "no losses": no_losses}), reason


def load_balancing_verdict(data):
    df = data["load_balancing"]
    without, with_ = _values(df, "MPMTP without B_r", "loss_rate1"), _values(df, "MPMTP with B_r", "loss_rate1")
    if not without or not with_:
        return "not reproduced", "no measured data"
    m_without, m_with = sum(without) / len(without), sum(with_) / len(with_)
    reduction = 1 - m_with / m_without if m_without > 0 else 0.0
    cmp = verdicts.compare(with_, without)
    if cmp == verdicts.TIE:
        verdict = verdicts.NOT_TESTED
    elif cmp == verdicts.ABOVE:
        verdict = "not reproduced"
    else:
        verdict = "reproduced" if LB_BAND[0] <= reduction <= LB_BAND[1] else "partly"
    shift = (_mean(df, "MPMTP with B_r", "throughput2_bps") / _mean(df, "MPMTP with B_r", "throughput1_bps"),
             _mean(df, "MPMTP without B_r", "throughput2_bps") / _mean(df, "MPMTP without B_r", "throughput1_bps"))
    return verdict, (f"subflow-1 loss rate {verdicts.interval_text(without)} without B_r, "
                     f"{verdicts.interval_text(with_)} with ({reduction:.0%} fall, {cmp}; reproduced: a fall of "
                     f"{LB_BAND[0]:.0%} to {LB_BAND[1]:.0%}); subflow 2 / subflow 1 throughput {shift[1]:.2f} "
                     f"without, {shift[0]:.2f} with (paper: 3.19e-5 -> 8.3e-6)")


def comparison_verdict(data):
    df = data["comparison"]
    labels = [label for label, _, _ in COMPARED]
    goodput = {label: _mean(df, label, "goodput_bps") for label in labels}
    losses = {label: _mean(df, label, "losses") for label in labels}
    aimd = ("uncoupled", "COUPLED", "LIA")
    lo, hi = min(losses[a] for a in aimd), max(losses[a] for a in aimd)
    cmps = {label: verdicts.compare(_values(df, "MPMTP", "goodput_bps"), _values(df, label, "goodput_bps"))
            for label in labels if label != "MPMTP"}
    if any(c == verdicts.BELOW for c in cmps.values()):
        highest = "not reproduced"
    elif any(c == verdicts.TIE for c in cmps.values()):
        highest = verdicts.NOT_TESTED
    else:
        highest = "reproduced"
    similar = "reproduced" if SIMILAR[0] * lo <= losses["MPMTP"] <= SIMILAR[1] * hi else "not reproduced"
    reason = (f"goodput (Mbit/s) " + ", ".join(f"{k} {v / 1e6:.2f}" for k, v in goodput.items())
              + f" (MPMTP vs each: {', '.join(f'{k} {c}' for k, c in cmps.items())}; highest: {highest}); losses "
              + ", ".join(f"{k} {v:.0f}" for k, v in losses.items())
              + f" (similar to the AIMD schemes: within [{SIMILAR[0]} x {lo:.0f}, {SIMILAR[1]} x {hi:.0f}]: {similar})")
    return verdicts.combine({"highest": highest, "similar losses": similar}), reason


def cubic_fairness_verdict(data):
    df = data["cubic_fairness"]
    if df.empty:
        return "not reproduced", "no measured data"
    ratio = df["mpmtp_cwnd_mean"].mean() / df["cubic_cwnd_mean"].mean()
    sub = df["cwnd1_mean"].mean() / df["cwnd2_mean"].mean()
    similar = SIMILAR[0] <= ratio <= SIMILAR[1]
    near = PARTLY[0] <= ratio <= PARTLY[1]
    equal = abs(sub - 1) <= EQUAL_SUBFLOWS
    score = (1.0 if similar else 0.5 if near else 0.0) + (1.0 if equal else 0.0)
    verdict = "reproduced" if score == 2 else "not reproduced" if score == 0 else "partly"
    return verdict, (f"mean window MPMTP (sum of subflows) / CUBIC {ratio:.3f} ({df['mpmtp_cwnd_mean'].mean():.0f} vs "
                     f"{df['cubic_cwnd_mean'].mean():.0f} segments; similar: within [{SIMILAR[0]}, {SIMILAR[1]}]); "
                     f"subflow 1 / subflow 2 {sub:.3f} (equal: within {EQUAL_SUBFLOWS:.0%}); goodput "
                     f"{df['mpmtp_bps'].mean() / 1e6:.1f} vs {df['cubic_bps'].mean() / 1e6:.1f} Mbit/s")


def binomial_verdict(data):
    df = data["binomial"]
    base = _values(df, "MPTCP (LIA)", "losses")
    checks = [(label, _mean(df, label, "losses") / _mean(df, "MPTCP (LIA)", "losses"),
               _direction(verdicts.compare(_values(df, label, "losses"), base), verdicts.ABOVE))
              for label in ("MPSQRT", "MPIAD")]
    checks.append(("MPSQRT / MPIAD (Table 1 order)", _mean(df, "MPSQRT", "losses") / _mean(df, "MPIAD", "losses"),
                   _direction(verdicts.compare(_values(df, "MPSQRT", "losses"), _values(df, "MPIAD", "losses")),
                              verdicts.ABOVE)))
    verdict, reason = verdicts.points(checks, "loss ratios", "above 1 (95 % intervals apart)", ".3f")
    counts = ", ".join(f"{label} {_mean(df, label, 'losses'):.0f}" for label, _, _ in BINOMIAL)
    return verdict, (f"{reason}; mean losses {counts} (paper: 384, 6460, 1544, i.e. 16.8 x and 4.0 x MPTCP's; "
                     "magnitudes not judged: Table 1's setup is not described)")


def _headline_part(mine, theirs, paper, what):
    """One of the headline's two figures: the improvement of MPMTP over MPCubic (`mine`,
    `theirs`: lower is better, per replication) against the paper's `paper` fraction."""
    m, t = sum(mine) / len(mine), sum(theirs) / len(theirs)
    cmp = verdicts.compare(mine, theirs)
    if cmp == verdicts.TIE:
        return verdicts.NOT_TESTED, f"{what}: MPMTP {m:.3g} vs MPCubic {t:.3g}, a tie within the 95 % intervals"
    gain = t / m - 1 if what == "ramp" else 1 - m / t
    if cmp == verdicts.ABOVE:
        worse = m / t - 1
        return "not reproduced", (f"{what}: MPMTP {m:.3g} vs MPCubic {t:.3g} ({worse:.0%} worse; paper {paper:.0%} "
                                  "better)")
    lo, hi = HEADLINE_BAND[0] * paper, HEADLINE_BAND[1] * paper
    verdict = "reproduced" if lo <= gain <= hi else "partly"
    return verdict, (f"{what}: MPMTP {m:.3g} vs MPCubic {t:.3g}, {gain:.0%} better (paper {paper:.0%}; reproduced "
                     f"within {lo:.0%} to {hi:.0%})")


def headline_verdict(data):
    df = data["bandwidth_increase"]
    parts = {}
    texts = []
    for what, column, paper in (("ramp", "ramp_s", HEADLINE_RAMP), ("losses", "losses_total", HEADLINE_LOSS)):
        mine, theirs = _values(df, MPMTP[0], column), _values(df, MPCUBIC[0], column)
        if not mine or not theirs:
            return "not reproduced", "no measured data"
        parts[what], text = _headline_part(mine, theirs, paper, what)
        texts.append(text)
    return verdicts.combine(parts), ("bandwidth increase, time to 90 % of capacity after 20 s (s) and losses over "
                                     "the run: " + "; ".join(texts))


def table2_loss_rates(data):
    """Table 2: per-subflow loss rates of MPMTP without and with B_r, each pooled over the
    replications (losses / sent) with the packets it counts. A replication that measured
    exactly what another did is the same run (a scenario whose jitter moved nothing) and
    counts once: copies are not independent counts."""
    paper = {"MPMTP without B_r": (3.19e-5, 1e-7), "MPMTP with B_r": (8.3e-6, 1e-7)}
    out = []
    for name, what in (("load_balancing", "Table 2"),
                       ("load_balancing_calibrated", f"calibrated variant ({LB_CALIBRATED_BUFFER}-packet buffers)")):
        df = data.get(name)
        if df is None or df.empty:
            continue
        for label, rates in paper.items():
            rows = df[df["cc"] == label].drop_duplicates(["losses1", "sent1", "losses2", "sent2"])
            for i in (1, 2):
                sent = float(rows[f"sent{i}"].sum())
                if sent > 0:
                    out.append((f"{what}, {label}: subflow {i} (losses / sent)",
                                float(rows[f"losses{i}"].sum()) / sent, rates[i - 1], sent))
    return out


# ---- figures -----------------------------------------------------------------------


def _first_run(df):
    return df[df["replication"] == df["replication"].min()]


def _windows_and_losses(data, name, labels, title_left, marker_t=None):
    from ..reproduce.figures import new_figure

    series = data[f"{name}_series"]
    fig, (left, right) = new_figure(ncols=2)
    for i, label in enumerate(labels):
        one = _first_run(series[series["cc"] == label])
        for j, (sid, rows) in enumerate(one.groupby("series", sort=True)):
            left.plot(rows.t_s, rows.cwnd, color=f"C{i}", linewidth=0.8, linestyle="-" if j == 0 else ":",
                      label=f"{label} subflow {j + 1}")
        total = one.groupby("t_s", sort=True)["losses"].sum()
        right.plot(total.index, total.values, color=f"C{i}", label=label)
    left.set(title=title_left, xlabel="time (s)", ylabel="cwnd (segments)", ylim=(0, None))
    right.set(title="cumulative packet losses of the connection", xlabel="time (s)", ylabel="losses (segments)")
    for ax in (left, right):
        if marker_t is not None:
            ax.axvline(marker_t, color="0.5", linestyle="--", linewidth=0.8)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small")
    return fig


def draw_congested(data):
    return _windows_and_losses(data, "congested", [x[0] for x in (LIA, MPCUBIC, MPMTP)],
                               "subflow windows (first replication)")


def draw_bandwidth(data):
    return _windows_and_losses(data, "bandwidth_increase", [x[0] for x in (MPCUBIC, MPMTP, LIA)],
                               "subflow windows; background leaves at 20 s", marker_t=BG_STOP_S)


def draw_binomial(data):
    return _windows_and_losses(data, "binomial", [x[0] for x in BINOMIAL], "subflow windows (first replication)")


def draw_load_balancing(data):
    from ..reproduce.figures import new_figure

    series, runs = data["load_balancing_series"], data["load_balancing"]
    fig, axes = new_figure(ncols=3, width=5.2)
    for ax, (label, *_) in zip(axes[:2], [(v.name,) for v in LB_VARIANTS]):
        one = _first_run(series[series["cc"] == label])
        for j, (sid, rows) in enumerate(one.groupby("series", sort=True)):
            ax.plot(rows.t_s, rows.cwnd, color=f"C{j}", linewidth=0.8,
                    label=f"subflow {j + 1} ({'20' if j == 0 else '5'} background flows)")
        ax.set(title=label, xlabel="time (s)", ylabel="cwnd (segments)", ylim=(0, None))
        ax.title.set_fontsize("small")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small")
    from ..reproduce.stats import summarize

    s = summarize(runs, ["cc"], ["loss_rate1", "loss_rate2"])
    x = range(len(s))
    axes[2].bar([i - 0.2 for i in x], s.loss_rate1_mean, 0.4, yerr=s.loss_rate1_ci.fillna(0), capsize=3,
                label="subflow 1", color="C0")
    axes[2].bar([i + 0.2 for i in x], s.loss_rate2_mean, 0.4, yerr=s.loss_rate2_ci.fillna(0), capsize=3,
                label="subflow 2", color="C1")
    axes[2].set_xticks(list(x), [c.replace("MPMTP ", "") for c in s.cc], fontsize="small")
    axes[2].set(title="loss rate per subflow (Table 2)", ylabel="losses / sent packets")
    axes[2].title.set_fontsize("small")
    axes[2].grid(True, axis="y", alpha=0.3)
    axes[2].legend(fontsize="x-small")
    return fig


def draw_comparison(data):
    from ..reproduce.figures import new_figure
    from ..reproduce.stats import summarize

    s = summarize(data["comparison"], ["cc"], ["losses", "cwnd_total_mean", "goodput_bps"])
    fig, axes = new_figure(ncols=3, width=5.2)
    for ax, metric, scale, ylabel in ((axes[0], "losses", 1, "packet losses (after warm-up)"),
                                      (axes[1], "cwnd_total_mean", 1, "mean total cwnd (segments)"),
                                      (axes[2], "goodput_bps", 1e-6, "goodput (Mbit/s)")):
        ax.bar(s.cc, s[f"{metric}_mean"] * scale, yerr=s[f"{metric}_ci"].fillna(0) * scale, capsize=3,
               color=[f"C{i}" for i in range(len(s))])
        ax.set(ylabel=ylabel)
        ax.tick_params(axis="x", labelrotation=45, labelsize="small")
        ax.grid(True, axis="y", alpha=0.3)
    return fig


def draw_cubic_fairness(data):
    from ..reproduce.figures import new_figure

    one = _first_run(data["cubic_fairness_series"])
    fig, (left, right) = new_figure(ncols=2)
    mp = one[one["series"].str.startswith("mpmtp/")]
    total = mp.groupby("t_s", sort=True)["cwnd"].sum()
    cubic = one[one["series"] == "cubic/0"]
    left.plot(total.index, total.values, color="C0", linewidth=0.8, label="MPMTP (sum of 2 subflows)")
    left.plot(cubic.t_s, cubic.cwnd, color="C3", linewidth=0.8, label="CUBIC")
    left.set(title="(a) MPMTP against CUBIC", xlabel="time (s)", ylabel="cwnd (segments)", ylim=(0, None))
    for j, (sid, rows) in enumerate(mp.groupby("series", sort=True)):
        right.plot(rows.t_s, rows.cwnd, color=f"C{j}", linewidth=0.8, label=f"MPMTP subflow {j + 1}")
    right.set(title="(b) MPMTP subflows", xlabel="time (s)", ylabel="cwnd (segments)", ylim=(0, None))
    for ax in (left, right):
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small")
    return fig


def draw_throughput_delay(data):
    from ..reproduce.figures import throughput_vs_delay

    return throughput_vs_delay(data["comparison"], "cc", title="Comparison setup (Fig. 20)")


def draw_subflows(data):
    from ..reproduce.figures import label_subflow_axes, new_figure, plot_subflow

    series = data["congested_series"]
    fig, axes = new_figure(ncols=3, width=5.2)
    for i, label in enumerate([x[0] for x in (LIA, MPCUBIC, MPMTP)]):
        one = _first_run(series[series["cc"] == label])
        for j, (sid, rows) in enumerate(one.groupby("series", sort=True)):
            style = {"color": f"C{i}", "linewidth": 0.7, "linestyle": "-" if j == 0 else ":",
                     "label": f"{label} subflow {j + 1}"}
            plot_subflow(axes, rows, **style)
    label_subflow_axes(axes)
    axes[0].legend(fontsize="xx-small")
    return fig


# The change every comparing claim got in issue 15.
TIE_RULE = RuleChange("2026-11-25", "a comparison of means -> 95 % intervals apart; ties not tested",
                      "issue 15: a tie is no evidence; changed after the runs of 2026-11-24 were known")

PAPER = Paper(
    name="mpmtp",
    environment=table2_loss_rates,
    sensitivity=sensitivity,
    tcp_profile="ns3",
    tcp_profile_reason="ns-2 simulations with SACK; ns-3's TCP is the nearest simulated stack mpcc models",
    tcp_settings=(NS2_IMMEDIATE_ACKS, NS2_PIPE, NS2_NO_HANDSHAKE, NS2_NO_PRR),
    title="Lee & Chung: MPMTP, multipath congestion control for streaming",
    reference="S. Lee, K. Chung: A Multipath Congestion Control Scheme for High-Quality Multimedia Streaming "
    "(MPMTP), journal article published January 31, 2017 (journal not stated in the copy worked from).",
    summary="Congested link, bandwidth increase, load balancing, comparison with MPCubic, uncoupled, COUPLED and "
    "LIA, fairness with one CUBIC flow, and the binomial schemes' loss counts (ns-2 setup: SACK, 1500-byte "
    "packets).",
    experiments=(CONGESTED, CONGESTED_SERIES, BANDWIDTH, BANDWIDTH_SERIES, LOAD_BALANCING, LOAD_BALANCING_SERIES,
                 LOAD_BALANCING_CALIBRATED, COMPARISON, COMPARISON_SERIES, CUBIC_FAIRNESS, CUBIC_FAIRNESS_SERIES,
                 CUBIC_FAIRNESS_QUEUES, BINOMIAL_EXP, BINOMIAL_SERIES),
    figures=(
        Figure("congested", "Congested link: windows and losses (Fig. 17)",
               "Left: subflow windows of MPTCP (LIA), MPCubic and MPMTP (subflow 1 solid, 2 dotted; first "
               "replication). Right: the connection's cumulative losses.", draw_congested),
        Figure("bandwidth_increase", "Bandwidth increase at 20 s (Fig. 18)",
               "The background flows stop at 20 s (dashed line). Left: subflow windows; right: cumulative losses "
               "(first replication).", draw_bandwidth),
        Figure("load_balancing", "Load balancing (Fig. 19, Table 2)",
               "Subflow windows of MPMTP without and with B_r (first replication), and each subflow's loss rate "
               "after the warm-up (mean and 95 % CI over replications).", draw_load_balancing),
        Figure("comparison", "Losses and windows of five schemes (Fig. 20)",
               "Mean over replications with 95 % CI: losses after the warm-up, mean total window, goodput.",
               draw_comparison),
        Figure("cubic_fairness", "MPMTP and CUBIC on one bottleneck (Fig. 22)",
               "(a) MPMTP's total window against CUBIC's; (b) the two MPMTP subflows (first replication).",
               draw_cubic_fairness),
        Figure("binomial", "Binomial schemes against MPTCP (Fig. 2, Table 1)",
               "Subflow windows and cumulative losses of MPTCP (LIA), MPSQRT and MPIAD (first replication).",
               draw_binomial),
        Figure("throughput_delay", "Goodput against the 95th percentile of RTT (comparison setup)",
               "Each small point is one run; diamonds mark each algorithm's mean.", draw_throughput_delay),
        Figure("subflows", "Per-subflow view in the congested link",
               "cwnd, smoothed RTT and throughput of each subflow (subflow 1 solid, 2 dotted; first replication).",
               draw_subflows),
    ),
    claims=(
        Claim("congested", "In a congested link MPMTP generates fewer packet losses than MPTCP and MPCubic.",
              "congested", congested_verdict, "Sec. 4, Fig. 17(b)",
              quote="Fig. 17 (b) shows that because it prevents overshooting of the transmission rate by linearly "
              "increasing the congestion window at saturation, the MPMTTP generated less packet losses than the "
              "other schemes.",
              rule="MPMTP's losses after the warm-up are below those of MPTCP (LIA) and of MPCubic, each with the "
              "95 % intervals apart; a tie is not tested. The figure with the counts is missing from the text, so "
              "only the direction is judged.",
              rule_history=(TIE_RULE,), compares=True),
        Claim("bandwidth_increase", "When bandwidth becomes available MPMTP ramps up faster than MPCubic and has "
              "no packet loss after 20 s.", "bandwidth_increase", bandwidth_verdict, "Sec. 4, Fig. 18",
              quote="Fig. 18 (a) shows that MPMTTP more quickly increased the congestion window faster than "
              "MPCUBIC; while Fig. 18 (b) shows that because of overshooting the transmission rate, MPCUBIC "
              "generated burst packet losses. The proposed scheme does not generate a packet loss after the 20s, "
              "because it increases the congestion window linearly at saturation.",
              rule="Two parts: MPMTP's time to 90 % of the capacity after 20 s is below MPCubic's with the 95 % "
              "intervals apart (tie: not tested) and reached in every run; MPMTP marks no loss after 20 s in any "
              "run ('does not generate a packet loss'). Both: reproduced; one: partly.",
              rule_history=(TIE_RULE,), compares=True),
        Claim("load_balancing", "With the load-balancing factor B_r the loss rate of subflow 1 (the congested "
              "path) falls (Table 2: 3.19e-5 -> 8.3e-6; the text: losses fall by 30 %).", "load_balancing",
              load_balancing_verdict, "Sec. 4, Fig. 19, Table 2",
              quote="Table 2 shows that when using load balancing, the number of packet losses in subflow 1 "
              "reduces by 30%.",
              rule="Subflow 1's loss rate with B_r is below the rate without, 95 % intervals apart (tie: not "
              "tested), and the fall lies between 0.8 x the text's 30 % and 1.25 x Table 2's 74 % (the paper "
              "states both; the band is the project's 'similar' tolerance for a single unreplicated figure); a "
              "smaller or larger significant fall: partly.",
              rule_history=(RuleChange("2026-11-25", "a fall of at least 30 % (plain means) -> a significant fall "
                                       "of 24 % to 92 %", "issue 15: use the paper's magnitudes with a stated "
                                       "tolerance and treat ties apart; after the runs of 2026-11-24 were known"),),
              compares=True),
        Claim("comparison", "MPMTP has a number of losses similar to the AIMD schemes (uncoupled, COUPLED, LIA) "
              "and the highest throughput of MPMTP, MPCubic, uncoupled, COUPLED and LIA.", "comparison",
              comparison_verdict, "Sec. 4, Fig. 20",
              quote="Fig. 20 shows that the proposed scheme displayed a similar number of packet losses to the "
              "AIMD-based schemes, and the highest average throughput, because of the fast increasing behavior "
              "and load balancing.",
              rule="Two parts: MPMTP's goodput is above each other scheme's with the 95 % intervals apart (a tie "
              "with any: not tested); MPMTP's mean losses lie within [0.8 x the smallest, 1.25 x the largest] "
              "AIMD count ('similar', the project's band). Both: reproduced; one: partly.",
              rule_history=(RuleChange("2026-11-25", "'AIMD-like' at most 1.5 x the largest AIMD count and "
                                       "'highest' on means -> within [0.8 x smallest, 1.25 x largest] and highest "
                                       "with 95 % intervals apart", "issue 15: the 1.5 x band was looser than the "
                                       "project's 'similar'; changed after the runs of 2026-11-24 were known"),),
              compares=True),
        Claim("cubic_fairness", "A 2-subflow MPMTP and one CUBIC flow on a shared bottleneck have similar total "
              "windows, and the two subflows have almost the same window.", "cubic_fairness",
              cubic_fairness_verdict, "Sec. 4, Fig. 22",
              quote="We can see that even if the MPMTCP uses two subflows, the total congestion windows of the "
              "proposed MPMTCP and single-path CUBIC are similar.",
              rule="MPMTP's mean total window / CUBIC's within [0.8, 1.25] ('similar'; partly within [2/3, 1.5]) "
              "and subflow 1 / subflow 2 within 15 % (the next sentence: 'the subflows of MPMTCP have almost the "
              "same congestion window'). A claim of equality: equal windows are what it predicts."),
        Claim("binomial", "The binomial schemes lose more packets than MPTCP (Table 1: MPTCP 384, MPSQRT 6460, "
              "MPIAD 1544).", "binomial", binomial_verdict, "Sec. 2.2, Table 1",
              quote="However, MPSQRT and MPIID generate frequent packet losses, because upon a packet loss, they "
              "decrease the congestion window less than does MPTCP.",
              rule="MPSQRT's and MPIAD's losses are each above MPTCP's (LIA), and MPSQRT's above MPIAD's (Table "
              "1's order), 95 % intervals apart (ties not tested). Table 1's ratios (16.8 x, 4.0 x) are quoted "
              "but not judged: its setup (rates, buffers, duration) is not described.",
              rule_history=(RuleChange("2026-11-25", "above MPTCP on means -> above with 95 % intervals apart, plus "
                                       "Table 1's MPSQRT > MPIAD order", "issue 15 and a review (the order flips "
                                       "in --quick); after the runs of 2026-11-24 were known"),),
              compares=True),
        Claim("headline", "MPMTP increases the transmission rate 33 % faster than MPCubic while reducing packet "
              "losses by 39 %.", "bandwidth_increase", headline_verdict, "Sec. 5 (Conclusions)",
              quote="Our performance evaluation shows that the proposed scheme can improve the quality of "
              "multimedia streaming by increasing the transmission rate 33% faster than the MPCUBIC while "
              "reducing packet losses by 39%.",
              rule="In the bandwidth-increase runs, per figure: MPCubic's ramp time / MPMTP's - 1 against 33 %, "
              "1 - MPMTP's losses / MPCubic's against 39 %. A tie of the two schemes (95 % intervals overlap): "
              "not tested; MPMTP worse: not reproduced; better by 0.8 to 1.25 x the paper's figure (a single "
              "unreplicated figure, the project's 'similar' band): reproduced; better by more or less: partly. "
              "The claim is reproduced when both figures are.",
              rule_history=(RuleChange("2026-11-25", "full credit from 3/4 of each figure, one-sided (set with the "
                                       "first runs, 2026-11-22) -> within [0.8, 1.25] x each figure, ties not "
                                       "tested", "a review: 31 % counted as 39 % and a 12 x faster ramp as 33 %; "
                                       "restored to the paper's magnitudes after those runs"),),
              compares=True),
    ),
    notes=(
        "Rates, delays and queues are not given for most experiments. Chosen: RTT 100 ms on every path, DropTail "
        "buffers of one BDP (ns-2's default queue), Reno background flows (ns-2's TCP/Sack1); congested link and "
        "Table 1: two 20 Mbit/s links with 10 background flows each; bandwidth increase: 50 Mbit/s links "
        "(stated) with 10 background flows each; load balancing and comparison: 10 Mbit/s (stated), 20 and 5 "
        "background flows (stated).",
        "Table 1's setup is not described; it runs in the congested-link topology. 'MPTCP' is LIA (RFC 6356).",
        "The comparison (Fig. 20) is the second experiment of the load-balancing section, so it runs in that "
        "topology; 'uncoupled' is Reno on each subflow.",
        "Loss counts are segments the connection marked lost (SACK or timeout) after the warm-up; loss rates "
        "divide them by the packets the subflow sent. ns-2 counted drops; both count the same events here "
        "except spurious marks.",
        "Ramp speed: the time after 20 s until the connection's throughput (1 s average) reaches 90 % of the "
        "payload capacity; '33 % faster' is read as MPCubic's time / MPMTP's time - 1, '39 % fewer losses' as "
        "1 - MPMTP's / MPCubic's losses over the bandwidth-increase run.",
        "Thresholds: 'similar' = ratio within [0.8, 1.25] (partly: [2/3, 1.5]); subflows 'almost the same' = "
        "within 15 %; 'similar losses to the AIMD schemes' = within [0.8 x the smallest, 1.25 x the largest] "
        "AIMD count; the headline's 33 % and 39 % are reproduced within [0.8, 1.25] x each; comparisons "
        "between schemes need their 95 % intervals apart (a tie is not tested).",
    ),
)
