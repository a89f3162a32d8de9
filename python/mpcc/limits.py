"""Resource limits: a scenario estimated to need more memory or more events than
a run can reasonably spend is refused before it starts, with one line naming the
fields that drive the estimate (docs/scenarios.md, "Resource limits").

The estimates come from the canonical configuration (`Scenario.to_config()`) and
the per-item costs below, measured on `mpcc run` (simulator and the Python results
together). They are upper bounds of the dominant terms, not predictions: a
scenario far below the limit may still be slow, one near it may fit.
"""

from __future__ import annotations

import math
from pathlib import Path

from .scenario import ScenarioError, check_frame_trace, check_trace

DEFAULT_MAX_MEMORY_BYTES = 8 * 2**30
# A few minutes of simulation at the 20 to 35 million events per second the
# simulator reaches on one core; 25 times the largest paper scenario's estimate.
MAX_EVENTS = 5 * 10**9

# Per-item costs in bytes.
# With `exact_percentiles`, every delivered packet keeps an RTT and an application-delay
# sample (4 bytes each, up to twice that while their arrays grow); without, the quantile
# sketches' memory is bounded per flow (in FLOW_BYTES).
PACKET_BYTES = 16
SERIES_VALUE_BYTES = 80  # 8 in the simulator's columns, the rest as Python floats, DataFrame, Parquet
FLOW_SERIES_COLUMNS = 17
LINK_SERIES_COLUMNS = 8
FLOW_BYTES = 72 * 1024  # state, summary and plot line of one flow (62 KB measured with 10 000 flows)
SUBFLOW_BYTES = 4 * 1024
QUEUED_PACKET_BYTES = 224  # the packet, and its sender's record of it as outstanding (220 B measured)
BACKLOG_ENTRY_BYTES = 16  # per write and per segment of data written but not yet acknowledged
# Events per delivered packet: enqueue and departure at every hop, arrival, ACK.
EVENTS_PER_PACKET_BASE = 4
EVENTS_PER_PACKET_HOP = 2


class Cost:
    """One term of an estimate: the user's field(s) driving it, its size (bytes, or
    events), what it is made of (in parentheses in the message), and how to lower it.
    (A plain class: a dataclass costs `mpcc run` a few ms to create at import.)"""

    __slots__ = ("field", "amount", "detail", "advice")

    def __init__(self, field: str, amount: float, detail: str, advice: str):
        self.field, self.amount, self.detail, self.advice = field, amount, detail, advice

    def __repr__(self) -> str:
        return f"Cost({self.field!r}, {self.amount!r}, {self.detail!r}, {self.advice!r})"


def check_resources(config: dict, max_memory_bytes: int | None = None, max_events: float | None = None) -> None:
    """Raises ScenarioError if the configuration is estimated to need more than
    `max_memory_bytes` (default DEFAULT_MAX_MEMORY_BYTES) or more than `max_events`
    events (default MAX_EVENTS); the message names the dominant term's fields and
    what to change."""
    limit = DEFAULT_MAX_MEMORY_BYTES if max_memory_bytes is None else max_memory_bytes
    event_limit = MAX_EVENTS if max_events is None else max_events
    memory = estimate_memory(config)
    total = sum(c.amount for c in memory)
    if total > limit:
        top = max(memory, key=lambda c: c.amount)
        raise ScenarioError(top.field, f"about {_bytes(total)} of memory ({top.detail}); the limit is {_bytes(limit)}: "
                                       f"{top.advice}, or raise it with --max-memory")
    events = estimate_events(config)
    total = sum(c.amount for c in events)
    if total > event_limit:
        top = max(events, key=lambda c: c.amount)
        raise ScenarioError(top.field, f"{top.detail} give about {total:.1e} events; the limit is {event_limit:.0e} "
                                       f"(minutes of simulation): {top.advice}")


# ---- the model of a configuration ----------------------------------------------------


class _Flow:
    """A user's flow: `where` (its field, flows[i]), `config` (its first copy), `copies`
    (`count`), `wire` (bytes of a full segment on the wire), `path_bps` (what its routes
    can carry: the sum over subflows of each route's bottleneck), `active_s`,
    `subflows`, `hops`."""

    __slots__ = ("where", "config", "copies", "wire", "path_bps", "active_s", "subflows", "hops")

    def __init__(self, **fields):
        for name in self.__slots__:
            setattr(self, name, fields.pop(name))
        if fields:
            raise TypeError(f"unknown fields {sorted(fields)}")


def _model(config: dict):
    duration_s = config["duration_ns"] / 1e9
    links = config["links"]
    rates = [_capacity_bps(link) for link in links]
    flows = []
    for where, group in _user_flows(config["flows"]):
        f = group[0]
        routes = [sf["path"] for sf in f["subflows"]] if f.get("subflows") else [f["path"]]
        tcp = f["tcp"]
        flows.append(_Flow(
            where=where, config=f, copies=len(group), wire=tcp["mss"] + tcp["header_bytes"],
            path_bps=sum(min(rates[i] for i in route) for route in routes),
            active_s=max(0.0, duration_s - f.get("start_ns", 0) / 1e9), subflows=len(routes),
            hops=max(len(route) for route in routes)))
    return duration_s, links, rates, flows


def _user_flows(flows: list[dict]):
    """(the user's `flows[i]`, its simulated copies): copies made by `count` are the
    runs NAME.0, NAME.1, ... that differ only in their name."""
    i = user = 0
    while i < len(flows):
        group = [flows[i]]
        base, _, k = flows[i]["name"].rpartition(".")
        if k == "0":
            same = {key: v for key, v in flows[i].items() if key != "name"}
            while (i + len(group) < len(flows) and flows[i + len(group)]["name"] == f"{base}.{len(group)}"
                   and {key: v for key, v in flows[i + len(group)].items() if key != "name"} == same):
                group.append(flows[i + len(group)])
        yield f"flows[{user}]", group
        i += len(group)
        user += 1


def _capacity_bps(link: dict) -> float:
    cap = link["capacity"]
    kind = cap["kind"]
    if kind == "constant":
        return cap["bps"]
    if kind == "schedule":
        return max(rate for _, rate in cap["steps"])
    if kind == "random_walk":
        return cap["max_bps"]
    opportunities, last_ms = _trace(link)
    return opportunities * cap["bytes_per_opportunity"] * 8 / (last_ms / 1e3)


def _trace(link: dict) -> tuple[int, int]:
    path = link["capacity"]["path"]
    return check_trace(Path(path), f"links.{link['name']}.capacity.path", Path(path).name)


def _rate_field(link: dict) -> str:
    return f"links.{link['name']}." + ("rate" if link["capacity"]["kind"] == "constant" else "capacity")


# ---- memory ----------------------------------------------------------------------------


def estimate_memory(config: dict) -> list[Cost]:
    """The terms of the memory estimate, in bytes."""
    duration_s, links, rates, flows = _model(config)
    costs = [_series(config, duration_s, links, flows), _flows(flows)]
    if config.get("exact_percentiles"):
        costs.append(_packets(duration_s, links, rates, flows))
    costs += _queues(duration_s, links, rates, flows)
    costs += [c for f in flows if (c := _backlog(f)) is not None]
    if config.get("pcap"):
        costs.append(_pcap(config, duration_s, rates, flows))
    return costs


# A captured packet: its record header and synthesised IPv4 + TCP headers (pcap.rs).
PCAP_PACKET_BYTES = 16 + 76


def _pcap(config, duration_s, rates, flows) -> Cost:
    """Every packet a captured link can carry, and every data segment and ACK of a
    captured flow."""
    wire = min((f.wire for f in flows), default=1500)
    packets = sum(rates[i] * duration_s / 8 / wire for i in config["pcap"].get("links", []))
    by_index = [f for f in flows for _ in range(f.copies)]
    packets += sum(2 * f.path_bps * duration_s / 8 / f.wire for i in config["pcap"].get("flows", [])
                   if i < len(by_index) for f in [by_index[i]])
    return Cost("pcap", packets * PCAP_PACKET_BYTES, f"{packets:.1e} captured packets",
                "fewer captured links or flows, or a shorter duration")


def _delivered_packets(duration_s, links, rates, flows) -> tuple[float, int]:
    """Delivered packets: what the links can carry, bounded by what the flows can
    send; and the index of the link carrying most."""
    wire = min((f.wire for f in flows), default=1500)
    by_links = sum(rate * duration_s / 8 / wire for rate in rates)
    by_flows = sum(f.copies * min(f.path_bps * f.active_s / 8 / f.wire, _app_packets(f)) for f in flows)
    busiest = max(range(len(links)), key=lambda i: rates[i])
    return min(by_links, by_flows), busiest


def _app_packets(f: _Flow) -> float:
    """Packets the application can offer at most (bulk and on-off: no bound)."""
    app, mss = f.config["app"], f.config["tcp"]["mss"]
    kind = app["kind"]
    if kind == "file":
        return app["bytes"] / mss + 1
    if kind in ("cbr", "vbr"):
        return _app_rate_bps(f) * f.active_s / 8 / mss + 1
    if kind == "web" and app.get("pages") and app.get("objects"):
        return app["pages"] * sum(math.ceil(size / mss) for size in app["objects"])
    return math.inf


def _packets(duration_s, links, rates, flows) -> Cost:
    packets, busiest = _delivered_packets(duration_s, links, rates, flows)
    return Cost(f"{_rate_field(links[busiest])} x duration", packets * PACKET_BYTES,
                f"{packets:.1e} packets' delay samples kept for exact_percentiles",
                "exact_percentiles = false (the quantile sketch), shorten duration or lower the rates")


def _series(config, duration_s, links, flows) -> Cost:
    interval = config.get("sample_interval_ns", 0)
    samples = config["duration_ns"] // interval + 1 if interval else 0
    rows = sum(f.copies * f.subflows for f in flows)
    values = samples * (rows * FLOW_SERIES_COLUMNS + len(links) * LINK_SERIES_COLUMNS)
    return Cost("sample_interval x duration", values * SERIES_VALUE_BYTES,
                f"{samples:.1e} samples of {_count(rows, 'subflow')} and {_count(len(links), 'link')}",
                'a longer sample_interval (or "0s": no time series) or a shorter duration')


def _flows(flows) -> Cost:
    count = sum(f.copies for f in flows)
    bytes_ = sum(f.copies * (FLOW_BYTES + f.subflows * SUBFLOW_BYTES) for f in flows)
    biggest = max(flows, key=lambda f: f.copies)
    field = f"{biggest.where}.count" if biggest.copies * 2 > count else "flows"
    return Cost(field, bytes_, f"{count} simulated flows", "fewer flows")


def _queues(duration_s, links, rates, flows) -> list[Cost]:
    wire = min((f.wire for f in flows), default=1500)
    costs = []
    for link, rate in zip(links, rates):
        queue = link["queue"]
        if queue["kind"] == "droptail":
            limit, field = (queue["packets"], "packets") if queue.get("packets") else (queue["bytes"] / wire, "bytes")
        else:
            limit, field = queue["limit"], "limit"
        fillable = min(limit, rate * duration_s / 8 / wire)
        costs.append(Cost(f"links.{link['name']}.queue.{field}", fillable * QUEUED_PACKET_BYTES,
                          f"{fillable:.1e} packets can queue", "a smaller queue"))
    return costs


def _backlog(f: _Flow) -> Cost | None:
    """Data a writing application (cbr, vbr, web) holds in an unlimited or large
    send buffer: a stream above what its path carries, a page or a frame written at once."""
    app, tcp = f.config["app"], f.config["tcp"]
    kind, mss = app["kind"], tcp["mss"]
    if kind not in ("cbr", "vbr", "web"):
        return None
    if kind == "web":
        backlog, field, what = _page_bytes(app), f"{f.where}.app.objects", "a page written at once"
        if not app.get("objects"):
            field = f"{f.where}.app.object_bytes"
        chunk = mss
    else:
        excess = max(0.0, _app_rate_bps(f) - f.path_bps) * f.active_s / 8
        field, what = f"{f.where}.app.rate", "a stream faster than its path"
        chunk = app.get("chunk_bytes") or mss if kind == "cbr" else mss
        backlog = excess
        if kind == "vbr" and app.get("trace"):
            field = f"{f.where}.app.trace"
            largest = _frames(f)[2]
            if largest > excess:
                backlog, what = largest, "its largest frame"
    if tcp.get("send_buf_bytes") is not None:
        backlog = min(backlog, tcp["send_buf_bytes"])
    entries = backlog / chunk + backlog / mss
    return Cost(field, f.copies * entries * BACKLOG_ENTRY_BYTES, f"{_bytes(backlog)} written and not yet sent: {what}",
                "set tcp.send_buf or lower the rate")


def _page_bytes(app: dict) -> float:
    if app.get("objects"):
        return float(sum(app["objects"]))
    return _large(app["object_count"]) * _large(app["object_bytes"])


def _large(dist: dict) -> float:
    """A large draw of a distribution: its maximum if bounded, else ten times its mean."""
    kind = dist["kind"]
    if kind == "fixed":
        return dist["value"]
    if kind == "uniform":
        return dist["max"]
    return 10 * dist["mean"]


def _mean(dist: dict) -> float:
    kind = dist["kind"]
    if kind == "fixed":
        return dist["value"]
    if kind == "uniform":
        return (dist["min"] + dist["max"]) / 2
    return dist["mean"]


def _frames(f: _Flow) -> tuple[int, int, int]:
    path = f.config["app"]["trace"]
    return check_frame_trace(Path(path), f"{f.where}.app.trace", Path(path).name)


def _app_rate_bps(f: _Flow) -> float:
    app = f.config["app"]
    if app["kind"] == "cbr":
        return app["rate_bps"]
    if app.get("rate_bps") is not None:
        return app["rate_bps"]
    frames, total, _ = _frames(f)
    return total / frames * 8 * app["fps"]


# ---- events ----------------------------------------------------------------------------


def estimate_events(config: dict) -> list[Cost]:
    """The terms of the event estimate (CPU time)."""
    duration_s, links, rates, flows = _model(config)
    packets, busiest = _delivered_packets(duration_s, links, rates, flows)
    hops = max((f.hops for f in flows), default=1)
    per_packet = EVENTS_PER_PACKET_BASE + EVENTS_PER_PACKET_HOP * hops
    costs = [Cost(f"{_rate_field(links[busiest])} x duration", packets * per_packet,
                  f"{packets:.1e} packets over {_count(hops, 'hop')}", "shorten duration or lower the rates")]
    costs += [c for link in links if (c := _capacity_events(link, duration_s)) is not None]
    costs += [c for f in flows if (c := _app_events(f)) is not None]
    return costs


def _capacity_events(link: dict, duration_s: float) -> Cost | None:
    cap, field = link["capacity"], f"links.{link['name']}.capacity"
    if cap["kind"] == "random_walk":
        step = cap["step_ns"] / 1e9
        return Cost(f"{field}.step", duration_s / step, f"steps of {_seconds(step)} over {_seconds(duration_s)}",
                    "a longer step")
    if cap["kind"] == "schedule" and cap.get("period_ns"):
        period = cap["period_ns"] / 1e9
        return Cost(f"{field}.period", len(cap["steps"]) * duration_s / period,
                    f"a period of {_seconds(period)} over {_seconds(duration_s)}", "a longer period")
    if cap["kind"] == "trace":
        opportunities, last_ms = _trace(link)
        return Cost(f"{field}.path", opportunities * duration_s / (last_ms / 1e3),
                    f"{opportunities} opportunities every {last_ms} ms over {_seconds(duration_s)}",
                    "a shorter duration")
    return None


def _app_events(f: _Flow) -> Cost | None:
    app, where, t = f.config["app"], f"{f.where}.app", f.active_s
    kind = app["kind"]
    if kind == "onoff":
        cycle = (_mean(app["on_ns"]) + _mean(app["off_ns"])) / 1e9
        return Cost(f"{where}.on", f.copies * 2 * t / cycle, f"on and off periods of {_seconds(cycle / 2)} over "
                                                             f"{_seconds(t)}", "longer on and off periods")
    if kind == "cbr":
        chunk = app.get("chunk_bytes") or f.config["tcp"]["mss"]
        writes = app["rate_bps"] * t / 8 / chunk
        return Cost(f"{where}.chunk", f.copies * writes, f"writes of {chunk} bytes at {app['rate_bps']:.3g} bit/s over "
                                                         f"{_seconds(t)}", "larger chunks")
    if kind == "vbr":
        return Cost(f"{where}.fps", f.copies * app["fps"] * t, f"{app['fps']:g} frames per second over {_seconds(t)}",
                    "fewer frames per second")
    if kind == "web":
        think = _mean(app["think_ns"]) / 1e9
        objects = len(app["objects"]) if app.get("objects") else _mean(app["object_count"])
        return Cost(f"{where}.think", f.copies * objects * t / think,
                    f"pages every {_seconds(think)} over {_seconds(t)}", "a longer think time")
    return None


# ---- wording -----------------------------------------------------------------------------


def _bytes(n: float) -> str:
    if n >= 2**30 and n % 2**30 == 0:
        return f"{n / 2**30:g} GiB"
    for unit, size in (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} bytes"


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'s' * (n != 1)}"


def _seconds(s: float) -> str:
    for unit, size in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if s >= size:
            return f"{s / size:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"
