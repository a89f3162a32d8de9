"""Writes the ns-3 comparison scenarios under scenarios/validation/ (run it after editing;
the generated files are committed). Each TOML file models, in mpcc, the topology that
bench/ns3/dumbbell.cc builds in ns-3:

  sender i --access_i--> router L --bottleneck--> router R --exit_i--> receiver i

Every hop is its own link (rate, propagation delay, DropTail queue); ACKs come back
over their own reverse links (exit_i_back, bottleneck_back, access_i_back), as on
ns-3's full-duplex point-to-point links. Flow i starts at 0.1 + 0.05 i s.
TCP as configured in the ns-3 program: 1448-byte segments with 54 header bytes on the
wire (20 IPv4 + 32 TCP with timestamps + the 2-byte PPP header of ns-3's point-to-point
frames; 52 until 2026-11-27, which left mpcc's serialisation 0.13 % faster),
an ACK for every segment, initial window 10, SACK, and ns-3's default minimum RTO of
1 s (TcpSocketBase::MinRto) with a 1 s initial RTO (RttEstimator::InitialEstimation).
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "scenarios" / "validation"

ACCESS_QUEUE = 1000  # packets: "large", never the bottleneck (same in the ns-3 program)

# name: (description, cc, flows, bottleneck rate, access rate)
SCENARIOS = {
    "ns3_dumbbell_newreno_1": ("NewReno, 1 flow", "reno", 1, "10Mbps", "100Mbps"),
    "ns3_dumbbell_newreno_10": ("NewReno, 10 flows", "reno", 10, "10Mbps", "100Mbps"),
    "ns3_dumbbell_cubic_1": ("CUBIC, 1 flow", "cubic", 1, "10Mbps", "100Mbps"),
    "ns3_dumbbell_cubic_10": ("CUBIC, 10 flows", "cubic", 10, "10Mbps", "100Mbps"),
    "ns3_dumbbell_newreno_10_100mbps": ("NewReno, 10 flows, 100 Mbit/s", "reno", 10, "100Mbps", "1Gbps"),
}


# The recovery stress tests (issue 14): mpcc's `ns3` profile against ns-3 with its own
# defaults (PRR, an ACK every second segment with a 200 ms timer, 1 s minimum RTO).
# name: dict of what differs from the 10 Mbit/s, 48 ms, 100-packet, 1-flow dumbbell.
RECOVERY = {
    # 2 Mbit/s over a 24 ms RTT: a 4-packet BDP, with a 5-packet buffer.
    "ns3_recovery_small_bdp": dict(description="NewReno, 2 flows, 4-packet BDP", flows=2, rate="2Mbps",
                                   delay="10ms", queue=5),
    # The sender's own 10 Mbit/s link is the bottleneck: its 50-packet queue overflows first.
    "ns3_recovery_direct": dict(description="NewReno, 1 flow, sender attached to the bottleneck", access="10Mbps",
                                access_queue=50),
    # The bottleneck drops from 10 to 2 Mbit/s at 20 s.
    "ns3_recovery_step": dict(description="NewReno, 1 flow, capacity step 10 to 2 Mbit/s at 20 s", duration=40,
                              step=(20, "2Mbps")),
    "ns3_recovery_loss_1": dict(description="NewReno, 10 flows, 1 % random loss", flows=10, loss=0.01),
    "ns3_recovery_loss_5": dict(description="NewReno, 10 flows, 5 % random loss", flows=10, loss=0.05),
    "ns3_recovery_short_buffer_10": dict(description="NewReno, 10 flows, 10-packet buffer", flows=10, queue=10),
    # Application-limited: two 1 Mbit/s streams (a window of about 9 segments), each
    # writing one segment at a time, with 1 % random loss: recoveries where the data
    # runs out (RFC 6675 NextSeg rules 3 and 4; Reno alone could reach about 1.4 Mbit/s).
    "ns3_recovery_cbr_loss_1": dict(description="NewReno, 2 flows of 1 Mbit/s constant-rate writes, 1 % random loss",
                                    flows=2, loss=0.01, app_rate="1Mbps"),
    # The plain dumbbell with ns-3's defaults: NewReno (added 2026-11-27, after a one-off
    # run had agreed; docs/validation.md) and CUBIC (HyStart on, its thresholds).
    "ns3_recovery_newreno_1": dict(description="NewReno, 1 flow"),
    "ns3_recovery_newreno_10": dict(description="NewReno, 10 flows", flows=10),
    "ns3_recovery_cubic_1": dict(description="CUBIC, 1 flow", cc="cubic"),
    "ns3_recovery_cubic_10": dict(description="CUBIC, 10 flows", cc="cubic", flows=10),
    # ns-3's delay-based classes against the controllers' ns3 variants (added
    # 2026-11-27, session 18): alone, ten flows, and ten flows with 1 % random loss,
    # where Veno's and Westwood+'s loss reactions differ most from Reno's. ns-3's Veno
    # Beta attribute defaults to 3, as mpcc's `beta` (its constructor's 6 is overridden).
    **{
        f"ns3_recovery_{cc}_{kind}": dict(description=f"{label}, {desc}", cc=cc, **extra)
        for cc, label in (("vegas", "Vegas"), ("veno", "Veno"), ("westwood", "Westwood+"))
        for kind, desc, extra in (("1", "1 flow", {}), ("10", "10 flows", dict(flows=10)),
                                  ("loss_1", "10 flows, 1 % random loss", dict(flows=10, loss=0.01)))
    },
    # One flow losing every 100th packet on the bottleneck, the same packets in both
    # simulators (bench/ns3/dumbbell.cc --lossEvery): loss recovery at small windows
    # without the two random generators between them (added 2026-11-27, session 18).
    **{
        f"ns3_recovery_{cc}_every_100": dict(description=f"{label}, 1 flow, every 100th packet lost", cc=cc,
                                             loss_every=100)
        for cc, label in (("reno", "NewReno"), ("cubic", "CUBIC"), ("vegas", "Vegas"), ("veno", "Veno"),
                          ("westwood", "Westwood+"))
    },
}


def link(name: str, rate: str, delay: str, packets: int, extra: str = "") -> str:
    return (
        f"[links.{name}]\n"
        f'rate = "{rate}"\n'
        f'delay = "{delay}"\n'
        f'queue = {{ kind = "droptail", packets = {packets} }}\n'
        + extra
    )


def recovery_scenario(description: str, flows: int = 1, rate: str = "10Mbps", delay: str = "48ms", queue: int = 100,
                      access: str = "100Mbps", access_queue: int = ACCESS_QUEUE, duration: int = 60,
                      loss: float = 0.0, step: tuple | None = None, app_rate: str | None = None,
                      cc: str = "reno", cc_params: str = "", loss_every: int = 0) -> str:
    """A recovery stress test: the dumbbell with mpcc's `ns3` profile; the ns-3 program
    reads the same fields (bench/common.ns3_args)."""
    extra = ""
    if loss:
        extra += f'loss = {{ kind = "bernoulli", p = {loss} }}\n'
    if loss_every:
        extra += f'loss = {{ kind = "periodic", every = {loss_every} }}\n'
    bottleneck = link("bottleneck", rate, delay, queue, extra)
    if step:
        at, to = step
        bottleneck = bottleneck.replace(
            f'rate = "{rate}"\n',
            f'capacity = {{ kind = "schedule", steps = [{{ at = "0s", rate = "{rate}" }}, '
            f'{{ at = "{at}s", rate = "{to}" }}] }}\n')
    parts = [
        "# Generated by bench/make_scenarios.py: a recovery stress test of bench/validate_ns3.py,\n"
        "# mpcc's ns3 profile against ns-3 3.44 with its defaults (bench/ns3/dumbbell.cc).\n"
        f'description = "ns-3 recovery: {description}, {rate} bottleneck, {delay} + 2 x 1 ms one-way, '
        f'{queue}-packet DropTail, {duration} s"\n'
        f'duration = "{duration}s"\n'
        "seed = 1\n"
        'sample_interval = "0s"\n',
        "[tcp]\n"
        'profile = "ns3"          # ns-3 3.44 defaults: PRR, delayed ACKs (2 segments, 200 ms), 1 s min RTO\n'
        "mss = 1448\n"
        "header_bytes = 54        # IPv4 20 + TCP 32 (timestamps) + PPP 2\n",
        bottleneck,
        link("bottleneck_back", rate, delay, queue),
    ]
    for i in range(flows):
        parts.append(link(f"access_{i}", access, "1ms", access_queue))
        parts.append(link(f"exit_{i}", access, "1ms", ACCESS_QUEUE))
        parts.append(link(f"exit_{i}_back", access, "1ms", ACCESS_QUEUE))
        parts.append(link(f"access_{i}_back", access, "1ms", ACCESS_QUEUE))
    for i in range(flows):
        parts.append(
            "[[flows]]\n"
            f'name = "f{i}"\n'
            f'cc = "{cc}"\n'
            + (f"cc_params = {{ {cc_params} }}\n" if cc_params else "")
            + f'path = ["access_{i}", "bottleneck", "exit_{i}"]\n'
            f'reverse_path = ["exit_{i}_back", "bottleneck_back", "access_{i}_back"]\n'
            f'start = "{100 + 50 * i}ms"\n'
            + (f'app = {{ kind = "cbr", rate = "{app_rate}" }}\n' if app_rate else "")
        )
    return "\n".join(parts)


def scenario(description: str, cc: str, flows: int, rate: str, access: str) -> str:
    parts = [
        "# Generated by bench/make_scenarios.py: the ns-3 dumbbell of bench/ns3/dumbbell.cc,\n"
        "# used by bench/validate_ns3.py (cross-check) and bench/bench.py (benchmark).\n"
        f'description = "ns-3 dumbbell: {description}, {rate} bottleneck, 48 ms + 2 x 1 ms one-way, '
        f'100-packet DropTail, 60 s"\n'
        'duration = "60s"\n'
        "seed = 1\n"
        'sample_interval = "0s"   # no time series: the comparison needs only the summary\n',
        "[tcp]\n"
        'profile = "rfc"          # the textbook sender, which ns-3 runs with --recovery=Classic\n'
        "mss = 1448\n"
        "header_bytes = 54        # IPv4 20 + TCP 32 (timestamps) + PPP 2\n"
        "delayed_ack = false      # ns-3 run with DelAckCount = 1\n"
        'min_rto = "1s"           # ns-3 default TcpSocketBase::MinRto\n'
        'initial_rto = "1s"       # ns-3 default RttEstimator::InitialEstimation\n',
        link("bottleneck", rate, "48ms", 100),
        link("bottleneck_back", rate, "48ms", 100),
    ]
    for i in range(flows):
        parts.append(link(f"access_{i}", access, "1ms", ACCESS_QUEUE))
        parts.append(link(f"exit_{i}", access, "1ms", ACCESS_QUEUE))
        parts.append(link(f"exit_{i}_back", access, "1ms", ACCESS_QUEUE))
        parts.append(link(f"access_{i}_back", access, "1ms", ACCESS_QUEUE))
    for i in range(flows):
        start_ms = 100 + 50 * i
        parts.append(
            "[[flows]]\n"
            f'name = "f{i}"\n'
            f'cc = "{cc}"\n'
            f'path = ["access_{i}", "bottleneck", "exit_{i}"]\n'
            f'reverse_path = ["exit_{i}_back", "bottleneck_back", "access_{i}_back"]\n'
            f'start = "{start_ms}ms"\n'
        )
    return "\n".join(parts)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, spec in SCENARIOS.items():
        (OUT / f"{name}.toml").write_text(scenario(*spec))
        print(OUT / f"{name}.toml")
    for name, spec in RECOVERY.items():
        (OUT / f"{name}.toml").write_text(recovery_scenario(**spec))
        print(OUT / f"{name}.toml")


if __name__ == "__main__":
    main()
