//! A counting global allocator: live bytes, the peak since the last reset,
//! and a hard refusal of any single allocation over [`REFUSE_ABOVE`], so a
//! file that talks the importer into a multi-gigabyte buffer stops the test
//! (naming the case) instead of the machine.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A single allocation above this is refused: the process then aborts with
/// "memory allocation of N bytes failed", after printing the current case.
pub const REFUSE_ABOVE: usize = 1 << 30;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// What is running, printed if an allocation is refused.
pub static CURRENT_CASE: Mutex<String> = Mutex::new(String::new());

pub struct Counting;

impl Counting {
    fn added(size: usize) {
        let live = LIVE.fetch_add(size, Ordering::Relaxed) + size;
        PEAK.fetch_max(live, Ordering::Relaxed);
    }

    fn refuse(size: usize) -> bool {
        if size <= REFUSE_ABOVE {
            return false;
        }
        // No allocation here: the message is already formatted, stderr is
        // unbuffered, and try_lock never waits on the case's owner.
        let mut err = std::io::stderr();
        let _ = err.write_all(b"\nfuzz: refused an allocation over 1 GiB during: ");
        if let Ok(case) = CURRENT_CASE.try_lock() {
            let _ = err.write_all(case.as_bytes());
        }
        let _ = err.write_all(b"\n");
        true
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if Self::refuse(layout.size()) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            Self::added(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if Self::refuse(layout.size()) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            Self::added(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if Self::refuse(new_size) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            Self::added(new_size);
        }
        p
    }
}

/// Starts a measurement: the peak restarts at the live bytes, which are
/// returned as the baseline.
pub fn reset_peak() -> usize {
    let live = LIVE.load(Ordering::Relaxed);
    PEAK.store(live, Ordering::Relaxed);
    live
}

/// The most bytes live at once since [`reset_peak`] returned `baseline`,
/// above that baseline.
pub fn peak_since(baseline: usize) -> usize {
    PEAK.load(Ordering::Relaxed).saturating_sub(baseline)
}
