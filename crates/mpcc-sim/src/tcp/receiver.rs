//! The TCP receiver: cumulative and SACK acknowledgements, a reordering buffer
//! bounded by the receive buffer, optional delayed ACKs (RFC 1122/5681: every
//! second full segment or after a timeout; out-of-order and hole-filling segments
//! are acknowledged at once). An ACK carries up to `tcp.sack_blocks` SACK blocks
//! in RFC 2018's order and, with `tcp.dsack`, reports a duplicate first (RFC 2883).
//!
//! Inside an MPTCP connection it is a subflow receiver: only data in order at the
//! subflow level moves up to the connection (as in Linux, where out-of-order data
//! waits in the subflow's queue), so it remembers the data sequence number of
//! every segment it holds and reports the DSNs each arrival releases
//! (`delivered_dsns`).

use crate::config::TcpConfig;
use crate::packet::Packet;
use mpcc_core::Nanos;
use std::collections::VecDeque;

/// A slot of the DSN ring with no segment held.
const NO_DSN: u64 = u64::MAX;
/// No intentional hold of the cumulative ACK.
const NO_HOLD: u64 = u64::MAX;
/// Blocks the receiver remembers for repetition (Linux's TCP_NUM_SACKS): one
/// more than an ACK carries, so a block consumed by the cumulative ACK leaves
/// another to report.
const RECENT: usize = 4;
/// Immediate ACKs of a quick-ACK episode (Linux's TCP_MAX_QUICKACKS): at the start
/// of the connection and after out-of-order data.
const MAX_QUICKACKS: u32 = 16;
/// Linux's SACK compression (`sack_compress`): arrivals past one cumulative ACK
/// answered at once before compressing (TCP_FASTRETRANS_THRESH), the most arrivals
/// one ACK answers (tcp_comp_sack_nr), the longest wait (tcp_comp_sack_delay_ns) and
/// the timer's slack (tcp_comp_sack_slack_ns; the timer fires at its end on an idle
/// host: 1.12 ms after the arrival on Linux 6.18, docs/tcp-recovery.md).
const COMP_SACK_IMMEDIATE: u32 = 3;
const COMP_SACK_NR: u32 = 44;
const COMP_SACK_DELAY: Nanos = 1_000_000;
const COMP_SACK_SLACK: Nanos = 100_000;

/// What the receiver wants done after a data segment.
#[derive(Clone, Copy, Debug)]
pub enum AckAction {
    /// Send the ACK now: the one the receiver built (`Receiver::built`).
    Now,
    /// Hold the ACK; arm the delayed-ACK timer if it is not running.
    Delay,
    /// No ACK: the receiver controller turned the subflow off.
    Withhold,
}

pub struct Receiver {
    /// The ACK last built (`AckAction::Now`, the delayed-ACK timer), written here
    /// field by field and copied out when it is sent, not moved through return
    /// values right after those narrow stores: a wide load of a packet still in
    /// the store buffer stalls (docs/performance.md).
    pub built: Packet,
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
    /// When the delayed-ACK timer fires (`poll_at`), if it is armed.
    delack_at: Option<Nanos>,
    delack_timeout: Nanos,
    /// Every ACK sent cancels the delayed-ACK timer (`tcp.delack_cancel`).
    delack_cancel: bool,
    /// The time of the DelAck event the simulator keeps pending for `poll_at` (its bookkeeping).
    pub delack_event_at: Option<Nanos>,
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
    /// SACK blocks per ACK (`tcp.sack_blocks`) and DSACK (`tcp.dsack`).
    sack_blocks: u8,
    dsack: bool,
    /// Out-of-order blocks most recently reported, the latest first (RFC 2018
    /// section 4; Linux's selective_acks); only kept with more than one block per ACK.
    recent: [(u64, u64); RECENT],
    n_recent: u8,
    /// SACK compression (`sack_compress`): its state, apart so that a receiver
    /// without it carries one flag.
    compress: Option<Box<Compression>>,
    /// `push_ack`: a pushed segment (the end of a write) is acknowledged at once.
    push_ack: bool,
    /// `built` is a plain ACK of this receiver (its flow, subflow and size, no SACK
    /// block): the next plain one rewrites only the fields that change.
    built_plain: bool,
}

/// Linux's SACK compression (`__tcp_ack_snd_check`, `tcp_compressed_ack_kick`).
#[derive(Debug, Default)]
struct Compression {
    /// Arrivals answered at once since the cumulative ACK was `at_nxt`
    /// (dup_ack_counter, compressed_ack_rcv_nxt).
    immediate: u32,
    at_nxt: u64,
    /// Arrivals left unanswered (compressed_ack), and when the ACK for them goes.
    waiting: u32,
    due: Option<Nanos>,
    /// The latest arrival left unanswered: the ACK at `due` answers it.
    last: Option<(Nanos, Nanos, u64, First)>,
    /// The receiver's RTT estimate (tcp_rcv_rtt_measure_ts: a new minimum at once,
    /// else 7/8 old + 1/8 new), from the timestamp each segment echoes, and the
    /// last echo used.
    rtt: Nanos,
    last_echo: Nanos,
}

impl Compression {
    /// A data segment echoing `echo` (the receiver's own earlier timestamp) arrived at `now`.
    fn measure(&mut self, now: Nanos, echo: Nanos) {
        if echo == 0 || echo == self.last_echo || echo > now {
            return;
        }
        self.last_echo = echo;
        let sample = now - echo;
        self.rtt = if self.rtt == 0 || sample < self.rtt { sample } else { self.rtt - self.rtt / 8 + sample / 8 };
    }

    /// An out-of-order arrival at `now` with the cumulative ACK at `rcv_nxt`: false
    /// to answer it at once, true to leave it to the compressed ACK.
    fn defer(&mut self, now: Nanos, rcv_nxt: u64) -> bool {
        if self.waiting >= COMP_SACK_NR {
            return false;
        }
        if self.at_nxt != rcv_nxt {
            self.at_nxt = rcv_nxt;
            self.immediate = 0;
        }
        if self.immediate < COMP_SACK_IMMEDIATE {
            self.immediate += 1;
            return false;
        }
        self.waiting += 1;
        if self.due.is_none() {
            self.due = Some(now + COMP_SACK_DELAY.min(self.rtt / 20) + COMP_SACK_SLACK);
        }
        true
    }

    /// An ACK went out: nothing is left waiting (tcp_event_ack_sent).
    fn sent(&mut self) {
        self.waiting = 0;
        self.due = None;
        self.last = None;
    }
}

/// What the first SACK block of an ACK reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum First {
    /// Nothing (in-order data, or a segment outside the window).
    None,
    /// The block of out-of-order data holding the triggering segment.
    Block(u64, u64),
    /// A duplicate segment (RFC 2883), inside the held block `within` when it
    /// lies above the cumulative ACK.
    Dup(u64, Option<(u64, u64)>),
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
            built: Packet::ack(flow, 0, 0, 0, 0, 0, 0, 0),
            flow,
            sub: 0,
            rcv_nxt: 0,
            ooo: Vec::with_capacity(16),
            ooo_segs: 0,
            buf_segs,
            delayed_ack: tcp.mechanisms().delayed_ack,
            quickack: tcp.mechanisms().quickack,
            quick: match (tcp.mechanisms().quickack, tcp.mechanisms().first_data_ack) {
                (true, _) => MAX_QUICKACKS,
                (false, true) => 1,
                (false, false) => 0,
            },
            pending: 0,
            pending_ts: 0,
            pending_owd: 0,
            pending_trig: 0,
            delack_at: None,
            delack_timeout: tcp.mechanisms().delack_timeout_ns,
            delack_cancel: tcp.mechanisms().delack_cancel,
            delack_event_at: None,
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
            sack_blocks: tcp.mechanisms().sack_blocks.clamp(1, crate::packet::MAX_SACK_BLOCKS as u8),
            dsack: tcp.mechanisms().dsack,
            recent: [(0, 0); RECENT],
            n_recent: 0,
            compress: tcp.mechanisms().sack_compress.then(Box::default),
            push_ack: tcp.mechanisms().push_ack,
            built_plain: false,
        }
    }

    /// The DSN runs the last `on_data` released in order, ascending.
    pub fn delivered_dsns(&self) -> &[(u64, u64)] {
        &self.released
    }

    /// The ACK to send: cumulative, then the SACK blocks (`ack_blocks`). The
    /// usual ACK (no hold, nothing remembered: one block at most) is built inline.
    #[inline(always)]
    fn ack(&mut self, ts: Nanos, owd: Nanos, trig: u64, first: First) {
        self.ack_sent();
        if self.hold == NO_HOLD && self.n_recent == 0 {
            match first {
                First::None if self.built_plain => {
                    self.built.reuse_ack(self.rcv_nxt, ts, owd, trig);
                    return;
                }
                First::None => {
                    self.built = self.plain_ack(ts, owd, trig);
                    self.built_plain = true;
                    return;
                }
                First::Block(lo, hi) => {
                    self.built = self.plain_ack(ts, owd, trig);
                    self.built.push_sack(lo, hi);
                    self.built_plain = false;
                    return;
                }
                First::Dup(..) => {}
            }
        }
        self.ack_blocks(ts, owd, trig, first)
    }

    #[inline(never)]
    fn ack_blocks(&mut self, ts: Nanos, owd: Nanos, trig: u64, first: First) {
        self.built_plain = false;
        let held = self.hold < self.rcv_nxt;
        let seq = if held { self.hold } else { self.rcv_nxt };
        self.built = Packet::ack(self.flow, self.sub, self.header, seq, ts, owd, trig, self.buf_segs);
        let mut skip = (0, 0);
        // Intentional duplicate ACKs: the held segment stays unacknowledged and
        // what arrived above it is SACKed, so the sender sees it as lost.
        let hold_block = held && self.hold + 1 < self.rcv_nxt;
        match first {
            First::None => {
                if hold_block {
                    self.built.push_sack(self.hold + 1, self.rcv_nxt);
                }
            }
            First::Block(lo, hi) => {
                self.built.push_sack(lo, hi);
                skip = (lo, hi);
            }
            First::Dup(d, within) => {
                // RFC 2883 section 4: the duplicate first, then the block holding it.
                self.built.push_sack(d, d + 1);
                if let Some((lo, hi)) = within {
                    if self.sack_blocks > 1 {
                        self.built.push_sack(lo, hi);
                        skip = (lo, hi);
                    }
                }
            }
        }
        if self.sack_blocks > 1 && hold_block && first != First::None {
            self.built.push_sack(self.hold + 1, self.rcv_nxt);
        }
        if self.sack_blocks > 1 {
            // RFC 2018 section 4: then the most recently reported other blocks.
            for &(lo, hi) in &self.recent[..self.n_recent as usize] {
                if self.built.sack_count() >= self.sack_blocks as usize {
                    break;
                }
                if (lo, hi) != skip && lo >= seq {
                    self.built.push_sack(lo, hi);
                }
            }
        }
    }

    /// Remembers `block` as the latest reported, dropping the blocks it absorbed.
    #[inline]
    fn note_recent(&mut self, block: (u64, u64)) {
        let mut kept = [(0, 0); RECENT];
        kept[0] = block;
        let mut n = 1;
        for &r in &self.recent[..self.n_recent as usize] {
            if n < RECENT && (r.1 < block.0 || r.0 > block.1) {
                kept[n] = r;
                n += 1;
            }
        }
        self.recent = kept;
        self.n_recent = n as u8;
    }

    /// Drops the remembered blocks the cumulative ACK has passed.
    #[inline]
    fn forget_below(&mut self, nxt: u64) {
        let mut n = 0;
        for i in 0..self.n_recent as usize {
            if self.recent[i].0 >= nxt {
                self.recent[n] = self.recent[i];
                n += 1;
            }
        }
        self.n_recent = n as u8;
    }

    #[inline(always)]
    fn plain_ack(&self, ts: Nanos, owd: Nanos, trig: u64) -> Packet {
        Packet::ack(self.flow, self.sub, self.header, self.rcv_nxt, ts, owd, trig, self.buf_segs)
    }

    /// A data segment arrives at `now`. Returns the acknowledgement decision and the
    /// number of segments newly delivered in order to the application; their DSN
    /// runs are kept for `delivered_dsns`.
    pub fn on_data(&mut self, now: Nanos, pkt: &Packet, payload: u32) -> (AckAction, u64) {
        let mut runs = std::mem::take(&mut self.released);
        runs.clear();
        let done = self.on_data_to(now, pkt, payload, || false, &mut |lo, hi| runs.push((lo, hi)));
        self.released = runs;
        done
    }

    /// What `on_data_to`'s decision becomes: none while off; a compressed SACK waits
    /// for its timer; the delayed-ACK timer armed or cancelled. At each of
    /// `on_data_to`'s returns, where the decision is a constant.
    #[inline(always)]
    fn decided(&mut self, now: Nanos, action: AckAction, delivered: u64) -> (AckAction, u64) {
        if self.off {
            self.pending = 0;
            self.withheld += 1;
            return (AckAction::Withhold, delivered);
        }
        if matches!(action, AckAction::Delay) && self.compress.as_ref().is_some_and(|c| c.last.is_some()) {
            return (action, delivered); // a compressed SACK: waits for its timer (`poll_at`)
        }
        match action {
            AckAction::Delay if self.delack_at.is_none() => {
                self.delack_at = Some(now + self.delack_timeout); // armed once, until it fires or an ACK cancels it
            }
            // `delack_cancel` (ns-3's SendEmptyPacket): every ACK sent cancels the
            // timer and the count of held segments; the next held segment starts both anew.
            AckAction::Now if self.delack_cancel => {
                self.delack_at = None;
                self.pending = 0;
            }
            _ => {}
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
        self.ack_sent();
        let ts = self.last_ts.min(now);
        self.plain_ack(ts, now - ts, self.rcv_nxt.saturating_sub(1))
    }

    /// An ACK goes out: whatever a compressed SACK was waiting for is answered
    /// (Linux's tcp_event_ack_sent, for every ACK, the delayed ACK's included).
    #[inline(always)]
    fn ack_sent(&mut self) {
        if let Some(c) = &mut self.compress {
            c.sent();
        }
    }

    /// `on_data`, the DSN runs [lo, hi) released in order handed to `deliver`,
    /// ascending, instead of kept. `pushed`: whether the segment ends an
    /// application's write (it carries PSH; `push_ack`), asked only where a delayed
    /// ACK could wait.
    #[inline]
    pub fn on_data_to(
        &mut self, now: Nanos, pkt: &Packet, payload: u32, pushed: impl FnOnce() -> bool,
        deliver: &mut impl FnMut(u64, u64),
    ) -> (AckAction, u64) {
        let s = pkt.seq;
        // The two counts apart, a test between them: side by side they became
        // vector operations, six instructions for two additions.
        self.received_packets += 1;
        if let Some(c) = &mut self.compress {
            c.measure(now, pkt.owd);
        }
        self.received_bytes += payload as u64;
        let filled_hole = s + 1 < self.high;
        self.high = self.high.max(s + 1);
        self.last_ts = pkt.ts;
        // The held segment's retransmission was asked for: no DSACK for it.
        let mut dsack = self.dsack;
        if s == self.hold && (s < self.rcv_nxt || filled_hole) {
            self.hold = NO_HOLD; // its retransmission: acknowledge everything again
            dsack = false;
        }
        let owd = now - pkt.ts;
        if s < self.rcv_nxt {
            // A duplicate: acknowledge at once (the sender may have timed out), and
            // the next ones too (Linux's tcp_data_queue enters quick-ACK mode on old data).
            if self.quickack {
                self.quick = MAX_QUICKACKS;
            }
            let first = if dsack { First::Dup(s, None) } else { First::None };
            self.ack(pkt.ts, owd, s, first);
            return self.decided(now, AckAction::Now, 0);
        }
        if s > self.rcv_nxt {
            if s >= self.rcv_nxt + self.buf_segs {
                // Beyond the advertised window: discarded, acknowledged (quick-ACK mode
                // again in Linux, tcp_data_queue's out_of_window).
                if self.quickack {
                    self.quick = MAX_QUICKACKS;
                }
                self.ack(pkt.ts, owd, s, First::None);
                return self.decided(now, AckAction::Now, 0);
            }
            let (block, new) = self.insert(s);
            let first = if !new && dsack {
                First::Dup(s, Some(block))
            } else {
                if new && self.sack_blocks > 1 {
                    self.note_recent(block);
                }
                First::Block(block.0, block.1)
            };
            let i = (s - self.rcv_nxt) as usize;
            if self.dsn_ring.len() <= i {
                self.dsn_ring.resize(i + 1, NO_DSN);
            }
            self.dsn_ring[i] = pkt.dsn;
            self.ooo_peak = self.ooo_peak.max(self.ooo_segs);
            // Out-of-order data does not start quick-ACK mode in Linux (since 4.18), but
            // every ACK it triggers counts against a quick-ACK episode under way
            // (tcp_dec_quickack_mode), and outside one, SACKs may be compressed.
            let rcv_nxt = self.rcv_nxt;
            if self.quickack && self.quick > 0 {
                self.quick -= 1;
            } else if let Some(c) = &mut self.compress {
                if c.defer(now, rcv_nxt) {
                    c.last = Some((pkt.ts, owd, s, first));
                    return self.decided(now, AckAction::Delay, 0);
                }
            }
            self.ack(pkt.ts, owd, s, first);
            return self.decided(now, AckAction::Now, 0);
        }
        // In order.
        let before = self.rcv_nxt;
        self.rcv_nxt += 1;
        if self.ooo.is_empty() {
            // Nothing held above it, so no DSN slot either (the ring holds the held
            // segments'): the segment goes up alone.
            debug_assert!(self.dsn_ring.is_empty(), "DSN slots with nothing held");
            if self.n_recent > 0 {
                self.forget_below(self.rcv_nxt);
            }
            let done = self.in_order_ack(now, pkt, owd, false, 1, pushed);
            // Up after this receiver's work, so that no store of the connection's
            // comes between its reads of the same fields.
            deliver(pkt.dsn, pkt.dsn + 1);
            return done;
        }
        if self.ooo[0].0 == self.rcv_nxt {
            let (lo, hi) = self.ooo.remove(0);
            self.ooo_segs -= hi - lo;
            self.rcv_nxt = hi;
        }
        let delivered = self.rcv_nxt - before;
        if self.n_recent > 0 {
            self.forget_below(self.rcv_nxt);
        }
        // The DSNs released, as runs of consecutive ones.
        let mut run = (pkt.dsn, pkt.dsn + 1);
        self.dsn_ring.pop_front(); // the slot of segment `before` itself
        for _ in 1..delivered {
            let d = self.dsn_ring.pop_front().expect("held segments have a DSN slot");
            debug_assert_ne!(d, NO_DSN);
            if d == run.1 {
                run.1 += 1;
            } else {
                deliver(run.0, run.1);
                run = (d, d + 1);
            }
        }
        if self.ooo.is_empty() {
            self.dsn_ring.clear();
        }
        deliver(run.0, run.1);
        self.in_order_ack(now, pkt, owd, true, delivered, pushed)
    }

    /// The ACK decision on in-order segment `pkt`, which released `delivered`
    /// segments; `had_ooo`: data was held above it (then it is answered at once).
    #[inline(always)]
    fn in_order_ack(
        &mut self, now: Nanos, pkt: &Packet, owd: Nanos, had_ooo: bool, delivered: u64, pushed: impl FnOnce() -> bool,
    ) -> (AckAction, u64) {
        let s = pkt.seq;
        if had_ooo || !self.delayed_ack || self.quick > 0 {
            self.quick = self.quick.saturating_sub(1);
            self.pending = 0;
            self.ack(pkt.ts, owd, s, First::None);
            return self.decided(now, AckAction::Now, delivered);
        }
        if self.pending == 0 {
            self.pending_ts = pkt.ts;
            self.pending_owd = owd;
            self.pending_trig = s;
        }
        self.pending += 1;
        // Linux acknowledges a pushed segment once the application's read has emptied
        // the receive queue (tcp_cleanup_rbuf on ICSK_ACK_PUSHED). The application reads
        // at once here; with data held out of order this arrival was answered above.
        if self.pending >= 2 || (self.push_ack && pushed()) {
            self.pending = 0;
            self.ack(self.pending_ts, self.pending_owd, self.pending_trig, First::None);
            return self.decided(now, AckAction::Now, delivered);
        }
        self.decided(now, AckAction::Delay, delivered)
    }

    /// When the receiver wants to be woken: its delayed-ACK timer or the compressed
    /// SACK's, whichever is first (None: neither armed).
    #[inline]
    pub fn poll_at(&self) -> Option<Nanos> {
        match self.compress.as_ref().and_then(|c| c.due) {
            Some(t) => Some(self.delack_at.map_or(t, |d| d.min(t))),
            None => self.delack_at,
        }
    }

    /// A DelAck event at `now`: the compressed SACK if it is due (its timer,
    /// tcp_compressed_ack_kick), else the delayed ACK; with `delack_cancel` an event
    /// for a timer an ACK has cancelled (or that was armed anew since) is stale and
    /// does nothing.
    pub fn on_delack_event(&mut self, now: Nanos) -> Option<Packet> {
        if let Some(c) = self.compress.as_mut().filter(|c| c.due == Some(now)) {
            let last = c.last.take();
            c.sent();
            // `ack` below ends the wait again; so does any other ACK, the delayed one's included.
            let (ts, owd, trig, first) = last.filter(|_| !self.off)?;
            let first = match first {
                First::Block(..) => self.held_block(trig).map_or(First::None, |(lo, hi)| First::Block(lo, hi)),
                First::Dup(d, _) => First::Dup(d, self.held_block(d)),
                First::None => First::None,
            };
            self.pending = 0;
            if self.delack_cancel {
                self.delack_at = None;
            }
            self.ack(ts, owd, trig, first);
            return Some(self.built);
        }
        if self.delack_cancel && self.delack_at != Some(now) {
            return None;
        }
        self.on_delack_timer()
    }

    /// Whether this receiver compresses SACKs (`sack_compress`): two timers, not one.
    #[inline]
    pub fn compresses(&self) -> bool {
        self.compress.is_some()
    }

    /// The block of out-of-order data holding segment `s`, if it is held.
    fn held_block(&self, s: u64) -> Option<(u64, u64)> {
        self.ooo.iter().copied().find(|&(lo, hi)| lo <= s && s < hi)
    }

    /// The delayed-ACK timer fired: the held ACK, if any.
    pub fn on_delack_timer(&mut self) -> Option<Packet> {
        self.delack_at = None;
        if self.pending == 0 || self.off {
            return None;
        }
        self.pending = 0;
        self.ack(self.pending_ts, self.pending_owd, self.pending_trig, First::None);
        Some(self.built)
    }

    /// Adds out-of-order segment `s`; returns the SACK block that now contains
    /// it, and false if it was already held (a duplicate).
    fn insert(&mut self, s: u64) -> ((u64, u64), bool) {
        let i = self.ooo.partition_point(|r| r.0 <= s);
        if i > 0 && self.ooo[i - 1].1 > s {
            return (self.ooo[i - 1], false); // already held
        }
        self.ooo_segs += 1;
        let joins_prev = i > 0 && self.ooo[i - 1].1 == s;
        let joins_next = i < self.ooo.len() && self.ooo[i].0 == s + 1;
        let block = match (joins_prev, joins_next) {
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
        };
        (block, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(seq: u64) -> Packet {
        Packet::data(0, seq, 1500, 0)
    }

    fn acked(r: &Receiver, a: AckAction) -> Packet {
        match a {
            AckAction::Now => r.built,
            other => panic!("expected an ACK, got {other:?}"),
        }
    }

    /// The ACK `r` sends at once for `pkt`.
    fn ack_on(r: &mut Receiver, now: Nanos, pkt: &Packet, payload: u32) -> Packet {
        let a = r.on_data(now, pkt, payload).0;
        acked(r, a)
    }

    #[test]
    fn sack_blocks_and_hole_filling() {
        let mut r = Receiver::new(0, &TcpConfig::default());
        let (a, d) = r.on_data(1, &data(0), 1448);
        assert_eq!((acked(&r, a).seq, d), (1, 1));
        let a = ack_on(&mut r, 1, &data(2), 1448);
        assert_eq!((a.seq, a.sack_count(), a.sack_block(0)), (1, 1, (2, 3)));
        let a = ack_on(&mut r, 1, &data(4), 1448);
        assert_eq!((a.sack_count(), a.sack_block(0)), (1, (4, 5)));
        let a = ack_on(&mut r, 1, &data(3), 1448);
        assert_eq!((a.sack_count(), a.sack_block(0)), (1, (2, 5)), "blocks merge");
        assert_eq!(r.ooo_segs, 3);
        let (a, d) = r.on_data(1, &data(1), 1448);
        assert_eq!((acked(&r, a).seq, d), (5, 4), "hole filled: everything delivered");
        assert_eq!(r.ooo_segs, 0);
    }

    /// `delack_cancel` (ns-3): an ACK sent cancels the timer, so a segment held
    /// after it waits the whole timeout from its own arrival; the cancelled
    /// timer's event does nothing. Without it the first timer still fires early.
    #[test]
    fn an_ack_sent_cancels_the_delayed_ack_timer() {
        let ms = 1_000_000;
        for cancel in [false, true] {
            let tcp = TcpConfig {
                profile: crate::profile::Profile::Rfc,
                delayed_ack: Some(true),
                delack_timeout_ns: Some(200 * ms),
                delack_cancel: Some(cancel),
                ..Default::default()
            };
            let mut r = Receiver::new(0, &tcp);
            assert!(matches!(r.on_data(0, &data(0), 1448).0, AckAction::Delay));
            assert_eq!(r.poll_at(), Some(200 * ms));
            assert_eq!(ack_on(&mut r, 10 * ms, &data(1), 1448).seq, 2);
            assert!(matches!(r.on_data(150 * ms, &data(2), 1448).0, AckAction::Delay));
            if cancel {
                assert_eq!(r.poll_at(), Some(350 * ms), "armed anew by segment 2");
                assert!(r.on_delack_event(200 * ms).is_none(), "the cancelled timer's event");
                assert_eq!(r.on_delack_event(350 * ms).unwrap().seq, 3);
            } else {
                assert_eq!(r.poll_at(), Some(200 * ms), "still the first timer");
                assert_eq!(r.on_delack_event(200 * ms).unwrap().seq, 3);
            }
        }
    }

    #[test]
    fn delayed_acks_every_second_segment() {
        let tcp = TcpConfig { profile: crate::profile::Profile::Rfc, delayed_ack: Some(true), ..Default::default() };
        let mut r = Receiver::new(0, &tcp);
        assert!(matches!(r.on_data(1, &data(0), 1448).0, AckAction::Delay));
        let a = ack_on(&mut r, 2, &data(1), 1448);
        assert_eq!(a.seq, 2);
        assert!(matches!(r.on_data(3, &data(2), 1448).0, AckAction::Delay));
        assert_eq!(r.on_delack_timer().unwrap().seq, 3);
        assert!(r.on_delack_timer().is_none());
        // Out of order: immediate.
        assert!(matches!(r.on_data(4, &data(5), 1448).0, AckAction::Now));
    }

    /// `first_data_ack` (ns-3): the first segment is acknowledged at once, then every
    /// second, so the last of an initial window of ten waits; without it the pairs
    /// start at the first segment and the tenth completes one.
    #[test]
    fn the_first_data_segment_is_acknowledged_at_once() {
        for first in [false, true] {
            let tcp = TcpConfig {
                profile: crate::profile::Profile::Rfc,
                delayed_ack: Some(true),
                first_data_ack: Some(first),
                ..Default::default()
            };
            let mut r = Receiver::new(0, &tcp);
            let now: Vec<u64> = (0..10).filter(|&s| matches!(r.on_data(1, &data(s), 1448).0, AckAction::Now)).collect();
            if first {
                assert_eq!(now, [0, 2, 4, 6, 8], "segment 9 waits");
                assert_eq!(r.on_delack_timer().unwrap().seq, 10);
            } else {
                assert_eq!(now, [1, 3, 5, 7, 9]);
                assert!(r.on_delack_timer().is_none());
            }
        }
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
        let a = ack_on(&mut r, 1, &data(4), 1448);
        assert_eq!((a.sack_count(), a.rwnd()), (0, 4));
        assert_eq!(r.ooo_segs, 0);
        ack_on(&mut r, 1, &data(3), 1448);
        assert_eq!(r.ooo_segs, 1);
    }

    #[test]
    fn quick_acks_at_the_start_and_after_a_duplicate() {
        let tcp = TcpConfig { delayed_ack: Some(true), quickack: Some(true), ..Default::default() };
        let mut r = Receiver::new(0, &tcp);
        for seq in 0..16 {
            assert!(matches!(r.on_data(1, &data(seq), 1448).0, AckAction::Now), "quick ACK {seq}");
        }
        assert!(matches!(r.on_data(1, &data(16), 1448).0, AckAction::Delay));
        ack_on(&mut r, 1, &data(17), 1448);
        // Out of order and the hole filled: each at once, but no quick-ACK episode
        // (Linux since 4.18: "tcp: do not force quickack when receiving out-of-order packets").
        ack_on(&mut r, 1, &data(19), 1448);
        ack_on(&mut r, 1, &data(18), 1448);
        assert!(matches!(r.on_data(1, &data(20), 1448).0, AckAction::Delay));
        ack_on(&mut r, 1, &data(21), 1448);
        // Old data (the sender retransmitted what arrived): quick ACKs again.
        ack_on(&mut r, 1, &data(5), 1448);
        for seq in 22..38 {
            assert!(matches!(r.on_data(1, &data(seq), 1448).0, AckAction::Now), "quick ACK {seq}");
        }
        assert!(matches!(r.on_data(1, &data(38), 1448).0, AckAction::Delay));
    }

    /// `push_ack` (Linux's ICSK_ACK_PUSHED): an in-order segment that ends a write is
    /// acknowledged at once instead of waiting for a second segment or the timer; not
    /// without the switch.
    #[test]
    fn the_end_of_a_write_is_acknowledged_at_once() {
        let arrive =
            |r: &mut Receiver, seq: u64, pushed: bool| r.on_data_to(1, &data(seq), 1448, || pushed, &mut |_, _| {}).0;
        let tcp = TcpConfig { delayed_ack: Some(true), push_ack: Some(true), ..Default::default() };
        let mut r = Receiver::new(0, &tcp);
        assert!(matches!(arrive(&mut r, 0, false), AckAction::Delay), "a write's first segment waits");
        assert!(matches!(arrive(&mut r, 1, false), AckAction::Now), "the second: every two");
        assert!(matches!(arrive(&mut r, 2, true), AckAction::Now), "a one-segment write: at once");
        assert_eq!(r.built.seq, 3);
        assert!(matches!(arrive(&mut r, 3, false), AckAction::Delay));
        let a = arrive(&mut r, 4, true);
        assert_eq!(acked(&r, a).seq, 5, "the write's end answers the segment held before it too");
        // Without the switch a pushed segment is one more segment.
        let mut off =
            Receiver::new(0, &TcpConfig { delayed_ack: Some(true), push_ack: Some(false), ..Default::default() });
        assert!(matches!(arrive(&mut off, 0, true), AckAction::Delay));
        assert!(matches!(arrive(&mut off, 1, true), AckAction::Now));
        assert!(matches!(arrive(&mut off, 2, true), AckAction::Delay));
    }

    #[test]
    fn sacks_are_compressed_after_three_immediate_ones_per_cumulative_ack() {
        let tcp =
            TcpConfig { sack_compress: Some(true), sack_blocks: Some(3), dsack: Some(true), ..Default::default() };
        let mut r = Receiver::new(0, &tcp);
        // The receiver's RTT from the echoed timestamp: 40 ms, so the wait is 40 / 20 = 2 ms
        // capped at 1 ms, plus the timer's 100 us of slack.
        let seg = |seq: u64, echo: Nanos| {
            let mut p = data(seq);
            p.owd = echo;
            p
        };
        ack_on(&mut r, 50_000_000, &seg(0, 10_000_000), 1448);
        for (i, seq) in (2..5).enumerate() {
            let a = ack_on(&mut r, 51_000_000 + i as u64, &seg(seq, 10_000_000), 1448);
            assert_eq!((a.seq, blocks(&a)[0]), (1, (2, seq + 1)), "three at once");
        }
        assert_eq!(r.poll_at(), None);
        assert!(matches!(r.on_data(52_000_000, &seg(5, 10_000_000), 1448).0, AckAction::Delay));
        assert!(matches!(r.on_data(52_500_000, &seg(6, 10_000_000), 1448).0, AckAction::Delay));
        assert_eq!(r.poll_at(), Some(53_100_000), "armed by the first, not moved by the second");
        assert!(r.on_delack_event(53_000_000).is_none(), "not due yet");
        let a = r.on_delack_event(53_100_000).expect("the compressed SACK");
        assert_eq!((a.seq, blocks(&a)[0]), (1, (2, 7)), "one ACK for both, with the latest block");
        assert_eq!(r.poll_at(), None);
        // Past the same cumulative ACK the next arrival waits again at once; an ACK sent
        // for other reasons (the hole filled) cancels the wait.
        assert!(matches!(r.on_data(54_000_000, &seg(7, 10_000_000), 1448).0, AckAction::Delay));
        assert_eq!(r.poll_at(), Some(55_100_000));
        let a = ack_on(&mut r, 54_500_000, &seg(1, 10_000_000), 1448);
        assert_eq!(a.seq, 8);
        assert_eq!(r.poll_at(), None);
        assert!(r.on_delack_event(55_100_000).is_none(), "cancelled");
    }

    #[test]
    fn any_ack_ends_a_compressed_wait_the_delayed_ones_too() {
        // Without `delack_cancel` the delayed-ACK timer armed by segment 0 survives the
        // immediate SACKs; firing first (50 us against the compression's 100 us of
        // slack), its ACK answers what the compressed SACK waited for.
        let tcp = TcpConfig {
            sack_compress: Some(true),
            delayed_ack: Some(true),
            delack_cancel: Some(false),
            delack_timeout_ns: Some(50_000),
            ..Default::default()
        };
        let mut r = Receiver::new(0, &tcp);
        assert!(matches!(r.on_data(0, &data(0), 1448).0, AckAction::Delay));
        for seq in 2..5 {
            ack_on(&mut r, 1_000, &data(seq), 1448);
        }
        assert!(matches!(r.on_data(2_000, &data(5), 1448).0, AckAction::Delay));
        assert_eq!(r.poll_at(), Some(50_000), "the delayed ACK first");
        assert!(r.on_delack_event(50_000).is_some());
        assert_eq!(r.poll_at(), None, "nothing left waiting");
        assert!(r.on_delack_event(102_000).is_none());
    }

    #[test]
    fn at_most_44_arrivals_wait_for_one_compressed_sack() {
        let tcp = TcpConfig { sack_compress: Some(true), ..Default::default() };
        let mut r = Receiver::new(0, &tcp);
        ack_on(&mut r, 0, &data(0), 1448);
        let mut now = 0;
        let mut at_once = vec![];
        for seq in 2..100 {
            now += 1_000;
            if matches!(r.on_data(now, &data(seq), 1448).0, AckAction::Now) {
                at_once.push(seq);
            }
        }
        // Three at once, then 44 wait and the 45th goes at once; the cumulative ACK has
        // not moved, so the next 44 wait again.
        assert_eq!(at_once, vec![2, 3, 4, 49, 94]);
        // Without an RTT estimate the wait is the timer's slack alone (from segment 95's arrival).
        assert_eq!(r.poll_at(), Some(94_000 + 100_000));
    }

    fn blocks(a: &Packet) -> Vec<(u64, u64)> {
        (0..a.sack_count()).map(|i| a.sack_block(i)).collect()
    }

    fn linux_like(blocks: u8, dsack: bool) -> TcpConfig {
        TcpConfig { sack_blocks: Some(blocks), dsack: Some(dsack), ..Default::default() }
    }

    #[test]
    fn rfc2018_first_the_triggering_block_then_the_latest_others() {
        let mut r = Receiver::new(0, &linux_like(3, false));
        ack_on(&mut r, 1, &data(0), 1448);
        // Holes at 1, 3, 5, 7: blocks 2, 4, 6, 8 arrive in that order.
        assert_eq!(blocks(&ack_on(&mut r, 1, &data(2), 1448)), [(2, 3)]);
        assert_eq!(blocks(&ack_on(&mut r, 1, &data(4), 1448)), [(4, 5), (2, 3)]);
        assert_eq!(blocks(&ack_on(&mut r, 1, &data(6), 1448)), [(6, 7), (4, 5), (2, 3)]);
        assert_eq!(blocks(&ack_on(&mut r, 1, &data(8), 1448)), [(8, 9), (6, 7), (4, 5)], "three at most");
        // A segment extending an older block makes it first; the rest keep their order.
        assert_eq!(blocks(&ack_on(&mut r, 1, &data(3), 1448)), [(2, 5), (8, 9), (6, 7)], "2-4 merged");
        // Filling the first hole: the cumulative ACK passes [2, 5); the remaining
        // blocks are repeated, most recent first.
        let a = ack_on(&mut r, 1, &data(1), 1448);
        assert_eq!((a.seq, blocks(&a)), (5, vec![(8, 9), (6, 7)]));
        // An in-order arrival with no hole left: no block.
        ack_on(&mut r, 1, &data(5), 1448);
        ack_on(&mut r, 1, &data(7), 1448);
        let a = ack_on(&mut r, 1, &data(9), 1448);
        assert_eq!((a.seq, a.sack_count()), (10, 0));
    }

    #[test]
    fn one_block_per_ack_is_the_triggering_block_only() {
        let mut r = Receiver::new(0, &TcpConfig::default());
        ack_on(&mut r, 1, &data(0), 1448);
        ack_on(&mut r, 1, &data(2), 1448);
        assert_eq!(blocks(&ack_on(&mut r, 1, &data(4), 1448)), [(4, 5)]);
        let a = ack_on(&mut r, 1, &data(1), 1448);
        assert_eq!((a.seq, a.sack_count()), (3, 0), "in order: no block");
        // A duplicate: no DSACK with the rfc profile.
        assert_eq!(ack_on(&mut r, 1, &data(0), 1448).sack_count(), 0);
    }

    #[test]
    fn a_duplicate_is_reported_first_as_a_dsack() {
        let mut r = Receiver::new(0, &linux_like(3, true));
        for s in [0, 1, 3, 4, 6] {
            r.on_data(1, &data(s), 1448);
        }
        // Below the cumulative ACK (RFC 2883 section 4.1): the DSACK, then the SACK blocks.
        let a = ack_on(&mut r, 1, &data(1), 1448);
        assert_eq!((a.seq, blocks(&a)), (2, vec![(1, 2), (6, 7), (3, 5)]));
        assert!(a.first_is_dsack());
        assert_eq!(a.trig(), 1);
        // Above it, inside a SACKed block (section 4.2): the DSACK, the block holding it, then the others.
        let a = ack_on(&mut r, 1, &data(4), 1448);
        assert_eq!(blocks(&a), [(4, 5), (3, 5), (6, 7)]);
        assert!(a.first_is_dsack());
        // New data: an ordinary first block again.
        let a = ack_on(&mut r, 1, &data(8), 1448);
        assert_eq!(blocks(&a), [(8, 9), (6, 7), (3, 5)]);
        assert!(!a.first_is_dsack());
        // Without DSACK a duplicate adds nothing.
        let mut r = Receiver::new(0, &linux_like(3, false));
        r.on_data(1, &data(0), 1448);
        assert_eq!(ack_on(&mut r, 1, &data(0), 1448).sack_count(), 0);
    }

    #[test]
    fn ack_offsets_saturate_far_from_the_cumulative_ack() {
        let mut p = Packet::ack(0, 0, 52, 1 << 40, 0, 0, 3, 1 << 40);
        assert_eq!((p.trig() < p.seq, p.rwnd()), (true, u64::MAX), "a duplicate stays below; the window is unlimited");
        assert!(!p.push_sack(3, 4), "a DSACK out of reach is left out");
        assert!(p.push_sack((1 << 40) + 5, (1 << 40) + 9));
        assert_eq!((p.sack_count(), p.sack_block(0)), (1, ((1 << 40) + 5, (1 << 40) + 9)));
        p.set_rwnd(1000);
        assert_eq!(p.rwnd(), 1000);
    }

    #[test]
    fn a_held_ack_keeps_its_block_and_the_asked_for_retransmission_is_no_dsack() {
        let mut r = Receiver::new(0, &linux_like(3, true));
        r.on_data(1, &data(0), 1448);
        r.start_hold(); // the receiver controller holds the cumulative ACK at 1
        r.on_data(1, &data(1), 1448);
        let a = ack_on(&mut r, 1, &data(2), 1448);
        assert_eq!((a.seq, blocks(&a)), (1, vec![(2, 3)]));
        // A duplicate of 2: the DSACK, then the held block holding it.
        let a = ack_on(&mut r, 1, &data(2), 1448);
        assert_eq!((a.seq, blocks(&a)), (1, vec![(2, 3), (2, 3)]));
        assert!(a.first_is_dsack());
        // The retransmission of 1 the hold asked for: everything acknowledged, no DSACK.
        let a = ack_on(&mut r, 1, &data(1), 1448);
        assert_eq!((a.seq, a.sack_count()), (3, 0));
    }
}
