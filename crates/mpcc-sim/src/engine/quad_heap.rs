//! A 4-ary implicit heap: the event queue of small runs (two of them, split_heap.rs).

use super::Entry;

/// A min-heap on (time, sequence) with four children per node: half the levels of
/// a binary heap, and the four children of a node share a cache line or two. With
/// the few dozen events a small run keeps queued, a pop is two or three levels of
/// three comparisons each.
pub struct QuadHeap {
    heap: Vec<Entry>,
}

#[inline]
pub(super) fn before(a: &Entry, b: &Entry) -> bool {
    (a.time, a.seq) < (b.time, b.seq)
}

impl QuadHeap {
    pub fn with_capacity(n: usize) -> Self {
        QuadHeap { heap: Vec::with_capacity(n) }
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

    /// The earliest entry.
    #[inline]
    pub fn top(&self) -> Option<&Entry> {
        self.heap.first()
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Entry> {
        let h = &mut self.heap;
        let top = *h.first()?;
        let last = h.pop().expect("not empty");
        if !h.is_empty() {
            self.sift_down(last);
        }
        Some(top)
    }

    /// Puts `e` into the hole at the root, moving it down to its place.
    #[inline]
    fn sift_down(&mut self, e: Entry) {
        let h = &mut self.heap;
        let n = h.len();
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
            if !before(&h[min], &e) {
                break;
            }
            h[i] = h[min];
            i = min;
        }
        h[i] = e;
    }
}
