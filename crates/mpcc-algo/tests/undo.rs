//! `undo` for every registered controller: after a spurious loss or timeout the
//! subflow's window and threshold come back exactly, its later behaviour is that
//! of a twin that never saw the reduction, and the other subflows are untouched.

use mpcc_algo::{build, registry, CongestionControl, CongestionEvent, CongestionKind, Controller, Params};

mod common;
use common::{ack, MS};

fn loss(now: u64, kind: CongestionKind) -> CongestionEvent {
    CongestionEvent { now, kind, in_flight: 20.0, srtt: 30 * MS, min_rtt: 20 * MS, rtt: 30 * MS, from_flight: false }
}

/// Two subflows, grown through slow start into congestion avoidance by 400 ACKs.
fn grown(name: &str) -> Controller {
    let mut cc = build(name, &Params::new()).unwrap();
    cc.add_subflow(0);
    cc.add_subflow(0);
    cc.set_ssthresh(0, 30.0);
    cc.set_ssthresh(1, 30.0);
    let mut now = 0;
    for i in 0..400u64 {
        now += MS;
        cc.on_ack((i % 2) as usize, &ack(now, 30 + i % 7));
    }
    cc
}

fn windows(cc: &Controller) -> Vec<u64> {
    (0..2).flat_map(|sf| [cc.cwnd(sf).to_bits(), cc.ssthresh(sf).to_bits()]).collect()
}

#[test]
fn an_undo_restores_every_controller_exactly() {
    let mut checked = 0;
    for info in registry() {
        for kind in [CongestionKind::Loss, CongestionKind::Timeout] {
            let mut cc = grown(info.name);
            let twin = grown(info.name);
            let before = windows(&cc);
            cc.on_congestion(0, &loss(401 * MS, kind));
            assert_ne!(windows(&cc), before, "{}: {kind:?} reduced nothing", info.name);
            cc.undo(0, 402 * MS);
            assert_eq!(windows(&cc), before, "{}: {kind:?} not undone exactly", info.name);
            // A second undo without a new reduction changes nothing.
            cc.undo(0, 403 * MS);
            assert_eq!(windows(&cc), before, "{}: a second undo changed the window", info.name);
            // Afterwards it behaves as the twin that never saw the reduction.
            let mut twin = twin;
            for i in 0..100u64 {
                let now = (404 + i) * MS;
                let ev = ack(now, 31);
                cc.on_ack((i % 2) as usize, &ev);
                twin.on_ack((i % 2) as usize, &ev);
            }
            assert_eq!(windows(&cc), windows(&twin), "{}: {kind:?} diverged after the undo", info.name);
            checked += 1;
        }
    }
    assert!(checked >= 2 * 21, "every registered controller, both kinds ({checked})");
}

/// A small deterministic generator (xorshift64*), so the sequences need no crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Issue 14's property over random event sequences: for every controller, ACKs on
/// random subflows with random RTTs, recovery and app-limited flags, real losses and
/// timeouts in between; at random points a reduction, a few ACKs of the same subflow,
/// and its undo. Every undo restores the subflow's window and threshold to the bits
/// they had just before the reduction, and every window stays finite and positive.
#[test]
fn undo_is_exact_over_random_event_sequences() {
    let mut undos = 0;
    for info in registry() {
        for seed in 1..=8u64 {
            let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
            let mut cc = build(info.name, &Params::new()).unwrap();
            let n = 1 + rng.below(3) as usize;
            for _ in 0..n {
                cc.add_subflow(0);
            }
            let mut now = 0;
            for _ in 0..600 {
                now += MS + rng.below(MS);
                let sf = rng.below(n as u64) as usize;
                let event = rng.below(100);
                let mut ev = ack(now, 20 + rng.below(80));
                ev.in_recovery = rng.below(10) == 0;
                ev.app_limited = rng.below(20) == 0;
                if event < 85 {
                    cc.on_ack(sf, &ev);
                } else if event < 92 {
                    let kind = if rng.below(4) == 0 { CongestionKind::Timeout } else { CongestionKind::Loss };
                    cc.on_congestion(sf, &loss(now, kind));
                } else {
                    let before = (cc.cwnd(sf).to_bits(), cc.ssthresh(sf).to_bits());
                    let kind = if rng.below(3) == 0 { CongestionKind::Timeout } else { CongestionKind::Loss };
                    cc.on_congestion(sf, &loss(now, kind));
                    for _ in 0..rng.below(4) {
                        now += MS;
                        cc.on_ack(sf, &ack(now, 20 + rng.below(80)));
                    }
                    cc.undo(sf, now);
                    let after = (cc.cwnd(sf).to_bits(), cc.ssthresh(sf).to_bits());
                    assert_eq!(after, before, "{} seed {seed}: undo of a {kind:?} on subflow {sf} at {now}", info.name);
                    undos += 1;
                }
                for i in 0..n {
                    let w = cc.cwnd(i);
                    assert!(w.is_finite() && w > 0.0, "{} seed {seed}: subflow {i} window {w}", info.name);
                }
            }
        }
    }
    assert!(undos > 21 * 8 * 20, "enough undos checked ({undos})");
}
