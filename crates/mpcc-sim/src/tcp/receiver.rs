//! The TCP receiver: cumulative and SACK acknowledgements, a reordering buffer
//! bounded by the receive buffer, optional delayed ACKs (RFC 1122/5681: every
//! second full segment or after a timeout; out-of-order and hole-filling segments
//! are acknowledged at once).
//!
//! Inside an MPTCP connection it is a subflow receiver: only data in order at the
//! subflow level moves up to the connection (as in Linux, where out-of-order data
//! waits in the subflow's queue), so it remembers the data sequence number of
//! every segment it holds and reports the DSNs each arrival releases
//! (`delivered_dsns`).

use crate::config::TcpConfig;
use crate::packet::{Kind, Packet};
use mpcc_core::Nanos;
use std::collections::VecDeque;

/// A slot of the DSN ring with no segment held.
const NO_DSN: u64 = u64::MAX;
/// No intentional hold of the cumulative ACK.
const NO_HOLD: u64 = u64::MAX;
/// Immediate ACKs of a quick-ACK episode (Linux's TCP_MAX_QUICKACKS): at the start
/// of the connection and after out-of-order data.
const MAX_QUICKACKS: u32 = 16;

/// What the receiver wants done after a data segment.
#[derive(Clone, Copy, Debug)]
pub enum AckAction {
    /// Send this ACK now.
    Now(Packet),
    /// Hold the ACK; arm the delayed-ACK timer if it is not running.
    Delay,
    /// No ACK: the receiver controller turned the subflow off.
    Withhold,
}


pub struct Receiver {
    pub flow: u32,
    /// Subflow index inside the connection.
    pub sub: u16,
    /// Next expected segment.
    pub rcv_nxt: u64,
    /// Out-of-order segments held, as sorted disjoint ranges [lo, hi) above rcv_nxt.
    ooo: Vec<(u64, u64)>,
    pub ooo_segs: u64,
    /// Receive buffer in segments (the window's right edge is rcv_nxt + this).
    buf_segs: u64,
    delayed_ack: bool,
    /// Linux's quick-ACK mode (`quickack`): this many more in-order segments are
    /// acknowledged at once, even with delayed ACKs (tcp_enter_quickack_mode).
    quickack: bool,
    quick: u32,
    /// In-order segments not yet acknowledged (delayed ACKs).
    pending: u32,
    /// Timestamp to echo in the next delayed ACK (the earliest unacknowledged, RFC 7323).
    pending_ts: Nanos,
    pending_owd: Nanos,
    pending_trig: u64,
    pub delack_armed: bool,
    header: u32,
    /// Data segments that arrived (duplicates included) and their payload bytes.
    pub received_packets: u64,
    pub received_bytes: u64,
    /// Peak reordering-buffer occupancy in segments.
    pub ooo_peak: u64,
    /// DSN of each held segment: slot i is segment `rcv_nxt + i` (empty when
    /// nothing is held, so in-order arrivals cost nothing).
    dsn_ring: VecDeque<u64>,
    /// DSN runs [lo, hi) released in order by the last `on_data`, ascending.
    released: Vec<(u64, u64)>,
    /// Receiver controller (`mpcc_algo::receiver`): the cumulative ACK is held
    /// at this segment (intentional duplicate ACKs) until its retransmission
    /// arrives; NO_HOLD: none. The data itself is delivered as usual.
    hold: u64,
    /// Receiver controller: no ACKs at all (the subflow is turned off).
    pub off: bool,
    /// Send timestamp of the latest segment, echoed by an ACK that turns the subflow on.
    last_ts: Nanos,
    /// One above the highest segment received.
    high: u64,
    /// Intentional duplicate-ACK episodes started and segments left unacknowledged while off.
    pub holds: u64,
    pub withheld: u64,
}

impl Receiver {
    /// Gives back the reordering buffers' spare capacity (`mem::trim_deque`).
    pub fn trim(&mut self) {
        crate::mem::trim_vec(&mut self.ooo, 16);
        crate::mem::trim_deque(&mut self.dsn_ring, 16);
        crate::mem::trim_vec(&mut self.released, 4);
    }

    pub fn new(flow: u32, tcp: &TcpConfig) -> Receiver {
        let buf_segs = match tcp.rcv_buf_bytes {
            Some(b) => (b / tcp.mss as u64).max(1),
            None => u64::MAX / 4,
        };
        Receiver {
            flow,
            sub: 0,
            rcv_nxt: 0,
            ooo: Vec::with_capacity(16),
            ooo_segs: 0,
            buf_segs,
            delayed_ack: tcp.mechanisms().delayed_ack,
            quickack: tcp.mechanisms().quickack,
            quick: if tcp.mechanisms().quickack { MAX_QUICKACKS } else { 0 },
            pending: 0,
            pending_ts: 0,
            pending_owd: 0,
            pending_trig: 0,
            delack_armed: false,
            header: tcp.header_bytes,
            received_packets: 0,
            received_bytes: 0,
            ooo_peak: 0,
            dsn_ring: VecDeque::new(),
            released: Vec::with_capacity(4),
            hold: NO_HOLD,
            off: false,
            last_ts: 0,
            high: 0,
            holds: 0,
            withheld: 0,
        }
    }

    /// The DSN runs the last `on_data` released in order, ascending.
    pub fn delivered_dsns(&self) -> &[(u64, u64)] {
        &self.released
    }

    #[inline]
    fn release(&mut self, dsn: u64) {
        match self.released.last_mut() {
            Some(r) if r.1 == dsn => r.1 += 1,
            _ => self.released.push((dsn, dsn + 1)),
        }
    }

    fn ack(&self, ts: Nanos, owd: Nanos, trig: u64, block: (u64, u64)) -> Packet {
        let mut p = self.plain_ack(ts, owd, trig, block);
        if self.hold < self.rcv_nxt {
            // Intentional duplicate ACKs: the held segment stays unacknowledged and
            // what arrived above it is SACKed, so the sender sees it as lost.
            p.seq = self.hold;
            if block.1 <= block.0 && self.hold + 1 < self.rcv_nxt {
                p.sack_lo = self.hold + 1;
                p.sack_hi = self.rcv_nxt;
            }
        }
        p
    }

    fn plain_ack(&self, ts: Nanos, owd: Nanos, trig: u64, block: (u64, u64)) -> Packet {
        Packet {
            flow: self.flow,
            sub: self.sub,
            hop: 0,
            kind: Kind::Ack,
            bytes: self.header,
            seq: self.rcv_nxt,
            dsn: 0,
            ts,
            owd,
            trig,
            sack_lo: block.0,
            sack_hi: block.1,
            rwnd: self.buf_segs,
        }
    }

    /// A data segment arrives at `now`. Returns the acknowledgement decision and the
    /// number of segments newly delivered in order to the application.
    pub fn on_data(&mut self, now: Nanos, pkt: &Packet, payload: u32) -> (AckAction, u64) {
        let (action, delivered) = self.receive(now, pkt, payload);
        if self.off {
            self.pending = 0;
            self.withheld += 1;
            return (AckAction::Withhold, delivered);
        }
        (action, delivered)
    }

    /// One above the highest segment received: a segment below it fills a hole
    /// or is a duplicate (what the receiver can tell of a retransmission).
    #[inline]
    pub fn highest(&self) -> u64 {
        self.high.max(self.rcv_nxt)
    }

    /// Receiver controller: hold the cumulative ACK at the next in-order segment
    /// (intentional duplicate ACKs) until that segment arrives a second time.
    pub fn start_hold(&mut self) {
        if self.hold == NO_HOLD {
            self.hold = self.rcv_nxt;
            self.holds += 1;
        }
    }

    /// Receiver controller: acknowledge again. Returns the ACK to send at once
    /// (cumulative, no hold).
    pub fn turn_on(&mut self, now: Nanos) -> Packet {
        self.off = false;
        self.hold = NO_HOLD;
        let ts = self.last_ts.min(now);
        self.plain_ack(ts, now - ts, self.rcv_nxt.saturating_sub(1), (0, 0))
    }

    fn receive(&mut self, now: Nanos, pkt: &Packet, payload: u32) -> (AckAction, u64) {
        let s = pkt.seq;
        let filled_hole = s + 1 < self.high;
        self.high = self.high.max(s + 1);
        self.last_ts = pkt.ts;
        if s == self.hold && (s < self.rcv_nxt || filled_hole) {
            self.hold = NO_HOLD; // its retransmission: acknowledge everything again
        }
        let owd = now - pkt.ts;
        self.released.clear();
        self.received_packets += 1;
        self.received_bytes += payload as u64;
        if s < self.rcv_nxt {
            // A duplicate: acknowledge at once (the sender may have timed out).
            return (AckAction::Now(self.ack(pkt.ts, owd, s, (0, 0))), 0);
        }
        if s > self.rcv_nxt {
            if s >= self.rcv_nxt + self.buf_segs {
                // Beyond the advertised window: discarded, acknowledged.
                return (AckAction::Now(self.ack(pkt.ts, owd, s, (0, 0))), 0);
            }
            let block = self.insert(s);
            if self.quickack {
                self.quick = MAX_QUICKACKS; // out-of-order data: quick ACKs again
            }
            let i = (s - self.rcv_nxt) as usize;
            if self.dsn_ring.len() <= i {
                self.dsn_ring.resize(i + 1, NO_DSN);
            }
            self.dsn_ring[i] = pkt.dsn;
            self.ooo_peak = self.ooo_peak.max(self.ooo_segs);
            return (AckAction::Now(self.ack(pkt.ts, owd, s, block)), 0);
        }
        // In order.
        let had_ooo = !self.ooo.is_empty();
        let before = self.rcv_nxt;
        self.rcv_nxt += 1;
        if had_ooo && self.ooo[0].0 == self.rcv_nxt {
            let (lo, hi) = self.ooo.remove(0);
            self.ooo_segs -= hi - lo;
            self.rcv_nxt = hi;
        }
        let delivered = self.rcv_nxt - before;
        self.release(pkt.dsn);
        if !self.dsn_ring.is_empty() {
            self.dsn_ring.pop_front(); // the slot of segment `before` itself
            for _ in 1..delivered {
                let d = self.dsn_ring.pop_front().expect("held segments have a DSN slot");
                debug_assert_ne!(d, NO_DSN);
                self.release(d);
            }
            if self.ooo.is_empty() {
                self.dsn_ring.clear();
            }
        }
        if had_ooo || !self.delayed_ack || self.quick > 0 {
            self.quick = self.quick.saturating_sub(1);
            self.pending = 0;
            return (AckAction::Now(self.ack(pkt.ts, owd, s, (0, 0))), delivered);
        }
        if self.pending == 0 {
            self.pending_ts = pkt.ts;
            self.pending_owd = owd;
            self.pending_trig = s;
        }
        self.pending += 1;
        if self.pending >= 2 {
            self.pending = 0;
            return (AckAction::Now(self.ack(self.pending_ts, self.pending_owd, self.pending_trig, (0, 0))), delivered);
        }
        (AckAction::Delay, delivered)
    }

    /// The delayed-ACK timer fired: the held ACK, if any.
    pub fn on_delack_timer(&mut self) -> Option<Packet> {
        self.delack_armed = false;
        if self.pending == 0 || self.off {
            return None;
        }
        self.pending = 0;
        Some(self.ack(self.pending_ts, self.pending_owd, self.pending_trig, (0, 0)))
    }

    /// Adds out-of-order segment `s`; returns the SACK block that now contains it.
    fn insert(&mut self, s: u64) -> (u64, u64) {
        let i = self.ooo.partition_point(|r| r.0 <= s);
        if i > 0 && self.ooo[i - 1].1 > s {
            return self.ooo[i - 1]; // already held
        }
        self.ooo_segs += 1;
        let joins_prev = i > 0 && self.ooo[i - 1].1 == s;
        let joins_next = i < self.ooo.len() && self.ooo[i].0 == s + 1;
        match (joins_prev, joins_next) {
            (true, true) => {
                self.ooo[i - 1].1 = self.ooo[i].1;
                self.ooo.remove(i);
                self.ooo[i - 1]
            }
            (true, false) => {
                self.ooo[i - 1].1 = s + 1;
                self.ooo[i - 1]
            }
            (false, true) => {
                self.ooo[i].0 = s;
                self.ooo[i]
            }
            (false, false) => {
                self.ooo.insert(i, (s, s + 1));
                (s, s + 1)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(seq: u64) -> Packet {
        Packet::data(0, seq, 1500, 0)
    }

    fn acked(a: AckAction) -> Packet {
        match a {
            AckAction::Now(p) => p,
            other => panic!("expected an ACK, got {other:?}"),
        }
    }

    #[test]
    fn sack_blocks_and_hole_filling() {
        let mut r = Receiver::new(0, &TcpConfig::default());
        let (a, d) = r.on_data(1, &data(0), 1448);
        assert_eq!((acked(a).seq, d), (1, 1));
        let a = acked(r.on_data(1, &data(2), 1448).0);
        assert_eq!((a.seq, a.sack_lo, a.sack_hi), (1, 2, 3));
        let a = acked(r.on_data(1, &data(4), 1448).0);
        assert_eq!((a.sack_lo, a.sack_hi), (4, 5));
        let a = acked(r.on_data(1, &data(3), 1448).0);
        assert_eq!((a.sack_lo, a.sack_hi), (2, 5), "blocks merge");
        assert_eq!(r.ooo_segs, 3);
        let (a, d) = r.on_data(1, &data(1), 1448);
        assert_eq!((acked(a).seq, d), (5, 4), "hole filled: everything delivered");
        assert_eq!(r.ooo_segs, 0);
    }

    #[test]
    fn delayed_acks_every_second_segment() {
        let tcp = TcpConfig { profile: crate::profile::Profile::Rfc, delayed_ack: Some(true), ..Default::default() };
        let mut r = Receiver::new(0, &tcp);
        assert!(matches!(r.on_data(1, &data(0), 1448).0, AckAction::Delay));
        let a = acked(r.on_data(2, &data(1), 1448).0);
        assert_eq!(a.seq, 2);
        assert!(matches!(r.on_data(3, &data(2), 1448).0, AckAction::Delay));
        assert_eq!(r.on_delack_timer().unwrap().seq, 3);
        assert!(r.on_delack_timer().is_none());
        // Out of order: immediate.
        assert!(matches!(r.on_data(4, &data(5), 1448).0, AckAction::Now(_)));
    }

    #[test]
    fn held_segments_release_their_dsns_in_subflow_order() {
        let mut r = Receiver::new(0, &TcpConfig::default());
        let seg = |seq, dsn| Packet::segment(0, 0, seq, dsn, 1500, 0);
        r.on_data(1, &seg(0, 7), 1448);
        assert_eq!(r.delivered_dsns(), &[(7, 8)]);
        r.on_data(1, &seg(2, 12), 1448);
        r.on_data(1, &seg(3, 13), 1448);
        r.on_data(1, &seg(5, 20), 1448);
        assert!(r.delivered_dsns().is_empty(), "held: subflow hole at 1");
        r.on_data(1, &seg(1, 9), 1448);
        assert_eq!(r.delivered_dsns(), &[(9, 10), (12, 14)]);
        r.on_data(1, &seg(4, 14), 1448);
        assert_eq!(r.delivered_dsns(), &[(14, 15), (20, 21)]);
        assert_eq!((r.rcv_nxt, r.ooo_segs), (6, 0));
    }

    #[test]
    fn segments_beyond_the_buffer_are_discarded() {
        let tcp = TcpConfig { rcv_buf_bytes: Some(4 * 1448), ..Default::default() };
        let mut r = Receiver::new(0, &tcp);
        let a = acked(r.on_data(1, &data(4), 1448).0);
        assert_eq!((a.sack_lo, a.sack_hi, a.rwnd), (0, 0, 4));
        assert_eq!(r.ooo_segs, 0);
        acked(r.on_data(1, &data(3), 1448).0);
        assert_eq!(r.ooo_segs, 1);
    }

    #[test]
    fn quick_acks_at_the_start_and_after_reordering() {
        let tcp = TcpConfig { delayed_ack: Some(true), quickack: Some(true), ..Default::default() };
        let mut r = Receiver::new(0, &tcp);
        for seq in 0..16 {
            assert!(matches!(r.on_data(1, &data(seq), 1448).0, AckAction::Now(_)), "quick ACK {seq}");
        }
        assert!(matches!(r.on_data(1, &data(16), 1448).0, AckAction::Delay));
        acked(r.on_data(1, &data(17), 1448).0);
        acked(r.on_data(1, &data(19), 1448).0); // out of order: quick ACKs again
        acked(r.on_data(1, &data(18), 1448).0);
        assert!(matches!(r.on_data(1, &data(20), 1448).0, AckAction::Now(_)));
    }
}
