//! DropTail: a FIFO that drops arrivals once it holds `limit` packets or bytes.

use super::{Entry, Fifo, QueueStats};
use super::{Queue, QueueEnv, MAX_WHOLE};
use mpcc_core::params::{param, Args, Info, Problem, Unit};
use mpcc_core::Nanos;

/// The registry entry (listed in `queue/mod.rs`).
pub const INFO: Info = Info::new(
    "droptail",
    "FIFO that drops arrivals when full; limit in `packets` or `bytes`",
    "docs/links.md#queue-disciplines",
    &[
        param("packets", f64::NAN, 1.0, MAX_WHOLE, "buffer limit in packets"),
        param("bytes", f64::NAN, 1.0, MAX_WHOLE, "buffer limit in bytes"),
    ],
)
.with_units(&[("packets", Unit::Whole), ("bytes", Unit::Size)])
.with_rule(one_limit);

fn one_limit(a: &Args) -> Result<(), Problem> {
    let p = |k: &str| a.get(k);
    if p("packets").is_nan() == p("bytes").is_nan() {
        return Err(Problem::whole("give exactly one of `packets` or `bytes` (e.g. packets = 100)"));
    }
    Ok(())
}

pub fn build<P: Copy>(p: &dyn Fn(&str) -> f64, _: QueueEnv) -> Result<Queue<P>, Problem> {
    let limit = |k: &str| (!p(k).is_nan()).then(|| p(k) as u64);
    Ok(Queue::DropTail(DropTail::new(Limit::from_options(limit("packets"), limit("bytes")).map_err(Problem::whole)?)))
}

/// What the limit counts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    Packets(u64),
    Bytes(u64),
    /// Both limits; an arrival is refused if it would exceed either.
    Both {
        packets: u64,
        bytes: u64,
    },
}

impl Limit {
    /// The limit of a `droptail` queue configuration (at least one of the two).
    pub fn from_options(packets: Option<u64>, bytes: Option<u64>) -> Result<Limit, String> {
        if packets == Some(0) {
            return Err("queue.droptail.packets must be >= 1, got 0".into());
        }
        if bytes == Some(0) {
            return Err("queue.droptail.bytes must be >= 1, got 0".into());
        }
        match (packets, bytes) {
            (Some(n), None) => Ok(Limit::Packets(n)),
            (None, Some(b)) => Ok(Limit::Bytes(b)),
            (Some(n), Some(b)) => Ok(Limit::Both { packets: n, bytes: b }),
            (None, None) => Err("queue.droptail needs a limit: set packets (>= 1) or bytes (>= 1)".into()),
        }
    }
}

#[derive(Clone, Debug)]
pub struct DropTail<P> {
    pub limit: Limit,
    pub fifo: Fifo<P>,
    pub stats: QueueStats,
}

impl<P: Copy> DropTail<P> {
    pub fn new(limit: Limit) -> Self {
        DropTail { limit, fifo: Fifo::new(), stats: QueueStats::default() }
    }

    /// Whether a packet of `bytes` fits.
    #[inline]
    pub fn admits(&self, bytes: u32) -> bool {
        match self.limit {
            Limit::Packets(n) => (self.fifo.len() as u64) < n,
            Limit::Bytes(b) => self.fifo.bytes + bytes as u64 <= b,
            Limit::Both { packets, bytes: b } => {
                (self.fifo.len() as u64) < packets && self.fifo.bytes + bytes as u64 <= b
            }
        }
    }

    #[inline]
    pub fn enqueue(&mut self, pkt: P, bytes: u32, now: Nanos) -> bool {
        if !self.admits(bytes) {
            return false;
        }
        self.fifo.push(Entry { pkt, bytes, enqueued_at: now });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Queue;

    #[test]
    fn drops_when_full_in_packets_and_bytes() {
        let mut q = Queue::DropTail(DropTail::new(Limit::Packets(2)));
        assert!(q.enqueue(1u32, 1500, 0));
        assert!(q.enqueue(2u32, 1500, 0));
        assert!(!q.enqueue(3u32, 1500, 0));
        assert_eq!(q.stats().drops, 1);
        assert_eq!(q.dequeue(10, &mut |_| {}), Some((1, 1500)));
        assert_eq!(q.stats().sojourn_sum, 10);
        let mut q = Queue::DropTail(DropTail::new(Limit::Bytes(3000)));
        assert!(q.enqueue(1u32, 1500, 0));
        assert!(q.enqueue(2u32, 1000, 0));
        assert!(!q.enqueue(3u32, 1000, 0));
        assert!(q.enqueue(4u32, 500, 0));
        assert_eq!(q.len_bytes(), 3000);
    }

    #[test]
    fn both_limits_and_validation() {
        let mut q: Queue<u32> = Queue::droptail(Some(2), Some(2000)).unwrap();
        assert!(q.enqueue(1, 1000, 0));
        assert!(!q.enqueue(2, 1001, 0)); // bytes
        assert!(q.enqueue(3, 100, 0));
        assert!(!q.enqueue(4, 100, 0)); // packets
        assert!(Queue::<u32>::droptail(None, None).unwrap_err().contains("packets"));
        assert!(Queue::<u32>::droptail(Some(0), None).unwrap_err().contains("queue.droptail.packets"));
    }

    #[test]
    fn sojourn_is_kept_per_packet() {
        let mut q: Queue<u32> = Queue::droptail(Some(10), None).unwrap();
        q.enqueue(1, 100, 5);
        q.enqueue(2, 100, 7);
        q.dequeue(20, &mut |_| {});
        assert_eq!(q.stats().last_sojourn, 15);
        q.dequeue(30, &mut |_| {});
        assert_eq!(q.stats().last_sojourn, 23);
        assert_eq!(q.stats().max_sojourn, 23);
        assert_eq!(q.stats().mean_sojourn(), 19.0);
    }
}
