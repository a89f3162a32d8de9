//! MPTCP packet schedulers: which subflow carries the next data segment.
//!
//! Sans-IO: a scheduler sees a snapshot of each subflow (smoothed RTT and its
//! variation, pipe, unacknowledged segments, whole-segment cwnd, whether it may
//! send) and of the connection (segments waiting to be sent, send window), and
//! answers with a subflow index or "wait". It runs once per segment, so it is an
//! enum (no dynamic dispatch), reads the subflows through a closure and keeps any
//! per-subflow state in a table sized when the connection is built (no
//! allocation, no hashing on the per-packet path).
//!
//! Registered: `minrtt`, `roundrobin`, `redundant`, `blest`, `ecf`, `cdd`, `tsc`; see
//! docs/schedulers.md for sources, rules and interpretation choices.

use mpcc_algo::ParamInfo;
use mpcc_core::Nanos;
use std::collections::BTreeMap;

pub use crate::sched_state::{ConnState, SubflowState};
use crate::tsc::{Tsc, DRAIN_BACKLOG, D_NET, D_SEND, SLOT, SLOT_FRACTION, X_MIN};

/// One registered scheduler, for `mpcc list`, the Python API and the docs.
#[derive(Clone, Copy, Debug)]
pub struct SchedulerInfo {
    pub name: &'static str,
    pub summary: &'static str,
    /// Tunable parameters (`scheduler_params` in the flow config).
    pub params: &'static [ParamInfo],
}

const LAMBDA: ParamInfo = ParamInfo {
    name: "lambda",
    default: 1.0,
    min: 0.0,
    max: 100.0,
    help: "BLEST's scaling factor of the fast subflow's estimated sending (0: never wait, as minrtt)",
};

const BETA: ParamInfo = ParamInfo {
    name: "beta",
    default: 0.25,
    min: 0.0,
    max: 10.0,
    help: "ECF's hysteresis: keep waiting for the fast subflow while it is up to (1 + beta) times better",
};

/// Opportunistic retransmission (Raiciu et al., "How Hard Can It Be? Designing and
/// Implementing a Deployable Multipath TCP", NSDI 2012, section 4.2): when the
/// receive window blocks new data, the subflow with space re-sends the data at the
/// window's left edge that a slower subflow holds. Applied by the connection
/// (`flow.rs`), whatever the scheduler.
pub const OPPORTUNISTIC: ParamInfo = ParamInfo {
    name: "opportunistic",
    default: 0.0,
    min: 0.0,
    max: 1.0,
    help: "1: re-send the data blocking the receive window on a subflow with space (Raiciu et al. 2012)",
};

/// Penalization (same paper): the subflow that held the blocking data halves its
/// window, at most once per its RTT.
pub const PENALIZE: ParamInfo = ParamInfo {
    name: "penalize",
    default: 0.0,
    min: 0.0,
    max: 1.0,
    help: "1: halve the window of the subflow that held the data blocking the receive window, once per RTT",
};

/// Every registered scheduler; the first is the default.
pub const REGISTRY: &[SchedulerInfo] = &[
    SchedulerInfo {
        name: "minrtt",
        summary: "lowest smoothed RTT among subflows with window space (Linux's default; Paasch et al. 2014)",
        params: &[OPPORTUNISTIC, PENALIZE],
    },
    SchedulerInfo {
        name: "roundrobin",
        summary: "subflows with window space take turns, one segment each",
        params: &[OPPORTUNISTIC, PENALIZE],
    },
    SchedulerInfo {
        name: "redundant",
        summary: "every segment on every subflow with window space; the receiver keeps the first copy (Linux's redundant)",
        params: &[],
    },
    SchedulerInfo {
        name: "blest",
        summary: "minrtt, but waits for the fast subflow when a slow one would block the send window (Ferlin et al. 2016)",
        params: &[LAMBDA, OPPORTUNISTIC, PENALIZE],
    },
    SchedulerInfo {
        name: "ecf",
        summary: "minrtt, but waits for the fast subflow when it would finish the queued data earlier (Lim et al. 2017)",
        params: &[BETA, OPPORTUNISTIC, PENALIZE],
    },
    SchedulerInfo {
        name: "cdd",
        summary: "lowest congestion coefficient unacked/cwnd, ties to the lower forward delay (CDD-MPTCP, Tao & Yan)",
        params: &[],
    },
    SchedulerInfo {
        name: "tsc",
        summary: "cost-efficient traffic splitting: per-slot rates, cheapest subflow first within delay caps (Park, thesis ch. 2)",
        params: &[D_SEND, D_NET, SLOT, SLOT_FRACTION, X_MIN, DRAIN_BACKLOG],
    },
];

/// The default scheduler's name.
pub const DEFAULT: &str = "minrtt";

#[derive(Clone, Debug, PartialEq)]
pub enum Scheduler {
    MinRtt,
    /// `last`: the subflow that sent last.
    RoundRobin { last: usize },
    /// `next[i]`: the first DSN subflow `i` has not carried yet.
    Redundant { next: Vec<u64> },
    Blest { lambda: f64 },
    /// `waiting`: the last decision was to wait for the fast subflow (hysteresis).
    Ecf { beta: f64, waiting: bool },
    /// `owd[i]`: smoothed forward (one-way) delay of subflow `i`, 0 before a sample.
    Cdd { owd: Vec<Nanos> },
    /// Per-slot allocation and token buckets (`tsc.rs`).
    Tsc(Box<Tsc>),
}

impl Scheduler {
    /// The scheduler registered as `name` with `params`, for a connection of `n`
    /// subflows. Errors start with the field they concern (`scheduler` or
    /// `scheduler_params.<name>`) and list what is allowed.
    pub fn build(name: &str, params: &BTreeMap<String, f64>, n: usize) -> Result<Scheduler, String> {
        let Some(info) = REGISTRY.iter().find(|s| s.name == name) else {
            let names: Vec<&str> = REGISTRY.iter().map(|s| s.name).collect();
            return Err(format!("scheduler: unknown scheduler '{name}'; allowed: {}", names.join(", ")));
        };
        for (k, &v) in params {
            let Some(p) = info.params.iter().find(|p| p.name == k) else {
                let names: Vec<&str> = info.params.iter().map(|p| p.name).collect();
                let allowed = if names.is_empty() { "none".to_string() } else { names.join(", ") };
                return Err(format!("scheduler_params.{k}: unknown parameter of scheduler '{name}'; allowed: {allowed}"));
            };
            if !v.is_finite() || v < p.min || v > p.max {
                return Err(format!("scheduler_params.{k}: {v}; allowed: {} to {}", p.min, p.max));
            }
        }
        let get = |p: &ParamInfo| params.get(p.name).copied().unwrap_or(p.default);
        Ok(match name {
            "minrtt" => Scheduler::MinRtt,
            "roundrobin" => Scheduler::RoundRobin { last: usize::MAX },
            "redundant" => Scheduler::Redundant { next: vec![0; n] },
            "blest" => Scheduler::Blest { lambda: get(&LAMBDA) },
            "ecf" => Scheduler::Ecf { beta: get(&BETA), waiting: false },
            "cdd" => Scheduler::Cdd { owd: vec![0; n] },
            "tsc" => {
                let mut t = Tsc::new(get(&D_SEND), get(&D_NET), get(&SLOT), get(&X_MIN), n);
                t.slot_fraction = get(&SLOT_FRACTION);
                t.drain_backlog = get(&DRAIN_BACKLOG) >= 0.5;
                Scheduler::Tsc(Box::new(t))
            }
            _ => unreachable!("registered scheduler '{name}' without a builder"),
        })
    }

    pub fn name(&self) -> &'static str {
        match self {
            Scheduler::MinRtt => "minrtt",
            Scheduler::RoundRobin { .. } => "roundrobin",
            Scheduler::Redundant { .. } => "redundant",
            Scheduler::Blest { .. } => "blest",
            Scheduler::Ecf { .. } => "ecf",
            Scheduler::Cdd { .. } => "cdd",
            Scheduler::Tsc(_) => "tsc",
        }
    }

    /// An ACK of subflow `sub` carried the one-way delay `owd` of the data
    /// segment that triggered it (the receiver's timestamp minus the sender's,
    /// taken when the segment arrived, so a delayed ACK's holding time is not in it).
    #[inline]
    pub fn on_ack(&mut self, sub: usize, owd: Nanos) {
        if let Scheduler::Cdd { owd: d } = self {
            // CDD-MPTCP's estimator: D = 0.25 D_new + 0.75 D, the first sample as is.
            let e = &mut d[sub];
            *e = if *e == 0 { owd.max(1) } else { (owd + 3 * *e) / 4 };
        }
    }

    /// An RTT sample of subflow `sub` (TSC averages them per slot).
    #[inline]
    pub fn on_rtt(&mut self, sub: usize, rtt: Nanos) {
        if let Scheduler::Tsc(t) = self {
            t.on_rtt(sub, rtt);
        }
    }

    /// TSC's state, None for every other scheduler.
    #[inline]
    pub fn tsc_mut(&mut self) -> Option<&mut Tsc> {
        match self {
            Scheduler::Tsc(t) => Some(t),
            _ => None,
        }
    }

    pub fn tsc(&self) -> Option<&Tsc> {
        match self {
            Scheduler::Tsc(t) => Some(t),
            _ => None,
        }
    }

    /// The redundant scheduler's per-subflow cursors (with more than one
    /// subflow); None for every other scheduler. The connection sends on each
    /// subflow with space the DSN `max(next[i], DATA_ACK)`, a new one when that
    /// is the next new DSN (see `Flow::push`).
    #[inline]
    pub fn redundant_cursors(&mut self) -> Option<&mut [u64]> {
        match self {
            Scheduler::Redundant { next } if next.len() > 1 => Some(next),
            _ => None,
        }
    }

    /// The subflow among `0..n` (never `exclude`) that sends the next segment, or
    /// None if no eligible subflow has window space or the scheduler chooses to
    /// wait for one that has none.
    #[inline]
    pub fn pick(&mut self, n: usize, exclude: Option<usize>, conn: ConnState, state: impl Fn(usize) -> SubflowState) -> Option<usize> {
        let ok = |i: usize| Some(i) != exclude && state(i).has_space();
        if n == 1 {
            return ok(0).then_some(0); // a single path: nothing to choose
        }
        match self {
            // Ties go to the lowest index. A subflow without an RTT sample yet
            // (srtt 0) is tried first, so a new subflow gets measured.
            Scheduler::MinRtt | Scheduler::Redundant { .. } => min_rtt(n, ok, &state),
            Scheduler::RoundRobin { last } => {
                let start = last.wrapping_add(1);
                let i = (0..n).map(|k| (start.wrapping_add(k)) % n).find(|&i| ok(i))?;
                *last = i;
                Some(i)
            }
            Scheduler::Blest { lambda } => {
                let s = min_rtt(n, ok, &state)?;
                let f = fastest(n, exclude, &state)?;
                let (sf, ss) = (state(f), state(s));
                if f == s || sf.srtt == 0 || ss.srtt == 0 {
                    return Some(s);
                }
                // Ferlin et al. 2016, section 3: while a segment sent now on the
                // slow subflow is outstanding (one slow RTT, `rtts` fast RTTs),
                // the fast one could send X segments, its window growing by one
                // per RTT as in congestion avoidance. If lambda * X does not fit in
                // the send window left once the slow subflow holds its in-flight
                // data and this segment, the segment would block the fast subflow.
                let rtts = ss.srtt as f64 / sf.srtt as f64;
                let x = (sf.cwnd as f64 + (rtts - 1.0) / 2.0) * rtts;
                let room = conn.window as f64 - (ss.unacked + 1) as f64;
                if *lambda * x > room { None } else { Some(s) }
            }
            Scheduler::Ecf { beta, waiting } => {
                let s = min_rtt(n, ok, &state)?;
                let f = fastest(n, exclude, &state)?;
                let (sf, ss) = (state(f), state(s));
                if f == s || sf.srtt == 0 || ss.srtt == 0 {
                    return Some(s);
                }
                // Lim et al. 2017, Algorithm 1, with k the segments waiting to be
                // sent: the fast subflow finishes them after (1 + k / cwnd_f)
                // RTT_f (waiting for its window, then sending); the slow one
                // after RTT_s + delta (delta: the larger RTT variation). If the
                // fast one is better, wait for it, unless the slow one would
                // carry all k within 2 RTT_f + delta anyway (k / cwnd_s RTT_s).
                // `waiting` widens the first test by (1 + beta) so decisions do
                // not flap. k counts as at least one window on each subflow (as
                // the authors' Linux code does): even one segment needs a whole
                // round trip, so k / cwnd < 1 would promise delivery too early.
                let k = conn.queued as f64;
                let (rf, rs) = (sf.srtt as f64, ss.srtt as f64);
                let delta = sf.rttvar.max(ss.rttvar) as f64;
                let rounds_f = (k / sf.cwnd as f64).max(1.0);
                let rounds_s = (k / ss.cwnd as f64).max(1.0);
                let hyst = if *waiting { 1.0 + *beta } else { 1.0 };
                if (1.0 + rounds_f) * rf < hyst * (rs + delta) {
                    if rounds_s * rs >= 2.0 * rf + delta {
                        *waiting = true;
                        return None;
                    }
                    Some(s)
                } else {
                    *waiting = false;
                    Some(s)
                }
            }
            Scheduler::Cdd { owd } => {
                // Smallest gamma = unacked / cwnd, compared exactly as
                // unacked_a * cwnd_b < unacked_b * cwnd_a; ties to the smaller
                // smoothed forward delay (0, unmeasured, first), then the lower index.
                let mut best: Option<(usize, u128, u128, Nanos)> = None;
                for i in 0..n {
                    if !ok(i) {
                        continue;
                    }
                    let st = state(i);
                    let (u, c, d) = (st.unacked as u128, st.cwnd.max(1) as u128, owd[i]);
                    let better = match best {
                        None => true,
                        Some((_, bu, bc, bd)) => {
                            let (l, r) = (u * bc, bu * c);
                            l < r || (l == r && d < bd)
                        }
                    };
                    if better {
                        best = Some((i, u, c, d));
                    }
                }
                best.map(|b| b.0)
            }
            Scheduler::Tsc(t) => t.pick(exclude, state),
        }
    }
}

/// The subflow with space and the lowest smoothed RTT (ties to the lowest index).
#[inline]
fn min_rtt(n: usize, ok: impl Fn(usize) -> bool, state: &impl Fn(usize) -> SubflowState) -> Option<usize> {
    let mut best: Option<(usize, Nanos)> = None;
    for i in 0..n {
        if ok(i) {
            let r = state(i).srtt;
            if best.is_none_or(|(_, b)| r < b) {
                best = Some((i, r));
            }
        }
    }
    best.map(|(i, _)| i)
}

/// The usable subflow (space or not, never `exclude`) with the lowest smoothed RTT.
#[inline]
fn fastest(n: usize, exclude: Option<usize>, state: &impl Fn(usize) -> SubflowState) -> Option<usize> {
    let mut best: Option<(usize, Nanos)> = None;
    for i in 0..n {
        let s = state(i);
        if s.usable && Some(i) != exclude && best.is_none_or(|(_, b)| s.srtt < b) {
            best = Some((i, s.srtt));
        }
    }
    best.map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = 1_000_000;
    const NONE: &[(&str, f64)] = &[];

    fn st(srtt: Nanos, pipe: u64, cwnd: u64) -> SubflowState {
        SubflowState { srtt, rttvar: 0, pipe, unacked: pipe, cwnd, usable: true }
    }

    fn build(name: &str, params: &[(&str, f64)], n: usize) -> Result<Scheduler, String> {
        Scheduler::build(name, &params.iter().map(|&(k, v)| (k.to_string(), v)).collect(), n)
    }

    const ANY: ConnState = ConnState { queued: 1, window: u64::MAX / 4 };

    #[test]
    fn minrtt_prefers_the_fastest_subflow_with_space() {
        let subs = [st(100, 0, 10), st(10, 10, 10), st(50, 3, 10), st(10, 0, 10)];
        let mut s = build("minrtt", NONE, 4).unwrap();
        // Subflow 1 is fastest but full; 3 ties on RTT and has space.
        assert_eq!(s.pick(4, None, ANY, |i| subs[i]), Some(3));
        assert_eq!(s.pick(4, Some(3), ANY, |i| subs[i]), Some(2));
        assert_eq!(s.pick(2, None, ANY, |i| subs[i]), Some(0));
        let full = [st(1, 5, 5), SubflowState { usable: false, ..st(1, 0, 5) }];
        assert_eq!(s.pick(2, None, ANY, |i| full[i]), None);
    }

    #[test]
    fn roundrobin_takes_turns_among_subflows_with_space() {
        let subs = [st(10, 0, 10), st(10, 10, 10), st(10, 0, 10)];
        let mut s = build("roundrobin", NONE, 3).unwrap();
        let picks: Vec<_> = (0..4).map(|_| s.pick(3, None, ANY, |i| subs[i]).unwrap()).collect();
        assert_eq!(picks, vec![0, 2, 0, 2], "subflow 1 is full");
        assert_eq!(s.pick(3, Some(0), ANY, |i| subs[i]), Some(2));
    }

    #[test]
    fn blest_waits_when_the_slow_subflow_would_block_the_window() {
        // Fast: 10 ms, cwnd 10, full. Slow: 30 ms, 4 segments unacknowledged.
        // rtts = 3, X = (10 + (3 - 1) / 2) * 3 = 33 segments.
        let subs = [st(10 * MS, 10, 10), st(30 * MS, 4, 10)];
        let conn = |window| ConnState { queued: 5, window };
        let mut b = build("blest", NONE, 2).unwrap();
        // Room 40 - (4 + 1) = 35 >= 33: send on the slow subflow.
        assert_eq!(b.pick(2, None, conn(40), |i| subs[i]), Some(1));
        // Room 38 - 5 = 33 = X: still fits; 37 - 5 = 32 < 33: wait.
        assert_eq!(b.pick(2, None, conn(38), |i| subs[i]), Some(1));
        assert_eq!(b.pick(2, None, conn(37), |i| subs[i]), None);
        // lambda = 1.2: 39.6 > 35, wait; lambda = 0 never waits.
        assert_eq!(build("blest", &[("lambda", 1.2)], 2).unwrap().pick(2, None, conn(40), |i| subs[i]), None);
        assert_eq!(build("blest", &[("lambda", 0.0)], 2).unwrap().pick(2, None, conn(6), |i| subs[i]), Some(1));
        // The fast subflow with space is always taken.
        let open = [st(10 * MS, 9, 10), st(30 * MS, 4, 10)];
        assert_eq!(b.pick(2, None, conn(1), |i| open[i]), Some(0));
        // Excluded (a reinjection stuck on it), the fast subflow is no reason to wait.
        assert_eq!(b.pick(2, Some(0), conn(1), |i| subs[i]), Some(1));
    }

    #[test]
    fn ecf_compares_completion_times_with_hysteresis() {
        // Fast: 10 ms, cwnd 10, full. Slow: 100 ms, cwnd 10, space. No variation.
        let subs = [st(10 * MS, 10, 10), st(100 * MS, 2, 10)];
        let q = |queued| ConnState { queued, window: 1000 };
        let mut e = build("ecf", NONE, 2).unwrap();
        // k = 95: fast at (1 + 9.5) * 10 = 105 ms >= 100 ms: send on the slow one.
        assert_eq!(e.pick(2, None, q(95), |i| subs[i]), Some(1));
        assert_eq!(e, Scheduler::Ecf { beta: 0.25, waiting: false });
        // k = 1: fast at (1 + 1) * 10 = 20 ms (at least one round) < 100 ms, and
        // the slow one needs a round of 100 ms >= 2 * 10 ms: wait.
        assert_eq!(e.pick(2, None, q(1), |i| subs[i]), None);
        assert_eq!(e, Scheduler::Ecf { beta: 0.25, waiting: true });
        // Now waiting, k = 95 gives 105 ms < 1.25 * 100 ms: keep waiting ...
        assert_eq!(e.pick(2, None, q(95), |i| subs[i]), None);
        // ... until the fast subflow is more than 25 % worse: k = 130, 140 ms.
        assert_eq!(e.pick(2, None, q(130), |i| subs[i]), Some(1));
        assert_eq!(e, Scheduler::Ecf { beta: 0.25, waiting: false });
        assert_eq!(e.pick(2, None, q(95), |i| subs[i]), Some(1), "hysteresis off again");
        // delta = max(rttvar): 30 ms of variation makes the slow side 130 ms.
        let var = [SubflowState { rttvar: 30 * MS, ..subs[0] }, subs[1]];
        assert_eq!(e.pick(2, None, q(110), |i| var[i]), None, "12 * 10 ms < 130 ms, 1100 ms >= 50 ms");
        // Fast better, but the slow one (25 ms) finishes within 2 * 10 + 10 ms:
        // (1 + 1) * 10 = 20 ms < 25 + 10 ms, and 25 ms < 30 ms: send on it.
        let close = [SubflowState { rttvar: 10 * MS, ..subs[0] }, st(25 * MS, 2, 10)];
        assert_eq!(build("ecf", NONE, 2).unwrap().pick(2, None, q(5), |i| close[i]), Some(1));
        assert_eq!(build("ecf", &[("beta", 0.0)], 2).unwrap(), Scheduler::Ecf { beta: 0.0, waiting: false });
    }

    #[test]
    fn cdd_picks_the_lowest_gamma_and_breaks_ties_by_forward_delay() {
        // gamma: 5/10 = 0.5, 2/10 = 0.2, 1/5 = 0.2, 0/4 = 0 but no space.
        let subs = [
            SubflowState { unacked: 5, ..st(10 * MS, 5, 10) },
            SubflowState { unacked: 2, ..st(50 * MS, 2, 10) },
            SubflowState { unacked: 1, ..st(90 * MS, 1, 5) },
            SubflowState { unacked: 0, ..st(1 * MS, 4, 4) },
        ];
        let mut c = build("cdd", NONE, 4).unwrap();
        assert_eq!(c.pick(4, None, ANY, |i| subs[i]), Some(1), "tie 1/2 unmeasured: lower index");
        c.on_ack(1, 30 * MS);
        c.on_ack(2, 20 * MS);
        assert_eq!(c.pick(4, None, ANY, |i| subs[i]), Some(2), "tie on gamma: 20 ms < 30 ms");
        // D2 = 0.25 * 80 + 0.75 * 20 = 35 ms > 30 ms.
        c.on_ack(2, 80 * MS);
        assert_eq!(c, Scheduler::Cdd { owd: vec![0, 30 * MS, 35 * MS, 0] });
        assert_eq!(c.pick(4, None, ANY, |i| subs[i]), Some(1));
        // Unacked, not pipe: 3 of subflow 1's segments SACKed leave pipe 2 but gamma 0.5.
        let sacked = [subs[0], SubflowState { unacked: 5, ..subs[1] }, subs[2], subs[3]];
        assert_eq!(c.pick(4, None, ANY, |i| sacked[i]), Some(2));
        // A reinjection stuck on subflow 2 goes elsewhere even though 2 is best.
        assert_eq!(c.pick(4, Some(2), ANY, |i| sacked[i]), Some(0));
        // The lower gamma wins over a lower delay.
        let lower = [subs[0], SubflowState { unacked: 1, ..subs[1] }];
        assert_eq!(c.pick(2, None, ANY, |i| lower[i]), Some(1), "0.1 < 0.5 though 30 ms > unmeasured");
    }

    #[test]
    fn redundant_has_one_cursor_per_subflow() {
        let mut r = build("redundant", NONE, 3).unwrap();
        assert_eq!(r.redundant_cursors().map(|c| c.len()), Some(3));
        assert_eq!(build("redundant", NONE, 1).unwrap().redundant_cursors(), None, "one subflow: plain TCP");
        assert_eq!(build("minrtt", NONE, 3).unwrap().redundant_cursors(), None);
    }

    #[test]
    fn unknown_name_or_parameter_lists_allowed() {
        let e = build("lowest", NONE, 2).unwrap_err();
        assert!(e.starts_with("scheduler: unknown scheduler 'lowest'; allowed: minrtt, roundrobin, redundant, blest, ecf, cdd, tsc"), "{e}");
        let e = build("ecf", &[("lambda", 1.0)], 2).unwrap_err();
        assert_eq!(e, "scheduler_params.lambda: unknown parameter of scheduler 'ecf'; allowed: beta, opportunistic, penalize");
        let e = build("minrtt", &[("beta", 1.0)], 2).unwrap_err();
        assert_eq!(e, "scheduler_params.beta: unknown parameter of scheduler 'minrtt'; allowed: opportunistic, penalize");
        let e = build("redundant", &[("beta", 1.0)], 2).unwrap_err();
        assert_eq!(e, "scheduler_params.beta: unknown parameter of scheduler 'redundant'; allowed: none");
        let e = build("blest", &[("lambda", -1.0)], 2).unwrap_err();
        assert_eq!(e, "scheduler_params.lambda: -1; allowed: 0 to 100");
        assert!(build("blest", &[("lambda", f64::NAN)], 2).is_err());
        for info in REGISTRY {
            assert_eq!(build(info.name, NONE, 2).unwrap().name(), info.name);
        }
    }
}
