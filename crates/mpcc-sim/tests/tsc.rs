//! TSC (thesis chapter 2, section 2.5; docs/algorithms/tsc.md): WiFi about
//! 3 Mbit/s (a random walk in [2, 5]) at cost 1 per Mbit, LTE 10-20 Mbit/s (a
//! random walk) with 40 ms min RTT at cost 10, a VBR stream of 3 Mbit/s mean
//! (log-normal frames at 25 fps, cv 0.5). TSC against uncoupled (reno, minrtt)
//! and coupled (lia, minrtt) MPTCP. The initial ssthresh is ns-3's 65535 bytes
//! of the thesis's time: with Linux's unlimited one, a subflow that sees no loss
//! never leaves slow start, and TSC's step (2.17) never caps it (the WiFi window
//! then grows until the buffer overflows). Each test prints its measured
//! figures (`-- --nocapture`).

use serde_json::{json, Value};

mod common;
use common::{num, run, MS, S};

fn walk(name: &str, lo: f64, hi: f64, init: f64, one_way_ms: u64, packets: u64) -> Value {
    json!({"name": name, "capacity": {"kind": "random_walk", "initial_bps": init, "min_bps": lo, "max_bps": hi,
                                      "step_ns": 100 * MS, "sigma": 0.1},
           "delay_ns": one_way_ms * MS, "queue": {"kind": "droptail", "packets": packets}})
}

/// `cc` and `scheduler` of the connection, TSC parameters if any, the stream rate.
fn scenario(cc: &str, scheduler: &str, params: Value, rate_bps: f64, seed: u64) -> Value {
    json!({"duration_ns": 60 * S, "seed": seed, "warmup_ns": 5 * S, "sample_interval_ns": 0,
           "links": [walk("wifi", 2e6, 5e6, 3e6, 10, 100), walk("lte", 10e6, 20e6, 15e6, 20, 300)],
           "flows": [{"name": "v", "cc": cc, "scheduler": scheduler, "scheduler_params": params,
                      "subflows": [{"path": [0], "cost_per_mbit": 1.0}, {"path": [1], "cost_per_mbit": 10.0}],
                      "tcp": {"init_ssthresh_bytes": 65535},
                      "app": {"kind": "vbr", "fps": 25.0, "rate_bps": rate_bps, "cv": 0.5}}]})
}

struct Figures {
    within: f64,
    p50: f64,
    p95: f64,
    cost: f64,
    x_wifi: f64,
    x_lte: f64,
    goodput: f64,
    blocked: f64,
}

fn figures(s: &Value, bound_ms: u32) -> Figures {
    Figures {
        within: num(s, &format!("/flows/v/app_delay_within_{bound_ms}ms")),
        p50: num(s, "/flows/v/app_delay_p50_s"),
        p95: num(s, "/flows/v/app_delay_p95_s"),
        cost: num(s, "/flows/v/cost"),
        x_wifi: num(s, "/flows/v/subflows/0/throughput_bps"),
        x_lte: num(s, "/flows/v/subflows/1/throughput_bps"),
        goodput: num(s, "/flows/v/goodput_bps"),
        blocked: s.pointer("/flows/v/app_blocked_bytes").and_then(Value::as_f64).unwrap_or(0.0),
    }
}

fn show(label: &str, f: &Figures, bound_ms: u32) {
    eprintln!(
        "{label:26} within {bound_ms} ms {:.3}  p50 {:.3} s p95 {:.3} s  cost {:.0}  WiFi {:.2} LTE {:.2} goodput {:.2} Mbit/s blocked {}",
        f.within, f.p50, f.p95, f.cost, f.x_wifi * 1e-6, f.x_lte * 1e-6, f.goodput * 1e-6, f.blocked
    );
}

/// TSC with the two departures from the thesis these tests were written for: a
/// 100 ms slot and the backlog term in T (docs/algorithms/tsc.md). The thesis's
/// own form (the defaults) is checked by `default_slot_follows_the_thesis`.
fn tsc(d_net: f64) -> Value {
    json!({"d_send": 0.1, "d_net": d_net, "slot": 0.1, "drain_backlog": 1.0})
}

/// The delay/cost comparison over short (100 / 300 packet) buffers. TSC meets
/// d_send + d_net for nearly every segment at about a quarter of conventional
/// MPTCP's cost. Conventional MPTCP meets it as well here: its minrtt scheduler
/// leaves WiFi idle once its RTT estimate is inflated (all traffic on the
/// uncongested LTE path, fast and expensive), and round-robin splits evenly
/// within both capacities; the bufferbloated test below is where it does not.
#[test]
fn tsc_meets_its_bound_at_a_fraction_of_the_cost() {
    let (mut c_tsc, mut c_unc, mut c_cpl) = (0.0, 0.0, 0.0);
    for seed in [1, 2, 3] {
        let t = run(&scenario("reno", "tsc", tsc(0.1), 3e6, seed));
        let unc = run(&scenario("reno", "minrtt", json!({}), 3e6, seed));
        let cpl = run(&scenario("lia", "minrtt", json!({}), 3e6, seed));
        let rr = run(&scenario("reno", "roundrobin", json!({}), 3e6, seed));
        let (ft, fu, fc, fr) = (figures(&t, 200), figures(&unc, 200), figures(&cpl, 200), figures(&rr, 200));
        show(&format!("seed {seed} tsc d_net 0.1"), &ft, 200);
        show(&format!("seed {seed} uncoupled reno minrtt"), &fu, 200);
        show(&format!("seed {seed} coupled lia minrtt"), &fc, 200);
        show(&format!("seed {seed} reno roundrobin"), &fr, 200);
        assert_eq!(num(&t, "/flows/v/tsc_delay_bound_s"), 0.2);
        assert_eq!(num(&t, "/flows/v/tsc_within_bound"), ft.within);
        // Cost: TSC moves most of the stream to the cheap WiFi path.
        assert!(ft.x_wifi > 2.0 * ft.x_lte, "TSC prefers WiFi: {:.2} vs {:.2}", ft.x_wifi, ft.x_lte);
        assert!(ft.cost < 0.4 * fu.cost && ft.cost < 0.4 * fc.cost, "cost {} vs {} / {}", ft.cost, fu.cost, fc.cost);
        assert!(ft.cost < 0.6 * fr.cost, "cost {} vs round-robin {}", ft.cost, fr.cost);
        // The stream is carried in full.
        assert!(ft.goodput > 0.95 * fu.goodput && ft.blocked == 0.0);
        // Delay: within d_send + d_net, as conventional MPTCP is on these short buffers.
        assert!(ft.within > 0.99, "TSC within 200 ms: {}", ft.within);
        assert!(
            fu.within > 0.99 && fc.within > 0.99,
            "conventional MPTCP within 200 ms: {} / {}",
            fu.within,
            fc.within
        );
        // 3 Mbit/s fits; a few slots are short of window (x_cw) while the
        // windows grow in congestion avoidance from the 65535-byte ssthresh
        // (3-4 of 551 measured).
        let (slots, bad) = (num(&t, "/flows/v/tsc_slots"), num(&t, "/flows/v/tsc_infeasible_slots"));
        eprintln!("seed {seed}: {bad} of {slots} slots infeasible");
        assert!(slots > 500.0, "55 s of 100 ms slots");
        assert!(bad < 0.02 * slots, "{bad} of {slots} slots infeasible");
        let sub_cost = num(&t, "/flows/v/subflows/0/cost") + num(&t, "/flows/v/subflows/1/cost");
        assert!((sub_cost - ft.cost).abs() < 1e-6 * ft.cost, "per-subflow costs add up");
        c_tsc += ft.cost;
        c_unc += fu.cost;
        c_cpl += fc.cost;
    }
    eprintln!("total cost over 3 seeds: tsc {c_tsc:.0}, uncoupled {c_unc:.0}, coupled {c_cpl:.0}");
}

/// The park reproduction's bufferbloated setting (scenarios/park/ch2_conventional.toml):
/// WiFi a walk in [1, 5] Mbit/s, LTE in [10, 20], 1000-packet buffers, steps of 1 s,
/// a burstier 4 Mbit/s stream (30 fps, cv 1) and round-robin conventional MPTCP,
/// which then over-injects WiFi: a minority of the segments meets 200 ms on one
/// seed, p95 above a second. TSC keeps 95 % within d_send + d_net at a lower cost.
#[test]
fn tsc_beats_round_robin_over_bufferbloated_wifi() {
    let walk1 = |name: &str, lo: f64, hi: f64, init: f64, one_way_ms: u64| {
        json!({"name": name, "capacity": {"kind": "random_walk", "initial_bps": init, "min_bps": lo, "max_bps": hi,
                                          "step_ns": S, "sigma": 0.2},
               "delay_ns": one_way_ms * MS, "queue": {"kind": "droptail", "packets": 1000}})
    };
    let cfg = |cc: &str, scheduler: &str, params: Value, seed: u64| {
        let mut c = scenario(cc, scheduler, params, 4e6, seed);
        c["links"] = json!([walk1("wifi", 1e6, 5e6, 3e6, 10), walk1("lte", 10e6, 20e6, 15e6, 20)]);
        c["flows"][0]["app"] = json!({"kind": "vbr", "fps": 30.0, "rate_bps": 4e6, "cv": 1.0});
        c["duration_ns"] = json!(120 * S);
        c["warmup_ns"] = json!(10 * S);
        c
    };
    for seed in [1, 2] {
        let t = run(&cfg("reno", "tsc", tsc(0.1), seed));
        let ft = figures(&t, 200);
        let fu = figures(&run(&cfg("reno", "roundrobin", json!({}), seed)), 200);
        let fc = figures(&run(&cfg("lia", "roundrobin", json!({}), seed)), 200);
        show(&format!("seed {seed} tsc d_net 0.1"), &ft, 200);
        show(&format!("seed {seed} uncoupled reno rr"), &fu, 200);
        show(&format!("seed {seed} coupled lia rr"), &fc, 200);
        for (name, f) in [("uncoupled", &fu), ("coupled", &fc)] {
            assert!(f.within < 0.8 && f.p95 > 1.0, "seed {seed}: {name} within 200 ms {} p95 {}", f.within, f.p95);
            assert!(ft.p95 < 0.2 * f.p95, "seed {seed}: p95 TSC {} vs {name} {}", ft.p95, f.p95);
            assert!(ft.cost < f.cost, "seed {seed}: cost TSC {} vs {name} {}", ft.cost, f.cost);
        }
        assert!(ft.within >= 0.95, "seed {seed}: TSC within 200 ms {}", ft.within);
        // Fig. 2.3's statistic: most WiFi RTTs stay within 2 d_net, the RTT the cap aims at.
        let share = num(&t, "/flows/v/subflows/0/tsc_rtt_within_2dnet");
        eprintln!("seed {seed}: {share:.3} of the WiFi RTT samples within 200 ms");
        assert!(share > 0.5 && share > ft.within, "seed {seed}: {share}");
        assert!(run(&cfg("reno", "roundrobin", json!({}), seed))
            .pointer("/flows/v/subflows/0/tsc_rtt_within_2dnet")
            .is_none());
    }
}

/// A looser network-delay threshold lets more of the stream onto WiFi: lower
/// cost on every seed (2-4 % for d_net 0.5 s against 0.1 s here, see the docs),
/// and the looser bound d_send + d_net is then met for nearly every segment.
#[test]
fn looser_network_delay_threshold_lowers_cost() {
    let (mut tight, mut loose) = (0.0, 0.0);
    for seed in [1, 2, 3] {
        let a = figures(&run(&scenario("reno", "tsc", tsc(0.1), 3e6, seed)), 200);
        let b = figures(&run(&scenario("reno", "tsc", tsc(0.5), 3e6, seed)), 600);
        show(&format!("seed {seed} tsc d_net 0.1"), &a, 200);
        show(&format!("seed {seed} tsc d_net 0.5"), &b, 600);
        assert!(b.cost < 0.99 * a.cost, "seed {seed}: d_net 0.5 costs {} vs {}", b.cost, a.cost);
        assert!(b.within > 0.95, "seed {seed}: within 600 ms {}", b.within);
        tight += a.cost;
        loose += b.cost;
    }
    eprintln!("total cost: d_net 0.1 {tight:.0}, d_net 0.5 {loose:.0}");
}

/// A stream above both capacities (20 Mbit/s over WiFi 2-5 and LTE 10-20) is
/// reported as infeasible slots, not silently carried late.
#[test]
fn stream_above_all_capacities_reports_infeasible_slots() {
    let s = run(&scenario("reno", "tsc", tsc(0.2), 30e6, 1));
    let (slots, bad) = (num(&s, "/flows/v/tsc_slots"), num(&s, "/flows/v/tsc_infeasible_slots"));
    eprintln!(
        "30 Mbit/s stream: {bad} of {slots} slots infeasible, goodput {:.2} Mbit/s",
        num(&s, "/flows/v/goodput_bps") * 1e-6
    );
    assert!(bad > 0.5 * slots, "{bad} of {slots}");
}

/// The thesis (sec. 2.4.1) takes "a short interval for Delta t (<< RTT)": by
/// default the slot is a tenth of the smallest minimum RTT: WiFi's, 20 ms of
/// propagation plus a 1500-byte packet's serialization at 2-5 Mbit/s (2.4-6 ms),
/// so slots of 2.0-2.6 ms, about 55 s / 2.6 ms slots or more after the warm-up.
#[test]
fn default_slot_follows_the_thesis() {
    let s = run(&scenario("reno", "tsc", json!({"d_net": 0.1}), 3e6, 1));
    let (slot, slots) = (num(&s, "/flows/v/tsc_mean_slot_s"), num(&s, "/flows/v/tsc_slots"));
    eprintln!("default slot: mean {:.2} ms, {slots} slots counted", slot * 1e3);
    assert!((0.1 * 0.020..=0.1 * 0.026).contains(&slot), "mean slot {slot} s against a 20-26 ms min RTT");
    assert!(slots > 55.0 / 0.0026, "{slots} slots");
}

#[test]
fn bad_parameters_name_the_field() {
    let err = |cfg: Value| mpcc_sim::run_json(&cfg.to_string()).err().expect("rejected");
    let e = err(scenario("reno", "tsc", json!({"d_net": 0.0}), 3e6, 1));
    assert_eq!(e, "flows.v.scheduler_params.d_net: 0; allowed: 0.001 to 100");
    let e = err(scenario("reno", "tsc", json!({"d_send": -1.0}), 3e6, 1));
    assert!(e.starts_with("flows.v.scheduler_params.d_send: -1"), "{e}");
    let e = err(scenario("reno", "tsc", json!({"slot": -0.1}), 3e6, 1));
    assert!(e.starts_with("flows.v.scheduler_params.slot: -0.1"), "{e}");
    let e = err(scenario("reno", "tsc", json!({"x_min": -5.0}), 3e6, 1));
    assert!(e.starts_with("flows.v.scheduler_params.x_min: -5"), "{e}");
    let e = err(scenario("reno", "tsc", json!({"lambda": 1.0}), 3e6, 1));
    assert!(e.starts_with("flows.v.scheduler_params.lambda: unknown parameter of scheduler 'tsc'; allowed: d_send, d_net, slot, slot_fraction, x_min, drain_backlog"), "{e}");
    let mut cfg = scenario("reno", "tsc", json!({}), 3e6, 1);
    cfg["flows"][0]["subflows"][1]["cost_per_mbit"] = json!(-10.0);
    let e = err(cfg);
    assert_eq!(e, "flows.v.subflows.1.cost_per_mbit: -10; allowed: a finite number at least 0");
}

/// TSC's allocation reaches the host as the subflow's pacing rate (docs/schedulers.md,
/// "A scheduler's pacing rate"): on two uncongested 100 Mbit/s paths a 3 Mbit/s stream of
/// 25 frames per second goes on the cheap subflow at x_s = f + 1 / d_send, about 270
/// segments per second, so its segments leave at least a few milliseconds apart, where
/// minrtt sends each frame's 10 segments back to back.
#[test]
fn the_host_paces_tscs_subflows_at_their_allocation() {
    let link = |name: &str| {
        json!({"name": name, "capacity": {"kind": "constant", "bps": 100e6}, "delay_ns": 10 * MS,
               "queue": {"kind": "droptail", "packets": 1000}})
    };
    let gaps = |scheduler: &str| -> Vec<f64> {
        let params = if scheduler == "tsc" { json!({"slot": 0.1}) } else { json!({}) };
        let cfg = json!({"duration_ns": 10 * S, "seed": 1, "warmup_ns": 0, "sample_interval_ns": 0, "event_log": true,
            "links": [link("cheap"), link("dear")],
            "flows": [{"name": "v", "cc": "reno", "scheduler": scheduler, "scheduler_params": params,
                       "subflows": [{"path": [0], "cost_per_mbit": 1.0}, {"path": [1], "cost_per_mbit": 10.0}],
                       "tcp": {"init_ssthresh_bytes": 65535},
                       "app": {"kind": "vbr", "fps": 25.0, "rate_bps": 3e6, "cv": 0.0}}]});
        let out = mpcc_sim::run_json(&cfg.to_string()).unwrap();
        let log = &out.tables["event_log"];
        // Sends (kind 0) on the cheap subflow after the first second.
        let t: Vec<f64> = (0..log["t_s"].len())
            .filter(|&i| log["kind"][i] == 0.0 && log["subflow"][i] == 0.0 && log["t_s"][i] > 1.0)
            .map(|i| log["t_s"][i])
            .collect();
        t.windows(2).map(|w| w[1] - w[0]).collect()
    };
    let tsc = gaps("tsc");
    let min = tsc.iter().copied().fold(f64::INFINITY, f64::min);
    let mean = tsc.iter().sum::<f64>() / tsc.len() as f64;
    eprintln!(
        "tsc: {} sends on the cheap subflow, gaps min {:.2} ms mean {:.2} ms",
        tsc.len() + 1,
        min * 1e3,
        mean * 1e3
    );
    assert!(tsc.len() > 1000, "the cheap subflow carries the stream");
    assert!(min > 1e-3, "paced: no two segments closer than 1 ms ({} ms)", min * 1e3);
    let minrtt = gaps("minrtt");
    let back_to_back = minrtt.iter().filter(|&&g| g < 1e-6).count();
    eprintln!("minrtt: {} of {} gaps under 1 us", back_to_back, minrtt.len());
    assert!(back_to_back > minrtt.len() / 2, "unpaced: each frame's segments leave together");
}
