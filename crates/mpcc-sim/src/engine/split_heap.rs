//! The event queue of small runs: two 4-ary heaps, one for the packets' events and
//! one for the timers.
//!
//! A subflow keeps a retransmission timer queued at all times, seconds ahead, and
//! almost never popped (612 of the 10-flow dumbbell's 5 million events): in one
//! heap those entries are half of it, and every pop sifts past them. Apart, the
//! packets' heap is about half as large; a pop compares the two tops once.

use super::quad_heap::QuadHeap;
use super::{Entry, Event};
use mpcc_core::Nanos;

pub struct SplitHeap {
    packets: QuadHeap,
    timers: QuadHeap,
}

/// Whether `ev` is a packet's next step (due within a serialisation or a
/// propagation delay) rather than a timer or a run's own event.
#[inline]
fn moves_a_packet(ev: &Event) -> bool {
    matches!(
        ev,
        Event::TxDone { .. }
            | Event::LinkPipe { .. }
            | Event::AckPipe { .. }
            | Event::AckBuilt { .. }
            | Event::NicDone { .. }
    )
}

impl SplitHeap {
    pub fn new() -> Self {
        SplitHeap { packets: QuadHeap::with_capacity(1024), timers: QuadHeap::with_capacity(1024) }
    }

    #[inline]
    pub fn push(&mut self, e: Entry) {
        if moves_a_packet(&e.item) {
            self.packets.push(e)
        } else {
            self.timers.push(e)
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Entry> {
        match (self.packets.top(), self.timers.top()) {
            (Some(p), Some(t)) if (t.time, t.seq) < (p.time, p.seq) => self.timers.pop(),
            (None, Some(_)) => self.timers.pop(),
            _ => self.packets.pop(),
        }
    }

    /// The earliest time queued.
    #[inline]
    pub fn top_time(&self) -> Option<Nanos> {
        match (self.packets.top(), self.timers.top()) {
            (Some(p), Some(t)) => Some(p.time.min(t.time)),
            (p, t) => p.or(t).map(|e| e.time),
        }
    }
}
