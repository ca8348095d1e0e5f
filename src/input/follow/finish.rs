//! Finishing a file from its compressed roll: a state entry's file was rotated and gzipped while
//! the exporter was down (logrotate's `compress` without `delaycompress`, or a roll it compressed
//! one rotation later; the kubelet's rolls), or a parked file was, with no descriptor of ours
//! open on it ([`super::park`]): the only copy of its unread end is the `.gz`.
//!
//! Owns [`Follower::finish_compressed`]: the `.gz` ([`crate::input::compressed`], matched by the
//! hash of its decompressed head) is read from the entry's offset in the decompressed stream to
//! its end, every complete line handed to the [`Sink`] as a file resumed from its entry, and let
//! go at once (a compressed roll is never written again). An unterminated last piece is kept as
//! an orphan for the file that continues it, as for any file let go. And
//! [`Follower::finish_parked`]: the same read, from where a parked file's complete lines end,
//! under its own id and through its own buffer.
//!
//! **Not here:** finding the `.gz` ([`super::paths`]), reading plain files ([`super::drain`]).
//!
//! Cold: one full decompression per file finished this way; memory: one read chunk and the
//! decompressor's window.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use tracing::{info, warn};

use super::{FileId, FileState, FollowStats, Follower, Opened, Sink};
use crate::input::chunk::LineBuffer;
use crate::input::compressed;
use crate::input::identity::{Inode, Signature};

impl Follower {
    /// Reads `entry`'s file from its compressed roll `file`, open at `gz`, from the saved offset
    /// to the end.
    /// Not interrupted by the stop flag: the state written next no longer lists the entry, so
    /// the roll must be read to its end before it.
    pub(super) fn finish_compressed(
        &mut self,
        entry: FileState,
        gz: &Path,
        file: File,
        sink: &mut impl Sink,
    ) {
        // From its start: the lookup that found it read it up to the entry's offset.
        let head = std::io::Seek::rewind(&mut &file)
            .ok()
            .and_then(|()| compressed::decompressed_head(&file))
            .unwrap_or_default();
        let inode = file.metadata().map(|m| Inode::of(&m)).ok();
        info!(path = %entry.path, now = %gz.display(), offset = entry.offset,
              "file compressed while stopped; finishing it from its compressed roll");
        if let Err(error) = self.read_compressed(&entry, gz, file, sink) {
            self.stats.file_errors_read += 1;
            warn!(path = %gz.display(), %error, "cannot read compressed roll; its state entry is dropped");
            return self.drop_entry(entry, sink);
        }
        self.stats.compressed_finished += 1;
        // Known from now on, after a restart too: never read again as a roll no state recorded.
        if let Some(inode) = inode {
            self.unrecorded
                .remember(gz, inode, Signature::of_head(&head));
        }
    }

    /// Reads the compressed roll `file`, open at `gz`, from `entry`'s offset in its decompressed
    /// stream to its end, as the file of `entry` resumed, and lets it go. An error before the
    /// first line is returned (nothing was handed up); one after is counted and said.
    pub(super) fn read_compressed(
        &mut self,
        entry: &FileState,
        gz: &Path,
        file: File,
        sink: &mut impl Sink,
    ) -> std::io::Result<()> {
        let reader = compressed::open_at(file, entry.offset)?;
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
            hand_up(&mut reader, &mut buffer, id, gz, &mut self.stats, sink);
            tail = buffer.tail().map(<[u8]>::to_vec);
        }
        if let Some(fragment) = tail {
            self.keep_entry_fragment(entry, fragment, sink);
        }
        sink.closed(id);
        Ok(())
    }

    /// Reads the parked `i`th file, found gone from its directory, from its compressed roll
    /// `file`, open at `gz`: from where its complete lines end to the end of the stream, under
    /// its own id, through its own buffer (its unterminated last piece stays there, as a file
    /// read to its end holds it). Returns false if nothing could be read: the stream holds less
    /// than was read of the file, or cannot be opened.
    pub(super) fn finish_parked(
        &mut self,
        i: usize,
        gz: &Path,
        file: File,
        sink: &mut impl Sink,
    ) -> bool {
        let f = &mut self.files[i];
        f.buffer.consume();
        let offset = f.buffer.committed();
        let reader = match compressed::open_at(file, offset) {
            Ok(Some(reader)) => reader,
            Ok(None) => return false,
            Err(error) => {
                self.stats.file_errors_read += 1;
                warn!(path = %gz.display(), %error, "cannot read compressed roll");
                return false;
            }
        };
        info!(path = %f.path.display(), now = %gz.display(), offset,
              "parked file compressed and gone before its end was read; finishing it from its compressed roll");
        // The unterminated piece after `offset` is read again, from the stream.
        f.buffer.reset(offset);
        let mut reader = reader;
        hand_up(&mut reader, &mut f.buffer, f.id, gz, &mut self.stats, sink);
        f.read_pos = f.buffer.committed() + f.buffer.tail().map_or(0, |t| t.len() as u64);
        f.size = f.read_pos;
        true
    }
}

/// Hands up every complete line of `reader`, a compressed roll's stream (opened at `gz`) at
/// `buffer`'s offset, as `id`'s, to the stream's end; leaves the unterminated last piece in
/// `buffer`. A stream cut short is counted and said: what it held is read, the rest is in no
/// file.
fn hand_up(
    reader: &mut impl Read,
    buffer: &mut LineBuffer,
    id: FileId,
    gz: &Path,
    stats: &mut FollowStats,
    sink: &mut impl Sink,
) {
    loop {
        let filled = match buffer.fill(reader) {
            Ok(filled) => filled,
            Err(error) => {
                stats.file_errors_read += 1;
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
}

#[cfg(test)]
mod tests {
    use std::fs::{self, File};
    use std::path::Path;
    use std::time::Duration;

    use crate::input::compressed;
    use crate::input::follow::{FileState, FollowConfig, Follower, Recorder};
    use crate::input::identity::{Edge, Inode, Signature, SIGNATURE_BYTES};

    /// The length of each line [`lines`] writes.
    const LINE: usize = "older line 00\n".len();

    /// `n` lines of [`LINE`] bytes, each naming its file and its number.
    fn lines(tag: &str, n: usize) -> Vec<u8> {
        (0..n)
            .flat_map(|i| format!("{tag} line {i:02}\n").into_bytes())
            .collect()
    }

    /// The state entry of the file at `path` holding `content`, read to `offset`.
    fn entry(path: &Path, content: &[u8], offset: usize) -> FileState {
        fs::write(path, content).unwrap();
        let file = File::open(path).unwrap();
        FileState {
            path: path.display().to_string(),
            inode: Inode::of(&file.metadata().unwrap()),
            signature: Signature::of(&file).unwrap(),
            offset: offset as u64,
            fragment: None,
            sequence_path: None,
            first_path: None,
            edge: Edge::at(&file, offset as u64).unwrap(),
            size: None,
            rotated: false,
            ended: false,
        }
    }

    /// logrotate's `compress`: `<path>.gz` written, the plain file removed.
    fn gzip(path: &Path) {
        let mut gz = path.as_os_str().to_os_string();
        gz.push(".gz");
        compressed::gzip(Path::new(&gz), &fs::read(path).unwrap());
        fs::remove_file(path).unwrap();
    }

    /// Two rolls rotated away while the exporter was down (`app.log.2` older than `app.log.1`,
    /// compressed or not), each with an unread end; when the restart opens the first, logrotate
    /// runs again and shifts every roll up one, a new roll taking `app.log.1`'s name.
    fn restart_during_a_rotation(compressed: bool) -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let name = |n: u32| dir.path().join(format!("app.log.{n}"));
        let (older, newer) = (lines("older", 20), lines("newer", 20));
        let entries = vec![
            entry(&name(2), &older, 15 * LINE),
            entry(&name(1), &newer, 10 * LINE),
        ];
        let gz = if compressed { ".gz" } else { "" };
        if compressed {
            gzip(&name(2));
            gzip(&name(1));
        }
        let base = dir.path().to_path_buf();
        let rotate = move || {
            let roll = |n: u32| base.join(format!("app.log.{n}{gz}"));
            fs::rename(roll(2), roll(3)).unwrap();
            fs::rename(roll(1), roll(2)).unwrap();
            fs::write(base.join("app.log.1"), lines("other", 20)).unwrap();
            if compressed {
                gzip(&base.join("app.log.1"));
            }
        };
        let config = FollowConfig::for_test(&dir.path().join("app.log"), Duration::ZERO);
        let mut follower = Follower::new(config, entries, Vec::new(), false);
        let mut sink = Recorder {
            on_open: Some(Box::new(rotate)),
            ..Recorder::default()
        };
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        assert!(sink.on_open.is_none(), "the rotation ran");
        sink.regions.into_iter().flat_map(|(_, r)| r).collect()
    }

    /// Compressed, a stale name would lead the newer entry to the new roll (its lines counted
    /// twice); plain, to no file (its unread end lost).
    #[test]
    fn a_rotation_during_the_restart_leads_no_entry_to_another_roll_and_loses_none() {
        let expected = [
            &lines("older", 20)[15 * LINE..],
            &lines("newer", 20)[10 * LINE..],
        ]
        .concat();
        for compressed in [true, false] {
            assert_eq!(
                String::from_utf8(restart_during_a_rotation(compressed)).unwrap(),
                String::from_utf8(expected.clone()).unwrap(),
                "compressed: {compressed}"
            );
        }
    }

    /// The kubelet's rolls of a log whose every roll begins with the same bytes: an entry whose
    /// file is gone (`0.log.1`, deleted) must not take a later roll's `.gz` for its own, and
    /// read it from its offset (what was skipped lost); the entry whose roll it is finishes it.
    /// The gone file had 15 lines written and unread when saved: lost, and counted; a roll read
    /// to its end and gone (`0.log.0`) lost nothing.
    #[test]
    fn rolls_that_begin_alike_are_told_apart_by_where_reading_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let head = vec![b'h'; SIGNATURE_BYTES + 100];
        let roll = |tag: &str| [&head[..], &lines(tag, 20)].concat();
        let name = |n: u32| dir.path().join(format!("0.log.{n}"));
        let mut read = entry(&name(0), &roll("zero0"), head.len() + 20 * LINE);
        read.rotated = true;
        let mut gone = entry(&name(1), &roll("first"), head.len() + 5 * LINE);
        (gone.size, gone.rotated) = (Some((head.len() + 20 * LINE) as u64), true);
        fs::remove_file(name(0)).unwrap();
        fs::remove_file(name(1)).unwrap();
        let kept = entry(&name(2), &roll("roll2"), head.len() + 10 * LINE);
        gzip(&name(2));
        fs::write(name(3), roll("later")).unwrap();
        gzip(&name(3));
        let config = FollowConfig::for_test(&dir.path().join("0.log"), Duration::ZERO);
        let mut follower = Follower::new(config, vec![read, gone, kept], Vec::new(), false);
        let mut sink = Recorder::default();
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        let read: Vec<u8> = sink.regions.into_iter().flat_map(|(_, r)| r).collect();
        assert_eq!(
            String::from_utf8(read).unwrap(),
            String::from_utf8(lines("roll2", 20)[10 * LINE..].to_vec()).unwrap()
        );
        assert_eq!(follower.stats.state_entries_dropped, 2);
        assert_eq!(follower.stats.lost_files, 1);
        assert_eq!(follower.stats.lost_bytes, 15 * LINE as u64);
    }
}
