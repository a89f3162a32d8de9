//! Uncoupled: an independent single-path rule on every subflow. A single-path flow
//! is the one-subflow case.

use crate::{AckEvent, CongestionControl, CongestionEvent, SubflowCc};
use mpcc_core::Nanos;

/// Every subflow starts as a clone of `template` (which carries the parameters).
pub struct Uncoupled<T: Clone> {
    template: T,
    pub subflows: Vec<T>,
    /// Each subflow's rule as it was before its last reduction (for `undo`).
    saved: crate::multi::base::Saved<T>,
}

impl<T: Clone> Uncoupled<T> {
    pub fn new(template: T) -> Self {
        Uncoupled { template, subflows: Vec::new(), saved: Default::default() }
    }
}

impl<T: SubflowCc + Clone> CongestionControl for Uncoupled<T> {
    fn add_subflow(&mut self, _now: Nanos) -> usize {
        self.subflows.push(self.template.clone());
        self.subflows.len() - 1
    }
    #[inline]
    fn on_ack(&mut self, sf: usize, ev: &AckEvent) {
        self.subflows[sf].on_ack(ev)
    }
    #[inline]
    fn on_congestion(&mut self, sf: usize, ev: &CongestionEvent) {
        self.saved.save(sf, &self.subflows[sf]);
        self.subflows[sf].on_congestion(ev)
    }
    /// Nothing couples the subflows: the others never knew of it.
    fn remove_subflow(&mut self, _sf: usize, _now: Nanos) {}
    fn undo(&mut self, sf: usize, _now: Nanos) {
        if let Some(t) = self.saved.take(sf) {
            self.subflows[sf] = t;
        }
    }
    #[inline]
    fn on_recovery_exit(&mut self, sf: usize, now: Nanos) {
        self.subflows[sf].on_recovery_exit(now)
    }
    #[inline]
    fn cwnd(&self, sf: usize) -> f64 {
        self.subflows[sf].cwnd()
    }
    #[inline]
    fn ssthresh(&self, sf: usize) -> f64 {
        self.subflows[sf].ssthresh()
    }
    fn set_ssthresh(&mut self, sf: usize, v: f64) {
        self.subflows[sf].set_ssthresh(v);
    }
    fn metrics(&self, sf: usize, out: &mut dyn FnMut(&'static str, f64)) {
        self.subflows[sf].metrics(out);
    }
}
