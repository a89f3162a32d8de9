//! Memory is bounded by the flows, not by the packets (issue 18): with the quantile
//! sketch (the default) a run ten times as long holds the same heap, within 10 %;
//! with `exact_percentiles`, which keeps every delay sample, it does not. The heap
//! is measured by the counting allocator (`mem.rs`), installed for this test
//! binary alone; the tests take a lock, so that no other test's allocations mix in.

use mpcc_sim::mem::{in_use, peak, reset_peak, CountingAlloc};
use serde_json::{json, Value};
use std::sync::Mutex;

mod common;
use common::{MS, S};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// One test at a time: the heap counter is the process's.
static ONE: Mutex<()> = Mutex::new(());

/// `n` Reno flows of `mbps` each through one bottleneck of n x `mbps` (the layout of
/// bench/ab.py's `reno_flows`), and a web flow and a two-path LIA stream beside
/// them, so that every kind of delay statistic is kept; no time series.
fn scenario(n: usize, mbps: f64, duration_s: u64, exact: bool) -> Value {
    let mut flows: Vec<Value> = (0..n)
        .map(|i| {
            json!({"name": format!("f{i}"), "cc": "reno", "app": {"kind": "bulk"}, "path": [0],
                        "start_ns": (i as u64 % 100) * MS})
        })
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

/// Peak heap of a run from configuration to summary (over what the process held
/// before), and its delivered packets.
fn peak_heap(cfg: &Value) -> (usize, u64) {
    let text = cfg.to_string();
    let before = in_use();
    reset_peak();
    let out = mpcc_sim::run_json(&text).unwrap_or_else(|e| panic!("run fails: {e}"));
    let summary: Value = serde_json::from_str(&out.summary_json).unwrap();
    (peak() - before, summary["sim"]["packets"].as_u64().unwrap())
}

#[test]
fn peak_heap_does_not_grow_with_the_duration() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
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

/// Heap held by a simulation of `cfg` at its end (before the summary), less its
/// quantile sketches (whose range widens as the delays spread).
fn heap_at_end(cfg: &Value) -> usize {
    let cfg: mpcc_sim::config::Config = serde_json::from_value(cfg.clone()).unwrap();
    let before = in_use();
    let mut sim = mpcc_sim::sim::Sim::new(&cfg).unwrap();
    sim.run();
    let held = in_use() - before;
    let sketches: usize = sim
        .flows
        .iter()
        .map(|f| f.app_delay.heap_bytes() + f.subs.iter().map(|s| s.rtt.heap_bytes()).sum::<usize>())
        .sum();
    drop(sim);
    held - sketches
}

#[test]
fn buffers_follow_the_current_windows_not_the_largest() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    // 100 Reno flows through 1 Gbit/s for 3 s (windows of tens of segments, more in
    // slow start), then 100 Mbit/s (about four segments each): the senders'
    // scoreboards, ACK pipes and hand-over times shrink back once the windows have
    // (every flow is trimmed every 100 / TRIM_FLOWS x 65 536 events).
    let flows: Vec<Value> = (0..100)
        .map(|i| json!({"name": format!("f{i}"), "cc": "reno", "app": {"kind": "bulk"}, "path": [0], "start_ns": i * MS}))
        .collect();
    let cfg = |duration_s: u64| {
        json!({"duration_ns": duration_s * S, "seed": 1, "sample_interval_ns": 0,
               "links": [{"name": "b", "delay_ns": 20 * MS, "queue": {"kind": "droptail", "packets": 100},
                          "capacity": {"kind": "schedule", "steps": [[0, 1e9], [3 * S, 100e6]]}}],
               "flows": flows})
    };
    let (fast, slow) = (heap_at_end(&cfg(3)), heap_at_end(&cfg(60)));
    eprintln!("heap at 3 s (1 Gbit/s) {fast} B, at 60 s (100 Mbit/s since 3 s) {slow} B");
    assert!((slow as f64) < 0.6 * fast as f64, "{slow} B at 60 s against {fast} B at 3 s");
}
