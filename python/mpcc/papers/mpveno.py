"""T.-A. Le: MPVeno, multipath TCP Veno for wireless losses (docs/references.md#le-mpveno).
Congestion balance of MPTCPW against wMPTCPW, fairness of MPVeno with TCP Veno,
goodput against random loss, friendliness to OLIA. Scenarios: scenarios/mpveno/."""

from __future__ import annotations

from dataclasses import replace

from ..reproduce import Claim, Experiment, Figure, Paper, RuleChange, Variant
from ..reproduce import verdicts
from . import NS2_IMMEDIATE_ACKS, NS2_NO_HANDSHAKE, NS2_NO_PRR, NS2_PIPE, SCENARIOS

HERE = SCENARIOS / "mpveno"

# Random loss rates of the wireless sweeps: 0.001 % to 5 % (the paper's range).
LOSS_RATES = (1e-5, 5e-5, 1e-4, 1e-3, 5e-3, 1e-2, 5e-2)
PATH1_FIXED = 1e-4  # Fig. 5(b): path 1 at 0.01 %
# The paper's claim "MPVeno above OLIA" starts at 5e-3 % (Fig. 5(a)).
OLIA_CLAIM_FROM = 5e-5

# The controllers of Fig. 5: (label, cc, cc_params).
WIRELESS_CCS = (
    ("MPVeno b=3", "mpveno", {"beta": 3}),
    ("MPVeno b=6", "mpveno", {"beta": 6}),
    ("OLIA", "olia", {}),
    ("MPTCPW", "mptcpw", {}),
    ("LIA", "lia", {}),
)
FRIENDLY_TESTS = (("MPTCPW", "mptcpw", {}), ("MPVeno b=3", "mpveno", {"beta": 3}), ("MPVeno b=6", "mpveno", {"beta": 6}))

# Thresholds of the verdicts.
SHIFT_MOVES = 1.5  # per-path share ratio at which traffic has clearly moved
FAIR_BAND = (0.8, 1.25)  # "about the same": within 20 % (either way)
PARTLY_BAND = (2 / 3, 1.5)
HALF = 0.5  # Fig. 2(c): each wMPTCPW subflow gets "approximately one-half" of a background flow's rate
MORE_THAN = 1.25  # "takes more": at least 25 % more
CAPACITY_TIE = 0.95  # both at >= 95 % of the goodput capacity: a tie, not a comparison


def _pct(p: float) -> str:
    return f"{p * 100:g}%"


# ---- helpers on one run ------------------------------------------------------------


def _flow(result, name):
    return result.summary["flows"][name]


def _goodput_capacity_bps(result, links) -> float:
    """Payload rate of the named links together (what a connection using them can reach)."""
    tcp = result.config["flows"][0]["tcp"]
    share = tcp["mss"] / (tcp["mss"] + tcp["header_bytes"])
    return sum(l["capacity"]["bps"] for l in result.config["links"] if l["name"] in links) * share


def _mean_goodput(result, prefix) -> float:
    rates = [f["goodput_bps"] for n, f in result.summary["flows"].items() if n.startswith(prefix + ".")]
    return sum(rates) / len(rates)


def _link_loss_rate(result, link) -> float:
    """Drops at the link over the packets of every flow crossing it (whole run)."""
    drops = result.summary["links"][link]["drops"]
    sent = 0
    for f in result.config["flows"]:
        routes = f.get("subflows") or [{"path": f["path"]}]
        stats = result.summary["flows"][f["name"]]["subflows"]
        idx = result.link_names.index(link)
        sent += sum(s["sent_packets"] for r, s in zip(routes, stats) if idx in r["path"])
    return drops / sent if sent else float("nan")


def series_rows(result, flows, columns, every_s=None, after_s=0.0):
    """The time series of the named flows as rows: one per subflow and sample.
    `subflow` is a text label (flow/id), so summaries group by it."""
    df = result.flow_series
    df = df[df["flow"].isin(flows) & (df["t_s"] >= after_s - 1e-9)]
    if every_s:
        interval = result.config.get("sample_interval_ns", 0) / 1e9
        step = max(1, round(every_s / interval)) if interval else 1
        df = df[(df["t_s"] / interval).round().astype("int64") % step == 0] if interval else df
    rows = []
    for rec in df[["t_s", "flow", "subflow", *columns]].itertuples(index=False):
        row = {"series": f"{rec.flow}/{rec.subflow}", "t_s": float(rec.t_s)}
        row.update({c: float(getattr(rec, c)) for c in columns})
        rows.append(row)
    return rows


# ---- experiments -------------------------------------------------------------------


def congestion_balance_metrics(result, variant) -> dict:
    mp = _flow(result, "mp")
    x1, x2 = (s["throughput_bps"] for s in mp["subflows"])
    bg1, bg2 = _mean_goodput(result, "bg1"), _mean_goodput(result, "bg2")
    return {
        "subflow1_bps": x1,
        "subflow2_bps": x2,
        "total_bps": x1 + x2,
        "goodput_bps": mp["goodput_bps"],
        "bg1_mean_bps": bg1,
        "bg2_mean_bps": bg2,
        "share1": x1 / bg1,  # subflow rate / mean background rate on its path
        "share2": x2 / bg2,
        "shift": (x2 / bg2) / (x1 / bg1) if x1 > 0 else float("inf"),
        "total_to_bg2": (x1 + x2) / bg2,
        "loss_rate_link1": _link_loss_rate(result, "link1"),
        "loss_rate_link2": _link_loss_rate(result, "link2"),
    }


def congestion_balance_series(result, variant):
    return series_rows(result, ["mp"], ["throughput_bps", "cwnd", "srtt_s"], every_s=1.0)


CB_VARIANTS = tuple(Variant(name, {"flows.0.cc": cc}, {"cc": name}) for name, cc in (("MPTCPW", "mptcpw"),
                                                                                       ("wMPTCPW", "wmptcpw")))
CB_QUICK = {"duration": "60s", "warmup": "20s"}

CONGESTION_BALANCE = Experiment(
    name="congestion_balance",
    scenario=HERE / "congestion_balance.toml",
    variants=CB_VARIANTS,
    metrics=congestion_balance_metrics,
    replications=5,
    quick_replications=2,
    quick_overrides=CB_QUICK,
    description="Links (40 Mbit/s, 30 ms) and (32 Mbit/s, 90 ms) with 20 and 12 Westwood+ flows; one 2-path "
    "MPTCPW or wMPTCPW connection. 200 s with 50 s warm-up (quick: 60 s, 20 s). share_i = subflow i's "
    "throughput / mean background goodput on link i; shift = share2 / share1.",
)
# Link 1 loses about 4 x the paper's 0.29 % with RED at BDP/4..3 BDP/4. Scaling link 1's
# RED limit and thresholds by 3.5 brings it to the paper's rate (MPTCPW, seeds 1-2, 200 s:
# x 1 1.1 %, x 2.5 0.42 %, x 3 0.34 %, x 3.5 0.27 %; 60 s: x 2 0.55 %, x 4 0.22 %). Since the
# ns-2 papers acknowledge every segment (2026-11-26) link 2 lost 3-4 x the paper's 0.1 % /
# 0.08 % at its stated buffer, so the variant scales link 2's RED too, by 1.75
# (recalibrated the same day, seeds 1-2, 200 s, MPTCPW / wMPTCPW: link 2 x 1 0.306 / 0.305 %,
# x 1.5 0.141 / 0.136 %, x 1.75 0.095 / 0.095 %, x 2 0.076 / 0.072 %, x 2.5 0.047 / 0.049 %;
# link 1 at x 3.5 then 0.34-0.37 %). The claim is judged on the paper's stated setup
# (buffer = BDP); this variant shows whether the loss regime changes the outcome.
CB_CALIBRATED_SCALE = 3.5
CB_CALIBRATED_SCALE_LINK2 = 1.75


def _red_scaled(bdp_packets: int, scale: float) -> dict:
    """The scenario's RED (limit one BDP, thresholds at a quarter and three quarters of
    it) with limit and thresholds scaled."""
    return {"kind": "red", "limit": round(bdp_packets * scale), "min_th": round(bdp_packets / 4 * scale),
            "max_th": round(3 * bdp_packets / 4 * scale), "max_p": 0.1, "weight": 0.002, "gentle": True,
            "mean_pktsize": "1040B"}


CB_CALIBRATED_QUEUES = {"links.link1.queue": _red_scaled(288, CB_CALIBRATED_SCALE),
                        "links.link2.queue": _red_scaled(692, CB_CALIBRATED_SCALE_LINK2)}
CONGESTION_BALANCE_CALIBRATED = replace(
    CONGESTION_BALANCE,
    name="congestion_balance_calibrated",
    variants=tuple(replace(v, overrides={**v.overrides, **CB_CALIBRATED_QUEUES}) for v in CB_VARIANTS),
    description="congestion_balance with link 1's RED limit and thresholds scaled by 3.5 (1008, 252, 756 packets) "
    "and link 2's by 1.75 (1211, 303, 908), which bring the links' loss rates to the paper's 0.29 % and 0.1 % "
    "(an environment variant: the paper states buffer = BDP; no verdict is judged on it; link 2 scaled since "
    "2026-11-26, when every segment began to be acknowledged).",
)
CONGESTION_BALANCE_SERIES = CONGESTION_BALANCE.series(
    congestion_balance_series,
    "The same runs as congestion_balance: the connection's per-subflow time series (1 s samples).",
)


def fairness_metrics(result, variant) -> dict:
    mp, veno = _flow(result, "mpveno"), _flow(result, "veno")
    return {
        "mpveno_bps": mp["goodput_bps"],
        "veno_bps": veno["goodput_bps"],
        "ratio": mp["goodput_bps"] / veno["goodput_bps"],
        "mpveno_bytes": mp["delivered_bytes"],
        "veno_bytes": veno["delivered_bytes"],
    }


def fairness_series(result, variant):
    return series_rows(result, ["mpveno", "veno"], ["cwnd", "delivered_bytes", "throughput_bps"], every_s=1.0)


FAIRNESS_VARIANTS = (Variant("beta=6", {}, {"beta": 6}),)
FAIRNESS_QUICK = {"duration": "60s", "warmup": "10s"}

FAIRNESS = Experiment(
    name="fairness",
    scenario=HERE / "fairness.toml",
    variants=FAIRNESS_VARIANTS,
    metrics=fairness_metrics,
    replications=10,
    quick_replications=3,
    quick_overrides=FAIRNESS_QUICK,
    description="A 2-path MPVeno connection (both subflows on the bottleneck) and one TCP Veno flow, beta = 6, "
    "10 Mbit/s RED bottleneck, RTT 62.4 ms; 200 s with 20 s warm-up (quick: 60 s, 10 s). "
    "ratio = MPVeno goodput / Veno goodput.",
)
FAIRNESS_SERIES = FAIRNESS.series(
    fairness_series, "The same runs as fairness: windows and delivered data over time (1 s samples)."
)


def wireless_metrics(result, variant) -> dict:
    mp = _flow(result, "mp")
    x1, x2 = (s["throughput_bps"] for s in mp["subflows"])
    return {
        "goodput_bps": mp["goodput_bps"],
        "subflow1_bps": x1,
        "subflow2_bps": x2,
        "capacity_bps": _goodput_capacity_bps(result, ("path1", "path2")),
        "timeouts": mp["timeouts"],
        "rtt_p95_s": mp["rtt_p95_s"],
    }


def wireless_series(result, variant):
    return series_rows(result, ["mp"], ["cwnd", "srtt_s", "throughput_bps"], every_s=1.0)


def _cc_overrides(cc, params):
    return {"flows.0.cc": cc, "flows.0.cc_params": dict(params)}


def _wireless_variant(label, cc, params, p1, p2, sweep):
    return Variant(f"{label} p1={_pct(p1)} p2={_pct(p2)}",
                   {**_cc_overrides(cc, params), "links.path1.loss.p": p1, "links.path2.loss.p": p2},
                   {"cc": label, "sweep": sweep, "p1": p1, "p2": p2})


WIRELESS_QUICK = {"duration": "60s", "warmup": "10s"}
WIRELESS_BOTH = Experiment(
    name="wireless_both",
    scenario=HERE / "wireless.toml",
    variants=tuple(_wireless_variant(label, cc, params, p, p, "both") for label, cc, params in WIRELESS_CCS
                   for p in LOSS_RATES),
    metrics=wireless_metrics,
    replications=10,
    quick_replications=2,
    quick_overrides=WIRELESS_QUICK,
    description="Fig. 5(a): two disjoint 10 Mbit/s paths (RTT 62.4 ms, RED, buffer = BDP) with the same random "
    "loss p on both; 120 s with 20 s warm-up (quick: 60 s, 10 s).",
)
WIRELESS_PATH2 = Experiment(
    name="wireless_path2",
    scenario=HERE / "wireless.toml",
    variants=tuple(_wireless_variant(label, cc, params, PATH1_FIXED, p, "path2") for label, cc, params in WIRELESS_CCS
                   for p in LOSS_RATES),
    metrics=wireless_metrics,
    replications=10,
    quick_replications=2,
    quick_overrides=WIRELESS_QUICK,
    description="Fig. 5(b): the same paths, path 1 at 0.01 % random loss, path 2 from 0.001 % to 5 %; "
    "120 s with 20 s warm-up (quick: 60 s, 10 s).",
)
SERIES_LOSS = 1e-2
WIRELESS_SERIES = WIRELESS_PATH2.series(
    wireless_series,
    "The wireless_path2 runs at p2 = 1 % for MPVeno (beta 3) and OLIA: per-subflow time series.",
    name="wireless_series",
    variants=tuple(_wireless_variant(label, cc, params, PATH1_FIXED, SERIES_LOSS, "path2")
                   for label, cc, params in WIRELESS_CCS if label in ("MPVeno b=3", "OLIA")),
)


# ---- beta where it can matter: a standing queue of a few packets (not in the paper) --------------------
# On the paper's paths with no other traffic a subflow's backlog is about 0 (loss-limited) or far above the
# thresholds (queue-limited), so beta decides nothing (docs/reproductions.md). A Vegas flow per bottleneck
# holds a queue of a few packets; the MPVeno subflows' random loss sits on a wireless hop before it.
BETA_QUEUE_RATES = (1e-4, 1e-3, 5e-3, 1e-2)
BETA_QUEUE_CCS = tuple(c for c in WIRELESS_CCS if c[0] in ("MPVeno b=3", "MPVeno b=6", "OLIA"))


def beta_queue_metrics(result, variant) -> dict:
    mp = _flow(result, "mp")
    return {
        "goodput_bps": mp["goodput_bps"],
        "capacity_bps": _goodput_capacity_bps(result, ("bn1", "bn2")),
        "cross_bps": _flow(result, "vegas1")["goodput_bps"] + _flow(result, "vegas2")["goodput_bps"],
        "rtt_mean_s": mp["rtt_mean_s"],
        "timeouts": mp["timeouts"],
    }


BETA_QUEUE = Experiment(
    name="beta_standing_queue",
    scenario=HERE / "beta_standing_queue.toml",
    variants=tuple(Variant(f"{label} p={_pct(p)}", {**_cc_overrides(cc, params), "links.wl1.loss.p": p,
                                                      "links.wl2.loss.p": p},
                           {"cc": label, "sweep": "standing queue", "p1": p, "p2": p})
                   for label, cc, params in BETA_QUEUE_CCS for p in BETA_QUEUE_RATES),
    metrics=beta_queue_metrics,
    replications=10,
    quick_replications=2,
    quick_overrides=WIRELESS_QUICK,
    description="Not in the paper: the Fig. 5(a) paths (10 Mbit/s, RTT 62.4 ms, RED) with a TCP Vegas flow on each "
    "bottleneck from 5 s holding a standing queue of a few packets; MPVeno's random loss p on a wireless hop "
    "before the bottleneck (the Vegas flows see none). The setting where beta's thresholds (1.5 / 3 segments) "
    "can separate the losses; 120 s with 20 s warm-up (quick: 60 s, 10 s).",
)


# ---- sensitivity: the rates of Fig. 3(c), which are only in the missing figure --------------------------
RATE_SWEEP = (5e6, 20e6)  # besides the reproduction's 10 Mbit/s
RATE_SWEEP_LOSS = (1e-4, 1e-3, 1e-2)
RATE_SWEEP_RTT = 0.0624


def _red_for(bps: float) -> dict:
    """RED as in wireless.toml, scaled to a buffer of one BDP (1040-byte packets)."""
    bdp = max(4, round(bps * RATE_SWEEP_RTT / (1040 * 8)))
    return {"kind": "red", "limit": bdp, "min_th": max(1, round(bdp / 4)), "max_th": max(2, round(3 * bdp / 4)),
            "max_p": 0.1, "weight": 0.002, "gentle": True, "mean_pktsize": "1040B"}


RATES = Experiment(
    name="wireless_rates",
    scenario=HERE / "wireless.toml",
    variants=tuple(Variant(f"{label} {bps / 1e6:g}Mbps p={_pct(p)}",
                           {**_cc_overrides(cc, params), "links.path1.loss.p": p, "links.path2.loss.p": p,
                            "links.path1.rate": f"{bps / 1e6:g}Mbps", "links.path2.rate": f"{bps / 1e6:g}Mbps",
                            "links.path1.queue": _red_for(bps), "links.path2.queue": _red_for(bps)},
                           {"cc": label, "sweep": "both", "rate_mbps": bps / 1e6, "p1": p, "p2": p})
                   for bps in RATE_SWEEP for label, cc, params in BETA_QUEUE_CCS for p in RATE_SWEEP_LOSS),
    metrics=wireless_metrics,
    replications=5,
    quick_replications=2,
    quick_overrides=WIRELESS_QUICK,
    description="Sensitivity (Fig. 3(c)'s rates are only in the missing figure): the Fig. 5(a) sweep at 5 and "
    "20 Mbit/s per path (RED scaled to one BDP), at three loss rates, for MPVeno (beta 3, 6) and OLIA.",
)


def friendliness_metrics(result, variant) -> dict:
    olia, test = _flow(result, "olia"), _flow(result, "test")
    return {
        "olia_bps": olia["goodput_bps"],
        "test_bps": test["goodput_bps"],
        "ratio": test["goodput_bps"] / olia["goodput_bps"],
        "utilization": sum(l["utilization"] for l in result.summary["links"].values()) / 2,
    }


def friendliness_series(result, variant):
    return series_rows(result, ["olia", "test"], ["throughput_bps", "cwnd"], every_s=1.0)


FRIENDLY_VARIANTS = tuple(Variant(f"{label} vs OLIA", {"flows.1.cc": cc, "flows.1.cc_params": dict(params)},
                                  {"test": label}) for label, cc, params in FRIENDLY_TESTS)
FRIENDLY_QUICK = {"duration": "60s", "warmup": "10s"}
FRIENDLINESS = Experiment(
    name="friendliness",
    scenario=HERE / "friendliness.toml",
    variants=FRIENDLY_VARIANTS,
    metrics=friendliness_metrics,
    replications=10,
    quick_replications=3,
    quick_overrides=FRIENDLY_QUICK,
    description="An OLIA connection and the connection under test, each with a subflow on each of two wired "
    "10 Mbit/s RED links with 75-packet buffers (= BDP); 200 s with 20 s warm-up (quick: 60 s, 10 s). "
    "ratio = test goodput / OLIA goodput.",
)
FRIENDLINESS_SERIES = FRIENDLINESS.series(
    friendliness_series, "The same runs as friendliness: per-subflow throughput and windows over time (1 s samples)."
)

# ---- claims ------------------------------------------------------------------------


def _means(df, by, column):
    return {k: v for k, v in df.groupby(by, sort=False)[column].mean().items()}


def congestion_balance_verdict(data):
    df = data["congestion_balance"]
    shift = _means(df, "cc", "shift")
    share1, share2 = _means(df, "cc", "share1"), _means(df, "cc", "share2")
    to_bg2 = _means(df, "cc", "total_to_bg2")
    if "MPTCPW" not in shift or "wMPTCPW" not in shift:
        return "not reproduced", "no measured data"
    moves = shift["MPTCPW"] >= SHIFT_MOVES
    half = [FAIR_BAND[0] * HALF <= share["wMPTCPW"] <= FAIR_BAND[1] * HALF for share in (share1, share2)]
    stays = PARTLY_BAND[0] <= shift["wMPTCPW"] <= PARTLY_BAND[1] and all(half)
    reason = (f"share of the per-path background rate, path1 / path2: MPTCPW {share1['MPTCPW']:.2f} / "
              f"{share2['MPTCPW']:.2f} (shift {shift['MPTCPW']:.2f}, total = {to_bg2['MPTCPW']:.2f} x a path-2 flow), "
              f"wMPTCPW {share1['wMPTCPW']:.2f} / {share2['wMPTCPW']:.2f} (shift {shift['wMPTCPW']:.2f}); "
              f"moving = shift >= {SHIFT_MOVES}, not moving = shift within [{PARTLY_BAND[0]:.2f}, {PARTLY_BAND[1]}] "
              f"and each wMPTCPW share within [{FAIR_BAND[0] * HALF:.3g}, {FAIR_BAND[1] * HALF:.3g}] (one-half: "
              f"{'yes' if all(half) else 'no'})")
    cal = data.get("congestion_balance_calibrated")
    if cal is not None and not cal.empty:
        shifts = _means(cal, "cc", "shift")
        reason += ("; at the paper's loss rate (RED x 3.5 on link 1, x 1.75 on link 2; not judged): shift "
                   + ", ".join(f"{cc} {v:.2f}" for cc, v in shifts.items()))
    return verdicts.from_share(int(moves) + int(stays), 2), reason


def _band_verdict(value, what):
    if FAIR_BAND[0] <= value <= FAIR_BAND[1]:
        verdict = "reproduced"
    elif PARTLY_BAND[0] <= value <= PARTLY_BAND[1]:
        verdict = "partly"
    else:
        verdict = "not reproduced"
    return verdict, (f"{what} {value:.3f} (about the same: within [{FAIR_BAND[0]}, {FAIR_BAND[1]}]; "
                     f"partly within [{PARTLY_BAND[0]:.2f}, {PARTLY_BAND[1]}])")


def fairness_verdict(data):
    df = data["fairness"]
    if df.empty:
        return "not reproduced", "no measured data"
    ratio = df["mpveno_bytes"].mean() / df["veno_bytes"].mean()
    verdict, reason = _band_verdict(ratio, "data delivered, MPVeno / Veno:")
    return verdict, reason + f"; goodput {df['mpveno_bps'].mean() / 1e6:.2f} vs {df['veno_bps'].mean() / 1e6:.2f} Mbit/s"


FIG5 = ("wireless_both", "wireless_path2")


def _wireless_points(data, names=FIG5):
    """{(sweep, loss rate): {cc label: (goodputs of the replications, capacity)}} over the named sweeps
    (default: both of Fig. 5)."""
    out = {}
    for name in names:
        if name not in data:
            continue
        df = data[name]
        for (sweep, p2, cc), rows in df.groupby(["sweep", "p2", "cc"], sort=False):
            out.setdefault((sweep, p2), {})[cc] = (rows["goodput_bps"].tolist(), rows["capacity_bps"].iloc[0])
    return out


def _compare(data, better, worse, from_p=None, names=FIG5):
    """Per point, the ratio of `better`'s mean goodput to the best of `worse`; the point
    passes if `better`'s 95 % interval lies above each of `worse`'s, and tests nothing
    (None) if it overlaps any, or if both reach CAPACITY_TIE of the capacity (nothing
    to improve)."""
    checks = []
    for (sweep, p), by_cc in _wireless_points(data, names).items():
        if from_p is not None and sweep == "both" and p < from_p * (1 - 1e-9):
            continue
        if better not in by_cc:
            continue
        others = [by_cc[w][0] for w in worse if w in by_cc]
        if not others:
            continue
        mine, capacity = by_cc[better]
        mean = sum(mine) / len(mine)
        best_other = max(sum(o) / len(o) for o in others)
        label = f"{sweep} p={_pct(p)}"
        ratio = mean / best_other if best_other > 0 else float("inf")
        if mean >= CAPACITY_TIE * capacity and best_other >= CAPACITY_TIE * capacity:
            checks.append((f"{label} (both at capacity)", ratio, None))
            continue
        cmps = [verdicts.compare(mine, o) for o in others]
        ok = False if verdicts.BELOW in cmps else None if verdicts.TIE in cmps else True
        checks.append((label, ratio, ok))
    return checks


def olia_verdict(data):
    checks = []
    for label in ("MPVeno b=3", "MPVeno b=6"):
        checks += [(f"{label} {lab}", v, ok) for lab, v, ok in _compare(data, label, ["OLIA"], from_p=OLIA_CLAIM_FROM)]
    return verdicts.points(checks, "goodput MPVeno / OLIA", "above 1 (95 % intervals apart)", ".3f")


def mptcpw_verdict(data):
    others = [label for label, _, _ in WIRELESS_CCS if label != "MPTCPW"]
    return verdicts.points(_compare(data, "MPTCPW", others), "goodput MPTCPW / best other",
                           "above every other (95 % intervals apart)", ".3f")


def beta_verdict(data):
    checks = _compare(data, "MPVeno b=6", ["MPVeno b=3"])
    queue = [(f"{label} (standing queue)", r, ok) for label, r, ok in
             _compare(data, "MPVeno b=6", ["MPVeno b=3"], names=("beta_standing_queue",))]
    verdict, reason = verdicts.points(checks + queue, "goodput MPVeno beta 6 / beta 3",
                                      "above 1 (95 % intervals apart)", ".3f")
    fig5 = [ok for _, _, ok in checks]
    word = {True: "above", False: "not above", None: "tie"}
    detail = ", ".join(f"{label.replace('standing queue p=', 'p=').replace(' (standing queue)', '')} "
                       f"{r:.3f} ({word[ok]})" for label, r, ok in queue)
    return verdict, (f"{reason}; Fig. 5 sweeps: {sum(ok is True for ok in fig5)} above, "
                     f"{sum(ok is None for ok in fig5)} ties of {len(fig5)}; standing-queue setting: {detail}")


def sensitivity(data) -> list[tuple[str, str, str, str]]:
    """Fig. 3(c)'s per-path rate: the olia and beta claims at 5, 10 (the reproduction's) and 20 Mbit/s."""
    if "wireless_rates" not in data:
        return []
    rows = []
    rates = data["wireless_rates"]
    for mbps in sorted(set(rates["rate_mbps"]) | {10.0}):
        if mbps == 10.0:
            sub = {"wireless_both": data["wireless_both"][data["wireless_both"]["p2"].isin(RATE_SWEEP_LOSS)]}
        else:
            sub = {"wireless_both": rates[rates["rate_mbps"] == mbps]}
        for claim, better, worse in (("olia (MPVeno b=3 / OLIA)", "MPVeno b=3", ["OLIA"]),
                                     ("olia (MPVeno b=6 / OLIA)", "MPVeno b=6", ["OLIA"]),
                                     ("beta (b=6 / b=3)", "MPVeno b=6", ["MPVeno b=3"])):
            pts = _compare(sub, better, worse, names=("wireless_both",))
            tested = [ok for _, _, ok in pts if ok is not None]
            measured = "; ".join(f"{lab.replace('both ', '')} {r:.2f}" + ("" if ok else " (tie)" if ok is None
                                                                       else " (below)") for lab, r, ok in pts)
            rows.append((f"Fig. 3(c) path rate, claim {claim}", f"{mbps:g} Mbit/s" + (" (the reproduction's)"
                         if mbps == 10.0 else ""), measured, f"{sum(tested)} of {len(tested)} tested points"
                         + (f", {len(pts) - len(tested)} ties" if len(pts) > len(tested) else "")))
    return rows


def friendliness_mptcpw_verdict(data):
    df = data["friendliness"]
    rows = df[df["test"] == "MPTCPW"]
    if rows.empty:
        return "not reproduced", "no measured data"
    ratio = rows["test_bps"].mean() / rows["olia_bps"].mean()
    cmp = verdicts.compare(rows["test_bps"].tolist(), rows["olia_bps"].tolist())
    if cmp == verdicts.TIE:
        verdict = verdicts.NOT_TESTED
    elif cmp == verdicts.BELOW:
        verdict = "not reproduced"
    else:
        verdict = "reproduced" if ratio >= MORE_THAN else "partly"
    mine, olia = (verdicts.interval_text(rows[c].tolist(), ".3g", 1e-6) for c in ("test_bps", "olia_bps"))
    return verdict, (f"goodput MPTCPW / OLIA {ratio:.3f} ({mine} vs {olia} Mbit/s, {cmp}; takes more: "
                     f"above with 95 % intervals apart and >= {MORE_THAN}, partly: above but less)")


def friendliness_mpveno_verdict(data):
    df = data["friendliness"]
    checks = []
    for label in ("MPVeno b=3", "MPVeno b=6"):
        rows = df[df["test"] == label]
        if not rows.empty:
            ratio = rows["test_bps"].mean() / rows["olia_bps"].mean()
            checks.append((label, ratio, FAIR_BAND[0] <= ratio <= FAIR_BAND[1]))
    return verdicts.points(checks, "goodput MPVeno / OLIA", f"within [{FAIR_BAND[0]}, {FAIR_BAND[1]}]", ".3f")


def headline_verdict(data):
    parts = {"wireless goodput above OLIA": olia_verdict(data)[0],
             "fair with TCP Veno": fairness_verdict(data)[0],
             "fair with OLIA on wired paths": friendliness_mpveno_verdict(data)[0]}
    return verdicts.combine(parts), "; ".join(f"{k}: {v}" for k, v in parts.items())


def link_loss_checks(data):
    """Sec. II-C: the loss rates the paper observed on the congestion-balance links
    (0.29 % / 0.1 % with MPTCPW, 0.31 % / 0.08 % with wMPTCPW)."""
    out = []
    for name, what in (("congestion_balance", "congestion balance"),
                       ("congestion_balance_calibrated", "calibrated variant (RED x 3.5 on link 1, x 1.75 on link 2)")):
        df = data.get(name)
        if df is None or df.empty:
            continue
        for cc, paper in (("MPTCPW", (0.0029, 0.001)), ("wMPTCPW", (0.0031, 0.0008))):
            rows = df[df["cc"] == cc]
            for i, p in enumerate(paper, start=1):
                if not rows.empty:
                    out.append((f"{what}, {cc}: link {i}", float(rows[f"loss_rate_link{i}"].mean()), p))
    return out


# ---- figures -----------------------------------------------------------------------


def _first_run(df):
    return df[df["replication"] == df["replication"].min()]


def draw_congestion_balance(data):
    from ..reproduce.figures import new_figure

    series, runs = data["congestion_balance_series"], data["congestion_balance"]
    fig, axes = new_figure(ncols=2)
    for ax, cc in zip(axes, ("MPTCPW", "wMPTCPW")):
        one = _first_run(series[series["cc"] == cc])
        for i, (name, rows) in enumerate(one.groupby("series", sort=True)):
            ax.plot(rows.t_s, rows.throughput_bps / 1e6, color=f"C{i}", linewidth=1,
                    label=f"subflow {i + 1} (path {i + 1})")
        r = runs[runs["cc"] == cc]
        for i, col in enumerate(("bg1_mean_bps", "bg2_mean_bps")):
            ax.axhline(r[col].mean() / 1e6, color=f"C{i}", linestyle="--", linewidth=1,
                       label=f"mean background flow, path {i + 1}")
        ax.set(title=cc, xlabel="time (s)", ylabel="throughput (Mbit/s)", ylim=(0, None))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small")
    return fig


def draw_fairness(data):
    from ..reproduce.figures import new_figure

    one = _first_run(data["fairness_series"])
    fig, (left, right) = new_figure(ncols=2)
    labels = {"mpveno/0": "MPVeno subflow 1", "mpveno/1": "MPVeno subflow 2", "veno/0": "TCP Veno"}
    for i, (name, rows) in enumerate(one.groupby("series", sort=True)):
        left.plot(rows.t_s, rows.cwnd, linewidth=0.8, color=f"C{i}", label=labels.get(name, name))
    left.set(xlabel="time (s)", ylabel="cwnd (segments)", ylim=(0, None))
    left.legend(fontsize="small")
    for i, (flow, label) in enumerate((("mpveno", "MPVeno (2 paths)"), ("veno", "TCP Veno"))):
        rows = one[one["series"] == f"{flow}/0"]
        right.plot(rows.t_s, rows.delivered_bytes / 1e6, color=f"C{i * 2}", label=label)
    right.set(xlabel="time (s)", ylabel="data delivered (MB)")
    right.legend(fontsize="small")
    for ax in (left, right):
        ax.grid(True, alpha=0.3)
    return fig


def draw_goodput_vs_loss(data):
    from ..reproduce.figures import errorbars, new_figure
    from ..reproduce.stats import summarize

    fig, axes = new_figure(ncols=2)
    markers = "osv^D"
    for ax, name, title in ((axes[0], "wireless_both", "(a) same loss on paths 1 and 2"),
                            (axes[1], "wireless_path2", "(b) path 1 at 0.01 %, path 2 varied")):
        s = summarize(data[name], ["cc", "p2"], ["goodput_bps"])
        for i, (label, _, _) in enumerate(WIRELESS_CCS):
            rows = s[s["cc"] == label]
            # Spread the algorithms a little around each loss rate so error bars stay visible.
            errorbars(ax, rows.assign(x=rows.p2 * (1 + 0.06 * (i - 2))), "x", "goodput_bps", 1e-6, label=label,
                      color=f"C{i}", marker=markers[i], linestyle="-", linewidth=0.8, markersize=4)
        ax.set(xscale="log", title=title, xlabel="random loss rate" + (" on path 2" if name == "wireless_path2" else ""),
               ylabel="goodput (Mbit/s)", ylim=(0, None))
        ax.set_xticks(list(LOSS_RATES), [_pct(p) for p in LOSS_RATES], fontsize="x-small", rotation=45)
        ax.minorticks_off()
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small")
    return fig


def draw_beta_queue(data):
    from ..reproduce.figures import errorbars, new_figure
    from ..reproduce.stats import summarize

    fig, ax = new_figure()
    s = summarize(data["beta_standing_queue"], ["cc", "p2"], ["goodput_bps"])
    for i, (label, _, _) in enumerate(BETA_QUEUE_CCS):
        rows = s[s["cc"] == label]
        errorbars(ax, rows.assign(x=rows.p2 * (1 + 0.06 * (i - 1))), "x", "goodput_bps", 1e-6, label=label,
                  color=f"C{i}", marker="osv"[i], linestyle="-", linewidth=0.8, markersize=4)
    ax.set(xscale="log", xlabel="random loss rate of the wireless hops", ylabel="goodput (Mbit/s)", ylim=(0, None))
    ax.set_xticks(list(BETA_QUEUE_RATES), [_pct(p) for p in BETA_QUEUE_RATES], fontsize="x-small")
    ax.minorticks_off()
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="x-small")
    return fig


def draw_friendliness(data):
    from ..reproduce.figures import new_figure

    series, runs = data["friendliness_series"], data["friendliness"]
    fig, axes = new_figure(ncols=3, width=5.2)
    for ax, (label, _, _) in zip(axes, FRIENDLY_TESTS):
        one = _first_run(series[series["test"] == label])
        for i, (flow, name) in enumerate((("olia", "OLIA"), ("test", label))):
            rows = one[one["series"].str.startswith(flow + "/")].groupby("t_s", sort=True)["throughput_bps"].sum()
            ax.plot(rows.index, rows.values / 1e6, color=f"C{i}", linewidth=0.8, label=f"{name} (both subflows)")
        r = runs[runs["test"] == label]
        ax.set(title=f"{label} vs OLIA: ratio {r['ratio'].mean():.2f}", xlabel="time (s)",
               ylabel="throughput (Mbit/s)", ylim=(0, None))
        ax.title.set_fontsize("small")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small")
    return fig


def draw_throughput_delay(data):
    from ..reproduce.figures import throughput_vs_delay

    return throughput_vs_delay(data["wireless_both"], "cc", title="Same random loss on both paths, all loss rates")


def draw_subflows(data):
    from ..reproduce.figures import label_subflow_axes, new_figure, plot_subflow

    series = data["wireless_series"]
    fig, axes = new_figure(ncols=3, width=5.2)
    for j, label in enumerate(("MPVeno b=3", "OLIA")):
        one = _first_run(series[series["cc"] == label])
        for i, (name, rows) in enumerate(one.groupby("series", sort=True)):
            style = {"color": f"C{2 * j + i}", "linewidth": 0.8, "label": f"{label} subflow {i + 1}"}
            plot_subflow(axes, rows, **style)
    label_subflow_axes(axes)
    axes[0].legend(fontsize="x-small")
    return fig


# The change every comparing claim got in issue 15.
TIE_RULE = RuleChange("2026-11-25", "above by more than the 95 % half-width of the difference (Welch) -> the two "
                      "95 % intervals apart (verdicts.compare), overlapping points not tested",
                      "issue 15: one tie rule for every comparison; stricter; changed after the runs of 2026-11-24 "
                      "were known")

PAPER = Paper(
    name="mpveno",
    tcp_profile="ns3",
    tcp_profile_reason="ns-2 simulations with SACK; ns-3's TCP is the nearest simulated stack mpcc models",
    tcp_settings=(NS2_IMMEDIATE_ACKS, NS2_PIPE, NS2_NO_HANDSHAKE, NS2_NO_PRR),
    environment=link_loss_checks,
    sensitivity=sensitivity,
    title="Le: MPVeno, multipath TCP Veno for wireless losses",
    reference="T.-A. Le (Thudaumot University): Improving the Performance of Multipath Congestion Control over "
    "Wireless Networks (MPVeno; venue and year not stated in the copy worked from).",
    summary="Congestion balance of MPTCPW against wMPTCPW, fairness of MPVeno with TCP Veno on one bottleneck, "
    "goodput against random loss of MPVeno (beta 3 and 6), OLIA, MPTCPW and LIA, and friendliness of MPTCPW "
    "and MPVeno to OLIA on wired paths (ns-2 setup: SACK, RED, buffer = BDP, 1000-byte packets).",
    experiments=(CONGESTION_BALANCE, CONGESTION_BALANCE_CALIBRATED, CONGESTION_BALANCE_SERIES, FAIRNESS, FAIRNESS_SERIES, WIRELESS_BOTH,
                 WIRELESS_PATH2, WIRELESS_SERIES, BETA_QUEUE, RATES, FRIENDLINESS, FRIENDLINESS_SERIES),
    figures=(
        Figure("congestion_balance", "Congestion balance: MPTCPW against wMPTCPW (Fig. 2)",
               "Per-subflow throughput over time (first replication, 1 s samples) with the mean rate of a "
               "background Westwood+ flow on each path (dashed).", draw_congestion_balance),
        Figure("fairness", "MPVeno and TCP Veno on one bottleneck (Fig. 4)",
               "Left: windows of the two MPVeno subflows and of TCP Veno; right: data delivered over time "
               "(first replication).", draw_fairness),
        Figure("goodput_vs_loss", "Goodput against random loss (Fig. 5)",
               "Mean goodput over replications with 95 % confidence intervals. (a) both paths with loss p; "
               "(b) path 1 at 0.01 %, path 2 at p. The aggregate capacity is 19.2 Mbit/s of payload.",
               draw_goodput_vs_loss),
        Figure("beta_standing_queue", "Beta with a standing queue of a few packets (not in the paper)",
               "Mean goodput of the 2-path connection over replications with 95 % confidence intervals, against "
               "the random loss p of the wireless hops; a TCP Vegas flow holds a few packets in each bottleneck "
               "queue.", draw_beta_queue),
        Figure("friendliness", "Friendliness to OLIA on wired paths (Fig. 6)",
               "Throughput of each 2-path connection over time (first replication); titles give the mean "
               "goodput ratio test / OLIA over replications.", draw_friendliness),
        Figure("throughput_delay", "Goodput against the 95th percentile of RTT (wireless, both paths lossy)",
               "Each small point is one run; diamonds mark each algorithm's mean.", draw_throughput_delay),
        Figure("subflows", "Per-subflow view: path 1 at 0.01 %, path 2 at 1 % random loss",
               "cwnd, smoothed RTT and throughput of each subflow of MPVeno (beta 3) and OLIA "
               "(first replication).", draw_subflows),
    ),
    claims=(
        Claim("congestion_balance", "MPTCPW moves traffic to the lightly loaded long path; wMPTCPW does not "
              "(each of its subflows keeps about the same share of its path).", "congestion_balance",
              congestion_balance_verdict, "Sec. II-C, Fig. 2",
              quote="Fig. 2(a) shows that the data rate of sub-flow on the congested and short RTT path (path 1) "
              "is very low. While the longer RTT path (path 2) has light load, the sub-flow on that path surges "
              "its rate up. [...] Fig. 2(c) shows that each sub-flow gets approximately one-half of TCPW flows' "
              "average rate that they are sharing.",
              rule="shift = (subflow 2 / a path-2 background flow) / (subflow 1 / a path-1 background flow). "
              "MPTCPW 'surges' on path 2: shift >= 1.5; wMPTCPW gets 'approximately one-half' on each path, so "
              "the same share on both: shift within [2/3, 1.5], and each subflow's share of a background flow's "
              "rate within [0.8, 1.25] x 0.5 (the paper's one-half with the project's 'similar' band). Both: "
              "reproduced; one: partly.",
              rule_history=(RuleChange("2026-11-25", "wMPTCPW: shift within [2/3, 1.5] -> the same and each "
                                       "subflow's share within [0.4, 0.625] of a background flow's rate",
                                       "issue 15 audit: the rule did not use the paper's magnitude (one-half); "
                                       "changed after the full run of 2026-11-25 was known (shares 0.48 / 0.62)"),)),
        Claim("fairness", "A 2-path MPVeno and one TCP Veno sharing a bottleneck send about the same amount of "
              "data (beta = 6).", "fairness", fairness_verdict, "Sec. IV-A, Fig. 4(b)",
              quote="Because Increase rule of each MPVeno sub-flow is less aggressive than that of single-path TCP "
              "flow, the amount of data sent by the single-path TCP Veno flow approximates total of data sent by "
              "the two-path MPVeno flow as shown in Fig. 4 (b).",
              rule="Data delivered by MPVeno / by TCP Veno within [0.8, 1.25] ('approximates'; partly within "
              "[2/3, 1.5]). A claim of equality: equal amounts are what it predicts."),
        Claim("wireless_olia", "Under random loss MPVeno's goodput exceeds OLIA's (both paths lossy, from "
              "0.005 % to 5 %; and with path 1 at 0.01 %, at any loss rate of path 2).", "goodput_vs_loss",
              olia_verdict, "Sec. IV-B, Fig. 5",
              quote="Fig. 5(a) shows that the average goodput of MPVeno is higher than that of MPTCP-OLIA when two "
              "paths are experienced the same packet loss rates from 5 x 10^-3 % to 5%. [...] Since MPVeno can "
              "distinguish random loss from congestive loss, it outperforms at any condition.",
              rule="At every loss rate of both sweeps (Fig. 5(a) from 0.005 %), MPVeno's (beta 3 and 6) mean "
              "goodput is above OLIA's with the 95 % intervals apart. Points where both reach 95 % of the "
              "capacity, and points whose intervals overlap, are not tested. Every point tested and passing: "
              "reproduced (passing where tested, untested elsewhere: partly).",
              rule_history=(TIE_RULE,), compares=True),
        Claim("wireless_mptcpw", "Under random loss MPTCPW's goodput is the highest of the compared multipath "
              "protocols.", "goodput_vs_loss", mptcpw_verdict, "Sec. IV-B, Fig. 5",
              quote="In Fig. 5, the goodput of MPTCPW is highest among considered multipath protocols.",
              rule="At every loss rate of both sweeps, MPTCPW's mean goodput is above each other protocol's with "
              "the 95 % intervals apart; an overlap with any, or all at 95 % of the capacity: not tested.",
              rule_history=(RuleChange("2026-11-25", "at least 0.99 x the best other (plain means) -> above every "
                                       "other with 95 % intervals apart", "a review: 0.99 is weaker than 'highest' "
                                       "and passes ties; changed after the runs of 2026-11-24 were known"),),
              compares=True),
        Claim("beta", "A larger beta gives MPVeno more goodput under random loss (beta 6 above beta 3).",
              "goodput_vs_loss", beta_verdict, "Sec. IV-B, Fig. 5(a)",
              quote="In Fig. 5 (a), the goodput of MPVeno is improved more significantly as setting beta to larger "
              "value.",
              rule="At every loss rate of both Fig. 5 sweeps and of the standing-queue setting (a Vegas flow holding "
              "a few packets on each bottleneck, the only setting here where beta's thresholds can act), MPVeno beta "
              "6's mean goodput is above beta 3's with the 95 % intervals apart; overlaps and capacity-limited points "
              "are not tested. Reproduced when every tested point passes.",
              rule_history=(TIE_RULE, RuleChange("2026-11-25", "Fig. 5 sweeps only -> the standing-queue setting "
                                                 "added, under the same rule", "issue 15: with no cross traffic "
                                                 "beta cannot act (a review); the setting and its rule were fixed "
                                                 "before its runs")), compares=True),
        Claim("friendliness_mptcpw", "On wired paths MPTCPW takes more bandwidth than OLIA.", "friendliness",
              friendliness_mptcpw_verdict, "Sec. IV-C, Fig. 6(a)",
              quote="Fig. 6(a) shows that a two-path MPTCPW flow aggressively obtains more bandwidth than a "
              "two-path MPTCP-OLIA flow.",
              rule="MPTCPW's goodput above OLIA's with the 95 % intervals apart, by at least 1.25 x ('aggressively': "
              "beyond the project's 'about the same' band); above by less: partly; a tie: not tested.",
              rule_history=(RuleChange("2026-11-25", "ratio >= 1.25 (partly > 1.05) on means -> the same with the "
                                       "95 % intervals apart, ties not tested", "issue 15; after the runs of "
                                       "2026-11-24 were known"),),
              compares=True),
        Claim("friendliness_mpveno", "On wired paths MPVeno shares bandwidth fairly with OLIA.", "friendliness",
              friendliness_mpveno_verdict, "Sec. IV-C, Fig. 6(b)",
              quote="In contrast to MPTCPW, MPVeno is nice to share bandwidth with MPTCP-OLIA as shown in Fig. "
              "6(b).",
              rule="MPVeno's goodput / OLIA's within [0.8, 1.25] for beta 3 and for beta 6 (the paper's beta is not "
              "stated). A claim of equality: equal goodputs are what it predicts."),
        Claim("headline", "MPVeno outperforms OLIA over wireless links while sharing fairly with TCP Veno and "
              "OLIA in wired networks.", "goodput_vs_loss", headline_verdict, "Sec. V",
              quote="The simulation results show that MPVeno outperforms MPTCP-OLIA over wireless networks while "
              "preserving nice bandwidth sharing with conventional TCP Veno and MPTCP-OLIA flows in wired "
              "networks.",
              rule="The verdicts of wireless_olia, fairness and friendliness_mpveno: all reproduced: reproduced; "
              "all tested ones not reproduced: not reproduced; none tested: not tested here; else partly.",
              compares=True),
    ),
    notes=(
        "Link rates and delays of Fig. 3(b)-(d) are only in the missing figures. Chosen: 10 Mbit/s links with "
        "31.2 ms one-way delay (RTT 62.4 ms), which makes the BDP the 75 packets the paper states for Fig. 3(d); "
        "the same for the fairness dumbbell and both wireless paths.",
        "RED everywhere: limit = BDP, min_th = BDP/4, max_th = 3 BDP/4, max_p 0.1, weight 0.002, gentle. The "
        "paper only says RED with buffer = BDP.",
        "Fig. 2: the stated delays are taken as one-way per link (RTTs 60 and 180 ms); buffers 288 and 692 "
        "packets. The paper measured 0.29 % and 0.1 % loss on the links; the data gives ours "
        "(loss_rate_link1/2 in congestion_balance).",
        "Friendliness (Fig. 3(d)): both connections have a subflow on each of two disjoint links; the paper "
        "does not say which beta MPVeno used, so both 3 and 6 run, and the claim checks both.",
        "Wireless loss rates: 0.001, 0.005, 0.01, 0.1, 0.5, 1 and 5 %. Points where both compared goodputs "
        "reach 95 % of the capacity are ties, not evidence either way: not tested. "
        "'Above' means the two 95 % confidence intervals do not overlap, so a quick run with two "
        "replications can only show large differences; overlapping points are not tested.",
        "Thresholds: 'about the same' = ratio within [0.8, 1.25] (partly: [2/3, 1.5]); 'takes more' = ratio "
        ">= 1.25; 'moves traffic' = (subflow 2 / path-2 background mean) / (subflow 1 / path-1 background mean) "
        ">= 1.5, 'does not move' = within [2/3, 1.5].",
    ),
)
