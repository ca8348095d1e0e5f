//! The ring of most recent denials shown on the landing page and at `/api/v1/denials`.
//!
//! Owns a bounded deque of already-redacted [`AuditRecord`]s; the oldest is dropped first.
//! By default it keeps 100; 0 turns it off. **Not here:** redaction (records arrive redacted).

use std::collections::VecDeque;

use crate::vocab::AuditRecord;

#[derive(Debug, Default)]
pub struct RecentDenials {
    capacity: usize,
    records: VecDeque<AuditRecord>,
}

impl RecentDenials {
    pub fn new(capacity: usize) -> RecentDenials {
        RecentDenials {
            capacity,
            records: VecDeque::with_capacity(capacity.min(1024)),
        }
    }

    pub fn extend(&mut self, records: &[AuditRecord]) {
        if self.capacity == 0 {
            return;
        }
        let skip = records.len().saturating_sub(self.capacity);
        for record in &records[skip..] {
            if self.records.len() == self.capacity {
                self.records.pop_front();
            }
            self.records.push_back(record.clone());
        }
    }

    /// Newest first.
    pub fn newest_first(&self) -> impl Iterator<Item = &AuditRecord> {
        self.records.iter().rev()
    }

    /// How many records the ring keeps.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
}
