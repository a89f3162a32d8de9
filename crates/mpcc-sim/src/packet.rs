//! The packet: a small `Copy` value. Payload bytes are never materialised.

use mpcc_core::Nanos;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Data,
    Ack,
    /// SYN, SYN-ACK or the third ACK (`seq`: handshake::Step), `tcp.handshake`.
    Handshake,
}

/// Most SACK blocks an ACK carries: what 40 bytes of TCP options hold beside the
/// timestamps option every mpcc segment carries (RFC 2018 section 3: 3 blocks
/// with timestamps, 4 without).
pub const MAX_SACK_BLOCKS: usize = 3;

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub flow: u32,
    /// Subflow index inside the flow's connection (0 for a single-path flow).
    pub sub: u16,
    /// Index of the link of the route this packet is on (or heading to).
    pub hop: u16,
    pub kind: Kind,
    /// ACK: SACK blocks carried in `sack` (0..=MAX_SACK_BLOCKS).
    nsack: u8,
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
    /// receiver timestamp (RFC 7323 TSecr; 0 before any): `ts + owd` of the latest
    /// ACK the sender had processed, the time that ACK left the receiver unless it
    /// was a delayed ACK (the receiver's `AckClock`, tcp/ack_clock.rs, turns it
    /// into the send time, from which it measures the RTT).
    pub owd: Nanos,
    /// ACK: the segment that triggered it, as an offset from `seq` (negative for
    /// a duplicate below the cumulative ACK); saturates, which keeps its side.
    trig: i32,
    /// ACK: advertised receive window in segments: beyond `seq` as a plain TCP
    /// receiver builds it, beyond `dsn` once the connection has stamped it (the
    /// window is connection-level, RFC 8684 section 3.3.4). u32::MAX: unlimited.
    rwnd: u32,
    /// ACK: SACK blocks [lo, hi) as offsets from `seq`, in the order of RFC 2018
    /// section 4 (the first holds the triggering segment) or RFC 2883 (the first
    /// is a DSACK, possibly below `seq`).
    sack: [[i32; 2]; MAX_SACK_BLOCKS],
}

/// An ACK on its subflow's delay-only reverse path (`Subflow::ack_pipe`), with the
/// time it arrives: the packet less what the pipe implies (its flow, its subflow, that
/// it is an ACK). 80 bytes where a time and a whole packet take 88; the pipes hold a
/// window's ACKs per subflow, about a fifth of a 10 000-flow run's peak memory.
#[derive(Clone, Copy, Debug)]
pub struct AckInFlight {
    pub at: Nanos,
    seq: u64,
    dsn: u64,
    ts: Nanos,
    owd: Nanos,
    trig: i32,
    rwnd: u32,
    bytes: u32,
    hop: u16,
    nsack: u8,
    sack: [[i32; 2]; MAX_SACK_BLOCKS],
}

const _: () = assert!(std::mem::size_of::<AckInFlight>() <= 80);

impl AckInFlight {
    #[inline]
    pub fn new(at: Nanos, p: &Packet) -> Self {
        debug_assert!(p.kind == Kind::Ack);
        let Packet { flow: _, sub: _, hop, kind: _, nsack, bytes, seq, dsn, ts, owd, trig, rwnd, sack } = *p;
        AckInFlight { at, seq, dsn, ts, owd, trig, rwnd, bytes, hop, nsack, sack }
    }

    /// `new` for the ACK `p` stamped with the DATA_ACK `dsn` and the window `rwnd`
    /// (`Flow::stamp`), read from `p` as it is: no stamped copy in between.
    #[inline]
    pub fn stamped(at: Nanos, p: &Packet, dsn: u64, rwnd: u64) -> Self {
        let mut a = AckInFlight::new(at, p);
        a.dsn = dsn;
        a.rwnd = rwnd.min(u32::MAX as u64) as u32;
        a
    }

    /// The ACK again, as subflow `sub` of flow `flow` sent it.
    #[inline]
    pub fn packet(&self, flow: u32, sub: u16) -> Packet {
        let AckInFlight { at: _, seq, dsn, ts, owd, trig, rwnd, bytes, hop, nsack, sack } = *self;
        Packet { flow, sub, hop, kind: Kind::Ack, nsack, bytes, seq, dsn, ts, owd, trig, rwnd, sack }
    }
}

/// `v - base` as an i32 offset, saturated (sequence numbers stay below 2^63).
#[inline]
fn offset(v: u64, base: u64) -> i32 {
    let d = v.wrapping_sub(base) as i64;
    // In range, the usual case, without the clamp's two selections.
    if d as i32 as i64 == d {
        return d as i32;
    }
    d.clamp(i32::MIN as i64, i32::MAX as i64) as i32
}

/// An ACK's trigger `trig` as its offset from `seq`: the usual one, the segment
/// just below `seq`, without a test of range.
#[inline]
fn trig_offset(trig: u64, seq: u64) -> i32 {
    if trig.wrapping_add(1) == seq {
        -1
    } else {
        offset(trig, seq)
    }
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
    #[inline]
    pub fn segment(flow: u32, sub: u16, seq: u64, dsn: u64, bytes: u32, ts: Nanos) -> Packet {
        Packet {
            flow,
            sub,
            hop: 0,
            kind: Kind::Data,
            nsack: 0,
            bytes,
            seq,
            dsn,
            ts,
            owd: 0,
            trig: 0,
            rwnd: 0,
            sack: [[0; 2]; MAX_SACK_BLOCKS],
        }
    }

    /// An ACK with cumulative acknowledgement `seq` (DATA_ACK the same until the
    /// connection stamps it), triggered by segment `trig`, no SACK block yet.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn ack(flow: u32, sub: u16, bytes: u32, seq: u64, ts: Nanos, owd: Nanos, trig: u64, rwnd: u64) -> Packet {
        Packet {
            flow,
            sub,
            hop: 0,
            kind: Kind::Ack,
            nsack: 0,
            bytes,
            seq,
            dsn: seq,
            ts,
            owd,
            trig: trig_offset(trig, seq),
            rwnd: rwnd.min(u32::MAX as u64) as u32,
            sack: [[0; 2]; MAX_SACK_BLOCKS],
        }
    }

    /// `ack` written into a packet that already is a plain ACK (no SACK block) of
    /// the same flow, subflow and size: only the fields that change are stored. The
    /// DATA_ACK and window are left as they are: they are the connection's, stamped
    /// on every way out (`Flow::stamp`, `Sim::send_built_ack`).
    #[inline]
    pub fn reuse_ack(&mut self, seq: u64, ts: Nanos, owd: Nanos, trig: u64) {
        debug_assert!(
            self.kind == Kind::Ack && self.hop == 0 && self.nsack == 0 && self.sack == [[0; 2]; MAX_SACK_BLOCKS]
        );
        self.seq = seq;
        self.ts = ts;
        self.owd = owd;
        self.trig = trig_offset(trig, seq);
    }

    /// Step `step` of subflow `sub`'s handshake, `bytes` long; `ts`: its send time
    /// (SYN, third ACK) or the SYN's that it echoes (SYN-ACK).
    pub fn handshake(flow: u32, sub: u16, step: crate::handshake::Step, bytes: u32, ts: Nanos) -> Packet {
        Packet { kind: Kind::Handshake, seq: step as u64, dsn: 0, ..Packet::segment(flow, sub, 0, 0, bytes, ts) }
    }

    /// ACK: the segment that triggered it.
    #[inline]
    pub fn trig(&self) -> u64 {
        self.seq.wrapping_add_signed(self.trig as i64)
    }

    /// ACK: the advertised window in segments (u64::MAX: unlimited).
    #[inline]
    pub fn rwnd(&self) -> u64 {
        if self.rwnd == u32::MAX {
            u64::MAX
        } else {
            self.rwnd as u64
        }
    }

    /// Sets the advertised window; 2^32 - 1 segments or more (6 TB of 1448-byte
    /// segments) is unlimited.
    #[inline]
    pub fn set_rwnd(&mut self, segs: u64) {
        self.rwnd = segs.min(u32::MAX as u64) as u32;
    }

    /// ACK: how many SACK blocks it carries.
    #[inline]
    pub fn sack_count(&self) -> usize {
        self.nsack as usize
    }

    /// ACK: SACK block `i` as [lo, hi) segment numbers.
    #[inline]
    pub fn sack_block(&self, i: usize) -> (u64, u64) {
        let [lo, hi] = self.sack[i];
        (self.seq.wrapping_add_signed(lo as i64), self.seq.wrapping_add_signed(hi as i64))
    }

    /// ACK: appends the block [lo, hi) (relative to the cumulative ACK already
    /// set in `seq`); false when the ACK is full or the block is out of the
    /// offsets' reach (more than 2^31 segments from `seq`): it is then left out.
    #[inline]
    pub fn push_sack(&mut self, lo: u64, hi: u64) -> bool {
        let n = self.nsack as usize;
        let reach = 1u64 << 31;
        if n >= MAX_SACK_BLOCKS || lo.abs_diff(self.seq) >= reach || hi.abs_diff(self.seq) >= reach {
            return false;
        }
        self.sack[n] = [offset(lo, self.seq), offset(hi, self.seq)];
        self.nsack += 1;
        true
    }

    /// ACK: drops every SACK block.
    #[inline]
    pub fn clear_sack(&mut self) {
        self.nsack = 0;
    }

    /// ACK: the first block is a DSACK (RFC 2883 section 4, as Linux's
    /// tcp_check_dsack): below the cumulative ACK, or inside the second block.
    #[inline]
    pub fn first_is_dsack(&self) -> bool {
        if self.nsack == 0 {
            return false;
        }
        let [lo, hi] = self.sack[0];
        lo < 0 || (self.nsack > 1 && lo >= self.sack[1][0] && hi <= self.sack[1][1])
    }
}

// Packets are copied through every queue and event: keep them small.
const _: () = assert!(std::mem::size_of::<Packet>() <= 80);

#[cfg(test)]
mod ack_in_flight_tests {
    use super::*;

    /// Every field of an ACK survives the pipe, SACK blocks (and the stale ones past
    /// `nsack` that `clear_sack` leaves) included.
    #[test]
    fn an_ack_comes_out_of_the_pipe_as_it_went_in() {
        let mut ack = Packet::ack(7, 3, 92, 1_000, 55, 66, 998, 4_000_000_000);
        ack.hop = 2;
        assert!(ack.push_sack(1_002, 1_005) && ack.push_sack(1_007, 1_009) && ack.push_sack(990, 991));
        let mut cleared = ack;
        cleared.clear_sack();
        for p in [ack, cleared] {
            let back = AckInFlight::new(123, &p).packet(7, 3);
            assert_eq!(format!("{back:?}"), format!("{p:?}"));
        }
    }
}
