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
