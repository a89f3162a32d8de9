//! The TCP sender: a SACK scoreboard with RFC 6675 loss recovery, RFC 6298
//! retransmission timeouts, and the congestion controller consulted for cwnd.
//!
//! It serves two masters. Alone (`send`, `on_ack`, `on_timeout`) it is a plain TCP
//! sender that picks its own new data. Inside an MPTCP connection (see `flow.rs`)
//! it is a subflow: the connection calls `process_ack` / `process_timeout`, lets it
//! retransmit its own lost segments (`send_lost`), and hands it new segments chosen
//! by the packet scheduler (`emit_new`), each carrying a data sequence number.
//!
//! Sequence numbers count segments. The scoreboard holds one small entry per
//! outstanding segment in a ring buffer indexed by `seq - una`. Loss detection
//! follows RFC 6675's IsLost with DupThresh counted in segments: a segment is lost
//! once `dupthresh` segments above it are SACKed. The `dupthresh` highest SACKed
//! segments are kept in a tiny sorted array, so marking losses never rescans the
//! window.

use super::rtt::RttEstimator;
use crate::config::TcpConfig;
use crate::packet::{Kind, Packet};
use mpcc_algo::{AckEvent, CongestionControl, CongestionEvent, CongestionKind, Controller};
use mpcc_core::Nanos;
use std::collections::VecDeque;

const SACKED: u8 = 1;
const LOST: u8 = 2;
const RETX: u8 = 4;
/// Already queued for reinjection on another subflow.
const REINJ: u8 = 8;
/// Largest supported DupThresh.
pub const MAX_DUPTHRESH: usize = 16;

#[derive(Clone, Copy, Debug)]
struct Seg {
    /// Data sequence number carried (retransmissions carry the same one).
    dsn: u64,
    /// Payload bytes.
    payload: u32,
    flags: u8,
}

impl Seg {
    /// This segment's share of RFC 6675's `pipe`.
    #[inline]
    fn pipe_share(self) -> u64 {
        if self.flags & SACKED != 0 {
            0
        } else {
            (self.flags & LOST == 0) as u64 + (self.flags & RETX != 0) as u64
        }
    }
}

/// Counters reported in the summary.
#[derive(Clone, Copy, Debug, Default)]
pub struct SenderStats {
    pub sent_packets: u64,
    pub sent_bytes: u64,
    pub retransmissions: u64,
    /// Segments marked lost (by SACK evidence or a timeout).
    pub losses: u64,
    pub timeouts: u64,
    pub recoveries: u64,
    /// New segments of this subflow that carried data first sent on another
    /// subflow (reinjections).
    pub reinjections: u64,
}

pub struct Sender {
    pub flow: u32,
    /// Subflow id inside the connection's controller.
    pub sf: usize,
    mss: u32,
    header: u32,
    dupthresh: usize,
    /// Oldest unacknowledged segment.
    pub una: u64,
    /// Next new segment to send.
    pub nxt: u64,
    /// New data may be sent below this segment number (the application's supply).
    pub app_limit: u64,
    /// Payload of the last segment when the transfer has an end (`app_limit` segments).
    last_seg_bytes: u32,
    board: VecDeque<Seg>,
    /// RFC 6675 pipe, in segments.
    pub pipe: u64,
    /// The highest SACKed segments, descending (at most `dupthresh`).
    top_sacked: [u64; MAX_DUPTHRESH],
    n_top: usize,
    /// Every unSACKed segment below this has been marked lost.
    lost_hi: u64,
    /// Scan position for the next lost segment to retransmit.
    retx_next: u64,
    pub in_recovery: bool,
    /// RFC 6675 RecoveryPoint.
    recover: u64,
    /// After a timeout no fast recovery starts until `una` passes this (RFC 6582).
    rto_recover: u64,
    pub rtt: RttEstimator,
    backoff: u32,
    /// When the retransmission timer expires (None: not running).
    pub rto_deadline: Option<Nanos>,
    /// When the pending Rto event fires (None: none pending).
    pub rto_event_at: Option<Nanos>,
    /// Advertised receive window (segments beyond `una`).
    rwnd: u64,
    round_end: u64,
    /// Window validation (`tcp.cwnd_validation`), as Linux's tcp_cwnd_validate:
    /// whether cwnd was full at some send during the last window of data, the
    /// most segments in flight then, and where that window of data ends.
    validation: bool,
    cwnd_limited: bool,
    max_pipe: u64,
    usage_end: u64,
    /// The receiver's timestamp of the latest ACK (RFC 7323 TS.Recent), echoed
    /// in every data segment so the receiver can measure the RTT.
    ts_recent: Nanos,
    pub stats: SenderStats,
    /// Congestion-control event recorder (`record_cc`), None when off.
    pub rec: Option<crate::cc_record::Recorder>,
}

impl Sender {
    pub fn new(flow: u32, sf: usize, tcp: &TcpConfig) -> Sender {
        Sender {
            flow,
            sf,
            mss: tcp.mss,
            header: tcp.header_bytes,
            dupthresh: (tcp.dupthresh as usize).clamp(1, MAX_DUPTHRESH),
            una: 0,
            nxt: 0,
            app_limit: 0,
            last_seg_bytes: tcp.mss,
            board: VecDeque::with_capacity(16),
            pipe: 0,
            top_sacked: [0; MAX_DUPTHRESH],
            n_top: 0,
            lost_hi: 0,
            retx_next: 0,
            in_recovery: false,
            recover: 0,
            rto_recover: 0,
            rtt: RttEstimator::new(tcp.initial_rto_ns, tcp.min_rto(), tcp.max_rto_ns),
            backoff: 0,
            rto_deadline: None,
            rto_event_at: None,
            rwnd: u64::MAX,
            round_end: 0,
            validation: tcp.cwnd_validation,
            cwnd_limited: false,
            max_pipe: 0,
            usage_end: 0,
            ts_recent: 0,
            stats: SenderStats::default(),
            rec: None,
        }
    }

    /// Lets the application offer data: `total_bytes` in all (u64::MAX: unlimited).
    pub fn set_app_bytes(&mut self, total_bytes: u64) {
        if total_bytes == u64::MAX {
            self.app_limit = u64::MAX;
        } else {
            let mss = self.mss as u64;
            self.app_limit = total_bytes.div_ceil(mss);
            let rem = (total_bytes % mss) as u32;
            self.last_seg_bytes = if rem == 0 { self.mss } else { rem };
        }
    }

    /// The window in whole segments (Linux's integer snd_cwnd), at least one.
    #[inline]
    pub fn cwnd_segs(&self, cc: &Controller) -> u64 {
        // `as` truncates, which is floor for the non-negative window (no libm call).
        (cc.cwnd(self.sf) as u64).max(1)
    }

    /// Stops offering new data (the application stopped).
    pub fn stop_app(&mut self) {
        self.app_limit = self.app_limit.min(self.nxt);
    }

    /// Payload bytes of segment `seq`.
    #[inline]
    pub fn seg_bytes(&self, seq: u64) -> u32 {
        if self.app_limit != u64::MAX && seq + 1 == self.app_limit {
            self.last_seg_bytes
        } else {
            self.mss
        }
    }

    #[inline]
    fn seg(&mut self, seq: u64) -> &mut Seg {
        &mut self.board[(seq - self.una) as usize]
    }

    /// All data offered so far is acknowledged.
    pub fn all_acked(&self) -> bool {
        self.una >= self.app_limit
    }

    /// Processes an ACK, informs the controller, and sends what the window allows
    /// into `out`.
    pub fn on_ack(&mut self, now: Nanos, ack: &Packet, cc: &mut Controller, out: &mut Vec<Packet>) {
        self.process_ack(now, ack, cc, out);
        self.send(now, cc, out);
    }

    /// Everything `on_ack` does but sending new data: scoreboard, recovery (with
    /// its immediate first retransmission), controller, timer.
    pub fn process_ack(&mut self, now: Nanos, ack: &Packet, cc: &mut Controller, out: &mut Vec<Packet>) {
        debug_assert_eq!(ack.kind, Kind::Ack);
        let rtt = now - ack.ts;
        self.rtt.sample(rtt);
        // The ACK left the receiver when the segment it echoes arrived there.
        self.ts_recent = self.ts_recent.max(ack.ts + ack.owd);
        self.rwnd = ack.rwnd;
        let mut delivered = 0u64;

        // Cumulative acknowledgement.
        let cum = ack.seq.min(self.nxt);
        let advanced = cum > self.una;
        if advanced {
            while self.una < cum {
                let s = self.board.pop_front().expect("scoreboard covers [una, nxt)");
                if s.flags & SACKED == 0 {
                    delivered += 1;
                }
                self.pipe -= s.pipe_share();
                self.una += 1;
            }
            self.backoff = 0;
            while self.n_top > 0 && self.top_sacked[self.n_top - 1] < self.una {
                self.n_top -= 1;
            }
            self.lost_hi = self.lost_hi.max(self.una);
            self.retx_next = self.retx_next.max(self.una);
        }

        // SACK: the block around the triggering segment, grown from it outwards so
        // that in the usual case only the new segment is visited.
        if ack.sack_hi > ack.sack_lo && ack.trig >= self.una && ack.trig < self.nxt {
            let lo = ack.sack_lo.max(self.una);
            let hi = ack.sack_hi.min(self.nxt);
            delivered += self.sack(ack.trig) as u64;
            let mut s = ack.trig;
            while s > lo && self.sack(s - 1) {
                delivered += 1;
                s -= 1;
            }
            let mut s = ack.trig + 1;
            while s < hi && self.sack(s) {
                delivered += 1;
                s += 1;
            }
        }
        self.mark_lost();

        // Recovery epochs.
        if self.in_recovery && self.una >= self.recover {
            self.in_recovery = false;
            cc.on_recovery_exit(self.sf, now);
            if let Some(r) = &self.rec {
                r.borrow_mut().recovery_exit(self.sf, now, cc);
            }
        }
        if !self.in_recovery && self.una < self.nxt && self.una >= self.rto_recover && self.board[0].flags & LOST != 0 {
            self.in_recovery = true;
            self.recover = self.nxt;
            self.stats.recoveries += 1;
            let ev = self.congestion_event(now, CongestionKind::Loss);
            cc.on_congestion(self.sf, &ev);
            if let Some(r) = &self.rec {
                r.borrow_mut().congestion(self.sf, &ev, cc);
            }
            // RFC 6675 step (4.3): the first lost segment goes out at once, whatever pipe is.
            if let Some(seq) = self.next_lost() {
                self.retransmit(now, seq, out);
            }
        }

        let round_start = advanced && self.una >= self.round_end;
        if round_start {
            self.round_end = self.nxt;
        }
        let ev = AckEvent {
            now,
            acked: delivered as f64,
            rtt,
            srtt: self.rtt.srtt,
            min_rtt: self.rtt.min_rtt,
            owd: ack.owd,
            in_flight: self.pipe as f64,
            in_recovery: self.in_recovery,
            round_start,
            app_limited: self.validation && !self.using_window(cc),
        };
        cc.on_ack(self.sf, &ev);
        if let Some(r) = &self.rec {
            r.borrow_mut().ack(self.sf, &ev, cc);
        }

        // RFC 6298 5.2/5.3: stop the timer when all is acknowledged, restart it
        // when new data is acknowledged.
        if self.una == self.nxt {
            self.rto_deadline = None;
        } else if advanced {
            self.rto_deadline = Some(now + self.rtt.backed_off(self.backoff));
        }
    }

    /// Marks `seq` SACKed; returns false if it already was.
    #[inline]
    fn sack(&mut self, seq: u64) -> bool {
        let s = self.seg(seq);
        if s.flags & SACKED != 0 {
            return false;
        }
        let share = s.pipe_share();
        s.flags |= SACKED;
        self.pipe -= share;
        // Keep the `dupthresh` highest SACKed segments, descending.
        let k = self.dupthresh;
        if self.n_top < k || seq > self.top_sacked[self.n_top - 1] {
            let mut i = self.n_top.min(k - 1);
            if self.n_top < k {
                self.n_top += 1;
            }
            while i > 0 && self.top_sacked[i - 1] < seq {
                self.top_sacked[i] = self.top_sacked[i - 1];
                i -= 1;
            }
            self.top_sacked[i] = seq;
        }
        true
    }

    /// RFC 6675 IsLost: every unSACKed segment with at least `dupthresh` SACKed
    /// segments above it is lost.
    #[inline]
    fn mark_lost(&mut self) {
        if self.n_top < self.dupthresh {
            return;
        }
        let threshold = self.top_sacked[self.dupthresh - 1];
        while self.lost_hi < threshold {
            let seq = self.lost_hi;
            let s = self.seg(seq);
            if s.flags & (SACKED | LOST) == 0 {
                s.flags |= LOST;
                self.pipe -= 1;
                self.stats.losses += 1;
            }
            self.lost_hi += 1;
        }
    }

    fn congestion_event(&self, now: Nanos, kind: CongestionKind) -> CongestionEvent {
        CongestionEvent { now, kind, in_flight: self.pipe as f64, srtt: self.rtt.srtt, min_rtt: self.rtt.min_rtt, rtt: self.rtt.latest }
    }

    /// RFC 6675 NextSeg rule 1: the first lost segment not yet retransmitted.
    #[inline]
    fn next_lost(&mut self) -> Option<u64> {
        let mut s = self.retx_next;
        while s < self.lost_hi {
            let f = self.board[(s - self.una) as usize].flags;
            if f & LOST != 0 && f & (SACKED | RETX) == 0 {
                self.retx_next = s;
                return Some(s);
            }
            s += 1;
        }
        self.retx_next = s;
        None
    }

    /// Whether `pipe` is below the whole-segment window `cwnd`.
    #[inline]
    pub fn has_space(&self, cwnd: u64) -> bool {
        self.pipe < cwnd
    }

    /// Retransmits lost segments (NextSeg rule 1) while `pipe < cwnd`.
    #[inline]
    pub fn send_lost(&mut self, now: Nanos, cwnd: u64, out: &mut Vec<Packet>) {
        while self.pipe < cwnd {
            let Some(seq) = self.next_lost() else { break };
            self.retransmit(now, seq, out);
        }
    }

    /// Sends while `pipe` is below the (whole-segment) congestion window: lost
    /// segments first, then new data within the application's supply and the
    /// receive window (NextSeg rules 1 and 2), the data sequence number being the
    /// segment number.
    pub fn send(&mut self, now: Nanos, cc: &Controller, out: &mut Vec<Packet>) {
        let cwnd = self.cwnd_segs(cc);
        self.send_lost(now, cwnd, out);
        while self.pipe < cwnd && self.nxt < self.app_limit && self.nxt < self.una.saturating_add(self.rwnd) {
            let seq = self.nxt;
            self.emit_new(now, seq, self.seg_bytes(seq), false, out);
        }
        self.note_window_use(cwnd);
    }

    /// After a send attempt with window `cwnd`: Linux's tcp_cwnd_validate. The
    /// record restarts once the previous window of data is acknowledged, or at
    /// once when cwnd is full now or more is in flight than recorded.
    #[inline]
    pub fn note_window_use(&mut self, cwnd: u64) {
        if !self.validation {
            return;
        }
        let full = self.pipe >= cwnd;
        if full || self.una >= self.usage_end || (!self.cwnd_limited && self.pipe > self.max_pipe) {
            self.cwnd_limited = full;
            self.max_pipe = self.pipe;
            self.usage_end = self.nxt;
        }
    }

    /// Linux's tcp_is_cwnd_limited: cwnd was full during the last window of
    /// data, or, in slow start, cwnd is below twice the most that was in flight.
    #[inline]
    fn using_window(&self, cc: &Controller) -> bool {
        let cwnd = cc.cwnd(self.sf);
        self.cwnd_limited || (cwnd < cc.ssthresh(self.sf) && cwnd < 2.0 * self.max_pipe as f64)
    }

    #[inline]
    fn retransmit(&mut self, now: Nanos, seq: u64, out: &mut Vec<Packet>) {
        let seg = self.seg(seq);
        seg.flags |= RETX;
        let (dsn, payload) = (seg.dsn, seg.payload);
        self.stats.retransmissions += 1;
        self.retx_next = seq + 1;
        // Retransmitting the oldest segment restarts the timer (as Linux does):
        // otherwise a fast retransmission queued behind a full buffer would
        // race the timer started for the original transmission.
        if seq == self.una {
            self.rto_deadline = Some(now + self.rtt.backed_off(self.backoff));
        }
        self.put(now, seq, dsn, payload, out);
    }

    /// Sends a new segment carrying data sequence number `dsn` with `payload`
    /// bytes; `reinjection` when that data was first sent on another subflow.
    #[inline]
    pub fn emit_new(&mut self, now: Nanos, dsn: u64, payload: u32, reinjection: bool, out: &mut Vec<Packet>) {
        let seq = self.nxt;
        self.board.push_back(Seg { dsn, payload, flags: 0 });
        self.nxt += 1;
        self.stats.reinjections += reinjection as u64;
        self.put(now, seq, dsn, payload, out);
    }

    #[inline]
    fn put(&mut self, now: Nanos, seq: u64, dsn: u64, payload: u32, out: &mut Vec<Packet>) {
        self.pipe += 1;
        let bytes = payload + self.header;
        self.stats.sent_packets += 1;
        self.stats.sent_bytes += bytes as u64;
        let mut p = Packet::segment(self.flow, self.sf as u16, seq, dsn, bytes, now);
        p.owd = self.ts_recent;
        out.push(p);
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.backed_off(self.backoff));
        }
    }

    /// Calls `f` with the data sequence number of every outstanding segment not
    /// yet queued for reinjection (`include_sacked`: SACKed ones too, for a
    /// subflow that is closing, whose receiver will never deliver them), and marks
    /// them queued.
    pub fn take_for_reinjection(&mut self, include_sacked: bool, mut f: impl FnMut(u64)) {
        for s in self.board.iter_mut() {
            if s.flags & REINJ == 0 && (include_sacked || s.flags & SACKED == 0) {
                s.flags |= REINJ;
                f(s.dsn);
            }
        }
    }

    /// The retransmission timer expired (RFC 6298 5.4-5.7, RFC 6675 section 5.1):
    /// everything outstanding and unSACKed is lost, cwnd collapses, the timer backs off.
    pub fn on_timeout(&mut self, now: Nanos, cc: &mut Controller, out: &mut Vec<Packet>) {
        self.process_timeout(now, cc);
        self.send(now, cc, out);
    }

    /// Everything `on_timeout` does but sending.
    pub fn process_timeout(&mut self, now: Nanos, cc: &mut Controller) {
        self.stats.timeouts += 1;
        let ev = self.congestion_event(now, CongestionKind::Timeout);
        cc.on_congestion(self.sf, &ev);
            if let Some(r) = &self.rec {
                r.borrow_mut().congestion(self.sf, &ev, cc);
            }
        for s in self.board.iter_mut() {
            if s.flags & SACKED == 0 {
                if s.flags & LOST == 0 {
                    self.stats.losses += 1;
                }
                s.flags = LOST | (s.flags & REINJ);
            }
        }
        self.pipe = 0;
        self.lost_hi = self.nxt;
        self.retx_next = self.una;
        self.in_recovery = false;
        self.rto_recover = self.nxt;
        self.backoff += 1;
        self.rto_deadline = if self.una < self.nxt { Some(now + self.rtt.backed_off(self.backoff)) } else { None };
    }

    pub fn mss(&self) -> u32 {
        self.mss
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpcc_algo::{build, Params};

    fn ack(cum: u64, trig: u64, lo: u64, hi: u64, ts: Nanos) -> Packet {
        Packet { flow: 0, sub: 0, hop: 0, kind: Kind::Ack, bytes: 52, seq: cum, dsn: cum, ts, owd: 0, trig, sack_lo: lo, sack_hi: hi, rwnd: u64::MAX }
    }

    fn setup() -> (Sender, Controller, Vec<Packet>) {
        let mut cc = build("reno", &Params::new()).unwrap();
        cc.add_subflow(0);
        let mut s = Sender::new(0, 0, &TcpConfig::default());
        s.set_app_bytes(u64::MAX);
        let mut out = Vec::new();
        s.send(0, &cc, &mut out);
        (s, cc, out)
    }

    #[test]
    fn initial_window_is_ten_segments() {
        let (s, _, out) = setup();
        assert_eq!(out.len(), 10);
        assert_eq!(s.pipe, 10);
        assert_eq!(out[9].seq, 9);
        assert_eq!(out[0].bytes, 1500);
    }

    #[test]
    fn three_sacks_above_a_hole_trigger_fast_retransmit() {
        let (mut s, mut cc, mut out) = setup();
        out.clear();
        // Segment 0 lost; 1, 2 SACKed: not yet lost. Each SACK delivers a segment,
        // so slow start sends two new ones per ACK.
        s.on_ack(100, &ack(0, 1, 1, 2, 0), &mut cc, &mut out);
        s.on_ack(100, &ack(0, 2, 1, 3, 0), &mut cc, &mut out);
        assert!(!s.in_recovery);
        assert_eq!(out.len(), 4);
        assert_eq!(cc.cwnd(0), 12.0);
        out.clear();
        s.on_ack(100, &ack(0, 3, 1, 4, 0), &mut cc, &mut out);
        assert!(s.in_recovery);
        assert_eq!(s.stats.losses, 1);
        // cwnd halved to 6; the hole is retransmitted at once (RFC 6675 4.3) even
        // though pipe = 14 sent - 3 SACKed - 1 lost + 1 retransmitted = 11 >= 6.
        assert_eq!(cc.cwnd(0), 6.0);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].seq, 0, "first retransmission is the hole");
        assert_eq!(s.pipe, 11);
        // Further SACKs drain the pipe; new data waits until pipe < cwnd.
        out.clear();
        for t in 4..9 {
            s.on_ack(100, &ack(0, t, 1, t + 1, 0), &mut cc, &mut out);
        }
        assert!(out.is_empty());
        assert_eq!(cc.cwnd(0), 6.0, "no growth in recovery");
        s.on_ack(100, &ack(0, 9, 1, 10, 0), &mut cc, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(s.stats.retransmissions, 1);
        // The cumulative ACK for everything ends recovery.
        let n = s.nxt;
        out.clear();
        s.on_ack(200, &ack(n, 0, 0, 0, 0), &mut cc, &mut out);
        assert!(!s.in_recovery);
        assert_eq!(s.pipe, out.len() as u64);
    }

    #[test]
    fn timeout_resends_from_una_and_backs_off() {
        let (mut s, mut cc, mut out) = setup();
        out.clear();
        let first = s.rto_deadline.unwrap();
        s.on_timeout(first, &mut cc, &mut out);
        assert_eq!(s.stats.timeouts, 1);
        assert_eq!(cc.cwnd(0), 1.0);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].seq, 0);
        assert_eq!(s.rto_deadline.unwrap() - first, 2 * first);
    }
}
