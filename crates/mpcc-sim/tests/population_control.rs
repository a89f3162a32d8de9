//! Subflow population control (thesis chapter 4, Algorithm 2; docs/algorithms/popctl.md):
//! one 40 Mbit/s path, 25 ms one-way propagation delay, minimum RTO 200 ms.
//! popctl (20 uncoupled CUBIC subflows, a large DropTail buffer, receiver-side
//! CoDel) against one CUBIC flow through in-network CoDel (target 5 ms,
//! interval 100 ms) and against 20 uncoupled CUBIC subflows without popctl,
//! in the static, periodic (1/5 for 1 s every 5 s) and random-walk (1/5 to 8x)
//! capacity scenarios. Each test prints its measured figures.

use serde_json::{json, Value};

mod common;
use common::{num, run, MS, S};

const C: f64 = 40e6;
/// "Large buffer": 10 000 packets, 3 s at 40 Mbit/s (the thesis's largest DropTail).
const BIG_BUFFER: u64 = 10_000;

#[derive(Clone, Copy, Debug)]
enum Capacity {
    Static,
    Periodic,
    RandomWalk,
}

fn capacity(kind: Capacity) -> Value {
    match kind {
        Capacity::Static => json!({"kind": "constant", "bps": C}),
        Capacity::Periodic => json!({"kind": "schedule", "steps": [[0, C], [4 * S, C / 5.0]], "period_ns": 5 * S}),
        Capacity::RandomWalk => json!({"kind": "random_walk", "initial_bps": C, "min_bps": C / 5.0, "max_bps": 8.0 * C,
                                       "step_ns": 2 * S, "sigma": 0.7}),
    }
}

/// (queue, subflows, receiver)
fn scenario(kind: Capacity, codel: bool, subflows: usize, receiver: &str) -> Value {
    let queue = if codel {
        json!({"kind": "codel", "target_ns": 5 * MS, "interval_ns": 100 * MS, "limit": BIG_BUFFER})
    } else {
        json!({"kind": "droptail", "packets": BIG_BUFFER})
    };
    let subs: Vec<Value> = (0..subflows).map(|_| json!({"path": [0]})).collect();
    json!({"duration_ns": 60 * S, "seed": 7, "warmup_ns": 5 * S, "sample_interval_ns": 0,
           "links": [{"name": "bn", "capacity": capacity(kind), "delay_ns": 25 * MS, "queue": queue}],
           "flows": [{"name": "f", "cc": "cubic", "subflows": subs, "receiver": receiver, "app": {"kind": "bulk"}}]})
}

struct Figures {
    util: f64,
    rtt_mean: f64,
    rtt_p95: f64,
    queue: f64,
    app_p95: f64,
}

fn figures(s: &Value) -> Figures {
    Figures {
        util: num(s, "/links/bn/utilization"),
        rtt_mean: num(s, "/flows/f/rtt_mean_s"),
        rtt_p95: num(s, "/flows/f/rtt_p95_s"),
        queue: num(s, "/links/bn/queue_delay_mean_s"),
        app_p95: num(s, "/flows/f/app_delay_p95_s"),
    }
}

fn show(label: &str, f: &Figures) {
    eprintln!(
        "{label:32} utilization {:.3}  RTT mean {:.3} s p95 {:.3} s  queue {:.3} s  app delay p95 {:.3} s",
        f.util, f.rtt_mean, f.rtt_p95, f.queue, f.app_p95
    );
}

/// Runs the four configurations, prints them and checks the claim: popctl
/// utilizes the link better than one CUBIC through CoDel (by at least `gain`)
/// and has at most half the delay (RTT mean and p95, queueing delay) of 20
/// uncoupled subflows without it.
fn compare(kind: Capacity, min_util: f64, gain: f64) {
    let pop = run(&scenario(kind, false, 20, "popctl"));
    let one_codel = figures(&run(&scenario(kind, true, 1, "none")));
    let many = figures(&run(&scenario(kind, false, 20, "none")));
    let many_codel = figures(&run(&scenario(kind, true, 20, "none")));
    let p = figures(&pop);
    eprintln!("--- {kind:?}");
    show("popctl, 20 subflows, DropTail", &p);
    show("1 CUBIC, CoDel", &one_codel);
    show("20 subflows, DropTail", &many);
    show("20 subflows, CoDel (thesis)", &many_codel);
    let dupacks = num(&pop, "/flows/f/receiver_dupacks");
    eprintln!(
        "popctl: {dupacks} dup-ACK episodes, {} offs, {} ons, {:.1} subflows on on average, {} drops in the network",
        num(&pop, "/flows/f/receiver_offs"),
        num(&pop, "/flows/f/receiver_ons"),
        num(&pop, "/flows/f/receiver_subflows_on_mean"),
        num(&pop, "/links/bn/drops"),
    );
    assert!(dupacks > 100.0, "the receiver acted: {dupacks} episodes");
    assert!(p.util >= min_util, "popctl utilization {:.3} < {min_util}", p.util);
    assert!(p.util >= one_codel.util + gain, "popctl {:.3} vs one CUBIC + CoDel {:.3}", p.util, one_codel.util);
    assert!(p.rtt_mean <= 0.5 * many.rtt_mean, "RTT mean {:.3} vs {:.3}", p.rtt_mean, many.rtt_mean);
    assert!(p.rtt_p95 <= 0.5 * many.rtt_p95, "RTT p95 {:.3} vs {:.3}", p.rtt_p95, many.rtt_p95);
    assert!(p.queue <= 0.5 * many.queue, "queueing delay {:.3} vs {:.3}", p.queue, many.queue);
}

#[test]
fn population_control_static() {
    compare(Capacity::Static, 0.95, 0.03);
}

#[test]
fn population_control_periodic() {
    compare(Capacity::Periodic, 0.90, 0.3);
}

#[test]
fn population_control_random_walk() {
    compare(Capacity::RandomWalk, 0.85, 0.15);
}

/// The receiver-side mechanism: a hold makes the next in-order segment's ACK a
/// duplicate and SACKs what follows, the unmodified sender halves after three,
/// the retransmission lifts the hold; off withholds ACKs, on sends one at once.
#[test]
fn intentional_duplicate_acks_and_off_on() {
    use mpcc_sim::config::TcpConfig;
    use mpcc_sim::packet::Packet;
    use mpcc_sim::tcp::receiver::AckAction;
    use mpcc_sim::tcp::{Receiver, Sender};
    let tcp = TcpConfig::default();
    let mut cc = mpcc_algo::build("reno", &mpcc_algo::Params::new()).unwrap();
    mpcc_algo::CongestionControl::add_subflow(&mut cc, 0);
    let mut snd = Sender::new(0, 0, &tcp);
    snd.set_app_bytes(u64::MAX);
    let mut rcv = Receiver::new(0, &tcp);
    let mut out = Vec::new();
    snd.send(0, &cc, &mut out);
    assert_eq!(out.len(), 10);
    let ack = |a: AckAction, rcv: &Receiver| match a {
        AckAction::Now => rcv.built,
        other => panic!("expected an ACK, got {other:?}"),
    };
    // Segments 0 and 1 acknowledged normally; then the controller asks for a hold.
    for p in out.drain(..2).collect::<Vec<Packet>>() {
        let a = rcv.on_data(MS, &p, 1448).0;
        let a = ack(a, &rcv);
        snd.process_ack(2 * MS, &a, &mut cc, &mut Vec::new());
    }
    rcv.start_hold();
    let before = mpcc_algo::CongestionControl::cwnd(&cc, 0);
    let mut acks = Vec::new();
    for p in out.drain(..) {
        let (a, delivered) = rcv.on_data(MS, &p, 1448);
        assert_eq!(delivered, 1, "the data is delivered at once");
        acks.push(ack(a, &rcv));
    }
    assert_eq!(acks[0].seq, 2, "segment 2's own ACK is the first duplicate");
    assert_eq!((acks[3].seq, acks[3].sack_block(0)), (2, (3, 6)));
    let mut retx = Vec::new();
    for a in &acks {
        snd.process_ack(3 * MS, a, &mut cc, &mut retx);
    }
    assert!(snd.in_recovery);
    let after = mpcc_algo::CongestionControl::cwnd(&cc, 0);
    // Slow start grew the window to 14 with the SACKs before the loss was
    // detected (the third SACK); Reno halved that: 7.
    assert_eq!((before, after), (12.0, 7.0), "the sender halved");
    assert_eq!(snd.stats.recoveries, 1);
    assert_eq!(retx.len(), 1);
    assert_eq!(retx[0].seq, 2, "segment 2 retransmitted");
    // Its arrival lifts the hold: everything is acknowledged.
    let a = rcv.on_data(4 * MS, &retx[0], 1448).0;
    assert_eq!(ack(a, &rcv).seq, 10);
    // Off: nothing is acknowledged; on: one ACK at once, cumulative.
    rcv.off = true;
    assert!(matches!(rcv.on_data(5 * MS, &Packet::segment(0, 0, 10, 10, 1500, 4 * MS), 1448).0, AckAction::Withhold));
    let on = rcv.turn_on(6 * MS);
    assert_eq!(on.seq, 11);
    assert_eq!(rcv.withheld, 1);
}

/// The RTT a receiver controller reads is the receiver's own (RFC 7323: now minus
/// the echoed TSval, the time its ACK left), which does not include its delayed-ACK
/// wait. A one-segment window makes every ACK wait for the 40 ms delayed-ACK timer:
/// the sender's RTT is 50 ms of propagation plus serialization plus 40 ms, the
/// receiver's about 51 ms (it included the 40 ms before tcp/ack_clock.rs).
#[test]
fn the_receiver_rtt_leaves_out_its_delayed_ack_wait() {
    use mpcc_algo::receiver::RxController;
    let cfg: mpcc_sim::config::Config = serde_json::from_value(json!({
        "duration_ns": 5 * S, "seed": 1, "sample_interval_ns": 0,
        "links": [{"name": "l", "capacity": {"kind": "constant", "bps": 10e6}, "delay_ns": 25 * MS,
                   "queue": {"kind": "droptail", "packets": 100}}],
        "flows": [{"name": "f", "cc": "cubic", "app": {"kind": "bulk"}, "subflows": [{"path": [0]}], "receiver": "popctl",
                   "tcp": {"profile": "linux", "quickack": false, "delack_timeout_ns": 40 * MS, "rcv_buf_bytes": 1448}}]}))
    .unwrap();
    let mut sim = mpcc_sim::sim::Sim::new(&cfg).unwrap();
    sim.run();
    let f = &sim.flows[mpcc_sim::ids::FlowId(0)];
    let sender_srtt = f.subs[0].snd.rtt.srtt;
    let RxController::PopCtl(c) = &f.rctl else { panic!("popctl expected") };
    eprintln!("sender srtt {sender_srtt} ns, receiver RTT_min {} srtt {} ns", c.rtt_min, c.srtt);
    assert!(sender_srtt > 90 * MS, "every ACK waited for the timer: {sender_srtt}");
    assert!(c.rtt_min >= 50 * MS && c.rtt_min < 52 * MS, "{}", c.rtt_min);
    assert!(c.srtt >= 50 * MS && c.srtt < 52 * MS, "{}", c.srtt);
}
