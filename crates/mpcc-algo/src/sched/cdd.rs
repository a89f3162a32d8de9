//! CDD-MPTCP's scheduler (Tao & Yan; its controller is `multi/cdd.rs`): the lowest
//! congestion coefficient gamma = unacked / cwnd, ties to the lower smoothed
//! forward (one-way) delay, D = 0.25 D_new + 0.75 D.

use super::{AckSample, ConnState, Scheduler, Setup, SubflowState};
use crate::ParamInfo;
use mpcc_core::params::Info;
use mpcc_core::Nanos;

pub const INFO: Info = Info::new(
    "cdd",
    "lowest congestion coefficient unacked/cwnd, ties to the lower forward delay (CDD-MPTCP, Tao & Yan)",
    "docs/schedulers.md#cdd",
    &[],
);

#[derive(Clone, Debug, PartialEq)]
pub struct Cdd {
    /// `owd[i]`: smoothed forward (one-way) delay of subflow `i`, 0 before a sample.
    owd: Vec<Nanos>,
}

impl Cdd {
    pub fn from_params(_get: &impl Fn(&ParamInfo) -> f64, setup: &Setup) -> Cdd {
        Cdd { owd: vec![0; setup.n] }
    }
}

impl Scheduler for Cdd {
    #[inline]
    fn on_ack(&mut self, a: &AckSample) {
        // The first sample as is.
        let e = &mut self.owd[a.sub];
        *e = if *e == 0 { a.owd.max(1) } else { (a.owd + 3 * *e) / 4 };
    }

    #[inline]
    fn pick(
        &mut self, n: usize, exclude: Option<usize>, _conn: ConnState, state: impl Fn(usize) -> SubflowState,
    ) -> Option<usize> {
        // Smallest gamma, compared exactly as unacked_a * cwnd_b < unacked_b *
        // cwnd_a; ties to the smaller smoothed forward delay (0, unmeasured,
        // first), then the lower index.
        let mut best: Option<(usize, u128, u128, Nanos)> = None;
        for i in 0..n {
            if Some(i) == exclude || !state(i).has_space() {
                continue;
            }
            let st = state(i);
            let (u, c, d) = (st.unacked as u128, st.cwnd.max(1) as u128, self.owd[i]);
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
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::Cdd;

    fn ack(c: &mut AnyScheduler, sub: usize, owd: Nanos) {
        c.on_ack(&AckSample { sub, owd, rtt: 0 });
    }

    #[test]
    fn cdd_picks_the_lowest_gamma_and_breaks_ties_by_forward_delay() {
        // gamma: 5/10 = 0.5, 2/10 = 0.2, 1/5 = 0.2, 0/4 = 0 but no space.
        let subs = [
            SubflowState { unacked: 5, ..st(10 * MS, 5, 10) },
            SubflowState { unacked: 2, ..st(50 * MS, 2, 10) },
            SubflowState { unacked: 1, ..st(90 * MS, 1, 5) },
            SubflowState { unacked: 0, ..st(MS, 4, 4) },
        ];
        let mut c = build("cdd", NONE, 4).unwrap();
        assert_eq!(c.pick(4, None, ANY, |i| subs[i]), Some(1), "tie 1/2 unmeasured: lower index");
        ack(&mut c, 1, 30 * MS);
        ack(&mut c, 2, 20 * MS);
        assert_eq!(c.pick(4, None, ANY, |i| subs[i]), Some(2), "tie on gamma: 20 ms < 30 ms");
        // D2 = 0.25 * 80 + 0.75 * 20 = 35 ms > 30 ms.
        ack(&mut c, 2, 80 * MS);
        assert_eq!(c, AnyScheduler::Cdd(Cdd { owd: vec![0, 30 * MS, 35 * MS, 0] }));
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
}
