//! The simulator against closed-form models. Each test states its tolerance;
//! measured figures are recorded in docs/validation.md.

use serde_json::{json, Value};

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

fn run(cfg: Value) -> Value {
    let out = mpcc_sim::run_json(&cfg.to_string()).expect("run succeeds");
    serde_json::from_str(&out.summary_json).unwrap()
}

/// One bulk flow over one link.
fn single(cc: &str, params: Value, link: Value, duration: u64, warmup: u64) -> Value {
    run(json!({
        "duration_ns": duration, "seed": 1, "warmup_ns": warmup, "sample_interval_ns": 0,
        "links": [link],
        "flows": [{"name": "a", "cc": cc, "cc_params": params, "path": [0], "app": {"kind": "bulk"}}]
    }))
}

/// A link fast enough that the window, not the rate, limits the flow.
fn lossy_link(loss: Value) -> Value {
    json!({"name": "l", "capacity": {"kind": "constant", "bps": 1e9}, "delay_ns": 50 * MS,
           "queue": {"kind": "droptail", "packets": 1_000_000}, "loss": loss})
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b
}

#[test]
fn reno_matches_mathis_and_padhye_under_random_loss() {
    let mss_bits = 1448.0 * 8.0;
    for p in [0.001f64, 0.002, 0.005, 0.01, 0.02] {
        let s = single("reno", json!({}), lossy_link(json!({"kind": "bernoulli", "p": p})), 400 * S, 20 * S);
        let f = &s["flows"]["a"];
        let rtt = f["rtt_mean_s"].as_f64().unwrap();
        let got = f["goodput_bps"].as_f64().unwrap();
        // Mathis et al. 1997: B = MSS / RTT * sqrt(3 / (2 p)).
        let mathis = mss_bits / rtt * (1.5 / p).sqrt();
        // Padhye et al. 1998 (full model, b = 1 segment per ACK, T0 = RTO >= 200 ms).
        let t0 = (rtt + 0.2f64).max(0.2);
        let padhye = mss_bits
            / (rtt * (2.0 * p / 3.0).sqrt() + t0 * (3.0 * (3.0 * p / 8.0).sqrt()).min(1.0) * p * (1.0 + 32.0 * p * p));
        eprintln!("p={p}: goodput {got:.0}, Mathis {mathis:.0} ({:.3}), Padhye {padhye:.0} ({:.3})", got / mathis, got / padhye);
        assert!(rel(got, mathis) < 0.10, "p={p}: {got} vs Mathis {mathis}");
        assert!(rel(got, padhye) < 0.10, "p={p}: {got} vs Padhye {padhye}");
    }
}

#[test]
fn reno_matches_thesis_eq_3_9_on_droptail() {
    // x = (3/4) c / (1 - r + r^2), r = W_BDP / W_loss (Park, thesis Eq. 3.9).
    let c = 10e6;
    let delay = 50 * MS;
    let pkt_bits = 1500.0 * 8.0;
    let w_bdp = c * 2.0 * (delay as f64 * 1e-9) / pkt_bits;
    for r in [0.3, 0.5, 0.8] {
        // W_loss = W_BDP + buffer + the packet in transmission.
        let buffer = (w_bdp / r - w_bdp - 1.0).round().max(1.0);
        let w_loss = w_bdp + buffer + 1.0;
        let r_eff = w_bdp / w_loss;
        let link = json!({"name": "l", "capacity": {"kind": "constant", "bps": c}, "delay_ns": delay,
                          "queue": {"kind": "droptail", "packets": buffer as u64}});
        let s = single("reno", json!({}), link, 300 * S, 30 * S);
        let util = s["links"]["l"]["utilization"].as_f64().unwrap();
        let model = 0.75 / (1.0 - r_eff + r_eff * r_eff);
        eprintln!("r={r:.2} (buffer {buffer}): utilization {util:.4}, Eq. 3.9 {model:.4}");
        assert!(rel(util, model) < 0.10, "r={r}: {util} vs {model}");
    }
}

#[test]
fn n_reno_flows_share_fairly_and_fill_the_link() {
    let c: f64 = 20e6;
    let delay = 20 * MS;
    let bdp = (c * 2.0f64 * 0.02 / (1500.0 * 8.0)).round() as u64;
    let n = 5;
    let flows: Vec<Value> = (0..n)
        .map(|i| json!({"name": format!("f{i}"), "cc": "reno", "path": [0], "app": {"kind": "bulk"}, "start_ns": i * 100 * MS}))
        .collect();
    let s = run(json!({
        "duration_ns": 200 * S, "seed": 3, "warmup_ns": 20 * S, "sample_interval_ns": 0,
        "links": [{"name": "b", "capacity": {"kind": "constant", "bps": c}, "delay_ns": delay,
                   "queue": {"kind": "droptail", "packets": bdp}}],
        "flows": flows
    }));
    let rates: Vec<f64> = (0..n).map(|i| s["flows"][format!("f{i}")]["goodput_bps"].as_f64().unwrap()).collect();
    let jain = mpcc_sim::metrics::jain(&rates);
    let util = s["links"]["b"]["utilization"].as_f64().unwrap();
    eprintln!("rates {rates:?}, Jain {jain:.4}, utilization {util:.4}");
    assert!(jain >= 0.95, "Jain {jain}");
    assert!(util >= 0.95, "utilization {util}");
}

#[test]
fn same_seed_same_summary_other_seed_other_draws() {
    let cfg = |seed: u64| {
        json!({
            "duration_ns": 20 * S, "seed": seed,
            "links": [{"name": "l", "capacity": {"kind": "constant", "bps": 10e6}, "delay_ns": 10 * MS,
                       "queue": {"kind": "droptail", "packets": 50}, "loss": {"kind": "bernoulli", "p": 0.01}}],
            "flows": [{"name": "a", "cc": "reno", "path": [0], "app": {"kind": "bulk"}},
                      {"name": "b", "cc": "reno", "path": [0], "app": {"kind": "bulk"}, "start_ns": 50 * MS}]
        })
    };
    let strip = |mut v: Value| {
        v["sim"]["wall_s"] = Value::Null;
        v.to_string()
    };
    let a = strip(run(cfg(7)));
    let b = strip(run(cfg(7)));
    let c = strip(run(cfg(8)));
    assert_eq!(a, b);
    assert_ne!(a, c);
}
