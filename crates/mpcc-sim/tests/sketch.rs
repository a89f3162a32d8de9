//! The quantile sketch on simulated runs (issue 18): every summary field other than
//! the sketch's answers is bit-identical to the run with `exact_percentiles`; the
//! percentiles (RTT, application delay, page-load time) and the `delay_cdf` points
//! are within `sketch::RELATIVE_ERROR` of the exact ones; the fractions of delays
//! within a bound lie between the exact fractions at the bound moved by that error.

use mpcc_sim::config::Config;
use mpcc_sim::metrics::RttStats;
use mpcc_sim::sketch::RELATIVE_ERROR;
use serde_json::{json, Value};

mod common;
use common::{MS, S};

fn link(name: &str, capacity: Value, delay_ms: u64, packets: u64, loss: Value) -> Value {
    json!({"name": name, "capacity": capacity, "delay_ns": delay_ms * MS,
           "queue": {"kind": "droptail", "packets": packets}, "loss": loss})
}

fn constant(bps: f64) -> Value {
    json!({"kind": "constant", "bps": bps})
}

fn walk(lo: f64, hi: f64) -> Value {
    json!({"kind": "random_walk", "initial_bps": (lo + hi) / 2.0, "min_bps": lo, "max_bps": hi, "step_ns": 100 * MS,
           "sigma": 0.2})
}

/// Scenarios with different delay distributions: queueing at a shared bottleneck,
/// random loss (retransmission delays in the application delay), two paths of
/// very different delays (reordering), varying capacity, Web pages.
fn scenarios() -> Vec<(&'static str, Value)> {
    let none = json!({"kind": "none"});
    let dumbbell = json!({
        "duration_ns": 30 * S, "seed": 2, "warmup_ns": 5 * S, "sample_interval_ns": 0,
        "links": [link("b", constant(20e6), 30, 150, none.clone())],
        "flows": (0..10).map(|i| json!({"name": format!("f{i}"), "cc": if i % 2 == 0 { "reno" } else { "cubic" },
                                          "app": {"kind": "bulk"}, "path": [0], "start_ns": i * 200 * MS}))
                        .collect::<Vec<_>>()});
    let lossy = json!({
        "duration_ns": 30 * S, "seed": 5, "sample_interval_ns": 0,
        "links": [link("b", constant(10e6), 40, 60, json!({"kind": "bernoulli", "p": 0.02}))],
        "flows": [{"name": "on_off", "cc": "cubic", "path": [0],
                   "app": {"kind": "onoff", "on_ns": {"kind": "exponential", "mean": 2e9},
                           "off_ns": {"kind": "exponential", "mean": 1e9}}},
                  {"name": "file", "cc": "reno", "path": [0], "app": {"kind": "file", "bytes": 5_000_000}}]});
    let two_paths = json!({
        "duration_ns": 40 * S, "seed": 9, "warmup_ns": 2 * S, "sample_interval_ns": 0,
        "links": [link("wifi", walk(2e6, 8e6), 10, 80, none.clone()), link("lte", walk(5e6, 20e6), 60, 300, none.clone())],
        "flows": [{"name": "stream", "cc": "lia", "subflows": [{"path": [0]}, {"path": [1]}],
                   "app": {"kind": "cbr", "rate_bps": 6e6}},
                  {"name": "web", "cc": "olia", "subflows": [{"path": [0]}, {"path": [1]}],
                   "app": {"kind": "web", "objects": [15_000, 80_000, 300_000],
                           "think_ns": {"kind": "exponential", "mean": 0.5e9}}},
                  {"name": "bulk", "cc": "reno", "path": [1], "app": {"kind": "bulk"}}]});
    vec![("dumbbell", dumbbell), ("lossy", lossy), ("two_paths", two_paths)]
}

fn with_exact(cfg: &Value, exact: bool) -> Value {
    let mut c = cfg.clone();
    c["exact_percentiles"] = json!(exact);
    c
}

/// Fields the sketch answers: the percentiles, and the fractions within a bound.
fn from_sketch(key: &str) -> Option<bool> {
    let quantile = key.ends_with("_p50_s") || key.ends_with("_p95_s") || key.ends_with("_p99_s");
    let fraction = key.starts_with("app_delay_within_") || key == "tsc_within_bound" || key == "tsc_rtt_within_2dnet";
    (quantile || fraction).then_some(quantile)
}

/// Compares two summaries: identical except the sketch's fields; returns the
/// percentiles compared and their largest relative error.
fn compare(path: &str, exact: &Value, sketch: &Value, seen: &mut (usize, f64)) {
    match (exact, sketch) {
        (Value::Object(a), Value::Object(b)) => {
            assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>(), "{path}");
            for (k, x) in a {
                if k == "wall_s" {
                    continue;
                }
                let y = &b[k];
                match from_sketch(k) {
                    Some(true) if x.is_number() => {
                        let (e, s) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                        assert!(
                            (s - e).abs() <= e * RELATIVE_ERROR * (1.0 + 1e-9),
                            "{path}/{k}: sketch {s} against exact {e}"
                        );
                        let err = if e > 0.0 { (s - e).abs() / e } else { 0.0 };
                        seen.0 += 1;
                        seen.1 = seen.1.max(err);
                    }
                    // Fractions: checked against their bounds on the statistics below.
                    Some(false) => assert!(y.is_number() == x.is_number(), "{path}/{k}"),
                    _ => compare(&format!("{path}/{k}"), x, y, seen),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            assert_eq!(a.len(), b.len(), "{path}");
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                compare(&format!("{path}/{i}"), x, y, seen);
            }
        }
        _ => assert_eq!(exact, sketch, "{path}"),
    }
}

#[test]
fn sketch_summaries_are_the_exact_ones_within_the_error() {
    let mut seen = (0, 0.0f64);
    for (name, cfg) in scenarios() {
        let exact = mpcc_sim::run_json(&with_exact(&cfg, true).to_string()).unwrap();
        let sketch = mpcc_sim::run_json(&cfg.to_string()).unwrap();
        let (e, s): (Value, Value) =
            (serde_json::from_str(&exact.summary_json).unwrap(), serde_json::from_str(&sketch.summary_json).unwrap());
        compare(name, &e, &s, &mut seen);
        // The time series are not the sketch's: identical. The CDF points within the error.
        for table in ["flow_series", "link_series"] {
            assert_eq!(exact.tables[table], sketch.tables[table], "{name}: {table}");
        }
        let (ce, cs) = (&exact.tables["delay_cdf"], &sketch.tables["delay_cdf"]);
        for col in ["flow", "metric", "q"] {
            assert_eq!(ce[col], cs[col], "{name}: delay_cdf.{col}");
        }
        assert!(!ce["delay_s"].is_empty());
        for (a, b) in ce["delay_s"].iter().zip(&cs["delay_s"]) {
            assert!((a - b).abs() <= a * RELATIVE_ERROR * (1.0 + 1e-9), "{name}: CDF point {b} against {a}");
        }
    }
    eprintln!("{} percentiles, largest relative error {:.5} (bound {RELATIVE_ERROR:.5})", seen.0, seen.1);
    assert!(seen.0 > 50);
    // The sketch does round: some percentile differs (else the comparison tests nothing).
    assert!(seen.1 > 0.0);
}

/// The flows' statistics after a run.
fn stats(cfg: &Value) -> Vec<(String, RttStats, RttStats)> {
    let cfg: Config = serde_json::from_value(cfg.clone()).unwrap();
    let mut sim = mpcc_sim::sim::Sim::new(&cfg).unwrap();
    sim.run();
    sim.flows.iter().map(|f| (f.name.clone(), f.rtt(), f.app_delay.clone())).collect()
}

#[test]
fn fractions_within_a_bound_are_the_exact_ones_at_a_nearby_bound() {
    let mut checked = 0;
    for (name, cfg) in scenarios() {
        for ((flow, rtt_e, app_e), (_, rtt_s, app_s)) in stats(&with_exact(&cfg, true)).into_iter().zip(stats(&cfg)) {
            for (what, e, s) in [("rtt", rtt_e, rtt_s), ("app_delay", app_e, app_s)] {
                if e.count() == 0 {
                    continue;
                }
                // The bounds of the summary and every decile of the distribution.
                let deciles = e.percentiles(&[10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 99.0]);
                for t in [0.1, 0.2, 0.3, 0.6, 1.0, 2.0].into_iter().chain(deciles) {
                    let f = s.fraction_at_most(t);
                    let lo = e.fraction_at_most(t / (1.0 + RELATIVE_ERROR));
                    let hi = e.fraction_at_most(t / (1.0 - RELATIVE_ERROR));
                    assert!(lo <= f && f <= hi, "{name} {flow} {what} within {t} s: {f} outside [{lo}, {hi}]");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 200);
}

#[test]
fn queueing_delay_percentiles_are_bounded_by_the_buffer() {
    // The dumbbell's 150-packet queue at 20 Mbit/s drains in 150 x 1500 B x 8 / 20e6
    // = 90 ms: no sojourn is longer; ten bulk flows keep it mostly full.
    let (_, cfg) = scenarios().into_iter().next().unwrap();
    for exact in [true, false] {
        let out = mpcc_sim::run_json(&with_exact(&cfg, exact).to_string()).unwrap();
        let s: Value = serde_json::from_str(&out.summary_json).unwrap();
        let g = |k: &str| s["links"]["b"][k].as_f64().unwrap();
        let (p50, p95, p99, mean) =
            (g("queue_delay_p50_s"), g("queue_delay_p95_s"), g("queue_delay_p99_s"), g("queue_delay_mean_s"));
        eprintln!("exact {exact}: queueing delay mean {mean:.4} p50 {p50:.4} p95 {p95:.4} p99 {p99:.4} s");
        assert!(p50 <= p95 && p95 <= p99 && p99 <= 0.090 * (1.0 + RELATIVE_ERROR), "{p50} {p95} {p99}");
        assert!(p50 > 0.02 && p95 > mean, "a standing queue: {p50}, mean {mean}");
    }
}
