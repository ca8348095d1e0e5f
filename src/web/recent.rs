//! The ring of most recent denials shown on the landing page and at `/api/v1/denials`.
//!
//! Owns a bounded deque of already-redacted [`AuditRecord`]s; the oldest is dropped first.
//! By default it keeps 100; 0 turns it off. A `risk_decided` record is not a denial: it fills in
//! the `risk` of the `pending` denial it decides, when the ring still holds it (matched by
//! execution and tool use id, or, for an evicted execution, the oldest pending denial of the
//! same tool and workflow). **Not here:** redaction (records arrive redacted).

use std::collections::VecDeque;

use crate::vocab::{AuditKind, AuditRecord, RISK_PENDING};

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
            if record.kind == AuditKind::RiskDecided {
                self.decide(record);
                continue;
            }
            if record.kind == AuditKind::Unenforced {
                continue; // marks a denial the ring may hold; counts none
            }
            if self.records.len() == self.capacity {
                self.records.pop_front();
            }
            self.records.push_back(record.clone());
        }
    }

    /// Sets the risk of the pending denial `decided` is about, if the ring holds it.
    fn decide(&mut self, decided: &AuditRecord) {
        let by_ids = decided.tool_use_id.is_some();
        let about = self.records.iter_mut().find(|r| {
            r.risk == RISK_PENDING
                && if by_ids {
                    r.tool_use_id == decided.tool_use_id && r.execution_id == decided.execution_id
                } else {
                    r.workflow == decided.workflow && r.pod == decided.pod
                }
        });
        if let Some(record) = about {
            record.risk.clone_from(&decided.risk);
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::{Origin, Reason};

    fn record(kind: AuditKind, id: &str, risk: &str) -> AuditRecord {
        AuditRecord {
            kind,
            time: "2026-06-12T10:00:00Z".into(),
            tool: "Bash".into(),
            workflow: "review".into(),
            namespace: None,
            pod: None,
            reason: Reason::Unknown,
            risk: risk.into(),
            execution_id: Some("e1".into()),
            tool_use_id: Some(id.into()),
            decision_reason: None,
            input_summary: None,
            source_file: "-".into(),
            origin: Origin::MidStream,
            format: "pino",
            count: 1,
        }
    }

    #[test]
    fn a_decided_risk_fills_in_its_pending_denial() {
        let mut ring = RecentDenials::new(10);
        ring.extend(&[
            record(AuditKind::Denial, "t1", RISK_PENDING),
            record(AuditKind::Denial, "t2", RISK_PENDING),
        ]);
        ring.extend(&[record(AuditKind::RiskDecided, "t2", "history_rewrite")]);
        let risks: Vec<(&str, &str)> = ring
            .newest_first()
            .map(|r| (r.tool_use_id.as_deref().unwrap(), r.risk.as_str()))
            .collect();
        assert_eq!(risks, [("t2", "history_rewrite"), ("t1", RISK_PENDING)]);
    }
}
