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
//! The writer thread gives the strings of the fields it wrote, emptied, and the emptied batches
//! back through a shared pool ([`Spares`]), and the Accountant builds later records' fields and
//! batches in them ([`Handover::text`]): a record's strings are then neither allocated on one
//! thread nor freed on the other. The pool keeps each field's strings apart ([`Spare`]), so a
//! field gets a string that held the same field, about its size, and rarely grows it. Only
//! strings of at most [`SPARE_BYTES`] of capacity come back, at most [`SPARE_STRINGS`] of each
//! field and [`BATCHES_IN_FLIGHT`] batches in the pool.
//!
//! Owns the pending record, which of its fields are still raw, and the channels' bounds.
//! **Not here:** the writer thread (`crate::audit`), what a field shows ([`super::shown`]).
//!
//! Cold: per counted denial.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};

use super::shown::Field;
use super::AUDIT_TEXT_CHARS;
use crate::redact::Redactor;
use crate::vocab::AuditRecord;

/// Records sent at a time: one channel operation per batch, not per record.
const BATCH: usize = 32;
/// Batches the channel holds before the reading thread blocks: 256 records in flight, about
/// 100 KiB of typical records (each raw field is bounded by its own bound).
const BATCHES_IN_FLIGHT: usize = 8;

/// Strings the pool holds for each field of later records: two batches' worth, so that the
/// writer, which often writes a few batches at once after the reading thread sent them, gives
/// them back instead of freeing them (with one batch's worth, a third of the strings were
/// freed on the writer and allocated again on the reading thread).
const SPARE_STRINGS: usize = BATCH * 2;
/// The largest capacity of a string given back: a long text's string is freed, not kept, so
/// what the spares hold stays small: at most half of [`SPARE_STRINGS`] per field being
/// collected, [`SPARE_STRINGS`] per field in the pool and as many taken, of seven fields: 280
/// KiB at most (about a sixth of it in practice).
const SPARE_BYTES: usize = 256;

/// Which of the pool's lists a string goes back to and comes from: a [`Field`]'s (its
/// number), the source file's or the workflow's. The strings of one field are about one size.
#[derive(Debug, Clone, Copy)]
pub(super) struct Spare(usize);

impl Spare {
    pub(super) const SOURCE_FILE: Spare = Spare(5);
    pub(super) const WORKFLOW: Spare = Spare(6);
    /// How many lists there are.
    const COUNT: usize = 7;

    pub(super) fn of(field: Field) -> Spare {
        Spare(field as usize)
    }
}

/// One list of strings per [`Spare`].
type SpareLists = [Vec<String>; Spare::COUNT];

fn spare_lists(capacity: usize) -> SpareLists {
    std::array::from_fn(|_| Vec::with_capacity(capacity))
}

/// The bit of the source file in [`Pending`]'s raw set (the others are [`Field`]s).
const SOURCE_FILE: u8 = 1 << Spare::SOURCE_FILE.0;

/// An audit record whose raw fields are still to be redacted and cut.
pub struct Pending {
    record: AuditRecord,
    raw: RawFields,
}

/// The fields of a record that hold raw text: bit `Field as u8`, and [`SOURCE_FILE`].
#[derive(Debug, Default, Clone, Copy)]
pub struct RawFields(u8);

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
    /// [`AUDIT_TEXT_CHARS`], what was replaced tallied into `tally`; with the fields that were
    /// raw, for [`Spares::keep`] once the record is written.
    pub fn finish(
        self,
        redactor: &Redactor,
        tally: &mut BTreeMap<String, u64>,
    ) -> (AuditRecord, RawFields) {
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
        (record, raw)
    }
}

/// What the writer thread gives back for later records: emptied strings and batches.
struct Pool {
    strings: SpareLists,
    batches: Vec<Vec<Pending>>,
}

/// The writer thread's side of the pool: collects the strings of the records it wrote and
/// puts them in the pool a batch at a time (when the pool holds enough, they are freed here).
pub struct Spares {
    strings: SpareLists,
    pool: Arc<Mutex<Pool>>,
}

impl Spares {
    /// Keeps the strings of `record`'s raw fields (as [`Pending::finish`] said) and of its
    /// workflow, emptied, to give back; drops the rest of the record.
    pub fn keep(&mut self, record: AuditRecord, raw: RawFields) {
        let is_raw = |bit: u8| raw.0 & bit != 0;
        let mut keep = |wanted: bool, spare: Spare, text: Option<String>| {
            if let Some(mut text) = text.filter(|t| wanted && t.capacity() <= SPARE_BYTES) {
                text.clear();
                self.strings[spare.0].push(text);
            }
        };
        for (field, text) in [
            (Field::ToolName, Some(record.tool)),
            (Field::ExecutionId, record.execution_id),
            (Field::ToolUseId, record.tool_use_id),
            (Field::DecisionReason, record.decision_reason),
            (Field::InputSummary, record.input_summary),
        ] {
            keep(is_raw(RawFields::bit(field)), Spare::of(field), text);
        }
        keep(
            is_raw(SOURCE_FILE),
            Spare::SOURCE_FILE,
            Some(record.source_file),
        );
        keep(true, Spare::WORKFLOW, Some(record.workflow));
    }

    /// Puts what was kept since the last call, and `batch` (emptied), in the pool, as far as
    /// it has room.
    pub fn give_back(&mut self, mut batch: Vec<Pending>) {
        batch.clear();
        let Ok(mut pool) = self.pool.lock() else {
            return; // the reading thread panicked while holding it: nothing to give back to
        };
        for (kept, pooled) in self.strings.iter_mut().zip(&mut pool.strings) {
            let room = SPARE_STRINGS.saturating_sub(pooled.len());
            let extra = kept.len().saturating_sub(room);
            pooled.extend(kept.drain(extra..));
        }
        if pool.batches.len() < BATCHES_IN_FLIGHT {
            pool.batches.push(batch);
        }
        drop(pool);
        for kept in &mut self.strings {
            kept.clear();
        }
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
    /// Emptied strings taken from the pool, for later records' fields.
    spare: SpareLists,
    pool: Arc<Mutex<Pool>>,
}

/// A handover, and for the writer thread the receiving end and where it gives strings back.
pub fn channel() -> (Handover, Receiver<Vec<Pending>>, Spares) {
    let (out, received) = sync_channel(BATCHES_IN_FLIGHT);
    let pool = Arc::new(Mutex::new(Pool {
        strings: spare_lists(SPARE_STRINGS),
        batches: Vec::with_capacity(BATCHES_IN_FLIGHT),
    }));
    let handover = Handover {
        batch: Vec::with_capacity(BATCH),
        out,
        closed: false,
        spare: spare_lists(SPARE_STRINGS),
        pool: Arc::clone(&pool),
    };
    let spares = Spares {
        strings: spare_lists(BATCH),
        pool,
    };
    (handover, received, spares)
}

impl Handover {
    /// `s` as the string of a raw field (of `spare`'s list): in a string of that list the
    /// writer thread sent back, when there is one.
    pub(super) fn text(&mut self, spare: Spare, s: &str) -> String {
        let list = &mut self.spare[spare.0];
        if list.is_empty() {
            if let Ok(mut pool) = self.pool.lock() {
                // Swapped, not copied: the emptied vector goes to the pool for the next ones.
                std::mem::swap(list, &mut pool.strings[spare.0]);
            }
        }
        match list.pop() {
            Some(mut text) => {
                text.push_str(s);
                text
            }
            None => s.to_owned(),
        }
    }

    pub(super) fn push(&mut self, pending: Pending) {
        self.batch.push(pending);
        if self.batch.len() >= BATCH {
            self.send();
        }
    }

    fn send(&mut self) {
        let emptied = self
            .pool
            .lock()
            .ok()
            .and_then(|mut pool| pool.batches.pop());
        let next = emptied.unwrap_or_else(|| Vec::with_capacity(BATCH));
        let batch = std::mem::replace(&mut self.batch, next);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::{AuditKind, Origin, Reason};

    /// A record whose raw fields (all but the risk and time) are built by `handover`.
    fn record(handover: &mut Handover, text: &str, raw: &mut RawFields) -> AuditRecord {
        for field in [
            Field::ToolName,
            Field::ExecutionId,
            Field::ToolUseId,
            Field::DecisionReason,
            Field::InputSummary,
        ] {
            raw.mark(field);
        }
        raw.mark_source();
        AuditRecord {
            kind: AuditKind::Denial,
            time: "2026-01-01T00:00:00.000Z".into(),
            tool: handover.text(Spare::of(Field::ToolName), text),
            workflow: handover.text(Spare::WORKFLOW, text),
            namespace: None,
            pod: None,
            reason: Reason::Hook,
            risk: "none".into(),
            execution_id: Some(handover.text(Spare::of(Field::ExecutionId), text)),
            tool_use_id: Some(handover.text(Spare::of(Field::ToolUseId), text)),
            decision_reason: Some(handover.text(Spare::of(Field::DecisionReason), text)),
            input_summary: Some(handover.text(Spare::of(Field::InputSummary), text)),
            source_file: handover.text(Spare::SOURCE_FILE, text),
            origin: Origin::MidStream,
            format: "pino",
            count: 1,
        }
    }

    #[test]
    fn the_strings_of_written_records_come_back_emptied_and_hold_the_next_records_texts() {
        let (mut handover, received, mut spares) = channel();
        let redactor = Redactor::new();
        let mut tally = BTreeMap::new();
        // Longer than a kept string, not long enough to be cut: shown as it is.
        let long = "é".repeat(SPARE_BYTES / 2 + 1);
        for text in ["first text", long.as_str()] {
            let mut raw = RawFields::default();
            let built = record(&mut handover, text, &mut raw);
            handover.push(Pending::new(built, raw));
        }
        handover.send();
        let mut batch = received.recv().unwrap();
        let mut given = Vec::new();
        for pending in batch.drain(..) {
            let (written, raw) = pending.finish(&redactor, &mut tally);
            let at = |s: &String| (s.as_ptr() as usize, s.capacity());
            given.push((at(&written.tool), at(&written.source_file)));
            spares.keep(written, raw);
        }
        spares.give_back(batch);
        let kept: Vec<usize> = spares
            .pool
            .lock()
            .unwrap()
            .strings
            .iter()
            .map(Vec::len)
            .collect();
        assert_eq!(
            kept,
            vec![1; Spare::COUNT],
            "every field of the short record, none of the long one"
        );
        // A field's list is taken whole: the next text of a field is written into the string
        // that field had, which starts empty whatever it held.
        let taken = |handover: &mut Handover, spare: Spare| {
            let text = handover.text(spare, "next");
            assert_eq!(text, "next");
            (text.as_ptr() as usize, text.capacity())
        };
        let tool = taken(&mut handover, Spare::of(Field::ToolName));
        let source = taken(&mut handover, Spare::SOURCE_FILE);
        assert_eq!((tool, source), given[0], "the short record's own strings");
        assert_eq!(
            handover.text(Spare::of(Field::ToolName), "new").capacity(),
            3,
            "a fresh one once the field's list is empty"
        );
        assert_eq!(
            handover.pool.lock().unwrap().batches.len(),
            1,
            "the emptied batch is given back"
        );
        assert!(tally.is_empty());
    }
}
