//! CoDel (RFC 8289): drops at the head when the sojourn time has stayed above
//! `target` for at least `interval`, then at times spaced interval / sqrt(count),
//! following the RFC's pseudo-code (including its Linux-derived re-entry rule).

use super::{Entry, Fifo, QueueStats};
use super::{Queue, QueueEnv, MAX_DURATION, MAX_WHOLE};
use mpcc_core::params::{param, Info, Problem, Unit};
use mpcc_core::Nanos;

/// The registry entry (listed in `queue/mod.rs`).
pub const INFO: Info = Info::new(
    "codel",
    "CoDel, RFC 8289 (target, interval; drop spacing interval/sqrt(count))",
    "docs/links.md#queue-disciplines",
    &[
        param("target_ns", 5e6, 1.0, MAX_DURATION, "acceptable standing queue delay (RFC 8289: 5 ms)"),
        param("interval_ns", 1e8, 1.0, MAX_DURATION, "time the delay may stay above target (RFC 8289: 100 ms)"),
        param("limit", 1000.0, 1.0, MAX_WHOLE, "hard buffer limit in packets"),
        param("mtu", 1500.0, 1.0, 65000.0, "no drop while the queue holds at most this many bytes"),
    ],
)
.with_units(&[
    ("target_ns", Unit::Duration),
    ("interval_ns", Unit::Duration),
    ("limit", Unit::Whole),
    ("mtu", Unit::Size),
]);

pub fn build<P: Copy>(p: &dyn Fn(&str) -> f64, _: QueueEnv) -> Result<Queue<P>, Problem> {
    let codel = Codel::new(p("target_ns") as Nanos, p("interval_ns") as Nanos, p("limit") as u64, p("mtu") as u32);
    Ok(Queue::Codel(codel.map_err(Problem::whole)?))
}

#[derive(Clone, Debug)]
pub struct Codel<P> {
    target: Nanos,
    interval: Nanos,
    limit: u64,
    /// No drop while the queue holds at most this many bytes (RFC: one MTU).
    mtu: u32,
    /// 0 = sojourn not above target; else when it will have been for `interval`.
    first_above_time: Nanos,
    drop_next: Nanos,
    count: u32,
    lastcount: u32,
    dropping: bool,
    pub fifo: Fifo<P>,
    pub stats: QueueStats,
}

impl<P: Copy> Codel<P> {
    pub fn new(target_ns: Nanos, interval_ns: Nanos, limit: u64, mtu: u32) -> Result<Self, String> {
        if target_ns == 0 {
            return Err("queue.codel.target_ns must be > 0 (RFC 8289 default 5 ms)".into());
        }
        if interval_ns == 0 {
            return Err("queue.codel.interval_ns must be > 0 (RFC 8289 default 100 ms)".into());
        }
        if limit == 0 {
            return Err("queue.codel.limit must be >= 1 packet, got 0".into());
        }
        if mtu == 0 {
            return Err("queue.codel.mtu must be >= 1 byte, got 0".into());
        }
        Ok(Codel {
            target: target_ns,
            interval: interval_ns,
            limit,
            mtu,
            first_above_time: 0,
            drop_next: 0,
            count: 0,
            lastcount: 0,
            dropping: false,
            fifo: Fifo::new(),
            stats: QueueStats::default(),
        })
    }

    /// Whether the queue is in its dropping state, and the drop count.
    pub fn state(&self) -> (bool, u32) {
        (self.dropping, self.count)
    }

    #[inline]
    pub fn enqueue(&mut self, pkt: P, bytes: u32, now: Nanos) -> bool {
        if self.fifo.len() as u64 >= self.limit {
            return false;
        }
        self.fifo.push(Entry { pkt, bytes, enqueued_at: now });
        true
    }

    #[inline]
    fn control_law(&self, t: Nanos, count: u32) -> Nanos {
        // count >= 1 except after a u32 wrap; guard the division anyway.
        t + (self.interval as f64 / (count.max(1) as f64).sqrt()).round() as Nanos
    }

    /// Pops the head and says whether it may be dropped (RFC 8289 `dodequeue`).
    #[inline]
    fn dodequeue(&mut self, now: Nanos) -> (Option<Entry<P>>, bool) {
        let Some(e) = self.fifo.pop() else {
            self.first_above_time = 0;
            return (None, false);
        };
        let sojourn = now.saturating_sub(e.enqueued_at);
        let mut ok_to_drop = false;
        if sojourn < self.target || self.fifo.bytes <= self.mtu as u64 {
            self.first_above_time = 0;
        } else if self.first_above_time == 0 {
            self.first_above_time = now + self.interval;
        } else if now >= self.first_above_time {
            ok_to_drop = true;
        }
        (Some(e), ok_to_drop)
    }

    #[inline]
    fn drop(&mut self, e: Entry<P>, on_drop: &mut impl FnMut(P)) {
        self.stats.record_drop(e.bytes);
        self.stats.aqm_drops += 1;
        on_drop(e.pkt);
    }

    #[inline]
    pub fn dequeue(&mut self, now: Nanos, on_drop: &mut impl FnMut(P)) -> Option<Entry<P>> {
        let (mut head, mut ok_to_drop) = self.dodequeue(now);
        if self.dropping {
            if !ok_to_drop {
                self.dropping = false;
            }
            // A large backlog may call for several drops at once.
            while self.dropping && now >= self.drop_next {
                if let Some(e) = head {
                    self.drop(e, on_drop);
                }
                self.count = self.count.wrapping_add(1);
                (head, ok_to_drop) = self.dodequeue(now);
                if ok_to_drop {
                    self.drop_next = self.control_law(self.drop_next, self.count);
                } else {
                    self.dropping = false;
                }
            }
        } else if ok_to_drop {
            if let Some(e) = head {
                self.drop(e, on_drop);
            }
            (head, _) = self.dodequeue(now);
            self.dropping = true;
            // Re-entering soon after the last episode: resume near its drop rate.
            let delta = self.count.wrapping_sub(self.lastcount);
            self.count = 1;
            let since = now as i128 - self.drop_next as i128;
            if delta > 1 && since < 16 * self.interval as i128 {
                self.count = delta;
            }
            self.drop_next = self.control_law(now, self.count);
            self.lastcount = self.count;
        }
        head
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Queue;
    use mpcc_core::NS_PER_MS;

    const US: Nanos = 1_000;

    fn codel() -> Queue<u64> {
        Queue::codel(5 * NS_PER_MS, 100 * NS_PER_MS, 100_000, 1500).unwrap()
    }

    /// Arrivals every `arr` ns, one dequeue every `deq` ns, for `dur` ns (tick 10 us).
    /// Returns drop times.
    fn run(q: &mut Queue<u64>, arr: Nanos, deq: Nanos, dur: Nanos) -> Vec<Nanos> {
        let mut drops = Vec::new();
        let mut t = 0;
        while t < dur {
            if t.is_multiple_of(arr) {
                q.enqueue(t, 1500, t);
            }
            if t.is_multiple_of(deq) {
                let mut n = 0;
                q.dequeue(t, &mut |_| n += 1);
                drops.extend(std::iter::repeat_n(t, n));
            }
            t += 10 * US;
        }
        drops
    }

    #[test]
    fn drop_spacing_follows_inverse_sqrt_control_law() {
        let mut q = codel();
        // 1250 packets/s offered to a 1000 packets/s drain: persistently overloaded.
        let deq = NS_PER_MS;
        let drops = run(&mut q, 800 * US, deq, 3_000 * NS_PER_MS);
        assert!(drops.len() > 40, "only {} drops", drops.len());
        if let Queue::Codel(c) = &q {
            assert!(c.state().0, "left the dropping state");
        }
        // Ideal schedule: D1 = first drop, D(k+1) = D(k) + interval / sqrt(k); each
        // drop happens at the first dequeue at or after its scheduled time.
        let interval = 100.0 * NS_PER_MS as f64;
        let mut sched = drops[0] as f64;
        for (k, &t) in drops.iter().enumerate().skip(1) {
            sched += interval / (k as f64).sqrt();
            let late = t as f64 - sched;
            assert!((-1e3..deq as f64).contains(&late), "drop {k} at {t}, scheduled {sched}");
        }
        // First drop: sojourn crossed target, then one interval later.
        assert!(drops[0] > 100 * NS_PER_MS && drops[0] < 150 * NS_PER_MS, "{}", drops[0]);
    }

    #[test]
    fn no_drop_below_target() {
        let mut q = codel();
        // Bursts of 4 every 10 ms into a 1 packet/ms drain: sojourn peaks at 3 ms < 5 ms.
        let mut dropped = 0;
        for ms in 0..5_000u64 {
            let t = ms * NS_PER_MS;
            if ms.is_multiple_of(10) {
                for _ in 0..4 {
                    q.enqueue(t, 1500, t);
                }
            }
            q.dequeue(t, &mut |_| dropped += 1);
        }
        assert_eq!(dropped, 0);
        assert!(q.stats().max_sojourn >= 3 * NS_PER_MS);
    }

    /// Keeps `backlog` packets queued, each waiting 50 ms (far above target).
    fn standing_queue(backlog: usize) -> u64 {
        let mut q = codel();
        let mut dropped = 0;
        let mut t = 0;
        for _ in 0..backlog {
            q.enqueue(t, 1500, t);
        }
        for _ in 0..200 {
            t += 50 * NS_PER_MS;
            q.dequeue(t, &mut |_| dropped += 1);
            while q.len_packets() < backlog {
                q.enqueue(t, 1500, t);
            }
        }
        dropped
    }

    #[test]
    fn no_drop_with_at_most_one_mtu_queued() {
        // After each dequeue one 1500-byte packet remains: never dropped.
        assert_eq!(standing_queue(2), 0);
        // Contrast: two packets remain (3000 bytes > MTU) and CoDel does drop.
        assert!(standing_queue(3) > 0);
    }

    #[test]
    fn reentry_resumes_previous_count() {
        let mut q = codel();
        let drops = run(&mut q, 800 * US, NS_PER_MS, 2_000 * NS_PER_MS);
        let (_, count_before) = if let Queue::Codel(c) = &q { c.state() } else { unreachable!() };
        assert!(count_before > 3);
        // Drain completely (leaves the dropping state), then overload again soon after.
        let mut t = 2_000 * NS_PER_MS;
        while q.len_packets() > 0 {
            q.dequeue(t, &mut |_| {});
            t += 10 * US;
        }
        let t0 = t;
        let mut dropped_at = None;
        while dropped_at.is_none() {
            t += 10 * US;
            if (t - t0).is_multiple_of(400 * US) {
                q.enqueue(t, 1500, t);
            }
            if (t - t0).is_multiple_of(NS_PER_MS) {
                q.dequeue(t, &mut |_| dropped_at = Some(t));
            }
        }
        let (dropping, count) = if let Queue::Codel(c) = &q { c.state() } else { unreachable!() };
        assert!(dropping);
        // delta = count - lastcount > 1 and the last drop was recent: count resumes at delta.
        assert!(count > 1, "count {count} after {} drops in the first episode", drops.len());
    }

    #[test]
    fn hard_limit_and_validation() {
        let mut q: Queue<u64> = Queue::codel(5 * NS_PER_MS, 100 * NS_PER_MS, 2, 1500).unwrap();
        assert!(q.enqueue(1, 1500, 0) && q.enqueue(2, 1500, 0));
        assert!(!q.enqueue(3, 1500, 0));
        assert_eq!((q.stats().drops, q.stats().aqm_drops), (1, 0));
        assert!(Queue::<u64>::codel(0, 1, 1, 1).unwrap_err().contains("queue.codel.target_ns"));
        assert!(Queue::<u64>::codel(1, 1, 0, 1).unwrap_err().contains("queue.codel.limit"));
    }
}
