//! The event queue of small runs: two 4-ary heaps, one for the packets' events and
//! one for the timers.
//!
//! A subflow keeps a retransmission timer queued at all times, seconds ahead, and
//! almost never popped (612 of the 10-flow dumbbell's 5 million events): in one
//! heap those entries are half of it, and every pop sifts past them. Apart, the
//! packets' heap is about half as large; a pop compares the two tops once.
//!
//! A link's next `TxDone`, due within a serialisation time, may wait in a slot of
//! its own (`front`, `push_soon`) instead of the packets' heap: it is usually the
//! next event, and then it goes in and out with a comparison of the heaps' tops
//! instead of two sifts (the two-path LIA connection's fast link: one per packet).

use super::quad_heap::{before, QuadHeap};
use super::{Entry, Event};
use mpcc_core::Nanos;

pub struct SplitHeap {
    /// One packet's event outside the heaps (`push_soon`), in order with them.
    front: Option<Entry>,
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
        SplitHeap { front: None, packets: QuadHeap::with_capacity(1024), timers: QuadHeap::with_capacity(1024) }
    }

    #[inline]
    pub fn push(&mut self, e: Entry) {
        if moves_a_packet(&e.item) {
            self.packets.push(e)
        } else {
            self.timers.push(e)
        }
    }

    /// `push` of a packet's event likely to be the next to pop: into the front slot,
    /// or, when that is taken, the later of the two into the packets' heap.
    #[inline]
    pub fn push_soon(&mut self, e: Entry) {
        debug_assert!(moves_a_packet(&e.item));
        match &mut self.front {
            None => self.front = Some(e),
            Some(f) => {
                let later = if before(&e, f) { std::mem::replace(f, e) } else { e };
                self.packets.push(later);
            }
        }
    }

    /// The earliest entry of the two heaps.
    #[inline]
    fn heaps_top(&self) -> Option<&Entry> {
        match (self.packets.top(), self.timers.top()) {
            (Some(p), Some(t)) => Some(if before(t, p) { t } else { p }),
            (p, t) => p.or(t),
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Entry> {
        if let Some(f) = &self.front {
            if self.heaps_top().is_none_or(|h| before(f, h)) {
                return self.front.take();
            }
        }
        match (self.packets.top(), self.timers.top()) {
            (Some(p), Some(t)) if (t.time, t.seq) < (p.time, p.seq) => self.timers.pop(),
            (None, Some(_)) => self.timers.pop(),
            _ => self.packets.pop(),
        }
    }

    /// Whether an event at `t` is queued, when none is queued before `t` (the time of
    /// the latest event popped): whether some top is at `t`, without their minimum.
    #[inline(always)]
    pub fn has_at(&self, t: Nanos) -> bool {
        let at = |e: Option<&Entry>| e.is_some_and(|e| e.time == t);
        at(self.front.as_ref()) || at(self.packets.top()) || at(self.timers.top())
    }
}
