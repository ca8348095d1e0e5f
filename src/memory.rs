//! Process-wide allocator settings, made once at start-up.
//!
//! Owns the allocator tuning the exporter makes, with glibc:
//! - One arena. Each thread that allocates would get a malloc arena of its own (up to eight per
//!   core), and each arena keeps the memory freed in it; the exporter's threads (reading, HTTP,
//!   inotify, the read-ahead in `replay`) allocate little and seldom at the same time, so one
//!   arena serves them all.
//! - A fixed mmap threshold of 128 KiB (glibc's starting value). glibc otherwise raises the
//!   threshold to the size of each mapped block freed, after which blocks that size (a map's
//!   table as it doubles, a burst's buffer) come from the heap and stay there, freed or not; at
//!   128 KiB they are mapped and given back when freed. The trim threshold is set to match.
//!
//! docs/memory.md has what each saves. musl, which the container image is built with, has a
//! single heap and maps large blocks already; on other platforms this does nothing.
//!
//! **Not here:** what the exporter allocates (each module bounds its own).

/// Applies the settings. Call first thing in `main`, before threads are spawned.
pub fn tune() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::ffi::c_int;
        // glibc's parameter numbers (malloc.h).
        const M_TRIM_THRESHOLD: c_int = -1;
        const M_MMAP_THRESHOLD: c_int = -3;
        const M_ARENA_MAX: c_int = -8;
        /// Blocks this large or larger are mapped on their own, and unmapped when freed.
        const LARGE_BLOCK: c_int = 128 * 1024;
        extern "C" {
            fn mallopt(param: c_int, value: c_int) -> c_int;
        }
        for (param, value) in [
            (M_ARENA_MAX, 1),
            (M_MMAP_THRESHOLD, LARGE_BLOCK),
            (M_TRIM_THRESHOLD, LARGE_BLOCK),
        ] {
            // SAFETY: `mallopt` is glibc's documented, thread-safe call to set an allocator
            // parameter; it takes two integers and touches no memory of ours.
            let _ = unsafe { mallopt(param, value) };
        }
    }
}
