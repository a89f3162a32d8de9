//! `remove_subflow`: a subflow that left no longer weighs in the coupling. LIA,
//! OLIA and BALIA reduce to Reno with one subflow, so after the second subflow is
//! removed the first grows exactly as Reno does (1 / cwnd per acknowledged segment
//! in congestion avoidance); every registered controller accepts the call.

use mpcc_algo::{build, registry, CongestionControl, Params};

mod common;
use common::{ack, MS};

/// Two subflows of `name` (30 ms and 60 ms RTTs) grown into congestion avoidance,
/// and the time of their last ACK.
fn grown(name: &str) -> (mpcc_algo::Controller, u64) {
    let mut cc = build(name, &Params::new()).unwrap();
    for sf in 0..2 {
        cc.add_subflow(0);
        cc.set_ssthresh(sf, 12.0);
    }
    let mut now = 0;
    for i in 0..300u64 {
        now += MS;
        cc.on_ack((i % 2) as usize, &ack(now, if i % 2 == 0 { 30 } else { 60 }));
    }
    (cc, now)
}

#[test]
fn after_removal_lia_olia_balia_grow_like_reno() {
    for name in ["lia", "olia", "balia"] {
        let coupled_step = {
            let (mut twin, t) = grown(name);
            let w = twin.cwnd(0);
            twin.on_ack(0, &ack(t + MS, 30));
            twin.cwnd(0) - w
        };
        let (mut cc, now) = grown(name);
        cc.remove_subflow(1, now);
        let w = cc.cwnd(0);
        assert!(w > 12.0, "{name}: in congestion avoidance ({w})");
        cc.on_ack(0, &ack(now + MS, 30));
        let step = cc.cwnd(0) - w;
        assert!((step - 1.0 / w).abs() < 1e-12, "{name}: grew {step}, Reno grows {}", 1.0 / w);
        assert!(coupled_step < step, "{name}: while coupled it grew less ({coupled_step} vs {step})");
    }
}

#[test]
fn every_controller_removes_a_subflow_and_keeps_the_other() {
    for info in registry() {
        let mut cc = build(info.name, &Params::new()).unwrap();
        cc.add_subflow(0);
        cc.add_subflow(0);
        for i in 0..200u64 {
            cc.on_ack((i % 2) as usize, &ack(i * MS, 40));
        }
        cc.remove_subflow(1, 200 * MS);
        let w = cc.cwnd(0);
        for i in 0..50u64 {
            cc.on_ack(0, &ack((201 + i) * MS, 40));
        }
        assert!(cc.cwnd(0).is_finite() && cc.cwnd(0) >= w, "{}: {} after {}", info.name, cc.cwnd(0), w);
    }
}
