//! RFC 6356's design goals on simulations, for the coupled controllers that claim
//! them (LIA, OLIA, BALIA). Goal 1 (do no worse than TCP on the best path) is in
//! tests/multipath.rs; goals 2 and 3 are here. Each test prints its figures.

use serde_json::{json, Value};

mod common;
use common::{num, run, MS, S};

/// Goal 2 (do no harm): a multipath connection whose 2 or 3 subflows all cross one
/// bottleneck takes about one TCP's share against a Reno flow there. Tolerance: the
/// connection's goodput is at most 1.3 times the Reno flow's (an uncoupled connection
/// takes N times), averaged over seeds and a 300 s run.
#[test]
fn shared_bottleneck_multipath_takes_about_one_reno_share() {
    for n in [2usize, 3] {
        for cc in ["lia", "olia", "balia", "reno"] {
            let mut ratio = 0.0;
            let seeds = [1u64, 2, 3];
            for &seed in &seeds {
                let subflows: Vec<Value> = (0..n).map(|_| json!({"path": [0]})).collect();
                let cfg = json!({
                    "duration_ns": 300 * S, "seed": seed, "warmup_ns": 30 * S, "sample_interval_ns": 0,
                    "links": [{"name": "b", "capacity": {"kind": "constant", "bps": 20e6}, "delay_ns": 20 * MS,
                               "queue": {"kind": "red", "min_th": 15.0, "max_th": 45.0, "max_p": 0.1,
                                         "weight": 0.002, "gentle": true, "limit": 200}}],
                    "flows": [
                        {"name": "mp", "cc": cc, "subflows": subflows, "app": {"kind": "bulk"}},
                        {"name": "tcp", "cc": "reno", "path": [0], "app": {"kind": "bulk"}, "start_ns": 7 * MS}
                    ]
                });
                let s = run(&cfg);
                ratio += num(&s, "/flows/mp/goodput_bps") / num(&s, "/flows/tcp/goodput_bps") / seeds.len() as f64;
            }
            eprintln!("{n} subflows, {cc}: multipath / Reno goodput = {ratio:.3}");
            if cc == "reno" {
                // The uncoupled control: N subflows take about N shares.
                assert!(ratio > n as f64 * 0.75, "uncoupled {n}: {ratio}");
            } else {
                assert!(ratio < 1.3, "{cc} with {n} subflows takes {ratio} Reno shares");
                assert!(ratio > 0.5, "{cc} with {n} subflows starves at {ratio}");
            }
        }
    }
}

/// Goal 3 (balance congestion): with unequal random loss on two otherwise equal
/// paths, LIA moves traffic to the less lossy one; at LIA's equilibrium the product
/// p_i * w_i is the same on every path (each window's increase, alpha / w_total per
/// ACK, balances its loss rate p_i w_i / 2 per ACK). Tolerance: the two products
/// within 35 % of each other; the window ratio at least 2 for a loss ratio of 4.
#[test]
fn lia_moves_traffic_to_the_less_lossy_path() {
    let (p1, p2) = (0.0025f64, 0.01f64);
    let lossy = |name: &str, p: f64| {
        json!({"name": name, "capacity": {"kind": "constant", "bps": 1e9}, "delay_ns": 25 * MS,
               "queue": {"kind": "droptail", "packets": 100_000}, "loss": {"kind": "bernoulli", "p": p}})
    };
    let cfg = json!({
        "duration_ns": 600 * S, "seed": 1, "warmup_ns": 30 * S, "sample_interval_ns": 0,
        "links": [lossy("low", p1), lossy("high", p2)],
        "flows": [{"name": "mp", "cc": "lia", "subflows": [{"path": [0]}, {"path": [1]}], "app": {"kind": "bulk"}}]
    });
    let s = run(&cfg);
    // Mean window = throughput x RTT / segment; the RTTs are equal (50 ms, no queueing).
    let w = |i: usize| {
        num(&s, &format!("/flows/mp/subflows/{i}/throughput_bps"))
            * num(&s, &format!("/flows/mp/subflows/{i}/rtt_mean_s"))
            / (1448.0 * 8.0)
    };
    let (w1, w2) = (w(0), w(1));
    let (e1, e2) = (p1 * w1, p2 * w2);
    eprintln!("windows {w1:.1} (p {p1}) and {w2:.1} (p {p2}); p*w = {e1:.4} and {e2:.4}");
    assert!(w1 / w2 > 2.0, "window ratio {}", w1 / w2);
    assert!((e1 / e2 - 1.0).abs() < 0.35, "p*w ratio {}", e1 / e2);
}
