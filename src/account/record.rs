//! Applies one execution record (a completed-execution line, an SDK result): reconciles the
//! denials it lists against what was counted mid-stream, then counts what is new, and observes
//! the execution's spend, turns and duration as increases of its running totals.
//!
//! Owns the record's path through the accountant: [`Accountant::reconcile_record`] decides what
//! the record adds ([`RecordChange`], or nothing for a repeat), [`Accountant::count_record`]
//! counts it. **Not here:** the per-execution state and the reveal rules ([`super::reconcile`]),
//! spend by model ([`super::spend`]), mid-stream denials ([`super::Accountant::apply`]).
//!
//! A record decides the risk class of its revealed denials from their inputs, and of the
//! execution's mid-stream denials that waited for it ([`super::risk_book`]).
//!
//! Cold: per record line.

use super::answers::{input_digest, FoundAt};
use super::audit_builder::{CountedDenial, Ids};
use super::digest::Digest;
use super::enforcement::Finding;
use super::labels::LabelName;
use super::reconcile::{Execution, PendingRisk, Revelation};
use super::risk_book::Decision;
use super::totals::{increase, tokens_array, Totals};
use super::{admit, label_value, spend, Accountant, Decided, LineSource};
use crate::decode::Record;
use crate::vocab::counters::{self as metrics, saturating_add, ModelSeries, WorkflowSeries};
use crate::vocab::{LineOutcome, Origin, Reason};
use std::sync::Arc;

/// What reconciling a record against its execution found.
struct Reconciled {
    /// What it adds; `None` when it repeats its execution's last record exactly.
    change: Option<RecordChange>,
    /// The execution's mid-stream denials whose class waited for this record, by tool use id.
    waiting: Vec<(Digest, Arc<PendingRisk>)>,
}

/// What a record adds to the counts, beyond what its execution's earlier lines counted.
struct RecordChange {
    /// Denials nothing counted before, and how many the record claimed beyond its budget.
    revealed: Revelation,
    /// The execution's totals before this record (zero without a correlation key).
    previous: Totals,
    /// Denials counted for the execution, this record's included.
    denials_now: u64,
    /// The workflow as the line or its execution names it, before admission.
    workflow: Option<String>,
    /// Spend by model (raw model names), as increases.
    spend: Vec<(String, ModelSeries)>,
    /// What counting each revealed denial found (in the order of `revealed`).
    findings: Vec<Finding>,
}

impl Accountant {
    pub(super) fn on_record(&mut self, record: Record, source: LineSource<'_>) -> LineOutcome {
        let time = self.advance_clock(record.time);
        let current = Totals {
            cost_usd: record.cost_usd.unwrap_or(0.0),
            duration_seconds: record.duration_seconds.unwrap_or(0.0),
            turns: record.turns.unwrap_or(0.0),
            tokens: record.tokens.as_ref().map(tokens_array).unwrap_or_default(),
            denials: 0,
            records: 0,
        };
        let Reconciled { change, waiting } = self.reconcile_record(&record, &current);
        let at = Decided {
            time,
            execution_id: record.execution_id.as_deref(),
            entry: None,
            source: source.path,
            format: record.format.as_str(),
        };
        let outcome = match change {
            Some(change) => {
                self.count_record(&record, source, time, &current, change);
                LineOutcome::Counted
            }
            None => LineOutcome::Duplicate,
        };
        self.decide_pending(waiting, &record.denials, at);
        outcome
    }

    /// What `record` adds, and the execution's denials whose class waited for it.
    fn reconcile_record(&mut self, record: &Record, current: &Totals) -> Reconciled {
        let (budget, max_tools) = (
            self.config.limits.max_denials_per_record,
            self.config.limits.max_tools,
        );
        let (tools, metrics) = (&mut self.state.tools, &mut self.state.metrics);
        let mut admit_tool = |raw: &str| admit(tools, metrics, LabelName::Tool, max_tools, raw);
        let Some(id) = &record.execution_id else {
            // Without a correlation key, every denial the record lists is its own.
            let revealed = Execution::default().reveal(&record.denials, budget, &mut admit_tool);
            let previous = Totals::default();
            let change = RecordChange {
                findings: Vec::new(),
                denials_now: revealed.total(),
                spend: spend::record_spend(&mut Default::default(), record, &previous, current),
                revealed,
                previous,
                workflow: record.workflow.clone(),
            };
            return Reconciled {
                change: Some(change),
                waiting: Vec::new(),
            };
        };
        let (clock, cap) = (self.state.clock, self.config.limits.max_executions);
        let (reconciled, evicted) = self.state.executions.with(id, clock, cap, |execution| {
            let waiting: Vec<(Digest, Arc<PendingRisk>)> =
                execution.take_pending().into_iter().collect();
            let revealed = execution.reveal(&record.denials, budget, &mut admit_tool);
            let denials_now = execution.denials_counted();
            let previous = execution.last;
            let repeated = revealed.revealed.is_empty()
                && revealed.clamped == 0
                && previous.records > 0
                && Totals {
                    denials: previous.denials,
                    records: previous.records,
                    ..*current
                } == previous;
            if repeated {
                return Reconciled {
                    change: None,
                    waiting,
                };
            }
            execution.last = Totals {
                denials: denials_now,
                records: previous.records + 1,
                ..*current
            };
            if let Some(w) = &record.workflow {
                // Kept in the state file: never a value that holds a secret.
                execution.workflow = Some(label_value(w).to_string());
            }
            let workflow = record
                .workflow
                .clone()
                .or_else(|| execution.workflow.clone());
            let spend = spend::record_spend(&mut execution.models, record, &previous, current);
            let findings = revealed
                .revealed
                .iter()
                .map(|r| {
                    let input = r.attempted.as_ref().map(input_digest);
                    execution
                        .calls
                        .denied(&r.tool, Reason::Unknown, r.digest, input, r.count)
                })
                .collect();
            let change = RecordChange {
                findings,
                revealed,
                previous,
                denials_now,
                workflow,
                spend,
            };
            Reconciled {
                change: Some(change),
                waiting,
            }
        });
        self.state.metrics.evicted_cap += evicted;
        reconciled
    }

    /// Counts what a record adds: its revealed denials (as `reason="unknown"`), one execution,
    /// and the increases of its totals.
    fn count_record(
        &mut self,
        record: &Record,
        source: LineSource<'_>,
        time: Option<f64>,
        current: &Totals,
        change: RecordChange,
    ) {
        let RecordChange {
            revealed: Revelation { revealed, clamped },
            previous,
            denials_now,
            workflow,
            spend,
            findings,
        } = change;
        let m = &mut self.state.metrics;
        m.denials_clamped = m.denials_clamped.saturating_add(clamped);
        let workflow = self.workflow_label(workflow.as_deref(), source);
        // The execution id is shown (redacted) once for the whole record.
        let mut ids = Ids::new(record.execution_id.as_deref(), None);
        let mut findings = findings.into_iter();
        for denial in &revealed {
            let risk = self
                .risks
                .classify(&denial.tool, denial.attempted.as_ref(), None);
            ids.with_tool_use(denial.tool_use_id.as_deref());
            let summary = self
                .shows
                .builds()
                .then(|| denial.input_summary())
                .flatten();
            self.book(
                &denial.tool,
                Decision::Now(risk),
                &mut ids,
                CountedDenial {
                    time,
                    tool: &denial.tool,
                    workflow: &workflow,
                    reason: Reason::Unknown,
                    reason_text: None,
                    input_summary: summary.as_deref(),
                    source: source.path,
                    path_labels: source.path_labels,
                    origin: Origin::Record,
                    format: record.format,
                    count: denial.count,
                },
            );
            if let Some(finding) = findings.next().filter(|f| !f.is_empty()) {
                let at = FoundAt {
                    time,
                    execution_id: record.execution_id.as_deref(),
                    tool_use_id: denial.tool_use_id.as_deref(),
                    workflow: &workflow,
                    source,
                    format: record.format,
                };
                self.count_finding(finding, &denial.tool, at);
            }
        }
        ids.with_tool_use(None);
        let spend: Vec<(String, ModelSeries)> = spend
            .into_iter()
            .map(|(model, mut s)| {
                if s.cost_usd > 0.0 {
                    let tally = &mut self.state.metrics.redactions;
                    s.cost_exemplar = self.shows.exemplar(&mut ids, s.cost_usd, time, tally);
                }
                (self.label(LabelName::Model, &model), s)
            })
            .collect();
        let series = self
            .state
            .metrics
            .workflow_series(source.path_labels, workflow);
        *series
            .executions
            .entry(metrics::outcome_label(record.outcome.as_deref()).to_string())
            .or_default() += 1;
        observe_increases(series, &previous, current, denials_now);
        // Tokens by kind are the sum over models, so that both families always agree.
        for (model, s) in spend {
            let by_model = series.models.entry(model).or_default();
            for (i, n) in s.tokens.iter().enumerate() {
                by_model.tokens[i] = saturating_add(by_model.tokens[i], *n);
                series.tokens[i] = saturating_add(series.tokens[i], *n);
            }
            by_model.cost_usd = saturating_add(by_model.cost_usd, s.cost_usd);
            if s.cost_exemplar.is_some() {
                by_model.cost_exemplar = s.cost_exemplar;
            }
        }
    }
}

/// Observes one execution's cost, turns, duration and denials as increases since `previous`.
fn observe_increases(
    series: &mut WorkflowSeries,
    previous: &Totals,
    current: &Totals,
    denials_now: u64,
) {
    series.cost_usd.observe(
        metrics::COST_BUCKETS,
        increase(previous.cost_usd, current.cost_usd),
    );
    series.turns.observe(
        metrics::TURN_BUCKETS,
        increase(previous.turns, current.turns),
    );
    series.duration_seconds.observe(
        metrics::DURATION_BUCKETS,
        increase(previous.duration_seconds, current.duration_seconds),
    );
    series.denials.observe(
        metrics::DENIAL_BUCKETS,
        denials_now.saturating_sub(previous.denials) as f64,
    );
}
