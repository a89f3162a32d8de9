//! RTT estimation and the retransmission timeout: RFC 6298's, or Linux's
//! (`tcp.rto_linux`).

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
    /// Linux's variation state, when the timeout follows Linux.
    linux: Option<LinuxVar>,
}

/// Linux's timeout (`tcp_rtt_estimator`, `__tcp_set_rto` in tcp_input.c): the
/// RTO is srtt plus `rttvar`, which is at least the minimum RTO and at least the
/// largest `mdev` (four times the mean deviation, updated as RFC 6298's but with
/// a decrease of the RTT weighted 1/32 instead of 1/4) seen in the current round
/// trip, and falls by a quarter of its excess each round trip. So the minimum RTO
/// is added to srtt rather than bounding the sum, as in RFC 6298: at srtt 100 ms
/// and a steady RTT, Linux waits 300 ms where RFC 6298 waits 200 ms.
#[derive(Clone, Copy, Debug, Default)]
struct LinuxVar {
    mdev: Nanos,
    mdev_max: Nanos,
    rttvar: Nanos,
    /// The round trip ends when the cumulative ACK passes this segment (snd_nxt
    /// when it began: Linux's rtt_seq).
    round_end: u64,
}

impl RttEstimator {
    /// `linux`: the timeout as Linux computes it (`LinuxVar`); otherwise RFC 6298's.
    pub fn new(initial_rto: Nanos, min_rto: Nanos, max_rto: Nanos, linux: bool) -> Self {
        RttEstimator {
            srtt: 0,
            rttvar: 0,
            min_rtt: Nanos::MAX,
            latest: 0,
            rto: initial_rto,
            min_rto,
            max_rto,
            has_sample: false,
            linux: linux.then(LinuxVar::default),
        }
    }

    /// One sample per ACK (RFC 7323 timestamps): srtt and rttvar by RFC 6298
    /// section 2 in either rule (controllers read them); the timeout by RFC 6298,
    /// or by Linux's rule with `una` the cumulative ACK and `nxt` the next new
    /// segment (which delimit its round trips).
    #[inline(always)]
    pub fn sample(&mut self, r: Nanos, una: u64, nxt: u64) {
        // One test of the rule for both its parts.
        if let Some(v) = &mut self.linux {
            v.sample(r, self.srtt, self.has_sample, self.min_rto, una, nxt);
            let rttvar = v.rttvar;
            self.smooth(r);
            self.rto = (self.srtt + rttvar).min(self.max_rto);
        } else {
            let (had, srtt, rttvar) = (self.has_sample, self.srtt, self.rttvar);
            self.smooth(r);
            // The timeout is a function of srtt and rttvar alone (only `sample` sets it):
            // unchanged while both are, as over most ACKs of a steady queue.
            if !had || self.srtt != srtt || self.rttvar != rttvar {
                self.rto = (self.srtt + GRANULARITY.max(4 * self.rttvar)).clamp(self.min_rto, self.max_rto);
            }
        }
    }

    /// srtt and rttvar by RFC 6298 section 2 (either rule), and the minimum.
    #[inline(always)]
    fn smooth(&mut self, r: Nanos) {
        self.latest = r;
        // A test, not `min`: a new minimum is rare, and an untaken branch stores nothing.
        if r < self.min_rtt {
            self.min_rtt = r;
        }
        if !self.has_sample {
            self.has_sample = true;
            self.srtt = r;
            self.rttvar = r / 2;
        } else {
            let err = self.srtt.abs_diff(r);
            self.rttvar = (3 * self.rttvar + err) / 4;
            self.srtt = (7 * self.srtt + r) / 8;
        }
    }

    /// The timeout after `backoff` doublings (RFC 6298 5.5), capped at the maximum.
    #[inline]
    pub fn backed_off(&self, backoff: u32) -> Nanos {
        // No doubling, the usual case: the product is `rto` itself.
        if backoff == 0 {
            return self.rto.min(self.max_rto);
        }
        self.rto.saturating_mul(1u64 << backoff.min(20)).min(self.max_rto)
    }

    pub fn has_sample(&self) -> bool {
        self.has_sample
    }
}

impl LinuxVar {
    /// `srtt` as before this sample; `has_sample`: whether an earlier one set it.
    #[inline(never)]
    fn sample(&mut self, r: Nanos, srtt: Nanos, has_sample: bool, min_rto: Nanos, una: u64, nxt: u64) {
        if !has_sample {
            // rto = r + 2r at first (Linux: "make sure rto = 3*rtt"), at least r + min_rto.
            self.mdev = 2 * r;
            self.rttvar = self.mdev.max(min_rto);
            self.mdev_max = self.rttvar;
            self.round_end = nxt;
            return;
        }
        let quarter = self.mdev / 4;
        if r < srtt {
            // A falling RTT moves mdev 1/32 of the way (Eifel's finding: a drop in
            // the RTT should not raise the timeout).
            let err = srtt - r;
            self.mdev = if err > quarter { self.mdev + (err - quarter) / 8 } else { self.mdev - (quarter - err) };
        } else {
            let err = r - srtt;
            self.mdev = self.mdev + err - quarter;
        }
        if self.mdev > self.mdev_max {
            self.mdev_max = self.mdev;
            self.rttvar = self.rttvar.max(self.mdev_max);
        }
        if una > self.round_end {
            if self.mdev_max < self.rttvar {
                self.rttvar -= (self.rttvar - self.mdev_max) / 4;
            }
            self.round_end = nxt;
            self.mdev_max = min_rto;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc6298_first_and_second_sample() {
        let ms = NS_PER_MS;
        let mut e = RttEstimator::new(1000 * ms, 200 * ms, 60_000 * ms, false);
        assert_eq!(e.rto, 1000 * ms);
        e.sample(100 * ms, 0, 0);
        assert_eq!((e.srtt, e.rttvar), (100 * ms, 50 * ms));
        assert_eq!(e.rto, 300 * ms);
        e.sample(140 * ms, 0, 0);
        // rttvar = 3/4 * 50 + 1/4 * 40 = 47.5; srtt = 7/8 * 100 + 1/8 * 140 = 105
        assert_eq!((e.srtt, e.rttvar), (105 * ms, 47_500_000));
        assert_eq!(e.rto, 295 * ms);
        // The minimum RTO binds once the variance is small.
        for _ in 0..200 {
            e.sample(10 * ms, 0, 0);
        }
        assert_eq!(e.rto, 200 * ms);
        assert_eq!(e.backed_off(2), 800 * ms);
        assert_eq!(e.backed_off(30), 60_000 * ms);
    }

    /// The RFC 6298 timeout is recomputed whenever srtt or rttvar moved, either alone.
    #[test]
    fn rto_follows_srtt_and_rttvar_each_alone() {
        let ms = NS_PER_MS;
        let rule = |e: &RttEstimator| (e.srtt + GRANULARITY.max(4 * e.rttvar)).clamp(200 * ms, 60_000 * ms);
        let mut e = RttEstimator::new(1000 * ms, 200 * ms, 60_000 * ms, false);
        e.sample(1000 * ms, 0, 0);
        // rttvar 300 ms: err 300 ms keeps it, srtt moves by 300/8 ms.
        (e.srtt, e.rttvar) = (1000 * ms, 300 * ms);
        e.sample(1300 * ms, 0, 0);
        assert_eq!((e.srtt, e.rttvar), (1_037_500_000, 300 * ms));
        assert_eq!(e.rto, rule(&e));
        // A sample equal to srtt keeps srtt, and rttvar falls by a quarter.
        e.sample(e.srtt, 0, 0);
        assert_eq!((e.srtt, e.rttvar), (1_037_500_000, 225 * ms));
        assert_eq!(e.rto, rule(&e));
        // Both unchanged: the timeout too.
        e.rttvar = 0;
        e.rto = rule(&e);
        e.sample(e.srtt + 3, 0, 0);
        assert_eq!((e.srtt, e.rttvar), (1_037_500_000, 0));
        assert_eq!(e.rto, rule(&e));
        let mut x: u64 = 1;
        for _ in 0..10_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            e.sample(e.srtt + (x >> 40) % 9 - 4, 0, 0);
            assert_eq!(e.rto, rule(&e));
        }
    }

    #[test]
    fn linux_adds_the_minimum_rto_to_srtt_and_decays_per_round_trip() {
        let ms = NS_PER_MS;
        let near = |a: Nanos, b: f64| (a as f64 / ms as f64 - b).abs() < 0.01;
        let (mut linux, mut rfc) = (
            RttEstimator::new(1000 * ms, 200 * ms, 60_000 * ms, true),
            RttEstimator::new(1000 * ms, 200 * ms, 60_000 * ms, false),
        );
        for e in [&mut linux, &mut rfc] {
            e.sample(100 * ms, 0, 10);
        }
        // First sample: mdev = 2 r, so rto = 3 r in both rules.
        assert_eq!((linux.rto, rfc.rto), (300 * ms, 300 * ms));
        for _ in 0..40 {
            linux.sample(100 * ms, 5, 10);
            rfc.sample(100 * ms, 5, 10);
        }
        // A steady RTT: RFC 6298 falls to its floor, Linux keeps srtt + min_rto.
        assert_eq!((rfc.rto, linux.rto), (200 * ms, 300 * ms));
        assert_eq!((linux.srtt, linux.rttvar), (rfc.srtt, rfc.rttvar), "srtt and rttvar are RFC 6298's in both");
        // A jump: mdev = 300 ms raises rttvar at once; srtt = 137.5 ms.
        linux.sample(400 * ms, 5, 10);
        assert!(near(linux.rto, 437.5), "{}", linux.rto);
        // The round trip ends (una passes 10): rttvar equals the round's largest mdev, so stays.
        linux.sample(linux.srtt, 11, 20);
        assert!(near(linux.rto, 437.5), "{}", linux.rto);
        // The next round's largest mdev is the floor: rttvar falls by a quarter of its excess.
        linux.sample(linux.srtt, 21, 30);
        assert!(near(linux.rto, 137.5 + 275.0), "{}", linux.rto);
    }
}
