//! TSC: cost-efficient traffic splitting (Park, PhD thesis, chapter 2, section
//! 2.4.2; docs/algorithms/tsc.md). Once per time slot the sender estimates the
//! application rate (2.12) and each subflow's bottleneck capacity (2.13), caps
//! each subflow's rate by the network-delay threshold (2.15), sets the total it
//! must carry from the send-buffer delay threshold (2.16) and fills subflows
//! cheapest first within their window rate and cap, with a floor (2.14, 2.17).
//!
//! The allocation is a rate: each subflow is paced at x_s by the sending host
//! (`pacing_rate`, the path a controller's pacing rate takes; mpcc-sim's
//! host.rs), which takes one segment of a scheduler-paced subflow at a time, so
//! a subflow has room for the next segment only once the previous one has left
//! at its rate. The per-packet path (`pick`) only reads the cost order, the
//! allocations and the subflows' space: no allocation, no dynamic dispatch. All
//! slot work happens in `advance`, once per send round (`prepare`), and costs
//! O(subflows) at slot boundaries only.

use super::{AppState, ConnState, Metric, Scheduler, Setup, SubflowDetail, SubflowState};
use crate::ParamInfo;
use mpcc_core::params::Info;
use mpcc_core::Nanos;

pub const INFO: Info = Info::new(
    "tsc",
    "cost-efficient traffic splitting: per-slot rates, cheapest subflow first within delay caps (Park, thesis ch. 2)",
    "docs/algorithms/tsc.md",
    &[D_SEND, D_NET, SLOT, SLOT_FRACTION, X_MIN, DRAIN_BACKLOG, SPLIT],
);

pub const D_SEND: ParamInfo = ParamInfo {
    name: "d_send",
    default: 0.1,
    min: 1e-3,
    max: 100.0,
    help: "TSC's send-buffer delay threshold d_thr^send, s (thesis 2.16; 0.1 in section 2.5)",
    open_min: false,
};
pub const D_NET: ParamInfo = ParamInfo {
    name: "d_net",
    default: 0.2,
    min: 1e-3,
    max: 100.0,
    help: "TSC's network-delay threshold d_thr^net, s (thesis 2.15; 0.1 to 0.5 in section 2.5)",
    open_min: false,
};
pub const SLOT: ParamInfo = ParamInfo {
    name: "slot",
    default: 0.0,
    min: 0.0,
    max: 100.0,
    help:
        "TSC's time slot Delta t, s; 0 (default): slot_fraction x the smallest minimum RTT (the thesis: Delta t << RTT)",
    open_min: false,
};
pub const SLOT_FRACTION: ParamInfo = ParamInfo {
    name: "slot_fraction",
    default: 0.1,
    min: 0.001,
    max: 10.0,
    help: "with slot = 0, Delta t as a fraction of the smallest subflow minimum RTT",
    open_min: false,
};
pub const DRAIN_BACKLOG: ParamInfo = ParamInfo {
    name: "drain_backlog",
    default: 0.0,
    min: 0.0,
    max: 1.0,
    help: "0: T = f + 1/d_send (thesis 2.16); 1: T = f + (1 + b)/d_send, b the unsent backlog in packets (an addition)",
    open_min: false,
};
pub const SPLIT: ParamInfo = ParamInfo {
    name: "split",
    default: 0.0,
    min: 0.0,
    max: 1.0,
    help: "0: each subflow paced at its allocation x_s; 1: the allocations only split the traffic (each segment to \
           the subflow furthest below its share x_s / sum x), sent as fast as the windows allow (another reading)",
    open_min: false,
};
/// Slot length before any subflow has an RTT sample (automatic slot only).
pub const FIRST_SLOT_S: f64 = 0.01;
pub const X_MIN: ParamInfo = ParamInfo {
    name: "x_min",
    default: 100e3,
    min: 0.0,
    max: 1e12,
    help: "TSC's floor x^min of every subflow's allocated rate, bit/s, so every path stays measured (2.14)",
    open_min: false,
};

/// One slot's decision, for tests and the docs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Slot {
    /// Application rate estimate (2.12), packets/s.
    pub f: f64,
    /// Total to allocate (2.16), packets/s.
    pub total: f64,
    /// Per subflow: capacity estimate (2.13), cap (2.15), window rate, allocation; packets/s.
    pub c: Vec<f64>,
    pub x_bar: Vec<f64>,
    pub x_cw: Vec<f64>,
    pub x: Vec<f64>,
    /// Residual T after every subflow took its share: > 0 is an infeasible slot.
    pub residual: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Tsc {
    /// Thresholds and slot, seconds; floor in packets/s once `configure` knows the MSS.
    pub d_send: f64,
    pub d_net: f64,
    /// Configured slot, s; 0: automatic (`slot_fraction` x the smallest min RTT).
    pub slot: f64,
    pub slot_fraction: f64,
    /// Add the backlog term to T (see DRAIN_BACKLOG).
    pub drain_backlog: bool,
    /// Enforce the allocation as a traffic split instead of paced rates (see SPLIT).
    pub split: bool,
    /// Segments each subflow took in the current slot (the split's bookkeeping).
    sent_in_slot: Vec<f64>,
    /// The slot length in use, s (mean over slots: `slot_sum / slots_all`).
    pub slot_now: f64,
    pub slot_sum: f64,
    pub slots_all: u64,
    x_min_bps: f64,
    x_min: f64,
    mss: f64,
    /// Subflow indices, cheapest first (ties: lower index).
    order: Vec<usize>,
    /// M_s: hops of each subflow's forward route.
    hops: Vec<f64>,
    count_from: Nanos,
    started: bool,
    slot_start: Nanos,
    next_slot: Nanos,
    written_at_start: u64,
    acked_at_start: Vec<u64>,
    rtt_sum: Vec<f64>,
    rtt_n: Vec<u64>,
    /// Last capacity estimate (kept through slots without RTT samples).
    cap: Vec<f64>,
    /// Allocated rates, packets/s (the subflows' pacing rates).
    alloc: Vec<f64>,
    /// The next slot, while data waits that only a new allocation can let out (`poll_at`).
    wake: Option<Nanos>,
    pub last: Slot,
    pub slots: u64,
    pub infeasible_slots: u64,
}

impl Tsc {
    pub fn from_params(get: &impl Fn(&ParamInfo) -> f64, setup: &Setup) -> Tsc {
        let mut t = Tsc::new(get(&D_SEND), get(&D_NET), get(&SLOT), get(&X_MIN), setup.n);
        t.slot_fraction = get(&SLOT_FRACTION);
        t.drain_backlog = get(&DRAIN_BACKLOG) >= 0.5;
        t.split = get(&SPLIT) >= 0.5;
        t.configure(setup.costs, setup.hops, setup.mss, setup.count_from);
        t
    }

    pub fn new(d_send: f64, d_net: f64, slot: f64, x_min_bps: f64, n: usize) -> Tsc {
        Tsc {
            d_send,
            d_net,
            slot,
            slot_fraction: SLOT_FRACTION.default,
            drain_backlog: false,
            split: false,
            sent_in_slot: vec![0.0; n],
            slot_now: if slot > 0.0 { slot } else { FIRST_SLOT_S },
            slot_sum: 0.0,
            slots_all: 0,
            x_min_bps,
            x_min: 0.0,
            mss: 1448.0,
            order: (0..n).collect(),
            hops: vec![1.0; n],
            count_from: 0,
            started: false,
            slot_start: 0,
            next_slot: 0,
            written_at_start: 0,
            acked_at_start: vec![0; n],
            rtt_sum: vec![0.0; n],
            rtt_n: vec![0; n],
            cap: vec![f64::INFINITY; n],
            alloc: vec![f64::INFINITY; n],
            wake: None,
            last: Slot::default(),
            slots: 0,
            infeasible_slots: 0,
        }
    }

    /// Per-subflow costs and hop counts, the MSS, and the time from which
    /// infeasible slots are counted (the end of the warm-up).
    pub fn configure(&mut self, costs: &[f64], hops: &[usize], mss: u32, count_from: Nanos) {
        let mut order: Vec<usize> = (0..costs.len()).collect();
        order.sort_by(|&a, &b| costs[a].total_cmp(&costs[b]).then(a.cmp(&b)));
        self.order = order;
        self.hops = hops.iter().map(|&h| h.max(1) as f64).collect();
        self.mss = mss as f64;
        self.x_min = self.x_min_bps / (8.0 * self.mss);
        self.count_from = count_from;
    }

    /// An RTT sample of subflow `sub`.
    #[inline]
    pub fn on_rtt(&mut self, sub: usize, rtt: Nanos) {
        self.rtt_sum[sub] += rtt as f64 * 1e-9;
        self.rtt_n[sub] += 1;
    }

    /// Called before every send attempt: renews the allocation at slot
    /// boundaries. `written`: bytes the application
    /// has written so far (None: a bulk or file sender, whose demand is unbounded);
    /// `backlog`: bytes written and not yet sent.
    #[inline]
    pub fn advance(&mut self, now: Nanos, written: Option<u64>, backlog: u64, input: impl Fn(usize) -> SubflowDetail) {
        if !self.started || now >= self.next_slot {
            self.new_slot(now, written, backlog, &input);
        }
    }

    // Once per slot, not per packet: out of line, so that the send round of every
    // other scheduler does not carry it inlined.
    #[inline(never)]
    fn new_slot(&mut self, now: Nanos, written: Option<u64>, backlog: u64, input: &impl Fn(usize) -> SubflowDetail) {
        let n = self.alloc.len();
        let first = !self.started;
        let dt = if first { self.slot_now } else { (now - self.slot_start) as f64 * 1e-9 };
        let pkt_bits = 8.0 * self.mss;
        // (2.12): f_k = (b_{k+1} - b_k) / dt + sum_s x_{s,k}: the backlog change
        // plus what left the buffer, which is what the application wrote.
        let f = match written {
            Some(w) if !first => (w - self.written_at_start) as f64 * 8.0 / dt / pkt_bits,
            Some(_) => 0.0,
            None => f64::INFINITY,
        };
        // (2.16): T = f + 1 / d_send, 1 packet in rate units; with drain_backlog
        // the backlog the estimate lag left in the buffer is drained within d_send.
        let b = if self.drain_backlog { backlog as f64 / self.mss } else { 0.0 };
        let mut total = f + (1.0 + b) / self.d_send;
        let mut slot = Slot { f, total, ..Slot::default() };
        for i in 0..n {
            let s = input(i);
            // x_s: the slot's acknowledged rate. The slot's RTT samples are those of
            // the segments acknowledged in it, and (2.2)-(2.3) tie a window's RTT to
            // its throughput; the sending rate exceeds the throughput while a queue
            // builds, and then (2.13) measures the sender, not the path.
            let x = if first { 0.0 } else { s.acked_segs.saturating_sub(self.acked_at_start[i]) as f64 / dt };
            let m1 = self.hops[i] - 1.0;
            let rtt_min = if s.min_rtt == Nanos::MAX { 0.0 } else { s.min_rtt as f64 * 1e-9 };
            // (2.13): c = (x RTT + M - 1) / (RTT - RTT_min), RTT the slot's mean
            // sample; no queueing seen (RTT = RTT_min) means no bound seen (infinite);
            // no sample keeps the previous estimate.
            if self.rtt_n[i] > 0 {
                let rtt = self.rtt_sum[i] / self.rtt_n[i] as f64;
                let q = rtt - rtt_min;
                self.cap[i] = if q > 0.0 { (x * rtt + m1) / q } else { f64::INFINITY };
            }
            let c = self.cap[i];
            // (2.15): x_bar = c - (M - 1 + c RTT_min) / (2 d_net), at least 0.
            let x_bar =
                if c.is_finite() { (c - (m1 + c * rtt_min) / (2.0 * self.d_net)).max(0.0) } else { f64::INFINITY };
            let st = s.state;
            let x_cw = if st.srtt > 0 { st.cwnd as f64 / (st.srtt as f64 * 1e-9) } else { f64::INFINITY };
            slot.c.push(c);
            slot.x_bar.push(x_bar);
            slot.x_cw.push(x_cw);
            self.acked_at_start[i] = s.acked_segs;
            self.rtt_sum[i] = 0.0;
            self.rtt_n[i] = 0;
        }
        // (2.14), (2.17): cheapest first, x_s = min{x_bar (not in slow start),
        // T, x_cw}, at least x_min; T <- T - x_s. Subflows left when T is spent
        // get the floor too (the thesis sets them to 0, but also says the floor is
        // there to keep every path measured).
        slot.x = vec![0.0; n];
        for k in 0..n {
            let i = self.order[k];
            let s = input(i);
            if !s.state.usable {
                continue;
            }
            let bound = if s.slow_start { slot.x_cw[i] } else { slot.x_cw[i].min(slot.x_bar[i]) };
            let x = if total > 0.0 { bound.min(total) } else { 0.0 };
            let x = x.max(self.x_min);
            slot.x[i] = x;
            total -= x;
        }
        slot.residual = total.max(0.0);
        if slot.residual > 1e-9 && written.is_some() && now >= self.count_from {
            self.infeasible_slots += 1;
        }
        if now >= self.count_from {
            self.slots += 1;
        }
        self.alloc.copy_from_slice(&slot.x);
        self.sent_in_slot.fill(0.0);
        self.last = slot;
        self.started = true;
        self.slot_start = now;
        self.written_at_start = written.unwrap_or(0);
        // The next slot's length: fixed, or a fraction of the smallest minimum RTT
        // seen so far (the thesis asks for Delta t << RTT).
        if self.slot > 0.0 {
            self.slot_now = self.slot;
        } else if let Some(m) = (0..n).map(|i| input(i).min_rtt).filter(|&m| m > 0 && m < Nanos::MAX).min() {
            self.slot_now = self.slot_fraction * m as f64 * 1e-9;
        }
        self.slot_sum += self.slot_now;
        self.slots_all += 1;
        let step = (self.slot_now * 1e9).round().max(1.0) as Nanos;
        self.next_slot = if first { now + step } else { self.next_slot + step };
        if self.next_slot <= now {
            self.next_slot = now + step; // no send attempt for more than a slot
        }
    }

    /// After a send loop: while data waits, asks for a wake-up at the next slot, so
    /// that every slot of the grid renews the allocation (the host wakes the
    /// connection at each subflow's pacing time, an ACK when a window opens).
    pub fn plan_wake(&mut self, now: Nanos, waiting: bool) {
        self.wake = waiting.then(|| self.next_slot.max(now + 1));
    }

    /// The subflow for the next segment: the cheapest with an allocation and
    /// window space, the host's room for it included (never `exclude`); None
    /// makes the connection wait.
    #[inline]
    pub fn pick_cheapest(&self, exclude: Option<usize>, state: impl Fn(usize) -> SubflowState) -> Option<usize> {
        self.order.iter().copied().find(|&i| Some(i) != exclude && self.alloc[i] > 0.0 && state(i).has_space())
    }

    /// The split's pick: among the subflows with an allocation and window space (never
    /// `exclude`), the one whose segments this slot are furthest below its share
    /// `x_s / sum x` (smallest `sent / x_s`); ties go cheapest first.
    #[inline]
    pub fn pick_split(&mut self, exclude: Option<usize>, state: impl Fn(usize) -> SubflowState) -> Option<usize> {
        let mut best: Option<(usize, f64)> = None;
        for &i in &self.order {
            if Some(i) == exclude || self.alloc[i] <= 0.0 || !state(i).has_space() {
                continue;
            }
            let behind = if self.alloc[i].is_finite() { self.sent_in_slot[i] / self.alloc[i] } else { 0.0 };
            if best.is_none_or(|(_, b)| behind < b) {
                best = Some((i, behind));
            }
        }
        let (i, _) = best?;
        self.sent_in_slot[i] += 1.0;
        Some(i)
    }

    /// Allocated rate of subflow `i`, bit/s.
    pub fn alloc_bps(&self, i: usize) -> f64 {
        self.alloc[i] * 8.0 * self.mss
    }
}

impl Scheduler for Tsc {
    #[inline]
    fn on_ack(&mut self, a: &super::AckSample) {
        self.on_rtt(a.sub, a.rtt);
    }

    #[inline]
    fn prepare(&mut self, now: Nanos, app: impl Fn() -> AppState, sub: impl Fn(usize) -> SubflowDetail) {
        let a = app();
        self.advance(now, a.written, a.backlog, sub);
    }

    #[inline]
    fn pick(
        &mut self, _n: usize, exclude: Option<usize>, _conn: ConnState, state: impl Fn(usize) -> SubflowState,
    ) -> Option<usize> {
        if self.split {
            self.pick_split(exclude, state)
        } else {
            self.pick_cheapest(exclude, state)
        }
    }

    #[inline]
    fn sent(&mut self, now: Nanos, waiting: impl FnOnce() -> bool, _state: impl Fn(usize) -> SubflowState) {
        self.plan_wake(now, waiting());
    }

    #[inline]
    fn poll_at(&self) -> Option<Nanos> {
        self.wake
    }

    /// With one subflow no scheduler runs, and TSC paces nothing; as a split it
    /// paces nothing either.
    fn paces(&self) -> bool {
        self.order.len() > 1 && !self.split
    }

    /// x_s once a slot has set it (before: none, the subflow is not paced).
    #[inline]
    fn pacing_rate(&self, sub: usize) -> Option<f64> {
        let x = self.alloc[sub];
        (x.is_finite() && x > 0.0).then_some(x)
    }

    /// The delay bound d_send + d_net the allocation aims at, with the fraction of
    /// application delays within it; slot counts; and the thesis's Fig. 2.3
    /// statistic, each subflow's RTT samples within 2 d_net (the RTT the cap
    /// (2.15) aims at).
    fn metrics(&self, out: &mut dyn FnMut(&'static str, Metric)) {
        let bound = self.d_send + self.d_net;
        let mean_slot = if self.slots_all > 0 { self.slot_sum / self.slots_all as f64 } else { self.slot_now };
        out("tsc_delay_bound_s", Metric::Value(bound));
        out("tsc_within_bound", Metric::AppDelayWithin(bound));
        out("tsc_slots", Metric::Count(self.slots));
        out("tsc_infeasible_slots", Metric::Count(self.infeasible_slots));
        out("tsc_mean_slot_s", Metric::Value(mean_slot));
        out("tsc_rtt_within_2dnet", Metric::RttWithin(2.0 * self.d_net));
    }
}

#[cfg(test)]
mod tests {
    use super::super::Wake;
    use super::*;

    const MS: Nanos = 1_000_000;

    fn input(srtt: Nanos, cwnd: u64, acked: u64, min_rtt: Nanos, ss: bool) -> SubflowDetail {
        SubflowDetail {
            state: SubflowState { srtt, rttvar: 0, pipe: 0, unacked: 0, cwnd, usable: true },
            acked_segs: acked,
            min_rtt,
            slow_start: ss,
        }
    }

    #[test]
    fn slot_follows_the_thesis_equations() {
        // Two subflows, costs 1 and 10, one hop each, MSS 1000 (8000 bits/packet).
        let mut t = Tsc::new(0.1, 0.2, 0.1, 8000.0, 2);
        t.configure(&[10.0, 1.0], &[1, 1], 1000, 0);
        assert_eq!(t.order, vec![1, 0], "cheapest first");
        let mut subs = [input(40 * MS, 100, 0, 40 * MS, false), input(50 * MS, 100, 0, 50 * MS, false)];
        t.advance(0, Some(0), 0, |i| subs[i]);
        // First slot: f = 0, T = 1 / 0.1 = 10 packets/s, all on the cheap subflow 1.
        assert_eq!(t.last.total, 10.0);
        assert_eq!(t.last.x, vec![1.0, 10.0], "subflow 0 gets the floor of 1 packet/s");
        // During the slot: 20 000 bytes written, subflow 1 had 10 segments
        // acknowledged (100 packets/s), RTT 100 ms against 50 ms min:
        // c = (100 * 0.1 + 0) / 0.05 = 200.
        subs[1].acked_segs = 10;
        t.on_rtt(1, 100 * MS);
        subs[1].state.srtt = 100 * MS;
        t.advance(100 * MS, Some(20_000), 5_000, |i| subs[i]);
        let s = &t.last;
        assert!((s.f - 200.0).abs() < 1e-9, "f = 20 000 B * 8 / 0.1 s / 8000 = 200: {}", s.f);
        assert!((s.total - (200.0 + 1.0 / 0.1)).abs() < 1e-9, "(2.16) T = f + 1 / d_send: {}", s.total);
        assert!((s.c[1] - 200.0).abs() < 1e-9);
        // x_bar = 200 - (0 + 200 * 0.05) / 0.4 = 175; x_cw = 100 / 0.1 = 1000.
        assert!((s.x_bar[1] - 175.0).abs() < 1e-9);
        assert!(s.c[0].is_infinite() && s.x_bar[0].is_infinite(), "no RTT sample: no bound seen");
        assert_eq!(s.x[1], 175.0);
        // Subflow 0 takes the rest, 210 - 175 = 35, within its window rate 100 / 0.04 = 2500.
        assert!((s.x[0] - 35.0).abs() < 1e-9);
        assert_eq!(s.residual, 0.0);
        assert_eq!(t.infeasible_slots, 0);
        // Slow start lifts the cap; the window rate still bounds.
        subs[1].slow_start = true;
        subs[1].state.cwnd = 10; // 10 / 0.1 s = 100 packets/s
        subs[0].state.cwnd = 2; // 2 / 0.04 s = 50 packets/s
        t.on_rtt(1, 100 * MS);
        t.advance(200 * MS, Some(40_000), 5_000, |i| subs[i]);
        assert_eq!(t.last.x[1], 100.0);
        assert_eq!(t.last.x[0], 50.0);
        assert!(t.last.residual > 50.0, "T = 210 > 150: infeasible");
        assert_eq!(t.infeasible_slots, 1);
    }

    #[test]
    fn as_a_split_the_allocation_shares_the_segments_and_nothing_is_paced() {
        let mut t = Tsc::new(0.1, 0.2, 0.1, 0.0, 2);
        t.split = true;
        t.configure(&[1.0, 10.0], &[1, 1], 1000, 0);
        assert!(!t.paces(), "a split leaves the pace to the windows");
        t.alloc = vec![30.0, 10.0];
        let space = |_: usize| SubflowState { cwnd: 10, usable: true, ..Default::default() };
        // Each segment to the subflow furthest below its share 30 : 10, ties cheapest first.
        let picks: Vec<_> = (0..8).map(|_| t.pick_split(None, space).unwrap()).collect();
        assert_eq!(picks, [0, 1, 0, 0, 0, 1, 0, 0]);
        // Work-conserving: a subflow without window space is passed over, an excluded one too.
        let full0 =
            |i: usize| SubflowState { cwnd: 10, pipe: if i == 0 { 10 } else { 0 }, usable: true, ..Default::default() };
        assert_eq!(t.pick_split(None, full0), Some(1));
        assert_eq!(t.pick_split(Some(1), full0), None);
        assert_eq!(t.pacing_rate(0), Some(30.0), "the rate is still reported; the host does not pace a split");
    }

    #[test]
    fn the_allocation_is_the_pacing_rate_and_picks_go_cheapest_first() {
        let mut t = Tsc::new(0.1, 0.2, 0.1, 0.0, 2);
        t.configure(&[5.0, 1.0], &[1, 1], 1000, 0);
        assert!(t.paces());
        let subs = [input(0, 1000, 0, Nanos::MAX, true), input(0, 1000, 0, Nanos::MAX, true)];
        let st = |i: usize| subs[i].state;
        assert_eq!(t.pacing_rate(1), None, "before the first slot: no rate");
        t.advance(0, Some(0), 0, |i| subs[i]);
        // T = 10 packets/s all on subflow 1 (window rate unknown: infinite), 0 on subflow 0.
        assert_eq!(t.last.x, vec![0.0, 10.0]);
        assert_eq!(t.pacing_rate(1), Some(10.0), "the host paces subflow 1 at x_1");
        assert_eq!(t.pacing_rate(0), None);
        // Per segment: the cheapest with space; the host's room is part of the
        // space (a paced subflow whose segment has not left has none).
        assert_eq!(t.pick_cheapest(None, st), Some(1));
        let held = |i: usize| SubflowState { pipe: if i == 1 { 1000 } else { 0 }, ..subs[i].state };
        assert_eq!(t.pick_cheapest(None, held), None, "subflow 0 has space but no allocation");
        assert_eq!(t.pick_cheapest(Some(1), st), None);
        // Data waits: wake at the next slot (100 ms), which renews the allocation.
        // `w` is the simulator's side: the one pending wake-up event.
        let mut w = Wake::default();
        t.plan_wake(50 * MS, true);
        assert_eq!(w.arm(t.poll_at()), Some(100 * MS));
        t.plan_wake(60 * MS, true);
        assert_eq!(w.arm(t.poll_at()), None, "a later request does not replace the pending one");
        assert!(!w.fire(99 * MS) && w.fire(100 * MS));
        // Nothing waiting: no wake-up.
        t.plan_wake(100 * MS, false);
        assert_eq!(t.poll_at(), None);
        // With the floor every usable subflow has a rate: x_min 100 kbit/s = 12.5 packets/s.
        let mut f = Tsc::new(0.1, 0.2, 0.1, 100e3, 2);
        f.configure(&[5.0, 1.0], &[1, 1], 1000, 0);
        f.advance(0, Some(0), 0, |i| subs[i]);
        assert_eq!(f.pacing_rate(0), Some(12.5));
        // One subflow: no scheduler runs, nothing is paced.
        let mut one = Tsc::new(0.1, 0.2, 0.1, 0.0, 1);
        one.configure(&[1.0], &[1], 1000, 0);
        assert!(!one.paces());
    }

    #[test]
    fn backlog_term_is_a_switch() {
        // drain_backlog = 1: T = f + (1 + b) / d_send, b the unsent backlog in packets.
        let mut t = Tsc::new(0.1, 0.2, 0.1, 8000.0, 2);
        t.drain_backlog = true;
        t.configure(&[10.0, 1.0], &[1, 1], 1000, 0);
        let subs = [input(40 * MS, 100, 0, 40 * MS, false), input(50 * MS, 100, 0, 50 * MS, false)];
        t.advance(0, Some(0), 5_000, |i| subs[i]);
        assert!((t.last.total - 6.0 / 0.1).abs() < 1e-9, "b = 5: T = 60, {}", t.last.total);
    }

    #[test]
    fn slot_is_much_shorter_than_the_rtt_by_default() {
        // The thesis (sec. 2.4.1): "a short interval for Delta t (<< RTT)". Default:
        // a tenth of the smallest minimum RTT; 10 ms until an RTT is known.
        let d = SLOT.default;
        let mut t = Tsc::new(0.1, 0.2, d, 0.0, 2);
        t.slot_fraction = SLOT_FRACTION.default;
        t.configure(&[1.0, 10.0], &[1, 1], 1000, 0);
        let none = [input(0, 10, 0, Nanos::MAX, true), input(0, 10, 0, Nanos::MAX, true)];
        t.advance(0, Some(0), 0, |i| none[i]);
        assert_eq!(t.next_slot, 10 * MS, "no RTT yet: the first slot");
        let subs = [input(20 * MS, 10, 0, 20 * MS, false), input(40 * MS, 10, 0, 40 * MS, false)];
        t.advance(10 * MS, Some(0), 0, |i| subs[i]);
        assert_eq!(t.next_slot, 12 * MS, "20 ms min RTT: 2 ms slots");
        assert!(t.slot_now <= 0.1 * 0.020 + 1e-12);
        t.advance(12 * MS, Some(0), 0, |i| subs[i]);
        assert_eq!(t.next_slot, 14 * MS);
        // A configured slot overrides.
        let mut f = Tsc::new(0.1, 0.2, 0.1, 0.0, 2);
        f.configure(&[1.0, 10.0], &[1, 1], 1000, 0);
        f.advance(0, Some(0), 0, |i| subs[i]);
        f.advance(100 * MS, Some(0), 0, |i| subs[i]);
        assert_eq!(f.next_slot, 200 * MS);
    }
}
