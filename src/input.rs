//! Bytes from files → complete application lines, with where they came from.
//!
//! * [`chunk`]: a reused read buffer that hands out regions of complete lines and holds the
//!   unfinished tail; it knows the committed offset (the byte after the last whole line).
//! * [`prefilter`]: the multi-literal search that picks the few lines worth decoding.
//! * [`readahead`]: reading and picking on a second thread (replay).
//! * [`frame`]: CRI and Docker json-file framing undone, partial chunks joined.
//! * [`identity`] and [`follow`]: file identity and the live follower (rotation, truncation),
//!   which hands what it read to a [`follow::Sink`]. Its parts are in `follow/`: `followed` (one
//!   file: a truncation noticed, its descriptor parked), `paths` (the globs, oldest first),
//!   `open` (fresh or from the state), `drain` (one file to its end), `report` (state entries
//!   and counters), and the passes that decide which files a wake-up reads.
//! * [`roll`] and [`rejoin`]: the order of numbered rolls, and lines a writer cut across two.
//! * [`compressed`]: gzip rolls, told by their magic bytes, read decompressed from an offset.
//! * [`watch`]: inotify on the roots of the globs, set up again when a root is replaced.
//!
//! **Not here:** JSON (decode), counting (account), the flags and the configuration: what it needs
//! of them (the patterns, the line cap, the literals to search for) it is given. A leaf: nothing
//! here uses another module of the crate, and nothing parses an application line or knows what a
//! denial is beyond the literals it was given.

pub mod chunk;
pub mod compressed;
pub mod follow;
pub mod frame;
pub mod identity;
pub mod prefilter;
pub mod readahead;
pub mod rejoin;
pub mod roll;
pub mod watch;
