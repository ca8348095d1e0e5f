//! Compressed rolls: telling a gzip file by its first bytes, and reading one decompressed.
//!
//! logrotate's `compress` and the kubelet gzip rolls (`app.log.2.gz`, `0.log.<time>.gz`): a new
//! file, holding the old one's bytes. Two uses: a file a glob matches that is compressed is never
//! read as text lines (detected by the gzip magic bytes, whatever its name); and a state entry
//! whose file was rotated and compressed while the exporter was down is recognised by the hash of
//! its *decompressed* head and finished from its saved offset in the decompressed stream.
//!
//! **Not here:** deciding which entry a `.gz` finishes (`super::follow`), what the lines mean.
//!
//! Cold: a 2-byte read per file opened from its beginning; at a restart, a ≤1 KiB decompression
//! per compressed file of a directory with an entry not found, and one full decompression per
//! compressed file that finishes an entry.

use std::fs::File;
use std::io::{self, Read, Seek};
use std::os::unix::fs::FileExt;

use flate2::read::MultiGzDecoder;

use super::identity::{Edge, EDGE_BYTES, SIGNATURE_BYTES};

/// The first two bytes of every gzip member (RFC 1952).
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Whether `file` starts with the gzip magic bytes (false if it is shorter, or unreadable).
pub fn is_gzip(file: &File) -> bool {
    let mut magic = [0u8; 2];
    file.read_exact_at(&mut magic, 0).is_ok() && magic == GZIP_MAGIC
}

/// The first `SIGNATURE_BYTES` (fewer if shorter) of the decompressed content of the gzip
/// `file` (read from its current position, its start when just opened); `None` if it is not one.
pub fn decompressed_head(file: &File) -> Option<Vec<u8>> {
    if !is_gzip(file) {
        return None;
    }
    let mut head = Vec::with_capacity(SIGNATURE_BYTES);
    // An error past the first bytes (a file still being written) leaves what was decoded.
    let _ = MultiGzDecoder::new(file)
        .take(SIGNATURE_BYTES as u64)
        .read_to_end(&mut head);
    Some(head)
}

/// The decompressed content of the gzip `file` from `offset` on; `Ok(None)` if it holds fewer
/// than `offset` bytes (nothing past the offset was ever in it). Read from the open file, not a
/// path: a rotation renaming rolls meanwhile does not change what is read.
pub fn open_at(mut file: File, offset: u64) -> io::Result<Option<MultiGzDecoder<File>>> {
    file.rewind()?;
    let mut decoder = MultiGzDecoder::new(file);
    let skipped = io::copy(&mut (&mut decoder).take(offset), &mut io::sink())?;
    Ok((skipped == offset).then_some(decoder))
}

/// Whether the decompressed content of the gzip `file` holds, just before `edge`'s offset, the
/// bytes the edge was taken of: the check that a `.gz` whose first bytes match a state entry's
/// file is that file's roll, and not a later roll of a log whose rolls all begin alike (the same
/// banner, or lines without a varying timestamp). One decompression up to the offset.
pub fn holds_edge(file: &File, edge: &Edge) -> bool {
    let start = edge.offset.saturating_sub(EDGE_BYTES);
    let mut decoder = MultiGzDecoder::new(file);
    let Ok(skipped) = io::copy(&mut (&mut decoder).take(start), &mut io::sink()) else {
        return false;
    };
    let mut before = Vec::with_capacity(EDGE_BYTES as usize);
    let read = (&mut decoder)
        .take(edge.offset - start)
        .read_to_end(&mut before);
    skipped == start && read.is_ok() && Edge::of(edge.offset, &before) == *edge
}

/// Whether the gzip `file` decompresses to its end with every member's checksum right: a roll
/// still being compressed (logrotate writes the `.gz` under its final name) is not whole yet,
/// and is not read until it is. One full decompression, from the start.
pub fn is_whole(file: &File) -> bool {
    let Ok(mut file) = file.try_clone() else {
        return false;
    };
    file.rewind().is_ok()
        && is_gzip(&file)
        && io::copy(&mut MultiGzDecoder::new(file), &mut io::sink()).is_ok()
}

/// Writes `content` gzipped to `path` (what the unit tests compress rolls with).
#[cfg(test)]
pub(crate) fn gzip(path: &std::path::Path, content: &[u8]) {
    use std::io::Write;
    let mut out =
        flate2::write::GzEncoder::new(File::create(path).unwrap(), flate2::Compression::fast());
    out.write_all(content).unwrap();
    out.finish().unwrap();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gzip_file_is_told_by_its_magic_bytes_not_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let (zipped, plain) = (dir.path().join("app.log.1"), dir.path().join("app.log.gz"));
        gzip(&zipped, b"{\"a\":1}\n");
        std::fs::write(&plain, b"{\"a\":1}\n").unwrap();
        assert!(is_gzip(&File::open(&zipped).unwrap()));
        assert!(!is_gzip(&File::open(&plain).unwrap()));
        std::fs::write(&plain, b"\x1f").unwrap();
        assert!(
            !is_gzip(&File::open(&plain).unwrap()),
            "one byte is not a header"
        );
        assert_eq!(decompressed_head(&File::open(&plain).unwrap()), None);
    }

    #[test]
    fn reads_the_decompressed_head_and_from_an_offset() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("app.log.2.gz");
        let content: Vec<u8> = (0..400)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        gzip(&path, &content);
        assert_eq!(
            decompressed_head(&File::open(&path).unwrap()).unwrap(),
            &content[..SIGNATURE_BYTES]
        );
        let mut rest = Vec::new();
        open_at(File::open(&path).unwrap(), 1500)
            .unwrap()
            .unwrap()
            .read_to_end(&mut rest)
            .unwrap();
        assert_eq!(rest, &content[1500..]);
        assert!(
            open_at(File::open(&path).unwrap(), content.len() as u64 + 1)
                .unwrap()
                .is_none()
        );
        let mut none = Vec::new();
        open_at(File::open(&path).unwrap(), content.len() as u64)
            .unwrap()
            .unwrap()
            .read_to_end(&mut none)
            .unwrap();
        assert!(none.is_empty());
    }

    #[test]
    fn a_gzip_file_cut_short_gives_what_it_holds() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("app.log.1.gz");
        let content: Vec<u8> = (0..4000)
            .flat_map(|i| format!("{i:x}-{}\n", i * 7919).into_bytes())
            .collect();
        gzip(&path, &content);
        let whole = std::fs::read(&path).unwrap();
        std::fs::write(&path, &whole[..whole.len() / 2]).unwrap();
        let head = decompressed_head(&File::open(&path).unwrap()).unwrap();
        assert_eq!(head, &content[..head.len()]);
        assert!(!head.is_empty());
        assert!(!is_whole(&File::open(&path).unwrap()), "cut short");
        std::fs::write(&path, &whole).unwrap();
        assert!(is_whole(&File::open(&path).unwrap()));
    }
}
