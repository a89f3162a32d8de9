//! RED (Floyd & Jacobson 1993) with Floyd's "gentle" variant, parameterised as in
//! ns-2/ns-3: thresholds in packets, EWMA weight, max_p, idle-time correction.
//!
//! On each arrival the average is updated from the instantaneous length (before
//! the arrival); then
//!   avg <  min_th                 accept
//!   min_th <= avg < max_th        pb = max_p (avg - min_th) / (max_th - min_th)
//!   max_th <= avg < 2 max_th      gentle only: pb = max_p + (1 - max_p)(avg - max_th) / max_th
//!   above                         drop
//! and the arrival is dropped with pa = pb / (1 - count pb), count being the
//! packets accepted since the last drop, which spaces drops uniformly instead of
//! geometrically.

use super::{Entry, Fifo, QueueStats};
use super::{Queue, QueueEnv, MAX_WHOLE};
use mpcc_core::params::{need, param, Args, Info, Problem, Unit};
use mpcc_core::time::tx_time;
use mpcc_core::{Nanos, Rng};

/// The registry entry (listed in `queue/mod.rs`).
pub const INFO: Info = Info::new(
    "red",
    "Random Early Detection as in ns-2/ns-3 (min_th, max_th, max_p, weight, gentle)",
    "docs/links.md#queue-disciplines",
    &[
        param("min_th", f64::NAN, 0.0, MAX_WHOLE, "average queue (packets) where early drops start"),
        param("max_th", f64::NAN, 0.0, MAX_WHOLE, "average queue (packets) where the drop probability reaches max_p"),
        param("max_p", f64::NAN, 0.0, 1.0, "drop probability at max_th").above_min(),
        param("weight", f64::NAN, 0.0, 1.0, "EWMA weight of the average queue").above_min(),
        param("gentle", 0.0, 0.0, 1.0, "true: the probability rises to 1 between max_th and 2 max_th"),
        param("limit", f64::NAN, 1.0, MAX_WHOLE, "hard buffer limit in packets"),
        param(
            "mean_pktsize",
            1500.0,
            1.0,
            65000.0,
            "packet size assumed while the queue is idle (ns-2's mean_pktsize)",
        ),
    ],
)
.with_units(&[("gentle", Unit::Flag), ("limit", Unit::Whole), ("mean_pktsize", Unit::Size)])
.with_rule(thresholds);

fn thresholds(a: &Args) -> Result<(), Problem> {
    let p = |k: &str| a.get(k);
    need(a, &["min_th", "max_th", "max_p", "weight", "limit"])?;
    if p("min_th") >= p("max_th") {
        return Err(Problem::at("min_th", "min_th must be below max_th"));
    }
    Ok(())
}

pub fn build<P: Copy>(p: &dyn Fn(&str) -> f64, env: QueueEnv) -> Result<Queue<P>, Problem> {
    let params = RedParams {
        min_th: p("min_th"),
        max_th: p("max_th"),
        max_p: p("max_p"),
        weight: p("weight"),
        gentle: p("gentle") >= 0.5,
        limit: p("limit") as u64,
        mean_pktsize: p("mean_pktsize") as u32,
    };
    Ok(Queue::Red(Red::new(params, env.link_bps, env.rng).map_err(Problem::whole)?))
}

/// The configuration of a RED queue (same names as the scenario's `queue.red`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedParams {
    /// Thresholds on the average queue length, packets.
    pub min_th: f64,
    pub max_th: f64,
    /// Drop probability reached at `max_th`.
    pub max_p: f64,
    /// EWMA weight of the average (ns-2's q_weight).
    pub weight: f64,
    pub gentle: bool,
    /// Hard buffer limit, packets.
    pub limit: u64,
    /// Packet size assumed when ageing the average over an idle period, bytes.
    pub mean_pktsize: u32,
}

impl RedParams {
    pub fn validate(&self) -> Result<(), String> {
        let p = self;
        if !(p.min_th.is_finite() && p.min_th >= 0.0) {
            return Err(format!("queue.red.min_th must be a finite number >= 0, got {}", p.min_th));
        }
        if !(p.max_th.is_finite() && p.max_th > p.min_th) {
            return Err(format!(
                "queue.red.max_th must be finite and > min_th (min_th = {}), got {}",
                p.min_th, p.max_th
            ));
        }
        if !(p.max_p > 0.0 && p.max_p <= 1.0) {
            return Err(format!("queue.red.max_p must be in (0, 1], got {}", p.max_p));
        }
        if !(p.weight > 0.0 && p.weight <= 1.0) {
            return Err(format!("queue.red.weight must be in (0, 1], got {}", p.weight));
        }
        if p.limit == 0 {
            return Err("queue.red.limit must be >= 1 packet, got 0".into());
        }
        if p.mean_pktsize == 0 {
            return Err("queue.red.mean_pktsize must be >= 1 byte, got 0".into());
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Red<P> {
    params: RedParams,
    link_bps: f64,
    /// Packets of `mean_pktsize` the link could have sent per nanosecond.
    pkts_per_ns: f64,
    avg: f64,
    /// Packets accepted since the last drop while avg >= min_th.
    count: u64,
    idle: bool,
    /// When the link is expected to have become idle.
    idle_since: Nanos,
    rng: Rng,
    pub fifo: Fifo<P>,
    pub stats: QueueStats,
}

impl<P: Copy> Red<P> {
    /// `link_bps`: nominal rate of the link the queue feeds (for the idle-time
    /// correction; a variable-capacity link passes its initial or mean rate).
    pub fn new(params: RedParams, link_bps: f64, rng: Rng) -> Result<Self, String> {
        params.validate()?;
        if !(link_bps.is_finite() && link_bps > 0.0) {
            return Err(format!("RED link rate must be a finite number > 0 bps, got {link_bps}"));
        }
        Ok(Red {
            params,
            link_bps,
            pkts_per_ns: link_bps / (8.0 * params.mean_pktsize as f64) * 1e-9,
            avg: 0.0,
            count: 0,
            idle: true,
            idle_since: 0,
            rng,
            fifo: Fifo::new(),
            stats: QueueStats::default(),
        })
    }

    /// The current average queue length, packets.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    pub fn params(&self) -> &RedParams {
        &self.params
    }

    /// The base drop probability pb for an average `avg` (1 in the forced region).
    pub fn base_prob(&self, avg: f64) -> f64 {
        let p = &self.params;
        if avg < p.min_th {
            0.0
        } else if avg < p.max_th {
            p.max_p * (avg - p.min_th) / (p.max_th - p.min_th)
        } else if p.gentle && avg < 2.0 * p.max_th {
            p.max_p + (1.0 - p.max_p) * (avg - p.max_th) / p.max_th
        } else {
            1.0
        }
    }

    /// The drop probability of an arrival after `count` accepted packets.
    #[inline]
    pub fn count_prob(pb: f64, count: u64) -> f64 {
        let c = count as f64 * pb;
        if c < 1.0 {
            (pb / (1.0 - c)).min(1.0)
        } else {
            1.0
        }
    }

    #[inline]
    fn update_avg(&mut self, now: Nanos) {
        let w = self.params.weight;
        if self.idle {
            // As if m packets of mean size had left an empty queue meanwhile.
            let m = self.pkts_per_ns * now.saturating_sub(self.idle_since) as f64;
            self.avg *= (1.0 - w).powf(m);
            self.idle = false;
        }
        self.avg = (1.0 - w) * self.avg + w * self.fifo.len() as f64;
    }

    /// True if the AQM drops this arrival.
    #[inline]
    fn early_drop(&mut self) -> bool {
        let p = &self.params;
        // ns-2 never drops early while at most one packet is queued.
        if self.avg < p.min_th || self.fifo.len() <= 1 {
            self.count = 0;
            return false;
        }
        let forced_above = if p.gentle { 2.0 * p.max_th } else { p.max_th };
        if self.avg >= forced_above {
            self.count = 0;
            return true;
        }
        let pa = Self::count_prob(self.base_prob(self.avg), self.count);
        if self.rng.uniform() < pa {
            self.count = 0;
            true
        } else {
            self.count += 1;
            false
        }
    }

    #[inline]
    pub fn enqueue(&mut self, pkt: P, bytes: u32, now: Nanos) -> bool {
        self.update_avg(now);
        let aqm = self.early_drop();
        if self.fifo.len() as u64 >= self.params.limit {
            self.count = 0;
            return false;
        }
        if aqm {
            self.stats.aqm_drops += 1;
            return false;
        }
        self.fifo.push(Entry { pkt, bytes, enqueued_at: now });
        true
    }

    #[inline]
    pub fn dequeue(&mut self, now: Nanos) -> Option<Entry<P>> {
        let e = self.fifo.pop()?;
        if self.fifo.is_empty() {
            // The link goes idle once this packet is serialised at the nominal
            // rate; estimating it here keeps RED independent of whether the
            // simulator polls an empty queue.
            self.idle = true;
            self.idle_since = now + tx_time(e.bytes, self.link_bps);
        }
        Some(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Queue;

    fn params(gentle: bool) -> RedParams {
        RedParams { min_th: 5.0, max_th: 15.0, max_p: 0.1, weight: 1.0, gentle, limit: 1000, mean_pktsize: 1500 }
    }

    fn red(p: RedParams, seed: u64) -> Red<u32> {
        Red::new(p, 12e6, Rng::stream(seed, 1)).unwrap()
    }

    #[test]
    fn average_follows_ewma_and_ages_when_idle() {
        let w = 0.25;
        let mut q = red(RedParams { min_th: 50.0, max_th: 100.0, weight: w, ..params(false) }, 1);
        let mut expect = 0.0;
        for i in 0..8u32 {
            assert!(q.enqueue(i, 1500, 0));
            expect = (1.0 - w) * expect + w * i as f64; // length before the arrival
            assert!((q.avg() - expect).abs() < 1e-12, "arrival {i}: {} vs {expect}", q.avg());
        }
        // Drain at t = 1 ms; the last packet leaves the link 1 ms later (1500 B at 12 Mb/s).
        while q.dequeue(1_000_000).is_some() {}
        // 10 ms idle at 1000 packets/s of mean size = 10 virtual departures.
        assert!(q.enqueue(9, 1500, 12_000_000));
        expect = expect * (1.0 - w).powi(10) * (1.0 - w);
        assert!((q.avg() - expect).abs() < 1e-12, "{} vs {expect}", q.avg());
    }

    #[test]
    fn base_probability_ramps() {
        let q = red(params(true), 1);
        assert_eq!(q.base_prob(4.9), 0.0);
        assert!((q.base_prob(10.0) - 0.05).abs() < 1e-12);
        assert!((q.base_prob(15.0) - 0.1).abs() < 1e-12);
        assert!((q.base_prob(22.5) - 0.55).abs() < 1e-12);
        assert_eq!(q.base_prob(30.0), 1.0);
        let q = red(params(false), 1);
        assert_eq!(q.base_prob(15.0), 1.0);
    }

    /// Expected drop fraction when every arrival sees the same pb: the mean of the
    /// inter-drop distribution implied by pa = pb / (1 - count pb).
    fn expected_fraction(pb: f64) -> f64 {
        let (mut mean, mut survive, mut k) = (0.0, 1.0, 0u64);
        while survive > 0.0 {
            mean += survive;
            survive *= 1.0 - Red::<u32>::count_prob(pb, k);
            k += 1;
        }
        1.0 / mean
    }

    /// Holds the queue at `level` packets (weight 1 makes avg = level) and returns
    /// the measured drop fraction.
    fn drop_fraction(p: RedParams, level: usize, n: u64) -> f64 {
        let mut q = Queue::Red(red(p, 42));
        while q.len_packets() < level {
            q.enqueue(0u32, 1500, 0);
        }
        let before = q.stats().drops;
        for _ in 0..n {
            if q.enqueue(0u32, 1500, 0) {
                q.dequeue(0, &mut |_| {});
            }
        }
        (q.stats().drops - before) as f64 / n as f64
    }

    #[test]
    fn drop_rate_follows_linear_ramp_between_thresholds() {
        let n = 200_000;
        for level in [7usize, 10, 14] {
            let pb = 0.1 * (level as f64 - 5.0) / 10.0;
            let want = expected_fraction(pb);
            let got = drop_fraction(params(false), level, n);
            assert!((got - want).abs() < 0.05 * want, "level {level}: {got} vs {want}");
        }
        // Uniform spacing roughly doubles the drop rate relative to pb.
        assert!((expected_fraction(0.05) - 2.0 * 0.05 / 1.05).abs() < 1e-9);
        assert_eq!(drop_fraction(params(false), 15, 1000), 1.0);
        assert_eq!(drop_fraction(params(false), 4, 1000), 0.0);
    }

    #[test]
    fn gentle_ramps_from_max_p_to_one_above_max_th() {
        let n = 100_000;
        for level in [15usize, 20, 25] {
            let pb = 0.1 + 0.9 * (level as f64 - 15.0) / 15.0;
            let want = expected_fraction(pb);
            let got = drop_fraction(params(true), level, n);
            assert!((got - want).abs() < 0.03 * want, "level {level}: {got} vs {want}");
        }
        assert_eq!(drop_fraction(params(true), 30, 1000), 1.0);
    }

    #[test]
    fn hard_limit_and_no_early_drop_of_near_empty_queue() {
        let p = RedParams { limit: 3, min_th: 0.0, max_th: 1.0, ..params(false) };
        let mut q = Queue::Red(red(p, 3));
        assert!(q.enqueue(1u32, 100, 0)); // empty queue: never dropped early
        assert!(q.enqueue(2u32, 100, 0)); // one packet queued: still not
        assert!(!q.enqueue(3u32, 100, 0)); // avg 2 >= max_th: forced
        assert_eq!(q.stats().aqm_drops, 1);
        let mut q = Queue::Red(red(RedParams { limit: 2, ..params(false) }, 3));
        assert!(q.enqueue(1u32, 100, 0) && q.enqueue(2u32, 100, 0));
        assert!(!q.enqueue(3u32, 100, 0));
        assert_eq!((q.stats().drops, q.stats().aqm_drops), (1, 0));
    }

    #[test]
    fn validation_names_fields() {
        let bad = |p: RedParams| Red::<u32>::new(p, 1e6, Rng::stream(1, 1)).unwrap_err();
        assert!(bad(RedParams { max_th: 5.0, ..params(false) }).contains("queue.red.max_th"));
        assert!(bad(RedParams { max_p: 0.0, ..params(false) }).contains("queue.red.max_p must be in (0, 1]"));
        assert!(bad(RedParams { weight: 1.5, ..params(false) }).contains("queue.red.weight"));
        assert!(bad(RedParams { limit: 0, ..params(false) }).contains("queue.red.limit"));
        assert!(Red::<u32>::new(params(false), 0.0, Rng::stream(1, 1)).unwrap_err().contains("link rate"));
    }
}
