"""What the testbed builds for a scenario, and what it refuses before building.

Hosts are network namespaces: one client per flow (a flow with `count` gives one
per copy) and one server all flows send to. Every host has one TUN device owned
by the link emulator (crates/mpcc-emu), which carries each packet over the
scenario's links of its subflow's route:

    client 0 [10.201.0.1, 10.201.0.2 ...] --+                     +-- server [10.200.0.1]
    client 1 [10.201.1.1]                 --+-- mpcc-emu (links) -+
    ...

Subflow s of flow f has the client address 10.201.f.(s+1); the emulator knows a
packet's subflow by that address (the source of data, the destination of ACKs).
A multipath flow is one MPTCP connection from its first address, with an MPTCP
`subflow` endpoint on each other address, so the kernel opens one subflow per
path. Data goes over `path`; ACKs over `reverse_path`, or, without one, over an
uncongested stretch with the forward path's total propagation delay, as in the
simulator.

Refusals are TestbedRefusal (a ValueError) with one line per problem, naming the scenario's field
and what the testbed allows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..scenario import _tcp_default, mptcp_dss_bytes

# A client namespace per flow: more would make the 2-core machines the
# bottleneck before the links are (docs/testbed.md, "Limits").
MAX_FLOWS = 32
# The kernel's MPTCP accepts at most 8 subflows per connection.
MAX_SUBFLOWS = 8
# Highest rate of one emulated link, and of all of them together, the emulator
# and the endpoints hold on our 2-core machines with timing within docs/testbed.md's
# bounds (measured; see "Limits").
MAX_LINK_BPS = 200e6
MAX_TOTAL_BPS = 400e6
APPS = ("bulk", "file", "cbr", "vbr", "web", "onoff")
SERVER_ADDR = "10.200.0.1"
BASE_PORT = 5000
# TCP settings the testbed can honour: the Linux stack's own defaults.
# Schedulers that stand for the kernel's own (upstream's linger-time rule; `linger` is
# its model, `minrtt` the simulator's default, alike with bulk data: docs/schedulers.md).
KERNEL_SCHEDULERS = ("linger", "minrtt")
TCP_FIXED = {"initial_rto_ns": 1_000_000_000, "rcv_buf_bytes": None}
# The kernel's headers: IPv4, TCP and timestamps, and on an MPTCP subflow the DSS
# option (the linux profile's mptcp_dss_bytes); the MTU is the segment plus these.
HEADER_BYTES = 52
# `host_jitter_ns` models the timing variation a real host has by itself: the
# testbed's hosts are real, so it is accepted and has nothing to set.
# `pacing` is Linux's internal TCP pacing, switched on per socket by SO_MAX_PACING_RATE
# (single-path flows: the kernel refuses that option on an MPTCP socket); its ratios are
# the namespace's net.ipv4.tcp_pacing_{ss,ca}_ratio.
# `nic_rate_bps`: a host's interface here is a TUN device, which has no line rate: a
# NIC faster than the first link of every path of the flow is what the testbed has
# (the simulator's NIC then only adds its serialisation time), one at or below it is not.
TCP_KEYS = {"mss", "header_bytes", "min_rto_ns", "initial_rto_ns", "max_rto_ns", "rcv_buf_bytes",
            "dupthresh", "profile", "host_jitter_ns", "pacing", "pacing_ss_ratio", "pacing_ca_ratio",
            "nic_rate_bps"}


class TestbedRefusal(ValueError):
    """A scenario the testbed cannot build; `problems` holds one line per problem."""

    __test__ = False  # not a pytest test class

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


@dataclass
class Subflow:
    addr: str
    fwd: list[int]
    fwd_delay_ns: int
    rev: list[int]
    rev_delay_ns: int


@dataclass
class Flow:
    index: int
    name: str
    cc: str               # the scenario's controller
    kernel_cc: str        # the kernel's name for it (reno, cubic, mpcc_lia ...)
    multipath: bool
    start_ns: int
    stop_ns: int | None
    app: dict             # the endpoint's application spec
    mss: int
    header_bytes: int     # the packet's headers: the MTU is mss + header_bytes
    min_rto_ns: int
    dupthresh: int
    pacing: bool = False
    # Linux's tcp_pacing_ss_ratio and tcp_pacing_ca_ratio (percent); the simulator's defaults.
    pacing_ratios: tuple[int, int] = field(
        default_factory=lambda: (_tcp_default("pacing_ss_ratio"), _tcp_default("pacing_ca_ratio")))
    subflows: list[Subflow] = field(default_factory=list)

    @property
    def port(self) -> int:
        return BASE_PORT + self.index


@dataclass
class Plan:
    config: dict          # the canonical configuration (its links go to the emulator)
    flows: list[Flow]
    bpf: list[str]        # mpcc eBPF controllers to load

    @property
    def duration_ns(self) -> int:
        return self.config["duration_ns"]


def kernel_controllers() -> set[str]:
    """Congestion controllers the running kernel offers (loaded or loadable)."""
    try:
        text = Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text()
    except OSError:
        text = "reno cubic"
    return set(text.split())


def _user_key(key: str) -> str:
    """A canonical TCP key as the scenario writes it (min_rto_ns -> min_rto)."""
    return key if key == "header_bytes" else key.removesuffix("_ns").removesuffix("_bytes")


def _user_indices(scenario) -> list[int]:
    """For each canonical flow, the index of the scenario's [[flows]] entry it
    comes from (a flow with `count` gives several)."""
    out = []
    for i, f in enumerate(scenario.flows):
        out += [i] * getattr(f, "count", 1)
    return out


def _kernel_cc(cc: str, available: set[str], bpf: dict[str, str]) -> str | None:
    if cc in available or cc in ("reno", "cubic"):
        return cc
    return bpf.get(cc)


def _route_delay(cfg: dict, links: list[int]) -> int:
    return sum(cfg["links"][i]["delay_ns"] for i in links)


def _app(fc: dict, field_: str, errors: list[str]) -> dict:
    app = fc["app"]
    kind = app["kind"]
    if kind == "bulk":
        return {"kind": "bulk"}
    if kind == "file":
        return {"kind": "file", "size_bytes": app["bytes"]}
    if kind == "cbr":
        return {"kind": "cbr", "rate_bps": app["rate_bps"], "chunk_bytes": app["chunk_bytes"] or fc["tcp"]["mss"]}
    if kind == "vbr":
        spec = {"kind": "vbr", "fps": app["fps"], "rate_bps": app.get("rate_bps"), "cv": app.get("cv", 0.5),
                "loop_trace": app.get("loop_trace", True), "sizes": None}
        if app.get("trace"):
            spec["sizes"] = _frame_sizes(app["trace"])
        return spec
    if kind == "onoff":
        return {"kind": "onoff", "on_ns": app["on_ns"], "off_ns": app["off_ns"], "start_on": app.get("start_on", True)}
    if kind == "web":
        return {"kind": "web", "objects": app.get("objects"), "object_count": app.get("object_count"),
                "object_bytes": app.get("object_bytes"), "think_ns": app.get("think_ns")
                or {"kind": "fixed", "value": 1e9}, "pages": app.get("pages"), "fetch": app.get("fetch", "parallel")}
    errors.append(f"{field_}.app.kind: {kind!r} is not supported by the testbed yet; allowed: {', '.join(APPS)}")
    return {}


def _frame_sizes(path: str) -> list[int]:
    """A VBR frame trace (the scenario loader has checked it): one size per line."""
    with open(path) as f:
        return [int(line) for line in f if line.strip() and not line.lstrip().startswith("#")]


def link_rate(link: dict) -> float:
    cap = link["capacity"]
    kind = cap["kind"]
    if kind == "constant":
        return cap["bps"]
    if kind == "schedule":
        return max(rate for _, rate in cap["steps"])
    if kind == "random_walk":
        return cap["max_bps"]
    return 0.0  # a trace: checked by its mean rate below


def check_links(cfg: dict, errors: list[str]) -> None:
    total = 0.0
    for link in cfg["links"]:
        rate = _peak_bps(link)
        total += rate
        if rate > MAX_LINK_BPS:
            errors.append(f"links.{link['name']}: {rate / 1e6:g} Mbit/s is above the {MAX_LINK_BPS / 1e6:g} Mbit/s "
                          f"the testbed's link emulator sustains; allowed: at most {MAX_LINK_BPS / 1e6:g} Mbit/s")
    if total > MAX_TOTAL_BPS:
        errors.append(f"links: {total / 1e6:g} Mbit/s in all is above the {MAX_TOTAL_BPS / 1e6:g} Mbit/s the "
                      f"testbed's emulator sustains together; allowed: rates summing to at most {MAX_TOTAL_BPS / 1e6:g}")


def _peak_bps(link: dict) -> float:
    """A link's highest rate (a trace's over any one second)."""
    return _trace_peak_bps(link) if link["capacity"]["kind"] == "trace" else link_rate(link)


def _trace_peak_bps(link: dict) -> float:
    """A mahimahi trace's highest rate over any one second."""
    cap = link["capacity"]
    per_ms: dict[int, int] = {}
    with open(cap["path"]) as f:
        for line in f:
            if line.strip():
                ms = int(line)
                per_ms[ms // 1000] = per_ms.get(ms // 1000, 0) + 1
    return max(per_ms.values(), default=0) * cap["bytes_per_opportunity"] * 8.0


def plan_for(scenario, bpf_programs: dict[str, str] | None = None, available: set[str] | None = None,
         rate_limits: bool = True) -> Plan:
    """The testbed plan of a loaded scenario (mpcc.scenario.Scenario); raises
    TestbedRefusal listing every problem before anything is built.

    `bpf_programs` maps a scenario controller to its mpcc eBPF controller
    (algorithm -> program name); `available` is the kernel's controller list;
    `rate_limits=False` lets calibration go past the rates the emulator holds.
    """
    if bpf_programs is None:
        from ..kernel import list_programs
        bpf_programs = {row["algorithm"]: row["name"] for row in list_programs()}
    available = kernel_controllers() if available is None else available
    cfg = scenario.to_config()
    errors: list[str] = []
    if len(cfg["flows"]) > MAX_FLOWS:
        errors.append(f"flows: {len(cfg['flows'])} flows (copies of `count` included) need as many client hosts; "
                      f"the testbed allows at most {MAX_FLOWS}")
    if cfg.get("pcap", {}).get("links"):
        errors.append("pcap.links: not captured on the testbed (its links are emulated inside mpcc-emu); allowed: "
                      "pcap.flows, captured on each flow's host")
    if scenario.start_jitter:
        errors.append("start_jitter: not supported by the testbed; allowed: 0 (the kernel run has its own jitter)")
    if rate_limits:
        check_links(cfg, errors)
    flows, bpf = [], []
    user = _user_indices(scenario)
    for i, fc in enumerate(cfg["flows"]):
        fld = f"flows[{user[i] if i < len(user) else i}]"
        multipath = "subflows" in fc
        subs = fc["subflows"] if multipath else [{"path": fc["path"], "reverse_path": fc.get("reverse_path"),
                                                   "start_ns": None, "stop_ns": None}]
        if len(subs) > MAX_SUBFLOWS:
            errors.append(f"{fld}.paths: {len(subs)} subflows; the kernel's MPTCP allows at most {MAX_SUBFLOWS}")
        for j, s in enumerate(subs):
            if s.get("start_ns") is not None or s.get("stop_ns") is not None:
                errors.append(f"{fld}.subflows[{j}]: subflow start and stop are not supported by the testbed; "
                              f"allowed: subflows that live as long as their flow")
            if s.get("cost_per_mbit"):
                errors.append(f"{fld}.subflows[{j}].cost_per_mbit: not supported by the testbed")
        kcc = _kernel_cc(fc["cc"], available, bpf_programs)
        if kcc is None:
            offered = sorted({"reno", "cubic"} | (available & {"reno", "cubic", "bbr", "vegas", "westwood", "veno"})
                             | set(bpf_programs))
            errors.append(f"{fld}.cc: {fc['cc']!r} has no implementation in the kernel; allowed on the testbed: "
                          f"{', '.join(offered)}")
        elif kcc.startswith("mpcc_") and kcc not in bpf:
            bpf.append(kcc)
        if fc.get("cc_params"):
            errors.append(f"{fld}.cc_params: the kernel's controllers take no parameters from the scenario; "
                          f"allowed: none")
        if multipath and fc.get("scheduler", "minrtt") not in KERNEL_SCHEDULERS:
            errors.append(f"{fld}.scheduler: {fc['scheduler']!r}; the testbed has the kernel's default MPTCP "
                          f"scheduler only; allowed: {', '.join(KERNEL_SCHEDULERS)}")
        if multipath and fc.get("scheduler_params"):
            errors.append(f"{fld}.scheduler_params: not supported by the testbed")
        if fc.get("receiver", "none") != "none":
            errors.append(f"{fld}.receiver: {fc['receiver']!r} is not supported by the testbed; allowed: none")
        tcp = fc["tcp"]
        if tcp["profile"] != "linux":
            errors.append(f"{fld}.tcp.profile: {tcp['profile']!r}; the testbed runs the Linux stack; allowed: linux")
        for key in sorted(set(tcp) - TCP_KEYS):
            errors.append(f"{fld}.tcp.{_user_key(key)}: not settable on the testbed; allowed: the linux "
                          f"profile's default (leave it out)")
        for key, value in TCP_FIXED.items():
            if tcp.get(key) != value:
                errors.append(f"{fld}.tcp.{_user_key(key)}: not settable on the testbed; allowed: its default "
                              f"(leave it out)")
        header = HEADER_BYTES + (mptcp_dss_bytes("linux") if multipath else 0)
        if tcp["header_bytes"] != header:
            errors.append(f"{fld}.tcp.header_bytes: not settable on the testbed; allowed: its default (leave it out)")
        if not 536 <= tcp["mss"] <= 8948:
            errors.append(f"{fld}.tcp.mss: {tcp['mss']}; allowed on the testbed: 536 to 8948 bytes")
        nic = tcp.get("nic_rate_bps")
        first = max((_peak_bps(cfg["links"][sub["path"][0]]) for sub in subs if sub["path"]), default=0)
        if nic is not None and not nic > first:
            errors.append(f"{fld}.tcp.nic_rate: {nic / 1e6:g} Mbit/s; the testbed's hosts send through a TUN "
                          f"device without a line rate; allowed: above the first link's {first / 1e6:g} Mbit/s")
        if multipath and tcp.get("pacing"):
            errors.append(f"{fld}.tcp.pacing: not settable on a multipath flow on the testbed (Linux refuses "
                          f"SO_MAX_PACING_RATE on an MPTCP socket); allowed: false")
        app = _app(fc, fld, errors)
        flow = Flow(index=i, name=fc["name"], cc=fc["cc"], kernel_cc=kcc or "", multipath=multipath,
                    start_ns=fc["start_ns"], stop_ns=fc["stop_ns"], app=app, mss=tcp["mss"], header_bytes=header,
                    min_rto_ns=tcp["min_rto_ns"], dupthresh=tcp["dupthresh"], pacing=bool(tcp.get("pacing")),
                    pacing_ratios=(tcp.get("pacing_ss_ratio", _tcp_default("pacing_ss_ratio")),
                                   tcp.get("pacing_ca_ratio", _tcp_default("pacing_ca_ratio"))))
        for j, s in enumerate(subs):
            rev = s.get("reverse_path")
            flow.subflows.append(Subflow(
                addr=f"10.201.{i}.{j + 1}", fwd=list(s["path"]), fwd_delay_ns=0,
                rev=list(rev) if rev else [], rev_delay_ns=0 if rev else _route_delay(cfg, s["path"])))
        flows.append(flow)
    if errors:
        raise TestbedRefusal(list(dict.fromkeys(errors)))  # copies of a `count` flow say it once
    return Plan(config=cfg, flows=flows, bpf=bpf)
