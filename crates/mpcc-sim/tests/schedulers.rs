//! The packet schedulers (docs/schedulers.md) on simulated connections. Each test
//! prints its measured figures; the unit tests of each rule, with hand-computed
//! states, are in src/scheduler.rs.

use serde_json::{json, Value};

mod common;
use common::{num, run, MS, S};

const MSS: u64 = 1448;

fn link(name: &str, bps: f64, delay_ms: u64, packets: u64) -> Value {
    json!({"name": name, "capacity": {"kind": "constant", "bps": bps}, "delay_ns": delay_ms * MS,
           "queue": {"kind": "droptail", "packets": packets}})
}

fn mp_flow(scheduler: &str, paths: &[usize], app: Value) -> Value {
    let subflows: Vec<Value> = paths.iter().map(|&p| json!({"path": [p]})).collect();
    json!({"name": "mp", "cc": "lia", "scheduler": scheduler, "subflows": subflows, "app": app})
}

#[test]
fn redundant_sends_every_segment_on_every_subflow() {
    // A file of 3000 segments, queues long enough that nothing is lost. Each
    // copy reaches the receiver; the data level keeps the first and counts the
    // others in data_dup_segments.
    let segs = 3000u64;
    let file = json!({"kind": "file", "bytes": segs * MSS});
    let check = |links: Value, label: &str| -> (f64, f64) {
        let s = run(&json!({"duration_ns": 20 * S, "seed": 1, "sample_interval_ns": 0, "links": links,
                            "flows": [mp_flow("redundant", &[0, 1], file.clone())]}));
        let g = |k: &str| num(&s, &format!("/flows/mp/{k}"));
        let (a, b) = (g("subflows/0/sent_packets"), g("subflows/1/sent_packets"));
        eprintln!(
            "redundant, {label}: {segs} segments, sent {a} + {b}, duplicates dropped {}, completion {:.3} s",
            g("data_dup_segments"),
            g("fct_s")
        );
        assert_eq!(g("delivered_bytes") as u64, segs * MSS);
        assert_eq!((g("losses"), g("retransmissions"), g("reinjections")), (0.0, 0.0, 0.0));
        assert_eq!(g("data_dup_segments"), a + b - segs as f64, "every copy but the first is a duplicate");
        (a, b)
    };
    // Equal paths: each subflow carries every segment.
    let (a, b) = check(json!([link("a", 20e6, 10, 5000), link("b", 20e6, 10, 5000)]), "equal paths");
    assert_eq!((a, b), (segs as f64, segs as f64));
    // 50 and 10 Mbit/s, 10 and 100 ms RTT: the fast subflow carries every
    // segment; the slow one carries what it can keep up with and skips data the
    // DATA_ACK has passed.
    let (a, b) = check(json!([link("fast", 50e6, 5, 5000), link("slow", 10e6, 50, 5000)]), "unequal paths");
    assert_eq!(a, segs as f64);
    assert!(b > 100.0 && b < 0.5 * segs as f64, "slow subflow sent {b}");
}

/// 50 Mbit/s with a 10 ms RTT and 10 Mbit/s with a 100 ms RTT; a bulk transfer
/// through a receive buffer of `buf` bytes for 60 s (5 s warm-up).
fn hetero(sched: &str, buf: Option<u64>, params: Value) -> (f64, f64, f64, f64) {
    let links = json!([link("fast", 50e6, 5, 50), link("slow", 10e6, 50, 100)]);
    let mut f = mp_flow(sched, &[0, 1], json!({"kind": "bulk"}));
    if let Some(b) = buf {
        f["tcp"] = json!({"rcv_buf_bytes": b});
    }
    f["scheduler_params"] = params.clone();
    let s = run(&json!({"duration_ns": 60 * S, "seed": 1, "warmup_ns": 5 * S, "sample_interval_ns": 0,
                        "links": links, "flows": [f]}));
    let g = |k: &str| num(&s, &format!("/flows/mp/{k}"));
    let r = (g("reorder_mean_segments"), g("app_delay_mean_s"), g("goodput_bps"), g("subflows/1/throughput_bps"));
    eprintln!("{sched} {params}, buffer {buf:?}: reordering buffer mean {:.2} segments, application delay mean {:.1} ms, goodput {:.2} Mbit/s (slow subflow {:.2})",
              r.0, r.1 * 1e3, r.2 * 1e-6, r.3 * 1e-6);
    r
}

/// BLEST and ECF may trail minrtt's goodput by this fraction at most.
const GOODPUT_TOLERANCE: f64 = 0.05;

#[test]
fn blest_and_ecf_avoid_head_of_line_blocking_with_a_small_receive_buffer() {
    // With the receive window binding, a segment on the slow path holds window
    // space for 100 ms and stalls the fast path behind it. Round-robin does that
    // all the time; minrtt whenever the fast subflow's cwnd is full (with 256 KB
    // its goodput halves); BLEST and ECF wait for the fast subflow instead.
    for buf in [64_000u64, 256_000] {
        let minrtt = hetero("minrtt", Some(buf), json!({}));
        let rr = hetero("roundrobin", Some(buf), json!({}));
        assert!(rr.0 > 5.0, "round-robin reorders ({})", rr.0);
        for sched in ["blest", "ecf"] {
            let x = hetero(sched, Some(buf), json!({}));
            assert!(x.0 < 0.2 * rr.0, "{sched} {buf}: reordering {} vs round-robin {}", x.0, rr.0);
            assert!(x.1 < 0.5 * rr.1, "{sched} {buf}: application delay {} vs round-robin {}", x.1, rr.1);
            assert!(
                x.2 >= (1.0 - GOODPUT_TOLERANCE) * minrtt.2,
                "{sched} {buf}: goodput {} vs minrtt {}",
                x.2,
                minrtt.2
            );
            assert!(x.1 <= minrtt.1 * 1.05, "{sched} {buf}: application delay {} vs minrtt {}", x.1, minrtt.1);
        }
        if buf == 256_000 {
            let blest = hetero("blest", Some(buf), json!({}));
            assert!(blest.2 > 1.5 * minrtt.2, "here waiting beats minrtt: {} vs {}", blest.2, minrtt.2);
            assert!(minrtt.0 > 10.0 * blest.0.max(0.1), "minrtt reorders: {} vs {}", minrtt.0, blest.0);
        }
    }
}

#[test]
fn blest_and_ecf_equal_minrtt_without_a_window_limit() {
    // An unlimited receive buffer and an always-backlogged application: BLEST
    // never finds the window short and ECF always has more queued than the fast
    // subflow can carry soon, so neither waits; lambda = 0 never waits either.
    let minrtt = hetero("minrtt", None, json!({}));
    for (sched, params) in [("blest", json!({})), ("ecf", json!({})), ("ecf", json!({"beta": 1.0}))] {
        assert_eq!(hetero(sched, None, params), minrtt, "{sched}");
    }
    assert!(minrtt.3 > 5e6, "both paths used ({})", minrtt.3);
    let small = Some(256_000);
    assert_eq!(
        hetero("blest", small, json!({"lambda": 0.0})),
        hetero("minrtt", small, json!({})),
        "lambda = 0 is minrtt"
    );
    assert_ne!(
        hetero("blest", small, json!({"lambda": 0.0})),
        hetero("blest", small, json!({})),
        "the parameter takes effect"
    );
}

#[test]
fn reinjections_never_go_to_the_subflow_they_are_stuck_on() {
    // Path b loses every packet; whatever the scheduler put on it at the start
    // is reinjected on a (CDD: "a retransmission avoids the subflow it was first
    // sent on"), and the file completes.
    let mut dark = link("b", 10e6, 20, 100);
    dark["loss"] = json!({"kind": "periodic", "every": 1});
    let bytes = 2_000_000u64;
    for sched in ["minrtt", "roundrobin", "blest", "ecf", "cdd", "redundant"] {
        let f = mp_flow(sched, &[0, 1], json!({"kind": "file", "bytes": bytes}));
        let s = run(&json!({"duration_ns": 20 * S, "seed": 1, "sample_interval_ns": 0,
                            "links": [link("a", 10e6, 20, 100), dark], "flows": [f]}));
        let g = |k: &str| num(&s, &format!("/flows/mp/{k}"));
        let (r0, r1) = (g("subflows/0/reinjections"), g("subflows/1/reinjections"));
        eprintln!(
            "{sched}: reinjected on a {r0}, on b {r1}; sent on b {}; completion {:.3} s",
            g("subflows/1/sent_packets"),
            g("fct_s")
        );
        assert_eq!(g("delivered_bytes") as u64, bytes, "{sched}");
        assert_eq!(r1, 0.0, "{sched}");
        if sched == "redundant" {
            assert_eq!(r0, 0.0, "a already carries every segment");
        } else {
            assert!(r0 >= 1.0, "{sched}: b's initial segments reinjected on a");
        }
    }
}

#[test]
fn scheduler_parameters_are_checked_and_errors_name_the_field() {
    let base = |flow: Value| json!({"duration_ns": S, "seed": 1, "links": [link("a", 1e6, 1, 10)], "flows": [flow]});
    let flow = |sched: &str, params: Value| json!({"name": "m", "cc": "lia", "scheduler": sched, "scheduler_params": params, "subflows": [{"path": [0]}], "app": {"kind": "bulk"}});
    let cases = [
        (flow("ecf", json!({"lambda": 1.0})), "flows.m.scheduler_params.lambda: unknown parameter of scheduler 'ecf'; allowed: beta, opportunistic, penalize"),
        (flow("blest", json!({"beta": 1.0})), "flows.m.scheduler_params.beta: unknown parameter of scheduler 'blest'; allowed: lambda, opportunistic, penalize"),
        (flow("minrtt", json!({"lambda": 1.0})), "flows.m.scheduler_params.lambda: unknown parameter of scheduler 'minrtt'; allowed: opportunistic, penalize"),
        (flow("redundant", json!({"lambda": 1.0})), "flows.m.scheduler_params.lambda: unknown parameter of scheduler 'redundant'; allowed: none"),
        (flow("blest", json!({"lambda": -0.5})), "flows.m.scheduler_params.lambda: -0.5; allowed: 0 to 100"),
        (flow("ecf", json!({"beta": 11.0})), "flows.m.scheduler_params.beta: 11; allowed: 0 to 10"),
        (flow("fastest", json!({})), "flows.m.scheduler: unknown scheduler 'fastest'; allowed: minrtt, roundrobin, redundant, blest, ecf, cdd"),
        (flow("ecf", json!({"beta": "x"})), "invalid configuration"),
    ];
    for (f, want) in cases {
        let e = mpcc_sim::run_json(&base(f).to_string()).err().expect("rejected");
        assert!(e.contains(want), "{e:?} lacks {want:?}");
        assert!(!e.contains('\n'), "one line: {e:?}");
    }
    // Defaults and valid values run.
    assert!(mpcc_sim::run_json(&base(flow("ecf", json!({"beta": 0.25}))).to_string()).is_ok());
    assert!(mpcc_sim::run_json(&base(flow("cdd", json!({}))).to_string()).is_ok());
}
