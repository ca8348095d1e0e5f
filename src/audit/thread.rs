//! The audit writer thread: finishes the records the Accountant handed over unredacted
//! ([`crate::account::deferred`]) — redacts and cuts them with its own memo — and writes them
//! in the order they were counted, while the reading thread goes on counting; then gives their
//! strings and batches back for the next records ([`Spares`]).
//!
//! Owns the thread and what it reports when joined: the redaction kinds it tallied (merged
//! into the totals before anything shows them) and whether it ended as it should. A failure to
//! write is logged once, as on the reading thread, and counting goes on. **Not here:** the line format ([`super::AuditWriter`]), what a field shows.
//!
//! Cold: per counted denial, on its own thread.

use std::collections::BTreeMap;
use std::sync::mpsc::Receiver;
use std::thread::{self, JoinHandle};

use anyhow::{anyhow, Context, Result};
use tracing::warn;

use super::AuditWriter;
use crate::account::deferred::{Pending, RawFields, Spares};
use crate::redact::shared_redactor;
use crate::vocab::AuditRecord;

/// A running audit writer thread.
pub struct WriterThread {
    handle: JoinHandle<BTreeMap<String, u64>>,
}

impl WriterThread {
    /// Starts a thread writing the records `received` brings to `writer`, until the sending
    /// side is dropped.
    /// `spares` takes the strings of the fields written back to the sending side.
    pub fn spawn(
        writer: AuditWriter,
        received: Receiver<Vec<Pending>>,
        spares: Spares,
    ) -> Result<WriterThread> {
        let handle = thread::Builder::new()
            .name("audit-writer".into())
            .spawn(move || write_all(writer, received, spares))
            .context("cannot start the audit writer thread")?;
        Ok(WriterThread { handle })
    }

    /// Waits for the thread to write out everything it was sent (the sending side must be
    /// dropped first) and returns the redaction kinds it tallied.
    pub fn join(self) -> Result<BTreeMap<String, u64>> {
        self.handle
            .join()
            .map_err(|_| anyhow!("the audit writer thread failed; the audit log may be incomplete"))
    }
}

fn write_all(
    mut writer: AuditWriter,
    received: Receiver<Vec<Pending>>,
    mut spares: Spares,
) -> BTreeMap<String, u64> {
    let redactor = shared_redactor();
    let mut tally = BTreeMap::new();
    let mut records: Vec<AuditRecord> = Vec::new();
    let mut raws: Vec<RawFields> = Vec::new();
    let mut failed = false;
    for mut batch in received {
        for pending in batch.drain(..) {
            let (record, raw) = pending.finish(redactor, &mut tally);
            records.push(record);
            raws.push(raw);
        }
        if let Err(error) = writer.write(&records) {
            if !failed {
                warn!(%error, "cannot write the audit log; denials are still counted");
                failed = true;
            }
        }
        for (record, raw) in records.drain(..).zip(raws.drain(..)) {
            spares.keep(record, raw);
        }
        spares.give_back(batch);
    }
    drop(writer); // writes out the buffer, or logs why it cannot
    tally
}
