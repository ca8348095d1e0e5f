//! Audit records handed over before redaction: the Accountant's side of an audit writer thread.
//!
//! When nothing else in the process reads an audit record (a replay writing an audit log: no
//! recent-denials ring), redacting its texts need not hold up counting. The Accountant then
//! builds each record with its attacker-influenced fields bounded but unredacted (a field past
//! its bound is already its length, [`super::shown`]) and hands it, as a [`Pending`] record,
//! through a bounded channel ([`Handover`]) to a thread that finishes it ([`Pending::finish`]:
//! the same redact-then-cut as the synchronous path) and writes it. Raw text stays in process
//! memory, as it does on the reading thread.
//!
//! Owns the pending record, which of its fields are still raw, and the channel's bounds.
//! **Not here:** the writer thread (`crate::audit`), what a field shows ([`super::shown`]).
//!
//! Cold: per counted denial.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use super::shown::Field;
use super::AUDIT_TEXT_CHARS;
use crate::redact::Redactor;
use crate::vocab::AuditRecord;

/// Records sent at a time: one channel operation per batch, not per record.
const BATCH: usize = 32;
/// Batches the channel holds before the reading thread blocks: 256 records in flight, about
/// 100 KiB of typical records (each raw field is bounded by its own bound).
const BATCHES_IN_FLIGHT: usize = 8;

/// The bit of the source file in [`Pending`]'s raw set (the others are [`Field`]s).
const SOURCE_FILE: u8 = 1 << 5;

/// An audit record whose raw fields are still to be redacted and cut.
pub struct Pending {
    record: AuditRecord,
    raw: RawFields,
}

/// The fields of a record that hold raw text: bit `Field as u8`, and [`SOURCE_FILE`].
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct RawFields(u8);

impl RawFields {
    fn bit(field: Field) -> u8 {
        1 << field as u8
    }

    /// Notes that `field` holds raw text.
    pub(super) fn mark(&mut self, field: Field) {
        self.0 |= RawFields::bit(field);
    }

    /// Notes that the source file holds raw text.
    pub(super) fn mark_source(&mut self) {
        self.0 |= SOURCE_FILE;
    }
}

impl Pending {
    pub(super) fn new(record: AuditRecord, raw: RawFields) -> Pending {
        Pending { record, raw }
    }

    /// The record as the synchronous path makes it: each raw field redacted whole, then cut to
    /// [`AUDIT_TEXT_CHARS`], what was replaced tallied into `tally`.
    pub fn finish(self, redactor: &Redactor, tally: &mut BTreeMap<String, u64>) -> AuditRecord {
        let Pending { mut record, raw } = self;
        let mut show = |bit: u8, text: &mut String| {
            if raw.0 & bit != 0 {
                // Most fields are shown as they are: kept, not copied.
                if let Cow::Owned(shown) = redactor.shown(text, AUDIT_TEXT_CHARS, tally) {
                    *text = shown;
                }
            }
        };
        show(RawFields::bit(Field::ToolName), &mut record.tool);
        for (field, text) in [
            (Field::ExecutionId, &mut record.execution_id),
            (Field::ToolUseId, &mut record.tool_use_id),
            (Field::DecisionReason, &mut record.decision_reason),
            (Field::InputSummary, &mut record.input_summary),
        ] {
            if let Some(text) = text {
                show(RawFields::bit(field), text);
            }
        }
        show(SOURCE_FILE, &mut record.source_file);
        record
    }
}

/// The sending side: collects pending records and sends them a batch at a time, blocking while
/// the channel is full. Dropping it sends what is left and closes the channel, which ends the
/// writer thread once it has written everything.
pub struct Handover {
    batch: Vec<Pending>,
    out: SyncSender<Vec<Pending>>,
    /// Set once the receiver is gone (the writer thread ended early): records are dropped.
    closed: bool,
}

/// A handover and the receiving end for the writer thread.
pub fn channel() -> (Handover, Receiver<Vec<Pending>>) {
    let (out, received) = sync_channel(BATCHES_IN_FLIGHT);
    let handover = Handover {
        batch: Vec::with_capacity(BATCH),
        out,
        closed: false,
    };
    (handover, received)
}

impl Handover {
    pub(super) fn push(&mut self, pending: Pending) {
        self.batch.push(pending);
        if self.batch.len() >= BATCH {
            self.send();
        }
    }

    fn send(&mut self) {
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH));
        // A writer thread that ended early reports why when joined; counting goes on.
        if !self.closed && self.out.send(batch).is_err() {
            self.closed = true;
        }
    }
}

impl Drop for Handover {
    fn drop(&mut self) {
        if !self.batch.is_empty() {
            self.send();
        }
    }
}
