//! The driver every coupled controller shares: a table of per-subflow records and
//! the per-ACK skeleton (RTT view, slow start, then the rule's increase), the
//! reduction with its undo, subflow removal and the window accessors. A controller
//! supplies only its [`CouplingRule`]: `Coupled<R>` is to the coupled rules what
//! [`Uncoupled`](crate::Uncoupled) is to the single-path ones.

use super::base::{Path, Saved};
use crate::{AckEvent, CongestionControl, CongestionEvent};
use mpcc_core::Nanos;

/// One subflow's record: the window view every coupling reads, plus whatever the
/// rule keeps per subflow. Kept whole for `undo`.
pub trait Record: Clone + std::fmt::Debug {
    fn path(&self) -> &Path;
    fn path_mut(&mut self) -> &mut Path;
    /// The subflow left: it must drop out of every coupling sum.
    fn retire(&mut self) {
        self.path_mut().retire();
    }
}

/// `Record` for a rule's per-subflow struct whose window view is its field `p`. The
/// optional `retire` block runs after `p` has retired, for the rule's own terms in
/// the coupling sums: `record!(MyPath, |r| r.rate = 0.0)`.
macro_rules! record {
    ($t:ty) => {
        record!($t, |_r| {});
    };
    ($t:ty, |$r:ident| $retire:expr) => {
        impl $crate::multi::window::Record for $t {
            #[inline]
            fn path(&self) -> &$crate::multi::base::Path {
                &self.p
            }
            #[inline]
            fn path_mut(&mut self) -> &mut $crate::multi::base::Path {
                &mut self.p
            }
            fn retire(&mut self) {
                self.p.retire();
                let $r = self;
                $retire;
            }
        }
    };
}
pub(crate) use record;

impl Record for Path {
    #[inline]
    fn path(&self) -> &Path {
        self
    }
    #[inline]
    fn path_mut(&mut self) -> &mut Path {
        self
    }
}

/// What one coupled controller adds to the shared driver. The rule sees the whole
/// table (`subs`) because its coupling terms read every subflow.
pub trait CouplingRule {
    type Sub: Record;
    /// A new subflow's record (the rule may also size state of its own that `undo`
    /// must not restore).
    fn new_subflow(&mut self, init_cwnd: f64) -> Self::Sub;
    /// Every ACK, after the record's [`Path`] took the ACK's RTTs and before any
    /// growth: the rule's own samples (estimators, loss distance, rounds).
    #[inline]
    fn observe(&mut self, _sub: &mut Self::Sub, _ev: &AckEvent) {}
    /// The window step of an ACK: slow start, then [`increase`](Self::increase)
    /// with the segments slow start left (none when the window may not grow).
    /// Rules that move once per round override it.
    #[inline]
    fn grow(&mut self, subs: &mut [Self::Sub], sf: usize, ev: &AckEvent) {
        let left = subs[sf].path_mut().ca_segments(ev);
        if left > 0.0 {
            self.increase(subs, sf, left, ev);
        }
    }
    /// Congestion avoidance: subflow `sf` grows for `left` delivered segments.
    fn increase(&mut self, subs: &mut [Self::Sub], sf: usize, left: f64, ev: &AckEvent);
    /// A congestion signal on `sf` (its record was saved for `undo` just before).
    fn decrease(&mut self, subs: &mut [Self::Sub], sf: usize, ev: &CongestionEvent);
    /// The recovery epoch of `sf` ended.
    #[inline]
    fn recovery_exit(&mut self, _subs: &mut [Self::Sub], _sf: usize, _now: Nanos) {}
    /// `sf` left the connection: it no longer counts in any coupling term.
    fn remove(&mut self, subs: &mut [Self::Sub], sf: usize) {
        subs[sf].retire();
    }
    /// The rule's coupling terms for subflow `sf` (see `CongestionControl::metrics`).
    fn metrics(&self, _subs: &[Self::Sub], _sf: usize, _out: &mut dyn FnMut(&'static str, f64)) {}
}

/// A coupled controller: rule `R` over a table of per-subflow records indexed by
/// the dense subflow id. Nothing here allocates after `add_subflow`.
#[derive(Clone, Debug)]
pub struct Coupled<R: CouplingRule> {
    init_cwnd: f64,
    pub rule: R,
    pub(crate) paths: Vec<R::Sub>,
    saved: Saved<R::Sub>,
}

impl<R: CouplingRule> Coupled<R> {
    pub fn with_rule(init_cwnd: f64, rule: R) -> Self {
        Coupled { init_cwnd, rule, paths: Vec::new(), saved: Saved::default() }
    }
}

impl<R: CouplingRule> CongestionControl for Coupled<R> {
    fn add_subflow(&mut self, _now: Nanos) -> usize {
        let s = self.rule.new_subflow(self.init_cwnd);
        self.paths.push(s);
        self.paths.len() - 1
    }
    #[inline]
    fn on_ack(&mut self, sf: usize, ev: &AckEvent) {
        let s = &mut self.paths[sf];
        s.path_mut().observe(ev);
        self.rule.observe(s, ev);
        self.rule.grow(&mut self.paths, sf, ev);
    }
    fn on_congestion(&mut self, sf: usize, ev: &CongestionEvent) {
        self.saved.save(sf, &self.paths[sf]);
        self.rule.decrease(&mut self.paths, sf, ev);
    }
    #[inline]
    fn on_recovery_exit(&mut self, sf: usize, now: Nanos) {
        self.rule.recovery_exit(&mut self.paths, sf, now);
    }
    #[inline]
    fn cwnd(&self, sf: usize) -> f64 {
        self.paths[sf].path().cwnd
    }
    #[inline]
    fn ssthresh(&self, sf: usize) -> f64 {
        self.paths[sf].path().ssthresh
    }
    fn set_ssthresh(&mut self, sf: usize, v: f64) {
        self.paths[sf].path_mut().ssthresh = v;
    }
    /// The record before the last reduction comes back whole (docs/tcp-recovery.md#f-rto-rfc-5682-section-2-the-basic-algorithm-and-undo).
    fn undo(&mut self, sf: usize, _now: Nanos) {
        if let Some(p) = self.saved.take(sf) {
            self.paths[sf] = p;
        }
    }
    fn remove_subflow(&mut self, sf: usize, _now: Nanos) {
        self.rule.remove(&mut self.paths, sf);
    }
    fn metrics(&self, sf: usize, out: &mut dyn FnMut(&'static str, f64)) {
        self.rule.metrics(&self.paths, sf, out);
    }
}
