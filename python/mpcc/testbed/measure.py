"""A testbed run's raw measurements, turned into the simulator's results: the same
summary fields, time-series columns and delay CDFs (docs/metrics.md), from
three sources (docs/testbed.md, "What is measured"):

- the link emulator: per-link queue, drops and bytes; per-subflow packets dropped
  and TCP payload delivered; per-subflow RTT samples from TCP timestamps;
- the clients: each subflow's struct tcp_info at every sampling instant (cwnd,
  ssthresh, srtt, bytes sent and acknowledged, retransmissions, timeouts);
- the server: every read's bytes and every record's application-level delay.

A field the kernel does not expose (a sender's count of segments marked lost,
reordering buffers, reinjections) is null in the summary and NaN in the series,
never a made-up value.
"""

from __future__ import annotations

import bisect
import math

from .. import _core
from .plan import Plan

INFINITE_SSTHRESH = 0x7FFFFFFF
# Summary fields of the simulator the kernel does not expose: null here, so that
# both summaries have the same fields. The simulator's counters come from Rust
# (`flow::COUNTERS`): a new one is null here until this module measures it.
MEASURED_COUNTERS = ("sent_packets", "retransmissions", "timeouts", "drops", "losses")
UNMEASURED_SUBFLOW = tuple(c for c in _core.counters() if c not in MEASURED_COUNTERS)
UNMEASURED_FLOW = ("data_dup_segments", "data_reorder_peak_segments", "reorder_mean_segments",
                   "reorder_peak_segments", *UNMEASURED_SUBFLOW)
CDF_POINTS = 201
PERCENTILES = (50, 95, 99)


def _stats(prefix: str, samples: list[float]) -> dict:
    """Mean, population variance, minimum and nearest-rank percentiles at
    microsecond resolution, as the simulator reports them."""
    out = {f"{prefix}_samples": len(samples)}
    if not samples:
        out.update({f"{prefix}_{k}": None for k in ("mean_s", "var_s2", "min_s", "p50_s", "p95_s", "p99_s")})
        return out
    us = sorted(round(x * 1e6) for x in samples)
    n = len(us)
    mean = math.fsum(samples) / n
    out[f"{prefix}_mean_s"] = mean
    out[f"{prefix}_var_s2"] = math.fsum((x - mean) ** 2 for x in samples) / n
    out[f"{prefix}_min_s"] = us[0] * 1e-6
    for p in PERCENTILES:
        out[f"{prefix}_p{p}_s"] = us[min(n, max(1, math.ceil(p / 100 * n))) - 1] * 1e-6
    return out


def _cdf(samples: list[float]) -> list[tuple[float, float]]:
    if not samples:
        return []
    us = sorted(round(x * 1e6) for x in samples)
    n = len(us)
    out = []
    for i in range(CDF_POINTS):
        q = i / (CDF_POINTS - 1)
        out.append((q, us[min(n, max(1, math.ceil(q * n))) - 1] * 1e-6))
    return out


def _delta(end: dict, start: dict | None, key: str) -> float:
    return end[key] - (start[key] if start else 0)


def results(plan: Plan, raw: dict, wall_s: float) -> tuple[dict, dict]:
    """(summary, tables) in the simulator's shapes; tables as mpcc.run.Result takes them."""
    cfg = plan.config
    emu = raw["emulator"]
    dur_ns = cfg["duration_ns"]
    warm_ns = cfg["warmup_ns"]
    interval = cfg["sample_interval_ns"]
    flows, flow_rows, cdf_rows = {}, [], []
    sub_index = 0
    for f in plan.flows:
        client = raw["clients"][f.index]
        receivers = raw["server"]["ports"].get(str(f.port), [])
        w0 = max(warm_ns, f.start_ns)
        window_s = max(1e-9, (dur_ns - w0) / 1e9)
        reads = sorted((t, n) for r in receivers for t, n in r["reads"])
        delivered = sum(n for t, n in reads if t >= w0)
        delays = [d for r in receivers for d, st in zip(r["delays"], r["stamps"]) if st >= w0]
        # Kernel samples by subflow: the first at or after the window's start, and the last.
        rows_by_sub: dict[int, list] = {}
        for t, idx, info in client["rows"]:
            rows_by_sub.setdefault(idx, []).append((t, info))
        subs, all_rtt = [], []
        for j, s in enumerate(f.subflows):
            e = emu["subflows"][sub_index + j]
            rows = rows_by_sub.get(j, [])
            first = next((info for t, info in rows if t >= w0), None) if w0 > 0 else None
            last = rows[-1][1] if rows else None
            rtts = [r for t, r in e["rtt_s"] if t * 1e9 >= w0]
            rtt_times = [t * 1e9 for t, _ in e["rtt_s"]]
            all_rtt += rtts
            payload = e["payload"][0] - (e["payload_at_warmup"][0] if warm_ns > 0 else 0)
            sub = {
                "throughput_bps": payload * 8 / window_s,
                "drops": sum(e["drops"]) - (sum(e["drops_at_warmup"]) if warm_ns > 0 else 0),
                "sent_packets": _delta(last, first, "data_segs_out") if last else None,
                "retransmissions": _delta(last, first, "total_retrans") if last else None,
                "timeouts": _delta(last, first, "total_rto") if last else None,
                "losses": None,
                **dict.fromkeys(UNMEASURED_SUBFLOW),
                "cost": 0.0, "cost_per_mbit": 0.0,
                **_stats("rtt", rtts),
            }
            subs.append(sub)
            for t, info in rows:
                k = bisect.bisect_right(rtt_times, t)
                flow_rows.append({
                    "t_s": t / 1e9, "flow": f.index, "subflow": j,
                    "cwnd": float(info["cwnd"]),
                    "ssthresh": math.inf if info["ssthresh"] >= INFINITE_SSTHRESH else float(info["ssthresh"]),
                    "srtt_s": info["rtt_us"] / 1e6,
                    "rtt_s": e["rtt_s"][k - 1][1] if k else math.nan,
                    # Segments times the flow's segment: tcp_info's snd_mss (1448) leaves
                    # out an MPTCP subflow's DSS option (1424 carried, docs/mptcp.md).
                    "in_flight_bytes": float((info["unacked"] - info["sacked"] - info["lost"] + info["retrans"])
                                             * min(info["snd_mss"], f.mss)),
                    "sent_bytes": float(info["bytes_sent"]),
                    "delivered_bytes": float(sum(n for tr, n in reads if tr <= t)),
                    "received_bytes": float(info["bytes_acked"]),
                    "retransmissions": float(info["total_retrans"]),
                    "losses": math.nan, "timeouts": float(info["total_rto"]),
                    "ooo_segments": math.nan, "reinjections": math.nan, "data_ooo_segments": math.nan,
                })
        sub_index += len(f.subflows)
        fct = None
        if f.app["kind"] == "file" and reads and sum(n for _, n in reads) >= f.app["size_bytes"]:
            fct = (reads[-1][0] - f.start_ns) / 1e9
        goodput = delivered * 8 / window_s if fct is None else f.app["size_bytes"] * 8 / fct
        web = {}
        if f.app["kind"] == "web":
            loads = [s for t, s in raw["server"].get("pages", {}).get(str(f.port), []) if t >= w0]
            stats = _stats("page_load", loads)
            web = {"pages": len(loads), "page_load_mean_s": stats["page_load_mean_s"],
                   "page_load_p50_s": stats["page_load_p50_s"], "page_load_p95_s": stats["page_load_p95_s"]}
        flows[f.name] = {
            "cc": f.cc, "kernel_cc": f.kernel_cc,
            "scheduler": "minrtt",  # the kernel's default scheduler (docs/testbed.md)
            "receiver": "none",
            "goodput_bps": goodput,
            "throughput_bps": sum(s["throughput_bps"] for s in subs),
            "delivered_bytes": delivered,
            "fct_s": fct,
            **{k: (sum(s[k] for s in subs) if all(s[k] is not None for s in subs) else None)
               for k in ("sent_packets", "retransmissions", "timeouts", "drops")},
            "losses": None,
            **dict.fromkeys(UNMEASURED_FLOW),
            "cost": 0.0,
            **_stats("rtt", all_rtt),
            **_stats("app_delay", delays),
            "subflows": subs,
            **web,
            "error": client.get("error"),
        }
        for metric, samples in ((0, all_rtt), (1, delays)):
            for q, d in _cdf(samples):
                cdf_rows.append((f.index, metric, q, d))
    links = {}
    for l, link in enumerate(emu["links"]):
        end, warm = link["end"], link["at_warmup"]
        tx = end[5] - (warm[5] if warm_ns > 0 else 0)
        dq = end[7] - (warm[7] if warm_ns > 0 else 0)
        soj = end[8] - (warm[8] if warm_ns > 0 else 0)
        links[link["name"]] = {
            "tx_bytes": tx,
            "drops": end[6] - (warm[6] if warm_ns > 0 else 0),
            "queue_drops": link["queue_drops"], "loss_drops": link["loss_drops"],
            "queue_delay_mean_s": soj / dq / 1e9 if dq else 0.0,
            # Per-packet sojourn times are not kept by the link emulator: unmeasured.
            "queue_delay_p50_s": None, "queue_delay_p95_s": None, "queue_delay_p99_s": None,
            "utilization": tx * 8 / link["capacity_bits"] if link["capacity_bits"] else None,
        }
    series = _link_series(emu["series"], interval)
    summary = {
        "flows": flows, "links": links,
        "testbed": {
            "duration_s": dur_ns / 1e9, "warmup_s": warm_ns / 1e9, "seed": cfg["seed"], "wall_s": wall_s,
            "kernel": raw.get("kernel", ""), "emulator": emu["timing"],
            "unrouted_packets": emu["unrouted"], "emulator_pool_full_drops": emu["pool_full_drops"],
            "emulator_write_failures": emu["write_failures"],
            "server_errors": raw["server"].get("errors", []),
        },
    }
    flow_cols = ["t_s", "flow", "subflow", "cwnd", "ssthresh", "srtt_s", "rtt_s", "in_flight_bytes", "sent_bytes",
                 "delivered_bytes", "received_bytes", "retransmissions", "losses", "timeouts", "ooo_segments",
                 "reinjections", "data_ooo_segments"]
    flow_rows.sort(key=lambda r: (r["t_s"], r["flow"], r["subflow"]))
    tables = {
        "flow_series": {c: [r[c] for r in flow_rows] for c in flow_cols},
        "link_series": series,
        "delay_cdf": {"flow": [r[0] for r in cdf_rows], "metric": [r[1] for r in cdf_rows],
                      "q": [r[2] for r in cdf_rows], "delay_s": [r[3] for r in cdf_rows]},
    }
    return summary, tables


def _link_series(rows: list, interval_ns: int) -> dict:
    """The emulator's samples as link_series columns; the sojourn mean is over the
    packets dequeued since the previous sample."""
    cols = {c: [] for c in ("t_s", "link", "capacity_bps", "drops", "queue_bytes", "queue_packets",
                            "sojourn_mean_s", "tx_bytes")}
    prev: dict[int, tuple[float, float]] = {}
    for t, l, cap, qp, qb, tx, drops, dq, soj in rows:
        pdq, psoj = prev.get(l, (0, 0.0))
        prev[l] = (dq, soj)
        cols["t_s"].append(t / 1e9)
        cols["link"].append(l)
        cols["capacity_bps"].append(cap)
        cols["drops"].append(float(drops))
        cols["queue_bytes"].append(float(qb))
        cols["queue_packets"].append(float(qp))
        cols["sojourn_mean_s"].append((soj - psoj) / (dq - pdq) / 1e9 if dq > pdq else 0.0)
        cols["tx_bytes"].append(float(tx))
    return cols
