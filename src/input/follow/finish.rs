//! Finishing a file from its compressed roll: a state entry's file was rotated and gzipped while
//! the exporter was down (logrotate's `compress` without `delaycompress`, or a roll it compressed
//! one rotation later; the kubelet's rolls), so the only copy of its unread end is the `.gz`.
//!
//! Owns [`Follower::finish_compressed`]: the `.gz` ([`crate::input::compressed`], matched by the
//! hash of its decompressed head) is read from the entry's offset in the decompressed stream to
//! its end, every complete line handed to the [`Sink`] as a file resumed from its entry, and let
//! go at once (a compressed roll is never written again). An unterminated last piece is kept as
//! an orphan for the file that continues it, as for any file let go.
//!
//! **Not here:** finding the `.gz` ([`super::paths`]), reading plain files ([`super::drain`]).
//!
//! Cold: at a restart, one full decompression per entry finished this way; memory: one read
//! chunk and the decompressor's window.

use std::path::Path;

use tracing::{info, warn};

use super::{FileState, Follower, Opened, Sink};
use crate::input::chunk::LineBuffer;
use crate::input::compressed;

impl Follower {
    /// Reads `entry`'s file from its compressed roll `gz`, from the saved offset to the end.
    /// Not interrupted by the stop flag: the state written next no longer lists the entry, so
    /// the roll must be read to its end before it.
    pub(super) fn finish_compressed(&mut self, entry: FileState, gz: &Path, sink: &mut impl Sink) {
        let reader = match compressed::open_at(gz, entry.offset) {
            Ok(reader) => reader,
            Err(error) => {
                self.stats.file_errors_read += 1;
                warn!(path = %gz.display(), %error, "cannot read compressed roll; its state entry is dropped");
                return self.drop_entry(entry, sink);
            }
        };
        info!(path = %entry.path, now = %gz.display(), offset = entry.offset,
              "file compressed while stopped; finishing it from its compressed roll");
        let id = self.next_id;
        self.next_id += 1;
        sink.opened(&Opened {
            id,
            path: gz,
            inode: entry.inode,
            resumed: true,
        });
        let mut buffer =
            LineBuffer::with_chunk(self.config.max_line_bytes, self.config.read_chunk_bytes);
        buffer.reset(entry.offset);
        let mut tail = entry.fragment.clone();
        if let Some(mut reader) = reader {
            loop {
                let filled = match buffer.fill(&mut reader) {
                    Ok(filled) => filled,
                    Err(error) => {
                        // A stream cut short: what it held is read; the rest is in no file.
                        self.stats.file_errors_read += 1;
                        warn!(path = %gz.display(), %error, "compressed roll ends early");
                        break;
                    }
                };
                if filled.oversized > 0 {
                    sink.oversized(id, filled.oversized);
                }
                sink.lines(id, buffer.lines());
                if filled.read == 0 {
                    break;
                }
            }
            buffer.consume();
            tail = buffer.tail().map(<[u8]>::to_vec);
        }
        if let Some(fragment) = tail {
            self.keep_entry_fragment(&entry, fragment, sink);
        }
        sink.closed(id);
        self.stats.compressed_finished += 1;
    }
}
