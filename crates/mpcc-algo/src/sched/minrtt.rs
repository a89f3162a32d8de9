//! minrtt: the subflow with window space and the lowest smoothed RTT, the default
//! of the out-of-tree Linux MPTCP (Paasch et al., "Experimental Evaluation of
//! Multipath TCP Schedulers", CSWS 2014). Upstream Linux picks by linger time
//! instead (docs/schedulers.md). Ties go to the lowest index; a subflow without an RTT sample yet
//! (srtt 0) is tried first, so a new subflow gets measured.

use super::{min_rtt, ConnState, Scheduler, Setup, SubflowState, OPPORTUNISTIC, PENALIZE};
use crate::ParamInfo;
use mpcc_core::params::Info;

pub const INFO: Info = Info::new(
    "minrtt",
    "lowest smoothed RTT among subflows with window space (out-of-tree Linux MPTCP's default; Paasch et al. 2014)",
    "docs/schedulers.md#the-schedulers",
    &[OPPORTUNISTIC, PENALIZE],
);

#[derive(Clone, Debug, PartialEq)]
pub struct MinRtt;

impl MinRtt {
    pub fn from_params(_get: &impl Fn(&ParamInfo) -> f64, _setup: &Setup) -> MinRtt {
        MinRtt
    }
}

impl Scheduler for MinRtt {
    #[inline]
    fn pick(
        &mut self, n: usize, exclude: Option<usize>, _conn: ConnState, state: impl Fn(usize) -> SubflowState,
    ) -> Option<usize> {
        min_rtt(n, exclude, &state)
    }
    /// The fastest subflow with space is the only one with space when it is alone.
    #[inline]
    fn picks_the_only_subflow_with_space(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

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
}
