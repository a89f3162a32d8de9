//! roundrobin: subflows with window space take turns, one segment each.

use super::{ConnState, Scheduler, Setup, SubflowState, OPPORTUNISTIC, PENALIZE};
use crate::ParamInfo;
use mpcc_core::params::Info;

pub const INFO: Info = Info::new(
    "roundrobin",
    "subflows with window space take turns, one segment each",
    "docs/schedulers.md#the-schedulers",
    &[OPPORTUNISTIC, PENALIZE],
);

#[derive(Clone, Debug, PartialEq)]
pub struct RoundRobin {
    /// The subflow that sent last.
    last: usize,
}

impl RoundRobin {
    pub fn from_params(_get: &impl Fn(&ParamInfo) -> f64, _setup: &Setup) -> RoundRobin {
        RoundRobin { last: usize::MAX }
    }
}

impl Scheduler for RoundRobin {
    #[inline]
    fn pick(
        &mut self, n: usize, exclude: Option<usize>, _conn: ConnState, state: impl Fn(usize) -> SubflowState,
    ) -> Option<usize> {
        let start = self.last.wrapping_add(1);
        let i = (0..n).map(|k| (start.wrapping_add(k)) % n).find(|&i| Some(i) != exclude && state(i).has_space())?;
        self.last = i;
        Some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    #[test]
    fn roundrobin_takes_turns_among_subflows_with_space() {
        let subs = [st(10, 0, 10), st(10, 10, 10), st(10, 0, 10)];
        let mut s = build("roundrobin", NONE, 3).unwrap();
        let picks: Vec<_> = (0..4).map(|_| s.pick(3, None, ANY, |i| subs[i]).unwrap()).collect();
        assert_eq!(picks, vec![0, 2, 0, 2], "subflow 1 is full");
        assert_eq!(s.pick(3, Some(0), ANY, |i| subs[i]), Some(2));
    }
}
