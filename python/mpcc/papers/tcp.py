"""The foundation's validation as a reproducible "paper": single-path Reno against
closed forms (Mathis et al. 1997, Padhye et al. 1998, the thesis's Eq. 3.9) and the
fairness of N Reno flows. Scenarios: scenarios/tcp/."""

from __future__ import annotations

import math
import tomllib

from ..reproduce import Claim, Experiment, Figure, Paper, Variant
from ..reproduce import verdicts
from . import SCENARIOS

LOSS_RATES = (0.001, 0.002, 0.005, 0.01, 0.02)
BUFFER_RATIOS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)  # r = W_BDP / W_loss
FLOW_COUNTS = (2, 5, 10)
TOLERANCE = 0.10

# ---- closed forms ------------------------------------------------------------------


def mathis_bps(p: float, rtt_s: float, mss_bytes: float) -> float:
    """Mathis et al. 1997: B = MSS / RTT * sqrt(3 / (2 p))."""
    return mss_bytes * 8 / rtt_s * math.sqrt(1.5 / p)


def padhye_bps(p: float, rtt_s: float, mss_bytes: float, min_rto_s: float = 0.2) -> float:
    """Padhye et al. 1998, full model with b = 1 (an ACK per segment) and the
    timeout T0 = RTT + min_rto (Linux's RTO is srtt + max(min_rto, 4 rttvar))."""
    t0 = rtt_s + min_rto_s
    denom = rtt_s * math.sqrt(2 * p / 3) + t0 * min(1.0, 3 * math.sqrt(3 * p / 8)) * p * (1 + 32 * p * p)
    return mss_bytes * 8 / denom


def eq_3_9(r: float) -> float:
    """The thesis's Eq. 3.9 as a fraction of the capacity: x / c = (3/4) / (1 - r + r^2)."""
    return 0.75 / (1 - r + r * r)


def jain(rates) -> float:
    rates = [float(x) for x in rates]
    square_sum = sum(x * x for x in rates)
    return sum(rates) ** 2 / (len(rates) * square_sum) if square_sum > 0 else math.nan


# ---- experiments -------------------------------------------------------------------


def random_loss_metrics(result, variant) -> dict:
    flow = result.summary["flows"]["reno"]
    tcp = result.config["flows"][0]["tcp"]
    p, rtt, mss = variant.params["loss_rate"], flow["rtt_mean_s"], tcp["mss"]
    return {
        "goodput_bps": flow["goodput_bps"],
        "rtt_mean_s": rtt,
        "retransmissions": flow["retransmissions"],
        "timeouts": flow["timeouts"],
        "mss_bytes": mss,
        "mathis_bps": mathis_bps(p, rtt, mss),
        "padhye_bps": padhye_bps(p, rtt, mss, tcp["min_rto_ns"] / 1e9),
    }


def _bdp_packets(config) -> float:
    link, tcp = config["links"][0], config["flows"][0]["tcp"]
    return link["capacity"]["bps"] * 2 * link["delay_ns"] / 1e9 / ((tcp["mss"] + tcp["header_bytes"]) * 8)


def buffer_metrics(result, variant) -> dict:
    w_bdp = _bdp_packets(result.config)
    r = w_bdp / (w_bdp + variant.params["buffer_packets"] + 1)
    return {
        "r": r,
        "utilization": result.summary["links"]["bottleneck"]["utilization"],
        "goodput_bps": result.summary["flows"]["reno"]["goodput_bps"],
        "eq_3_9": eq_3_9(r),
    }


def fairness_metrics(result, variant) -> dict:
    rates = [f["goodput_bps"] for f in result.summary["flows"].values()]
    return {
        "jain": jain(rates),
        "utilization": result.summary["links"]["bottleneck"]["utilization"],
        "goodput_min_bps": min(rates),
        "goodput_max_bps": max(rates),
        "goodput_total_bps": sum(rates),
    }


def _buffer_for(r: float) -> int:
    """DropTail buffer giving r = W_BDP / W_loss, W_loss = W_BDP + buffer + 1."""
    w_bdp = 10e6 * 0.1 / (1500 * 8)
    return max(1, round(w_bdp / r - w_bdp - 1))


def _fairness_flows() -> list[dict]:
    with open(SCENARIOS / "tcp" / "reno_fairness.toml", "rb") as f:
        return tomllib.load(f)["flows"]


RANDOM_LOSS = Experiment(
    name="random_loss",
    scenario=SCENARIOS / "tcp" / "reno_random_loss.toml",
    variants=tuple(Variant(f"p={p:g}", {"links.lossy.loss.p": p}, {"loss_rate": p}) for p in LOSS_RATES),
    metrics=random_loss_metrics,
    replications=10,
    quick_replications=3,
    quick_overrides={"duration": "100s", "warmup": "10s"},
    description="One Reno flow, Bernoulli loss p on a 1 Gbit/s link with 100 ms base RTT; "
    "400 s with 20 s warm-up (quick: 100 s, 10 s).",
)

DROPTAIL_BUFFER = Experiment(
    name="droptail_buffer",
    scenario=SCENARIOS / "tcp" / "reno_droptail_buffer.toml",
    variants=tuple(
        Variant(f"r={r:g}", {"links.bottleneck.queue.packets": _buffer_for(r)},
                {"r_target": r, "buffer_packets": _buffer_for(r)})
        for r in BUFFER_RATIOS
    ),
    metrics=buffer_metrics,
    replications=1,
    quick_replications=1,
    quick_overrides={"duration": "100s", "warmup": "20s"},
    description="One Reno flow, 10 Mbit/s DropTail bottleneck, 100 ms base RTT, buffer set for "
    "r = W_BDP / W_loss; 300 s with 30 s warm-up (quick: 100 s, 20 s). No random element (one flow, constant "
    "link; a start offset would only shift the run): one run per point.",
)

FAIRNESS = Experiment(
    name="fairness",
    scenario=SCENARIOS / "tcp" / "reno_fairness.toml",
    variants=tuple(Variant(f"N={n}", {"flows": _fairness_flows()[:n]}, {"flows": n}) for n in FLOW_COUNTS),
    metrics=fairness_metrics,
    replications=1,
    quick_replications=1,
    quick_overrides={"duration": "60s", "warmup": "10s"},
    description="N Reno flows, equal 40 ms RTT, 20 Mbit/s bottleneck with a one-BDP buffer, starts "
    "100 ms apart; 200 s with 20 s warm-up (quick: 60 s, 10 s). One run per point; seeded start offsets "
    "(start_jitter 100 ms) vary the flows' starts between seeds.",
)

# ---- claims ------------------------------------------------------------------------


def _per_loss_rate(data, model) -> list[tuple[str, float, bool]]:
    """(label, mean goodput / model at the mean RTT, within tolerance) per loss rate."""
    df = data["random_loss"]
    checks = []
    for p, rows in df.groupby("loss_rate", sort=True):
        expected = model(p, rows["rtt_mean_s"].mean(), rows["mss_bytes"].iloc[0])
        ratio = rows["goodput_bps"].mean() / expected
        checks.append((f"p={p:.1%}", ratio, verdicts.within(ratio, 1.0, TOLERANCE)))
    return checks


def mathis_verdict(data):
    return verdicts.points(_per_loss_rate(data, mathis_bps), "goodput / Mathis", "within 10 %")


def padhye_verdict(data):
    return verdicts.points(_per_loss_rate(data, padhye_bps), "goodput / Padhye", "within 10 %")


def _by_buffer(data):
    df = data["droptail_buffer"]
    return [(r, rows["utilization"].mean()) for r, rows in df.groupby("r", sort=True)]


def eq_3_9_verdict(data):
    checks = []
    for r, util in _by_buffer(data):
        if r >= 0.5 - 1e-3:  # the domain of the derivation (beta W_loss <= W_BDP)
            ratio = util / eq_3_9(r)
            checks.append((f"r={r:.2f}", ratio, verdicts.within(ratio, 1.0, TOLERANCE)))
    return verdicts.points(checks, "utilization / Eq. 3.9", "within 10 %")


def full_link_verdict(data):
    checks = [(f"r={r:.2f}", util, util >= 0.98) for r, util in _by_buffer(data) if r <= 0.5 + 1e-3]
    return verdicts.points(checks, "utilization", "at or above 0.98", ".4f")


def _by_flow_count(data, column):
    df = data["fairness"]
    return [(f"N={n}", rows[column].mean()) for n, rows in df.groupby("flows", sort=True)]


def jain_verdict(data):
    checks = [(label, v, v >= 0.95) for label, v in _by_flow_count(data, "jain")]
    return verdicts.points(checks, "Jain's index", "at or above 0.95", ".4f")


def utilization_verdict(data):
    checks = [(label, v, v >= 0.95) for label, v in _by_flow_count(data, "utilization")]
    return verdicts.points(checks, "utilization", "at or above 0.95", ".4f")


# ---- figures -----------------------------------------------------------------------


def draw_goodput_vs_loss(data):
    from ..reproduce.figures import errorbars, new_figure
    from ..reproduce.stats import summarize

    df = data["random_loss"].assign(
        to_mathis=lambda d: d.goodput_bps / d.mathis_bps, to_padhye=lambda d: d.goodput_bps / d.padhye_bps
    )
    s = summarize(df, ["loss_rate"], ["goodput_bps", "mathis_bps", "padhye_bps", "to_mathis", "to_padhye"])
    fig, (left, right) = new_figure(ncols=2)
    errorbars(left, s, "loss_rate", "goodput_bps", 1e-6, label="Reno (simulated)", color="C0", zorder=3)
    left.plot(s.loss_rate, s.mathis_bps_mean * 1e-6, "--", color="C1", label="Mathis")
    left.plot(s.loss_rate, s.padhye_bps_mean * 1e-6, ":", color="C2", label="Padhye")
    left.set(xscale="log", xlabel="random loss rate p", ylabel="goodput (Mbit/s)", ylim=(0, None))
    left.legend(fontsize="small")
    right.axhspan(1 - TOLERANCE, 1 + TOLERANCE, color="0.9", label="±10 %")
    # Side by side around each loss rate, so the two sets of error bars do not hide each other.
    errorbars(right, s.assign(x=s.loss_rate * 0.94), "x", "to_mathis", label="/ Mathis", color="C1")
    errorbars(right, s.assign(x=s.loss_rate * 1.06), "x", "to_padhye", label="/ Padhye", color="C2", marker="s")
    right.axhline(1.0, color="0.4", linewidth=0.8)
    right.set(xscale="log", xlabel="random loss rate p", ylabel="simulated / model", ylim=(0.7, 1.3))
    right.legend(fontsize="small")
    for ax in (left, right):
        ax.grid(True, which="both", alpha=0.3)
        ax.set_xticks(list(LOSS_RATES), [f"{p:.1%}" for p in LOSS_RATES])
        ax.minorticks_off()
    return fig


def draw_utilization_vs_buffer(data):
    import numpy as np

    from ..reproduce.figures import errorbars, new_figure
    from ..reproduce.stats import summarize

    s = summarize(data["droptail_buffer"], ["r"], ["utilization"])
    fig, ax = new_figure()
    inside, outside = np.linspace(0.5, 0.95, 60), np.linspace(0.25, 0.5, 30)
    ax.fill_between(inside, eq_3_9(inside) * (1 - TOLERANCE), np.minimum(1.0, eq_3_9(inside) * (1 + TOLERANCE)),
                    color="0.9", label="Eq. 3.9 ±10 %")
    ax.plot(inside, eq_3_9(inside), color="C1", label="Eq. 3.9 (r ≥ 1/2)")
    ax.plot(outside, eq_3_9(outside), "--", color="C1", label="Eq. 3.9 outside its domain")
    errorbars(ax, s, "r", "utilization", label="Reno (simulated)", color="C0", zorder=3)
    ax.set(xlabel="r = W_BDP / W_loss", ylabel="link utilization x / c", ylim=(0.7, 1.02))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="lower left")
    return fig


def draw_fairness(data):
    from ..reproduce.figures import new_figure
    from ..reproduce.stats import summarize

    s = summarize(data["fairness"], ["flows"], ["jain", "utilization"])
    fig, (left, right) = new_figure(ncols=2)
    labels = [str(n) for n in s.flows]
    for ax, column, title in ((left, "jain", "Jain's fairness index"), (right, "utilization", "link utilization")):
        ax.bar(labels, s[f"{column}_mean"], color="C0", width=0.6)
        ax.axhline(0.95, color="C3", linestyle="--", linewidth=1, label="0.95")
        ax.set(xlabel="number of Reno flows N", ylabel=title, ylim=(0.8, 1.01))
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize="small", loc="lower right")
    return fig


PAPER = Paper(
    name="tcp",
    tcp_profile="rfc",
    tcp_profile_reason="the closed forms (Mathis, Padhye, Eq. 3.9) model the textbook sender; docs/tcp-recovery.md measures the other profiles",
    title="Single-path TCP against closed forms (mpcc's foundation validation)",
    reference="Mathis, Semke, Mahdavi, Ott: The macroscopic behavior of the TCP congestion avoidance algorithm "
    "(CCR 1997); Padhye, Firoiu, Towsley, Kurose: Modeling TCP throughput (SIGCOMM 1998); "
    "S.-Y. Park, PhD thesis, Eq. 3.9.",
    summary="Reno's goodput under random loss against the Mathis and Padhye formulas, Reno's rate through a "
    "DropTail buffer against the thesis's Eq. 3.9, and the fairness and utilization of N Reno flows.",
    experiments=(RANDOM_LOSS, DROPTAIL_BUFFER, FAIRNESS),
    figures=(
        Figure("goodput_vs_loss", "Reno goodput against random loss",
               "Left: simulated goodput (mean and 95 % CI over replications) with the Mathis and Padhye "
               "predictions at the measured mean RTT. Right: simulated / predicted.", draw_goodput_vs_loss),
        Figure("utilization_vs_buffer", "Reno over DropTail against Eq. 3.9",
               "Link utilization against r = W_BDP / W_loss; the curve is Eq. 3.9, derived for r ≥ 1/2.",
               draw_utilization_vs_buffer),
        Figure("fairness", "N Reno flows on one bottleneck",
               "Jain's index of the flows' goodputs and the bottleneck's utilization.", draw_fairness),
    ),
    claims=(
        Claim("mathis", "Reno's goodput is within 10 % of Mathis's B = MSS/RTT·sqrt(3/(2p)) for random loss "
              "p from 0.1 % to 2 %.", "goodput_vs_loss", mathis_verdict, "Mathis et al. 1997, Eq. 3",
              quote="(a formula, not a sentence) BW = MSS/RTT · C/sqrt(p), C = sqrt(3/2) for periodic loss",
              rule="At each loss rate, the mean goodput over replications within 10 % of the formula at the "
              "measured mean RTT (the project's model tolerance; the formula ignores timeouts)."),
        Claim("padhye", "Reno's goodput is within 10 % of Padhye's full model for random loss p from 0.1 % "
              "to 2 %.", "goodput_vs_loss", padhye_verdict, "Padhye et al. 1998, Eq. 31",
              quote="(a formula, not a sentence) the full model of Eq. 31, with timeouts and the receiver window",
              rule="At each loss rate, the mean goodput within 10 % of the model at the measured mean RTT, with "
              "T0 = RTT + 200 ms and b = 1."),
        Claim("eq_3_9", "A Reno flow through a DropTail buffer sends at x = (3/4) c / (1 - r + r²) "
              "(within 10 %) for r = W_BDP / W_loss from 1/2 to 0.9.", "utilization_vs_buffer",
              eq_3_9_verdict, "Park, thesis, Sec. 3.3.2, Eq. 3.9, Fig. 3.4",
              quote="We observe that i) our analysis (3.9) is accurate and provides good estimation under "
              "different network conditions",
              rule="At each r from 1/2 to 0.9, the utilization within 10 % of Eq. 3.9 ('accurate'; no error figure "
              "in the thesis)."),
        Claim("full_link", "With a buffer of at least one BDP (r ≤ 1/2) the window never falls below the BDP "
              "and Reno keeps the link busy (utilization ≥ 98 %).", "utilization_vs_buffer",
              full_link_verdict, "Park, thesis, Sec. 3.3.2 (domain of Eq. 3.9)",
              quote="(the domain of Eq. 3.9, not a sentence) with beta W_loss >= W_BDP the window never falls "
              "below the BDP",
              rule="At each r below 1/2, utilization at least 98 % (2 % for headers and the start)."),
        Claim("jain", "N Reno flows with equal RTTs share a DropTail bottleneck fairly: Jain's index ≥ 0.95 "
              "for N = 2, 5, 10.", "fairness", jain_verdict, "project requirement (foundation issue)",
              quote="(no paper: a requirement of the project's foundation issue) equal-RTT Reno flows share fairly",
              rule="Jain's index of the flows' goodputs at least 0.95 for N = 2, 5, 10."),
        Claim("utilization", "Together those flows fill the bottleneck: utilization ≥ 95 %.", "fairness",
              utilization_verdict, "project requirement (foundation issue)",
              quote="(no paper: a requirement of the project's foundation issue) together they fill the link",
              rule="Bottleneck utilization at least 95 % for N = 2, 5, 10."),
    ),
    notes=(
        "Padhye's timeout T0 is taken as RTT + 200 ms (Linux's RTO floor) and b = 1 (no delayed ACKs).",
        "Model predictions use each run's measured mean RTT; verdicts compare the mean goodput over "
        "replications with the model at the mean RTT.",
        "The DropTail scenario has no random element (one flow, constant link: a start offset would only shift "
        "the run); the fairness scenario has seeded start offsets per flow (start_jitter 100 ms). Both run "
        "once per point and have no confidence interval.",
        "W_loss counts the packet in transmission: W_loss = W_BDP + buffer + 1.",
    ),
)
