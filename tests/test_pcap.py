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
"""

TSHARK = shutil.which("tshark")
needs_tshark = pytest.mark.skipif(TSHARK is None, reason="tshark is not installed (`make tshark` installs it as root)")


def fields(path, *names, where=""):
    cmd = [TSHARK, "-r", str(path), "-T", "fields", *[a for n in names for a in ("-e", n)]]
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
def test_multipath_segments_carry_their_data_sequence_numbers(result):
    rows = fields(result.out / "flow-m.pcap", "ip.src", "tcp.options.mptcp.rawdataseqno", "tcp.len", where="tcp.len > 0")
    assert {src for src, _, _ in rows} == {"10.0.0.1", "10.0.0.2"}, "one client address per subflow"
    dsns = {int(dsn) for _, dsn, _ in rows}
    delivered = result.summary["flows"]["m"]["delivered_bytes"]
    # Every byte delivered in order was mapped by some segment: DSNs 1, 1 + mss, ... cover it.
    assert set(range(1, delivered + 1, 1448)) <= dsns
    acked = fields(result.out / "flow-m.pcap", "tcp.options.mptcp.rawdataack", where="tcp.len == 0")
    # The last DATA_ACKs are still on their way back when the run ends.
    assert 0.95 * delivered <= max(int(a) for (a,) in acked) - 1 <= delivered
    single = fields(result.out / "flow-r.pcap", "tcp.options.mptcp.rawdataseqno", where="tcp.len > 0")
    assert all(v == [""] for v in single), "a single-path flow has no MPTCP options"


@needs_tshark
def test_a_link_capture_sees_what_the_link_carried(result):
    link = result.summary["links"]["bottleneck"]
    frames = fields(result.out / "link-bottleneck.pcap", "frame.time_epoch", "ip.src")
    # The capture counts a packet when it starts crossing; tx_bytes when it has crossed.
    assert len(frames) - link["tx_bytes"] / 1500 in (0, 1)
    times = [float(t) for t, _ in frames]
    assert times == sorted(times) and times[-1] < 3.0
    assert {"10.0.0.1", "10.0.1.1"} <= {src for _, src in frames}, "both flows cross the bottleneck"


def test_an_unknown_name_is_refused():
    with pytest.raises(mpcc.ScenarioError, match=r'pcap.links\[0\].*unknown link "nope"'):
        mpcc.run(SCENARIO.replace('links = ["bottleneck"]', 'links = ["nope"]'), plots=False)
