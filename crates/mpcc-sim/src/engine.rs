//! The event queue, ordered by (time, insertion sequence), so simultaneous events
//! run in the order they were scheduled, deterministically.

use crate::ids::{FlowId, LinkId};
use mpcc_core::Nanos;

/// What can happen. Small plain values with indices, never closures. Packets in
/// propagation are not events: a link's delay is constant, so they leave it in
/// order and wait in the link's pipe, with only the oldest one in this queue.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A link finished serialising its packet in transmission.
    TxDone { link: LinkId },
    /// A sending host's NIC finished serialising a subflow's packet (host.rs).
    NicDone { flow: FlowId, sub: u16 },
    /// The oldest packet propagating over a link reaches the link's far end.
    LinkPipe { link: LinkId },
    /// The oldest ACK on a subflow's delay-only reverse path reaches the sender.
    AckPipe { flow: FlowId, sub: u16 },
    /// A subflow's retransmission timer may have expired.
    Rto { flow: FlowId, sub: u16 },
    /// A subflow's delayed-ACK timer expired.
    DelAck { flow: FlowId, sub: u16 },
    FlowStart { flow: FlowId },
    FlowStop { flow: FlowId },
    /// A subflow joins or leaves its connection.
    SubflowStart { flow: FlowId, sub: u16 },
    SubflowStop { flow: FlowId, sub: u16 },
    /// A flow's application timer (next frame, page request, on/off switch).
    App { flow: FlowId },
    /// A paced sender (TSC) may have tokens again.
    Pace { flow: FlowId },
    /// Record one row of every time series.
    Sample,
    /// End of the warm-up: summary statistics start here.
    WarmupEnd,
}

// Entries are moved between buckets: keep them at three words.
const _: () = assert!(std::mem::size_of::<Event>() <= 8);

#[derive(Clone, Copy)]
struct Entry {
    time: Nanos,
    seq: u64,
    ev: Event,
}

/// Buckets of the radix heap: 0 for the current time, i for times whose highest
/// bit differing from it is bit i - 1.
const BUCKETS: usize = 65;

/// The event queue: a radix heap (a monotone priority queue). Events are never
/// scheduled before the last one popped, so an event is filed by the highest bit in
/// which its time differs from that time, and moves only to lower buckets as the
/// clock advances: a few moves in its life instead of a binary heap's log2(n)
/// comparisons and swaps on each push and pop.
///
/// The order is exactly (time, insertion sequence): bucket 0 holds the events at
/// the current time in sequence order (the ones moved there are sorted by sequence
/// number, and any scheduled later at the same time come after them).
pub struct EventQueue {
    /// The current time: that of the latest event popped, or of the bucket 0 filled.
    now: Nanos,
    /// Bit i set when bucket i > 0 holds events.
    filled: u128,
    /// Bucket 0 is read from this index on (a FIFO without shifting).
    head: usize,
    seq: u64,
    buckets: [Vec<Entry>; BUCKETS],
}

impl EventQueue {
    pub fn new() -> Self {
        EventQueue { now: 0, filled: 0, head: 0, seq: 0, buckets: std::array::from_fn(|_| Vec::new()) }
    }

    #[inline]
    fn bucket_of(&self, time: Nanos) -> usize {
        (u64::BITS - (time ^ self.now).leading_zeros()) as usize
    }

    #[inline]
    pub fn schedule(&mut self, time: Nanos, ev: Event) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        self.seq += 1;
        let b = self.bucket_of(time);
        self.filled |= 1 << b;
        self.buckets[b].push(Entry { time, seq: self.seq, ev });
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Nanos, Event)> {
        if self.head < self.buckets[0].len() {
            let e = self.buckets[0][self.head];
            self.head += 1;
            return Some((e.time, e.ev));
        }
        let e = self.advance()?;
        Some((e.time, e.ev))
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

    /// Events scheduled so far.
    pub fn scheduled(&self) -> u64 {
        self.seq
    }
}

impl Default for EventQueue {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_break_by_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(5, Event::Rto { flow: FlowId(1), sub: 0 });
        q.schedule(3, Event::Rto { flow: FlowId(2), sub: 0 });
        q.schedule(5, Event::Rto { flow: FlowId(3), sub: 0 });
        q.schedule(5, Event::Rto { flow: FlowId(4), sub: 0 });
        let order: Vec<u32> = std::iter::from_fn(|| q.pop())
            .map(|(_, e)| match e {
                Event::Rto { flow, .. } => flow.0,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(order, vec![2, 1, 3, 4]);
    }

    /// Interleaved schedules and pops, with many ties and times far apart, come out
    /// in the order of a binary heap on (time, sequence), the queue it replaced.
    #[test]
    fn same_order_as_a_heap_on_time_and_sequence() {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let mut q = EventQueue::new();
        let mut reference = BinaryHeap::new();
        let (mut state, mut now, mut seq) = (0x9e37_79b9_7f4a_7c15u64, 0u64, 0u32);
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..200_000 {
            let r = next();
            if r % 7 == 6 {
                let at_now = reference.peek().is_some_and(|Reverse((t, _))| *t == now);
                assert_eq!(q.more_now(), at_now);
            } else if r % 7 < 4 {
                let delay = match r >> 8 & 3 {
                    0 => 0,
                    1 => r >> 16 & 7,
                    2 => r >> 16 & 0xfffff,
                    _ => r >> 16 & 0xff_ffff_ffff,
                };
                seq += 1;
                q.schedule(now + delay, Event::Rto { flow: FlowId(seq), sub: 0 });
                reference.push(Reverse((now + delay, seq)));
            } else {
                let got = q.pop().map(|(t, e)| match e {
                    Event::Rto { flow, .. } => (t, flow.0),
                    _ => unreachable!(),
                });
                let want = reference.pop().map(|Reverse(x)| x);
                assert_eq!(got, want);
                if let Some((t, _)) = got {
                    now = t;
                }
            }
        }
        while let Some(Reverse(want)) = reference.pop() {
            let (t, e) = q.pop().expect("as many events");
            let Event::Rto { flow, .. } = e else { unreachable!() };
            assert_eq!((t, flow.0), want);
        }
        assert!(q.pop().is_none());
    }
}
