//! Per-subflow state and rules shared by the coupled controllers.
//!
//! Every coupled controller keeps a `Vec` of its own per-subflow records, each of
//! which embeds a [`Path`]: the window, the threshold and the RTT view the coupling
//! terms read. Nothing here allocates after `add_subflow`.

pub use crate::common::may_grow;
use crate::common::{secs, slow_start, window_after, MIN_SSTHRESH};
use crate::{AckEvent, CongestionKind};

/// Window and RTT view of one subflow.
#[derive(Clone, Debug)]
pub struct Path {
    pub cwnd: f64,
    pub ssthresh: f64,
    /// Smoothed RTT in seconds; 0 until the first ACK (the subflow is then left
    /// out of every coupling sum, as the kernel leaves out subflows with srtt 0).
    pub srtt: f64,
    /// Latest RTT sample in seconds.
    pub rtt: f64,
    /// Smallest RTT seen in seconds (0 until known).
    pub min_rtt: f64,
}

impl Path {
    pub fn new(init_cwnd: f64) -> Path {
        Path { cwnd: init_cwnd, ssthresh: f64::INFINITY, srtt: 0.0, rtt: 0.0, min_rtt: 0.0 }
    }

    /// Takes the RTT view from an ACK. A missing smoothed RTT falls back to the sample.
    #[inline]
    pub fn observe(&mut self, ev: &AckEvent) {
        if ev.rtt > 0 {
            self.rtt = secs(ev.rtt);
        }
        if ev.srtt > 0 {
            self.srtt = secs(ev.srtt);
        } else if self.rtt > 0.0 {
            self.srtt = self.rtt;
        }
        if ev.min_rtt > 0 {
            self.min_rtt = secs(ev.min_rtt);
        } else if self.rtt > 0.0 && (self.min_rtt == 0.0 || self.rtt < self.min_rtt) {
            self.min_rtt = self.rtt;
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
        self.srtt = 0.0;
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

/// Westwood+ bandwidth estimator (Mascolo et al.; two cascaded 7/8 low-pass
/// filters over per-RTT samples of delivered segments / elapsed time, sampling
/// window at least 50 ms). Units: segments per second.
#[derive(Clone, Debug, Default)]
pub struct BwEstimator {
    /// Filtered estimate (segments/s), 0 until the first sample window closes.
    pub bw: f64,
    bw_ns: f64,
    win_start: u64,
    delivered: f64,
    started: bool,
}

impl BwEstimator {
    /// Minimum sampling window (Westwood+ uses HZ/20).
    pub const MIN_WIN: u64 = 50_000_000;

    #[inline]
    pub fn on_ack(&mut self, now: u64, acked: f64, rtt: u64) {
        if !self.started {
            self.started = true;
            self.win_start = now;
        }
        let delta = now.saturating_sub(self.win_start);
        if rtt > 0 && delta > rtt.max(Self::MIN_WIN) {
            let sample = self.delivered / secs(delta);
            if self.bw == 0.0 && self.bw_ns == 0.0 {
                self.bw = sample;
                self.bw_ns = sample;
            } else {
                self.bw_ns = (7.0 * self.bw_ns + sample) / 8.0;
                self.bw = (7.0 * self.bw + self.bw_ns) / 8.0;
            }
            self.delivered = 0.0;
            self.win_start = now;
        }
        self.delivered += acked.max(0.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn westwood_filter_matches_reference_vectors() {
        // Kernel test vectors of Linux's tcp_westwood.c filter (an integer model of
        // it), converted to segments of 1448 B and
        // seconds: window 1 (100 segs in 60 ms), 2 (120 in 55 ms), 3 (60 in 70 ms).
        let ms = 1_000_000u64;
        let mut e = BwEstimator::default();
        e.on_ack(0, 0.0, 40 * ms);
        e.on_ack(1, 100.0, 40 * ms);
        e.on_ack(60 * ms + 1, 120.0, 40 * ms);
        let s1 = 100.0 / 0.060;
        assert!((e.bw - s1).abs() < 1e-6 * s1);
        e.on_ack(115 * ms + 2, 60.0, 40 * ms);
        let s2 = 120.0 / 0.055;
        let ns2 = (7.0 * s1 + s2) / 8.0;
        let bw2 = (7.0 * s1 + ns2) / 8.0;
        assert!((e.bw - bw2).abs() < 1e-3, "{} vs {}", e.bw, bw2);
        // In bytes per ms this is the reference's 2424 (integer) within 1 %.
        assert!((bw2 * 1448.0 / 1000.0 - 2424.0).abs() < 0.01 * 2424.0);
    }
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
