//! R-TSC (thesis chapter 3, Algorithm 1; docs/algorithms/rtsc.md): the testbed
//! setting of section 3.6.3 simulated. LTE-like path 40 Mbit/s with T_p = 30 ms
//! and a bufferbloated buffer (W_loss about 7 MB), WiFi-like path 12 Mbit/s with
//! T_p = 15 ms (W_loss about 720 KB), a constant-rate stream at 35.85 Mbit/s,
//! an ordinary LIA sender with round-robin or lowest-RTT-first scheduling, and
//! a conventional receiver or R-TSC. Each test prints its measured figures.

use serde_json::{json, Value};

mod common;
use common::{num, run, MS, S};

/// A link whose buffer makes W_loss = BDP + buffer about `w_loss_bytes`.
fn link(name: &str, bps: f64, one_way_ms: u64, w_loss_bytes: f64) -> Value {
    let bdp = bps / 8.0 * (2 * one_way_ms) as f64 * 1e-3;
    let packets = ((w_loss_bytes - bdp) / 1500.0).round() as u64;
    json!({"name": name, "capacity": {"kind": "constant", "bps": bps}, "delay_ns": one_way_ms * MS,
           "queue": {"kind": "droptail", "packets": packets}})
}

/// R-TSC's C_a: the thesis measured c_a^2 = 15.6 for the raw packet
/// inter-arrival times at the receiver (Table 3.1), so C_a = 4; with the
/// default C_a = 1 the split leaves too little headroom (docs/algorithms/rtsc.md).
const CA: f64 = 4.0;

fn scenario(scheduler: &str, receiver: &str, c1_bps: f64, ca: f64) -> Value {
    let params = if receiver == "rtsc" { json!({"ca": ca}) } else { json!({}) };
    json!({"duration_ns": 30 * S, "seed": 3, "sample_interval_ns": 0,
           "links": [link("lte", 40e6, 15, 7e6), link("wifi", c1_bps, 7, 720e3)],
           "flows": [{"name": "s", "cc": "lia", "scheduler": scheduler, "receiver": receiver, "receiver_params": params,
                      "subflows": [{"path": [0]}, {"path": [1]}],
                      "app": {"kind": "cbr", "rate_bps": 35.85e6}}]})
}

struct Figures {
    p50: f64,
    p95: f64,
    p99: f64,
    mean: f64,
    goodput: f64,
    x0: f64,
    x1: f64,
    rtt0: f64,
    rtt1: f64,
}

fn figures(s: &Value) -> Figures {
    Figures {
        p50: num(s, "/flows/s/app_delay_p50_s"),
        p95: num(s, "/flows/s/app_delay_p95_s"),
        p99: num(s, "/flows/s/app_delay_p99_s"),
        mean: num(s, "/flows/s/app_delay_mean_s"),
        goodput: num(s, "/flows/s/goodput_bps"),
        x0: num(s, "/flows/s/subflows/0/throughput_bps"),
        x1: num(s, "/flows/s/subflows/1/throughput_bps"),
        rtt0: num(s, "/flows/s/subflows/0/rtt_mean_s"),
        rtt1: num(s, "/flows/s/subflows/1/rtt_mean_s"),
    }
}

fn show(label: &str, f: &Figures) {
    eprintln!(
        "{label:24} app delay mean {:.3} s p50 {:.3} p95 {:.3} p99 {:.3}  goodput {:.2} Mbit/s ({:.2} + {:.2}), RTT {:.3} / {:.3} s",
        f.mean, f.p50, f.p95, f.p99, f.goodput * 1e-6, f.x0 * 1e-6, f.x1 * 1e-6, f.rtt0, f.rtt1
    );
}

/// R-TSC's p95, p99 and mean application delay are below the given fractions of
/// the conventional receiver's, and the stream keeps up.
fn assert_lower(cr: &Figures, t: &Figures, [p95, p99, mean]: [f64; 3]) {
    assert!(t.p95 < p95 * cr.p95, "p95 {:.3} vs {:.3}", t.p95, cr.p95);
    assert!(t.p99 < p99 * cr.p99, "p99 {:.3} vs {:.3}", t.p99, cr.p99);
    assert!(t.mean < mean * cr.mean, "mean {:.3} vs {:.3}", t.mean, cr.mean);
    assert!(t.goodput > 0.99 * 35.85e6, "the stream keeps up: {}", t.goodput);
}

fn compare(scheduler: &str, c1: f64, ca: f64) -> (Figures, Figures) {
    let cr = figures(&run(&scenario(scheduler, "none", c1, ca)));
    let r = run(&scenario(scheduler, "rtsc", c1, ca));
    let t = figures(&r);
    eprintln!("--- LIA ({scheduler}), c1 = {} Mbit/s, C_a = {ca}", c1 * 1e-6);
    show("conventional receiver", &cr);
    show("R-TSC", &t);
    let g = |k: &str| r.pointer(&format!("/flows/s/receiver_{k}")).and_then(Value::as_f64).unwrap_or(f64::NAN);
    eprintln!(
        "R-TSC: {} intentional losses; f^ {:.0} segments/s; c^ {:.0} / {:.0} packets/s; T_p {:.1} / {:.1} ms; W_bar {:.1} / {:.1} packets; x* {:.0} / {:.0} packets/s",
        g("dupacks"), g("f_hat_pps"), g("c_hat_pps_0"), g("c_hat_pps_1"),
        g("t_p_s_0") * 1e3, g("t_p_s_1") * 1e3, g("w_bar_0"), g("w_bar_1"), g("x_star_pps_0"), g("x_star_pps_1")
    );
    (cr, t)
}

/// Round-robin: the conventional receiver lets both windows inflate into the
/// bloated buffers (WiFi RTT 0.18 s on average) and the WiFi subflow's data holds
/// up the LTE subflow's; R-TSC caps them near the thresholds.
#[test]
fn rtsc_roundrobin() {
    for c1 in [15e6, 12e6, 8e6] {
        let (cr, t) = compare("roundrobin", c1, CA);
        assert_lower(&cr, &t, [0.1, 0.5, 0.2]);
    }
    // The default C_a = 1 does as well since the window estimate follows each cut
    // (before, it left too little headroom: mean 1.26 s, docs/algorithms/rtsc.md).
    let (cr, t) = compare("roundrobin", 12e6, 1.0);
    assert_lower(&cr, &t, [0.1, 0.5, 0.2]);
}

/// Lowest-RTT-first with Linux's unlimited initial ssthresh: slow start carries
/// the LTE subflow past f at once, so the conventional receiver has no start-up
/// delay (the LTE subflow alone carries the stream, f < c0, and the WiFi subflow
/// starves after its first RTT samples) and R-TSC has nothing to lower; it must
/// not make things worse. The start-up the thesis describes is the next test's.
#[test]
fn rtsc_minrtt() {
    let (cr, t) = compare("minrtt", 12e6, CA);
    assert!(
        t.p95 <= cr.p95 + 0.001 && t.p99 <= cr.p99 + 0.001,
        "{:.3}/{:.3} vs {:.3}/{:.3}",
        t.p95,
        t.p99,
        cr.p95,
        cr.p99
    );
}

/// A stream above both capacities (60 Mbit/s over 40 + 12): the receiver sees only
/// what arrives, so (3.10) looks feasible to it; it reports its estimate as
/// saturated (f^ at the estimated total capacity) on a large share of its updates
/// (measured: 194 of 198; a feasible stream: see below), and the flow
/// reports the overload as the application's rate against the goodput and a
/// growing send backlog. Nothing fails silently.
#[test]
fn stream_above_all_capacities_is_reported() {
    let mut cfg = scenario("roundrobin", "rtsc", 12e6, CA);
    cfg["flows"][0]["app"]["rate_bps"] = json!(60e6);
    cfg["duration_ns"] = json!(20 * S);
    let s = run(&cfg);
    let (solves, sat) = (num(&s, "/flows/s/receiver_solves"), num(&s, "/flows/s/receiver_saturated_solves"));
    let (rate, goodput) = (num(&s, "/flows/s/app_rate_bps"), num(&s, "/flows/s/goodput_bps"));
    let backlog = num(&s, "/flows/s/send_backlog_bytes");
    eprintln!(
        "60 Mbit/s: {sat} of {solves} solves saturated; app rate {:.1} Mbit/s, goodput {:.1}, backlog {:.1} MB",
        rate * 1e-6,
        goodput * 1e-6,
        backlog * 1e-6
    );
    assert!(solves > 150.0 && sat > 0.3 * solves, "{sat} of {solves}");
    assert!((rate - 60e6).abs() < 0.01 * 60e6, "{rate}");
    assert!(goodput < 0.9 * rate);
    // What the paths did not carry, about (60 - 50) Mbit/s x 20 s = 25 MB, is still waiting.
    assert!(backlog > 10e6, "{backlog}");
    // A feasible stream leaves no backlog worth a frame.
    let ok = run(&scenario("roundrobin", "rtsc", 12e6, CA));
    eprintln!(
        "35.85 Mbit/s: {} of {} solves saturated, backlog {} B",
        num(&ok, "/flows/s/receiver_saturated_solves"),
        num(&ok, "/flows/s/receiver_solves"),
        num(&ok, "/flows/s/send_backlog_bytes")
    );
    assert!(num(&ok, "/flows/s/send_backlog_bytes") < 100e3);
    assert!(num(&ok, "/flows/s/receiver_saturated_solves") < 0.1 * num(&ok, "/flows/s/receiver_solves"));
}

/// The start-up under which the thesis describes LRF's initial delay (sec. 3.6.3,
/// Fig. 3.8(c)): both subflows grow in congestion avoidance from the start, here
/// because slow start ends at ns-3's old initial ssthresh (65535 bytes), over the
/// thesis's initial 20 s. The conventional receiver then queues in the send buffer
/// while LTE's window grows under LIA's coupling (with LRF the WiFi subflow, its
/// RTT bloated, carries little: 1.9 Mbit/s at c1 = 12); R-TSC keeps the WiFi window
/// near its threshold, WiFi's RTT near T_p and its rate near c1, and lowers the
/// whole distribution with both schedulers and every c1 (measured p95 ratios
/// 0.72-0.87; docs/algorithms/rtsc.md).
#[test]
fn rtsc_lowers_the_start_up_delay_of_an_early_slow_start_exit() {
    let with = |scheduler: &str, receiver: &str, c1: f64| {
        let mut cfg = scenario(scheduler, receiver, c1, CA);
        cfg["duration_ns"] = json!(20 * S);
        cfg["flows"][0]["tcp"] = json!({"init_ssthresh_bytes": 65535});
        figures(&run(&cfg))
    };
    for c1 in [15e6, 12e6, 8e6] {
        for scheduler in ["minrtt", "roundrobin"] {
            let (cr, t) = (with(scheduler, "none", c1), with(scheduler, "rtsc", c1));
            eprintln!("--- LIA ({scheduler}), c1 = {} Mbit/s, init_ssthresh 65535 B, 20 s", c1 * 1e-6);
            show("conventional receiver", &cr);
            show("R-TSC", &t);
            assert!(cr.p95 > 0.1, "a start-up delay: p95 {:.3}", cr.p95);
            assert_lower(&cr, &t, [0.9, 0.95, 0.95]);
        }
    }
}

/// A commercial LTE cell with background traffic has no constant capacity: LTE
/// here is a random walk in [30, 50] Mbit/s from 40 (a step every second, sigma
/// 0.1), WiFi 12 Mbit/s, 30 s, seeds 1-3. Whenever LTE falls below f its 7 MB
/// buffer fills, and conventional LRF keeps sending there until LTE's RTT passes
/// WiFi's stale estimate; R-TSC keeps WiFi's window near its threshold and its RTT
/// near T_p, so LRF keeps using it. The thesis gives no LTE dynamics to match, so
/// this is a second setting for the LRF claim, not the reproduction's.
#[test]
fn rtsc_minrtt_over_a_fluctuating_lte_link() {
    for seed in 1..=3u64 {
        let cell = |receiver: &str| {
            let mut cfg = scenario("minrtt", receiver, 12e6, CA);
            cfg["seed"] = json!(seed);
            cfg["links"][0]["capacity"] = json!({"kind": "random_walk", "initial_bps": 40e6, "min_bps": 30e6,
                                                 "max_bps": 50e6, "step_ns": S, "sigma": 0.1});
            figures(&run(&cfg))
        };
        let (cr, t) = (cell("none"), cell("rtsc"));
        eprintln!("--- LIA (minrtt), LTE a random walk in [30, 50] Mbit/s, seed {seed}");
        show("conventional receiver", &cr);
        show("R-TSC", &t);
        assert!(cr.p95 > 0.1, "LRF queues in LTE's buffer: p95 {:.3}", cr.p95);
        assert_lower(&cr, &t, [0.5, 0.5, 1.0]);
    }
}
