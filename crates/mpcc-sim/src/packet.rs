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
    /// Subflow index inside the flow's connection (0 for a single-path flow).
    pub sub: u16,
    /// Index of the link of the route this packet is on (or heading to).
    pub hop: u16,
    pub kind: Kind,
    /// Bytes on the wire, headers included.
    pub bytes: u32,
    /// Data: segment number in the subflow's sequence space. ACK: subflow-level
    /// cumulative acknowledgement (next expected segment).
    pub seq: u64,
    /// Data: data sequence number (RFC 8684's DSN, counted in segments). ACK: the
    /// data-level cumulative acknowledgement (DATA_ACK, next expected DSN).
    pub dsn: u64,
    /// Data: send time (the TCP timestamp). ACK: the echoed send time of the data
    /// segment that triggered it.
    pub ts: Nanos,
    /// ACK: one-way delay of the triggering data segment. Data: the echoed
    /// receiver timestamp (RFC 7323 TSecr: the receiver's time when it sent the
    /// latest ACK the sender had processed; 0 before any), from which the
    /// receiver measures the RTT (`now - owd`).
    pub owd: Nanos,
    /// ACK: the segment that triggered this ACK.
    pub trig: u64,
    /// ACK: the SACK block [sack_lo, sack_hi) containing `trig` (empty if none).
    pub sack_lo: u64,
    pub sack_hi: u64,
    /// ACK: advertised receive window in segments: beyond `seq` as a plain TCP
    /// receiver builds it, beyond `dsn` once the connection has stamped it (the
    /// window is connection-level, RFC 8684 section 3.3.4).
    pub rwnd: u64,
}

impl Packet {
    /// The flow this packet belongs to, as an arena id.
    #[inline]
    pub fn flow_id(&self) -> crate::ids::FlowId {
        crate::ids::FlowId(self.flow)
    }

    /// A data segment of a plain TCP flow (subflow 0, DSN = sequence number).
    pub fn data(flow: u32, seq: u64, bytes: u32, ts: Nanos) -> Packet {
        Packet::segment(flow, 0, seq, seq, bytes, ts)
    }

    /// A data segment of subflow `sub` carrying data sequence number `dsn`.
    pub fn segment(flow: u32, sub: u16, seq: u64, dsn: u64, bytes: u32, ts: Nanos) -> Packet {
        Packet { flow, sub, hop: 0, kind: Kind::Data, bytes, seq, dsn, ts, owd: 0, trig: 0, sack_lo: 0, sack_hi: 0, rwnd: 0 }
    }
}

// Packets are copied through every queue and event: keep them small.
const _: () = assert!(std::mem::size_of::<Packet>() <= 80);
