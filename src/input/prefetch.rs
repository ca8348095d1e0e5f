//! Reads ahead on a second thread, so the kernel's copy into user space overlaps with scanning.
//!
//! On a file in the page cache, `read(2)` is a memory copy that costs about a fifth of replay's
//! time; on a 2-core machine it can run beside the pipeline instead of before it. [`Prefetch`]
//! owns a small pool of buffers that circulate between the reading thread and the consumer, so
//! memory stays at a fixed `DEPTH × BUF_BYTES` whatever the input size.
//!
//! **Not here:** line splitting ([`super::chunk`]); the live follower reads directly (its reads
//! are small and latency matters more than throughput there).

use std::io::{self, Read};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::{self, JoinHandle};

/// Bytes per read-ahead buffer.
pub const BUF_BYTES: usize = 1 << 20;
/// Buffers in flight.
pub const DEPTH: usize = 3;

/// A [`Read`] fed by a read-ahead thread.
pub struct Prefetch {
    full: Receiver<io::Result<Vec<u8>>>,
    empty: SyncSender<Vec<u8>>,
    current: Vec<u8>,
    pos: usize,
    done: bool,
    thread: Option<JoinHandle<()>>,
}

impl Prefetch {
    /// Starts reading `source` ahead.
    pub fn new<R: Read + Send + 'static>(mut source: R) -> Prefetch {
        let (full_tx, full) = mpsc::sync_channel::<io::Result<Vec<u8>>>(DEPTH);
        let (empty, empty_rx) = mpsc::sync_channel::<Vec<u8>>(DEPTH);
        for _ in 0..DEPTH {
            empty
                .send(vec![0; BUF_BYTES])
                .expect("the pool channel holds DEPTH buffers");
        }
        let thread = thread::Builder::new()
            .name("read-ahead".into())
            .spawn(move || {
                while let Ok(mut buf) = empty_rx.recv() {
                    buf.resize(BUF_BYTES, 0);
                    let result = loop {
                        match source.read(&mut buf) {
                            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                            other => break other,
                        }
                    };
                    let (last, message) = match result {
                        Ok(0) => (true, Ok(Vec::new())),
                        Ok(n) => {
                            buf.truncate(n);
                            (false, Ok(buf))
                        }
                        Err(e) => (true, Err(e)),
                    };
                    if full_tx.send(message).is_err() || last {
                        return;
                    }
                }
            })
            .expect("spawning the read-ahead thread");
        Prefetch {
            full,
            empty,
            current: Vec::new(),
            pos: 0,
            done: false,
            thread: Some(thread),
        }
    }
}

impl Read for Prefetch {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.current.len() {
            if self.done {
                return Ok(0);
            }
            let spent = std::mem::take(&mut self.current);
            if spent.capacity() > 0 {
                let _ = self.empty.try_send(spent);
            }
            self.pos = 0;
            match self.full.recv() {
                Ok(Ok(buf)) if buf.is_empty() => self.done = true,
                Ok(Ok(buf)) => self.current = buf,
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(_) => self.done = true,
            }
        }
        let n = out.len().min(self.current.len() - self.pos);
        out[..n].copy_from_slice(&self.current[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

impl Drop for Prefetch {
    fn drop(&mut self) {
        // Unblock the thread: drop our ends, then let it finish its current read.
        let (dead_tx, _) = mpsc::sync_channel(0);
        self.empty = dead_tx;
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
    fn yields_exactly_the_source() {
        let data: Vec<u8> = (0..(3 * BUF_BYTES + 12345))
            .map(|i| (i % 251) as u8)
            .collect();
        let mut prefetch = Prefetch::new(io::Cursor::new(data.clone()));
        let mut out = Vec::new();
        prefetch.read_to_end(&mut out).unwrap();
        assert_eq!(out, data);
    }

    #[test]
    fn dropping_early_does_not_hang() {
        let data = vec![7u8; 10 * BUF_BYTES];
        let mut prefetch = Prefetch::new(io::Cursor::new(data));
        let mut first = [0u8; 10];
        prefetch.read_exact(&mut first).unwrap();
        drop(prefetch);
    }
}
