//! The process's own metrics: the `process_*` families every Prometheus client library serves
//! (CPU time, resident and virtual memory, open and maximum file descriptors, start time), so
//! queries and dashboards written for node_exporter or any Go exporter work here too.
//!
//! Owns reading them from `/proc/self` at each scrape, as the Go client's procfs does: one read
//! of `/proc/self/stat` (CPU ticks, memory, start ticks), one listing of `/proc/self/fd`, one
//! `getrlimit(RLIMIT_NOFILE)`. The clock tick, the page size and the boot time (`/proc/stat`)
//! never change and are read once. A value that cannot be read (no `/proc`, a `hidepid` mount)
//! is left out, its family with it, and logged once; a scrape never fails for it.
//!
//! **Not here:** names and help texts ([`crate::vocab::families`]), where these families go in a
//! `/metrics` body ([`super::routes::metrics_body`]), the format ([`crate::exposition`]).
//!
//! Cost: per scrape, a median 15.5 µs for all of it with a few descriptors open (`bench_read`
//! below, release build), growing with the descriptors listed; `BENCH_ONLY=scrape bench/live.sh`
//! measures whole scrapes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use tracing::warn;

use crate::exposition::{Describe, Emit};
use crate::vocab::families as f;

/// One reading of the process's figures; `None` where `/proc` did not tell.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProcessStats {
    /// User and system CPU time, in seconds.
    pub cpu_seconds: Option<f64>,
    pub open_fds: Option<u64>,
    /// The soft limit of open files.
    pub max_fds: Option<u64>,
    pub virtual_bytes: Option<u64>,
    pub resident_bytes: Option<u64>,
    /// Seconds since the epoch.
    pub start_time_seconds: Option<f64>,
}

impl ProcessStats {
    /// Reads this process's figures now.
    pub fn read() -> ProcessStats {
        let host = Host::get();
        let stat = std::fs::read_to_string("/proc/self/stat")
            .ok()
            .and_then(|text| Stat::parse(&text));
        let open_fds = std::fs::read_dir("/proc/self/fd")
            .ok()
            .map(|dir| dir.count() as u64);
        let max_fds = rustix::process::getrlimit(rustix::process::Resource::Nofile).current;
        let stats = ProcessStats::of(stat.as_ref(), host, open_fds, max_fds);
        if stat.is_none() || open_fds.is_none() {
            static WARNED: AtomicBool = AtomicBool::new(false);
            if !WARNED.swap(true, Ordering::Relaxed) {
                warn!(
                    stat = stat.is_some(),
                    fd = open_fds.is_some(),
                    "cannot read /proc/self: some process_* metrics are left out"
                );
            }
        }
        stats
    }

    /// The figures from what was read.
    fn of(
        stat: Option<&Stat>,
        host: &Host,
        open_fds: Option<u64>,
        max_fds: Option<u64>,
    ) -> ProcessStats {
        let seconds = |ticks: u64| ticks as f64 / host.ticks_per_second;
        ProcessStats {
            cpu_seconds: stat.map(|s| seconds(s.utime.saturating_add(s.stime))),
            open_fds,
            max_fds,
            virtual_bytes: stat.map(|s| s.vsize),
            resident_bytes: stat.map(|s| s.rss_pages.saturating_mul(host.page_bytes)),
            start_time_seconds: stat
                .zip(host.boot_time)
                .map(|(s, boot)| boot + seconds(s.starttime)),
        }
    }

    /// Figures with every value set, for tests.
    #[cfg(test)]
    pub fn example() -> ProcessStats {
        ProcessStats {
            cpu_seconds: Some(12.34),
            open_fds: Some(17),
            max_fds: Some(65536),
            virtual_bytes: Some(123_456_512),
            resident_bytes: Some(9_437_184),
            start_time_seconds: Some(1_781_251_000.25),
        }
    }
}

/// The `process_*` families, each left out when its value is unknown.
impl Describe for ProcessStats {
    fn describe(&self, out: &mut impl Emit) {
        if let Some(cpu) = self.cpu_seconds {
            out.single(f::PROCESS_CPU, cpu);
        }
        for (family, value) in [
            (f::PROCESS_OPEN_FDS, self.open_fds),
            (f::PROCESS_MAX_FDS, self.max_fds),
            (f::PROCESS_VIRTUAL_MEMORY, self.virtual_bytes),
            (f::PROCESS_RESIDENT_MEMORY, self.resident_bytes),
        ] {
            if let Some(value) = value {
                out.family(family);
                out.integer(&[], value);
            }
        }
        if let Some(start) = self.start_time_seconds {
            out.single(f::PROCESS_START_TIME, start);
        }
    }
}

/// What never changes while the process runs.
#[derive(Debug)]
struct Host {
    ticks_per_second: f64,
    page_bytes: u64,
    /// Seconds since the epoch (`btime` of `/proc/stat`).
    boot_time: Option<f64>,
}

impl Host {
    fn get() -> &'static Host {
        static HOST: OnceLock<Host> = OnceLock::new();
        HOST.get_or_init(|| {
            // SAFETY: sysconf reads a constant of the system and has no preconditions.
            let (ticks, page) = unsafe {
                (
                    libc::sysconf(libc::_SC_CLK_TCK),
                    libc::sysconf(libc::_SC_PAGESIZE),
                )
            };
            Host {
                ticks_per_second: if ticks > 0 { ticks as f64 } else { 100.0 },
                page_bytes: u64::try_from(page).ok().filter(|&p| p > 0).unwrap_or(4096),
                boot_time: std::fs::read_to_string("/proc/stat")
                    .ok()
                    .and_then(|text| boot_time(&text)),
            }
        })
    }
}

/// The boot time from the text of `/proc/stat`.
fn boot_time(proc_stat: &str) -> Option<f64> {
    proc_stat
        .lines()
        .find_map(|line| line.strip_prefix("btime "))
        .and_then(|n| n.trim().parse::<u64>().ok())
        .map(|n| n as f64)
}

/// The fields of `/proc/self/stat` read here (proc(5)).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stat {
    /// Clock ticks in user mode.
    utime: u64,
    /// Clock ticks in kernel mode.
    stime: u64,
    /// Clock ticks after boot when the process started.
    starttime: u64,
    /// Bytes.
    vsize: u64,
    rss_pages: u64,
}

impl Stat {
    /// Parses the one line of `/proc/<pid>/stat`. The command name (field 2) is in parentheses
    /// and may hold spaces and parentheses itself: the fields are counted after the last `)`.
    fn parse(text: &str) -> Option<Stat> {
        let (_, rest) = text.rsplit_once(')')?;
        // Field 3 (state) is the first after the name; field n is at index n - 3.
        let fields: Vec<&str> = rest.split_ascii_whitespace().collect();
        let field = |n: usize| fields.get(n - 3)?.parse::<u64>().ok();
        Some(Stat {
            utime: field(14)?,
            stime: field(15)?,
            starttime: field(22)?,
            vsize: field(23)?,
            rss_pages: field(24)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exposition::render_text;

    const STAT: &str = "4242 (we ird) name)) S 1 4242 4242 0 -1 4194560 2046 0 0 0 \
                        150 25 0 0 20 0 4 0 360000 123456789 2304 18446744073709551615 1 1 0 0 0 \
                        0 0 4096 17922 0 0 0 17 1 0 0 0 0 0\n";

    #[test]
    fn reads_the_fields_after_the_command_name() {
        assert_eq!(
            Stat::parse(STAT),
            Some(Stat {
                utime: 150,
                stime: 25,
                starttime: 360000,
                vsize: 123456789,
                rss_pages: 2304,
            })
        );
        assert_eq!(Stat::parse("4242 (cut short) S 1 2 3"), None);
        assert_eq!(Stat::parse("no parenthesis"), None);
    }

    #[test]
    fn figures_come_from_ticks_pages_and_the_boot_time() {
        let host = Host {
            ticks_per_second: 100.0,
            page_bytes: 4096,
            boot_time: boot_time("cpu  1 2 3\nbtime 1781250000\nprocesses 9\n"),
        };
        let stats = ProcessStats::of(Stat::parse(STAT).as_ref(), &host, Some(9), Some(1024));
        assert_eq!(stats.cpu_seconds, Some(1.75));
        assert_eq!(stats.resident_bytes, Some(2304 * 4096));
        assert_eq!(stats.virtual_bytes, Some(123456789));
        assert_eq!(stats.start_time_seconds, Some(1781253600.0));
        assert_eq!((stats.open_fds, stats.max_fds), (Some(9), Some(1024)));

        // Without the stat line, what needs it is left out, families and all.
        let partial = ProcessStats::of(None, &host, Some(9), None);
        let text = render_text(&partial);
        assert_eq!(
            text,
            "# HELP process_open_fds Number of open file descriptors.\n\
             # TYPE process_open_fds gauge\nprocess_open_fds 9\n"
        );
    }

    /// Microseconds per [`ProcessStats::read`], median of rounds (`cargo test --release --lib
    /// process::tests::bench -- --ignored --nocapture`): what each scrape adds.
    #[test]
    #[ignore = "a benchmark: run it in a release build"]
    fn bench_read() {
        let mut rounds: Vec<f64> = (0..9)
            .map(|_| {
                let start = std::time::Instant::now();
                for _ in 0..2000 {
                    std::hint::black_box(ProcessStats::read());
                }
                start.elapsed().as_secs_f64() * 1e6 / 2000.0
            })
            .collect();
        rounds.sort_by(f64::total_cmp);
        let fds = ProcessStats::read().open_fds.unwrap_or(0);
        println!(
            "ProcessStats::read with {fds} open fds: median {:.1} us (rounds {rounds:.1?})",
            rounds[rounds.len() / 2]
        );
    }

    #[test]
    fn this_process_is_read_from_proc() {
        let stats = ProcessStats::read();
        let resident = stats.resident_bytes.expect("resident memory");
        assert!(resident > 1024 * 1024, "{stats:?}");
        assert!(stats.virtual_bytes.expect("virtual memory") >= resident);
        let open = stats.open_fds.expect("open fds");
        assert!(
            open >= 3 && open <= stats.max_fds.expect("max fds"),
            "{stats:?}"
        );
        assert!(stats.cpu_seconds.expect("cpu") >= 0.0);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        let start = stats.start_time_seconds.expect("start time");
        // The test binary started before this test, within the hour.
        assert!(
            start <= now + 1.0 && start > now - 3600.0,
            "{start} vs {now}"
        );
    }
}
