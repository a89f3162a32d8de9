//! The time series (`flow_series`, `link_series`; docs/metrics.md). Each column
//! is declared with its name and the value it records, so no column depends on
//! its position to be labelled right: adding one is one line in a table here.

use crate::flow::{Flow, Subflow};
use crate::ids::{Arena, FlowId, LinkId};
use crate::link::Link;
use crate::metrics::Columns;
use mpcc_algo::sched::{Metric, Scheduler};
use mpcc_algo::CongestionControl;
use mpcc_core::Nanos;

/// What a `flow_series` row reads: one subflow at a sample time.
pub struct SubflowRow<'a> {
    pub t: f64,
    pub flow: usize,
    pub sub: usize,
    pub f: &'a Flow,
    pub s: &'a Subflow,
}

/// What a `link_series` row reads: one link at a sample time, with the two values
/// that need the sampler's state or a mutable link.
pub struct LinkRow<'a> {
    pub t: f64,
    pub link: usize,
    pub l: &'a Link,
    /// Mean sojourn of the packets dequeued since the previous sample.
    pub sojourn_mean_s: f64,
    pub capacity_bps: f64,
}

/// A column: its name and the value it records from a row.
pub type FlowColumn = (&'static str, fn(&SubflowRow<'_>) -> f64);
pub type LinkColumn = (&'static str, fn(&LinkRow<'_>) -> f64);
type Column<R> = (&'static str, fn(&R) -> f64);

/// `flow_series`: (name, value) per column.
pub const FLOW_COLUMNS: &[FlowColumn] = &[
    ("t_s", |r| r.t),
    ("flow", |r| r.flow as f64),
    ("subflow", |r| r.sub as f64),
    ("cwnd", |r| r.f.cc.cwnd(r.sub)),
    ("ssthresh", |r| r.f.cc.ssthresh(r.sub)),
    ("srtt_s", |r| r.s.snd.rtt.srtt as f64 * 1e-9),
    ("rtt_s", |r| r.s.snd.rtt.latest as f64 * 1e-9),
    ("in_flight_bytes", |r| r.s.snd.pipe as f64 * r.s.snd.mss() as f64),
    ("sent_bytes", |r| r.s.snd.stats.sent_bytes as f64),
    ("delivered_bytes", |r| r.f.delivered_bytes as f64),
    ("received_bytes", |r| r.s.rcv.received_bytes as f64),
    ("retransmissions", |r| r.s.snd.stats.retransmissions as f64),
    ("losses", |r| r.s.snd.stats.losses as f64),
    ("timeouts", |r| r.s.snd.stats.timeouts as f64),
    ("ooo_segments", |r| r.s.rcv.ooo_segs as f64),
    ("reinjections", |r| r.s.snd.stats.reinjections as f64),
    ("data_ooo_segments", |r| r.f.rx.ooo.len as f64),
];

/// `link_series`: (name, value) per column.
pub const LINK_COLUMNS: &[LinkColumn] = &[
    ("t_s", |r| r.t),
    ("link", |r| r.link as f64),
    ("queue_packets", |r| r.l.queue.len_packets() as f64),
    ("queue_bytes", |r| r.l.queue.len_bytes() as f64),
    ("tx_bytes", |r| r.l.stats.tx_bytes as f64),
    ("drops", |r| (r.l.queue.stats().drops + r.l.stats.loss_drops) as f64),
    ("sojourn_mean_s", |r| r.sojourn_mean_s),
    ("capacity_bps", |r| r.capacity_bps),
];

/// An empty table with these columns.
pub fn table<R>(cols: &[Column<R>]) -> Columns {
    Columns::new(&cols.iter().map(|c| c.0).collect::<Vec<_>>())
}

/// Appends one row: each column gets the value its own entry reads.
#[inline]
fn push<R>(out: &mut Columns, cols: &[Column<R>], row: &R) {
    debug_assert!(out.names.iter().zip(cols).all(|(n, c)| *n == c.0));
    for (data, (_, value)) in out.data.iter_mut().zip(cols) {
        data.push(value(row));
    }
}

/// One `flow_series` row per subflow alive at `now`.
pub fn sample_flows(out: &mut Columns, now: Nanos, flows: &Arena<FlowId, Flow>) {
    let t = now as f64 * 1e-9;
    for (i, f) in flows.iter().enumerate() {
        if now < f.start {
            continue; // nothing to plot before the flow exists
        }
        for (j, s) in f.subs.iter().enumerate() {
            if now < s.start || s.stop.is_some_and(|t| now >= t) {
                continue; // nor outside the subflow's life
            }
            push(out, FLOW_COLUMNS, &SubflowRow { t, flow: i, sub: j, f, s });
        }
    }
}

/// One `link_series` row per link; `last` holds each link's (dequeued, sojourn
/// sum) at the previous sample.
pub fn sample_links(out: &mut Columns, now: Nanos, links: &mut Arena<LinkId, Link>, last: &mut [(u64, u128)]) {
    let t = now as f64 * 1e-9;
    for (i, l) in links.iter_mut().enumerate() {
        let q = *l.queue.stats();
        let (d0, s0) = last[i];
        let sojourn_mean_s =
            if q.dequeued > d0 { (q.sojourn_sum - s0) as f64 * 1e-9 / (q.dequeued - d0) as f64 } else { 0.0 };
        last[i] = (q.dequeued, q.sojourn_sum);
        let capacity_bps = l.capacity.rate_at(now);
        push(out, LINK_COLUMNS, &LinkRow { t, link: i, l, sojourn_mean_s, capacity_bps });
    }
}

/// `metric_series`: each controller's and scheduler's own figures (their `metrics()`:
/// LIA's alpha, OLIA's sets, TSC's rates, ...), one row per subflow alive at a
/// sample, a column per figure, named `cc.NAME` or `sched.NAME` (a connection's
/// scheduler figures repeated on each of its subflows' rows). Columns appear as
/// figures are first reported; earlier rows read NaN there, as do rows of flows
/// whose controller has no such figure. Kept only when asked (`metric_series`).
#[derive(Default)]
pub struct MetricSeries {
    pub names: Vec<String>,
    pub data: Vec<Vec<f64>>,
    rows: usize,
}

impl MetricSeries {
    pub fn new() -> MetricSeries {
        let mut m = MetricSeries::default();
        for key in ["t_s", "flow", "subflow"] {
            m.column(key, "");
        }
        m
    }

    /// The column of `prefix` + `name`, added (NaN for the rows before) when new.
    /// A linear search: a handful of columns, read at sample times only.
    fn column(&mut self, prefix: &str, name: &str) -> usize {
        let found = self
            .names
            .iter()
            .position(|n| n.len() == prefix.len() + name.len() && n.starts_with(prefix) && n.ends_with(name));
        found.unwrap_or_else(|| {
            self.names.push(format!("{prefix}{name}"));
            self.data.push(vec![f64::NAN; self.rows]);
            self.names.len() - 1
        })
    }

    fn set(&mut self, col: usize, value: f64) {
        *self.data[col].last_mut().expect("a row was started") = value;
    }

    /// One row per subflow alive at `now`.
    pub fn sample(&mut self, now: Nanos, flows: &Arena<FlowId, Flow>) {
        let t = now as f64 * 1e-9;
        for (i, f) in flows.iter().enumerate() {
            if now < f.start {
                continue;
            }
            for (j, s) in f.subs.iter().enumerate() {
                if now < s.start || s.stop.is_some_and(|t| now >= t) {
                    continue;
                }
                self.rows += 1;
                for col in &mut self.data {
                    col.push(f64::NAN);
                }
                self.set(0, t);
                self.set(1, i as f64);
                self.set(2, j as f64);
                f.cc.metrics(j, &mut |name, value| {
                    let col = self.column("cc.", name);
                    self.set(col, value);
                });
                f.sched.metrics(&mut |name, metric| {
                    let value = match metric {
                        Metric::Count(n) => n as f64,
                        Metric::Value(v) => v,
                        // Fractions of delay samples within a bound: summary figures only.
                        Metric::AppDelayWithin(_) | Metric::RttWithin(_) => return,
                    };
                    let col = self.column("sched.", name);
                    self.set(col, value);
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::packet::Packet;
    use serde_json::json;

    /// Asserts that `out`'s last row holds `want`, column by column and by name,
    /// with every expected value distinct, so that two swapped columns would fail.
    fn assert_named(out: &Columns, want: &[(&str, f64)]) {
        for (i, a) in want.iter().enumerate() {
            assert!(want[i + 1..].iter().all(|b| b.1 != a.1), "test values must differ: {a:?}");
        }
        assert_eq!(out.names.len(), want.len(), "{:?}", out.names);
        for (name, v) in want {
            let k = out.names.iter().position(|n| n == name).unwrap_or_else(|| panic!("no column {name}"));
            assert_eq!(out.data[k].last().copied(), Some(*v), "column {name}");
        }
    }

    /// One link and one two-subflow flow, built but not run.
    fn world() -> (Arena<LinkId, Link>, Arena<FlowId, Flow>) {
        let cfg: Config = serde_json::from_value(json!({
            "duration_ns": 1_000_000_000u64, "seed": 1, "sample_interval_ns": 0,
            "links": [{"name": "l", "capacity": {"kind": "constant", "bps": 5e6}, "delay_ns": 10_000_000u64,
                       "queue": {"kind": "droptail", "packets": 30}, "loss": {"kind": "none"}}],
            "flows": [{"name": "f", "cc": "lia", "app": {"kind": "bulk"}, "subflows": [{"path": [0]}, {"path": [0]}]}]}))
        .unwrap();
        let links = crate::build::links(&cfg).unwrap();
        let flows = crate::build::flows(&cfg, &links).unwrap();
        (links.into(), flows.into())
    }

    #[test]
    fn every_flow_column_records_the_value_it_is_named_for() {
        let (_, mut flows) = world();
        let f = &mut flows[FlowId(0)];
        f.delivered_bytes = 1001;
        f.rx.ooo.len = 1002;
        let s = &mut f.subs[1];
        (s.snd.stats.sent_bytes, s.snd.stats.retransmissions, s.snd.stats.losses) = (2001, 2002, 2003);
        (s.snd.stats.timeouts, s.snd.stats.reinjections) = (2004, 2005);
        (s.rcv.received_bytes, s.rcv.ooo_segs) = (2006, 2007);
        (s.snd.rtt.srtt, s.snd.rtt.latest, s.snd.pipe) = (3_000_000, 4_000_000, 5);
        let mut out = table(FLOW_COLUMNS);
        sample_flows(&mut out, 1_500_000_000, &flows);
        let f = &flows[FlowId(0)];
        assert_named(
            &out,
            &[
                ("t_s", 1.5),
                ("flow", 0.0),
                ("subflow", 1.0),
                ("cwnd", f.cc.cwnd(1)),
                ("ssthresh", f.cc.ssthresh(1)),
                ("srtt_s", 0.003),
                ("rtt_s", 0.004),
                ("in_flight_bytes", 5.0 * 1448.0),
                ("sent_bytes", 2001.0),
                ("delivered_bytes", 1001.0),
                ("received_bytes", 2006.0),
                ("retransmissions", 2002.0),
                ("losses", 2003.0),
                ("timeouts", 2004.0),
                ("ooo_segments", 2007.0),
                ("reinjections", 2005.0),
                ("data_ooo_segments", 1002.0),
            ],
        );
    }

    #[test]
    fn every_link_column_records_the_value_it_is_named_for() {
        let (mut links, _) = world();
        let l = &mut links[LinkId(0)];
        let p = Packet::data(0, 0, 1500, 0);
        for _ in 0..4 {
            assert!(l.queue.enqueue(p, p.bytes, 0));
        }
        assert!(l.queue.dequeue(500_000_000, &mut |_| {}).is_some(), "one packet after 0.5 s in the queue");
        (l.stats.tx_bytes, l.stats.loss_drops) = (7001, 7002);
        let mut out = table(LINK_COLUMNS);
        sample_links(&mut out, 2_000_000_000, &mut links, &mut [(0, 0)]);
        assert_named(
            &out,
            &[
                ("t_s", 2.0),
                ("link", 0.0),
                ("queue_packets", 3.0),
                ("queue_bytes", 4500.0),
                ("tx_bytes", 7001.0),
                ("drops", 7002.0),
                ("sojourn_mean_s", 0.5),
                ("capacity_bps", 5e6),
            ],
        );
    }
}
