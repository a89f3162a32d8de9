//! wVegas, weighted Vegas (Cao, Xu, Fu, "Delay-based congestion control for
//! multipath TCP", ICNP 2012).
//!
//! Once per round on subflow r, with `rtt` the mean RTT of the round and `base` the
//! smallest RTT seen: `diff_r = w_r (rtt - base) / rtt` (packets queued),
//! `weight_r = x_r / sum_k x_k` (x = w / rtt of each subflow's last round) and
//! `alpha_r = max(alpha_min, weight_r * total_alpha)`. In congestion avoidance
//! `w_r += 1` if `diff_r < alpha_r`, `w_r -= 1` if `diff_r > alpha_r`. If the
//! queueing delay `rtt - base` is at least twice the smallest positive queueing
//! delay seen since the last drain, `w_r *= base / (2 rtt)` (queue drain). Slow
//! start leaves when `diff_r > gamma` (Vegas). Loss: Reno halving.

use super::base::{may_grow, Path};
use super::window::{record, Coupled, CouplingRule};
use crate::common::{secs, slow_start};
use crate::params::{param, Info, INIT_CWND};
use crate::Controller;
use crate::{AckEvent, CongestionEvent};
use mpcc_core::Nanos;

// ---- registry entry and builder (listed in mod.rs) ----

pub const INFO: Info = Info::new(
    "wvegas",
    "weighted Vegas (Cao, Xu, Fu 2012): delay-based, per-round, weighted alpha",
    "docs/algorithms/wvegas.md",
    &[
        INIT_CWND,
        param("total_alpha", 10.0, 1.0, 100.0, "packets queued by the whole connection, shared by rate weight"),
        param("alpha_min", 2.0, 0.0, 50.0, "smallest per-subflow alpha (packets)"),
        param("gamma", 1.0, 0.0, 50.0, "slow-start exit threshold (packets queued)"),
    ],
);

pub fn build(p: &dyn Fn(&str) -> f64) -> Controller {
    Controller::Wvegas(WVegas::new(p("init_cwnd"), p("total_alpha"), p("alpha_min"), p("gamma")))
}

#[derive(Clone, Debug)]
pub struct VegasPath {
    pub p: Path,
    /// Lifetime minimum RTT (s).
    pub base: f64,
    rtt_sum: f64,
    rtt_cnt: u32,
    /// w / mean rtt of the last completed round (0 until one completes).
    pub rate: f64,
    pub alpha: f64,
    /// Smallest positive queueing delay since the last drain (s), 0 = none yet.
    pub queue_delay: f64,
}

// Out of every coupling sum, its rate (the weights' denominator) included.
record!(VegasPath, |r| r.rate = 0.0);

/// wVegas's rule.
#[derive(Clone, Debug)]
pub struct WVegasRule {
    pub total_alpha: f64,
    pub alpha_min: f64,
    pub gamma: f64,
}

/// wVegas: its rule over the shared per-subflow driver.
pub type WVegas = Coupled<WVegasRule>;

impl WVegas {
    pub fn new(init_cwnd: f64, total_alpha: f64, alpha_min: f64, gamma: f64) -> WVegas {
        Coupled::with_rule(init_cwnd, WVegasRule { total_alpha, alpha_min, gamma })
    }

    /// The once-per-round decision for subflow r, with mean RTT `rtt` (s).
    #[cfg(test)]
    pub(crate) fn round(&mut self, r: usize, rtt: f64) {
        self.rule.round(&mut self.paths, r, rtt);
    }
}

impl WVegasRule {
    /// The once-per-round decision for subflow r, with mean RTT `rtt` (s).
    fn round(&self, paths: &mut [VegasPath], r: usize, rtt: f64) {
        let v = &mut paths[r];
        let (w, base) = (v.p.cwnd, v.base);
        if !(rtt > 0.0 && base > 0.0) {
            return;
        }
        let diff = w * (rtt - base) / rtt;
        v.rate = w / rtt;
        if v.p.cwnd < v.p.ssthresh {
            // Vegas slow-start exit: too many packets queued.
            if diff > self.gamma {
                v.p.cwnd = v.p.cwnd.min(w * base / rtt + 1.0).max(2.0);
                v.p.ssthresh = v.p.cwnd;
            }
            return;
        }
        let total = total_rate(paths);
        let v = &mut paths[r];
        if total > 0.0 {
            v.alpha = (v.rate / total * self.total_alpha).max(self.alpha_min);
        }
        if diff > v.alpha {
            v.p.cwnd -= 1.0;
        } else if diff < v.alpha {
            v.p.cwnd += 1.0;
        }
        // RTT samples are whole nanoseconds: a smaller q is rounding noise of the
        // mean (n equal samples summed and divided need not give the sample
        // back), and a drain triggered by it would halve the window at random.
        let q = rtt - base;
        if q > 1e-9 {
            if v.queue_delay == 0.0 || q < v.queue_delay {
                v.queue_delay = q;
            }
            if q >= 2.0 * v.queue_delay {
                v.p.cwnd *= base / (2.0 * rtt);
                v.queue_delay = 0.0;
            }
        }
        v.p.cwnd = v.p.cwnd.max(2.0);
        // Linux's tcp_current_ssthresh: remember 3/4 of the window.
        v.p.ssthresh = v.p.ssthresh.min(v.p.cwnd).max(0.75 * v.p.cwnd);
    }
}

#[inline]
fn total_rate(paths: &[VegasPath]) -> f64 {
    paths.iter().map(|q| q.rate).sum()
}

impl CouplingRule for WVegasRule {
    type Sub = VegasPath;
    fn new_subflow(&mut self, init_cwnd: f64) -> VegasPath {
        VegasPath {
            p: Path::new(init_cwnd),
            base: 0.0,
            rtt_sum: 0.0,
            rtt_cnt: 0,
            rate: 0.0,
            alpha: self.alpha_min,
            queue_delay: 0.0,
        }
    }

    #[inline]
    fn observe(&mut self, v: &mut VegasPath, ev: &AckEvent) {
        if ev.rtt > 0 {
            let r = secs(ev.rtt);
            v.base = if v.base == 0.0 { r } else { v.base.min(r) };
            v.rtt_sum += r;
            v.rtt_cnt += 1;
        }
    }

    /// Vegas moves once per round; between round starts only slow start runs.
    #[inline]
    fn grow(&mut self, subs: &mut [VegasPath], sf: usize, ev: &AckEvent) {
        if !may_grow(ev) {
            return;
        }
        let v = &mut subs[sf];
        if ev.round_start {
            let (sum, cnt) = (v.rtt_sum, v.rtt_cnt);
            v.rtt_sum = 0.0;
            v.rtt_cnt = 0;
            if cnt > 2 {
                let w0 = v.p.cwnd;
                self.round(subs, sf, sum / cnt as f64);
                let v = &mut subs[sf];
                if v.p.cwnd < v.p.ssthresh && v.p.cwnd >= w0 {
                    slow_start(&mut v.p.cwnd, v.p.ssthresh, ev.acked);
                }
                return;
            }
            // Too few samples: this ACK is handled as Reno.
            let p = &mut subs[sf].p;
            let left = slow_start(&mut p.cwnd, p.ssthresh, ev.acked);
            if left > 0.0 {
                self.increase(subs, sf, left, ev);
            }
            return;
        }
        // Mid-round: slow start only; congestion avoidance moves once per round.
        let p = &mut v.p;
        slow_start(&mut p.cwnd, p.ssthresh, ev.acked);
    }

    /// Reno's increase, for a round start with too few RTT samples.
    #[inline]
    fn increase(&mut self, subs: &mut [VegasPath], sf: usize, left: f64, _ev: &AckEvent) {
        let p = &mut subs[sf].p;
        p.cwnd += left / p.cwnd;
    }

    fn decrease(&mut self, subs: &mut [VegasPath], sf: usize, ev: &CongestionEvent) {
        let v = &mut subs[sf];
        v.p.halve(ev.kind);
        v.rtt_sum = 0.0;
        v.rtt_cnt = 0;
        v.queue_delay = 0.0;
        if ev.kind == crate::CongestionKind::Timeout {
            v.rate = 0.0;
        }
    }

    fn recovery_exit(&mut self, subs: &mut [VegasPath], sf: usize, _now: Nanos) {
        // Linux re-enables Vegas on return to Open with alpha reset.
        subs[sf].alpha = self.alpha_min;
    }

    /// `alpha` (packets), `weight` (rate share x_r / sum x) and `queue_delay` (s).
    fn metrics(&self, subs: &[VegasPath], sf: usize, out: &mut dyn FnMut(&'static str, f64)) {
        let total = total_rate(subs);
        out("alpha", subs[sf].alpha);
        out("weight", if total > 0.0 { subs[sf].rate / total } else { 0.0 });
        out("queue_delay", subs[sf].queue_delay);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CongestionControl;

    const US: f64 = 1e-6;

    /// Subflow 0 in CA with window w, base RTT, prior alpha and queue delay; subflow 1
    /// with a known rate (kernel test vectors W1-W3, an integer model of the
    /// out-of-tree Linux MPTCP mptcp_wvegas.c).
    fn two(w: f64, base_us: f64, alpha: f64, qd_us: f64, other: (f64, f64)) -> WVegas {
        let mut c = WVegas::new(10.0, 10.0, 2.0, 1.0);
        c.add_subflow(0);
        c.add_subflow(0);
        let v = &mut c.paths[0];
        v.p.cwnd = w;
        v.p.ssthresh = 2.0;
        v.base = base_us * US;
        v.alpha = alpha;
        v.queue_delay = qd_us * US;
        c.paths[1].rate = other.0 / (other.1 * US);
        c
    }

    #[test]
    fn kernel_vectors_w1_w3() {
        // W1: diff = 20*2000/12001 = 3.33, weight = 0.55 -> alpha 5.5 -> +1;
        // q = 2000 us < 2 * 1500: no drain. Kernel: alpha 5, cwnd 21.
        let mut c = two(20.0, 10001.0, 2.0, 1500.0, (30.0, 22001.0));
        c.round(0, 12001.0 * US);
        assert!((c.paths[0].alpha - 5.5).abs() < 0.01, "{}", c.paths[0].alpha);
        assert_eq!(c.cwnd(0), 21.0);
        // W3: diff 13.3 > alpha 8.89 -> 39; q = 5000 >= 2*2000 -> 39 * 10001/30002
        // = 13.0 (kernel 13 with Q16 truncation).
        let mut c = two(40.0, 10001.0, 2.0, 2000.0, (10.0, 30001.0));
        c.round(0, 15001.0 * US);
        assert!((c.paths[0].alpha - 8.889).abs() < 0.01);
        assert!((c.cwnd(0) - 39.0 * 10001.0 / 30002.0).abs() < 1e-9);
        assert_eq!(c.paths[0].queue_delay, 0.0);
    }

    #[test]
    fn no_queue_no_halving_unlike_kernel() {
        // W2 (kernel quirk: halves to 10 when rtt == base). Precise form: +1 only.
        let mut c = two(20.0, 10001.0, 2.0, 0.0, (0.0, 1.0));
        c.round(0, 10001.0 * US);
        assert_eq!(c.cwnd(0), 21.0);
    }

    #[test]
    fn backs_off_when_queue_exceeds_alpha_and_slow_start_exits() {
        let mut c = two(30.0, 10000.0, 2.0, 0.0, (0.0, 1.0));
        // weight 1 -> alpha 10; diff = 30 * 4000/14000 = 8.6 < 10 -> 31; q first seen
        c.round(0, 14000.0 * US);
        assert_eq!((c.cwnd(0), c.paths[0].alpha), (31.0, 10.0));
        c.round(0, 17500.0 * US); // diff 13.3 > 10 -> 30; q = 7500 < 2*4000: no drain
        assert_eq!(c.cwnd(0), 30.0);
        c.round(0, 18500.0 * US); // diff 13.8 -> 29; q = 8500 >= 8000: drain
        assert!((c.cwnd(0) - 29.0 * 10000.0 / 37000.0).abs() < 1e-9);
        // slow start: diff > gamma leaves slow start at the Vegas target + 1
        let mut c = WVegas::new(10.0, 10.0, 2.0, 1.0);
        c.add_subflow(0);
        c.paths[0].p.cwnd = 40.0;
        c.paths[0].base = 0.01;
        c.round(0, 0.0125); // target = 32, diff = 8 > 1
        assert_eq!((c.cwnd(0), c.ssthresh(0)), (33.0, 33.0));
    }

    #[test]
    fn grows_once_per_round_in_congestion_avoidance() {
        use super::super::testutil::ack;
        let mut c = WVegas::new(10.0, 10.0, 2.0, 1.0);
        c.add_subflow(0);
        c.paths[0].p.ssthresh = 5.0;
        let mut now = 0;
        for round in 0..5 {
            for i in 0..10 {
                now += 1_000_000;
                let mut ev = ack(now, 1.0, 20.0 + round as f64 * 0.0);
                ev.round_start = i == 0;
                c.on_ack(0, &ev);
            }
        }
        // no queueing: diff 0 < alpha each round after the first (too few samples
        // before it: one Reno ACK of 1/10).
        assert!((c.cwnd(0) - (10.1 + 4.0)).abs() < 1e-9, "{}", c.cwnd(0));
    }

    #[test]
    fn metrics_are_alpha_weight_and_queue_delay() {
        let mut c = two(20.0, 10001.0, 2.0, 1500.0, (30.0, 22001.0));
        c.round(0, 12001.0 * US);
        let m = crate::metrics_of(&c, 0);
        assert_eq!(m.iter().map(|x| x.0).collect::<Vec<_>>(), ["alpha", "weight", "queue_delay"]);
        assert!((m[0].1 - 5.5).abs() < 0.01 && (m[1].1 - 0.55).abs() < 0.01 && m[2].1 == 1500.0 * US, "{m:?}");
    }
}
