"""The registered papers: one module per paper, each defining `PAPER` (an
mpcc.reproduce.Paper). `mpcc reproduce NAME` accepts these names, or the dotted
name of any importable module that defines `PAPER`.

Paper modules import only light modules at the top (heavy ones inside functions),
so that `mpcc list` stays fast."""

from __future__ import annotations

import importlib
from pathlib import Path

from ..reproduce.model import TcpSetting

# Registered papers, in the order `mpcc list` and `mpcc reproduce all` use.
NAMES = ("tcp", "noda_ito", "mpveno", "mpmtp", "cdd", "park")

# Scenario files of the papers, shipped inside the package (python/mpcc/scenarios/,
# which the repository also shows as scenarios/).
SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


# The ns-2 papers (mpveno, mpmtp, cdd) run the `ns3` profile with ns-2's receivers:
# ns-2's default sinks (Agent/TCPSink, Agent/TCPSink/Sack1, tcp-sink.cc) acknowledge
# every segment and FullTcp's default segsperack_ is 1 (ns-default.tcl); a delayed-ACK
# receiver is a class of its own (Agent/TCPSink/DelAck) that a script must name, and
# none of the three papers names one. Decided 2026-11-26, after the misses it moves
# had been seen (docs/reproductions.md, "ns-2's receivers").
NS2_IMMEDIATE_ACKS = TcpSetting(
    "delayed_ack", False,
    "ns-2's default receivers (Agent/TCPSink, TCPSink/Sack1; FullTcp segsperack_ 1) acknowledge every segment; "
    "delayed ACKs need the TCPSink/DelAck class, which the paper does not name; stated 2026-11-26, after results "
    "were seen")
NS2_PIPE = TcpSetting(
    "sacked_retx_in_pipe", False,
    "ns-3 3.44 keeps a SACKed retransmission in its pipe until the cumulative ACK (TcpTxBuffer::Update, ns-3 "
    "issue #1190); ns-2's SACK sender (Sack1TcpAgent) counts every duplicate ACK as a segment that left the "
    "network; stated 2026-11-27, when the ns3 profile took that rule, before the re-run")

NS2_NO_HANDSHAKE = TcpSetting(
    "handshake", False,
    "ns-2's one-way agents (Agent/TCP/Sack1 with Agent/TCPSink/Sack1, the default receivers NS2_IMMEDIATE_ACKS "
    "assumes) have no connection setup: data leaves at the agent's start; stated 2026-11-27, when the linux and "
    "ns3 profiles took the three-way handshake, before the re-run")

NS2_NO_PRR = TcpSetting(
    "prr", False,
    "ns-2's SACK sender (Sack1TcpAgent) has no Proportional Rate Reduction: on entering recovery it sets cwnd to "
    "ssthresh and sends while its pipe is below cwnd (RFC 3517); ns-3 3.44's PRR is the ns3 profile's; stated "
    "2026-11-27, after the park lia_model ablation had shown PRR moving a verdict")


def load(name: str):
    """The Paper registered as `name`, or defined by the module `name` (dotted)."""
    module = f"{__name__}.{name}" if name in NAMES else name
    try:
        return importlib.import_module(module).PAPER
    except ModuleNotFoundError as e:
        if e.name is None or not module.startswith(e.name):
            raise  # a module the paper itself imports is missing
        raise KeyError(f'unknown paper "{name}"; registered: {", ".join(NAMES)}') from None
    except AttributeError:
        raise KeyError(f'module "{module}" defines no PAPER') from None


def all_papers() -> list:
    return [load(name) for name in NAMES]
