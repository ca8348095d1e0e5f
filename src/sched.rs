//! Asks the kernel to wake the HTTP threads quickly: a short scheduling slice for the threads
//! that answer scrapes.
//!
//! Owns one system call. On a busy 2-core node the executor and the reading thread keep both
//! cores, and a scrape waits for a core longer than it takes to answer. Linux's EEVDF scheduler
//! (6.6 and later; custom slices from 6.12) gives a task that asks for a shorter slice an earlier
//! deadline, so it runs soon after it wakes, without more CPU share and without privileges
//! (unlike a nice value below 0). Older kernels refuse or ignore the request; either is fine.
//!
//! **Not here:** which threads ask ([`crate::run`]).

/// The slice asked for: the kernel's minimum.
const SLICE_NANOS: u64 = 100_000;

/// Asks for a short slice for the calling thread, keeping its policy (`SCHED_OTHER`) and nice
/// value. Returns false if the kernel refused.
pub fn prefer_low_latency() -> bool {
    #[cfg(target_os = "linux")]
    {
        // `struct sched_attr`, SCHED_ATTR_SIZE_VER0.
        #[repr(C)]
        struct SchedAttr {
            size: u32,
            policy: u32,
            flags: u64,
            nice: i32,
            priority: u32,
            runtime: u64,
            deadline: u64,
            period: u64,
        }
        // SAFETY: getpriority only reads the calling thread's nice value.
        let nice = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
        let attr = SchedAttr {
            size: std::mem::size_of::<SchedAttr>() as u32,
            policy: libc::SCHED_OTHER as u32,
            flags: 0,
            nice,
            priority: 0,
            runtime: SLICE_NANOS,
            deadline: 0,
            period: 0,
        };
        // SAFETY: the kernel reads `size` bytes of `attr`, which lives through the call; pid 0 is
        // the calling thread.
        let rc = unsafe { libc::syscall(libc::SYS_sched_setattr, 0, &attr as *const SchedAttr, 0) };
        rc == 0
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}
