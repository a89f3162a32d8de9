//! The summary of a run (`summary.json`): per flow, per link and for the run.

use crate::app::Application;
use crate::flow::{FlowCounters, COUNTERS};
use crate::ids::FlowId;
use crate::metrics::RttStats;
use crate::sim::Sim;
use mpcc_algo::sched::{Metric, Scheduler};
use mpcc_core::Nanos;
use serde_json::{json, Map, Value};

/// NaN and infinities are not JSON: they become null.
fn num(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else {
        Value::Null
    }
}

/// Mean, variance, minimum, percentiles and count of a set of delays, as
/// `<prefix>_mean_s`, ... (the RTT fields of docs/metrics.md).
fn delay_fields(m: &mut Map<String, Value>, prefix: &str, d: &RttStats) {
    let p = d.percentiles(&[50.0, 95.0, 99.0]);
    m.insert(format!("{prefix}_mean_s"), num(d.mean_s()));
    m.insert(format!("{prefix}_var_s2"), num(d.var_s2()));
    m.insert(format!("{prefix}_min_s"), num(d.min_s()));
    m.insert(format!("{prefix}_p50_s"), num(p[0]));
    m.insert(format!("{prefix}_p95_s"), num(p[1]));
    m.insert(format!("{prefix}_p99_s"), num(p[2]));
    m.insert(format!("{prefix}_samples"), json!(d.count()));
}

/// Bits per second over [from, to] (NaN for an empty interval).
fn rate(bytes: u64, from: u64, to: u64) -> f64 {
    let s = to.saturating_sub(from) as f64 * 1e-9;
    if s > 0.0 {
        bytes as f64 * 8.0 / s
    } else {
        f64::NAN
    }
}

/// End of the window a flow's or subflow's counters cover: the run's end while it
/// is active; once it has ended (stopped, or its file delivered), the later of
/// that time and its last arrival, since segments in flight at `stop` still arrive
/// and are counted.
fn active_until(ended: Option<Nanos>, last_arrival: Nanos, end: Nanos) -> Nanos {
    ended.map_or(end, |t| t.max(last_arrival)).min(end)
}

/// The earlier of two optional times.
fn earliest(a: Option<Nanos>, b: Option<Nanos>) -> Option<Nanos> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

/// Delays (ms) at which writing applications report the fraction of segments delivered.
const APP_DELAY_WITHIN_MS: [u32; 6] = [100, 200, 300, 600, 1000, 2000];

/// Cost of a subflow's wire bits sent since the warm-up.
fn sub_cost(s: &crate::flow::Subflow) -> f64 {
    (s.counters().sent_bytes - s.base.sent_bytes) as f64 * 8e-6 * s.cost_per_mbit
}

/// The summary as a JSON value: `{"flows": {NAME: {...}}, "links": {...}, "sim": {...}}`.
pub fn summary(sim: &mut Sim, wall_s: f64) -> Value {
    let flows: Map<String, Value> = (0..sim.flows.len())
        .map(|i| (sim.flows[FlowId(i as u32)].name.clone(), Value::Object(flow_summary(sim, i))))
        .collect();
    let links = links_summary(sim);
    json!({ "flows": flows, "links": links, "sim": run_summary(sim, wall_s) })
}

/// [`summary`] serialised, one flow at a time: the same text (serde_json writes a
/// map's keys in order, and the flows are written in their names' order), without
/// holding every flow's JSON tree at once (9 KB a flow; 90 MB for 10 000 flows).
pub fn summary_json(sim: &mut Sim, wall_s: f64) -> String {
    let mut order: Vec<usize> = (0..sim.flows.len()).collect();
    order.sort_by(|&a, &b| sim.flows[FlowId(a as u32)].name.cmp(&sim.flows[FlowId(b as u32)].name));
    let mut out = String::from("{\"flows\":{");
    for (k, &i) in order.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        out += &serde_json::to_string(&sim.flows[FlowId(i as u32)].name).expect("a string serialises");
        out.push(':');
        out += &serde_json::to_string(&Value::Object(flow_summary(sim, i))).expect("summary serialises");
    }
    let links = links_summary(sim);
    out += "},\"links\":";
    out += &serde_json::to_string(&links).expect("summary serialises");
    out += ",\"sim\":";
    out += &serde_json::to_string(&run_summary(sim, wall_s)).expect("summary serialises");
    out.push('}');
    out
}

/// One flow's summary (docs/metrics.md).
fn flow_summary(sim: &Sim, i: usize) -> Map<String, Value> {
    let end = sim.end;
    {
        let f = &sim.flows[FlowId(i as u32)];
        let c = f.counters();
        let b = f.base;
        let from = f.start.max(sim.warmup);
        let ended = earliest(f.stop, f.completed_at);
        let last_arrival = f.subs.iter().map(|s| s.last_arrival).max().unwrap_or(0);
        let to = active_until(ended, last_arrival, end);
        let mut m = Map::new();
        m.insert("cc".into(), json!(f.cc_name));
        m.insert("throughput_bps".into(), num(rate(c.received_bytes - b.received_bytes, from, to)));
        let delivered = c.delivered_bytes.saturating_sub(b.delivered_bytes);
        m.insert("goodput_bps".into(), num(rate(delivered, from, to)));
        m.insert("delivered_bytes".into(), json!(delivered));
        delay_fields(&mut m, "rtt", &f.rtt());
        counter_fields(&mut m, &c, &b);
        m.insert("reorder_peak_segments".into(), json!(f.held_peak));
        m.insert("fct_s".into(), f.completed_at.map_or(Value::Null, |t| num((t - f.start) as f64 * 1e-9)));
        // The connection (see docs/mptcp.md).
        m.insert("scheduler".into(), json!(f.sched.name()));
        m.insert("data_reorder_peak_segments".into(), json!(f.rx.ooo_peak));
        m.insert("reorder_mean_segments".into(), num(f.held_mean(from, to)));
        m.insert("data_dup_segments".into(), json!(f.rx.dup_segs));
        delay_fields(&mut m, "app_delay", &f.app_delay);
        if let Some(z) = &f.data.sizes {
            // Writing applications (streams, Web): points of the delay CDF, and what
            // the application wrote against what left the send buffer, so an
            // overload (a stream above the paths' capacity) shows as a backlog.
            for ms in APP_DELAY_WITHIN_MS {
                m.insert(format!("app_delay_within_{ms}ms"), num(f.app_delay.fraction_at_most(ms as f64 * 1e-3)));
            }
            m.insert("app_rate_bps".into(), num(rate(z.written, f.start, to)));
            m.insert("send_backlog_bytes".into(), json!(f.data.unsent_written().unwrap_or(0)));
        }
        // Cost (wire Mbit sent x subflows.<k>.cost_per_mbit) and the scheduler's
        // own figures, by the names it gives them; per-subflow RTT bounds below.
        let cost: f64 = f.subs.iter().map(sub_cost).sum();
        m.insert("cost".into(), num(cost));
        let mut sched_metrics = Vec::new();
        f.sched.metrics(&mut |k, v| sched_metrics.push((k, v)));
        for &(k, v) in &sched_metrics {
            let v = match v {
                Metric::Count(c) => json!(c),
                Metric::Value(x) => num(x),
                Metric::AppDelayWithin(bound) => num(f.app_delay.fraction_at_most(bound)),
                Metric::RttWithin(_) => continue,
            };
            m.insert(k.into(), v);
        }
        // The receiver controller (docs/algorithms/popctl.md, rtsc.md).
        m.insert("receiver".into(), json!(f.rctl.name()));
        if !f.rctl.is_none() {
            let st = f.rctl.stats();
            m.insert("receiver_dupacks".into(), json!(st.dupacks));
            m.insert("receiver_offs".into(), json!(st.offs));
            m.insert("receiver_ons".into(), json!(st.ons));
            for (k, v) in f.rctl.metrics(to) {
                m.insert(format!("receiver_{k}"), num(v));
            }
        }
        f.app.summary(&mut m, to, num);
        let mut subs = Vec::with_capacity(f.subs.len());
        for s in &f.subs {
            let (c, b) = (s.counters(), s.base);
            let from = s.start.max(sim.warmup);
            let to = active_until(earliest(s.stop, ended), s.last_arrival, end);
            let mut m = Map::new();
            m.insert("throughput_bps".into(), num(rate(c.received_bytes - b.received_bytes, from, to)));
            delay_fields(&mut m, "rtt", &s.rtt);
            counter_fields(&mut m, &c, &b);
            m.insert("cost_per_mbit".into(), num(s.cost_per_mbit));
            m.insert("cost".into(), num(sub_cost(s)));
            for &(k, v) in &sched_metrics {
                if let Metric::RttWithin(bound) = v {
                    m.insert(k.into(), num(s.rtt.fraction_at_most(bound)));
                }
            }
            subs.push(Value::Object(m));
        }
        m.insert("subflows".into(), Value::Array(subs));
        m
    }
}

/// The links' summaries.
fn links_summary(sim: &mut Sim) -> Value {
    let end = sim.end;
    let mut links = Map::new();
    for (i, l) in sim.links.iter_mut().enumerate() {
        let b = sim.link_base[i];
        let q = *l.queue.stats();
        let cap_bits = l.capacity.bits_in_window(sim.warmup, end);
        // Utilization counts the packets at both window edges pro rata; tx_bytes
        // stays the whole packets finished inside the window.
        let tx_in_window = l.tx_bytes_at(end) - b.tx_sent;
        let tx_bytes = l.stats.tx_bytes - b.tx_bytes;
        let dequeued = q.dequeued - b.dequeued;
        let mut m = Map::new();
        m.insert("utilization".into(), num(tx_in_window * 8.0 / cap_bits));
        m.insert("drops".into(), json!((q.drops - b.queue_drops) + (l.stats.loss_drops - b.loss_drops)));
        m.insert("queue_drops".into(), json!(q.drops - b.queue_drops));
        m.insert("loss_drops".into(), json!(l.stats.loss_drops - b.loss_drops));
        m.insert("tx_bytes".into(), json!(tx_bytes));
        m.insert(
            "queue_delay_mean_s".into(),
            num(if dequeued > 0 { (q.sojourn_sum - b.sojourn_sum) as f64 * 1e-9 / dequeued as f64 } else { 0.0 }),
        );
        let p = l.queue_delay.percentiles(&[50.0, 95.0, 99.0]);
        m.insert("queue_delay_p50_s".into(), num(p[0]));
        m.insert("queue_delay_p95_s".into(), num(p[1]));
        m.insert("queue_delay_p99_s".into(), num(p[2]));
        links.insert(l.name.clone(), Value::Object(m));
    }
    Value::Object(links)
}

/// The run's own fields (`sim`).
fn run_summary(sim: &Sim, wall_s: f64) -> Value {
    let end = sim.end;
    let mut run = json!({
        "events": sim.processed,
        "packets": sim.delivered_packets,
        "wall_s": wall_s,
        "duration_s": end as f64 * 1e-9,
        "warmup_s": sim.warmup as f64 * 1e-9,
        "seed": sim.seed,
    });
    if let Some(reason) = &sim.stopped_early {
        run["stopped_early"] = json!(reason);
    }
    run
}

/// Quantiles per delay distribution in the `delay_cdf` table.
pub const CDF_POINTS: usize = 201;
/// Runs with more flows keep no `delay_cdf` table (it would outgrow the summary:
/// 1000 flows give 400 000 rows).
pub const CDF_MAX_FLOWS: usize = 1000;

/// Every flow's RTT and application-delay distributions over the measurement window
/// as CDF points (`flow`, `metric`: 0 RTT, 1 application delay; `q`, `delay_s`);
/// empty for runs of more than CDF_MAX_FLOWS flows.
pub fn delay_cdf(sim: &Sim) -> crate::Table {
    let mut t = crate::Table::new();
    for col in ["flow", "metric", "q", "delay_s"] {
        t.insert(col.into(), Vec::new());
    }
    if sim.flows.len() > CDF_MAX_FLOWS {
        return t;
    }
    for (i, f) in sim.flows.iter().enumerate() {
        for (metric, stats) in [(0.0, f.rtt()), (1.0, f.app_delay.clone())] {
            for (q, d) in stats.cdf(CDF_POINTS) {
                for (col, x) in [("flow", i as f64), ("metric", metric), ("q", q), ("delay_s", d)] {
                    t.get_mut(col).expect("column").push(x);
                }
            }
        }
    }
    t
}

/// The counts of [`COUNTERS`] since the warm-up (`c` now, `b` at its end), each
/// under its own name.
fn counter_fields(m: &mut Map<String, Value>, c: &FlowCounters, b: &FlowCounters) {
    for (k, (name, _)) in COUNTERS.iter().enumerate() {
        m.insert((*name).into(), json!(c.counts[k] - b.counts[k]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_streamed_summary_is_the_summary_serialised() {
        // Flow names out of order (the text sorts them as a JSON map does), two
        // subflows, a name that needs escaping, a link and a warm-up.
        let cfg: crate::config::Config = serde_json::from_value(json!({
            "duration_ns": 3_000_000_000u64, "seed": 4, "warmup_ns": 500_000_000u64, "sample_interval_ns": 0,
            "links": [{"name": "l", "capacity": {"kind": "constant", "bps": 5e6}, "delay_ns": 10_000_000u64,
                       "queue": {"kind": "droptail", "packets": 30}}],
            "flows": [{"name": "zeta", "cc": "reno", "app": {"kind": "bulk"}, "path": [0]},
                      {"name": "a \"b\"", "cc": "lia", "app": {"kind": "bulk"}, "subflows": [{"path": [0]}, {"path": [0]}]},
                      {"name": "Mid", "cc": "cubic", "app": {"kind": "file", "bytes": 100_000}, "path": [0]}]}))
        .unwrap();
        let mut sim = Sim::new(&cfg).unwrap();
        sim.run();
        let text = summary_json(&mut sim, 0.25);
        let value = summary(&mut sim, 0.25);
        assert_eq!(text, serde_json::to_string(&value).unwrap());
        assert_eq!(value["flows"].as_object().unwrap().len(), 3);
        assert!(value["flows"]["a \"b\""]["subflows"][1]["rtt_samples"].as_u64().unwrap() > 0);
    }

    #[test]
    fn every_counter_is_reported_under_its_own_name() {
        let cfg: crate::config::Config = serde_json::from_value(json!({
            "duration_ns": 1_000_000_000u64, "seed": 1, "sample_interval_ns": 0,
            "links": [{"name": "l", "capacity": {"kind": "constant", "bps": 5e6}, "delay_ns": 10_000_000u64,
                       "queue": {"kind": "droptail", "packets": 30}}],
            "flows": [{"name": "f", "cc": "reno", "app": {"kind": "bulk"}, "path": [0]}]}))
        .unwrap();
        let mut sim = Sim::new(&cfg).unwrap();
        let s = &mut sim.flows[FlowId(0)].subs[0];
        let st = &mut s.snd.stats;
        (st.sent_packets, st.retransmissions, st.losses, st.timeouts, st.reinjections) = (11, 12, 13, 14, 15);
        (st.rack_losses, st.lost_retransmissions, st.tlp_probes) = (16, 17, 18);
        (st.spurious_timeouts, st.undone_recoveries, st.recoveries, st.dsacks, st.rescues) = (19, 20, 21, 23, 25);
        s.drops = 22;
        s.stale_marks = 24;
        let want = [
            ("sent_packets", 11),
            ("retransmissions", 12),
            ("losses", 13),
            ("timeouts", 14),
            ("reinjections", 15),
            ("rack_losses", 16),
            ("lost_retransmissions", 17),
            ("tlp_probes", 18),
            ("spurious_timeouts", 19),
            ("undone_recoveries", 20),
            ("fast_recoveries", 21),
            ("drops", 22),
            ("dsacks", 23),
            ("stale_marks", 24),
            ("rescues", 25),
        ];
        assert_eq!(want.len(), COUNTERS.len());
        let v = summary(&mut sim, 0.0);
        for (name, n) in want {
            assert_eq!(v["flows"]["f"][name], json!(n), "flow {name}");
            assert_eq!(v["flows"]["f"]["subflows"][0][name], json!(n), "subflow {name}");
        }
    }
}
