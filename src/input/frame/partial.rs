//! Joins the partial chunks of container framing (CRI `P` then `F`, Docker lines without their
//! newline) into whole application lines, per stream, under the line cap.
//!
//! Owns [`ChunkJoiner`]: the pending partial line of each stream of one source file, saved in
//! the state file beside the offset after its last chunk. Invariant: a pending buffer never
//! holds more than `max_line_bytes` bytes, nor keeps more capacity; a line that would grow past
//! the cap is reported once as [`Joined::Oversized`] and its remaining chunks are swallowed
//! until its final one.
//!
//! **Not here:** classifying a physical line ([`super::parse`]), lines a writer cut across two
//! rolled files ([`crate::input::rejoin`]).
//!
//! Cost: nothing for a complete chunk with nothing pending (borrowed through); a joined line
//! costs one allocation of its exact size.

use std::borrow::Cow;

use super::{Frame, Stream};

/// What pushing one frame produced.
#[derive(Debug, PartialEq, Eq)]
pub enum Joined<'a> {
    /// A whole application line (borrowed when the frame was complete on its own and nothing was pending).
    Line(Cow<'a, [u8]>),
    /// A partial chunk was stored; nothing to decode yet.
    Pending,
    /// The line being joined exceeded the cap; reported once per oversized line (on the chunk that crossed the cap); later chunks of that line return `Pending` until its end, which returns `Pending` too and resets.
    Oversized,
}

/// An unfinished line held by a [`ChunkJoiner`], as saved in the state file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SavedPartial {
    pub stderr: bool,
    pub discarding: bool,
    pub content: Vec<u8>,
}

/// Joins partial chunks into whole lines, per stream. One per source file.
///
/// The cap applies to the sum of the chunk contents of one line (for Docker this counts a final
/// `\r`, which is stripped afterwards); a single complete framed chunk over the cap is
/// `Oversized` too. `Plain` frames are never capped here.
#[derive(Debug)]
pub struct ChunkJoiner {
    /// Indexed by [`Stream::index`].
    slots: [Slot; 2],
    max_line_bytes: usize,
}

#[derive(Debug, Default)]
struct Slot {
    /// Content of the unfinished line so far; cleared (capacity kept) when the line ends.
    buf: Vec<u8>,
    state: SlotState,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum SlotState {
    /// No line in progress (`buf` is empty).
    #[default]
    Idle,
    /// At least one partial chunk seen (`buf` may still be empty: chunks can be empty).
    Joining,
    /// The line in progress crossed the cap; its chunks are dropped until its final one.
    Discarding,
}

impl ChunkJoiner {
    #[must_use]
    pub fn new(max_line_bytes: usize) -> ChunkJoiner {
        ChunkJoiner {
            slots: [Slot::default(), Slot::default()],
            max_line_bytes,
        }
    }

    /// Feeds one classified frame. `Plain` frames pass through as `Line(Cow::Borrowed)` and do not disturb pending partials.
    pub fn push<'a>(&mut self, frame: Frame<'a>) -> Joined<'a> {
        match frame {
            Frame::Plain(line) => Joined::Line(Cow::Borrowed(line)),
            Frame::Cri {
                stream,
                partial,
                content,
            } => self.push_chunk(stream, partial, Cow::Borrowed(content), false),
            Frame::Docker {
                stream,
                partial,
                content,
            } => self.push_chunk(stream, partial, Cow::Owned(content), true),
        }
    }

    /// True if any stream holds an unfinished partial line (the caller must then feed every following physical line, not just prefilter hits).
    ///
    /// Also true while the rest of an oversized line is being discarded: its end must be seen.
    #[must_use]
    #[cfg(test)]
    pub fn has_pending(&self) -> bool {
        self.slots.iter().any(|slot| slot.state != SlotState::Idle)
    }

    /// Bytes currently held (for memory accounting).
    ///
    /// Counts the content of unfinished lines; the retained capacity behind it is at most
    /// `max_line_bytes` per stream.
    #[must_use]
    #[cfg(test)]
    pub fn pending_bytes(&self) -> usize {
        self.slots.iter().map(|slot| slot.buf.len()).sum()
    }

    /// The capacity kept for `stream`'s unfinished line.
    #[cfg(test)]
    pub(super) fn capacity(&self, stream: Stream) -> usize {
        self.slots[stream.index()].buf.capacity()
    }

    /// The unfinished lines, for the state file: a restart must resume a partial line where it
    /// was, because the offset saved beside it is already past its earlier chunks.
    #[must_use]
    pub fn save(&self) -> Vec<SavedPartial> {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, slot)| slot.state != SlotState::Idle)
            .map(|(index, slot)| SavedPartial {
                stderr: index == Stream::Stderr.index(),
                discarding: slot.state == SlotState::Discarding,
                content: slot.buf.clone(),
            })
            .collect()
    }

    /// Restores what [`ChunkJoiner::save`] returned.
    pub fn restore(&mut self, saved: &[SavedPartial]) {
        for partial in saved {
            let stream = if partial.stderr {
                Stream::Stderr
            } else {
                Stream::Stdout
            };
            let slot = &mut self.slots[stream.index()];
            slot.buf.clear();
            slot.buf.extend_from_slice(
                &partial.content[..partial.content.len().min(self.max_line_bytes)],
            );
            slot.state = if partial.discarding {
                SlotState::Discarding
            } else {
                SlotState::Joining
            };
        }
    }

    fn push_chunk<'a>(
        &mut self,
        stream: Stream,
        partial: bool,
        content: Cow<'a, [u8]>,
        strip_cr: bool,
    ) -> Joined<'a> {
        let max = self.max_line_bytes;
        let slot = &mut self.slots[stream.index()];
        if slot.state == SlotState::Discarding {
            if !partial {
                slot.state = SlotState::Idle;
            }
            return Joined::Pending;
        }
        let total = slot.buf.len().saturating_add(content.len());
        if total > max {
            slot.buf.clear();
            slot.state = if partial {
                SlotState::Discarding
            } else {
                SlotState::Idle
            };
            return Joined::Oversized;
        }
        if partial {
            append_capped(&mut slot.buf, &content, max);
            slot.state = SlotState::Joining;
            return Joined::Pending;
        }
        slot.state = SlotState::Idle;
        let mut line = if slot.buf.is_empty() {
            content
        } else {
            let mut joined = Vec::with_capacity(total);
            joined.extend_from_slice(&slot.buf);
            joined.extend_from_slice(&content);
            slot.buf.clear();
            Cow::Owned(joined)
        };
        if strip_cr && line.last() == Some(&b'\r') {
            match &mut line {
                Cow::Borrowed(bytes) => *bytes = &bytes[..bytes.len() - 1],
                Cow::Owned(bytes) => {
                    bytes.pop();
                }
            }
        }
        Joined::Line(line)
    }
}

/// Appends `data`, growing `buf` geometrically but never past `max` bytes of capacity.
/// The caller guarantees `buf.len() + data.len() <= max`.
fn append_capped(buf: &mut Vec<u8>, data: &[u8], max: usize) {
    let needed = buf.len() + data.len();
    if needed > buf.capacity() {
        let target = needed.max(buf.capacity().saturating_mul(2).min(max));
        buf.reserve_exact(target - buf.len());
    }
    buf.extend_from_slice(data);
}
