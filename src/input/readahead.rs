//! Reads and picks lines ahead on a second thread, so that reading and searching overlap with
//! decoding on a 2-core machine.
//!
//! The read-ahead thread owns the input, a [`LineBuffer`] and a clone of the [`Prefilter`]: it
//! reads a chunk, picks the lines worth decoding ([`Prefilter::pick`], which depends on the bytes
//! alone), and hands the region with its picks to the consumer as a [`Batch`]. Batches circulate
//! through a pool of `DEPTH`, so memory stays at a few chunks whatever the input size.
//!
//! **Not here:** decoding and counting (the consumer, on its own thread); following live files
//! (the follower reads small appends on one thread, where latency matters more).

use std::io::{self, Read};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::{self, JoinHandle};

use super::chunk::LineBuffer;
use super::prefilter::{Pick, Prefilter};

/// Batches in flight.
pub const DEPTH: usize = 3;

/// One region of complete lines with its picks.
#[derive(Debug, Default)]
pub struct Batch {
    /// Holds the region at `range` (it was the reader's buffer: handed over, not copied).
    buffer: Vec<u8>,
    range: std::ops::Range<usize>,
    pub picks: Vec<Pick>,
    /// Lines in `region`.
    pub lines: u64,
    /// Oversized lines skipped whole by the reader before this region.
    pub oversized: u64,
    /// The region is the input's unterminated last line.
    pub is_tail: bool,
}

impl Batch {
    /// Complete lines, each ending in `\n`; or, when `is_tail`, the unterminated last line.
    pub fn region(&self) -> &[u8] {
        &self.buffer[self.range.clone()]
    }
}

/// The consumer's end.
pub struct ReadAhead {
    full: Receiver<io::Result<Batch>>,
    empty: SyncSender<Batch>,
    thread: Option<JoinHandle<()>>,
}

impl ReadAhead {
    /// Starts reading `source` ahead.
    pub fn new<R: Read + Send + 'static>(
        mut source: R,
        prefilter: Prefilter,
        max_line_bytes: usize,
    ) -> ReadAhead {
        let (full_tx, full) = mpsc::sync_channel::<io::Result<Batch>>(DEPTH);
        let (empty, empty_rx) = mpsc::sync_channel::<Batch>(DEPTH);
        for _ in 0..DEPTH {
            empty
                .send(Batch::default())
                .expect("the pool channel holds DEPTH batches");
        }
        let thread = thread::Builder::new()
            .name("read-ahead".into())
            .spawn(move || {
                let mut buffer = LineBuffer::new(max_line_bytes);
                loop {
                    let filled = match buffer.fill(&mut source) {
                        Ok(filled) => filled,
                        Err(e) => {
                            let _ = full_tx.send(Err(e));
                            return;
                        }
                    };
                    let Ok(mut batch) = empty_rx.recv() else {
                        return;
                    };
                    batch.range = buffer.swap_out_lines(&mut batch.buffer);
                    let region = &batch.buffer[batch.range.clone()];
                    batch.lines = prefilter.pick(region, max_line_bytes, &mut batch.picks);
                    batch.oversized = filled.oversized;
                    batch.is_tail = false;
                    if full_tx.send(Ok(batch)).is_err() {
                        return;
                    }
                    if filled.read == 0 {
                        break;
                    }
                }
                if let Some(tail) = buffer.take_tail() {
                    let Ok(mut batch) = empty_rx.recv() else {
                        return;
                    };
                    batch.range = 0..tail.len();
                    batch.buffer = tail;
                    batch.picks.clear();
                    batch.lines = 1;
                    batch.oversized = 0;
                    batch.is_tail = true;
                    let _ = full_tx.send(Ok(batch));
                }
            })
            .expect("spawning the read-ahead thread");
        ReadAhead {
            full,
            empty,
            thread: Some(thread),
        }
    }

    /// The next batch; `None` at the end of the input.
    pub fn next_batch(&mut self) -> Option<io::Result<Batch>> {
        self.full.recv().ok()
    }

    /// Returns a batch's buffers to the pool.
    pub fn recycle(&mut self, batch: Batch) {
        let _ = self.empty.try_send(batch);
    }
}

impl Drop for ReadAhead {
    fn drop(&mut self) {
        // Unblock the thread: drop our pool end, drain what it already sent, then join it.
        let (dead, _) = mpsc::sync_channel(0);
        self.empty = dead;
        while self.full.try_recv().is_ok() {}
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yields_every_line_once_and_the_tail() {
        let mut input = Vec::new();
        for i in 0..50_000 {
            input.extend(format!("{{\"level\":30,\"n\":{i}}}\n").as_bytes());
            if i % 1000 == 0 {
                input.extend(b"{\"event\":\"agent.permission.denied\"}\n");
            }
        }
        input.extend(b"no newline at the end");
        let mut ahead = ReadAhead::new(
            io::Cursor::new(input),
            Prefilter::new(&["agent.permission.denied"]),
            1 << 20,
        );
        let (mut lines, mut picked, mut tail) = (0, 0, None);
        while let Some(batch) = ahead.next_batch() {
            let batch = batch.unwrap();
            if batch.is_tail {
                tail = Some(batch.region().to_vec());
            } else {
                lines += batch.lines;
                picked += batch.picks.len();
            }
            ahead.recycle(batch);
        }
        assert_eq!(lines, 50_050);
        assert_eq!(picked, 50);
        assert_eq!(tail.as_deref(), Some(&b"no newline at the end"[..]));
    }

    #[test]
    fn dropping_early_does_not_hang() {
        let input = vec![b'{'; 8 << 20];
        let mut ahead = ReadAhead::new(
            io::Cursor::new(input),
            Prefilter::new(&["agent.permission.denied"]),
            1 << 20,
        );
        let _ = ahead.next_batch();
        drop(ahead);
    }
}
