//! The streaming ftrace export holds a bounded part of the run: the memory it takes does not
//! grow with the run's length, where the trace it writes does. (One test in this binary: the
//! allocator below counts every allocation of the process.)

use fairground_sim::interop::write_ftrace;
use fairground_sim::parse_scenario;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = LIVE.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call is forwarded to the system allocator unchanged; only sizes are counted.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        grew(l.size());
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new > l.size() {
            grew(new - l.size());
        } else {
            LIVE.fetch_sub(l.size() - new, Relaxed);
        }
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Counts what it is given, keeps nothing.
struct Bytes(u64);

impl std::io::Write for Bytes {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len() as u64;
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// (bytes written, most memory held meanwhile above what was held before).
fn export(duration_ms: u64) -> (u64, usize) {
    let text = format!(
        r#"{{ "format": "fairground-scenario/1", "name": "sleepers", "duration_ms": {duration_ms}, "machine": {{ "cpus": 2 }},
            "scheduler": {{ "policy": "eevdf-v6.12" }},
            "tasks": [ {{ "name": "s", "count": 6, "behavior": {{ "kind": "bursty", "run_us": 50, "sleep_us": 150 }} }} ] }}"#
    );
    let v = parse_scenario(&text).expect("valid");
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let mut out = Bytes(0);
    write_ftrace(&v, &mut out).expect("writes");
    (out.0, PEAK.load(Relaxed) - base)
}

#[test]
fn the_export_holds_the_same_memory_for_a_run_three_times_longer() {
    let (short_bytes, short_peak) = export(2000);
    let (long_bytes, long_peak) = export(6000);
    eprintln!("{short_bytes} bytes with {short_peak} bytes held; {long_bytes} bytes with {long_peak} bytes held");
    assert!(long_bytes > 2 * short_bytes);
    assert!(long_peak < short_peak + short_peak / 4, "{long_peak} bytes held for a run 3 times as long, {short_peak} for the shorter");
}
