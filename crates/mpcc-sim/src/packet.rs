//! The packet: a small `Copy` value. Payload bytes are never materialised.

use mpcc_core::Nanos;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Data,
    Ack,
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub flow: u32,
    /// Index of the link of the route this packet is on (or heading to).
    pub hop: u16,
    pub kind: Kind,
    /// Bytes on the wire, headers included.
    pub bytes: u32,
    /// Data: segment number. ACK: cumulative acknowledgement (next expected segment).
    pub seq: u64,
    /// Data: send time (the TCP timestamp). ACK: the echoed send time of the data
    /// segment that triggered it.
    pub ts: Nanos,
    /// ACK: one-way delay of the triggering data segment.
    pub owd: Nanos,
    /// ACK: the segment that triggered this ACK.
    pub trig: u64,
    /// ACK: the SACK block [sack_lo, sack_hi) containing `trig` (empty if none).
    pub sack_lo: u64,
    pub sack_hi: u64,
    /// ACK: advertised receive window in segments beyond `seq`.
    pub rwnd: u64,
}

impl Packet {
    pub fn data(flow: u32, seq: u64, bytes: u32, ts: Nanos) -> Packet {
        Packet { flow, hop: 0, kind: Kind::Data, bytes, seq, ts, owd: 0, trig: 0, sack_lo: 0, sack_hi: 0, rwnd: 0 }
    }
}
