"""Packet captures (`pcap`, crates/mpcc-sim/src/pcap.rs), read by the real tshark:
what it decodes must be what the simulator did."""

import json
import shutil
import subprocess

import pytest

import mpcc

SCENARIO = """
duration = "3s"
sample_interval = "0s"
pcap = { links = ["bottleneck"], flows = ["m", "r"] }
[links.bottleneck]
rate = "10Mbps"
delay = "20ms"
queue = { kind = "droptail", packets = 20 }
[links.other]
rate = "5Mbps"
delay = "30ms"
[[flows]]
name = "m"
cc = "lia"
paths = [["bottleneck"], ["other"]]
[[flows]]
name = "r"
cc = "reno"
path = ["bottleneck"]
# Into the LIA connection's slow start: a burst of drops, several holes at once, so ACKs
# carry several SACK blocks (with both starting at 0 the handshakes keep them apart).
start = "0.2s"
"""

TSHARK = shutil.which("tshark")
needs_tshark = pytest.mark.skipif(TSHARK is None, reason="tshark is not installed (`make tshark` installs it as root)")


def fields(path, *names, where=""):
    cmd = [TSHARK, "-r", str(path), "-o", "mptcp.analyze_mptcp:TRUE", "-o", "mptcp.relative_sequence_numbers:TRUE",
           "-T", "fields", *[a for n in names for a in ("-e", n)]]
    if where:
        cmd += ["-Y", where]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [line.split("\t") for line in out.splitlines()]


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    out = tmp_path_factory.mktemp("pcap") / "run"
    return mpcc.run(SCENARIO, out=out, plots=False)


def test_the_capture_files_are_written(result):
    assert sorted(p.name for p in result.out.glob("*.pcap")) == ["flow-m.pcap", "flow-r.pcap", "link-bottleneck.pcap"]
    assert set(result.pcaps) == {"flow-m", "flow-r", "link-bottleneck"}


@needs_tshark
def test_a_flow_capture_holds_every_segment_and_retransmission(result):
    for name in ("m", "r"):
        flow = result.summary["flows"][name]
        path = result.out / f"flow-{name}.pcap"
        data = fields(path, "tcp.seq", where="tcp.len > 0")
        assert len(data) == flow["sent_packets"]
        # tshark calls a retransmission that arrives soon after the original "out of order".
        resent = fields(path, "frame.number", where="tcp.analysis.retransmission || tcp.analysis.fast_retransmission"
                                                    " || tcp.analysis.out_of_order")
        assert len(resent) == flow["retransmissions"] > 0
        acks = fields(path, "tcp.ack", where="tcp.len == 0")
        assert len(acks) > len(data) / 2


@needs_tshark
def test_tshark_decodes_the_mptcp_connection_and_its_subflows(result):
    path = result.out / "flow-m.pcap"
    # Handshakes: MP_CAPABLE on the first subflow, MP_JOIN naming its token on the second.
    syns = fields(path, "ip.src", "tcp.options.mptcp.subtype", where="tcp.flags.syn == 1 && tcp.flags.ack == 0")
    assert syns == [["10.0.0.1", "0"], ["10.0.0.2", "1"]]
    rows = fields(path, "tcp.stream", "mptcp.stream", "mptcp.dss.dsn", where="tcp.len > 0")
    assert {(t, m) for t, m, _ in rows} == {("0", "0"), ("1", "0")}, "two subflows of one MPTCP connection"
    # Relative data sequence numbers (tshark derives the IDSN from the key): every byte
    # delivered in order was mapped by some segment, at 1, 1 + mss, 1 + 2 mss, ...
    dsns = {int(d) for _, _, d in rows}
    delivered = result.summary["flows"]["m"]["delivered_bytes"]
    assert set(range(1, delivered + 1, 1424)) <= dsns
    acked = max(int(a) for (a,) in fields(path, "mptcp.ack", where="tcp.len == 0 && mptcp.ack"))
    # The last DATA_ACKs are still on their way back when the run ends.
    assert 0.95 * delivered <= acked - 1 <= delivered
    single = fields(result.out / "flow-r.pcap", "tcp.options.mptcp.subtype")
    assert all(v == [""] for v in single), "a single-path flow has no MPTCP options"


@needs_tshark
def test_the_linux_profiles_mptcp_segments_fill_the_mtu_with_linuxs_dss(result):
    """In the linux profile a multipath flow's segment carries 1424 bytes: Linux's DSS
    option (22 bytes and two NOPs) beside the timestamps, in a 1500-byte packet, as a
    capture of Linux 6.18 shows (docs/mptcp.md#segment-size); a single-path segment 1448."""
    config = json.loads((result.out / "config.json").read_text())
    tcp = {f["name"]: f["tcp"] for f in config["flows"]}
    assert (tcp["m"]["mss"], tcp["m"]["header_bytes"]) == (1424, 76)
    assert (tcp["r"]["mss"], tcp["r"]["header_bytes"]) == (1448, 52)
    m = fields(result.out / "flow-m.pcap", "ip.len", "tcp.len", "tcp.hdr_len", "tcp.options.mptcp.dataackpresent.flag",
               where="tcp.len > 0")
    assert {tuple(r) for r in m} == {("1500", "1424", "56", "1")}
    r = fields(result.out / "flow-r.pcap", "ip.len", "tcp.len", where="tcp.len > 0")
    assert {tuple(x) for x in r} == {("1500", "1448")}


@needs_tshark
@pytest.mark.parametrize("name", ["flow-m", "flow-r", "link-bottleneck"])
def test_no_malformed_packet_or_error(result, name):
    assert fields(result.out / f"{name}.pcap", "frame.number", where="_ws.malformed || _ws.expert.severity >= error") == []


@needs_tshark
def test_a_link_capture_sees_what_the_link_carried(result):
    link = result.summary["links"]["bottleneck"]
    # Only data and the handshakes' SYNs and third ACKs cross it (the ACKs and SYN-ACKs
    # return over a delay); the capture counts a packet when it starts crossing,
    # tx_bytes when it has crossed.
    frames = fields(result.out / "link-bottleneck.pcap", "frame.time_epoch", "ip.src", where="tcp.len > 0")
    handshakes = fields(result.out / "link-bottleneck.pcap", "tcp.flags.syn", where="tcp.len == 0")
    assert sorted(syn for (syn,) in handshakes) == ["0", "0", "1", "1"], "a SYN and a third ACK per flow"
    # A handshake packet is one header: 52 bytes for r, 76 for m (Linux's MPTCP options).
    assert len(frames) - (link["tx_bytes"] - 2 * 52 - 2 * 76) / 1500 in (0, 1)
    times = [float(t) for t, _ in frames]
    assert times == sorted(times) and times[-1] < 3.0
    assert {"10.0.0.1", "10.0.1.1"} <= {src for _, src in frames}, "both flows cross the bottleneck"


@needs_tshark
def test_acks_carry_up_to_three_sack_blocks(result):
    # linux profile: sack_blocks = 3 (RFC 2018), as many as fit beside timestamps.
    rows = fields(result.out / "flow-r.pcap", "tcp.ack", "tcp.options.sack.count", "tcp.options.sack_le",
                  "tcp.options.sack_re", where="tcp.len == 0 && tcp.options.sack && !tcp.options.sack.dsack_le")
    counts = {int(c) for _, c, _, _ in rows}
    assert counts <= {1, 2, 3} and 3 in counts
    for ack, c, les, res in rows:
        les, res = [int(x) for x in les.split(",")], [int(x) for x in res.split(",")]
        assert len(les) == len(res) == int(c)
        assert all(int(ack) < le < re for le, re in zip(les, res)), "every block above the cumulative ACK"
        blocks = sorted(zip(les, res))
        assert all(a[1] < b[0] for a, b in zip(blocks, blocks[1:])), "disjoint blocks, holes between"
    # Beside MPTCP's DSS option only one block fits.
    counts = {int(c) for (c,) in fields(result.out / "flow-m.pcap", "tcp.options.sack.count",
                                        where="tcp.options.sack")}
    assert counts == {1}


DSACK_SCENARIO = """
duration = "6s"
sample_interval = "0s"
pcap = { flows = ["d"] }
[links.bottleneck]
capacity = { kind = "schedule", period = "3s", steps = [{ at = "0s", rate = "40Mbps" }, { at = "2s", rate = "1Mbps" }] }
delay = "20ms"
queue = { kind = "droptail", packets = 1000 }
[[flows]]
name = "d"
cc = "reno"
path = ["bottleneck"]
"""


@needs_tshark
def test_tshark_decodes_every_dsack(tmp_path):
    # The capacity falls 40-fold behind a 1000-packet queue: the timeout resends
    # segments still queued, which reach the receiver twice (RFC 2883).
    r = mpcc.run(DSACK_SCENARIO, out=tmp_path / "run", plots=False)
    flow = r.summary["flows"]["d"]
    path = r.out / "flow-d.pcap"
    rows = fields(path, "tcp.ack", "tcp.options.sack.dsack_le", "tcp.options.sack.dsack_re",
                  where="tcp.options.sack.dsack_le")
    assert len(rows) == flow["dsacks"] == flow["subflows"][0]["dsacks"] > 0
    assert all(int(le) + 1448 == int(re) <= int(ack) for ack, le, re in rows), "one segment below the ACK"
    assert fields(path, "frame.number", where="_ws.malformed || _ws.expert.severity >= error") == []
    # With DSACK off (the ns3 profile's setting) no duplicate is reported.
    off = mpcc.run(DSACK_SCENARIO.replace('cc = "reno"', 'cc = "reno"\ntcp = { dsack = false }'), plots=False)
    assert off.summary["flows"]["d"]["dsacks"] == 0


def test_an_unknown_name_is_refused():
    with pytest.raises(mpcc.ScenarioError, match=r'pcap.links\[0\].*unknown link "nope"'):
        mpcc.run(SCENARIO.replace('links = ["bottleneck"]', 'links = ["nope"]'), plots=False)


PACED = """
duration = "30s"
sample_interval = "0s"
pcap = { flows = ["reno"] }
[links.bottleneck]
rate = "10Mbps"
delay = "20ms"
queue = { kind = "droptail", packets = 50 }
[[flows]]
name = "reno"
cc = "reno"
path = ["bottleneck"]
tcp = { profile = "{profile}", pacing = true, nic_rate = "1Gbps" }
"""


def paired_share(path) -> float:
    """The share of data segments leaving within 100 us of the one before or after."""
    times = [float(t) for (t,) in fields(path, "frame.time_epoch", where="ip.src == 10.0.0.1 && tcp.len > 0")]
    gaps = [b - a for a, b in zip(times, times[1:])]
    close = [g < 100e-6 for g in gaps]
    paired = sum(1 for i in range(len(times)) if (i > 0 and close[i - 1]) or (i < len(gaps) and close[i]))
    return paired / len(times)


@needs_tshark
def test_a_paced_linux_sender_leaves_in_tso_pairs_and_an_ns3_sender_one_by_one(tmp_path):
    """The sender's capture is taken as packets leave the host, after pacing. A paced
    linux sender at 10 Mbit/s sends Linux's smallest TSO bursts, two segments back to back
    (`linux_pacing`; Linux 6.18's paced Reno on the testbed: 86 % of its segments, captured
    2026-11-27, docs/host.md#tso-bursts); ns-3 paces single segments."""
    shares = {}
    for profile in ("linux", "ns3"):
        r = mpcc.run(PACED.replace("{profile}", profile), out=tmp_path / profile, plots=False)
        shares[profile] = paired_share(r.out / "flow-reno.pcap")
    assert shares["linux"] >= 0.8 and shares["ns3"] <= 0.2, shares


@needs_tshark
def test_psh_marks_the_end_of_each_write(tmp_path):
    """PSH on the segments that end an application's write (`push_ack`,
    docs/tcp-recovery.md#ack-policy): a stream of 10 000-byte writes (six full segments
    and a partial one each) has it on every partial segment; a full-sized one has it
    only where the next write topped up a partial segment not yet sent (the mark stays,
    as on Linux's skb); a bulk sender, one endless write, never."""
    stream = SCENARIO.replace('flows = ["m", "r"]', 'flows = ["r"]')
    stream = stream.replace('path = ["bottleneck"]', 'path = ["bottleneck"]\napp = { kind = "cbr", rate = "2Mbps", chunk = "10000B" }')
    rows = fields(mpcc.run(stream, out=tmp_path / "stream", plots=False).out / "flow-r.pcap", "tcp.len", "tcp.flags.push",
                  where="tcp.len > 0")
    partial = [flag for length, flag in rows if length != "1448"]
    full_pushed = sum(flag == "1" for length, flag in rows if length == "1448")
    assert len(partial) > 50 and all(flag == "1" for flag in partial)
    assert full_pushed <= 0.05 * len(partial), (full_pushed, len(partial))
    bulk = mpcc.run(SCENARIO.replace('flows = ["m", "r"]', 'flows = ["r"]'), out=tmp_path / "bulk", plots=False)
    flags = fields(bulk.out / "flow-r.pcap", "tcp.flags.push", where="tcp.len > 0")
    assert flags and all(flag == "0" for (flag,) in flags)
