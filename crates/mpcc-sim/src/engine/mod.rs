//! The event queue, ordered by (time, insertion sequence), so simultaneous events
//! run in the order they were scheduled, deterministically.
//!
//! Two structures give that order, measured against the binary heap they replaced
//! (docs/performance.md): a 4-ary heap is fastest while few events are queued (a
//! few flows), a radix heap once thousands are. A run picks one when it is built.

mod quad_heap;
mod radix_heap;
mod split_heap;

use radix_heap::RadixHeap;
use split_heap::SplitHeap;

use crate::ids::{FlowId, LinkId};
use mpcc_core::Nanos;

/// What can happen. Small plain values with indices, never closures. Packets in
/// propagation are not events: a link's delay is constant, so they leave it in
/// order and wait in the link's pipe, with only the oldest one in this queue.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A link finished serialising its packet in transmission.
    TxDone {
        link: LinkId,
    },
    /// A sending host's NIC is done with a subflow's packet: serialised, or its host delay over (host.rs).
    NicDone {
        flow: FlowId,
        sub: u16,
    },
    /// The oldest packet propagating over a link reaches the link's far end.
    LinkPipe {
        link: LinkId,
    },
    /// The oldest ACK on a subflow's delay-only reverse path reaches the sender.
    AckPipe {
        flow: FlowId,
        sub: u16,
    },
    /// A subflow's retransmission timer may have expired.
    Rto {
        flow: FlowId,
        sub: u16,
    },
    /// A subflow's delayed-ACK timer expired.
    DelAck {
        flow: FlowId,
        sub: u16,
    },
    FlowStart {
        flow: FlowId,
    },
    FlowStop {
        flow: FlowId,
    },
    /// A subflow joins or leaves its connection.
    SubflowStart {
        flow: FlowId,
        sub: u16,
    },
    SubflowStop {
        flow: FlowId,
        sub: u16,
    },
    /// A flow's application timer (next frame, page request, on/off switch).
    App {
        flow: FlowId,
    },
    /// The time a flow's scheduler asked to be woken at (`poll_at`: pacing).
    Pace {
        flow: FlowId,
    },
    /// A connection's retransmission timer may have expired (`tcp.data_rtx`).
    DataRtx {
        flow: FlowId,
    },
    /// Record one row of every time series.
    Sample,
    /// End of the warm-up: summary statistics start here.
    WarmupEnd,
}

// Entries are moved on every queue operation: keep them at three words.
const _: () = assert!(std::mem::size_of::<Event>() <= 8);

/// A queued item with its place in the order.
#[derive(Clone, Copy)]
struct Keyed<T: Copy> {
    time: Nanos,
    seq: u64,
    item: T,
}

type Entry = Keyed<Event>;

/// Flows from which a run's events go into the radix heap: at 100 Reno flows the
/// 4-ary heap took 0.94x of the radix heap's CPU per packet, at 1000 1.16x.
pub const RADIX_FROM_FLOWS: usize = 300;

enum Queue {
    Quad(SplitHeap),
    Radix(RadixHeap),
}

pub struct EventQueue {
    queue: Queue,
    seq: u64,
    /// The time of the latest event popped (0 before any).
    now: Nanos,
    /// An event due before every queued one: the next to pop, unless an earlier
    /// one is scheduled first (which takes its place and sends it to the heap).
    /// So an event scheduled to be the next (an access link's short serialisation,
    /// an ACK on a zero-delay reverse path) skips the heap both ways.
    next: Option<Entry>,
}

impl EventQueue {
    /// A queue for a run of `flows` flows.
    pub fn for_flows(flows: usize) -> Self {
        let queue =
            if flows >= RADIX_FROM_FLOWS { Queue::Radix(RadixHeap::new()) } else { Queue::Quad(SplitHeap::new()) };
        EventQueue { queue, seq: 0, now: 0, next: None }
    }

    pub fn new() -> Self {
        Self::for_flows(0)
    }

    #[inline(always)]
    pub fn schedule(&mut self, time: Nanos, ev: Event) {
        self.seq += 1;
        let e = Entry { time, seq: self.seq, item: ev };
        // `e` has the largest sequence number: it goes before another event only if
        // due strictly earlier.
        match self.next {
            Some(first) if time < first.time => {
                self.next = Some(e);
                self.push_queued(first);
            }
            Some(_) => self.push_queued(e),
            None if self.before_queued(time) => self.next = Some(e),
            None => self.push_queued(e),
        }
    }

    #[inline]
    fn push_queued(&mut self, e: Entry) {
        match &mut self.queue {
            Queue::Quad(q) => q.push(e),
            Queue::Radix(q) => q.push(e),
        }
    }

    /// Whether an event due at `time`, scheduled now, goes before every queued one.
    /// Never for the radix heap: it has no cheap minimum, and its bucket for the
    /// current time is a FIFO already.
    #[inline]
    fn before_queued(&self, time: Nanos) -> bool {
        match &self.queue {
            Queue::Quad(q) => q.top_time().is_none_or(|t| time < t),
            Queue::Radix(_) => false,
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Nanos, Event)> {
        let e = match self.next.take() {
            Some(e) => e,
            None => match &mut self.queue {
                Queue::Quad(q) => q.pop(),
                Queue::Radix(q) => q.pop(),
            }?,
        };
        self.now = e.time;
        Some((e.time, e.item))
    }

    /// Whether an event at the current time (that of the latest popped) is still
    /// queued.
    #[inline]
    pub fn more_now(&self) -> bool {
        match self.next {
            Some(e) => e.time == self.now,
            None => self.heap_more_now(),
        }
    }

    #[inline]
    fn heap_more_now(&self) -> bool {
        match &self.queue {
            Queue::Quad(q) => q.top_time() == Some(self.now),
            Queue::Radix(q) => q.more_now(),
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

    /// Both structures: a small run's and a large run's.
    fn queues() -> [EventQueue; 2] {
        [EventQueue::for_flows(1), EventQueue::for_flows(RADIX_FROM_FLOWS)]
    }

    #[test]
    fn ties_break_by_insertion_order() {
        queues().into_iter().for_each(ties_in_insertion_order);
    }

    /// Ties between a timer and a packet's event too (they wait in different heaps).
    fn ties_in_insertion_order(mut q: EventQueue) {
        q.schedule(5, numbered(1, true));
        q.schedule(3, numbered(2, false));
        q.schedule(5, numbered(3, false));
        q.schedule(5, numbered(4, true));
        q.schedule(5, numbered(5, false));
        let order: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|(_, e)| number(e)).collect();
        assert_eq!(order, vec![2, 1, 3, 4, 5]);
    }

    /// An event due before every queued one waits in `next` and still pops in
    /// (time, sequence) order: before events scheduled after it for the same time,
    /// after an earlier one scheduled later (which takes its place).
    #[test]
    fn the_next_event_pops_in_order() {
        for mut q in queues() {
            q.schedule(10, numbered(1, true));
            assert_eq!(q.pop().map(|(t, _)| t), Some(10));
            q.schedule(10, numbered(2, false)); // into `next` (the radix heap keeps none)
            assert!(q.more_now());
            assert_eq!(q.next.is_some(), matches!(q.queue, Queue::Quad(_)));
            q.schedule(10, numbered(3, true)); // queued, after it
            q.schedule(30, numbered(4, false));
            let order: Vec<(u64, u32)> = std::iter::from_fn(|| q.pop()).map(|(t, e)| (t, number(e))).collect();
            assert_eq!(order, vec![(10, 2), (10, 3), (30, 4)]);
            assert!(!q.more_now());
            q.schedule(50, numbered(5, false)); // `next` of the 4-ary heaps
            q.schedule(40, numbered(6, true)); // takes its place
            q.schedule(60, numbered(7, false));
            q.schedule(40, numbered(8, false));
            assert!(!q.more_now());
            let order: Vec<(u64, u32)> = std::iter::from_fn(|| q.pop()).map(|(t, e)| (t, number(e))).collect();
            assert_eq!(order, vec![(40, 6), (40, 8), (50, 5), (60, 7)]);
        }
    }

    /// Interleaved schedules and pops, with many ties and times far apart, come out
    /// in the order of a binary heap on (time, sequence), the queue it replaced.
    /// Events of packets and timers interleave (the 4-ary heaps keep them apart).
    #[test]
    fn same_order_as_a_heap_on_time_and_sequence() {
        queues().into_iter().for_each(order_of_a_binary_heap);
    }

    /// A packet's event or a timer, numbered.
    fn numbered(n: u32, timer: bool) -> Event {
        if timer {
            Event::Rto { flow: FlowId(n), sub: 0 }
        } else {
            Event::TxDone { link: LinkId(n) }
        }
    }

    fn number(e: Event) -> u32 {
        match e {
            Event::Rto { flow, .. } => flow.0,
            Event::TxDone { link } => link.0,
            _ => unreachable!(),
        }
    }

    fn order_of_a_binary_heap(mut q: EventQueue) {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
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
                q.schedule(now + delay, numbered(seq, r >> 13 & 1 == 0));
                reference.push(Reverse((now + delay, seq)));
            } else {
                let got = q.pop().map(|(t, e)| (t, number(e)));
                let want = reference.pop().map(|Reverse(x)| x);
                assert_eq!(got, want);
                if let Some((t, _)) = got {
                    now = t;
                }
            }
        }
        while let Some(Reverse(want)) = reference.pop() {
            let (t, e) = q.pop().expect("as many events");
            assert_eq!((t, number(e)), want);
        }
        assert!(q.pop().is_none());
    }
}
