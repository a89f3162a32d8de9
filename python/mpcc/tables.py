"""The simulator's result tables as named numpy columns: entity indices replaced by
names, the derived rate columns added. `Result`'s DataFrames and the results folder's
Parquet files are both built from these, so the files need no pandas (see parquet.py)."""

from __future__ import annotations

import numpy as np

# The per-event log's kinds, in the simulator's order (crates/mpcc-sim/src/event_log.rs).
EVENT_KINDS = ["send", "receive", "drop", "loss", "rto", "recovery_enter", "recovery_exit", "subflow_on",
               "subflow_off", "undo", "probe"]
EVENT_COLUMNS = ["t_s", "kind", "flow", "subflow", "seq", "dsn", "link", "ack", "count"]
DELAY_METRICS = ("rtt", "app_delay")


def flow_series(table: dict, flow_names: list[str], interval_s: float) -> dict:
    """One row per (time, flow, subflow): `t_s`, `flow` (name), `subflow`, the
    simulator's counters, and per sample interval `throughput_bps` (from the subflow's
    `received_bytes`), `goodput_bps` (from the connection's `delivered_bytes`, repeated
    on each subflow row like that counter) and `goodput_smooth_bps` (see `smooth_goodput_bps`)."""
    flow = np.asarray(table.get("flow", []), dtype=float)
    cols = _series(table, "flow", flow_names)
    if "received_bytes" in cols and "throughput_bps" not in cols:
        keys = [flow, cols["subflow"]] if "subflow" in cols else [flow]
        cols["throughput_bps"] = rate_bps(_group_ids(keys), cols["t_s"], cols["received_bytes"], interval_s)
    if "delivered_bytes" in cols and "goodput_bps" not in cols:
        cols["goodput_bps"] = _per_connection(cols, flow, lambda g, t, d, r: rate_bps(g, t, d, interval_s))
    if "delivered_bytes" in cols and "received_bytes" in cols and "goodput_smooth_bps" not in cols:
        cols["goodput_smooth_bps"] = _per_connection(cols, flow,
                                                     lambda g, t, d, r: smooth_goodput_bps(g, t, d, r, interval_s))
    return cols


def link_series(table: dict, link_names: list[str]) -> dict:
    return _series(table, "link", link_names)


def metric_series(table: dict, flow_names: list[str]) -> dict:
    """`t_s`, `flow` (name), `subflow`, then a column per controller (`cc.NAME`) or
    scheduler (`sched.NAME`) figure."""
    return _series(table, "flow", flow_names)


def delay_cdf(table: dict | None, flow_names: list[str]) -> dict:
    """`flow` (name), `metric` ("rtt" or "app_delay"), `q` and `delay_s`."""
    table = table or {}
    return {"flow": [flow_names[int(i)] for i in table.get("flow", [])],
            "metric": [DELAY_METRICS[int(m)] for m in table.get("metric", [])],
            "q": np.asarray(table.get("q", []), dtype=float),
            "delay_s": np.asarray(table.get("delay_s", []), dtype=float)}


def events(table: dict, flow_names: list[str], link_names: list[str]) -> dict:
    """The per-event log with names for flows, links and kinds (see Result.events)."""
    labels = {"flow": flow_names, "link": link_names, "kind": EVENT_KINDS}
    out = {}
    for col in EVENT_COLUMNS:
        values = np.asarray(table.get(col, []), dtype=float)
        if col in labels:
            names = labels[col]
            out[col] = [names[int(i)] if 0 <= i < len(names) else "" for i in values]
        elif col == "ack":
            out[col] = values.astype(bool)
        elif col == "t_s":
            out[col] = values
        else:
            out[col] = values.astype("int64")
    return out


def _series(table: dict, key: str, names: list[str]) -> dict:
    """Columns with `key` holding entity names instead of indices, `subflow` as
    integers, `t_s`, `key` and `subflow` first."""
    cols = {name: np.asarray(values, dtype=float) for name, values in table.items()}
    if "subflow" in cols:
        cols["subflow"] = cols["subflow"].astype("int64")
    if key in cols:
        cols[key] = [names[i] if 0 <= i < len(names) else str(i) for i in cols[key].astype("int64")]
    first = [c for c in ("t_s", key, "subflow") if c in cols]
    return {c: cols[c] for c in first + [c for c in cols if c not in first]}


def _group_ids(keys: list[np.ndarray]) -> np.ndarray:
    """A dense id per distinct combination of the numeric `keys` (one array per key)."""
    if not len(keys[0]):
        return np.zeros(0, dtype=np.int64)
    _, ids = np.unique(np.column_stack([np.asarray(k, dtype=float) for k in keys]), axis=0, return_inverse=True)
    return ids.reshape(-1).astype(np.int64)


def rate_bps(group: np.ndarray, t_s: np.ndarray, cumulative_bytes: np.ndarray, interval_s: float) -> np.ndarray:
    """Bits per second between consecutive samples of a cumulative byte counter, per group.

    The first sample of each group is measured from one interval earlier (not before
    time 0) and 0 bytes: a subflow's counters start when it joins; a sample at time 0
    has rate 0."""
    order = np.lexsort((t_s, group))
    g, t, b = group[order], np.asarray(t_s, dtype=float)[order], np.asarray(cumulative_bytes, dtype=float)[order]
    first = np.ones(len(g), dtype=bool)
    first[1:] = g[1:] != g[:-1]
    start = np.maximum(0.0, t - interval_s) if interval_s > 0 else np.zeros(len(t))
    prev_t = np.where(first, start, np.concatenate([[0.0], t[:-1]]))
    prev_b = np.where(first, 0.0, np.concatenate([[0.0], b[:-1]]))
    dt = t - prev_t
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(dt > 0, (b - prev_b) * 8.0 / dt, 0.0)
    rate = np.empty(len(r))
    rate[order] = r
    return rate


def smooth_goodput_bps(group: np.ndarray, t_s: np.ndarray, delivered: np.ndarray, received: np.ndarray,
                       interval_s: float) -> np.ndarray:
    """Goodput for plots: in-order delivery spread at the rate data reached the receiver.

    Data held back by a gap is released at once when the gap fills, so the goodput of a
    sample interval can exceed every link's capacity. Here the delivered bytes shown by
    sample k are S_k = min(D_k, S_{k-1} + (R_k - R_{k-1})), D the connection's in-order
    delivered bytes and R the bytes its subflows received: never more per interval than
    arrived in it (so never above the paths' capacity), and S catches up with D as soon
    as arrivals allow, so no byte is lost, only shown later."""
    order = np.lexsort((t_s, group))
    g, d, r = group[order], np.asarray(delivered, dtype=float)[order], np.asarray(received, dtype=float)[order]
    shown = np.empty(len(g))
    prev_s = prev_r = 0.0
    for k in range(len(g)):
        if k == 0 or g[k] != g[k - 1]:
            prev_s = prev_r = 0.0
        prev_s = min(d[k], prev_s + max(0.0, r[k] - prev_r))
        prev_r = r[k]
        shown[k] = prev_s
    out = np.empty(len(g))
    out[order] = shown
    return rate_bps(group, t_s, out, interval_s)


def _per_connection(cols: dict, flow: np.ndarray, compute) -> np.ndarray:
    """`compute(flow, t, delivered, received)` over one row per (flow, time), with the
    connection's `delivered_bytes` (the same on each subflow row) and the sum of its
    subflows' `received_bytes`; the result is copied back to every row of that flow and time."""
    flow_time = _group_ids([flow, cols["t_s"]])
    n = int(flow_time.max()) + 1 if len(flow_time) else 0
    first_row = np.full(n, len(flow_time))
    np.minimum.at(first_row, flow_time, np.arange(len(flow_time)))
    received = np.zeros(n)
    if "received_bytes" in cols:
        np.add.at(received, flow_time, cols["received_bytes"])
    per = compute(flow[first_row].astype(np.int64), cols["t_s"][first_row], cols["delivered_bytes"][first_row],
                  received)
    return per[flow_time]
