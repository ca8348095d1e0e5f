//! Noticing that a followed file was truncated or rewritten under us.
//!
//! Owns the checks that restart a file at 0 when its size dropped below our position or its
//! first bytes (or those just before our position) changed, and the widening of a short
//! signature as its file grows, so that a rewrite of its first bytes is still noticed.
//!
//! **Not here:** reading its lines ([`super::drain`]), telling the [`Sink`](super::Sink) (the
//! caller does, when a check returns true).
//!
//! Cold: one `fstat` per check, plus a ≤1 KiB read when the prefix is checked or a short
//! signature widened.

use std::io::{Seek, SeekFrom};

use tracing::warn;

use super::{FollowStats, Followed};
use crate::input::identity::Signature;

/// Notices a truncation or a rewrite of `f` and restarts it at 0; returns true if it did.
///
/// A size below our position means truncated. Changed first bytes, or changed bytes just before
/// our position, mean rewritten (copytruncate followed by as many writes as we had read, before
/// we looked, as a poll interval allows): checked when `check_prefix` (the periodic scan, and
/// after a read found the prefix changed under it).
pub(super) fn check_truncation(
    f: &mut Followed,
    stats: &mut FollowStats,
    check_prefix: bool,
) -> bool {
    let Some(file) = &f.file else {
        return false; // parked: checked when it is opened again
    };
    let Ok(meta) = file.metadata() else {
        return false;
    };
    let size = meta.len();
    let shrunk = size < f.read_pos;
    let rewritten = !shrunk
        && f.read_pos > 0
        && check_prefix
        && (!f.signature.matches(file).unwrap_or(true)
            || f.edge
                .is_some_and(|e| e.offset == f.read_pos && !e.holds(file).unwrap_or(true)));
    if !(shrunk || rewritten) {
        return false;
    }
    stats.truncations += 1;
    warn!(path = %f.path.display(), offset = f.read_pos, size, "file truncated; reading from its start");
    f.buffer.reset(0);
    f.read_pos = 0;
    f.size = size;
    f.drained_since = None;
    f.edge = None;
    f.head_unjudged = false; // new content, not the rest of anything
    f.resumed_fragment = None;
    f.signature = Signature::of(file).unwrap_or(Signature { len: 0, hash: 0 });
    if f.file
        .as_mut()
        .is_none_or(|file| file.seek(SeekFrom::Start(0)).is_err())
    {
        stats.file_errors_read += 1;
    }
    true
}

/// A file created empty or short: widen its signature as it grows (up to 1 KiB), so that a
/// later rewrite of its first bytes is still noticed — but only while what it covered is still
/// there (a rewrite is for [`check_truncation`] to notice, not to be signed). Returns true if
/// the file had no signed bytes before and has now (its first bytes are known).
pub(super) fn widen_signature(f: &mut Followed) -> bool {
    let Some(file) = &f.file else {
        return false; // parked: widened when read again
    };
    if !f.signature.is_short() || f.size <= f.signature.len {
        return false;
    }
    let was_empty = f.signature.len == 0;
    if f.signature.matches(file).unwrap_or(false) {
        if let Ok(signature) = Signature::of(file) {
            f.signature = signature;
        }
    }
    was_empty && f.signature.len > 0
}
