//! When the reading thread publishes what it counted: changed counters go out on their leading
//! edge, and only bursts are coalesced, at most one publication per [`PUBLISH_GAP`].
//!
//! Owns [`Pacing`]: when the counters were last published, whether that publication carried a
//! burst, and what is held. A change (a wake-up that read lines) is published at once when the
//! gap left by the last publication is over. That gap depends on what the last publication
//! carried: a few lines of one wake-up (a denial appended now and then) leave a short one,
//! [`QUIET_GAP`], so the next change, coming later, goes out as soon as it is read; a burst
//! (changes of several wake-ups coalesced that came on average less than [`BURST_SPACING`] apart,
//! or [`BURST_LINES`] lines or more: a backlog, a busy writer) leaves [`PUBLISH_GAP`], within
//! which what is read is held and goes out at its end. Changes further apart than that are no
//! burst even when a long gap held several of them (a denial every 20 ms holds two or three in a
//! 50 ms gap), so a steady trickle that follows a burst goes back to going out as it comes. So
//! however often reading wakes, a publication (the follower's
//! stats, a copy of the counters, a render per format at the next scrape) is paid at most once
//! per gap during a burst. Counters that did not change are published again every [`REPUBLISH`]
//! (the file lag gauges move without reading).
//!
//! **Not here:** what a publication holds and where it goes (the reader, `crate::web::Shared`).
//! Decides from the instants it is given: the tests drive it with their own clock.
//!
//! Cold: a few comparisons per wake-up.

use std::time::{Duration, Instant};

/// The gap after a publication that coalesced a burst: the shortest time between two
/// publications while changes keep coming.
pub const PUBLISH_GAP: Duration = Duration::from_millis(50);

/// The gap after a publication of a single change: a change within it is held to its end (and
/// a second one makes a burst).
pub const QUIET_GAP: Duration = Duration::from_millis(5);

/// Changes held coalesced make a burst when they came on average closer together than this.
pub const BURST_SPACING: Duration = Duration::from_millis(10);

/// Lines read since the last publication that make a burst, even in one wake-up: a writer
/// busy enough to fill them between two wake-ups (it flushes every few milliseconds) is coalesced
/// like one whose every write wakes the reader.
pub const BURST_LINES: u64 = 256;

/// Counters unchanged since the last publication are published again at least this often.
pub const REPUBLISH: Duration = Duration::from_secs(1);

/// When to publish ([module docs](self)).
#[derive(Debug, Default)]
pub struct Pacing {
    /// When the counters were last published, if ever.
    published_at: Option<Instant>,
    /// The last publication carried a burst: the next waits out the long gap.
    burst: bool,
    /// Changes (wake-ups that read lines) since the last publication.
    held: u32,
    /// Lines read since the last publication.
    held_lines: u64,
}

impl Pacing {
    /// Whether to publish at `now`; `lines` were read since the last call (0: the counters did
    /// not change). Call [`Pacing::published`] when it was done.
    pub fn due(&mut self, now: Instant, lines: u64) -> bool {
        self.held = self.held.saturating_add(u32::from(lines > 0));
        self.held_lines = self.held_lines.saturating_add(lines);
        let Some(at) = self.published_at else {
            return true;
        };
        let since = now.saturating_duration_since(at);
        since >= REPUBLISH || (self.held > 0 && since >= self.gap())
    }

    /// The counters were published at `now`.
    pub fn published(&mut self, now: Instant) {
        let since = self
            .published_at
            .map_or(Duration::MAX, |at| now.saturating_duration_since(at));
        let close = self.held > 1 && since < BURST_SPACING.saturating_mul(self.held);
        self.published_at = Some(now);
        self.burst = close || self.held_lines >= BURST_LINES;
        (self.held, self.held_lines) = (0, 0);
    }

    /// The next publication must happen at once, whatever the gap (the last one, at shutdown).
    pub fn force(&mut self) {
        self.published_at = None;
    }

    /// When held changes go out if nothing else wakes the reader first; `None` when nothing is
    /// held.
    pub fn deadline(&self) -> Option<Instant> {
        let at = self.published_at.filter(|_| self.held > 0)?;
        Some(at + self.gap())
    }

    /// The gap the last publication left.
    fn gap(&self) -> Duration {
        if self.burst {
            PUBLISH_GAP
        } else {
            QUIET_GAP
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    /// A pacing that published at `start` long after anything changed.
    fn settled(start: Instant) -> Pacing {
        let mut pacing = Pacing::default();
        assert!(pacing.due(start, 1), "the first change goes out");
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
                    pacing.due(deadline, 0),
                    "a held change goes out at the gap's end"
                );
                pacing.published(deadline);
                out.push(deadline - start);
            }
            if pacing.due(now, 1) {
                pacing.published(now);
                out.push(at);
            }
        }
        if let Some(deadline) = pacing.deadline() {
            assert!(pacing.due(deadline, 0));
            pacing.published(deadline);
            out.push(deadline - start);
        }
        out
    }

    #[test]
    fn a_change_after_a_quiet_spell_is_published_at_once() {
        let start = Instant::now();
        let mut pacing = settled(start);
        // One change 20 ms after a publication: within the long gap, but no burst.
        assert_eq!(
            publications(&mut pacing, start, &[20 * MS]),
            [20 * MS],
            "published as it came, not at a gap's end"
        );
        // A change every 20 ms: each goes out as it comes.
        let every_20: Vec<Duration> = (2..12).map(|k| k * 20 * MS).collect();
        assert_eq!(publications(&mut pacing, start, &every_20), every_20);
        assert_eq!(pacing.deadline(), None, "nothing held");
    }

    #[test]
    fn a_change_soon_after_a_single_one_waits_the_short_gap_only() {
        let start = Instant::now();
        let mut pacing = settled(start);
        // Two appends 3 ms apart, then one 20 ms later: the second is held to the end of the
        // short gap, and being one change, leaves no long gap for the third.
        let out = publications(&mut pacing, start, &[20 * MS, 23 * MS, 43 * MS]);
        assert_eq!(out, [20 * MS, 25 * MS, 43 * MS]);
    }

    #[test]
    fn a_burst_is_published_on_its_leading_edge_then_once_per_gap() {
        let start = Instant::now();
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
            [1005 * MS, 1055 * MS, 1105 * MS, 1155 * MS, 1205 * MS],
            "then the changes of the short gap, then one publication per long gap, the last at \
             the gap's end after the burst"
        );
        assert_eq!(pacing.deadline(), None, "nothing held once it went out");
        // Quiet again: the next change goes out as it comes.
        assert_eq!(publications(&mut pacing, start, &[1400 * MS]), [1400 * MS]);
    }

    #[test]
    fn a_trickle_after_a_burst_goes_out_as_it_comes_again() {
        let start = Instant::now();
        let mut pacing = settled(start);
        let burst: Vec<Duration> = (1000..1200).map(|k| k * MS).collect();
        assert_eq!(
            publications(&mut pacing, start, &burst).last(),
            Some(&(1205 * MS))
        );
        // Then a change every 20 ms: the long gap the burst left holds three, which came too far
        // apart to be a burst, and each after that goes out as it comes.
        let every_20: Vec<Duration> = (0..10).map(|k| (1210 + 20 * k) * MS).collect();
        let out = publications(&mut pacing, start, &every_20);
        assert_eq!(out[0], 1255 * MS, "the three held to the burst's gap's end");
        assert_eq!(out[1..], every_20[3..], "then each as it comes");
    }

    #[test]
    fn many_lines_in_one_wake_up_are_a_burst() {
        let start = Instant::now();
        let mut pacing = settled(start);
        // A busy writer's flush every 10 ms, read in one wake-up each.
        assert!(
            pacing.due(start + 20 * MS, BURST_LINES),
            "its leading edge at once"
        );
        pacing.published(start + 20 * MS);
        assert!(!pacing.due(start + 30 * MS, BURST_LINES), "then held");
        assert_eq!(pacing.deadline(), Some(start + 20 * MS + PUBLISH_GAP));
        // Fewer lines in one wake-up are no burst: the next change 10 ms later goes out at once.
        let mut quiet = settled(start);
        assert!(quiet.due(start + 20 * MS, BURST_LINES - 1));
        quiet.published(start + 20 * MS);
        assert!(quiet.due(start + 30 * MS, 1));
    }

    #[test]
    fn unchanged_counters_go_out_again_every_republish() {
        let start = Instant::now();
        let mut pacing = settled(start);
        assert!(!pacing.due(start + 999 * MS, 0));
        assert!(pacing.due(start + REPUBLISH, 0));
        pacing.force();
        assert!(pacing.due(start + REPUBLISH, 0), "forced");
    }
}
