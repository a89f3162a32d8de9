//! BLEST: minrtt, but waits for the fast subflow when a segment on a slow one would
//! block the send window (Ferlin et al., "BLEST: Blocking Estimation-based MPTCP
//! Scheduler for Heterogeneous Networks", IFIP Networking 2016, section 3).

use super::{fastest, min_rtt, ConnState, Scheduler, Setup, SubflowState, OPPORTUNISTIC, PENALIZE};
use crate::ParamInfo;
use mpcc_core::params::Info;

pub const LAMBDA: ParamInfo = ParamInfo {
    name: "lambda",
    default: 1.0,
    min: 0.0,
    max: 100.0,
    help: "BLEST's scaling factor of the fast subflow's estimated sending (0: never wait, as minrtt)",
    open_min: false,
};

pub const INFO: Info = Info::new(
    "blest",
    "minrtt, but waits for the fast subflow when a slow one would block the send window (Ferlin et al. 2016)",
    "docs/schedulers.md#blest",
    &[LAMBDA, OPPORTUNISTIC, PENALIZE],
);

#[derive(Clone, Debug, PartialEq)]
pub struct Blest {
    lambda: f64,
}

impl Blest {
    pub fn from_params(get: &impl Fn(&ParamInfo) -> f64, _setup: &Setup) -> Blest {
        Blest { lambda: get(&LAMBDA) }
    }
}

impl Scheduler for Blest {
    #[inline]
    fn pick(
        &mut self, n: usize, exclude: Option<usize>, conn: ConnState, state: impl Fn(usize) -> SubflowState,
    ) -> Option<usize> {
        let s = min_rtt(n, exclude, &state)?;
        let f = fastest(n, exclude, &state)?;
        let (sf, ss) = (state(f), state(s));
        if f == s || sf.srtt == 0 || ss.srtt == 0 {
            return Some(s);
        }
        // While a segment sent now on the slow subflow is outstanding (one slow
        // RTT, `rtts` fast RTTs), the fast one could send X segments, its window
        // growing by one per RTT as in congestion avoidance. If lambda * X does not
        // fit in the send window left once the slow subflow holds its in-flight
        // data and this segment, the segment would block the fast subflow.
        let rtts = ss.srtt as f64 / sf.srtt as f64;
        let x = (sf.cwnd as f64 + (rtts - 1.0) / 2.0) * rtts;
        let room = conn.window as f64 - (ss.unacked + 1) as f64;
        if self.lambda * x > room {
            None
        } else {
            Some(s)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

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
}
