//! A 4-ary implicit heap: the event queue of small runs.

use super::Entry;
use mpcc_core::Nanos;

/// A min-heap on (time, sequence) with four children per node: half the levels of
/// a binary heap, and the four children of a node share a cache line or two. With
/// the few dozen events a small run keeps queued, a pop is two or three levels of
/// three comparisons each.
pub struct QuadHeap {
    heap: Vec<Entry>,
    /// The time of the latest event popped.
    pub(super) now: Nanos,
}

#[inline]
fn before(a: &Entry, b: &Entry) -> bool {
    (a.time, a.seq) < (b.time, b.seq)
}

impl QuadHeap {
    pub fn new() -> Self {
        QuadHeap { heap: Vec::with_capacity(1024), now: 0 }
    }

    #[inline]
    pub fn push(&mut self, e: Entry) {
        let h = &mut self.heap;
        let mut i = h.len();
        h.push(e);
        while i > 0 {
            let parent = (i - 1) / 4;
            if !before(&e, &h[parent]) {
                break;
            }
            h[i] = h[parent];
            i = parent;
        }
        h[i] = e;
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Entry> {
        let h = &mut self.heap;
        let top = *h.first()?;
        let last = h.pop().expect("not empty");
        let n = h.len();
        if n > 0 {
            // Sift the last entry down from the root into the hole.
            let mut i = 0;
            loop {
                let first = 4 * i + 1;
                if first >= n {
                    break;
                }
                let mut min = first;
                for c in first + 1..(first + 4).min(n) {
                    if before(&h[c], &h[min]) {
                        min = c;
                    }
                }
                if !before(&h[min], &last) {
                    break;
                }
                h[i] = h[min];
                i = min;
            }
            h[i] = last;
        }
        self.now = top.time;
        Some(top)
    }

    /// Whether an event at the time of the latest popped is still queued.
    #[inline]
    pub fn more_now(&self) -> bool {
        self.heap.first().is_some_and(|e| e.time == self.now)
    }
}
