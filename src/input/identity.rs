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

impl Signature {
    /// The signature of `file`'s first `min(size, SIGNATURE_BYTES)` bytes.
    pub fn of(file: &File) -> io::Result<Signature> {
        Signature::of_prefix(file, SIGNATURE_BYTES as u64)
    }

    /// The signature of `file`'s first `len` bytes (fewer if the file is shorter).
    pub fn of_prefix(file: &File, len: u64) -> io::Result<Signature> {
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
        Ok(Signature {
            len: filled as u64,
            hash: fnv1a(&buf[..filled]),
        })
    }

    /// Returns true if and only if `file` still starts with the bytes this signature covers.
    pub fn matches(&self, file: &File) -> io::Result<bool> {
        Ok(Signature::of_prefix(file, self.len)? == *self)
    }

    /// Returns true if and only if the signature covers fewer bytes than it could.
    pub fn is_short(&self) -> bool {
        self.len < SIGNATURE_BYTES as u64
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

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
    }
}
