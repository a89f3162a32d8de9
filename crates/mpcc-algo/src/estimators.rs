//! Estimators shared by several controllers.

use crate::common::secs;
use mpcc_core::{Nanos, NS_PER_MS};

/// Westwood+ bandwidth estimator (Mascolo, Grieco et al.): segments delivered over
/// one sampling window (longer than one RTT and than 50 ms) give one sample;
/// samples pass through two cascaded 7/8 low-pass stages. Units: segments per
/// second. Used by Westwood+ and by the multipath Westwood couplings.
#[derive(Clone, Debug)]
pub struct BwEstimator {
    /// First filter stage.
    pub bw_ns: f64,
    /// The estimate (second stage); 0 until the first sampling window closes.
    pub bw: f64,
    /// Segments delivered in the current sampling window.
    pub delivered: f64,
    /// Start of the current sampling window; None before the first ACK.
    win_start: Option<Nanos>,
    /// Whether the ACK that opens the first window counts (see `multipath`).
    count_opening: bool,
}

impl BwEstimator {
    /// Shortest sampling window (Linux: HZ/20), so that very short RTTs do not
    /// yield samples of one or two ACKs.
    pub const MIN_WINDOW: Nanos = 50 * NS_PER_MS;

    /// As Linux: the first ACK only opens the window, since what it acknowledges
    /// was sent before it.
    pub fn new() -> BwEstimator {
        BwEstimator { bw_ns: 0.0, bw: 0.0, delivered: 0.0, win_start: None, count_opening: false }
    }

    /// The multipath Westwood couplings count the opening ACK's segments as well;
    /// kept so that their results do not move (a one-ACK difference in the first
    /// sample only).
    pub fn multipath() -> BwEstimator {
        BwEstimator { count_opening: true, ..BwEstimator::new() }
    }

    /// One ACK: `acked` segments delivered at `now`, with the RTT that sizes the
    /// sampling window (0: none, the window stays open).
    #[inline]
    pub fn on_ack(&mut self, now: Nanos, acked: f64, rtt: Nanos) {
        match self.win_start {
            None => {
                self.win_start = Some(now);
                if !self.count_opening {
                    return;
                }
            }
            Some(t0) => {
                let elapsed = now.saturating_sub(t0);
                // Close the window before counting this ACK, so a sample covers whole RTTs.
                if rtt > 0 && elapsed > rtt.max(Self::MIN_WINDOW) {
                    self.filter(self.delivered / secs(elapsed));
                    self.delivered = 0.0;
                    self.win_start = Some(now);
                }
            }
        }
        // acked counts SACKed segments too, so duplicate ACKs need no credit.
        self.delivered += acked.max(0.0);
    }

    /// One bandwidth sample through the two low-pass stages (the first seeds both).
    #[inline]
    pub fn filter(&mut self, sample: f64) {
        if self.bw == 0.0 && self.bw_ns == 0.0 {
            self.bw_ns = sample;
            self.bw = sample;
        } else {
            self.bw_ns = (7.0 * self.bw_ns + sample) / 8.0;
            self.bw = (7.0 * self.bw + self.bw_ns) / 8.0;
        }
    }
}

impl Default for BwEstimator {
    fn default() -> Self {
        BwEstimator::new()
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
        let mut e = BwEstimator::multipath();
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

    #[test]
    fn opening_ack_counts_only_in_the_multipath_variant() {
        let (mut a, mut b) = (BwEstimator::new(), BwEstimator::multipath());
        for e in [&mut a, &mut b] {
            e.on_ack(0, 3.0, 10 * NS_PER_MS);
            e.on_ack(NS_PER_MS, 2.0, 10 * NS_PER_MS);
        }
        assert_eq!((a.delivered, b.delivered), (2.0, 5.0));
    }
}
