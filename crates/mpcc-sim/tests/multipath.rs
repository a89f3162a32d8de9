//! The MPTCP connection: subflows, schedulers, the connection receive window,
//! reinjection, joins and leaves. Each test prints its measured figures.

use serde_json::{json, Value};

mod common;
use common::{num, run, MS, S};

fn link(name: &str, bps: f64, delay_ms: u64, packets: u64) -> Value {
    json!({"name": name, "capacity": {"kind": "constant", "bps": bps}, "delay_ns": delay_ms * MS,
           "queue": {"kind": "droptail", "packets": packets}})
}

fn mp_flow(cc: &str, scheduler: &str, paths: &[usize]) -> Value {
    let subflows: Vec<Value> = paths.iter().map(|&p| json!({"path": [p]})).collect();
    json!({"name": "mp", "cc": cc, "scheduler": scheduler, "subflows": subflows, "app": {"kind": "bulk"}})
}

fn reno_on(name: &str, path: usize) -> Value {
    json!({"name": name, "cc": "reno", "path": [path], "app": {"kind": "bulk"}})
}

/// Two disjoint 10 Mbit/s paths with a 40 ms RTT; three Reno flows on the first,
/// one on the second, plus `flow`.
fn competition(flow: Value) -> Value {
    let mut flows: Vec<Value> = (0..3).map(|i| reno_on(&format!("a{i}"), 0)).collect();
    flows.push(reno_on("b0", 1));
    flows.push(flow);
    json!({"duration_ns": 200 * S, "seed": 1, "warmup_ns": 20 * S, "sample_interval_ns": 0,
           "links": [link("a", 10e6, 20, 80), link("b", 10e6, 20, 80)], "flows": flows})
}

#[test]
fn coupled_connection_on_two_disjoint_paths_beats_reno_on_the_better_one() {
    // RFC 6356 goal 1: at least the throughput of one TCP on the best path
    // available (here the less congested one, b).
    let best = (0..2).map(|p| num(&run(&competition(reno_on("mp", p))), "/flows/mp/goodput_bps")).fold(0.0, f64::max);
    for cc in ["lia", "olia", "balia"] {
        let s = run(&competition(mp_flow(cc, "minrtt", &[0, 1])));
        let got = num(&s, "/flows/mp/goodput_bps");
        let sub0 = num(&s, "/flows/mp/subflows/0/throughput_bps");
        let sub1 = num(&s, "/flows/mp/subflows/1/throughput_bps");
        eprintln!("{cc}: goodput {got:.0} (subflows {sub0:.0} + {sub1:.0}); Reno on the better path {best:.0}");
        assert!(got >= best, "{cc}: {got} < Reno {best}");
        assert!(sub1 > sub0, "{cc}: more traffic on the less congested path ({sub0} vs {sub1})");
    }
}

#[test]
fn uncoupled_subflows_on_disjoint_paths_behave_as_independent_flows() {
    // With per-subflow Reno and an always-backlogged application, nothing couples
    // the two subflows: each must match a Reno flow alone on its path exactly.
    let s = run(&competition(mp_flow("reno", "minrtt", &[0, 1])));
    for p in 0..2 {
        let alone = num(&run(&competition(reno_on("mp", p))), "/flows/mp/throughput_bps");
        let sub = num(&s, &format!("/flows/mp/subflows/{p}/throughput_bps"));
        eprintln!("path {p}: subflow {sub:.0}, Reno alone {alone:.0}");
        assert_eq!(sub, alone);
    }
}

#[test]
fn one_subflow_connection_equals_the_single_path_flow() {
    let links = json!([link("f", 20e6, 10, 60), link("r", 2e6, 10, 30)]);
    let tcp = json!({"delayed_ack": true, "rcv_buf_bytes": 300_000});
    let cfg = |route: Value| {
        let mut f = json!({"name": "x", "cc": "lia", "app": {"kind": "file", "bytes": 20_000_000}, "tcp": tcp, "start_ns": 100 * MS});
        f.as_object_mut().unwrap().extend(route.as_object().unwrap().clone());
        let mut l = links.clone();
        l[0]["loss"] = json!({"kind": "bernoulli", "p": 0.002});
        json!({"duration_ns": 30 * S, "seed": 9, "warmup_ns": S, "links": l,
               "flows": [f, {"name": "bg", "cc": "cubic", "path": [0], "app": {"kind": "bulk"}}]})
    };
    let single = mpcc_sim::run_json(&cfg(json!({"path": [0], "reverse_path": [1]})).to_string()).unwrap();
    let conn = mpcc_sim::run_json(&cfg(json!({"subflows": [{"path": [0], "reverse_path": [1]}]})).to_string()).unwrap();
    let (mut a, mut b): (Value, Value) =
        (serde_json::from_str(&single.summary_json).unwrap(), serde_json::from_str(&conn.summary_json).unwrap());
    a["sim"]["wall_s"] = Value::Null;
    b["sim"]["wall_s"] = Value::Null;
    eprintln!("fct {} s, {} retransmissions", a["flows"]["x"]["fct_s"], a["flows"]["x"]["retransmissions"]);
    assert!(a["flows"]["x"]["fct_s"].is_number() && num(&a, "/flows/x/retransmissions") > 0.0);
    assert_eq!(a, b);
    assert_eq!(single.tables, conn.tables);
}

#[test]
fn minrtt_keeps_the_reordering_buffer_smaller_than_roundrobin() {
    // 10 ms and 100 ms RTT paths, a 64 KB receive buffer. While the subflows are
    // cwnd-limited a scheduler has no choice (only the subflow whose ACK freed
    // window space can send); with the connection window binding, both subflows
    // have space whenever it opens, and round-robin puts every other segment on
    // the slow path, where it holds up delivery of the fast path's data.
    let links = json!([link("fast", 50e6, 5, 50), link("slow", 10e6, 50, 100)]);
    let mut out = Vec::new();
    for sched in ["minrtt", "roundrobin"] {
        let mut f = mp_flow("lia", sched, &[0, 1]);
        f["tcp"] = json!({"rcv_buf_bytes": 64_000});
        let s = run(&json!({"duration_ns": 60 * S, "seed": 1, "warmup_ns": 5 * S, "sample_interval_ns": 0,
                            "links": links, "flows": [f]}));
        let g = |k: &str| num(&s, &format!("/flows/mp/{k}"));
        let r = (g("reorder_mean_segments"), g("app_delay_mean_s"), g("app_delay_p99_s"), g("goodput_bps"));
        eprintln!("{sched}: reordering buffer mean {:.2} segments, application delay mean {:.1} ms p99 {:.1} ms, goodput {:.0}",
                  r.0, r.1 * 1e3, r.2 * 1e3, r.3);
        out.push(r);
    }
    let (min, rr) = (out[0], out[1]);
    assert!(min.0 < 0.5 * rr.0, "reordering: minrtt {} vs roundrobin {}", min.0, rr.0);
    assert!(min.1 < 0.5 * rr.1, "application delay: minrtt {} vs roundrobin {}", min.1, rr.1);
    assert!(rr.0 > 1.0, "round-robin does reorder ({})", rr.0);
}

#[test]
fn bad_multipath_configurations_name_the_field() {
    let base = |flow: Value| json!({"duration_ns": S, "seed": 1, "links": [link("a", 1e6, 1, 10)], "flows": [flow]});
    let err = |flow: Value| mpcc_sim::run_json(&base(flow).to_string()).err().expect("rejected");
    let cases = [
        (
            json!({"name": "m", "cc": "lia", "app": {"kind": "bulk"}}),
            "flows.m.path: missing; allowed: path (one route) or subflows",
        ),
        (
            json!({"name": "m", "cc": "lia", "path": [0], "subflows": [{"path": [0]}], "app": {"kind": "bulk"}}),
            "flows.m.subflows: given with path",
        ),
        (
            json!({"name": "m", "cc": "lia", "subflows": [], "app": {"kind": "bulk"}}),
            "flows.m.subflows: 0 subflows; allowed: 1 to",
        ),
        (
            json!({"name": "m", "cc": "lia", "subflows": [{"path": [0]}, {"path": [3]}], "app": {"kind": "bulk"}}),
            "flows.m.subflows.1.path: link index 3 does not exist",
        ),
        (
            json!({"name": "m", "cc": "lia", "subflows": [{"path": []}], "app": {"kind": "bulk"}}),
            "flows.m.subflows.0.path: empty",
        ),
        (
            json!({"name": "m", "cc": "lia", "subflows": [{"path": [0]}], "reverse_path": [0], "app": {"kind": "bulk"}}),
            "flows.m.reverse_path: only with path",
        ),
        (
            json!({"name": "m", "cc": "lia", "start_ns": 5, "subflows": [{"path": [0], "start_ns": 4}], "app": {"kind": "bulk"}}),
            "flows.m.subflows.0.start_ns: 4 ns; allowed: at or after the flow's start_ns",
        ),
        (
            json!({"name": "m", "cc": "lia", "subflows": [{"path": [0], "start_ns": 4, "stop_ns": 4}], "app": {"kind": "bulk"}}),
            "flows.m.subflows.0.stop_ns: allowed: after the subflow's start",
        ),
        (
            json!({"name": "m", "cc": "lia", "scheduler": "blast", "subflows": [{"path": [0]}], "app": {"kind": "bulk"}}),
            "flows.m.scheduler: unknown scheduler 'blast'; allowed: minrtt, roundrobin",
        ),
        (
            json!({"name": "m", "cc": "lia", "subflows": [{"path": [0], "delay": 1}], "app": {"kind": "bulk"}}),
            "unknown field `delay`",
        ),
    ];
    for (flow, want) in cases {
        let e = err(flow);
        assert!(e.contains(want), "{e:?} lacks {want:?}");
        assert!(!e.contains('\n'), "one line: {e:?}");
    }
}

#[test]
fn a_receive_buffer_below_the_bdp_caps_goodput_at_buffer_per_rtt() {
    // Two 20 Mbit/s paths with a 100 ms RTT (BDP 250 KB each) and a 100 KB
    // connection buffer: the window, not the paths, limits the connection, to
    // floor(buffer / mss) segments per round trip, however many subflows share it.
    let buf = 100_000u64;
    let links = json!([link("a", 20e6, 50, 1000), link("b", 20e6, 50, 1000)]);
    for route in [json!({"path": [0]}), json!({"subflows": [{"path": [0]}, {"path": [1]}]})] {
        let mut f = json!({"name": "x", "cc": "lia", "app": {"kind": "bulk"}, "tcp": {"rcv_buf_bytes": buf}});
        f.as_object_mut().unwrap().extend(route.as_object().unwrap().clone());
        let s = run(&json!({"duration_ns": 30 * S, "seed": 1, "warmup_ns": 5 * S, "sample_interval_ns": 0,
                            "links": links, "flows": [f]}));
        let rtt = num(&s, "/flows/x/rtt_min_s");
        let cap = (buf / 1448 * 1448 * 8) as f64 / rtt;
        let got = num(&s, "/flows/x/goodput_bps");
        eprintln!(
            "{} subflow(s): goodput {got:.0}, buffer / RTT {cap:.0} ({:.3}), path capacity {:.0}",
            s["flows"]["x"]["subflows"].as_array().unwrap().len(),
            got / cap,
            20e6 * 1448.0 / 1500.0
        );
        assert!((got / cap - 1.0).abs() < 0.03, "goodput {got} vs {cap}");
    }
}

#[test]
fn data_stuck_on_a_dark_path_is_reinjected_and_the_connection_keeps_delivering() {
    // Path b loses every packet. The ten segments the scheduler puts on it at the
    // start (no RTT known yet) are reinjected on a when b's timer fires; without
    // reinjection the transfer could never complete.
    let mut dark = link("b", 10e6, 20, 100);
    dark["loss"] = json!({"kind": "periodic", "every": 1});
    let bytes = 5_000_000u64;
    let cfg = |route: Value| {
        let mut f = json!({"name": "x", "cc": "lia", "app": {"kind": "file", "bytes": bytes}});
        f.as_object_mut().unwrap().extend(route.as_object().unwrap().clone());
        json!({"duration_ns": 30 * S, "seed": 1, "sample_interval_ns": 0, "links": [link("a", 10e6, 20, 100), dark], "flows": [f]})
    };
    let alone = run(&cfg(json!({"path": [0]})));
    let s = run(&cfg(json!({"subflows": [{"path": [0]}, {"path": [1]}]})));
    let fct_alone = num(&alone, "/flows/x/fct_s");
    let fct = num(&s, "/flows/x/fct_s");
    let reinjected = num(&s, "/flows/x/subflows/0/reinjections");
    let b_timeouts = num(&s, "/flows/x/subflows/1/timeouts");
    eprintln!("completion {fct:.3} s (path a alone {fct_alone:.3} s); {reinjected} segments reinjected on a; {b_timeouts} timeouts on b; delivered {}",
              s["flows"]["x"]["delivered_bytes"]);
    assert_eq!(num(&s, "/flows/x/delivered_bytes") as u64, bytes);
    assert_eq!(reinjected, 10.0, "the initial window sent on b");
    assert_eq!(num(&s, "/flows/x/subflows/1/reinjections"), 0.0);
    assert!(b_timeouts >= 1.0);
    // Path a never idles (it carries b's ten segments instead of ten others), so
    // the transfer ends as soon as alone; but the data behind b's segments waits
    // at the receiver until b's first timeout (the initial RTO, 1 s).
    assert!(fct <= fct_alone + 0.01, "{fct} vs {fct_alone}");
    let (p95, p95_alone) = (num(&s, "/flows/x/app_delay_p95_s"), num(&alone, "/flows/x/app_delay_p95_s"));
    eprintln!("application delay p95 {p95:.3} s (path a alone {p95_alone:.3} s)");
    assert!(p95 > p95_alone + 0.4, "{p95} vs {p95_alone}");
}

/// Payload bit/s delivered to the application between two sample times, from flow_series.
fn goodput_between(tables: &std::collections::BTreeMap<String, mpcc_sim::Table>, sub: f64, t0: f64, t1: f64) -> f64 {
    let fs = &tables["flow_series"];
    let at = |t: f64| {
        let i =
            (0..fs["t_s"].len()).find(|&i| (fs["t_s"][i] - t).abs() < 1e-6 && fs["subflow"][i] == sub).expect("a row");
        fs["delivered_bytes"][i]
    };
    (at(t1) - at(t0)) * 8.0 / (t1 - t0)
}

#[test]
fn subflows_join_and_leave_at_their_times() {
    // b joins at 5 s and leaves at 15 s, with data in flight: the connection
    // speeds up while it is there, its outstanding data is reinjected on a when it
    // leaves, and a alone carries on.
    let cfg = json!({"duration_ns": 25 * S, "seed": 1, "sample_interval_ns": 500 * MS,
        "links": [link("a", 10e6, 20, 100), link("b", 5e6, 30, 100)],
        "flows": [{"name": "x", "cc": "lia", "app": {"kind": "bulk"},
                   "subflows": [{"path": [0]}, {"path": [1], "start_ns": 5 * S, "stop_ns": 15 * S}]}]});
    let out = mpcc_sim::run_json(&cfg.to_string()).unwrap();
    let s: Value = serde_json::from_str(&out.summary_json).unwrap();
    let before = goodput_between(&out.tables, 0.0, 2.0, 5.0);
    let during = goodput_between(&out.tables, 0.0, 8.0, 15.0);
    let after = goodput_between(&out.tables, 0.0, 18.0, 25.0);
    let reinjected = num(&s, "/flows/x/subflows/0/reinjections");
    eprintln!(
        "goodput alone {before:.0}, with b {during:.0}, after b left {after:.0}; {reinjected} segments reinjected"
    );
    let a = 10e6 * 1448.0 / 1500.0;
    assert!(before > 0.9 * a && before <= a * 1.001, "{before}");
    assert!(during > 1.35 * a, "{during}");
    assert!(after > 0.9 * a && after <= a * 1.001, "{after}");
    assert!(reinjected > 0.0);
    // Time-series rows of b only while it is there.
    let fs = &out.tables["flow_series"];
    let b_times: Vec<f64> = (0..fs["t_s"].len()).filter(|&i| fs["subflow"][i] == 1.0).map(|i| fs["t_s"][i]).collect();
    assert!((b_times[0] - 5.0).abs() < 1e-9 && (b_times.last().unwrap() - 14.5).abs() < 1e-9, "{b_times:?}");
}

/// A subflow that leaves is gone for every scheduler: from its stop time nothing is sent
/// on its path (the connection hands it no segment, new or reinjected), and the others
/// carry the connection on. Schedulers keep no state a leave must undo: the subflow is
/// unusable in every snapshot after `Scheduler::on_subflow_removed` (docs/mptcp.md).
#[test]
fn every_scheduler_stops_using_a_subflow_that_left() {
    let stop = 8.0;
    for info in mpcc_algo::sched::REGISTRY {
        let mut flow = mp_flow("lia", info.name, &[0, 1, 2]);
        flow["subflows"][1]["stop_ns"] = json!((stop * 1e9) as u64);
        let cfg = json!({"duration_ns": 16 * S, "seed": 1, "sample_interval_ns": 500 * MS,
            "links": [link("a", 10e6, 20, 100), link("b", 10e6, 30, 100), link("c", 10e6, 25, 100)],
            "flows": [flow]});
        let out = mpcc_sim::run_json(&cfg.to_string()).unwrap();
        let ls = &out.tables["link_series"];
        let tx_b = |t: f64| {
            let i = (0..ls["t_s"].len()).find(|&i| (ls["t_s"][i] - t).abs() < 1e-6 && ls["link"][i] == 1.0);
            ls["tx_bytes"][i.expect("a row")]
        };
        let before = goodput_between(&out.tables, 0.0, 4.0, stop);
        let after = goodput_between(&out.tables, 0.0, stop + 2.0, 16.0);
        eprintln!(
            "{}: b sent {:.0} bytes by its stop, {:.0} after; goodput {before:.0} before, {after:.0} after",
            info.name,
            tx_b(stop),
            tx_b(16.0) - tx_b(stop + 0.5)
        );
        assert!(tx_b(stop) > 0.0, "{}: b carried data before it left", info.name);
        // Packets already queued drain within half a second (100 packets at 10 Mbit/s).
        assert_eq!(tx_b(16.0), tx_b(stop + 0.5), "{}: nothing sent on b after it left", info.name);
        assert!(after > 5e6, "{}: the connection carries on without b ({after})", info.name);
    }
}

/// Opportunistic retransmission and penalization (Raiciu et al., NSDI 2012), scheduler
/// options: a 10 Mbit/s, 20 ms path and a 2 Mbit/s, 300 ms one, a 16-segment receive
/// buffer. Measured: 8.656 Mbit/s without, 8.691 with opportunistic retransmission
/// (the window's left edge re-sent on the fast path), 7.596 with penalization too (the
/// slow subflow halved once per its RTT gives up more than the head-of-line time it
/// saves here; the paper's setting was a bufferbloated 3G path).
#[test]
fn opportunistic_retransmission_resends_the_blocking_data() {
    let cfg = |params: Value| {
        let mut flow = mp_flow("lia", "minrtt", &[0, 1]);
        flow["scheduler_params"] = params;
        flow["tcp"] = json!({"rcv_buf_bytes": 16 * 1448});
        json!({"duration_ns": 30 * S, "seed": 1, "sample_interval_ns": 0,
               "links": [link("fast", 10e6, 10, 100), link("slow", 2e6, 150, 5)], "flows": [flow]})
    };
    let plain = run(&cfg(json!({})));
    let opp = run(&cfg(json!({"opportunistic": 1.0})));
    let pen = run(&cfg(json!({"opportunistic": 1.0, "penalize": 1.0})));
    let goodput = |s: &Value| num(s, "/flows/mp/goodput_bps");
    let reinjected = |s: &Value| num(s, "/flows/mp/reinjections");
    println!(
        "goodput: plain {:.0}, opportunistic {:.0}, with penalization {:.0}",
        goodput(&plain),
        goodput(&opp),
        goodput(&pen)
    );
    assert_eq!(reinjected(&plain), 0.0);
    assert!(reinjected(&opp) > 100.0, "the blocking data is re-sent");
    assert!(goodput(&opp) >= goodput(&plain), "re-sending the window's left edge does not cost goodput");
    // Penalization halves the slow subflow: it carries less.
    let slow = |s: &Value| num(s, "/flows/mp/subflows/1/throughput_bps");
    assert!(slow(&pen) < slow(&opp));
}

#[test]
fn the_connection_timer_marks_a_dark_subflow_stale_and_takes_it_back_after_the_outage() {
    // Path b goes dark from 5 s to 25 s (its queue fills and holds what it has).
    // With upstream Linux's connection-level timer (`tcp.data_rtx`) subflow b goes
    // more than `stale_loss_cnt` expiries without an ACK: it is marked stale, the
    // data unacknowledged at the data level is reinjected on a, the connection keeps
    // delivering at about a's rate, and b carries data again once its ACKs return.
    let mut b = link("b", 10e6, 20, 100);
    b["capacity"] = json!({"kind": "schedule", "steps": [[0, 10e6], [5 * S, 0.0], [25 * S, 10e6]]});
    let cfg = |data_rtx: bool| {
        json!({"duration_ns": 35 * S, "seed": 1, "sample_interval_ns": S, "links": [link("a", 10e6, 20, 100), b],
               "flows": [{"name": "x", "cc": "lia", "app": {"kind": "bulk"}, "tcp": {"profile": "linux", "data_rtx": data_rtx},
                          "subflows": [{"path": [0]}, {"path": [1]}]}]})
    };
    let out = mpcc_sim::run_json(&cfg(true).to_string()).expect("runs");
    let (on, tables): (Value, _) = (serde_json::from_str(&out.summary_json).unwrap(), &out.tables);
    let off = run(&cfg(false));
    let marks = |s: &Value, k: usize| num(s, &format!("/flows/x/subflows/{k}/stale_marks"));
    eprintln!(
        "stale marks on b: {} (off: {}); reinjections on a: {} (off: {})",
        marks(&on, 1),
        marks(&off, 1),
        num(&on, "/flows/x/subflows/0/reinjections"),
        num(&off, "/flows/x/subflows/0/reinjections")
    );
    assert!(marks(&on, 1) >= 1.0);
    assert_eq!(marks(&on, 0), 0.0);
    assert_eq!(marks(&off, 1), 0.0, "the timer is off");
    let during = goodput_between(tables, 0.0, 10.0, 24.0);
    let after = goodput_between(tables, 1.0, 28.0, 35.0);
    eprintln!("during the outage: {during:.0} bit/s on a; after it: {after:.0} bit/s on b");
    assert!(during > 0.8 * 10e6 * 1448.0 / 1500.0, "{during}");
    assert!(after > 1e6, "b is used again: {after}");
}
