//! A radix heap: the event queue of large runs.

use super::Entry;
use mpcc_core::Nanos;

/// Buckets of the radix heap: 0 for the current time, i for times whose highest
/// bit differing from it is bit i - 1.
const BUCKETS: usize = 65;

/// A radix heap (a monotone priority queue). Events are never
/// scheduled before the last one popped, so an event is filed by the highest bit in
/// which its time differs from that time, and moves only to lower buckets as the
/// clock advances: a few moves in its life instead of a binary heap's log2(n)
/// comparisons and swaps on each push and pop.
///
/// The order is exactly (time, insertion sequence): bucket 0 holds the events at
/// the current time in sequence order (the ones moved there are sorted by sequence
/// number, and any scheduled later at the same time come after them).
pub struct RadixHeap {
    /// The current time: that of the latest event popped, or of the bucket 0 filled.
    now: Nanos,
    /// Bit i set when bucket i > 0 holds events.
    filled: u128,
    /// Bucket 0 is read from this index on (a FIFO without shifting).
    head: usize,
    buckets: [Vec<Entry>; BUCKETS],
}

impl RadixHeap {
    pub fn new() -> Self {
        RadixHeap { now: 0, filled: 0, head: 0, buckets: std::array::from_fn(|_| Vec::new()) }
    }

    #[inline]
    fn bucket_of(&self, time: Nanos) -> usize {
        (u64::BITS - (time ^ self.now).leading_zeros()) as usize
    }

    #[inline]
    pub fn push(&mut self, e: Entry) {
        debug_assert!(e.time >= self.now, "event scheduled in the past");
        let b = self.bucket_of(e.time);
        self.filled |= 1 << b;
        self.buckets[b].push(e);
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Entry> {
        if self.head < self.buckets[0].len() {
            let e = self.buckets[0][self.head];
            self.head += 1;
            return Some(e);
        }
        self.advance()
    }

    /// Whether an event at the current time (that of the latest popped) is still
    /// queued: every event at that time is in bucket 0.
    #[inline]
    pub fn more_now(&self) -> bool {
        self.head < self.buckets[0].len()
    }

    /// Bucket 0 is used up: the clock moves to the earliest event, which is
    /// returned. If it was alone in the lowest filled bucket (the common case) it
    /// is taken from there; otherwise that bucket's events spread over the
    /// buckets below, those at the new time into bucket 0 in sequence order.
    #[inline]
    fn advance(&mut self) -> Option<Entry> {
        self.buckets[0].clear();
        self.head = 0;
        let rest = self.filled & !1;
        if rest == 0 {
            return None;
        }
        let b = rest.trailing_zeros() as usize;
        if self.buckets[b].len() == 1 {
            self.filled &= !(1 << b);
            let e = self.buckets[b].pop().expect("one event");
            self.now = e.time;
            return Some(e);
        }
        self.spread(b);
        self.head = 1;
        Some(self.buckets[0][0])
    }

    #[cold]
    #[inline(never)]
    fn spread(&mut self, b: usize) {
        self.filled &= !(1 << b);
        let mut moving = std::mem::take(&mut self.buckets[b]);
        self.now = moving.iter().map(|e| e.time).min().expect("a filled bucket");
        for e in moving.drain(..) {
            let to = self.bucket_of(e.time);
            self.filled |= 1 << to;
            self.buckets[to].push(e);
        }
        self.buckets[b] = moving; // keeps its capacity
        let now0 = &mut self.buckets[0];
        if now0.len() > 1 {
            now0.sort_unstable_by_key(|e| e.seq); // sequence numbers are unique
        }
    }
}
