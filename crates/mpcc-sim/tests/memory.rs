//! Memory is bounded by the flows, not by the packets (issue 18): with the quantile
//! sketch (the default) a run ten times as long holds the same heap, within 10 %;
//! with `exact_percentiles`, which keeps every delay sample, it does not. The heap
//! is measured by the counting allocator (`mem.rs`), installed for this test
//! binary alone; one test function, so that no other test's allocations mix in.

use mpcc_sim::mem::{peak, reset_peak, CountingAlloc};
use serde_json::{json, Value};

mod common;
use common::{MS, S};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// `n` Reno flows of `mbps` each through one bottleneck of n x `mbps` (the layout of
/// bench/ab.py's `reno_flows`), and a web flow and a two-path LIA stream beside
/// them, so that every kind of delay statistic is kept; no time series.
fn scenario(n: usize, mbps: f64, duration_s: u64, exact: bool) -> Value {
    let mut flows: Vec<Value> = (0..n)
        .map(|i| json!({"name": format!("f{i}"), "cc": "reno", "app": {"kind": "bulk"}, "path": [0],
                        "start_ns": (i as u64 % 100) * MS}))
        .collect();
    flows.push(json!({"name": "web", "cc": "cubic", "path": [1],
                      "app": {"kind": "web", "objects": [20_000, 60_000], "think_ns": {"kind": "fixed", "value": 0.5e9}}}));
    flows.push(json!({"name": "mp", "cc": "lia", "subflows": [{"path": [1]}, {"path": [2]}],
                      "app": {"kind": "cbr", "rate_bps": 3e6}}));
    let link = |name: &str, bps: f64, delay_ms: u64, packets: u64| {
        json!({"name": name, "capacity": {"kind": "constant", "bps": bps}, "delay_ns": delay_ms * MS,
               "queue": {"kind": "droptail", "packets": packets}})
    };
    json!({"duration_ns": duration_s * S, "seed": 1, "warmup_ns": S, "sample_interval_ns": 0,
           "exact_percentiles": exact,
           "links": [link("bottleneck", n as f64 * mbps * 1e6, 20, 100), link("a", 10e6, 10, 50), link("b", 4e6, 30, 50)],
           "flows": flows})
}

/// Peak heap of a run from configuration to summary, and its delivered packets.
fn peak_heap(cfg: &Value) -> (usize, u64) {
    let text = cfg.to_string();
    reset_peak();
    let out = mpcc_sim::run_json(&text).unwrap_or_else(|e| panic!("run fails: {e}"));
    let summary: Value = serde_json::from_str(&out.summary_json).unwrap();
    (peak(), summary["sim"]["packets"].as_u64().unwrap())
}

#[test]
fn peak_heap_does_not_grow_with_the_duration() {
    let (short, p_short) = peak_heap(&scenario(20, 2.0, 60, false));
    let (long, p_long) = peak_heap(&scenario(20, 2.0, 600, false));
    eprintln!("sketch: 60 s {short} B ({p_short} packets), 600 s {long} B ({p_long} packets)");
    assert!(p_long > 9 * p_short, "the long run delivers ten times the packets");
    assert!((long as f64) <= 1.1 * short as f64, "600 s: {long} B against {short} B for 60 s");
    // The control: keeping every sample, the heap grows with the packets (4 bytes
    // each for the RTT and the application delay), so the measure above can fail.
    let (short_exact, _) = peak_heap(&scenario(20, 2.0, 60, true));
    let (long_exact, _) = peak_heap(&scenario(20, 2.0, 600, true));
    eprintln!("exact: 60 s {short_exact} B, 600 s {long_exact} B");
    assert!(long_exact as f64 > 1.5 * short_exact as f64 && long_exact - short_exact > 4 * (p_long - p_short) as usize);
}
