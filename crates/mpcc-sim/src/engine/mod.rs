//! The event queue, ordered by (time, insertion sequence), so simultaneous events
//! run in the order they were scheduled, deterministically.
//!
//! Two structures give that order, measured against the binary heap they replaced
//! (docs/performance.md): 4-ary heaps are fastest while few events are queued (a
//! few flows; two of them, the timers apart: split_heap.rs), a radix heap once
//! thousands are. A run picks one when it is built.

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
// One line per event: rustfmt would spread each struct variant over four.
#[rustfmt::skip]
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A link finished serialising its packet in transmission (queued only when
    /// something at its instant may see it: `Link::can_defer`).
    TxDone { link: LinkId },
    /// A sending host's NIC is done with a subflow's packet: serialised, or its host delay over (host.rs).
    NicDone { flow: FlowId, sub: u16 },
    /// The oldest packet propagating over a link reaches the link's far end.
    LinkPipe { link: LinkId },
    /// The oldest ACK on a subflow's delay-only reverse path reaches the sender.
    AckPipe { flow: FlowId, sub: u16 },
    /// The ACK a subflow's receiver just built reaches the sender at the same instant
    /// (a zero-delay reverse path), read where it was built (`Sim::send_built_ack`).
    AckBuilt { flow: FlowId, sub: u16 },
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
    /// The time a flow's scheduler asked to be woken at (`poll_at`: pacing).
    Pace { flow: FlowId },
    /// A connection's retransmission timer may have expired (`tcp.data_rtx`).
    DataRtx { flow: FlowId },
    /// A subflow's SYN timer may have expired, or a SYN-ACK on its delay-only reverse route arrives (handshake.rs).
    Handshake { flow: FlowId, sub: u16 },
    /// Record one row of every time series.
    Sample,
    /// End of the warm-up: summary statistics start here.
    WarmupEnd,
}

// Entries are moved on every queue operation: keep them at three words.
const _: () = assert!(std::mem::size_of::<Event>() <= 8);

/// A queued event with its place in the order.
#[derive(Clone, Copy)]
struct Entry {
    time: Nanos,
    seq: u64,
    item: Event,
}

/// Flows from which a run's events go into the radix heap: at 100 Reno flows the
/// 4-ary heap took 0.94x of the radix heap's CPU per packet, at 1000 1.16x.
pub const RADIX_FROM_FLOWS: usize = 300;

/// One per run, so the variants' sizes do not matter; a box would cost every pop an
/// indirection.
#[allow(clippy::large_enum_variant)]
enum Queue {
    Quad(SplitHeap),
    Radix(RadixHeap),
}

pub struct EventQueue {
    queue: Queue,
    seq: u64,
    /// The time of the latest event popped (0 before any).
    now: Nanos,
    /// An event for `now` (the time of the latest event popped) scheduled (`schedule_maybe_now`) while no other event for
    /// `now` was queued: it is the next to pop (events are never scheduled before
    /// `now`, and any other for `now` was scheduled after it), so it skips the heap.
    /// A zero-delay reverse path makes one of these per ACK.
    /// It is an ACK's (`AckPipe` or `AckBuilt`), kept as its parts (`NextSlot`).
    next: NextSlot,
    next_seq: u64,
    /// The sequence number of the latest event popped: with `now`, its place in
    /// the order (`current`).
    cur_seq: u64,
}

impl EventQueue {
    /// A queue for a run of `flows` flows.
    pub fn for_flows(flows: usize) -> Self {
        let queue =
            if flows >= RADIX_FROM_FLOWS { Queue::Radix(RadixHeap::new()) } else { Queue::Quad(SplitHeap::new()) };
        EventQueue { queue, seq: 0, now: 0, next: NextSlot::EMPTY, next_seq: 0, cur_seq: 0 }
    }

    pub fn new() -> Self {
        Self::for_flows(0)
    }

    #[inline]
    pub fn schedule(&mut self, time: Nanos, ev: Event) {
        self.seq += 1;
        self.push(Entry { time, seq: self.seq, item: ev });
    }

    #[inline]
    fn push(&mut self, e: Entry) {
        match &mut self.queue {
            Queue::Quad(q) => q.push(e),
            Queue::Radix(q) => q.push(e),
        }
    }

    /// `schedule` for a packet's event that is likely the next to pop (a link's
    /// `TxDone`, due within a serialisation time): the 4-ary heaps keep one such
    /// event out of the heap (`SplitHeap::push_soon`). The same order.
    #[inline(always)]
    pub fn schedule_soon(&mut self, time: Nanos, ev: Event) {
        self.seq += 1;
        let e = Entry { time, seq: self.seq, item: ev };
        match &mut self.queue {
            Queue::Quad(q) => q.push_soon(e),
            Queue::Radix(q) => q.push(e),
        }
    }

    /// Takes the sequence number an event scheduled now would get, without queueing
    /// it: the event may be queued later with that number (`schedule_reserved`), or
    /// its effects applied by whoever finds it past (`is_past`). Every later event
    /// gets the number it would have had had this one been queued.
    #[inline]
    pub fn reserve(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Queues an event under a sequence number taken earlier (`reserve`), not yet
    /// past. Only for the 4-ary heaps (`reserves`), which order any push by (time,
    /// sequence); the radix heap and the slot for `now` assume increasing numbers.
    #[inline]
    pub fn schedule_reserved(&mut self, time: Nanos, seq: u64, ev: Event) {
        debug_assert!(self.reserves() && self.next.is_empty() && !self.is_past(time, seq));
        self.push(Entry { time, seq, item: ev });
    }

    /// Whether `schedule_reserved` may be used in this queue.
    pub fn reserves(&self) -> bool {
        matches!(self.queue, Queue::Quad(_))
    }

    /// Whether an event at (`time`, `seq`) would have run by now: before the latest
    /// event popped, or that event itself.
    #[inline]
    pub fn is_past(&self, time: Nanos, seq: u64) -> bool {
        (time, seq) <= (self.now, self.cur_seq)
    }

    /// `schedule` for a caller whose events are often due at the current instant
    /// (an ACK on a zero-delay reverse path): such an event, with no other queued
    /// for that instant, waits in `next` instead of the heap. Only such callers pay
    /// the check.
    #[inline]
    pub fn schedule_maybe_now(&mut self, time: Nanos, ev: Event) {
        if time != self.now || !self.schedule_next(ev) {
            self.schedule(time, ev);
        }
    }

    /// Puts `ev` in the slot for the current instant if it would take it in
    /// `schedule_maybe_now` (no other event for now queued): it is then the next to
    /// pop, whatever is scheduled after it. False (and nothing scheduled) otherwise.
    #[inline]
    pub fn schedule_next(&mut self, ev: Event) -> bool {
        let Some(slot) = NextSlot::of(ev) else { return false };
        if !self.next.is_empty() || self.heap_more_now() {
            return false;
        }
        self.seq += 1;
        self.next = slot;
        self.next_seq = self.seq;
        true
    }

    /// The next event and its time, in the queue's order: the ACK in the slot for now
    /// first, then the earliest queued. (The event loop takes it in these two parts,
    /// `pop_now` and `pop_queued`.)
    #[inline]
    pub fn pop(&mut self) -> Option<(Nanos, Event)> {
        if let Some(ack) = self.pop_now() {
            return Some((self.now, ack.event()));
        }
        self.pop_queued()
    }

    /// The ACK's event in the slot for the current instant, if any: what `pop` gives
    /// first, taken apart (the event loop handles it without packing it into an
    /// `Event` and dispatching on that).
    #[inline]
    pub fn pop_now(&mut self) -> Option<NowAck> {
        if self.next.is_empty() {
            return None;
        }
        self.cur_seq = self.next_seq;
        let ack = NowAck { built: self.next.kind == 2, flow: self.next.flow, sub: self.next.sub };
        self.next.kind = 0;
        Some(ack)
    }

    /// `pop` when the slot for now is empty (`pop_now` said so).
    #[inline]
    pub fn pop_queued(&mut self) -> Option<(Nanos, Event)> {
        debug_assert!(self.next.is_empty());
        let e = match &mut self.queue {
            Queue::Quad(q) => q.pop(),
            Queue::Radix(q) => q.pop(),
        }?;
        self.now = e.time;
        self.cur_seq = e.seq;
        Some((e.time, e.item))
    }

    /// Whether an event at the current time (that of the latest popped) is still
    /// queued.
    #[inline]
    pub fn more_now(&self) -> bool {
        !self.next.is_empty() || self.heap_more_now()
    }

    #[inline]
    fn heap_more_now(&self) -> bool {
        match &self.queue {
            Queue::Quad(q) => q.has_at(self.now),
            Queue::Radix(q) => q.more_now(),
        }
    }

    /// Events scheduled so far.
    pub fn scheduled(&self) -> u64 {
        self.seq
    }
}

/// The ACK's event popped from the slot for now (`EventQueue::pop_now`): an
/// `AckBuilt` if `built`, else an `AckPipe`.
#[derive(Clone, Copy, Debug)]
pub struct NowAck {
    pub built: bool,
    pub flow: FlowId,
    pub sub: u16,
}

impl NowAck {
    #[inline]
    fn event(self) -> Event {
        let NowAck { built, flow, sub } = self;
        if built {
            Event::AckBuilt { flow, sub }
        } else {
            Event::AckPipe { flow, sub }
        }
    }
}

/// The event for now that skips the heap (`EventQueue::next`): an ACK's, as its
/// kind, flow and subflow in fields of their own, each written and read whole. (As an
/// `Option<Event>` it was written by fields and read back, in some builds, by loads
/// that straddle them, which wait until the stores are done.)
#[derive(Clone, Copy)]
struct NextSlot {
    /// 0: empty, 1: `AckPipe`, 2: `AckBuilt`.
    kind: u8,
    sub: u16,
    flow: FlowId,
}

impl NextSlot {
    const EMPTY: NextSlot = NextSlot { kind: 0, sub: 0, flow: FlowId(0) };

    /// `ev` in a slot, if it is an ACK's.
    #[inline]
    fn of(ev: Event) -> Option<NextSlot> {
        match ev {
            Event::AckPipe { flow, sub } => Some(NextSlot { kind: 1, sub, flow }),
            Event::AckBuilt { flow, sub } => Some(NextSlot { kind: 2, sub, flow }),
            _ => None,
        }
    }

    #[inline]
    fn is_empty(&self) -> bool {
        self.kind == 0
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

    /// An event for the current time with none other queued for it skips the heap
    /// (`next`) and still pops in (time, sequence) order: before events scheduled
    /// after it for the same time, after none that came before.
    #[test]
    fn an_event_for_now_pops_next_in_order() {
        for mut q in queues() {
            q.schedule(10, Event::Rto { flow: FlowId(1), sub: 0 });
            assert_eq!(q.pop().map(|(t, _)| t), Some(10));
            q.schedule_maybe_now(10, Event::AckPipe { flow: FlowId(2), sub: 0 }); // into `next`
            assert!(q.more_now() && !q.next.is_empty());
            q.schedule_maybe_now(10, Event::AckBuilt { flow: FlowId(3), sub: 0 }); // the heap, after it
            q.schedule_maybe_now(20, Event::AckPipe { flow: FlowId(4), sub: 0 });
            let order: Vec<(u64, u32)> = std::iter::from_fn(|| q.pop())
                .map(|(t, e)| match e {
                    Event::Rto { flow, .. } | Event::AckPipe { flow, .. } | Event::AckBuilt { flow, .. } => (t, flow.0),
                    _ => unreachable!(),
                })
                .collect();
            assert_eq!(order, vec![(10, 2), (10, 3), (20, 4)]);
            assert!(!q.more_now());
        }
    }

    /// An event queued late under a number reserved earlier pops where it would
    /// have had it been queued at once.
    #[test]
    fn a_reserved_number_keeps_its_place() {
        let mut q = EventQueue::for_flows(1);
        assert!(q.reserves());
        q.schedule(5, numbered(1, false));
        let seq = q.reserve();
        q.schedule(7, numbered(3, true));
        q.schedule(7, numbered(4, false));
        assert_eq!(q.pop().map(|(t, e)| (t, number(e))), Some((5, 1)));
        assert!(!q.is_past(7, seq) && q.is_past(5, 1));
        q.schedule_reserved(7, seq, numbered(2, false));
        let order: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|(_, e)| number(e)).collect();
        assert_eq!(order, vec![2, 3, 4]);
        assert!(q.is_past(7, seq));
    }

    /// Interleaved schedules and pops, with many ties and times far apart, come out
    /// in the order of a binary heap on (time, sequence), the queue it replaced.
    /// Events of packets and timers interleave (the 4-ary heaps keep them apart).
    #[test]
    fn same_order_as_a_heap_on_time_and_sequence() {
        queues().into_iter().for_each(order_of_a_binary_heap);
    }

    /// A packet's event (a link's or an ACK's, which may take the slot for now) or a
    /// timer, numbered.
    fn numbered(n: u32, timer: bool) -> Event {
        if timer {
            Event::Rto { flow: FlowId(n), sub: 0 }
        } else if n.is_multiple_of(2) {
            Event::TxDone { link: LinkId(n) }
        } else {
            Event::AckPipe { flow: FlowId(n), sub: 0 }
        }
    }

    fn number(e: Event) -> u32 {
        match e {
            Event::Rto { flow, .. } | Event::AckPipe { flow, .. } => flow.0,
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
                let timer = r >> 13 & 1 == 0;
                let ev = numbered(seq, timer);
                match r >> 11 & 3 {
                    0 | 1 => q.schedule(now + delay, ev),
                    2 => q.schedule_maybe_now(now + delay, ev),
                    _ if timer => q.schedule(now + delay, ev),
                    _ => q.schedule_soon(now + delay, ev), // a packet's event
                }
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
