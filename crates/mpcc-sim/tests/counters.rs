//! Counters that obey physics: every rate is measured over the window in which its
//! bytes were counted, so none exceeds the capacity the bytes crossed; and a run
//! stops at its memory limit or when interrupted. The reproducers are the
//! scenarios in which the summary used to report more than the link could carry.

mod common;
use common::{num, run, MS, S};
use serde_json::{json, Value};
use std::io::Write;

// Installed here so that the memory limit can be exercised (mpcc-sim::mem).
#[global_allocator]
static ALLOC: mpcc_sim::mem::CountingAlloc = mpcc_sim::mem::CountingAlloc;

fn link(bps: f64, delay_ms: u64) -> Value {
    json!({"name": "b", "capacity": {"kind": "constant", "bps": bps}, "delay_ns": delay_ms * MS,
           "queue": {"kind": "droptail", "packets": 100}})
}

fn scenario(duration: u64, warmup: u64, link: Value, flow: Value) -> Value {
    json!({"duration_ns": duration, "seed": 1, "warmup_ns": warmup, "sample_interval_ns": 0,
           "links": [link], "flows": [flow]})
}

fn reno(extra: Value) -> Value {
    let mut f = json!({"name": "a", "cc": "reno", "path": [0], "app": {"kind": "bulk"}});
    f.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    f
}

/// Wire bits per payload bit of a full segment (1448 + 52 bytes).
const WIRE: f64 = 1500.0 / 1448.0;

#[test]
fn a_stopped_flow_is_measured_until_its_last_arrival() {
    // Bytes still queued at `stop` (0.5 s) arrive later; dividing them by the
    // start-to-stop window gave 2.04 Mbit/s on this 1 Mbit/s link.
    let s = run(&scenario(5 * S, 0, link(1e6, 10), reno(json!({"stop_ns": 500 * MS}))));
    let (thr, good) = (num(&s, "/flows/a/throughput_bps"), num(&s, "/flows/a/goodput_bps"));
    assert!(thr <= 1e6 && good * WIRE <= 1e6, "throughput {thr}, goodput {good} on a 1 Mbit/s link");
    assert!(thr > 0.8e6, "the window is not stretched to the run's end either: {thr}");
    let sub = num(&s, "/flows/a/subflows/0/throughput_bps");
    assert!(sub <= 1e6, "subflow throughput {sub}");
}

#[test]
fn a_finished_file_is_measured_over_its_own_lifetime() {
    // 2 MB at 10 Mbit/s take ~1.7 s; averaging to the end of a 20 s run gave ~0.8 Mbit/s.
    let f = reno(json!({"app": {"kind": "file", "bytes": 2_000_000}}));
    let s = run(&scenario(20 * S, 0, link(10e6, 10), f));
    let (good, fct) = (num(&s, "/flows/a/goodput_bps"), num(&s, "/flows/a/fct_s"));
    assert!((good - 2e6 * 8.0 / fct).abs() / good < 0.01, "goodput {good} against 2 MB in {fct} s");
    assert!(good * WIRE <= 10e6 && good > 7e6, "goodput {good}");
}

#[test]
fn a_packet_across_the_warmup_boundary_counts_pro_rata() {
    // 100 kbit/s: a 1500-byte packet takes 120 ms, longer than the 100 ms window;
    // counting it whole gave utilization 1.2.
    let s = run(&scenario(S, 900 * MS, link(100e3, 0), reno(json!({}))));
    let u = num(&s, "/links/b/utilization");
    assert!(u <= 1.0 + 1e-9 && u > 0.99, "utilization {u}");
    // Goodput counts whole segments at arrival: within one packet of the capacity.
    let good = num(&s, "/flows/a/goodput_bps");
    assert!(good * 0.1 <= 100e3 * 0.1 + 1448.0 * 8.0, "goodput {good}");
}

#[test]
fn a_trace_counts_the_opportunity_at_the_window_end() {
    // One 1500-byte opportunity per ms (lines 1..10, period 10 ms); the last
    // packet served at exactly 200 ms used to be counted without its opportunity.
    let dir = std::env::temp_dir().join(format!("mpcc-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("seq.trace");
    let mut f = std::fs::File::create(&path).unwrap();
    for ms in 1..=10 {
        writeln!(f, "{ms}").unwrap();
    }
    let l = json!({"name": "b", "capacity": {"kind": "trace", "path": path.to_str().unwrap()}, "delay_ns": 5 * MS,
                   "queue": {"kind": "droptail", "packets": 100}});
    let s = run(&scenario(200 * MS, 0, l, reno(json!({}))));
    std::fs::remove_dir_all(&dir).unwrap();
    let u = num(&s, "/links/b/utilization");
    assert!(u <= 1.0 && u > 0.9, "utilization {u}");
}

#[test]
fn a_run_past_its_memory_limit_stops_and_keeps_its_summary() {
    // With exact percentiles every RTT sample is kept: 60 s at 100 Mbit/s hold
    // ~500 000 of them. A 1 MiB limit (over what the process already holds) stops
    // the run early. (With the default quantile sketch the heap does not grow with
    // the run: tests/memory.rs.)
    let mut cfg = scenario(60 * S, 0, link(100e6, 10), reno(json!({})));
    cfg["exact_percentiles"] = json!(true);
    let cfg = cfg.to_string();
    let limit = mpcc_sim::mem::in_use() as u64 + (1 << 20);
    let out = mpcc_sim::run_json_watched(&cfg, Some(limit), || false).expect("runs");
    let s: Value = serde_json::from_str(&out.summary_json).unwrap();
    let reason = s["sim"]["stopped_early"].as_str().expect("stopped_early is set");
    assert!(reason.contains("memory"), "{reason}");
    let simulated = num(&s, "/sim/duration_s");
    assert!(simulated > 0.0 && simulated < 60.0, "simulated {simulated} s");
    let thr = num(&s, "/flows/a/throughput_bps");
    assert!(thr > 50e6 && thr <= 100e6, "throughput over the simulated part: {thr}");
    // Without a limit the same run finishes and says nothing.
    let full = mpcc_sim::run_json_watched(&cfg, None, || false).unwrap();
    let s: Value = serde_json::from_str(&full.summary_json).unwrap();
    assert!(s["sim"].get("stopped_early").is_none());
    assert!((num(&s, "/sim/duration_s") - 60.0).abs() < 1e-9);
}

#[test]
fn an_interrupted_run_gives_up_at_the_next_check() {
    let cfg = scenario(600 * S, 0, link(100e6, 10), reno(json!({}))).to_string();
    let mut asked = 0;
    let r = mpcc_sim::run_json_watched(&cfg, None, || {
        asked += 1;
        asked == 3
    });
    assert!(matches!(r, Err(mpcc_sim::RunError::Interrupted)), "{:?}", r.err());
    assert_eq!(asked, 3, "asked every {} events until it said stop", mpcc_sim::sim::CHECK_EVERY);
}

/// Runs the native binary on `cfg`; returns (exit code, stdout, stderr).
fn native(cfg: &Value, extra: &[&str]) -> (i32, String, String) {
    let path = std::env::temp_dir().join(format!("mpcc-native-{}-{}.json", std::process::id(), extra.len()));
    std::fs::write(&path, cfg.to_string()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mpcc-sim")).arg(&path).args(extra).output().unwrap();
    std::fs::remove_file(&path).unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

#[test]
fn the_native_binary_refuses_what_would_loop_and_stops_at_its_memory_limit() {
    // initial_rto_ns = 0 with the default min_rto used to loop for ever.
    let cfg = scenario(S, 0, link(10e6, 10), reno(json!({"tcp": {"initial_rto_ns": 0}})));
    let (code, _, err) = native(&cfg, &[]);
    assert_eq!(code, 2);
    assert!(err.starts_with("mpcc-sim: error: flows.a.tcp.initial_rto_ns: ") && err.lines().count() == 1, "{err}");
    let mut cfg = scenario(60 * S, 0, link(100e6, 10), reno(json!({})));
    cfg["exact_percentiles"] = json!(true); // samples kept: the heap grows with the run
    let (code, out, err) = native(&cfg, &["--max-memory-bytes", "2000000"]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("memory passed the limit"), "{err}");
    let s: Value = serde_json::from_str(&out).unwrap();
    assert!(num(&s, "/sim/duration_s") < 60.0);
}

#[test]
fn fast_recoveries_count_the_loss_episodes() {
    // Two LIA subflows through a 40-packet DropTail queue: many losses, few episodes.
    let flow = json!({"name": "a", "cc": "lia", "app": {"kind": "bulk"}, "subflows": [{"path": [0]}, {"path": [0]}]});
    let mut cfg = scenario(10 * S, 0, link(10e6, 20), flow);
    cfg["links"][0]["queue"]["packets"] = json!(40);
    cfg["event_log"] = json!(true);
    let out = mpcc_sim::run_json(&cfg.to_string()).unwrap();
    let s: Value = serde_json::from_str(&out.summary_json).unwrap();
    let n = num(&s, "/flows/a/fast_recoveries");
    let subs: f64 = (0..2).map(|k| num(&s, &format!("/flows/a/subflows/{k}/fast_recoveries"))).sum();
    assert_eq!(n, subs, "the flow's count is its subflows' sum");
    assert!(n > 0.0 && n < num(&s, "/flows/a/losses"), "{n} episodes, {} segments lost", num(&s, "/flows/a/losses"));
    // The event log notes each entry into recovery (enter index 5 in EVENT_NAMES).
    let log = &out.tables["event_log"];
    let enters = log["kind"].iter().filter(|&&k| k == 5.0).count() as f64;
    assert_eq!(n, enters, "one recovery_enter event per fast recovery");
    // After a warm-up only the episodes inside the window count.
    cfg["warmup_ns"] = json!(5 * S);
    cfg["event_log"] = json!(false);
    let late = num(&run(&cfg), "/flows/a/fast_recoveries");
    assert!(late < n, "{late} after the warm-up, {n} in all");
}
