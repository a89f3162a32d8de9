//! A counting global allocator: how much heap the simulator holds, so that a run
//! can stop at a memory limit and save what it has instead of being killed when
//! the machine runs out. The binaries that want it install it with
//! `#[global_allocator]`; elsewhere `in_use()` stays 0 and no limit is enforced.
//! The per-packet path does not allocate, so the counter costs nothing there.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

static IN_USE: AtomicUsize = AtomicUsize::new(0);
/// The most `IN_USE` has been since the start or the last [`reset_peak`].
static PEAK: AtomicUsize = AtomicUsize::new(0);

#[inline]
fn grew(bytes: usize) {
    let now = IN_USE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

pub struct CountingAlloc;

// SAFETY: every call is forwarded unchanged to the system allocator; the counter
// is only bookkeeping.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            grew(new_size);
            IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }
}

/// Heap bytes held through [`CountingAlloc`] (0 where it is not installed).
pub fn in_use() -> usize {
    IN_USE.load(Ordering::Relaxed)
}

/// The most heap held at once since the start or the last [`reset_peak`] (an
/// upper bound: a reallocation counts its old and new block together).
pub fn peak() -> usize {
    PEAK.load(Ordering::Relaxed)
}

/// Starts a new peak from what is held now.
pub fn reset_peak() {
    PEAK.store(in_use(), Ordering::Relaxed);
}

/// Gives back most of a queue's spare capacity once it holds under a quarter of
/// it (keeping at least `floor` and twice what it holds): a run's buffers then
/// follow the current windows and queues, not the largest they ever were (which
/// grows with a run's length: rare long loss-free stretches, a slow start's
/// overshoot). Never called on the per-packet path (`Sim::trim_some` trims a
/// few flows at each periodic check); the contents are untouched, so results
/// cannot change.
pub fn trim_deque<T>(q: &mut std::collections::VecDeque<T>, floor: usize) {
    if q.capacity() > floor.max(4 * q.len()) {
        q.shrink_to(floor.max(2 * q.len()));
    }
}

/// [`trim_deque`] for a `Vec`.
pub fn trim_vec<T>(v: &mut Vec<T>, floor: usize) {
    if v.capacity() > floor.max(4 * v.len()) {
        v.shrink_to(floor.max(2 * v.len()));
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
unsafe extern "C" {
    /// glibc: returns the free memory of the heap to the system (`malloc_trim(3)`).
    fn malloc_trim(pad: usize) -> i32;
}

/// Hands the allocator's free pages back to the system (glibc's `malloc_trim`; a
/// no-op elsewhere). Trimmed buffers free memory inside the heap, which glibc keeps
/// resident: over a long run the churn of a thousand flows' buffers spreads the heap
/// (1000 Reno flows: the same live-heap peak at 60 s and 200 s, yet 19 % more
/// resident memory at 600 s than at 60 s; with this, 0.7 %). Called once per
/// trimming sweep (`Sim::trim_some`), never per packet.
pub fn release_free_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages; it takes no pointer.
    unsafe {
        malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trimming_gives_back_spare_capacity_and_keeps_the_contents() {
        let mut q: std::collections::VecDeque<u64> = (0..1000).collect();
        q.drain(..990);
        q.push_back(7); // wrapped around the ring
        let kept: Vec<u64> = q.iter().copied().collect();
        trim_deque(&mut q, 16);
        assert!(q.capacity() >= 16 && q.capacity() < 64, "{}", q.capacity());
        assert_eq!(q.iter().copied().collect::<Vec<_>>(), kept);
        // Under the floor, or at least a quarter full: left alone.
        let cap = q.capacity();
        trim_deque(&mut q, 16);
        assert_eq!(q.capacity(), cap);
        let mut v: Vec<u8> = Vec::with_capacity(100);
        v.extend([1, 2, 3]);
        trim_vec(&mut v, 4);
        assert!(v.capacity() >= 6 && v.capacity() < 100 && v == [1, 2, 3]);
        let mut w: Vec<u8> = Vec::with_capacity(100);
        w.extend(0..30);
        trim_vec(&mut w, 4);
        assert_eq!(w.capacity(), 100);
    }
}
