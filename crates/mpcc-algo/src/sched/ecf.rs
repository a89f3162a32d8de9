//! ECF: minrtt, but waits for the fast subflow when it would finish the queued
//! data earlier (Lim et al., "ECF: An MPTCP Path Scheduler to Manage
//! Heterogeneous Paths", CoNEXT 2017, Algorithm 1).

use super::{fastest, min_rtt, ConnState, Scheduler, Setup, SubflowState, OPPORTUNISTIC, PENALIZE};
use crate::ParamInfo;
use mpcc_core::params::Info;

pub const BETA: ParamInfo = ParamInfo {
    name: "beta",
    default: 0.25,
    min: 0.0,
    max: 10.0,
    help: "ECF's hysteresis: keep waiting for the fast subflow while it is up to (1 + beta) times better",
    open_min: false,
};

pub const INFO: Info = Info::new(
    "ecf",
    "minrtt, but waits for the fast subflow when it would finish the queued data earlier (Lim et al. 2017)",
    "docs/schedulers.md#ecf",
    &[BETA, OPPORTUNISTIC, PENALIZE],
);

#[derive(Clone, Debug, PartialEq)]
pub struct Ecf {
    beta: f64,
    /// The last decision was to wait for the fast subflow (hysteresis).
    waiting: bool,
}

impl Ecf {
    pub fn from_params(get: &impl Fn(&ParamInfo) -> f64, _setup: &Setup) -> Ecf {
        Ecf { beta: get(&BETA), waiting: false }
    }
}

impl Scheduler for Ecf {
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
        // With k the segments waiting to be sent: the fast subflow finishes them
        // after (1 + k / cwnd_f) RTT_f (waiting for its window, then sending); the
        // slow one after RTT_s + delta (delta: the larger RTT variation). If the
        // fast one is better, wait for it, unless the slow one would carry all k
        // within 2 RTT_f + delta anyway (k / cwnd_s RTT_s). `waiting` widens the
        // first test by (1 + beta) so decisions do not flap. k counts as at least
        // one window on each subflow (as the authors' Linux code does): even one
        // segment needs a whole round trip, so k / cwnd < 1 would promise delivery
        // too early.
        let k = conn.queued as f64;
        let (rf, rs) = (sf.srtt as f64, ss.srtt as f64);
        let delta = sf.rttvar.max(ss.rttvar) as f64;
        let rounds_f = (k / sf.cwnd as f64).max(1.0);
        let rounds_s = (k / ss.cwnd as f64).max(1.0);
        let hyst = if self.waiting { 1.0 + self.beta } else { 1.0 };
        if (1.0 + rounds_f) * rf < hyst * (rs + delta) {
            if rounds_s * rs >= 2.0 * rf + delta {
                self.waiting = true;
                return None;
            }
            Some(s)
        } else {
            self.waiting = false;
            Some(s)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::Ecf;

    #[test]
    fn ecf_compares_completion_times_with_hysteresis() {
        // Fast: 10 ms, cwnd 10, full. Slow: 100 ms, cwnd 10, space. No variation.
        let subs = [st(10 * MS, 10, 10), st(100 * MS, 2, 10)];
        let q = |queued| ConnState { queued, window: 1000 };
        let ecf = |beta, waiting| AnyScheduler::Ecf(Ecf { beta, waiting });
        let mut e = build("ecf", NONE, 2).unwrap();
        // k = 95: fast at (1 + 9.5) * 10 = 105 ms >= 100 ms: send on the slow one.
        assert_eq!(e.pick(2, None, q(95), |i| subs[i]), Some(1));
        assert_eq!(e, ecf(0.25, false));
        // k = 1: fast at (1 + 1) * 10 = 20 ms (at least one round) < 100 ms, and
        // the slow one needs a round of 100 ms >= 2 * 10 ms: wait.
        assert_eq!(e.pick(2, None, q(1), |i| subs[i]), None);
        assert_eq!(e, ecf(0.25, true));
        // Now waiting, k = 95 gives 105 ms < 1.25 * 100 ms: keep waiting ...
        assert_eq!(e.pick(2, None, q(95), |i| subs[i]), None);
        // ... until the fast subflow is more than 25 % worse: k = 130, 140 ms.
        assert_eq!(e.pick(2, None, q(130), |i| subs[i]), Some(1));
        assert_eq!(e, ecf(0.25, false));
        assert_eq!(e.pick(2, None, q(95), |i| subs[i]), Some(1), "hysteresis off again");
        // delta = max(rttvar): 30 ms of variation makes the slow side 130 ms.
        let var = [SubflowState { rttvar: 30 * MS, ..subs[0] }, subs[1]];
        assert_eq!(e.pick(2, None, q(110), |i| var[i]), None, "12 * 10 ms < 130 ms, 1100 ms >= 50 ms");
        // Fast better, but the slow one (25 ms) finishes within 2 * 10 + 10 ms:
        // (1 + 1) * 10 = 20 ms < 25 + 10 ms, and 25 ms < 30 ms: send on it.
        let close = [SubflowState { rttvar: 10 * MS, ..subs[0] }, st(25 * MS, 2, 10)];
        assert_eq!(build("ecf", NONE, 2).unwrap().pick(2, None, q(5), |i| close[i]), Some(1));
        assert_eq!(build("ecf", &[("beta", 0.0)], 2).unwrap(), ecf(0.0, false));
    }
}
