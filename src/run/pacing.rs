//! When the reading thread publishes what it counted: changed counters go out at once unless
//! they are part of a burst, and a burst goes out at most once per [`PUBLISH_GAP`].
//!
//! Owns [`Pacing`]: the time of the last publication and of the last change, and whether a
//! change is held. A change that follows a quiet spell (no change for [`BURST_SPACING`]) is
//! published on its leading edge, without waiting: a denial appended now and then is in
//! `/metrics` as soon as it is read. Changes closer together than that are a burst (a backlog, a
//! busy writer): after a publication, the changes of a burst within the gap are held and go out
//! at its end, so however often reading wakes, a publication (the follower's stats, a copy of the
//! counters, a render per format at the next scrape) is paid at most once per gap. Counters that
//! did not change are published again every [`REPUBLISH`] (the file lag gauges move without
//! reading).
//!
//! **Not here:** what a publication holds and where it goes (the reader, `crate::web::Shared`).
//! Decides from the instants it is given: the tests drive it with their own clock.
//!
//! Cold: a few comparisons per wake-up.

use std::time::{Duration, Instant};

/// The shortest time between two publications of changed counters within a burst.
pub const PUBLISH_GAP: Duration = Duration::from_millis(50);

/// Changes closer together than this are one burst; a change after a longer quiet spell is
/// published at once.
pub const BURST_SPACING: Duration = Duration::from_millis(10);

/// Counters unchanged since the last publication are published again at least this often.
pub const REPUBLISH: Duration = Duration::from_secs(1);

/// When to publish ([module docs](self)).
#[derive(Debug, Default)]
pub struct Pacing {
    /// When the counters were last published, if ever.
    published_at: Option<Instant>,
    /// When the counters last changed, if ever.
    changed_at: Option<Instant>,
    /// Counters changed since they were last published, and are held for the gap's end.
    held: bool,
}

impl Pacing {
    /// Whether to publish at `now`; `changed` says whether the counters changed since the last
    /// call. Call [`Pacing::published`] when it was done.
    pub fn due(&mut self, now: Instant, changed: bool) -> bool {
        if changed {
            let quiet = self
                .changed_at
                .is_none_or(|at| now.saturating_duration_since(at) >= BURST_SPACING);
            self.changed_at = Some(now);
            self.held = true;
            if quiet {
                return true; // the leading edge
            }
        }
        let Some(at) = self.published_at else {
            return true;
        };
        let since = now.saturating_duration_since(at);
        since >= REPUBLISH || (self.held && since >= PUBLISH_GAP)
    }

    /// The counters were published at `now`.
    pub fn published(&mut self, now: Instant) {
        self.published_at = Some(now);
        self.held = false;
    }

    /// The next publication must happen at once, whatever the gap (the last one, at shutdown).
    pub fn force(&mut self) {
        self.published_at = None;
    }

    /// When held changes go out if nothing else wakes the reader first; `None` when nothing is
    /// held.
    pub fn deadline(&self) -> Option<Instant> {
        let at = self.published_at.filter(|_| self.held)?;
        Some(at + PUBLISH_GAP)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    /// A pacing that published at `start` long after anything changed.
    fn settled(start: Instant) -> Pacing {
        let mut pacing = Pacing::default();
        assert!(pacing.due(start, true), "the first change goes out");
        pacing.published(start);
        pacing
    }

    /// Wakes the reader at `start + at` for each of `at` (a change each), and at the held
    /// deadline whenever it comes first; the instants of the publications.
    fn publications(pacing: &mut Pacing, start: Instant, changes: &[Duration]) -> Vec<Duration> {
        let mut out = Vec::new();
        for &at in changes {
            let now = start + at;
            if let Some(deadline) = pacing.deadline().filter(|&d| d < now) {
                assert!(
                    pacing.due(deadline, false),
                    "a held change goes out at the gap's end"
                );
                pacing.published(deadline);
                out.push(deadline - start);
            }
            if pacing.due(now, true) {
                pacing.published(now);
                out.push(at);
            }
        }
        if let Some(deadline) = pacing.deadline() {
            assert!(pacing.due(deadline, false));
            pacing.published(deadline);
            out.push(deadline - start);
        }
        out
    }

    #[test]
    fn a_change_after_a_quiet_spell_is_published_at_once() {
        let start = Instant::now();
        let mut pacing = settled(start);
        // One change 20 ms after a publication: within the gap, but no burst.
        assert_eq!(
            publications(&mut pacing, start, &[20 * MS]),
            [20 * MS],
            "published as it came, not at the gap's end"
        );
        // A change every 20 ms: each goes out as it comes.
        let every_20: Vec<Duration> = (2..12).map(|k| k * 20 * MS).collect();
        assert_eq!(publications(&mut pacing, start, &every_20), every_20);
        assert_eq!(pacing.deadline(), None, "nothing held");
    }

    #[test]
    fn a_burst_is_published_on_its_leading_edge_then_once_per_gap() {
        let start = Instant::now() + 10 * MS;
        let mut pacing = settled(start);
        // A change every millisecond for 200 ms, starting after a quiet second.
        let burst: Vec<Duration> = (1000..1200).map(|k| k * MS).collect();
        let out = publications(&mut pacing, start, &burst);
        assert_eq!(
            out[0],
            1000 * MS,
            "the burst's first change goes out at once"
        );
        assert_eq!(
            out[1..],
            [1050 * MS, 1100 * MS, 1150 * MS, 1200 * MS],
            "then one publication per gap, the last at the gap's end after the burst"
        );
        assert_eq!(pacing.deadline(), None, "nothing held once it went out");
    }

    #[test]
    fn unchanged_counters_go_out_again_every_republish() {
        let start = Instant::now();
        let mut pacing = settled(start);
        assert!(!pacing.due(start + 999 * MS, false));
        assert!(pacing.due(start + REPUBLISH, false));
        pacing.force();
        assert!(pacing.due(start + REPUBLISH, false), "forced");
    }
}
