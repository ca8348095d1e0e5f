//! File identity: device + inode, plus a signature of the file's first bytes.
//!
//! Device and inode tell a rotated file from its successor; the signature (FNV-1a over the first
//! up to 1 KiB, with its length) tells a rewritten file or a reused inode from the file that was
//! there before, which device and inode alone cannot. **Not here:** deciding what a changed
//! identity means (the follower does).
//!
//! Cold: once per file opened, per read of a file whose size changed (to notice a rewrite), and
//! while a file is shorter than 1 KiB, per read that grew it.

use std::fs::File;
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt};

use serde::{Deserialize, Serialize};

/// Bytes hashed into the signature, at most.
pub const SIGNATURE_BYTES: usize = 1024;

/// Device and inode: which file, as long as it exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Inode {
    pub dev: u64,
    pub ino: u64,
}

impl Inode {
    pub fn of(meta: &std::fs::Metadata) -> Inode {
        Inode {
            dev: meta.dev(),
            ino: meta.ino(),
        }
    }
}

/// A hash of a file's first bytes, and how many bytes it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signature {
    pub len: u64,
    pub hash: u64,
}

/// `file`'s first `len` bytes, at most [`SIGNATURE_BYTES`] (fewer if the file is shorter), read
/// whole: a short read goes on where it stopped.
pub fn first_bytes(file: &File, len: u64) -> io::Result<Vec<u8>> {
    let mut buf = vec![0u8; len.min(SIGNATURE_BYTES as u64) as usize];
    let mut filled = 0;
    while filled < buf.len() {
        match file.read_at(&mut buf[filled..], filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    buf.truncate(filled);
    Ok(buf)
}

impl Signature {
    /// The signature of `file`'s first `min(size, SIGNATURE_BYTES)` bytes.
    pub fn of(file: &File) -> io::Result<Signature> {
        Signature::of_prefix(file, SIGNATURE_BYTES as u64)
    }

    /// The signature of `file`'s first `len` bytes (fewer if the file is shorter).
    pub fn of_prefix(file: &File, len: u64) -> io::Result<Signature> {
        Ok(Signature::of_head(&first_bytes(file, len)?))
    }

    /// The signature of `head`, a file's first bytes (at most [`SIGNATURE_BYTES`] of them are
    /// signed): what a compressed roll's decompressed head is known by.
    pub fn of_head(head: &[u8]) -> Signature {
        let head = &head[..head.len().min(SIGNATURE_BYTES)];
        Signature {
            len: head.len() as u64,
            hash: fnv1a(head),
        }
    }

    /// Returns true if and only if `file` still starts with the bytes this signature covers.
    pub fn matches(&self, file: &File) -> io::Result<bool> {
        Ok(Signature::of_prefix(file, self.len)? == *self)
    }

    /// Returns true if and only if `head` (a file's first bytes, at least as many as this
    /// signature covers, e.g. decompressed from its `.gz`) starts with the bytes it covers.
    pub fn matches_head(&self, head: &[u8]) -> bool {
        usize::try_from(self.len)
            .ok()
            .and_then(|len| head.get(..len))
            .is_some_and(|covered| fnv1a(covered) == self.hash)
    }

    /// Returns true if and only if the signature covers fewer bytes than it could.
    pub fn is_short(&self) -> bool {
        self.len < SIGNATURE_BYTES as u64
    }
}

/// A hash of the bytes just before an offset: what a file held where reading stopped. A file
/// truncated and written again past that offset within one poll interval, with the same first
/// bytes, still differs here (unless it was rewritten with the very same bytes, which is then
/// the same log).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edge {
    pub offset: u64,
    hash: u64,
}

/// Bytes an [`Edge`] covers.
pub const EDGE_BYTES: u64 = 64;

impl Edge {
    /// The edge of `file` at `offset`; `None` at 0.
    pub fn at(file: &File, offset: u64) -> io::Result<Option<Edge>> {
        if offset == 0 {
            return Ok(None);
        }
        let start = offset.saturating_sub(EDGE_BYTES);
        let mut buf = [0u8; EDGE_BYTES as usize];
        let want = (offset - start) as usize;
        let mut filled = 0;
        while filled < want {
            match file.read_at(&mut buf[filled..want], start + filled as u64) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
        Ok(Some(Edge::of(offset, &buf[..filled])))
    }

    /// The edge at `offset` of content whose `before` bytes end there (at most [`EDGE_BYTES`]:
    /// fewer only at a file's start or end).
    pub fn of(offset: u64, before: &[u8]) -> Edge {
        Edge {
            offset,
            hash: fnv1a(before) ^ before.len() as u64,
        }
    }

    /// Whether `file` still holds the same bytes before this edge's offset.
    pub fn holds(&self, file: &File) -> io::Result<bool> {
        Ok(Edge::at(file, self.offset)? == Some(*self))
    }
}

/// The hash of every prefix of one head: matched against many signatures (a directory's
/// remembered heads, for each compressed roll judged there) for one pass over its bytes.
pub struct PrefixHashes(Vec<u64>);

impl PrefixHashes {
    pub fn of(head: &[u8]) -> PrefixHashes {
        let head = &head[..head.len().min(SIGNATURE_BYTES)];
        let mut hashes = Vec::with_capacity(head.len() + 1);
        hashes.push(FNV_OFFSET);
        for b in head {
            hashes.push(fnv1a_step(hashes[hashes.len() - 1], *b));
        }
        PrefixHashes(hashes)
    }

    /// Whether the head starts with the bytes `signature` covers (as
    /// [`Signature::matches_head`]).
    pub fn starts_with(&self, signature: &Signature) -> bool {
        usize::try_from(signature.len)
            .ok()
            .and_then(|len| self.0.get(len))
            .is_some_and(|hash| *hash == signature.hash)
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

fn fnv1a_step(hash: u64, byte: u8) -> u64 {
    (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(FNV_OFFSET, |h, b| fnv1a_step(h, *b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn prefix_hashes_match_what_matches_head_matches() {
        let head: Vec<u8> = (0..1500u32).map(|i| (i * 7 % 251) as u8).collect();
        let prefixes = PrefixHashes::of(&head);
        for len in [0, 1, 2, 100, 1023, 1024] {
            let signature = Signature::of_head(&head[..len]);
            assert!(signature.matches_head(&head) && prefixes.starts_with(&signature));
            let other = Signature::of_head(&[b"x".as_slice(), &head[1..len.max(1)]].concat());
            assert_eq!(
                other.matches_head(&head),
                prefixes.starts_with(&other),
                "{len}"
            );
        }
        assert!(!prefixes.starts_with(&Signature { len: 1025, hash: 0 }));
        assert!(!PrefixHashes::of(b"ab").starts_with(&Signature::of_head(b"abc")));
    }

    #[test]
    fn signature_tells_rewritten_files_apart() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.log");
        std::fs::write(&path, b"first line\n").unwrap();
        let file = File::open(&path).unwrap();
        let sig = Signature::of(&file).unwrap();
        assert_eq!(sig.len, 11);
        assert!(sig.matches(&file).unwrap());
        // Growing keeps the prefix: still the same file.
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"more\n")
            .unwrap();
        assert!(sig.matches(&file).unwrap());
        // Rewritten in place: a different file.
        std::fs::write(&path, b"other line\n").unwrap();
        assert!(!sig.matches(&file).unwrap());
        // The same first bytes elsewhere (a compressed copy's, decompressed) match; fewer do not.
        assert!(sig.matches_head(b"first line\nand more"));
        assert!(!sig.matches_head(b"first line"));
        assert!(!sig.matches_head(b"other line\n"));
    }

    #[test]
    fn an_edge_tells_a_regrown_file_from_a_grown_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.log");
        let head = "h".repeat(2048);
        std::fs::write(&path, format!("{head}\nline one\n")).unwrap();
        let file = File::open(&path).unwrap();
        let edge = Edge::at(&file, 2058).unwrap().unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"more\n")
            .unwrap();
        assert!(
            edge.holds(&file).unwrap(),
            "grown: the same bytes before the offset"
        );
        // Truncated and written again past the offset, the first KiB unchanged.
        std::fs::write(&path, format!("{head}\nLINE TWO\nand more\n")).unwrap();
        assert!(!edge.holds(&file).unwrap());
        assert!(Edge::at(&file, 0).unwrap().is_none());
    }
}
