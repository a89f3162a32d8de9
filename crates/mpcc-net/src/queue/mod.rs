//! Queue disciplines. A queue holds packets of any `Copy` type `P` together with
//! their size in bytes and enqueue time.

pub mod droptail;

use mpcc_core::Nanos;
use std::collections::VecDeque;

pub use droptail::DropTail;

/// Counters every discipline keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QueueStats {
    pub enqueued: u64,
    pub dequeued: u64,
    /// Drops at enqueue (full buffer, RED early drop) and at dequeue (CoDel).
    pub drops: u64,
    pub dropped_bytes: u64,
    /// Sum of sojourn times of dequeued packets, nanoseconds.
    pub sojourn_sum: u128,
}

/// A queued packet.
#[derive(Clone, Copy, Debug)]
pub struct Entry<P> {
    pub pkt: P,
    pub bytes: u32,
    pub enqueued_at: Nanos,
}

/// FIFO storage shared by all disciplines.
#[derive(Clone, Debug)]
pub struct Fifo<P> {
    pub items: VecDeque<Entry<P>>,
    pub bytes: u64,
}

impl<P: Copy> Fifo<P> {
    pub fn new() -> Self {
        Fifo { items: VecDeque::with_capacity(64), bytes: 0 }
    }
    #[inline]
    pub fn push(&mut self, e: Entry<P>) {
        self.bytes += e.bytes as u64;
        self.items.push_back(e);
    }
    #[inline]
    pub fn pop(&mut self) -> Option<Entry<P>> {
        let e = self.items.pop_front()?;
        self.bytes -= e.bytes as u64;
        Some(e)
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.items.len()
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

impl<P: Copy> Default for Fifo<P> {
    fn default() -> Self {
        Self::new()
    }
}

/// Every queue discipline; the simulator dispatches through this enum.
#[derive(Clone, Debug)]
pub enum Queue<P> {
    DropTail(DropTail<P>),
}

impl<P: Copy> Queue<P> {
    /// Offers a packet at time `now`. Returns false if it was dropped.
    #[inline]
    pub fn enqueue(&mut self, pkt: P, bytes: u32, now: Nanos) -> bool {
        let st;
        let ok = match self {
            Queue::DropTail(q) => {
                let ok = q.enqueue(pkt, bytes, now);
                st = &mut q.stats;
                ok
            }
        };
        if ok {
            st.enqueued += 1;
        } else {
            st.drops += 1;
            st.dropped_bytes += bytes as u64;
        }
        ok
    }

    /// Takes the next packet to transmit at time `now`. Disciplines that drop at
    /// dequeue (CoDel) report each dropped packet through `on_drop`.
    #[inline]
    pub fn dequeue(&mut self, now: Nanos, on_drop: &mut impl FnMut(P)) -> Option<(P, u32)> {
        let _ = on_drop;
        let (e, st) = match self {
            Queue::DropTail(q) => (q.fifo.pop()?, &mut q.stats),
        };
        st.dequeued += 1;
        st.sojourn_sum += (now - e.enqueued_at) as u128;
        Some((e.pkt, e.bytes))
    }

    pub fn len_packets(&self) -> usize {
        match self {
            Queue::DropTail(q) => q.fifo.len(),
        }
    }
    pub fn len_bytes(&self) -> u64 {
        match self {
            Queue::DropTail(q) => q.fifo.bytes,
        }
    }
    pub fn stats(&self) -> &QueueStats {
        match self {
            Queue::DropTail(q) => &q.stats,
        }
    }
}
