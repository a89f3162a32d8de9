//! TCP Vegas (Brakmo & Peterson, 1995), adjusted once per round trip.
//!
//! BaseRTT is the smallest RTT seen; each round keeps the smallest RTT seen during
//! the round. At a round boundary `diff = (cwnd/BaseRTT - cwnd/RTT) * BaseRTT`
//! (segments queued in the network). In congestion avoidance cwnd grows by one
//! segment when `diff < alpha`, shrinks by one when `diff > beta`, holds otherwise.
//! Slow start doubles every other round (the round in between holds cwnd so its RTT
//! is measured at a fixed window) and ends when `diff > gamma`. Loss is Reno's.
//! See docs/algorithms/vegas.md for where this follows or leaves Linux's tcp_vegas.

use super::vegas_ns3::Ns3Rounds;
use crate::common::{may_grow, reno_increase, slow_start, ssthresh_floor, window_after, MIN_SSTHRESH};
use crate::params::{param, Info, INIT_CWND};
use crate::{AckEvent, CongestionEvent, SubflowCc};
use crate::{Controller, Uncoupled};
use mpcc_core::Nanos;

// ---- registry entry and builder (listed in mod.rs) ----

pub const INFO: Info = Info::new(
    "vegas",
    "TCP Vegas: per-RTT +-1 segment from the queued-segment estimate (Brakmo & Peterson)",
    "docs/algorithms/vegas.md",
    &[
        INIT_CWND,
        param("alpha", 2.0, 0.0, 100.0, "grow while fewer than alpha segments are queued"),
        param("beta", 4.0, 0.0, 100.0, "shrink while more than beta segments are queued (raised to alpha if below)"),
        param("gamma", 1.0, 0.0, 100.0, "leave slow start once more than gamma segments are queued"),
        param(
            "variant",
            0.0,
            0.0,
            1.0,
            "0 = Linux's tcp_vegas rules; 1 = ns-3 3.44's TcpVegas (vegas_ns3.rs); default: the TCP profile's",
        ),
    ],
);

pub fn build(p: &dyn Fn(&str) -> f64) -> Controller {
    let vegas = Vegas::new(p("init_cwnd"), p("alpha"), p("beta"), p("gamma"));
    Controller::Vegas(Uncoupled::new(vegas.with_ns3_rules(p("variant") >= 0.5)))
}

/// Fewer RTT samples than this in a round and the round is not judged (delayed ACKs
/// make one or two samples unreliable); the boundary ACK gets a Reno step instead.
pub const MIN_ROUND_SAMPLES: u32 = 3;

#[derive(Clone, Debug)]
pub struct Vegas {
    pub cwnd: f64,
    pub ssthresh: f64,
    pub(super) alpha: f64,
    pub(super) beta: f64,
    pub(super) gamma: f64,
    /// Smallest RTT ever seen (u64::MAX = none yet).
    pub base_rtt: Nanos,
    /// Smallest RTT seen in the current round.
    round_min: Nanos,
    round_samples: u32,
    /// ACKs seen in the current round.
    round_acks: u32,
    /// Slow start grows only in every other round; true in a growing round.
    ss_grow: bool,
    /// The last per-round backlog estimate, segments (for traces and tests).
    pub diff: f64,
    /// ns-3 3.44's TcpVegas rules and their round state (vegas_ns3.rs); None: Linux's.
    pub(super) ns3: Option<Ns3Rounds>,
}

impl Vegas {
    pub fn new(init_cwnd: f64, alpha: f64, beta: f64, gamma: f64) -> Vegas {
        Vegas {
            cwnd: init_cwnd,
            ssthresh: f64::INFINITY,
            alpha,
            // A beta below alpha would make the hold band empty and the rule oscillate.
            beta: beta.max(alpha),
            gamma,
            base_rtt: Nanos::MAX,
            round_min: Nanos::MAX,
            round_samples: 0,
            round_acks: 0,
            ss_grow: true,
            diff: 0.0,
            ns3: None,
        }
    }

    /// ns-3 3.44's TcpVegas instead of Linux's rules (the `ns3` profile's variant).
    pub fn with_ns3_rules(mut self, on: bool) -> Vegas {
        self.ns3 = on.then(Ns3Rounds::default);
        self
    }

    fn reset_round(&mut self) {
        self.round_min = Nanos::MAX;
        self.round_samples = 0;
        self.round_acks = 0;
    }

    #[inline]
    fn note_sample(&mut self, rtt: Nanos) {
        self.round_acks += 1;
        if rtt > 0 {
            self.base_rtt = self.base_rtt.min(rtt);
            self.round_min = self.round_min.min(rtt);
            self.round_samples += 1;
        }
    }

    /// The once-per-round rule, with the round's minimum RTT `rtt`; `grow` is
    /// false while the sender is application-limited (decreases still apply).
    fn adjust(&mut self, rtt: Nanos, grow: bool) {
        let (base, rtt) = (self.base_rtt as f64, rtt as f64);
        // Expected - Actual rate, in segments queued: cwnd (rtt - base) / rtt.
        self.diff = self.cwnd * (rtt - base) / rtt;
        if self.cwnd < self.ssthresh {
            if self.diff > self.gamma {
                // Leave slow start at the window the path carried without queueing, +1.
                let expected = self.cwnd * base / rtt;
                self.cwnd = self.cwnd.min(expected + 1.0).max(MIN_SSTHRESH);
                self.ssthresh = self.ssthresh.min(self.cwnd);
            } else {
                self.ss_grow = !self.ss_grow;
            }
        } else if self.diff > self.beta {
            self.cwnd = (self.cwnd - 1.0).max(MIN_SSTHRESH);
            // Stay in congestion avoidance after the step down.
            self.ssthresh = self.ssthresh.min(self.cwnd);
        } else if self.diff < self.alpha && grow {
            self.cwnd += 1.0;
        }
    }
}

impl SubflowCc for Vegas {
    #[inline]
    fn on_ack(&mut self, ev: &AckEvent) {
        if self.ns3.is_some() {
            return self.on_ack_ns3(ev);
        }
        // A boundary closes the round that began at the previous boundary; the very
        // first ACK only opens one. The boundary ACK's own sample starts the new round.
        if ev.round_start && self.round_acks > 0 {
            let judged = self.round_samples >= MIN_ROUND_SAMPLES;
            let rtt = self.round_min;
            self.reset_round();
            if !ev.in_recovery {
                if judged {
                    self.adjust(rtt, !ev.app_limited);
                } else if self.cwnd < self.ssthresh {
                    self.ss_grow = !self.ss_grow;
                } else if !ev.app_limited {
                    // Too few samples to judge the queue: one Reno step, as Linux does.
                    self.note_sample(ev.rtt);
                    reno_increase(&mut self.cwnd, ev.acked);
                    return;
                }
            }
        }
        self.note_sample(ev.rtt);
        if !may_grow(ev) {
            return;
        }
        // Between boundaries only slow start moves cwnd, and only in growing rounds;
        // congestion avoidance changes at boundaries only.
        if self.cwnd < self.ssthresh && self.ss_grow {
            slow_start(&mut self.cwnd, self.ssthresh, ev.acked);
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent) {
        if self.ns3.is_some() {
            self.ssthresh = self.ssthresh_ns3();
            self.cwnd = window_after(ev.kind, self.ssthresh);
            self.leave_open_ns3();
            return;
        }
        self.ssthresh = ssthresh_floor(self.cwnd * 0.5);
        self.cwnd = window_after(ev.kind, self.ssthresh);
        self.reset_round();
        self.ss_grow = true;
    }

    fn cwnd(&self) -> f64 {
        self.cwnd
    }
    fn ssthresh(&self) -> f64 {
        self.ssthresh
    }
    fn set_ssthresh(&mut self, v: f64) {
        self.ssthresh = v;
    }
    /// `diff`, the last per-round backlog estimate (segments).
    fn metrics(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("diff", self.diff);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CongestionKind;

    const BASE: Nanos = 10_000_000; // 10 ms

    fn ack(rtt: Nanos, round_start: bool) -> AckEvent {
        AckEvent { acked: 1.0, rtt, srtt: rtt, min_rtt: BASE, round_start, ..Default::default() }
    }

    /// Congestion avoidance at cwnd 20 (ssthresh 10): one round of three samples whose
    /// minimum is `round_min`, closed by a boundary ACK.
    fn ca_round(round_min: Nanos) -> Vegas {
        let mut v = Vegas::new(20.0, 2.0, 4.0, 1.0);
        v.ssthresh = 10.0;
        v.base_rtt = BASE;
        v.on_ack(&ack(round_min + 1_000_000, false));
        v.on_ack(&ack(round_min, false));
        v.on_ack(&ack(round_min + 3_000_000, false));
        assert_eq!(v.cwnd, 20.0, "no change inside a round");
        v.on_ack(&ack(round_min + 2_000_000, true));
        v
    }

    /// Kernel vectors V1-V3 (base 10.001 ms; minRTT 12.001, 13.001, 10.501 ms), with
    /// the paper's diff = cwnd (rtt - base) / rtt. Linux computes cwnd (rtt - base) / base
    /// in integers (3, 5, 0); both readings take the same branch here.
    #[test]
    fn per_round_increase_hold_decrease_vectors() {
        let v = ca_round(12_000_000);
        assert!((v.diff - 20.0 * 2.0 / 12.0).abs() < 1e-9, "{}", v.diff);
        assert_eq!(v.cwnd, 20.0, "V1: 2 <= diff 3.33 <= 4 holds");
        let v = ca_round(13_000_000);
        assert!((v.diff - 20.0 * 3.0 / 13.0).abs() < 1e-9);
        assert_eq!(v.cwnd, 19.0, "V2: diff 4.6 > beta steps down");
        let v = ca_round(10_500_000);
        assert!((v.diff - 20.0 * 0.5 / 10.5).abs() < 1e-9);
        assert_eq!(v.cwnd, 21.0, "V3: diff 0.95 < alpha steps up");
    }

    #[test]
    fn rounds_with_too_few_samples_take_a_reno_step() {
        let mut v = Vegas::new(20.0, 2.0, 4.0, 1.0);
        v.ssthresh = 10.0;
        v.on_ack(&ack(13_000_000, false));
        v.on_ack(&ack(13_000_000, true)); // two samples only
        assert!((v.cwnd - 20.05).abs() < 1e-12);
    }

    /// Slow start doubles in one round, holds in the next, and leaves when diff > gamma.
    #[test]
    fn slow_start_every_other_round_and_exit() {
        let mut v = Vegas::new(4.0, 2.0, 4.0, 1.0);
        let round = |v: &mut Vegas, rtt: Nanos| {
            let n = v.cwnd as usize;
            for i in 0..n {
                v.on_ack(&ack(rtt, i == 0));
            }
        };
        round(&mut v, BASE); // first round grows: 4 ACKs -> 8
        assert_eq!(v.cwnd, 8.0);
        round(&mut v, BASE); // boundary judges diff 0 <= gamma, flips to a hold round
        assert_eq!(v.cwnd, 8.0);
        round(&mut v, BASE); // grows again
        assert_eq!(v.cwnd, 16.0);
        // Queueing appears: minimum 12.5 ms at cwnd 16 -> diff 3.2 > gamma.
        round(&mut v, 12_500_000);
        round(&mut v, 12_500_000);
        // expected = 16 * 10 / 12.5 = 12.8, so cwnd = min(16, 13.8); now in CA.
        assert!((v.cwnd - 13.8).abs() < 1e-9, "{}", v.cwnd);
        assert_eq!(v.ssthresh, v.cwnd);
    }

    #[test]
    fn loss_halves_timeout_resets_and_recovery_freezes() {
        let mut v = Vegas::new(20.0, 2.0, 4.0, 1.0);
        let mut c = CongestionEvent {
            now: 0,
            kind: CongestionKind::Loss,
            in_flight: 20.0,
            srtt: BASE,
            min_rtt: BASE,
            rtt: BASE,
            from_flight: false,
        };
        v.on_congestion(&c);
        assert_eq!((v.cwnd, v.ssthresh), (10.0, 10.0));
        for i in 0..10 {
            v.on_ack(&AckEvent { in_recovery: true, ..ack(BASE, i % 3 == 0) });
        }
        assert_eq!(v.cwnd, 10.0);
        c.kind = CongestionKind::Timeout;
        v.on_congestion(&c);
        assert_eq!((v.cwnd, v.ssthresh), (1.0, 5.0));
        // Delay-based decrease never goes below 2 (diff 1.6 > beta 0.5 at cwnd 2).
        let mut v = Vegas::new(2.0, 0.1, 0.5, 1.0);
        v.ssthresh = 2.0;
        v.base_rtt = BASE;
        for i in 0..4 {
            v.on_ack(&ack(5 * BASE, i == 3));
        }
        assert_eq!(v.cwnd, 2.0);
    }

    #[test]
    fn metrics_name_the_backlog() {
        let mut v = Vegas::new(10.0, 2.0, 4.0, 1.0);
        v.diff = 3.5;
        let mut got = Vec::new();
        v.metrics(&mut |k, x| got.push((k, x)));
        assert_eq!(got, [("diff", 3.5)]);
    }
}
