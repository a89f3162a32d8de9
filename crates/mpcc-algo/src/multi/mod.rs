//! Coupled multipath congestion controllers, one file each with its registry entry and builder.
//!
//! Each controller is its coupling rule over the shared driver
//! [`window::Coupled`], which owns the table of per-subflow records (embedding
//! [`base::Path`]) indexed by the dense subflow id; the rule computes its coupling
//! terms from that table.

pub mod balia;
pub mod base;
pub mod binomial;
pub mod cdd;
pub mod coupled;
pub mod ewtcp;
pub mod lia;
pub mod mpcubic;
pub mod mpmtp;
pub mod mptcpw;
pub mod mpveno;
pub mod noda_ito;
pub mod olia;
pub mod window;
pub mod wmptcpw;
pub mod wvegas;

use crate::params::{Build, Member};

/// Every coupled controller: one line each (entry and builder are in its file).
pub static MEMBERS: &[Member<Build>] = &[
    Member { info: &lia::INFO, build: lia::build },
    Member { info: &olia::INFO, build: olia::build },
    Member { info: &balia::INFO, build: balia::build },
    Member { info: &wvegas::INFO, build: wvegas::build },
    Member { info: &ewtcp::INFO, build: ewtcp::build },
    Member { info: &coupled::INFO, build: coupled::build },
    Member { info: &noda_ito::INFO, build: noda_ito::build },
    Member { info: &mpveno::INFO, build: mpveno::build },
    Member { info: &mptcpw::INFO, build: mptcpw::build },
    Member { info: &wmptcpw::INFO, build: wmptcpw::build },
    Member { info: &mpcubic::INFO, build: mpcubic::build },
    Member { info: &binomial::MPSQRT, build: binomial::build_mpsqrt },
    Member { info: &binomial::MPIAD, build: binomial::build_mpiad },
    Member { info: &cdd::INFO, build: cdd::build },
    Member { info: &mpmtp::INFO, build: mpmtp::build },
];

/// Helpers shared by the controllers' unit tests.
#[cfg(test)]
pub(crate) mod testutil {
    use super::base::Path;
    use crate::single::reno::Reno;
    use crate::{AckEvent, CongestionControl, CongestionEvent, CongestionKind, Uncoupled};
    use mpcc_core::{Nanos, Rng};

    pub const MS: Nanos = 1_000_000;

    /// A subflow in congestion avoidance with window `w` and srtt `rtt_ms`.
    pub fn path(w: f64, rtt_ms: f64) -> Path {
        let r = rtt_ms / 1e3;
        Path { cwnd: w, ssthresh: w, srtt: r, srtt_ns: 0, rtt_ns: (rtt_ms * 1e6) as Nanos, min_rtt: r, min_rtt_ns: 0 }
    }

    pub fn cong(kind: CongestionKind) -> CongestionEvent {
        CongestionEvent { now: 0, kind, in_flight: 0.0, srtt: 0, min_rtt: 0, rtt: 0, from_flight: false }
    }

    pub fn ack(now: Nanos, acked: f64, rtt_ms: f64) -> AckEvent {
        let r = (rtt_ms * 1e6) as Nanos;
        AckEvent {
            now,
            acked,
            rtt: r,
            srtt: r,
            min_rtt: r,
            owd: r / 2,
            in_flight: 0,
            in_recovery: false,
            round_start: false,
            app_limited: false,
            delivered: acked as u64,
            ..AckEvent::default()
        }
    }

    /// One step of a random event sequence.
    #[derive(Clone, Copy, Debug)]
    pub enum Step {
        Ack(usize, AckEvent),
        Cong(usize, CongestionEvent),
        Exit(usize, Nanos),
    }

    /// Random ACK / loss / timeout / recovery-exit sequence over `n` subflows, with
    /// per-subflow base RTTs, queueing jitter, rounds and recovery epochs.
    pub struct EventGen {
        rng: Rng,
        now: Nanos,
        base: Vec<f64>,
        srtt: Vec<f64>,
        minr: Vec<f64>,
        in_rec: Vec<bool>,
        acks_in_round: Vec<u32>,
        pub loss_p: f64,
        pub timeout_p: f64,
    }

    impl EventGen {
        pub fn new(seed: u64, n: usize) -> EventGen {
            let mut rng = Rng::stream(seed, 99);
            let base: Vec<f64> = (0..n).map(|_| 5.0 + 300.0 * rng.uniform()).collect();
            EventGen {
                srtt: base.clone(),
                minr: vec![f64::INFINITY; n],
                base,
                rng,
                now: 0,
                in_rec: vec![false; n],
                acks_in_round: vec![0; n],
                loss_p: 0.02,
                timeout_p: 0.003,
            }
        }

        pub fn next(&mut self, cwnd: impl Fn(usize) -> f64) -> Step {
            let n = self.base.len();
            let sf = (self.rng.next_u64() % n as u64) as usize;
            self.now += (self.rng.uniform() * 5.0 * MS as f64) as Nanos + 1;
            let u = self.rng.uniform();
            if u < self.timeout_p {
                self.in_rec[sf] = false;
                return Step::Cong(sf, self.cong_ev(sf, CongestionKind::Timeout));
            }
            if u < self.timeout_p + self.loss_p && !self.in_rec[sf] {
                self.in_rec[sf] = true;
                let kind = if self.rng.uniform() < 0.2 { CongestionKind::Ecn } else { CongestionKind::Loss };
                if kind == CongestionKind::Ecn {
                    self.in_rec[sf] = false;
                }
                return Step::Cong(sf, self.cong_ev(sf, kind));
            }
            if self.in_rec[sf] && self.rng.uniform() < 0.15 {
                self.in_rec[sf] = false;
                return Step::Exit(sf, self.now);
            }
            // an ACK: RTT = base + queueing that grows with the window
            let q = self.rng.uniform() * self.base[sf] * (cwnd(sf) / 50.0).min(3.0);
            let rtt = self.base[sf] + q;
            self.srtt[sf] = 0.875 * self.srtt[sf] + 0.125 * rtt;
            self.minr[sf] = self.minr[sf].min(rtt);
            self.acks_in_round[sf] += 1;
            let round_start = self.acks_in_round[sf] as f64 >= cwnd(sf).max(1.0);
            if round_start {
                self.acks_in_round[sf] = 0;
            }
            let acked = if self.rng.uniform() < 0.1 { 0.0 } else { (1 + self.rng.next_u64() % 3) as f64 };
            let ms = |x: f64| (x * 1e6) as Nanos;
            Step::Ack(
                sf,
                AckEvent {
                    now: self.now,
                    acked,
                    rtt: ms(rtt),
                    srtt: ms(self.srtt[sf]),
                    min_rtt: ms(self.minr[sf]),
                    owd: ms(rtt * (0.3 + 0.4 * self.rng.uniform())),
                    in_flight: cwnd(sf) as u64,
                    in_recovery: self.in_rec[sf],
                    round_start,
                    app_limited: false,
                    delivered: acked as u64,
                    ..AckEvent::default()
                },
            )
        }

        fn cong_ev(&self, sf: usize, kind: CongestionKind) -> CongestionEvent {
            let ms = |x: f64| (x * 1e6) as Nanos;
            CongestionEvent {
                now: self.now,
                kind,
                in_flight: 0.0,
                srtt: ms(self.srtt[sf]),
                min_rtt: ms(self.base[sf]),
                rtt: ms(self.srtt[sf]),
                from_flight: false,
            }
        }
    }

    pub fn apply(c: &mut dyn CongestionControl, s: Step) {
        match s {
            Step::Ack(sf, ev) => c.on_ack(sf, &ev),
            Step::Cong(sf, ev) => c.on_congestion(sf, &ev),
            Step::Exit(sf, now) => c.on_recovery_exit(sf, now),
        }
    }

    /// Drives `make()` with one subflow and Reno side by side over random event
    /// sequences; windows and thresholds must be bit-identical after every event.
    pub fn assert_reno_equivalent(make: impl Fn() -> Box<dyn CongestionControl>, seeds: u64) {
        for seed in 0..seeds.max(4) {
            let mut c = make();
            let mut reno = Uncoupled::new(Reno::new(10.0, 0.5));
            c.add_subflow(0);
            reno.add_subflow(0);
            let mut g = EventGen::new(seed, 1);
            for i in 0..20_000 {
                let s = g.next(|_| reno.cwnd(0));
                apply(c.as_mut(), s);
                apply(&mut reno, s);
                assert_eq!(
                    c.cwnd(0).to_bits(),
                    reno.cwnd(0).to_bits(),
                    "seed {seed} step {i} {s:?}: {} vs {}",
                    c.cwnd(0),
                    reno.cwnd(0)
                );
                assert_eq!(c.ssthresh(0).to_bits(), reno.ssthresh(0).to_bits(), "seed {seed} step {i}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testutil::*;
    use crate::{build, CongestionControl, Params};

    /// Every registered multipath controller, 1-4 subflows, random ACK / loss /
    /// timeout sequences: windows stay finite and at or above one segment, and
    /// thresholds never become NaN or fall below one segment.
    #[test]
    fn every_multipath_controller_keeps_sane_windows() {
        let mut checked = 0;
        for info in super::MEMBERS.iter().map(|m| m.info) {
            for n in 1..=4usize {
                for seed in 0..6u64 {
                    let mut c = build(info.name, &Params::new()).unwrap();
                    for _ in 0..n {
                        c.add_subflow(0);
                    }
                    let mut g = EventGen::new(seed * 31 + n as u64, n);
                    if seed % 2 == 1 {
                        g.loss_p = 0.001; // long loss-free stretches: big windows
                        g.timeout_p = 0.0002;
                    }
                    for i in 0..30_000 {
                        let s = g.next(|sf| c.cwnd(sf));
                        apply(&mut c, s);
                        for sf in 0..n {
                            let (w, t) = (c.cwnd(sf), c.ssthresh(sf));
                            assert!(
                                w.is_finite() && w >= 1.0,
                                "{} n={n} seed={seed} step {i} sf {sf}: cwnd {w} after {s:?}",
                                info.name
                            );
                            assert!(
                                !t.is_nan() && t >= 1.0,
                                "{} n={n} seed={seed} step {i} sf {sf}: ssthresh {t}",
                                info.name
                            );
                        }
                    }
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, super::MEMBERS.len() * 24);
    }

    /// Every coupled controller names its coupling terms; the names are
    /// the same on every subflow and do not depend on the state; reading them
    /// leaves the windows as they were.
    #[test]
    fn every_coupled_controller_exposes_metrics() {
        for info in super::MEMBERS.iter().map(|m| m.info) {
            let mut c = build(info.name, &Params::new()).unwrap();
            for _ in 0..2 {
                c.add_subflow(0);
            }
            let mut g = EventGen::new(1, 2);
            for _ in 0..2000 {
                let s = g.next(|sf| c.cwnd(sf));
                apply(&mut c, s);
            }
            let before = (c.cwnd(0), c.cwnd(1));
            let (m0, m1) = (crate::metrics_of(&c, 0), crate::metrics_of(&c, 1));
            assert_eq!(before, (c.cwnd(0), c.cwnd(1)));
            let names = |m: &[(&'static str, f64)]| m.iter().map(|x| x.0).collect::<Vec<&str>>();
            assert_eq!(names(&m0), names(&m1), "{}", info.name);
            assert!(!m0.is_empty(), "{}: {m0:?}", info.name);
        }
        // Single-path rules report through Uncoupled.
        let c = build("cubic", &Params::new()).unwrap();
        let mut c = c;
        c.add_subflow(0);
        assert_eq!(crate::metrics_of(&c, 0).iter().map(|x| x.0).collect::<Vec<_>>(), ["w_max", "k"]);
    }

    #[test]
    fn registry_matches_builder() {
        for info in super::MEMBERS.iter().map(|m| m.info) {
            assert_eq!(crate::registry::kind(info.name), Some("multi"));
            assert!(info.params.iter().any(|p| p.name == "init_cwnd"), "{}", info.name);
            for p in info.params {
                assert!(p.min <= p.default && p.default <= p.max, "{}.{}", info.name, p.name);
            }
            let mut c = build(info.name, &Params::new()).unwrap();
            assert_eq!(c.add_subflow(0), 0);
            assert_eq!(c.add_subflow(0), 1);
            assert_eq!(c.cwnd(1), 10.0, "{}: default initial window", info.name);
        }
    }
}
