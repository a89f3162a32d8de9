//! MPTCP packet schedulers: which subflow carries the next data segment.
//!
//! Sans-IO: a scheduler sees a snapshot of each subflow (smoothed RTT, pipe,
//! whole-segment cwnd, whether it may send) and answers with a subflow index. It
//! is called whenever the connection has data to send and runs once per segment,
//! so it is an enum (no dynamic dispatch) and reads the subflows through a closure
//! (no allocation).
//!
//! Registered: `minrtt`, `roundrobin`. To come, in the same style: `redundant`
//! (every segment on every subflow), `blest` (Ferlin et al. 2016, blocking
//! estimation), `ecf` (Lim et al. 2017, earliest completion first) and CDD's
//! congestion-coefficient scheduler.

use mpcc_core::Nanos;

/// What a scheduler may know about one subflow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SubflowState {
    /// Smoothed RTT (0 before the first sample).
    pub srtt: Nanos,
    /// Segments in flight (RFC 6675 pipe).
    pub pipe: u64,
    /// Congestion window in whole segments.
    pub cwnd: u64,
    /// Established and not closed.
    pub usable: bool,
}

impl SubflowState {
    /// May send a segment now.
    #[inline]
    pub fn has_space(&self) -> bool {
        self.usable && self.pipe < self.cwnd
    }
}

/// One registered scheduler, for `mpcc list`, the Python API and the docs.
#[derive(Clone, Copy, Debug)]
pub struct SchedulerInfo {
    pub name: &'static str,
    pub summary: &'static str,
}

/// Every registered scheduler; the first is the default.
pub const REGISTRY: &[SchedulerInfo] = &[
    SchedulerInfo {
        name: "minrtt",
        summary: "lowest smoothed RTT among subflows with window space (Linux's default; Paasch et al. 2014)",
    },
    SchedulerInfo { name: "roundrobin", summary: "subflows with window space take turns, one segment each" },
];

/// The default scheduler's name.
pub const DEFAULT: &str = "minrtt";

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scheduler {
    MinRtt,
    /// `last`: the subflow that sent last.
    RoundRobin { last: usize },
}

impl Scheduler {
    /// The scheduler registered as `name`; unknown names list the allowed ones.
    pub fn build(name: &str) -> Result<Scheduler, String> {
        match name {
            "minrtt" => Ok(Scheduler::MinRtt),
            "roundrobin" => Ok(Scheduler::RoundRobin { last: usize::MAX }),
            _ => {
                let names: Vec<&str> = REGISTRY.iter().map(|s| s.name).collect();
                Err(format!("unknown scheduler '{name}'; allowed: {}", names.join(", ")))
            }
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Scheduler::MinRtt => "minrtt",
            Scheduler::RoundRobin { .. } => "roundrobin",
        }
    }

    /// The subflow among `0..n` (never `exclude`) that sends the next segment, or
    /// None if no eligible subflow has window space.
    #[inline]
    pub fn pick(&mut self, n: usize, exclude: Option<usize>, state: impl Fn(usize) -> SubflowState) -> Option<usize> {
        let ok = |i: usize| Some(i) != exclude && state(i).has_space();
        if n == 1 {
            return ok(0).then_some(0); // a single path: nothing to choose
        }
        match self {
            // Ties go to the lowest index. A subflow without an RTT sample yet
            // (srtt 0) is tried first, so a new subflow gets measured.
            Scheduler::MinRtt => {
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
            Scheduler::RoundRobin { last } => {
                let start = last.wrapping_add(1);
                let i = (0..n).map(|k| (start.wrapping_add(k)) % n).find(|&i| ok(i))?;
                *last = i;
                Some(i)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(srtt: Nanos, pipe: u64, cwnd: u64) -> SubflowState {
        SubflowState { srtt, pipe, cwnd, usable: true }
    }

    #[test]
    fn minrtt_prefers_the_fastest_subflow_with_space() {
        let subs = [st(100, 0, 10), st(10, 10, 10), st(50, 3, 10), st(10, 0, 10)];
        let mut s = Scheduler::build("minrtt").unwrap();
        // Subflow 1 is fastest but full; 3 ties on RTT and has space.
        assert_eq!(s.pick(4, None, |i| subs[i]), Some(3));
        assert_eq!(s.pick(4, Some(3), |i| subs[i]), Some(2));
        assert_eq!(s.pick(2, None, |i| subs[i]), Some(0));
        let full = [st(1, 5, 5), SubflowState { usable: false, ..st(1, 0, 5) }];
        assert_eq!(s.pick(2, None, |i| full[i]), None);
    }

    #[test]
    fn roundrobin_takes_turns_among_subflows_with_space() {
        let subs = [st(10, 0, 10), st(10, 10, 10), st(10, 0, 10)];
        let mut s = Scheduler::build("roundrobin").unwrap();
        let picks: Vec<_> = (0..4).map(|_| s.pick(3, None, |i| subs[i]).unwrap()).collect();
        assert_eq!(picks, vec![0, 2, 0, 2], "subflow 1 is full");
        assert_eq!(s.pick(3, Some(0), |i| subs[i]), Some(2));
    }

    #[test]
    fn unknown_name_lists_allowed() {
        let e = Scheduler::build("lowest").unwrap_err();
        assert!(e.contains("unknown scheduler 'lowest'") && e.contains("minrtt, roundrobin"), "{e}");
        for info in REGISTRY {
            assert_eq!(Scheduler::build(info.name).unwrap().name(), info.name);
        }
    }
}
