//! RTT estimation and the retransmission timeout of RFC 6298.

use mpcc_core::{Nanos, NS_PER_MS};

/// Clock granularity G of RFC 6298, 1 ms (the kernel's jiffy at HZ = 1000).
const GRANULARITY: Nanos = NS_PER_MS;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    pub srtt: Nanos,
    pub rttvar: Nanos,
    pub min_rtt: Nanos,
    pub latest: Nanos,
    /// RTO before backoff.
    pub rto: Nanos,
    min_rto: Nanos,
    max_rto: Nanos,
    has_sample: bool,
}

impl RttEstimator {
    pub fn new(initial_rto: Nanos, min_rto: Nanos, max_rto: Nanos) -> Self {
        RttEstimator { srtt: 0, rttvar: 0, min_rtt: Nanos::MAX, latest: 0, rto: initial_rto, min_rto, max_rto, has_sample: false }
    }

    /// RFC 6298 section 2, one sample per ACK (RFC 7323 timestamps).
    #[inline]
    pub fn sample(&mut self, r: Nanos) {
        self.latest = r;
        self.min_rtt = self.min_rtt.min(r);
        if !self.has_sample {
            self.has_sample = true;
            self.srtt = r;
            self.rttvar = r / 2;
        } else {
            let err = self.srtt.abs_diff(r);
            self.rttvar = (3 * self.rttvar + err) / 4;
            self.srtt = (7 * self.srtt + r) / 8;
        }
        self.rto = (self.srtt + GRANULARITY.max(4 * self.rttvar)).clamp(self.min_rto, self.max_rto);
    }

    /// The timeout after `backoff` doublings (RFC 6298 5.5), capped at the maximum.
    #[inline]
    pub fn backed_off(&self, backoff: u32) -> Nanos {
        self.rto.saturating_mul(1u64 << backoff.min(20)).min(self.max_rto)
    }

    pub fn has_sample(&self) -> bool {
        self.has_sample
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc6298_first_and_second_sample() {
        let ms = NS_PER_MS;
        let mut e = RttEstimator::new(1000 * ms, 200 * ms, 60_000 * ms);
        assert_eq!(e.rto, 1000 * ms);
        e.sample(100 * ms);
        assert_eq!((e.srtt, e.rttvar), (100 * ms, 50 * ms));
        assert_eq!(e.rto, 300 * ms);
        e.sample(140 * ms);
        // rttvar = 3/4 * 50 + 1/4 * 40 = 47.5; srtt = 7/8 * 100 + 1/8 * 140 = 105
        assert_eq!((e.srtt, e.rttvar), (105 * ms, 47_500_000));
        assert_eq!(e.rto, 295 * ms);
        // The minimum RTO binds once the variance is small.
        for _ in 0..200 {
            e.sample(10 * ms);
        }
        assert_eq!(e.rto, 200 * ms);
        assert_eq!(e.backed_off(2), 800 * ms);
        assert_eq!(e.backed_off(30), 60_000 * ms);
    }
}
