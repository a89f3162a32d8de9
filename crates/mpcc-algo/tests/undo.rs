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
