//! linger: upstream Linux MPTCP's default scheduler (`mptcp_subflow_get_send`, since
//! Linux 5.6): the subflow whose queued data would drain first, its linger time, the
//! bytes it holds over its pacing rate. Linux's pacing rate is cwnd x MSS / srtt x 2
//! in slow start and x 1.2 after it (`tcp_pacing_ss_ratio`, `tcp_pacing_ca_ratio`),
//! so with the next segment counted as queued the linger time in segments is
//! `(pipe + 1) x srtt / (ratio x cwnd)`: the fuller and slower a subflow, the later.
//!
//! Linux assigns data to a subflow before it has window space (up to a 64 KB burst
//! waits in that subflow's queue); mpcc sends a segment only on a subflow with space,
//! so this takes the shortest linger time among those. With bulk data every window
//! stays full and both choose alike; where the application limits the flow, the
//! linger time spreads data over the subflows in proportion to their rates, where
//! minrtt keeps to the lowest smoothed RTT, whose value goes stale on an idle subflow
//! (docs/schedulers.md#linger). Ties go to the lowest index; a subflow without an RTT
//! sample (srtt 0) lingers 0, so it is tried first and gets measured.

use super::{AppState, ConnState, Scheduler, Setup, SubflowDetail, SubflowState, OPPORTUNISTIC, PENALIZE};
use crate::ParamInfo;
use mpcc_core::params::Info;
use mpcc_core::Nanos;

pub const INFO: Info = Info::new(
    "linger",
    "shortest linger time, in flight over pacing rate (upstream Linux MPTCP's default, mptcp_subflow_get_send)",
    "docs/schedulers.md#linger",
    &[OPPORTUNISTIC, PENALIZE],
);

/// Linux's pacing ratios in percent: slow start, then congestion avoidance.
const SS_RATIO: u64 = 200;
const CA_RATIO: u64 = 120;

#[derive(Clone, Debug, PartialEq)]
pub struct Linger {
    /// Per subflow, the pacing ratio of this send round (slow start or not).
    ratio: Vec<u64>,
}

impl Linger {
    pub fn from_params(_get: &impl Fn(&ParamInfo) -> f64, setup: &Setup) -> Linger {
        Linger { ratio: vec![CA_RATIO; setup.n] }
    }
}

/// The linger time's numerator and denominator, compared by cross-multiplication
/// (exact in 128 bits): `(pipe + 1) x srtt` over `ratio x cwnd`.
#[inline]
fn linger(s: &SubflowState, ratio: u64) -> (u128, u128) {
    ((s.pipe as u128 + 1) * s.srtt as u128, ratio as u128 * s.cwnd.max(1) as u128)
}

impl Scheduler for Linger {
    #[inline]
    fn prepare(&mut self, _now: Nanos, _app: impl Fn() -> AppState, sub: impl Fn(usize) -> SubflowDetail) {
        for (i, r) in self.ratio.iter_mut().enumerate() {
            *r = if sub(i).slow_start { SS_RATIO } else { CA_RATIO };
        }
    }

    #[inline]
    fn pick(
        &mut self, n: usize, exclude: Option<usize>, _conn: ConnState, state: impl Fn(usize) -> SubflowState,
    ) -> Option<usize> {
        let mut best: Option<(usize, (u128, u128))> = None;
        for i in 0..n {
            let s = state(i);
            if Some(i) == exclude || !s.has_space() {
                continue;
            }
            let l = linger(&s, self.ratio.get(i).copied().unwrap_or(CA_RATIO));
            if best.is_none_or(|(_, b)| l.0 * b.1 < b.0 * l.1) {
                best = Some((i, l));
            }
        }
        best.map(|(i, _)| i)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    #[test]
    fn the_subflow_that_would_drain_first_takes_the_segment() {
        let mut s = build("linger", NONE, 3).unwrap();
        // (pipe + 1) x srtt / cwnd: 11 x 20 / 30 = 7.3, 5 x 60 / 40 = 7.5, 1 x 100 / 10 = 10.
        let subs = [st(20, 10, 30), st(60, 4, 40), st(100, 0, 10)];
        assert_eq!(s.pick(3, None, ANY, |i| subs[i]), Some(0));
        // One more in flight on subflow 0 (12 x 20 / 30 = 8) and subflow 1 is first.
        let subs = [st(20, 11, 30), st(60, 4, 40), st(100, 0, 10)];
        assert_eq!(s.pick(3, None, ANY, |i| subs[i]), Some(1));
        assert_eq!(s.pick(3, Some(1), ANY, |i| subs[i]), Some(0));
        // An idle subflow with a long, stale srtt is still taken once the others fill.
        let subs = [st(20, 29, 30), st(60, 39, 40), st(100, 0, 10)];
        assert_eq!(s.pick(3, None, ANY, |i| subs[i]), Some(2));
        // A full subflow never; none with space: None.
        let full = [st(1, 5, 5), SubflowState { usable: false, ..st(1, 0, 5) }];
        assert_eq!(s.pick(2, None, ANY, |i| full[i]), None);
    }

    #[test]
    fn slow_start_paces_at_twice_the_rate_so_it_lingers_less() {
        let mut s = build("linger", NONE, 2).unwrap();
        let subs = [st(20, 9, 20), st(20, 9, 20)];
        s.prepare(0, AppState::default, |i| SubflowDetail { state: subs[i], slow_start: i == 1, ..Default::default() });
        assert_eq!(s.pick(2, None, ANY, |i| subs[i]), Some(1));
    }
}
