//! A reused read buffer that yields regions of complete lines and holds the unfinished tail.
//!
//! Owns the buffer and the committed offset: the number of bytes, from where reading started,
//! through the end of the last complete line handed out (or of the last oversized line skipped).
//! Invariant: the committed offset never points inside a line, so a restart from it neither
//! repeats nor loses a line. A line longer than the cap is skipped whole, however long, while
//! memory stays at about the cap plus one chunk.
//!
//! **Not here:** what the lines mean (the prefilter and decode), where the bytes come from
//! (replay passes any reader; the follower passes a file).
//!
//! Hot: one call per chunk, a `memrchr` per chunk, no per-line work. By default a read asks for
//! 256 KiB.

use std::io::{self, Read};
use std::ops::Range;

/// Bytes asked for per read.
pub const CHUNK_BYTES: usize = 256 * 1024;

/// What one read produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Filled {
    /// Bytes read; 0 at end of input.
    pub read: usize,
    /// Oversized lines skipped whole by this read.
    pub oversized: u64,
}

/// The read buffer of one source.
#[derive(Debug)]
pub struct LineBuffer {
    buf: Vec<u8>,
    /// Start of unconsumed bytes in `buf`.
    start: usize,
    /// End of valid bytes in `buf`.
    end: usize,
    /// End of the complete-lines region handed out by [`LineBuffer::lines`] (exclusive).
    complete: usize,
    /// Skipping the rest of an oversized line until its newline.
    discarding: bool,
    max_line_bytes: usize,
    /// Bytes asked for per read.
    chunk_bytes: usize,
    committed: u64,
    /// While discarding: the offset where the oversized line started, which is what a restart
    /// must resume from (so it skips that line again instead of reading its middle as a line).
    discard_from: Option<u64>,
}

impl LineBuffer {
    /// A buffer for lines of at most `max_line_bytes` (longer ones are skipped and reported).
    pub fn new(max_line_bytes: usize) -> LineBuffer {
        LineBuffer::with_chunk(max_line_bytes, CHUNK_BYTES)
    }

    /// A buffer that reads `chunk_bytes` at a time. The memory is taken at the first read.
    pub fn with_chunk(max_line_bytes: usize, chunk_bytes: usize) -> LineBuffer {
        LineBuffer {
            buf: Vec::new(),
            chunk_bytes,
            start: 0,
            end: 0,
            complete: 0,
            discarding: false,
            max_line_bytes,
            committed: 0,
            discard_from: None,
        }
    }

    /// Consumes the region last returned by [`LineBuffer::lines`] and reads one more chunk.
    pub fn fill<R: Read + ?Sized>(&mut self, reader: &mut R) -> io::Result<Filled> {
        self.consume();
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        let chunk = self.chunk_bytes;
        if self.buf.len() - self.end < chunk / 4 {
            let want = (self.buf.len() * 2)
                .min(self.max_line_bytes + chunk + 1)
                .max(self.end + chunk);
            self.buf.resize(want, 0);
        }
        let read = loop {
            match reader.read(&mut self.buf[self.end..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        let fresh = self.end;
        self.end += read;
        let mut oversized = 0;
        if self.discarding {
            match memchr::memchr(b'\n', &self.buf[fresh..self.end]) {
                Some(i) => {
                    self.discarding = false;
                    self.discard_from = None;
                    self.committed += (fresh + i + 1 - self.start) as u64;
                    self.start = fresh + i + 1;
                }
                None => {
                    self.committed += (self.end - self.start) as u64;
                    self.start = self.end;
                }
            }
        }
        self.complete = match memchr::memrchr(b'\n', &self.buf[self.start..self.end]) {
            Some(i) => self.start + i + 1,
            None => self.start,
        };
        let tail = self.end - self.complete;
        if tail > self.max_line_bytes {
            // The unfinished line is already too long: skip it whole, through its newline.
            oversized += 1;
            self.discarding = true;
            self.discard_from = Some(self.committed + (self.complete - self.start) as u64);
            self.committed += tail as u64;
            self.end = self.complete;
        }
        Ok(Filled { read, oversized })
    }

    /// The complete lines read so far and not yet consumed (each ends with `\n`).
    pub fn lines(&self) -> &[u8] {
        &self.buf[self.start..self.complete]
    }

    /// Hands the complete-lines region over without copying it: the read buffer and `spare`
    /// trade places, so `spare` holds the region at the returned range, and the unfinished tail
    /// (shorter than a line) is copied to the front of what was `spare`, the new read buffer.
    /// Consumes the region, like [`LineBuffer::consume`].
    pub fn swap_out_lines(&mut self, spare: &mut Vec<u8>) -> Range<usize> {
        let region = self.start..self.complete;
        self.committed += region.len() as u64;
        let tail = self.end - self.complete;
        if spare.len() < self.buf.len() {
            spare.resize(self.buf.len(), 0);
        }
        spare[..tail].copy_from_slice(&self.buf[self.complete..self.end]);
        std::mem::swap(&mut self.buf, spare);
        (self.start, self.complete, self.end) = (0, 0, tail);
        region
    }

    /// Marks the region returned by [`LineBuffer::lines`] as processed.
    pub fn consume(&mut self) {
        self.committed += (self.complete - self.start) as u64;
        self.start = self.complete;
    }

    /// The unterminated tail, taken as a last line (replay at end of input). Consumes it.
    pub fn take_tail(&mut self) -> Option<Vec<u8>> {
        self.consume();
        if self.discarding || self.end == self.start {
            return None;
        }
        let tail = self.buf[self.start..self.end].to_vec();
        self.committed += tail.len() as u64;
        self.start = self.end;
        self.complete = self.end;
        Some(tail)
    }

    /// The unfinished tail, if there is one and it is not being skipped as oversized. Only
    /// meaningful once the complete lines were consumed.
    pub fn tail(&self) -> Option<&[u8]> {
        (!self.discarding && self.end > self.complete && self.start == self.complete)
            .then(|| &self.buf[self.complete..self.end])
    }

    /// Bytes from where reading started through the last consumed complete line.
    pub fn committed(&self) -> u64 {
        self.discard_from.unwrap_or(self.committed)
    }

    /// Forgets everything held and restarts the committed count at `offset`
    /// (after a truncation or when a file is reopened).
    pub fn reset(&mut self, offset: u64) {
        self.start = 0;
        self.end = 0;
        self.complete = 0;
        self.discarding = false;
        self.discard_from = None;
        self.committed = offset;
    }

    /// Gives the memory back when nothing is held (no unfinished line): a follower of many
    /// quiet files then costs almost nothing per file. The next read takes it again.
    pub fn release_if_idle(&mut self) {
        if self.start == self.end && !self.discarding {
            self.start = 0;
            self.end = 0;
            self.complete = 0;
            self.buf = Vec::new();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A reader that returns at most `.1` bytes per read.
    struct Slow<'a>(&'a [u8], usize);

    impl Read for Slow<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.0.len().min(out.len()).min(self.1);
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// Reads everything through the buffer, returning the complete lines and oversized count.
    fn drain(
        input: &[u8],
        max: usize,
        read_size: usize,
    ) -> (Vec<Vec<u8>>, u64, Option<Vec<u8>>, u64) {
        let mut reader = Slow(input, read_size);
        let mut lb = LineBuffer::new(max);
        let (mut lines, mut oversized) = (Vec::new(), 0);
        loop {
            let f = lb.fill(&mut reader).unwrap();
            oversized += f.oversized;
            for line in lb.lines().split_inclusive(|b| *b == b'\n') {
                lines.push(line.to_vec());
            }
            if f.read == 0 {
                break;
            }
        }
        let tail = lb.take_tail();
        (lines, oversized, tail, lb.committed())
    }

    /// Lines, oversized count and committed offset of reading `input` through a buffer of
    /// 64-byte chunks, taking each region by [`LineBuffer::swap_out_lines`] or by copying it.
    fn read_all(
        input: &[u8],
        max: usize,
        read_size: usize,
        swap: bool,
    ) -> (Vec<Vec<u8>>, u64, u64) {
        let mut reader = Slow(input, read_size);
        let mut lb = LineBuffer::with_chunk(max, 64);
        let (mut lines, mut oversized, mut spare) = (Vec::new(), 0, Vec::new());
        loop {
            let f = lb.fill(&mut reader).unwrap();
            oversized += f.oversized;
            let region = if swap {
                let range = lb.swap_out_lines(&mut spare);
                spare[range].to_vec()
            } else {
                let region = lb.lines().to_vec();
                lb.consume();
                region
            };
            lines.extend(region.split_inclusive(|b| *b == b'\n').map(<[u8]>::to_vec));
            if f.read == 0 {
                break;
            }
        }
        (lines, oversized, lb.committed())
    }

    #[test]
    fn holds_the_tail_until_its_newline() {
        let (lines, oversized, tail, committed) = drain(b"a\nbb\nccc", 100, 3);
        assert_eq!(lines, [b"a\n".to_vec(), b"bb\n".to_vec()]);
        assert_eq!(
            (oversized, tail.as_deref(), committed),
            (0, Some(&b"ccc"[..]), 8)
        );
    }

    #[test]
    fn skips_an_oversized_line_whole_and_goes_on() {
        let mut input = b"ok\n".to_vec();
        input.extend(vec![b'x'; 3 * CHUNK_BYTES]);
        input.extend(b"\nafter\n");
        let (lines, oversized, tail, committed) = drain(&input, 1024, CHUNK_BYTES);
        assert_eq!(lines, [b"ok\n".to_vec(), b"after\n".to_vec()]);
        assert_eq!((oversized, tail, committed), (1, None, input.len() as u64));
    }

    proptest! {
        #[test]
        fn handing_regions_over_yields_what_copying_yields(lines in proptest::collection::vec("[a-z]{0,300}", 0..50), read_size in 1usize..700, max in 50usize..400) {
            let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
            prop_assert_eq!(
                read_all(input.as_bytes(), max, read_size, true),
                read_all(input.as_bytes(), max, read_size, false)
            );
        }

        #[test]
        fn any_split_yields_the_same_lines(lines in proptest::collection::vec("[a-z]{0,40}", 0..50), read_size in 1usize..64) {
            let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
            let (got, oversized, tail, committed) = drain(input.as_bytes(), 1024, read_size);
            let want: Vec<Vec<u8>> = lines.iter().map(|l| format!("{l}\n").into_bytes()).collect();
            prop_assert_eq!(got, want);
            prop_assert_eq!(oversized, 0);
            prop_assert_eq!(tail, None);
            prop_assert_eq!(committed, input.len() as u64);
        }
    }
}
