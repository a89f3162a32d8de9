"""The model's units: rates in packets per second, windows and buffers in packets,
times in seconds. These convert from and to the simulator's bits per second."""

from __future__ import annotations

from . import _check

WIRE_PACKET_BYTES = 1500  # mss 1448 + 52 header bytes, the simulator's default


def packets_per_second(bps, packet_bytes=WIRE_PACKET_BYTES) -> float:
    """A rate in bit/s as packets/s of `packet_bytes` bytes on the wire."""
    return _check.nonnegative("bps", bps, "bit/s") / (8.0 * _check.positive("packet_bytes", packet_bytes, "bytes"))


def bits_per_second(pps, packet_bytes=WIRE_PACKET_BYTES) -> float:
    """A rate in packets/s of `packet_bytes` bytes as bit/s."""
    return _check.nonnegative("pps", pps, "packets/s") * 8.0 * _check.positive("packet_bytes", packet_bytes, "bytes")
