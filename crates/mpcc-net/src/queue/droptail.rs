//! DropTail: a FIFO that drops arrivals once it holds `limit` packets or bytes.

use super::{Entry, Fifo, QueueStats};
use mpcc_core::Nanos;

/// What the limit counts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    Packets(u64),
    Bytes(u64),
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

    #[inline]
    pub fn enqueue(&mut self, pkt: P, bytes: u32, now: Nanos) -> bool {
        let full = match self.limit {
            Limit::Packets(n) => self.fifo.len() as u64 >= n,
            Limit::Bytes(b) => self.fifo.bytes + bytes as u64 > b,
        };
        if full {
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
}
