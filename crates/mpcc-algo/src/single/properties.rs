//! Model-based property test: every registered single-path controller, driven by
//! random sequences of ACK / loss / ECN / timeout events (with default and with
//! random in-range parameters), keeps its windows finite and above the floors.

use super::MEMBERS as REGISTRY;
use crate::common::{MIN_CWND, MIN_SSTHRESH};
use crate::params::Info;
use crate::registry::build;
use crate::{AckEvent, CongestionControl, CongestionEvent, CongestionKind, Controller, Params};
use mpcc_core::{Nanos, Rng, NS_PER_MS, NS_PER_SEC};

/// Parameters of `info`: defaults, or (when `random`) each drawn uniformly in range.
fn params(info: &Info, rng: &mut Rng, random: bool) -> Params {
    let mut p = Params::new();
    if random {
        for pi in info.params {
            p = p.with(pi.name, pi.min + rng.uniform() * (pi.max - pi.min));
        }
    }
    p
}

struct Driver {
    rng: Rng,
    now: Nanos,
    base: Nanos,
    srtt: Nanos,
    min_rtt: Nanos,
    /// ACKs left before the current recovery epoch ends (0 = not in recovery).
    recovery_left: u32,
    acks_in_round: f64,
}

impl Driver {
    fn ack(&mut self, cwnd: f64) -> AckEvent {
        let r = &mut self.rng;
        // Mostly small steps of time; now and then a long idle period.
        self.now += if r.bernoulli(0.002) {
            100 * NS_PER_SEC
        } else {
            (r.uniform() * self.base as f64 / cwnd.max(1.0)) as Nanos
        };
        // An occasional ACK without an RTT sample (0) must not break anything.
        let rtt = if r.bernoulli(0.01) { 0 } else { self.base + (r.uniform() * 2.0 * self.base as f64) as Nanos };
        if rtt > 0 {
            self.srtt = if self.srtt == 0 { rtt } else { (7 * self.srtt + rtt) / 8 };
            self.min_rtt = self.min_rtt.min(rtt);
        }
        let acked = [0.0, 0.5, 1.0, 1.0, 1.0, 1.0, 2.0, 3.0, 10.0][(r.uniform() * 9.0) as usize];
        let round_start = self.acks_in_round >= cwnd;
        self.acks_in_round = if round_start { 0.0 } else { self.acks_in_round + 1.0 };
        AckEvent {
            now: self.now,
            acked,
            rtt,
            srtt: self.srtt,
            min_rtt: if self.min_rtt == Nanos::MAX { 0 } else { self.min_rtt },
            owd: rtt / 2,
            in_flight: cwnd as u64,
            in_recovery: self.recovery_left > 0,
            round_start,
            app_limited: r.bernoulli(0.1),
            delivered: acked as u64,
            ..AckEvent::default()
        }
    }

    fn signal(&self, kind: CongestionKind, cwnd: f64) -> CongestionEvent {
        CongestionEvent {
            now: self.now,
            kind,
            in_flight: cwnd,
            srtt: self.srtt,
            min_rtt: self.min_rtt.min(self.srtt),
            rtt: self.srtt,
            from_flight: false,
        }
    }
}

fn check_windows(c: &Controller, what: &str) {
    let (w, s) = (c.cwnd(0), c.ssthresh(0));
    assert!(w.is_finite() && w >= MIN_CWND, "{what}: cwnd {w}");
    assert!(!s.is_nan() && s >= MIN_SSTHRESH, "{what}: ssthresh {s}");
}

fn run(info: &Info, seed: u64, random_params: bool) {
    let mut rng = Rng::stream(seed, 0x5EED);
    let p = params(info, &mut rng, random_params);
    let mut c = build(info.name, &p).unwrap_or_else(|e| panic!("{}: {e}", info.name));
    let base = NS_PER_MS + (rng.uniform() * 300.0 * NS_PER_MS as f64) as Nanos;
    let mut d = Driver { rng, now: 0, base, srtt: 0, min_rtt: Nanos::MAX, recovery_left: 0, acks_in_round: 0.0 };
    assert_eq!(c.add_subflow(0), 0);
    for step in 0..4000 {
        let what = format!("{} seed {seed} params {:?} step {step}", info.name, p.0);
        let before = c.cwnd(0);
        let u = d.rng.uniform();
        if u < 0.08 && d.recovery_left == 0 {
            let kind = if d.rng.bernoulli(0.8) { CongestionKind::Loss } else { CongestionKind::Ecn };
            c.on_congestion(0, &d.signal(kind, before));
            d.recovery_left = if kind == CongestionKind::Loss { 1 + (d.rng.uniform() * 30.0) as u32 } else { 0 };
            let (w, s) = (c.cwnd(0), c.ssthresh(0));
            assert!(s.is_finite() && s >= MIN_SSTHRESH, "{what}: ssthresh {s} after {kind:?}");
            assert!(w <= before.max(MIN_SSTHRESH) + 1e-9, "{what}: {kind:?} grew cwnd {before} -> {w}");
        } else if u < 0.095 {
            c.on_congestion(0, &d.signal(CongestionKind::Timeout, before));
            d.recovery_left = 0;
            let s = c.ssthresh(0);
            assert!(s.is_finite() && s >= MIN_SSTHRESH, "{what}: ssthresh {s} after timeout");
            assert_eq!(c.cwnd(0), MIN_CWND, "{what}: cwnd after timeout");
        } else {
            let ev = d.ack(before);
            c.on_ack(0, &ev);
            if ev.app_limited {
                assert!(c.cwnd(0) <= before, "{what}: grew while application-limited {before} -> {}", c.cwnd(0));
            }
            if ev.in_recovery {
                assert!(c.cwnd(0) <= before, "{what}: grew in recovery {before} -> {}", c.cwnd(0));
                d.recovery_left -= 1;
                if d.recovery_left == 0 {
                    c.on_recovery_exit(0, d.now);
                }
            }
        }
        check_windows(&c, &what);
    }
}

#[test]
fn random_event_sequences_keep_windows_finite_and_floored() {
    assert!(REGISTRY.len() >= 8);
    for info in REGISTRY.iter().map(|m| m.info) {
        for seed in 0..25 {
            run(info, seed, false);
            run(info, 1000 + seed, true);
        }
    }
}

/// The same sequence twice gives the same windows (no hidden state or clock).
#[test]
fn controllers_are_deterministic() {
    for info in REGISTRY.iter().map(|m| m.info) {
        let trace = |seed| {
            let mut rng = Rng::stream(seed, 1);
            let mut c = build(info.name, &Params::new()).unwrap();
            c.add_subflow(0);
            let mut d = Driver {
                rng: Rng::stream(seed, 2),
                now: 0,
                base: 20 * NS_PER_MS,
                srtt: 0,
                min_rtt: Nanos::MAX,
                recovery_left: 0,
                acks_in_round: 0.0,
            };
            let mut out = Vec::new();
            for _ in 0..2000 {
                if rng.bernoulli(0.01) {
                    c.on_congestion(0, &d.signal(CongestionKind::Loss, c.cwnd(0)));
                } else {
                    let ev = d.ack(c.cwnd(0));
                    c.on_ack(0, &ev);
                }
                out.push(c.cwnd(0).to_bits());
            }
            out
        };
        assert_eq!(trace(7), trace(7), "{}", info.name);
    }
}

/// Every single-path entry names a doc page that exists.
#[test]
fn every_entry_has_its_doc_page() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for info in REGISTRY.iter().map(|m| m.info) {
        assert!(root.join(info.doc).is_file(), "{}: missing {}", info.name, info.doc);
    }
}
