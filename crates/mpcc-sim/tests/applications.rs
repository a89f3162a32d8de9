//! Applications and background traffic: CBR and VBR streams with a play-back
//! buffer, Web page loads, on-off sources. Each test prints its measured figures
//! (`cargo test --release -p mpcc-sim --test applications -- --nocapture`).

use serde_json::{json, Value};

mod common;
use common::{num, run, MS, S};

fn link(name: &str, bps: f64, delay_ms: u64, packets: u64) -> Value {
    json!({"name": name, "capacity": {"kind": "constant", "bps": bps}, "delay_ns": delay_ms * MS,
           "queue": {"kind": "droptail", "packets": packets}})
}

fn flow(name: &str, app: Value) -> Value {
    json!({"name": name, "cc": "reno", "path": [0], "app": app})
}

fn scenario(duration: u64, warmup: u64, links: Value, flows: Value) -> Value {
    json!({"duration_ns": duration, "seed": 1, "warmup_ns": warmup, "sample_interval_ns": 0, "links": links, "flows": flows})
}

#[test]
fn cbr_below_capacity_gets_its_rate_without_stalls() {
    // One path, and two subflows whose sum (but neither alone) carries the stream.
    let one = scenario(
        30 * S,
        5 * S,
        json!([link("l", 10e6, 20, 100)]),
        json!([flow("s", json!({"kind": "cbr", "rate_bps": 5e6, "startup_ns": 500 * MS}))]),
    );
    let mut mp = flow("s", json!({"kind": "cbr", "rate_bps": 12e6, "startup_ns": 500 * MS}));
    mp["cc"] = json!("lia");
    mp.as_object_mut().unwrap().remove("path");
    mp["subflows"] = json!([{"path": [0]}, {"path": [1]}]);
    let two = scenario(60 * S, 10 * S, json!([link("a", 10e6, 20, 100), link("b", 10e6, 30, 100)]), json!([mp]));
    for (cfg, rate) in [(one, 5e6), (two, 12e6)] {
        let s = run(&cfg);
        let g = |k: &str| num(&s, &format!("/flows/s/{k}"));
        eprintln!("cbr {:.0} Mbit/s: goodput {:.0}, stalls {}, stall {} s, blocked {} B, app delay mean {:.1} ms p99 {:.1} ms",
                  rate / 1e6, g("goodput_bps"), g("stalls"), g("stall_s"), g("app_blocked_bytes"),
                  g("app_delay_mean_s") * 1e3, g("app_delay_p99_s") * 1e3);
        assert!((g("goodput_bps") / rate - 1.0).abs() < 0.01, "goodput {} for a {rate} stream", g("goodput_bps"));
        assert_eq!((g("stalls"), g("stall_s"), g("app_blocked_bytes")), (0.0, 0.0, 0.0));
        assert!(g("app_delay_mean_s") < 0.1, "data waits little in the send buffer");
    }
}

#[test]
fn cbr_above_capacity_stalls_and_blocks_the_send_buffer() {
    // 12 Mbit/s offered to a 10 Mbit/s path. A 2 MB send buffer holds 1.6 s of
    // data: more than the 0.5 s start-up delay, so play-back stalls; a 100 KB one
    // keeps the delay below it, and the excess is blocked instead.
    let (rate, dur) = (12e6, 30 * S);
    let mut out = Vec::new();
    for buf in [2_000_000u64, 100_000] {
        let mut f = flow("s", json!({"kind": "cbr", "rate_bps": rate, "startup_ns": 500 * MS}));
        f["tcp"] = json!({"send_buf_bytes": buf});
        let s = run(&scenario(dur, 0, json!([link("l", 10e6, 20, 100)]), json!([f])));
        let g = |k: &str| num(&s, &format!("/flows/s/{k}"));
        let offered = rate / 8.0 * dur as f64 * 1e-9;
        let unaccounted = offered - g("app_blocked_bytes") - g("delivered_bytes");
        eprintln!(
            "send buffer {buf} B: goodput {:.0}, stalls {}, stall {:.3} s, blocked {} B of {offered} offered \
                   ({unaccounted} B neither blocked nor delivered), app delay p99 {:.3} s",
            g("goodput_bps"),
            g("stalls"),
            g("stall_s"),
            g("app_blocked_bytes"),
            g("app_delay_p99_s")
        );
        assert!(g("goodput_bps") < 10e6);
        assert!(g("app_blocked_bytes") > 0.2 * offered * (1.0 - 10.0 / 12.0), "the excess is blocked");
        // Offered bytes are blocked, delivered, or still in the buffer or the network.
        assert!(unaccounted >= 0.0 && unaccounted <= buf as f64 + 200_000.0, "{unaccounted}");
        out.push((g("stalls"), g("stall_s"), g("app_blocked_bytes")));
    }
    assert!(out[0].0 >= 1.0 && out[0].1 > 0.0, "large buffer: stalls {:?}", out[0]);
    assert_eq!((out[1].0, out[1].1), (0.0, 0.0), "small buffer: no stall");
    assert!(out[1].2 > out[0].2, "the small buffer blocks more");
}

fn write_trace(name: &str, sizes: &[u64]) -> String {
    let p = std::env::temp_dir().join(format!("mpcc-apps-{}-{name}.txt", std::process::id()));
    let text: String = sizes.iter().map(|b| format!("{b}\n")).collect();
    std::fs::write(&p, format!("# frame sizes, bytes\n{text}")).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn vbr_from_a_trace_reproduces_its_mean_rate() {
    // 250 frames with sizes from 300 to 30 000 bytes (a deterministic spread), 25 fps.
    let sizes: Vec<u64> = (0..250u64).map(|i| 300 + (i * 7919 % 250) * 119).collect();
    let mean_rate = sizes.iter().sum::<u64>() as f64 / sizes.len() as f64 * 8.0 * 25.0;
    let path = write_trace("ok", &sizes);
    let app = json!({"kind": "vbr", "fps": 25.0, "trace": path, "startup_ns": 300 * MS});
    let s = run(&scenario(43 * S, 3 * S, json!([link("l", 20e6, 20, 100)]), json!([flow("v", app)])));
    let g = |k: &str| num(&s, &format!("/flows/v/{k}"));
    eprintln!("vbr trace: mean rate {mean_rate:.0}, goodput {:.0} ({:+.2} %), stalls {}, app delay mean {:.1} ms p99 {:.1} ms",
              g("goodput_bps"), (g("goodput_bps") / mean_rate - 1.0) * 100.0, g("stalls"),
              g("app_delay_mean_s") * 1e3, g("app_delay_p99_s") * 1e3);
    // 40 s is exactly four passes of the trace; the figure lags by the delay of
    // the frames in flight only.
    assert!((g("goodput_bps") / mean_rate - 1.0).abs() < 0.01);
    assert_eq!(g("stalls"), 0.0);
    // A frame larger than one segment waits for its own tail: the delay exceeds
    // the one-way 20 ms by its transmission time.
    assert!(g("app_delay_p99_s") > 0.021 && g("app_delay_p99_s") < 0.1);

    let written = write_trace("bad", &[100, 200]);
    let bad = written.replace(".txt", "-x.txt");
    std::fs::write(&bad, "100\n\n12k\n").unwrap();
    let cfg = scenario(
        S,
        0,
        json!([link("l", 20e6, 20, 100)]),
        json!([flow("v", json!({"kind": "vbr", "fps": 25.0, "trace": bad}))]),
    );
    let e = mpcc_sim::run_json(&cfg.to_string()).err().expect("a bad trace is an error");
    eprintln!("{e}");
    assert!(e.contains(&format!("{bad}:3:")), "names the file and the line: {e}");
    for p in [&bad, &written, &path] {
        std::fs::remove_file(p).ok();
    }
}

/// Page load time of one object of `b` bytes requested at the start on an idle
/// path: the request's one-way trip, `n` slow-start rounds from an initial
/// window of 10 (a window that doubles per RTT: an ACK per segment), the reply's
/// one-way trip, plus the serialisation of the last round's segments at the
/// bottleneck: `n * rtt + s_last * (mss + 52) * 8 / c`.
fn slow_start_model(b: u64, rtt_s: f64, c: f64) -> f64 {
    let segs = b.div_ceil(1448);
    let n = ((segs as f64 / 10.0 + 1.0).log2()).ceil() as i32;
    let s_last = segs - 10 * ((1u64 << (n - 1)) - 1);
    n as f64 * rtt_s + s_last as f64 * 1500.0 * 8.0 / c
}

#[test]
fn web_page_load_time_follows_the_slow_start_model_and_grows_with_rtt() {
    // Tolerance 3 %: the model ignores the ACK clock's spacing within a round.
    let c = 100e6;
    for b in [14_480u64, 100_000, 300_000] {
        let mut last = 0.0;
        for rtt_ms in [20u64, 50, 100, 200] {
            let app = json!({"kind": "web", "objects": [b], "pages": 1});
            let s = run(&scenario(20 * S, 0, json!([link("l", c, rtt_ms / 2, 10_000)]), json!([flow("w", app)])));
            let plt = num(&s, "/flows/w/page_load_mean_s");
            let model = slow_start_model(b, rtt_ms as f64 * 1e-3, c);
            eprintln!(
                "web {b} B, RTT {rtt_ms} ms: page load {:.2} ms, model {:.2} ms (ratio {:.3})",
                plt * 1e3,
                model * 1e3,
                plt / model
            );
            assert_eq!(num(&s, "/flows/w/pages"), 1.0);
            assert!((plt / model - 1.0).abs() < 0.03, "{plt} vs {model}");
            assert!(plt > last, "grows with RTT");
            last = plt;
        }
    }
}

#[test]
fn web_pages_with_think_times_and_sequential_objects() {
    // Three objects of 10 segments, 50 ms RTT, 1 s think time over 20 s. In
    // parallel: one slow-start round per page once the window has opened; one
    // after another: one request round trip per object at least.
    let mut plts = Vec::new();
    for fetch in ["parallel", "sequential"] {
        let app = json!({"kind": "web", "objects": [14480, 14480, 14480], "fetch": fetch,
                         "think_ns": {"kind": "fixed", "value": 1e9}});
        let s = run(&scenario(20 * S, 0, json!([link("l", 100e6, 25, 10_000)]), json!([flow("w", app)])));
        let g = |k: &str| num(&s, &format!("/flows/w/{k}"));
        eprintln!(
            "{fetch}: {} pages, page load mean {:.1} ms p50 {:.1} ms p95 {:.1} ms",
            g("pages"),
            g("page_load_mean_s") * 1e3,
            g("page_load_p50_s") * 1e3,
            g("page_load_p95_s") * 1e3
        );
        // Every page: load time + 1 s of thinking.
        let expected_pages = (20.0 / (1.0 + g("page_load_mean_s"))).floor();
        assert!((g("pages") - expected_pages).abs() <= 1.0, "{} pages", g("pages"));
        plts.push(g("page_load_p50_s"));
    }
    assert!(plts[0] < 0.06, "parallel: about one RTT ({})", plts[0]);
    assert!(plts[1] > 3.0 * 0.05, "sequential: three round trips at least ({})", plts[1]);
}

#[test]
fn onoff_background_halves_a_bulk_flow_while_on_and_not_while_off() {
    // 10 s on, 10 s off, against a bulk Reno flow on a 10 Mbit/s bottleneck.
    let on =
        json!({"kind": "onoff", "on_ns": {"kind": "fixed", "value": 1e10}, "off_ns": {"kind": "fixed", "value": 1e10}});
    let mut cfg = scenario(
        80 * S,
        0,
        json!([link("l", 10e6, 20, 100)]),
        json!([flow("bulk", json!({"kind": "bulk"})), flow("bg", on)]),
    );
    cfg["sample_interval_ns"] = json!(S);
    let out = mpcc_sim::run_json(&cfg.to_string()).unwrap();
    let s: Value = serde_json::from_str(&out.summary_json).unwrap();
    let t = &out.tables["flow_series"];
    // Bulk (flow 0) goodput per second from its delivered bytes.
    let rows: Vec<(f64, f64)> =
        (0..t["t_s"].len()).filter(|&i| t["flow"][i] == 0.0).map(|i| (t["t_s"][i], t["delivered_bytes"][i])).collect();
    let (mut on_rates, mut off_rates) = (Vec::new(), Vec::new());
    for w in rows.windows(2) {
        let (t0, rate) = (w[0].0, (w[1].1 - w[0].1) * 8.0 / (w[1].0 - w[0].0));
        let phase = t0 % 20.0;
        // Skip the first 3 s after each switch (convergence).
        if (3.0..10.0).contains(&phase) {
            on_rates.push(rate);
        } else if (13.0..20.0).contains(&phase) {
            off_rates.push(rate);
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (r_on, r_off) = (mean(&on_rates) / 10e6, mean(&off_rates) / 10e6);
    eprintln!(
        "bulk share of the link: {r_on:.3} while the background is on, {r_off:.3} while off; on periods {}",
        s["flows"]["bg"]["on_periods"]
    );
    assert!((0.35..0.65).contains(&r_on), "about half while on: {r_on}");
    assert!(r_off > 0.9, "about all while off: {r_off}");
    assert_eq!(num(&s, "/flows/bg/on_periods"), 4.0, "on at 0, 20, 40 and 60 s");
}

/// Every kind of application, random ones included, single-path and multipath.
fn mixed(seed: u64) -> Value {
    let exp = |mean: f64| json!({"kind": "exponential", "mean": mean});
    let mut mp = json!({"name": "cbr", "cc": "lia", "subflows": [{"path": [0]}, {"path": [1]}],
                        "app": {"kind": "cbr", "rate_bps": 4e6}, "tcp": {"send_buf_bytes": 200_000}});
    mp["stop_ns"] = json!(15 * S);
    json!({"duration_ns": 20 * S, "seed": seed, "warmup_ns": 2 * S, "sample_interval_ns": 500 * MS,
           "links": [link("a", 10e6, 10, 60), link("b", 5e6, 30, 60)],
           "flows": [mp,
                     flow("vbr", json!({"kind": "vbr", "fps": 30.0, "rate_bps": 2e6, "cv": 0.7})),
                     flow("web", json!({"kind": "web", "object_count": {"kind": "uniform", "min": 1.0, "max": 8.0},
                                        "object_bytes": {"kind": "pareto", "mean": 30_000.0, "shape": 1.5},
                                        "think_ns": exp(5e8)})),
                     json!({"name": "bg", "cc": "cubic", "path": [1], "start_ns": S,
                            "app": {"kind": "onoff", "on_ns": exp(2e9), "off_ns": exp(2e9)}})]})
}

#[test]
fn runs_are_deterministic_and_seeds_matter() {
    let go = |seed| {
        let out = mpcc_sim::run_json(&mixed(seed).to_string()).unwrap();
        let mut s: Value = serde_json::from_str(&out.summary_json).unwrap();
        s["sim"]["wall_s"] = Value::Null;
        (s, out.tables)
    };
    let (a, ta) = go(1);
    let (b, tb) = go(1);
    let (c, _) = go(2);
    let f = &a["flows"];
    eprintln!(
        "cbr: goodput {}, stalls {}; vbr: goodput {}; web: {} pages, mean {} s; bg: {} on periods",
        f["cbr"]["goodput_bps"],
        f["cbr"]["stalls"],
        f["vbr"]["goodput_bps"],
        f["web"]["pages"],
        f["web"]["page_load_mean_s"],
        f["bg"]["on_periods"]
    );
    assert_eq!(a, b);
    assert_eq!(ta, tb);
    for k in ["/flows/vbr/delivered_bytes", "/flows/web/pages", "/flows/bg/delivered_bytes"] {
        assert_ne!(a.pointer(k), c.pointer(k), "{k}: another seed draws other sizes and durations");
    }
    assert!(num(&a, "/flows/web/pages") > 5.0);
}

#[test]
fn bad_application_settings_name_the_field() {
    let l = json!([link("l", 10e6, 20, 100)]);
    let err = |app: Value, tcp: Value| {
        let mut f = flow("f", app);
        f["tcp"] = tcp;
        mpcc_sim::run_json(&scenario(S, 0, l.clone(), json!([f])).to_string()).err().expect("an error")
    };
    let cases = [
        (json!({"kind": "cbr", "rate_bps": 0.0}), json!({}), "flows.f.app.rate_bps: 0"),
        (json!({"kind": "vbr", "fps": 0.0, "rate_bps": 1e6}), json!({}), "flows.f.app.fps"),
        (json!({"kind": "vbr", "fps": 30.0, "rate_bps": 1e6, "cv": 20.0}), json!({}), "flows.f.app.cv"),
        (json!({"kind": "vbr", "fps": 30.0}), json!({}), "flows.f.app.trace"),
        (json!({"kind": "vbr", "fps": 30.0, "trace": "/nonexistent/frames.txt"}), json!({}), "/nonexistent/frames.txt"),
        (json!({"kind": "web", "objects": []}), json!({}), "flows.f.app.objects"),
        (
            json!({"kind": "web", "objects": [1], "object_count": {"kind": "fixed", "value": 2.0}}),
            json!({}),
            "flows.f.app.objects",
        ),
        (
            json!({"kind": "web", "objects": [1], "think_ns": {"kind": "pareto", "mean": 1.0, "shape": 0.5}}),
            json!({}),
            "flows.f.app.think_ns",
        ),
        (
            json!({"kind": "onoff", "on_ns": {"kind": "exponential", "mean": -1.0}, "off_ns": {"kind": "fixed", "value": 1.0}}),
            json!({}),
            "flows.f.app.on_ns",
        ),
        (json!({"kind": "bulk"}), json!({"send_buf_bytes": 100_000}), "flows.f.tcp.send_buf_bytes"),
        (json!({"kind": "cbr", "rate_bps": 1e6}), json!({"send_buf_bytes": 10}), "flows.f.tcp.send_buf_bytes: 10"),
        (json!({"kind": "cbr", "rate_bps": 1e6, "startup": 1}), json!({}), "unknown field `startup`"),
    ];
    for (app, tcp, want) in cases {
        let e = err(app.clone(), tcp);
        eprintln!("{e}");
        assert!(e.contains(want), "{app}: {e:?} lacks {want:?}");
    }
}

/// The largest cwnd (segments) of subflow `sub` in a run's flow_series.
fn max_cwnd(out: &mpcc_sim::RunOutput, sub: f64) -> f64 {
    let fs = &out.tables["flow_series"];
    fs["cwnd"].iter().zip(&fs["subflow"]).filter(|(_, s)| **s == sub).map(|(c, _)| *c).fold(0.0, f64::max)
}

/// `tcp.cwnd_validation` (Linux's tcp_is_cwnd_limited): a 5 Mbit/s stream over a
/// 100 Mbit/s path needs about 17 segments in flight. Without validation every
/// ACK grows cwnd, so slow start never ends and cwnd runs into the thousands; with
/// it cwnd stays below twice what was in flight. The stream's goodput is the same,
/// and a bulk transfer (always using its window) is not changed at all.
#[test]
fn cwnd_validation_stops_an_application_limited_window_from_growing() {
    let cfg = |cc: &str, validation: bool, app: Value| {
        let mut f = json!({"name": "s", "cc": cc, "app": app, "tcp": {"cwnd_validation": validation}});
        if cc == "reno" {
            f["path"] = json!([0]);
        } else {
            f["subflows"] = json!([{"path": [0]}, {"path": [1]}]);
        }
        let mut s = scenario(10 * S, 0, json!([link("a", 100e6, 20, 500), link("b", 100e6, 30, 500)]), json!([f]));
        s["sample_interval_ns"] = json!(100 * MS);
        mpcc_sim::run_json(&s.to_string()).unwrap()
    };
    let cbr = json!({"kind": "cbr", "rate_bps": 5e6});
    for cc in ["reno", "lia"] {
        let (off, on) = (cfg(cc, false, cbr.clone()), cfg(cc, true, cbr.clone()));
        let goodput =
            |o: &mpcc_sim::RunOutput| num(&serde_json::from_str(&o.summary_json).unwrap(), "/flows/s/goodput_bps");
        let (w_off, w_on) = (max_cwnd(&off, 0.0), max_cwnd(&on, 0.0));
        eprintln!("{cc}: cbr 5 Mbit/s, largest cwnd {w_off:.0} segments without validation, {w_on:.0} with; goodput {:.3} / {:.3} Mbit/s",
                  goodput(&off) * 1e-6, goodput(&on) * 1e-6);
        assert!(w_off > 1000.0, "{w_off}");
        assert!(w_on < 60.0, "{w_on}");
        assert!((goodput(&on) / goodput(&off) - 1.0).abs() < 1e-3);
    }
    let bulk = json!({"kind": "bulk"});
    let (off, on) = (cfg("reno", false, bulk.clone()), cfg("reno", true, bulk));
    let flows = |o: &mpcc_sim::RunOutput| serde_json::from_str::<Value>(&o.summary_json).unwrap()["flows"].clone();
    assert_eq!(flows(&off), flows(&on), "a bulk sender always uses its window");
    assert_eq!(off.tables, on.tables);
}
