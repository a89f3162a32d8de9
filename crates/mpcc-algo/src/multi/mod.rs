//! Coupled multipath congestion controllers, their registry entries and builder.
//!
//! Each controller is its coupling rule over the shared driver
//! [`window::Coupled`], which owns the table of per-subflow records (embedding
//! [`base::Path`]) indexed by the dense subflow id; the rule computes its coupling
//! terms from that table. MPMTP still carries its own copy of the driver.

pub mod balia;
pub mod binomial;
pub mod cdd;
pub mod base;
pub mod coupled;
pub mod ewtcp;
pub mod lia;
pub mod mpcubic;
pub mod mpmtp;
pub mod mptcpw;
pub mod mpveno;
pub mod noda_ito;
pub mod olia;
pub mod wmptcpw;
pub mod window;
pub mod wvegas;

use crate::params::{param, AlgoInfo, ParamInfo, INIT_CWND};
use crate::Controller;

const fn multi(name: &'static str, summary: &'static str, doc: &'static str, params: &'static [ParamInfo]) -> AlgoInfo {
    AlgoInfo { name, kind: "multi", summary, doc, params, rule: None }
}

pub static REGISTRY: &[AlgoInfo] = &[
    multi(
        "lia",
        "Linked Increases (RFC 6356) with the phi family of Raiciu/Wischik; Reno halving",
        "docs/algorithms/lia.md",
        &[
            INIT_CWND,
            param("phi", 1.0, 0.0, 2.0, "family parameter: 1 = RFC 6356, 0 = fully coupled direction, 2 = weighted uncoupled"),
        ],
    ),
    multi(
        "olia",
        "Opportunistic Linked Increases (Khalili et al. 2012/2013); Reno halving",
        "docs/algorithms/olia.md",
        &[INIT_CWND],
    ),
    multi(
        "balia",
        "Balanced Linked Adaptation (Peng, Walid, Hwang, Low 2016)",
        "docs/algorithms/balia.md",
        &[INIT_CWND],
    ),
    multi(
        "wvegas",
        "weighted Vegas (Cao, Xu, Fu 2012): delay-based, per-round, weighted alpha",
        "docs/algorithms/wvegas.md",
        &[
            INIT_CWND,
            param("total_alpha", 10.0, 1.0, 100.0, "packets queued by the whole connection, shared by rate weight"),
            param("alpha_min", 2.0, 0.0, 50.0, "smallest per-subflow alpha (packets)"),
            param("gamma", 1.0, 0.0, 50.0, "slow-start exit threshold (packets queued)"),
        ],
    ),
    multi(
        "ewtcp",
        "equally weighted TCP: Reno per subflow with increase a/w; a = 1/N^2 by default",
        "docs/algorithms/ewtcp.md",
        &[
            INIT_CWND,
            param("a", 0.0, 0.0, 1.0, "increase weight; 0 = 1/N^2 (fair with one Reno on a shared bottleneck)"),
        ],
    ),
    multi(
        "coupled",
        "fully coupled: w_r += 1/w_total per segment, w_r -= w_total/2 on loss (floor 1)",
        "docs/algorithms/coupled.md",
        &[INIT_CWND],
    ),
    multi(
        "noda_ito",
        "Noda & Ito: per-subflow delay rule that suppresses RTT fluctuation",
        "docs/algorithms/noda_ito.md",
        &[
            INIT_CWND,
            param("beta", 0.5, 0.01, 0.99, "multiplicative decrease fraction on loss (paper leaves it open)"),
            param("min_cwnd", 1.0, 1.0, 2.0, "floor of the delay-driven decrease (1, or 2 kernel style)"),
            param("mean_per_ack", 0.0, 0.0, 1.0, "1: update MeanRTT on every ACK; 0: once per round"),
        ],
    ),
    multi(
        "mpveno",
        "multipath Veno (Le): OLIA increase, Veno backlog test, w/5 or w/2 decrease",
        "docs/algorithms/mpveno.md",
        &[
            INIT_CWND,
            param("beta", 3.0, 0.0, 50.0, "Veno backlog threshold (packets), scaled by the subflow's rate share"),
        ],
    ),
    multi(
        "mptcpw",
        "multipath TCP Westwood (Le et al.): coupled increase with trade-off gamma, Westwood decrease",
        "docs/algorithms/mptcpw.md",
        &[
            INIT_CWND,
            param("gamma", 1.0, 0.0, 2.0, "flappiness vs congestion-balance trade-off (1 = LIA-like increase)"),
        ],
    ),
    multi(
        "wmptcpw",
        "weighted multipath Westwood+ (Nuha et al.): increase max B^2/(sum B)^2 / w, Westwood decrease",
        "docs/algorithms/wmptcpw.md",
        &[INIT_CWND],
    ),
    multi(
        "mpcubic",
        "multipath CUBIC (Le et al.): per-subflow CUBIC curve scaled by delta = (max x / sum x)^4",
        "docs/algorithms/mpcubic.md",
        &[
            INIT_CWND,
            param("c", 0.4, 0.01, 10.0, "CUBIC scaling constant (segments/s^3)"),
            param("beta", 0.3, 0.01, 0.99, "multiplicative decrease fraction"),
            param("fast_convergence", 1.0, 0.0, 1.0, "1: lower W_max after a loss below the previous W_max"),
            param("time_origin", 0.0, 0.0, 1.0, "0: t from the last loss (Eq. 10); 1: Linux (first CA ACK, one min RTT ahead)"),
            param("coupled", 1.0, 0.0, 1.0, "1: delta = (max x / sum x)^4; 0: delta = 1 (uncoupled CUBIC)"),
        ],
    ),
    multi(
        "mpsqrt",
        "multipath binomial SQRT (Le et al.): +delta/sqrt(w), -sqrt(w)/2",
        "docs/algorithms/mpsqrt.md",
        &[
            INIT_CWND,
            param("k", 0.5, 0.0, 2.0, "increase exponent"),
            param("l", 0.5, 0.0, 1.0, "decrease exponent"),
            param("alpha", 1.0, 0.01, 10.0, "increase constant"),
            param("beta", 0.5, 0.01, 10.0, "decrease constant"),
        ],
    ),
    multi(
        "mpiad",
        "multipath binomial IIAD (Le et al.): +2 delta/w, -1",
        "docs/algorithms/mpiad.md",
        &[
            INIT_CWND,
            param("k", 1.0, 0.0, 2.0, "increase exponent"),
            param("l", 0.0, 0.0, 1.0, "decrease exponent"),
            param("alpha", 2.0, 0.01, 10.0, "increase constant"),
            param("beta", 1.0, 0.01, 10.0, "decrease constant"),
        ],
    ),
    multi(
        "cdd",
        "CDD-MPTCP (Tao & Yan): LIA plus a periodic cut of the subflow with the largest forward delay",
        "docs/algorithms/cdd.md",
        &[
            INIT_CWND,
            param("theta_0", 1.5, 1.0, 100.0, "delay coefficient above which the slowest subflow is trimmed"),
            param("theta_max", 3.0, 1.0, 100.0, "delay coefficient above which it is divided by theta"),
            param("delay_smoothing", 0.75, 0.0, 0.99, "weight of the old forward delay in its EWMA"),
            param("theta_smoothing", 0.75, 0.0, 0.99, "weight of the old theta in its EWMA"),
            param("period", 0.5, 0.01, 10.0, "seconds between adjustments"),
        ],
    ),
    multi(
        "mpmtp",
        "MPMTP (Lee & Chung): concave-convex-linear subflows, loss-rate load balancing, CUBIC fairness",
        "docs/algorithms/mpmtp.md",
        &[
            INIT_CWND,
            param("beta", 0.3, 0.01, 0.99, "multiplicative decrease fraction"),
            param("c", 0.4, 0.01, 10.0, "CUBIC's C in the fairness factor (segments/s^3)"),
            param("load_balance", 1.0, 0.0, 1.0, "1: multiply the increase by B_r"),
            param("fairness", 1.0, 0.0, 1.0, "1: multiply the increase by delta"),
            param("rise", 0.125, 0.0, 10.0, "round-minimum RTT rise over the base RTT (fraction) that starts the linear profile"),
            param("b_floor", 0.1, 0.0, 1.0, "lower bound of B_r"),
            param("delta_max", 10.0, 0.01, 1000.0, "upper bound of delta"),
        ],
    ),
];

/// Builds a registered multipath controller; `p` yields a parameter's value or default.
pub fn build(name: &str, p: &dyn Fn(&str) -> f64) -> Option<Controller> {
    Some(match name {
        "lia" => Controller::Lia(lia::Lia::new(p("init_cwnd"), p("phi"))),
        "olia" => Controller::Olia(olia::Olia::new(p("init_cwnd"))),
        "balia" => Controller::Balia(balia::Balia::new(p("init_cwnd"))),
        "wvegas" => Controller::Wvegas(wvegas::WVegas::new(p("init_cwnd"), p("total_alpha"), p("alpha_min"), p("gamma"))),
        "ewtcp" => Controller::Ewtcp(ewtcp::Ewtcp::new(p("init_cwnd"), p("a"))),
        "coupled" => Controller::Coupled(coupled::Coupled::new(p("init_cwnd"))),
        "mpveno" => Controller::Mpveno(mpveno::MpVeno::new(p("init_cwnd"), p("beta"))),
        "mptcpw" => Controller::Mptcpw(mptcpw::Mptcpw::new(p("init_cwnd"), p("gamma"))),
        "wmptcpw" => Controller::Wmptcpw(wmptcpw::WMptcpw::new(p("init_cwnd"))),
        "mpcubic" => {
            let mut m = mpcubic::MpCubic::new(p("init_cwnd"), p("c"), p("beta"), p("fast_convergence") >= 0.5);
            m.rule.origin = if p("time_origin") >= 0.5 { mpcubic::TimeOrigin::Linux } else { mpcubic::TimeOrigin::Loss };
            m.rule.coupled = p("coupled") >= 0.5;
            Controller::Mpcubic(m)
        }
        "mpsqrt" => Controller::Mpsqrt(binomial::Binomial::new(p("init_cwnd"), p("k"), p("l"), p("alpha"), p("beta"))),
        "mpiad" => Controller::Mpiad(binomial::Binomial::new(p("init_cwnd"), p("k"), p("l"), p("alpha"), p("beta"))),
        "cdd" => Controller::Cdd(cdd::Cdd::new(p("init_cwnd"), p("theta_0"), p("theta_max"), p("delay_smoothing"), p("theta_smoothing"), p("period"))),
        "mpmtp" => Controller::Mpmtp(mpmtp::MpMtp::new(
            p("init_cwnd"),
            p("beta"),
            p("c"),
            p("load_balance") >= 0.5,
            p("fairness") >= 0.5,
            p("rise"),
            p("b_floor"),
            p("delta_max"),
        )),
        "noda_ito" => Controller::NodaIto(noda_ito::NodaIto::new(p("init_cwnd"), p("beta"), p("min_cwnd"), p("mean_per_ack") >= 0.5)),
        _ => return None,
    })
}

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
        Path { cwnd: w, ssthresh: w, srtt: r, rtt: r, min_rtt: r }
    }

    pub fn cong(kind: CongestionKind) -> CongestionEvent {
        CongestionEvent { now: 0, kind, in_flight: 0.0, srtt: 0, min_rtt: 0, rtt: 0 }
    }

    pub fn ack(now: Nanos, acked: f64, rtt_ms: f64) -> AckEvent {
        let r = (rtt_ms * 1e6) as Nanos;
        AckEvent { now, acked, rtt: r, srtt: r, min_rtt: r, owd: r / 2, in_flight: 0.0, in_recovery: false, round_start: false, app_limited: false }
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
                    in_flight: cwnd(sf),
                    in_recovery: self.in_rec[sf],
                    round_start,
                    app_limited: false,
                },
            )
        }

        fn cong_ev(&self, sf: usize, kind: CongestionKind) -> CongestionEvent {
            let ms = |x: f64| (x * 1e6) as Nanos;
            CongestionEvent { now: self.now, kind, in_flight: 0.0, srtt: ms(self.srtt[sf]), min_rtt: ms(self.base[sf]), rtt: ms(self.srtt[sf]) }
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
                assert_eq!(c.cwnd(0).to_bits(), reno.cwnd(0).to_bits(), "seed {seed} step {i} {s:?}: {} vs {}", c.cwnd(0), reno.cwnd(0));
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
        for info in super::REGISTRY {
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
                            assert!(w.is_finite() && w >= 1.0, "{} n={n} seed={seed} step {i} sf {sf}: cwnd {w} after {s:?}", info.name);
                            assert!(!t.is_nan() && t >= 1.0, "{} n={n} seed={seed} step {i} sf {sf}: ssthresh {t}", info.name);
                        }
                    }
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, super::REGISTRY.len() * 24);
    }

    /// Every coupled controller but MPMTP names its coupling terms; the names are
    /// the same on every subflow and do not depend on the state; reading them
    /// leaves the windows as they were.
    #[test]
    fn every_coupled_controller_exposes_metrics() {
        for info in super::REGISTRY {
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
            assert_eq!(m0.is_empty(), info.name == "mpmtp", "{}: {m0:?}", info.name);
        }
        // Single-path rules report through Uncoupled.
        let c = build("cubic", &Params::new()).unwrap();
        let mut c = c;
        c.add_subflow(0);
        assert_eq!(crate::metrics_of(&c, 0).iter().map(|x| x.0).collect::<Vec<_>>(), ["w_max", "k"]);
    }

    #[test]
    fn registry_matches_builder() {
        for info in super::REGISTRY {
            assert_eq!(info.kind, "multi");
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
