//! redundant: every segment on every subflow with window space; the receiver keeps
//! the first copy (Linux's redundant scheduler). Each subflow keeps a cursor, the
//! first DSN it has not carried, and sends `max(cursor, DATA_ACK)`, a new DSN once
//! it has carried all: every subflow carries every DSN it can keep up with, and
//! nothing needs reinjecting. Segments it cannot copy (reinjections, which it
//! never queues, and a single path) go by minrtt.

use super::{min_rtt, ConnState, Scheduler, Setup, SubflowState};
use crate::ParamInfo;
use mpcc_core::params::Info;

pub const INFO: Info = Info::new(
    "redundant",
    "every segment on every subflow with window space; the receiver keeps the first copy (Linux's redundant)",
    "docs/schedulers.md#redundant",
    &[],
);

#[derive(Clone, Debug, PartialEq)]
pub struct Redundant {
    /// `next[i]`: the first DSN subflow `i` has not carried yet.
    next: Vec<u64>,
}

impl Redundant {
    pub fn from_params(_get: &impl Fn(&ParamInfo) -> f64, setup: &Setup) -> Redundant {
        Redundant { next: vec![0; setup.n] }
    }
}

impl Scheduler for Redundant {
    #[inline]
    fn pick(
        &mut self, n: usize, exclude: Option<usize>, _conn: ConnState, state: impl Fn(usize) -> SubflowState,
    ) -> Option<usize> {
        min_rtt(n, exclude, &state)
    }

    /// One subflow is plain TCP.
    #[inline]
    fn copies(&self) -> bool {
        self.next.len() > 1
    }

    #[inline]
    fn copy(&mut self, i: usize, una: u64, nxt: u64, has_new: bool) -> Option<u64> {
        let dsn = self.next[i].max(una);
        if dsn == nxt && !has_new {
            return None;
        }
        self.next[i] = dsn + 1;
        Some(dsn)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    #[test]
    fn redundant_has_one_cursor_per_subflow() {
        let r = build("redundant", NONE, 3).unwrap();
        assert!(r.copies());
        assert_eq!(r, AnyScheduler::Redundant(super::Redundant { next: vec![0; 3] }));
        assert!(!build("redundant", NONE, 1).unwrap().copies(), "one subflow: plain TCP");
        assert!(!build("minrtt", NONE, 3).unwrap().copies());
    }

    #[test]
    fn each_subflow_copies_from_its_cursor_or_the_data_ack() {
        let mut r = build("redundant", NONE, 2).unwrap();
        // Subflow 0 carries DSNs 0 and 1 (new); subflow 1 then copies 0 ...
        assert_eq!(r.copy(0, 0, 0, true), Some(0));
        assert_eq!(r.copy(0, 0, 1, true), Some(1));
        assert_eq!(r.copy(1, 0, 2, true), Some(0));
        // ... unless the DATA_ACK passed it: then from the DATA_ACK.
        assert_eq!(r.copy(1, 2, 2, true), Some(2));
        // Caught up and no new data: nothing.
        assert_eq!(r.copy(1, 2, 3, false), None);
        assert_eq!(r.copy(0, 2, 3, false), Some(2), "subflow 0 still has DSN 2 to copy");
    }
}
