//! Turns physical log lines written by a container runtime (CRI `P`/`F` chunks from
//! containerd/CRI-O, Docker json-file objects) back into the application's own lines, passing
//! anything unframed through untouched.
//!
//! One room per job:
//! * [`parse`] classifies one physical line into a [`Frame`]: [`cri`], [`docker`], or plain;
//! * [`partial`]'s [`ChunkJoiner`] joins partial chunks per stream (stdout, stderr) of one source
//!   file, under the line cap. Not to be confused with [`super::rejoin`], which joins a line a
//!   writer cut across two rolled files.
//!
//! **Not here:** no JSON decoding of the application line (only the Docker envelope is
//! unescaped), no counting, no metrics, no I/O.
//!
//! Cost per candidate line: plain lines are rejected after a few bytes (first byte not a digit,
//! no `{"log":"` prefix); the formats' own costs are in their files.

mod cri;
mod docker;
mod partial;
#[cfg(test)]
mod tests;

pub use partial::{ChunkJoiner, Joined, SavedPartial};

/// Which output stream of the container a chunk came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

impl Stream {
    pub(super) fn index(self) -> usize {
        match self {
            Stream::Stdout => 0,
            Stream::Stderr => 1,
        }
    }
}

/// One physical line, classified.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame<'a> {
    /// Not container-framed: the application's own line.
    Plain(&'a [u8]),
    /// CRI-framed chunk (borrowed content).
    Cri {
        stream: Stream,
        partial: bool,
        content: &'a [u8],
    },
    /// Docker json-file chunk (unescaped content, trailing "\n" removed when complete).
    ///
    /// A `\r` before that `\n` is kept here; [`ChunkJoiner::push`] strips it from the joined line.
    Docker {
        stream: Stream,
        partial: bool,
        content: Vec<u8>,
    },
}

/// Classifies one physical line (without its trailing newline). Never fails: anything not
/// recognisably framed (including a `{"log":` object that does not parse, or has no "stream") is `Plain`.
#[must_use]
pub fn parse(line: &[u8]) -> Frame<'_> {
    if let Some(frame) = cri::parse(line) {
        return frame;
    }
    if let Some(frame) = docker::parse(line) {
        return frame;
    }
    Frame::Plain(line)
}
