//! The data level of an MPTCP connection (RFC 8684 section 3.3): one sequence
//! space of data sequence numbers (DSNs, counted in segments) that the subflows
//! carry, its sending side (application supply, DATA_ACK, connection receive
//! window, reinjection queue) and its receiving side (the connection-level
//! reordering buffer). The subflows and the scheduler that glue them are in
//! `flow.rs`.

use crate::metrics::RttStats;
use mpcc_core::Nanos;
use std::collections::VecDeque;

/// The sending side of the data sequence space.
#[derive(Clone, Debug)]
pub struct DataSender {
    mss: u32,
    /// Next new DSN.
    pub nxt: u64,
    /// New DSNs below this may be sent (the application's supply; u64::MAX: bulk).
    pub app_limit: u64,
    /// Segments of a finite transfer (u64::MAX: bulk) and the last one's payload.
    total_segs: u64,
    last_seg_bytes: u32,
    /// Highest DATA_ACK received: every DSN below it reached the application.
    pub una: u64,
    /// Right edge of the connection receive window: DSNs below it may be sent.
    pub wnd_edge: u64,
    /// DSNs to resend on another subflow, with the subflow they are stuck on.
    pub reinject: VecDeque<(u64, u16)>,
    /// Per-DSN payloads of an application that writes at its own times
    /// (streams, Web; `app/`); None for bulk and file.
    pub sizes: Option<SegSizes>,
}

impl DataSender {
    /// Gives back spare capacity (`mem::trim_deque`).
    pub fn trim(&mut self) {
        crate::mem::trim_deque(&mut self.reinject, 8);
        if let Some(z) = &mut self.sizes {
            crate::mem::trim_deque(&mut z.sizes, 256);
        }
    }

    /// `window_segs`: the receive window before the first ACK (what the
    /// receiver's SYN would advertise).
    pub fn new(mss: u32, window_segs: u64) -> DataSender {
        DataSender {
            mss,
            nxt: 0,
            app_limit: 0,
            total_segs: u64::MAX,
            last_seg_bytes: mss,
            una: 0,
            wnd_edge: window_segs,
            reinject: VecDeque::new(),
            sizes: None,
        }
    }

    /// The application offers `total_bytes` in all (u64::MAX: unlimited).
    pub fn set_app_bytes(&mut self, total_bytes: u64) {
        if total_bytes == u64::MAX {
            self.app_limit = u64::MAX;
        } else {
            let mss = self.mss as u64;
            self.total_segs = total_bytes.div_ceil(mss);
            self.app_limit = self.total_segs;
            let rem = (total_bytes % mss) as u32;
            self.last_seg_bytes = if rem == 0 { self.mss } else { rem };
        }
    }

    /// The application stops offering new data.
    pub fn stop_app(&mut self) {
        self.app_limit = self.app_limit.min(self.nxt);
    }

    /// Payload bytes of DSN `dsn`.
    #[inline]
    pub fn seg_bytes(&self, dsn: u64) -> u32 {
        if let Some(s) = &self.sizes {
            return s.seg_bytes(dsn);
        }
        if dsn + 1 == self.total_segs {
            self.last_seg_bytes
        } else {
            self.mss
        }
    }

    /// Whether DSN `dsn` ends an application's write (it goes with PSH): a writing
    /// application's marks, or the last segment of a file (one write); a bulk or
    /// on-off sender's data is never pushed.
    #[inline]
    pub fn pushed(&self, dsn: u64) -> bool {
        match &self.sizes {
            Some(s) => s.pushed(dsn),
            None => self.total_segs != u64::MAX && dsn + 1 == self.total_segs,
        }
    }

    /// Payload bytes of the DSNs [lo, hi).
    #[inline]
    pub fn range_bytes(&self, lo: u64, hi: u64) -> u64 {
        if let Some(s) = &self.sizes {
            return s.range_bytes(lo, hi);
        }
        let mut b = (hi - lo) * self.mss as u64;
        if self.total_segs != u64::MAX && lo < self.total_segs && self.total_segs <= hi {
            b -= (self.mss - self.last_seg_bytes) as u64;
        }
        b
    }

    /// Bytes a writing application handed over that were never sent (None for
    /// bulk, file and on-off senders, whose supply is not a byte count).
    #[inline]
    pub fn unsent_written(&self) -> Option<u64> {
        let z = self.sizes.as_ref()?;
        Some(if self.nxt < z.end() { z.range_bytes(self.nxt, z.end()) } else { 0 })
    }

    /// A new DSN may be sent: supplied by the application and inside the window.
    #[inline]
    pub fn has_new(&self) -> bool {
        self.nxt < self.app_limit && self.nxt < self.wnd_edge
    }

    /// An ACK carried DATA_ACK `data_ack` and a window of `rwnd` segments beyond it.
    /// ACKs on different subflows arrive out of order: keep the highest of each
    /// (the right edge never moves left, RFC 8684 section 3.3.4).
    #[inline]
    pub fn on_data_ack(&mut self, data_ack: u64, rwnd: u64) {
        // Tests, not `max`: behind a hole another subflow leaves, DATA_ACK and the
        // window's edge stay put ACK after ACK, and an untaken branch stores nothing.
        if data_ack > self.una {
            self.una = data_ack;
        }
        let edge = data_ack.saturating_add(rwnd);
        if edge > self.wnd_edge {
            self.wnd_edge = edge;
        }
        if let Some(s) = &mut self.sizes {
            s.ack_to(self.una);
        }
    }

    /// Segments waiting to be sent now (what the scheduler calls the send
    /// queue): queued reinjections plus new DSNs supplied and inside the window.
    #[inline]
    pub fn queued(&self) -> u64 {
        self.queued_with(self.reinject.len())
    }

    /// `queued` with `reinjections` queued reinjections.
    #[inline]
    pub fn queued_with(&self, reinjections: usize) -> u64 {
        reinjections as u64 + self.app_limit.min(self.wnd_edge).saturating_sub(self.nxt)
    }

    /// The connection send window in segments (the peer's receive window).
    #[inline]
    pub fn window(&self) -> u64 {
        self.wnd_edge.saturating_sub(self.una)
    }

    /// The first queued reinjection not yet acknowledged at the data level.
    #[inline]
    pub fn next_reinjection(&mut self) -> Option<(u64, u16)> {
        while let Some(&(dsn, from)) = self.reinject.front() {
            if dsn >= self.una {
                return Some((dsn, from));
            }
            self.reinject.pop_front();
        }
        None
    }
}

/// Sorted disjoint ranges [lo, hi) of segment numbers: the out-of-order part of
/// a reordering buffer.
#[derive(Clone, Debug, Default)]
pub struct RangeSet {
    ranges: Vec<(u64, u64)>,
    /// Segments held.
    pub len: u64,
}

impl RangeSet {
    /// Gives back spare capacity (`mem::trim_deque`).
    pub fn trim(&mut self) {
        crate::mem::trim_vec(&mut self.ranges, 8);
    }

    /// Adds [lo, hi) (lo < hi); returns how many of its segments were not held before.
    #[inline]
    pub fn insert(&mut self, lo: u64, hi: u64) -> u64 {
        // At or past the right end, the usual case (a fast subflow's run arriving
        // beyond a slow subflow's holes): the general case below would find no range
        // after it and at most the last one touching it (ranges are disjoint and
        // never touch), so it extends the last range or adds one, all of it new.
        match self.ranges.last_mut() {
            Some(last) if lo == last.1 => last.1 = hi,
            Some(last) if lo < last.1 => return self.insert_within(lo, hi),
            _ => self.ranges.push((lo, hi)),
        }
        self.len += hi - lo;
        hi - lo
    }

    /// Adds [lo, hi) if it starts at the last range's end (then all of it is new);
    /// false, with nothing added, otherwise.
    #[inline(always)]
    pub fn extend_last(&mut self, lo: u64, hi: u64) -> bool {
        match self.ranges.last_mut() {
            Some(last) if lo == last.1 => {
                last.1 = hi;
                self.len += hi - lo;
                true
            }
            _ => false,
        }
    }

    /// `insert` of a range that starts below the last range's end.
    fn insert_within(&mut self, lo: u64, hi: u64) -> u64 {
        // Ranges that overlap or touch [lo, hi) are merged into one.
        let a = self.ranges.partition_point(|r| r.1 < lo);
        let b = self.ranges.partition_point(|r| r.0 <= hi);
        let (mut nlo, mut nhi, mut held) = (lo, hi, 0);
        for r in &self.ranges[a..b] {
            nlo = nlo.min(r.0);
            nhi = nhi.max(r.1);
            held += r.1.min(hi).saturating_sub(r.0.max(lo));
        }
        // Usually [lo, hi) is new (a == b) or extends one range (b == a + 1).
        match b - a {
            0 => self.ranges.insert(a, (nlo, nhi)),
            1 => self.ranges[a] = (nlo, nhi),
            _ => {
                self.ranges[a] = (nlo, nhi);
                self.ranges.drain(a + 1..b);
            }
        }
        let new = (hi - lo) - held;
        self.len += new;
        new
    }

    /// Removes and returns the first range if it starts at or below `at`.
    #[inline]
    pub fn pop_front_from(&mut self, at: u64) -> Option<(u64, u64)> {
        match self.ranges.first() {
            Some(&(lo, hi)) if lo <= at => {
                self.ranges.remove(0);
                self.len -= hi - lo;
                Some((lo, hi))
            }
            _ => None,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
}

/// The receiving side: the connection-level reordering buffer, bounded by the
/// receive buffer. The application reads at once, so the window's right edge is
/// always `nxt + buf_segs`.
#[derive(Clone, Debug)]
pub struct DataReceiver {
    /// Next DSN the application expects; everything below was delivered.
    pub nxt: u64,
    pub ooo: RangeSet,
    /// Receive buffer in segments.
    pub buf_segs: u64,
    /// Peak of `ooo.len`.
    pub ooo_peak: u64,
    /// Segments that arrived with a DSN already delivered or held (reinjected copies).
    pub dup_segs: u64,
    /// Segments discarded beyond the window (none while the sender obeys it).
    pub beyond_window: u64,
}

impl DataReceiver {
    pub fn new(buf_segs: u64) -> DataReceiver {
        DataReceiver { nxt: 0, ooo: RangeSet::default(), buf_segs, ooo_peak: 0, dup_segs: 0, beyond_window: 0 }
    }

    /// A subflow passed up the DSNs [lo, hi). Returns the new in-order point; the
    /// application receives [old nxt, new nxt).
    #[inline(always)]
    pub fn on_run(&mut self, lo: u64, hi: u64) -> u64 {
        let edge = self.nxt.saturating_add(self.buf_segs);
        if self.ooo.is_empty() {
            if lo == self.nxt && hi <= edge {
                self.nxt = hi; // the usual in-order case, nothing held
                return hi;
            }
        } else if hi <= edge && self.ooo.extend_last(lo, hi) {
            // A run that extends the last held range at its end, within the window:
            // the usual case while a slower subflow leaves a hole. Every range starts
            // above `nxt`, so the run does too and releases nothing (`on_run_general`
            // would do the same).
            debug_assert!(self.ooo.ranges.first().is_some_and(|r| r.0 > self.nxt), "a held range at nxt");
            // A test, not `max`: past its peak the buffer's length stores nothing.
            if self.ooo.len > self.ooo_peak {
                self.ooo_peak = self.ooo.len;
            }
            return self.nxt;
        }
        self.on_run_general(lo, hi)
    }

    /// `on_run` in every case: duplicates, runs beyond the window, holes filled.
    #[inline(never)]
    fn on_run_general(&mut self, lo: u64, hi: u64) -> u64 {
        let edge = self.nxt.saturating_add(self.buf_segs);
        let (clo, chi) = (lo.max(self.nxt), hi.min(edge));
        self.dup_segs += clo.min(hi) - lo;
        self.beyond_window += hi - chi.max(lo);
        if clo >= chi {
            return self.nxt;
        }
        if clo == self.nxt && self.ooo.is_empty() {
            self.nxt = chi; // the usual in-order case, nothing held
            return self.nxt;
        }
        let new = self.ooo.insert(clo, chi);
        self.dup_segs += (chi - clo) - new;
        while let Some((_, h)) = self.ooo.pop_front_from(self.nxt) {
            self.nxt = self.nxt.max(h);
        }
        self.ooo_peak = self.ooo_peak.max(self.ooo.len);
        self.nxt
    }

    /// The window to advertise, in segments beyond `nxt`.
    #[inline]
    pub fn window(&self) -> u64 {
        self.buf_segs
    }
}

/// When each DSN was handed to the connection, kept until it is delivered in
/// order, so application-level delay is measured per segment (all bytes of a
/// segment share its times).
#[derive(Clone, Debug, Default)]
pub struct AppTiming {
    /// Hand-over times of DSNs `base..base + times.len()`.
    times: VecDeque<Nanos>,
    base: u64,
    /// The application stamps hand-over times when it writes (`app/`), so the
    /// stamp at first transmission is skipped.
    pub external: bool,
}

impl AppTiming {
    /// Gives back spare capacity (`mem::trim_deque`).
    pub fn trim(&mut self) {
        crate::mem::trim_deque(&mut self.times, 16);
    }

    /// DSN `dsn` (the next new one) was handed over at `t`.
    #[inline]
    pub fn handed(&mut self, dsn: u64, t: Nanos) {
        if self.external {
            return;
        }
        self.stamp(dsn, t);
    }

    /// Records DSN `dsn`'s hand-over time `t` (whoever calls it).
    #[inline]
    pub fn stamp(&mut self, dsn: u64, t: Nanos) {
        debug_assert_eq!(dsn, self.base + self.times.len() as u64);
        self.times.push_back(t);
    }

    /// DSNs up to `upto` were delivered in order at `now`: each one's delay since
    /// its hand-over into `stats`, in DSN order. A run of them (a hole filled,
    /// releasing what waited behind it) goes to `RttStats::add_since` as the deque's
    /// slices and leaves with one `drain`: one pop per DSN cost more than its sample.
    #[inline]
    pub fn delivered(&mut self, upto: u64, now: Nanos, stats: &mut RttStats) {
        let k = upto.saturating_sub(self.base) as usize;
        if k == 1 {
            let t = self.times.pop_front().expect("a delivered DSN was handed over");
            self.base += 1;
            stats.add(now - t);
        } else if k > 1 {
            self.delivered_run(k, now, stats);
        }
    }

    #[inline(never)]
    fn delivered_run(&mut self, k: usize, now: Nanos, stats: &mut RttStats) {
        assert!(k <= self.times.len(), "a delivered DSN was handed over");
        let (a, b) = self.times.as_slices();
        let ka = k.min(a.len());
        stats.add_since(now, &a[..ka]);
        stats.add_since(now, &b[..k - ka]);
        self.times.drain(..k);
        self.base += k as u64;
    }
}

/// The mark of a DSN in which a write ended (`SegSizes::pushed`); payloads are at
/// most an MSS, far below it.
const PUSH: u32 = 1 << 31;

/// Payload of each DSN from the oldest not DATA_ACKed on, for applications that
/// write at their own times. A write first tops up the last DSN if it is not yet
/// sent, then opens new DSNs of at most one MSS: segments go out as soon as the
/// window allows, with what has been written (no Nagle, as streaming and Web
/// servers set TCP_NODELAY).
#[derive(Clone, Debug)]
pub struct SegSizes {
    mss: u32,
    /// Payloads of DSNs `base..base + sizes.len()`, with `PUSH` set on a DSN in
    /// which a write ended.
    sizes: VecDeque<u32>,
    base: u64,
    /// Bytes written so far.
    pub written: u64,
    /// Bytes of the DSNs below `base` (DATA_ACKed).
    pub acked: u64,
}

impl SegSizes {
    pub fn new(mss: u32) -> SegSizes {
        SegSizes { mss, sizes: VecDeque::with_capacity(256), base: 0, written: 0, acked: 0 }
    }

    #[inline]
    pub fn seg_bytes(&self, dsn: u64) -> u32 {
        self.sizes[(dsn - self.base) as usize] & !PUSH
    }

    /// Whether a write ended in DSN `dsn` (false once it is DATA_ACKed): Linux's
    /// `tcp_push` marks the tail of the send queue with PSH at the end of each
    /// write, and data a later write adds to that unsent segment keeps the mark.
    #[inline]
    pub fn pushed(&self, dsn: u64) -> bool {
        dsn >= self.base && self.sizes.get((dsn - self.base) as usize).is_some_and(|&b| b & PUSH != 0)
    }

    #[inline]
    pub fn range_bytes(&self, lo: u64, hi: u64) -> u64 {
        self.sizes.range((lo - self.base) as usize..(hi - self.base) as usize).map(|&b| (b & !PUSH) as u64).sum()
    }

    /// DSNs below `una` are acknowledged: their bytes leave the send buffer.
    #[inline]
    pub fn ack_to(&mut self, una: u64) {
        while self.base < una {
            let Some(b) = self.sizes.pop_front() else { break };
            self.acked += (b & !PUSH) as u64;
            self.base += 1;
        }
    }

    /// One past the last DSN written.
    pub fn end(&self) -> u64 {
        self.base + self.sizes.len() as u64
    }

    /// Bytes in the send buffer: written and not yet DATA_ACKed.
    pub fn in_buffer(&self) -> u64 {
        self.written - self.acked
    }

    /// Appends one write of `bytes` (`nxt`: the next DSN to send); `new_dsn` gets
    /// each DSN opened. The DSN the write ends in is marked pushed.
    pub(crate) fn append(&mut self, mut bytes: u64, nxt: u64, mut new_dsn: impl FnMut(u64)) {
        self.written += bytes;
        let unsent = self.end() > nxt;
        if let Some(last) = self.sizes.back_mut() {
            let len = *last & !PUSH;
            if unsent && len < self.mss {
                let add = bytes.min((self.mss - len) as u64);
                *last += add as u32;
                bytes -= add;
            }
        }
        while bytes > 0 {
            let b = bytes.min(self.mss as u64);
            new_dsn(self.end());
            self.sizes.push_back(b as u32);
            bytes -= b;
        }
        if let Some(last) = self.sizes.back_mut() {
            *last |= PUSH;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run of DSNs delivered at once (the deque's slices, wrapped or not) leaves
    /// the application-delay statistics as delivering them one at a time does.
    #[test]
    fn a_run_delivered_at_once_counts_as_one_by_one() {
        let (mut run, mut single) = (AppTiming::default(), AppTiming::default());
        let (mut run_stats, mut single_stats) = (RttStats::new(false), RttStats::new(false));
        let (mut dsn, mut upto, mut t) = (0u64, 0u64, 1_000_000u64);
        for round in 0..400u64 {
            // Hand over a few, then deliver a run of varying length (the deque wraps).
            for _ in 0..(round * 7 % 23) {
                t += 11_000 + round % 5 * 3_000;
                run.handed(dsn, t);
                single.handed(dsn, t);
                dsn += 1;
            }
            upto = (upto + round * 5 % 19).min(dsn);
            let now = t + 40_000_000 + round * 7_919;
            run.delivered(upto, now, &mut run_stats);
            for d in single.base + 1..=upto {
                single.delivered(d, now, &mut single_stats);
            }
        }
        assert_eq!(format!("{run_stats:?}"), format!("{single_stats:?}"));
        assert_eq!(run.base, single.base);
    }

    #[test]
    fn range_set_merges_and_counts_new_segments() {
        let mut r = RangeSet::default();
        assert_eq!(r.insert(5, 7), 2);
        assert_eq!(r.insert(10, 12), 2);
        assert_eq!(r.insert(6, 11), 3, "7, 8, 9 are new");
        assert_eq!(r.ranges, vec![(5, 12)]);
        assert_eq!(r.insert(12, 13), 1, "touching ranges merge");
        assert_eq!(r.insert(1, 2), 1);
        assert_eq!((r.ranges.clone(), r.len), (vec![(1, 2), (5, 13)], 9));
        assert_eq!(r.pop_front_from(0), None);
        assert_eq!(r.pop_front_from(1), Some((1, 2)));
    }

    /// `insert` with its right-end fast path gives what the general case
    /// (`insert_within`) gives for every insert, ranges, count and all.
    #[test]
    fn right_end_inserts_as_the_general_case() {
        let (mut fast, mut general) = (RangeSet::default(), RangeSet::default());
        let mut x = 1u64;
        let mut end = 100u64;
        for _ in 0..50_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let len = 1 + (x >> 60);
            // Mostly at or just past the right end, sometimes into the holes.
            let lo = match (x >> 33) % 4 {
                0 => end,
                1 => end + (x >> 40) % 3,
                2 => end.saturating_sub((x >> 40) % 5),
                _ => (x >> 40) % (end + 1),
            };
            end = end.max(lo + len);
            assert_eq!(fast.insert(lo, lo + len), general.insert_within(lo, lo + len), "[{lo}, {})", lo + len);
            assert_eq!((&fast.ranges, fast.len), (&general.ranges, general.len));
            if (x >> 20).is_multiple_of(64) {
                let at = general.ranges.first().map_or(0, |r| r.0);
                assert_eq!(fast.pop_front_from(at), general.pop_front_from(at));
            }
        }
    }

    /// `on_run`'s inline cases (in order; extending the last held range) leave the
    /// receiver as the general case does, over runs from two subflows, one behind.
    #[test]
    fn on_run_shortcuts_match_the_general_case() {
        let (mut fast, mut general) = (DataReceiver::new(64), DataReceiver::new(64));
        let mut x = 12345u64;
        let mut next = [0u64, 0];
        for _ in 0..20_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let r = x >> 33;
            // Subflow 1 carries every eighth DSN and runs behind; subflow 0 the rest;
            // now and then a duplicate or a run beyond the window.
            let (lo, hi) = match r % 16 {
                0 => (general.nxt.saturating_sub(2), general.nxt + 1),
                1 => (general.nxt + 70, general.nxt + 72),
                2..=4 => {
                    let d = next[1] * 8 + 7;
                    next[1] += 1;
                    (d, d + 1)
                }
                _ => {
                    let d = next[0] + next[0] / 7;
                    next[0] += 1;
                    (d, d + 1)
                }
            };
            assert_eq!(fast.on_run(lo, hi), general.on_run_general(lo, hi));
            assert_eq!(
                (fast.nxt, fast.ooo.len, fast.ooo_peak, fast.dup_segs, fast.beyond_window),
                (general.nxt, general.ooo.len, general.ooo_peak, general.dup_segs, general.beyond_window)
            );
            assert_eq!(fast.ooo.ranges, general.ooo.ranges);
        }
        assert!(fast.ooo_peak > 0 && fast.dup_segs > 0 && fast.beyond_window > 0);
    }

    #[test]
    fn data_receiver_reorders_and_drops_duplicates() {
        let mut d = DataReceiver::new(100);
        assert_eq!(d.on_run(0, 2), 2);
        assert_eq!(d.on_run(4, 6), 2, "a hole at 2, 3: held");
        assert_eq!((d.ooo.len, d.ooo_peak), (2, 2));
        assert_eq!(d.on_run(5, 6), 2);
        assert_eq!(d.dup_segs, 1);
        assert_eq!(d.on_run(2, 4), 6, "hole filled: all delivered");
        assert_eq!(d.ooo.len, 0);
        assert_eq!(d.on_run(3, 7), 7);
        assert_eq!(d.dup_segs, 4);
        assert_eq!(d.on_run(200, 201), 7);
        assert_eq!(d.beyond_window, 1);
    }

    /// PSH marks (`SegSizes::pushed`): the DSN each write ends in; a write that tops
    /// up an unsent pushed DSN leaves it marked and marks its own end; sizes and byte
    /// counts are those of the payloads alone.
    #[test]
    fn each_write_marks_the_dsn_it_ends_in() {
        let mut s = SegSizes::new(1000);
        s.append(2500, 0, |_| {});
        assert_eq!((0..3).map(|d| s.pushed(d)).collect::<Vec<_>>(), [false, false, true]);
        assert_eq!((s.seg_bytes(2), s.range_bytes(0, 3)), (500, 2500));
        // DSN 2 is unsent (nxt 2): topped up to 1000, then 1 and 200 bytes more.
        s.append(700, 2, |_| {});
        assert_eq!((s.seg_bytes(2), s.seg_bytes(3), s.end()), (1000, 200, 4));
        assert!(s.pushed(2) && s.pushed(3));
        s.append(100, 4, |_| {});
        assert_eq!((s.seg_bytes(4), s.pushed(4), s.range_bytes(2, 5)), (100, true, 1300));
        s.ack_to(3);
        assert_eq!(s.acked, 3000);
        assert!(!s.pushed(2), "DATA_ACKed: gone");
        let mut file = DataSender::new(1000, 100);
        file.set_app_bytes(2500);
        assert_eq!(
            (0..4).map(|d| file.pushed(d)).collect::<Vec<_>>(),
            [false, false, true, false],
            "a file: one write"
        );
        let mut bulk = DataSender::new(1000, 100);
        bulk.set_app_bytes(u64::MAX);
        assert!(!bulk.pushed(0) && !bulk.pushed(u64::MAX - 1));
    }

    #[test]
    fn data_sender_window_and_bytes() {
        let mut s = DataSender::new(1000, 4);
        s.set_app_bytes(2500);
        assert_eq!((s.app_limit, s.seg_bytes(2), s.range_bytes(0, 3)), (3, 500, 2500));
        assert!(s.has_new());
        s.nxt = 3;
        assert!(!s.has_new());
        let mut b = DataSender::new(1000, 4);
        b.set_app_bytes(u64::MAX);
        b.nxt = 4;
        assert!(!b.has_new(), "window of 4 segments");
        b.on_data_ack(2, 4);
        b.on_data_ack(1, 4);
        assert_eq!((b.una, b.wnd_edge), (2, 6), "an older ACK moves nothing back");
        b.reinject.extend([(1, 0), (3, 0)]);
        assert_eq!(b.next_reinjection(), Some((3, 0)), "DSN 1 is already acknowledged");
    }

    #[test]
    fn writes_top_up_an_unsent_segment_then_open_new_ones() {
        let mut s = SegSizes::new(1000);
        let mut opened = Vec::new();
        s.append(2500, 0, |d| opened.push(d));
        assert_eq!((opened.clone(), s.seg_bytes(2)), (vec![0, 1, 2], 500));
        s.append(700, 2, |d| opened.push(d));
        assert_eq!((s.seg_bytes(2), s.seg_bytes(3), s.end()), (1000, 200, 4), "DSN 2 unsent: topped up");
        s.append(100, 4, |d| opened.push(d));
        assert_eq!((s.seg_bytes(3), s.seg_bytes(4)), (200, 100), "DSN 3 already sent: not touched");
        assert_eq!(s.range_bytes(1, 4), 2200);
        s.ack_to(2);
        assert_eq!((s.acked, s.in_buffer()), (2000, 1300));
    }
}
