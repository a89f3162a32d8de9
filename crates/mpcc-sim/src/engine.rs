//! The event queue: one binary heap ordered by (time, insertion sequence), so
//! simultaneous events run in the order they were scheduled, deterministically.

use crate::ids::{FlowId, LinkId};
use mpcc_core::Nanos;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

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

// Entries are moved on every heap operation: keep them at three words.
const _: () = assert!(std::mem::size_of::<Event>() <= 8);

struct Entry {
    time: Nanos,
    seq: u64,
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest first.
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.cmp(&self.time).then_with(|| o.seq.cmp(&self.seq))
    }
}

pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    seq: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(1024), seq: 0 }
    }

    #[inline]
    pub fn schedule(&mut self, time: Nanos, ev: Event) {
        self.seq += 1;
        self.heap.push(Entry { time, seq: self.seq, ev });
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Nanos, Event)> {
        self.heap.pop().map(|e| (e.time, e.ev))
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
}
