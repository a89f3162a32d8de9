//! Per-subflow state and rules shared by the coupled controllers.
//!
//! Every coupled controller keeps a `Vec` of its own per-subflow records, each of
//! which embeds a [`Path`]: the window, the threshold and the RTT view the coupling
//! terms read. Nothing here allocates after `add_subflow`.

pub use crate::common::may_grow;
use crate::common::{secs, slow_start, window_after, MIN_SSTHRESH};
use crate::{AckEvent, CongestionKind};
use mpcc_core::Nanos;

/// Window and RTT view of one subflow.
#[derive(Clone, Debug)]
pub struct Path {
    pub cwnd: f64,
    pub ssthresh: f64,
    /// Smoothed RTT in seconds; 0 until the first ACK (the subflow is then left
    /// out of every coupling sum, as the kernel leaves out subflows with srtt 0).
    pub srtt: f64,
    /// The sender's smoothed RTT (ns) `srtt` was converted from (0 when it came
    /// from a sample, or none): converted again only when that changes, and it
    /// keeps its value over most ACKs of a steady queue.
    pub srtt_ns: Nanos,
    /// Latest RTT sample (ns; `rtt()` in seconds, converted when read: only a few
    /// rules read it, and it changes with every ACK).
    pub rtt_ns: Nanos,
    /// Smallest RTT seen in seconds (0 until known), and the sender's minimum it was
    /// converted from (0 when it came from a sample instead): converted only when
    /// that changes, which is rarely.
    pub min_rtt: f64,
    pub min_rtt_ns: Nanos,
}

impl Path {
    pub fn new(init_cwnd: f64) -> Path {
        Path { cwnd: init_cwnd, ssthresh: f64::INFINITY, srtt: 0.0, srtt_ns: 0, rtt_ns: 0, min_rtt: 0.0, min_rtt_ns: 0 }
    }

    /// The latest RTT sample in seconds (0 before any).
    #[inline]
    pub fn rtt(&self) -> f64 {
        secs(self.rtt_ns)
    }

    /// Takes the RTT view from an ACK. A missing smoothed RTT falls back to the sample.
    #[inline]
    pub fn observe(&mut self, ev: &AckEvent) {
        if ev.rtt > 0 {
            self.rtt_ns = ev.rtt;
        }
        if ev.srtt > 0 {
            if ev.srtt != self.srtt_ns {
                (self.srtt, self.srtt_ns) = (secs(ev.srtt), ev.srtt);
            }
        } else if self.rtt_ns > 0 {
            (self.srtt, self.srtt_ns) = (self.rtt(), 0);
        }
        if ev.min_rtt > 0 {
            if ev.min_rtt != self.min_rtt_ns {
                (self.min_rtt, self.min_rtt_ns) = (secs(ev.min_rtt), ev.min_rtt);
            }
        } else if self.rtt_ns > 0 && (self.min_rtt == 0.0 || self.rtt() < self.min_rtt) {
            (self.min_rtt, self.min_rtt_ns) = (self.rtt(), 0);
        }
    }

    /// The segments of this ACK left for the coupled congestion-avoidance increase:
    /// 0 when the window may not grow (`may_grow`), otherwise what slow start leaves.
    #[inline]
    pub fn ca_segments(&mut self, ev: &AckEvent) -> f64 {
        if !may_grow(ev) {
            return 0.0;
        }
        slow_start(&mut self.cwnd, self.ssthresh, ev.acked)
    }

    /// True once the subflow has an RTT and takes part in the coupling sums.
    #[inline]
    pub fn eligible(&self) -> bool {
        self.srtt > 0.0
    }

    /// Sending rate w / srtt in segments per second (0 if not eligible).
    #[inline]
    pub fn rate(&self) -> f64 {
        if self.srtt > 0.0 {
            self.cwnd / self.srtt
        } else {
            0.0
        }
    }

    /// Reno-style reaction with a given new threshold: cwnd = ssthresh on a loss or
    /// ECN (recovery entered at the reduced window), cwnd = 1 on a timeout. The
    /// threshold is floored at 2 segments, as Linux does.
    #[inline]
    pub fn reduce_to(&mut self, kind: CongestionKind, ssthresh: f64) {
        self.ssthresh = ssthresh.max(MIN_SSTHRESH);
        self.cwnd = window_after(kind, self.ssthresh);
    }

    /// The subflow left the connection: no window and no RTT, so it drops out of
    /// every coupling sum (`eligible` is false, `rate` is 0).
    pub fn retire(&mut self) {
        self.cwnd = 0.0;
        (self.srtt, self.srtt_ns) = (0.0, 0);
    }

    /// Reno halving (the decrease of LIA, OLIA, EWTCP, ...).
    #[inline]
    pub fn halve(&mut self, kind: CongestionKind) {
        self.reduce_to(kind, self.cwnd * 0.5);
    }
}

/// The LIA-family denominator for subflow `r` given the best path `b`:
/// `s = sum_i w_i * (rtt_b / rtt_i)` over eligible subflows, so that
/// `(sum_i w_i / rtt_i)^2 = (s / rtt_b)^2`. Written this way the one-subflow case
/// gives `s == w` exactly (rtt_b / rtt_b == 1), which keeps Reno equivalence bit-exact.
#[inline]
pub fn scaled_sum<'a>(rtt_b: f64, paths: impl Iterator<Item = &'a Path>) -> f64 {
    let mut s = 0.0;
    for p in paths {
        if p.eligible() {
            s += p.cwnd * (rtt_b / p.srtt);
        }
    }
    s
}

/// Index of the eligible subflow maximising `key`, ties to the first; None if none.
#[inline]
pub fn argmax<'a>(paths: impl Iterator<Item = &'a Path>, key: impl Fn(&Path) -> f64) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, p) in paths.enumerate() {
        if !p.eligible() {
            continue;
        }
        let k = key(p);
        if best.is_none_or(|(_, bk)| k > bk) {
            best = Some((i, k));
        }
    }
    best.map(|(i, _)| i)
}

/// What the last reduction changed on each subflow, kept for `undo` (a
/// spurious loss or timeout): the subflow's state just before it.
#[derive(Clone, Debug)]
pub struct Saved<P>(Vec<Option<P>>);

impl<P> Default for Saved<P> {
    fn default() -> Self {
        Saved(Vec::new())
    }
}

impl<P: Clone> Saved<P> {
    /// Keeps `p` as subflow `sf`'s state before a reduction (not per packet:
    /// once per loss episode).
    pub fn save(&mut self, sf: usize, p: &P) {
        if self.0.len() <= sf {
            self.0.resize_with(sf + 1, || None);
        }
        self.0[sf] = Some(p.clone());
    }

    /// The state saved for `sf`, once.
    pub fn take(&mut self, sf: usize) -> Option<P> {
        self.0.get_mut(sf).and_then(Option::take)
    }
}
