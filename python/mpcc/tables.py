"""The simulator's result tables as named columns: entity indices replaced by names,
the derived rate columns added. `Result`'s DataFrames and the results folder's Parquet
files are both built from these, so the files need neither pandas nor numpy (see
parquet.py; `Result.columns` hands them over as numpy arrays).

A column is an `array.array` of doubles ('d') or 64-bit integers ('q'), a list of
names (str), or `parquet.Booleans`. Everything here is plain Python: numpy's import
alone costs more than these tables take to build for most runs (issue 18, item 4).
The derived rates walk each group's rows once, in time order; the arithmetic is
the same IEEE double operations, in the same order, as the numpy code it replaced,
so the values are bit for bit the same."""

from __future__ import annotations

from array import array

from .parquet import Booleans

# The per-event log's kinds, in the simulator's order (crates/mpcc-sim/src/event_log.rs).
EVENT_KINDS = ["send", "receive", "drop", "loss", "rto", "recovery_enter", "recovery_exit", "subflow_on",
               "subflow_off", "undo", "probe", "receiver_dupack", "receiver_off", "receiver_on"]
EVENT_COLUMNS = ["t_s", "kind", "flow", "subflow", "seq", "dsn", "link", "ack", "count"]
DELAY_METRICS = ("rtt", "app_delay")


def flow_series(table: dict, flow_names: list[str], interval_s: float) -> dict:
    """One row per (time, flow, subflow): `t_s`, `flow` (name), `subflow`, the
    simulator's counters, and per sample interval `throughput_bps` (from the subflow's
    `received_bytes`), `goodput_bps` (from the connection's `delivered_bytes`, repeated
    on each subflow row like that counter) and `goodput_smooth_bps` (see `smooth_goodput_bps`)."""
    flow = array("d", table.get("flow", []))
    cols = _series(table, "flow", flow_names)
    if "received_bytes" in cols and "throughput_bps" not in cols:
        keys = list(zip(flow, cols["subflow"])) if "subflow" in cols else list(flow)
        cols["throughput_bps"] = rate_bps(keys, cols["t_s"], cols["received_bytes"], interval_s)
    if "delivered_bytes" in cols and ("goodput_bps" not in cols or "goodput_smooth_bps" not in cols):
        conn = _connections(cols, flow)
        if "goodput_bps" not in cols:
            cols["goodput_bps"] = conn.per_row(rate_bps(conn.flows, conn.times, conn.delivered, interval_s))
        if "received_bytes" in cols and "goodput_smooth_bps" not in cols:
            cols["goodput_smooth_bps"] = conn.per_row(
                smooth_goodput_bps(conn.flows, conn.times, conn.delivered, conn.received, interval_s))
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
            "q": array("d", table.get("q", [])),
            "delay_s": array("d", table.get("delay_s", []))}


def events(table: dict, flow_names: list[str], link_names: list[str]) -> dict:
    """The per-event log with names for flows, links and kinds (see Result.events)."""
    labels = {"flow": flow_names, "link": link_names, "kind": EVENT_KINDS}
    out = {}
    for col in EVENT_COLUMNS:
        values = array("d", table.get(col, []))
        if col in labels:
            names = labels[col]
            out[col] = [names[int(i)] if 0 <= i < len(names) else "" for i in values]
        elif col == "ack":
            out[col] = Booleans(v != 0 for v in values)
        elif col == "t_s":
            out[col] = values
        else:
            out[col] = array("q", map(int, values))
    return out


def _series(table: dict, key: str, names: list[str]) -> dict:
    """Columns with `key` holding entity names instead of indices, `subflow` as
    integers, `t_s`, `key` and `subflow` first."""
    cols = {name: array("d", values) for name, values in table.items()}
    if "subflow" in cols:
        cols["subflow"] = array("q", map(int, cols["subflow"]))
    if key in cols:
        n = len(names)
        cols[key] = [names[i] if 0 <= i < n else str(i) for i in map(int, cols[key])]
    first = [c for c in ("t_s", key, "subflow") if c in cols]
    return {c: cols[c] for c in first + [c for c in cols if c not in first]}


def _in_time_order(keys, t_s) -> list[list[int]]:
    """The row indices of each distinct key (in order of first appearance), each group
    ordered by time; rows of equal time keep their order (a stable sort, as numpy's
    lexsort). The simulator writes rows in time order, so the sort rarely runs."""
    groups: dict = {}
    for i, k in enumerate(keys):
        rows = groups.get(k)
        if rows is None:
            groups[k] = [i]
        else:
            rows.append(i)
    ordered = []
    for rows in groups.values():
        times = [t_s[i] for i in rows]
        if any(b < a for a, b in zip(times, times[1:])):
            rows = sorted(rows, key=t_s.__getitem__)
        ordered.append(rows)
    return ordered


def rate_bps(group, t_s, cumulative_bytes, interval_s: float) -> array:
    """Bits per second between consecutive samples of a cumulative byte counter, per group
    (`group`: one hashable key per row).

    The first sample of each group is measured from one interval earlier (not before
    time 0) and 0 bytes: a subflow's counters start when it joins; a sample at time 0
    has rate 0."""
    out = array("d", bytes(8 * len(t_s)))
    for rows in _in_time_order(group, t_s):
        first = rows[0]
        prev_t = max(0.0, t_s[first] - interval_s) if interval_s > 0 else 0.0
        prev_b = 0.0
        for i in rows:
            t, b = t_s[i], cumulative_bytes[i]
            dt = t - prev_t
            out[i] = (b - prev_b) * 8.0 / dt if dt > 0 else 0.0
            prev_t, prev_b = t, b
    return out


def smooth_goodput_bps(group, t_s, delivered, received, interval_s: float) -> array:
    """Goodput for plots: in-order delivery spread at the rate data reached the receiver.

    Data held back by a gap is released at once when the gap fills, so the goodput of a
    sample interval can exceed every link's capacity. Here the delivered bytes shown by
    sample k are S_k = min(D_k, S_{k-1} + (R_k - R_{k-1})), D the connection's in-order
    delivered bytes and R the bytes its subflows received: never more per interval than
    arrived in it (so never above the paths' capacity), and S catches up with D as soon
    as arrivals allow, so no byte is lost, only shown later."""
    shown = array("d", bytes(8 * len(t_s)))
    for rows in _in_time_order(group, t_s):
        prev_s = prev_r = 0.0
        for k in rows:
            prev_s = min(delivered[k], prev_s + max(0.0, received[k] - prev_r))
            prev_r = received[k]
            shown[k] = prev_s
    return rate_bps(group, t_s, shown, interval_s)


class _Connections:
    """One row per (flow, time) of a flow series: the connection's `delivered_bytes`
    (the same on each subflow row) and the sum of its subflows' `received_bytes`
    (added in row order); `row_of[i]` is the connection row of table row i."""

    def __init__(self, flows: list, times: array, delivered: array, received: array, row_of: array):
        self.flows, self.times, self.delivered, self.received, self.row_of = flows, times, delivered, received, row_of

    def per_row(self, values: array) -> array:
        """A value per connection row copied to every table row of that flow and time."""
        return array("d", map(values.__getitem__, self.row_of))


def _connections(cols: dict, flow) -> _Connections:
    t_s, delivered_bytes = cols["t_s"], cols["delivered_bytes"]
    received_bytes = cols.get("received_bytes")
    index: dict = {}  # (flow, time) -> its connection row
    row_of = array("q", bytes(8 * len(t_s)))
    flows, times, delivered, received = [], array("d"), array("d"), array("d")
    for i, key in enumerate(zip(flow, t_s)):
        j = index.get(key)
        if j is None:
            j = index[key] = len(flows)
            flows.append(key[0])
            times.append(key[1])
            delivered.append(delivered_bytes[i])
            received.append(0.0)
        if received_bytes is not None:
            received[j] += received_bytes[i]
        row_of[i] = j
    return _Connections(flows, times, delivered, received, row_of)
