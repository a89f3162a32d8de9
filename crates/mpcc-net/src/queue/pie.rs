//! PIE, Proportional Integral controller Enhanced (RFC 8033): arrivals are
//! dropped at random with a probability that a PI controller moves every
//! `t_update` towards keeping the queueing delay at `target`.
//!
//! The queueing delay is the sojourn time of the last packet served (RFC 8033
//! section 5.2 allows timestamps instead of a departure-rate estimate), 0 once
//! the queue has emptied. The periodic update runs lazily: on each enqueue or
//! dequeue, every update whose time has come runs first, in order, with the
//! delay known then (the queue changes only at those calls, so no update sees
//! anything else). Derandomisation and ECN marking (sections 5.1, 5.1.1 of the
//! RFC, both optional) are left out.

use super::{Entry, Fifo, Queue, QueueEnv, QueueStats, MAX_DURATION, MAX_WHOLE};
use mpcc_core::params::{param, Info, Problem, Unit};
use mpcc_core::{Nanos, Rng};

/// The registry entry (listed in `queue/mod.rs`).
pub const INFO: Info = Info::new(
    "pie",
    "PIE, RFC 8033: random early drop with a PI controller on the queueing delay (target, t_update, alpha, beta)",
    "docs/links.md#pie-proportional-integral-controller-enhanced",
    &[
        param("target_ns", 15e6, 1.0, MAX_DURATION, "queueing delay the controller aims at (RFC 8033: 15 ms)"),
        param("t_update_ns", 15e6, 1.0, MAX_DURATION, "time between updates of the drop probability (RFC 8033: 15 ms)"),
        param("alpha", 0.125, 0.0, 100.0, "weight of the delay error, per second (RFC 8033: 0.125)"),
        param("beta", 1.25, 0.0, 100.0, "weight of the delay change, per second (RFC 8033: 1.25)"),
        param(
            "max_burst_ns",
            150e6,
            0.0,
            MAX_DURATION,
            "burst allowed through without drops after a calm period (RFC 8033: 150 ms)",
        ),
        param("limit", 1000.0, 1.0, MAX_WHOLE, "hard buffer limit in packets"),
        param("mtu", 1500.0, 1.0, 65000.0, "no early drop while the queue holds at most two of these (bytes)"),
    ],
)
.with_units(&[
    ("target_ns", Unit::Duration),
    ("t_update_ns", Unit::Duration),
    ("max_burst_ns", Unit::Duration),
    ("limit", Unit::Whole),
    ("mtu", Unit::Size),
]);

pub fn build<P: Copy>(p: &dyn Fn(&str) -> f64, env: QueueEnv) -> Result<Queue<P>, Problem> {
    let pie = Pie {
        target: p("target_ns") as Nanos,
        t_update: p("t_update_ns") as Nanos,
        alpha: p("alpha"),
        beta: p("beta"),
        max_burst: p("max_burst_ns") as Nanos,
        limit: p("limit") as u64,
        mtu: p("mtu") as u64,
        drop_prob: 0.0,
        qdelay_old: 0,
        burst_allowance: p("max_burst_ns") as Nanos,
        next_update: p("t_update_ns") as Nanos,
        rng: env.rng,
        fifo: Fifo::new(),
        stats: QueueStats::default(),
    };
    Ok(Queue::Pie(pie))
}

#[derive(Clone, Debug)]
pub struct Pie<P> {
    target: Nanos,
    t_update: Nanos,
    alpha: f64,
    beta: f64,
    max_burst: Nanos,
    limit: u64,
    mtu: u64,
    drop_prob: f64,
    qdelay_old: Nanos,
    burst_allowance: Nanos,
    next_update: Nanos,
    rng: Rng,
    pub fifo: Fifo<P>,
    pub stats: QueueStats,
}

impl<P: Copy> Pie<P> {
    /// The current drop probability.
    pub fn drop_prob(&self) -> f64 {
        self.drop_prob
    }

    fn qdelay(&self) -> Nanos {
        if self.fifo.is_empty() {
            0
        } else {
            self.stats.last_sojourn
        }
    }

    /// RFC 8033 section 4.2 (with the auto-tuning of 4.2 and the cap of 5.3).
    fn update(&mut self) {
        let qdelay = self.qdelay();
        let secs = |ns: Nanos| ns as f64 * 1e-9;
        let mut p =
            self.alpha * (secs(qdelay) - secs(self.target)) + self.beta * (secs(qdelay) - secs(self.qdelay_old));
        // Small probabilities move in small steps, so that the controller
        // reacts in proportion at every load.
        let scale = [(1e-6, 2048.0), (1e-5, 512.0), (1e-4, 128.0), (1e-3, 32.0), (1e-2, 8.0), (1e-1, 2.0)];
        if let Some(&(_, s)) = scale.iter().find(|&&(below, _)| self.drop_prob < below) {
            p /= s;
        }
        // At most +2 % per update once above 10 %, so one burst cannot swing it.
        if self.drop_prob >= 0.1 && p > 0.02 {
            p = 0.02;
        }
        self.drop_prob += p;
        if qdelay == 0 && self.qdelay_old == 0 {
            self.drop_prob *= 0.98; // decay while idle
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        self.burst_allowance = self.burst_allowance.saturating_sub(self.t_update);
        if self.drop_prob == 0.0 && qdelay < self.target / 2 && self.qdelay_old < self.target / 2 {
            self.burst_allowance = self.max_burst;
        }
        self.qdelay_old = qdelay;
    }

    fn catch_up(&mut self, now: Nanos) {
        while now >= self.next_update {
            self.update();
            self.next_update += self.t_update;
        }
    }

    /// RFC 8033 section 4.1.
    #[inline]
    pub fn enqueue(&mut self, pkt: P, bytes: u32, now: Nanos) -> bool {
        self.catch_up(now);
        if self.fifo.len() as u64 >= self.limit {
            return false;
        }
        let calm = self.qdelay_old < self.target / 2 && self.drop_prob < 0.2;
        let early =
            self.burst_allowance == 0 && !calm && self.fifo.bytes > 2 * self.mtu && self.rng.bernoulli(self.drop_prob);
        if early {
            self.stats.aqm_drops += 1;
            return false;
        }
        self.fifo.push(Entry { pkt, bytes, enqueued_at: now });
        true
    }

    #[inline]
    pub fn dequeue(&mut self, now: Nanos) -> Option<Entry<P>> {
        self.catch_up(now);
        self.fifo.pop()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpcc_core::params::Params;

    fn pie(params: Params) -> Queue<u32> {
        super::super::build("pie", &params, QueueEnv { link_bps: 1e6, rng: Rng::stream(1, 1) }).unwrap()
    }

    fn inner(q: &mut Queue<u32>) -> &mut Pie<u32> {
        match q {
            Queue::Pie(p) => p,
            _ => unreachable!(),
        }
    }

    /// A standing queue of 50 ms (above the 15 ms target) raises the drop
    /// probability once the burst allowance is spent; below target it decays to 0.
    #[test]
    fn drop_probability_follows_the_delay() {
        let mut q = pie(Params::new());
        let ms = 1_000_000;
        // 10 packets every ms, one served per ms: the sojourn time grows.
        let (mut t, mut id) = (0, 0);
        while t < 400 * ms {
            for _ in 0..10 {
                q.enqueue(id, 1500, t);
                id += 1;
            }
            q.dequeue(t, &mut |_| {});
            t += ms;
        }
        let p = inner(&mut q).drop_prob();
        assert!(p > 0.05, "drop probability {p}");
        assert!(q.stats().aqm_drops > 0);
        // Drain, then stay idle: the probability comes back down.
        while q.dequeue(t, &mut |_| {}).is_some() {
            t += ms;
        }
        t += 20_000 * ms;
        q.enqueue(id, 1500, t);
        assert!(inner(&mut q).drop_prob() < p / 10.0, "{}", inner(&mut q).drop_prob());
    }

    /// Under target nothing is dropped early, and the hard limit holds.
    #[test]
    fn no_early_drop_below_target_and_limit_holds() {
        let mut q = pie(Params::new().with("limit", 5.0));
        for i in 0..5 {
            assert!(q.enqueue(i, 1500, i as u64));
        }
        assert!(!q.enqueue(9, 1500, 10));
        assert_eq!((q.stats().drops, q.stats().aqm_drops), (1, 0));
    }

    #[test]
    fn parameters_are_checked_against_the_entry() {
        let env = || QueueEnv { link_bps: 1e6, rng: Rng::stream(1, 1) };
        let e = super::super::build::<u32>("pie", &Params::new().with("target_ns", 0.0), env()).unwrap_err();
        assert_eq!(e.line("queue"), "queue.target_ns: 0; allowed: 1 to 1000000000000000");
        let e = super::super::build::<u32>("pie", &Params::new().with("limit", 2.5), env()).unwrap_err();
        assert_eq!(e.line("queue"), "queue.limit: 2.5; allowed: a whole number");
    }
}
