//! The exposition held byte for byte against the `.prom` golden files in `tests/golden/`: the
//! 0.0.4 text as `replay` prints it here; both formats as `/metrics` serves them in `run`
//! (families, then the HTTP server's own, then `# EOF` in OpenMetrics) in `crate::web`'s tests,
//! from the same [`Golden`] state and [`check`].
//!
//! The state is built here, deterministic, and touches every family, escape and exemplar. Only
//! the redaction kinds it counted are shown, so a new redaction rule does not move the goldens.
//! `GOLDEN_UPDATE=1 cargo test --lib golden` rewrites the files; review the diff.

use std::path::PathBuf;

use crate::account::Gauges;
use crate::exposition::{render_text, Counted, RunStats};
use crate::input::follow::FollowStats;
use crate::vocab::counters::{self as metrics, DenialKey, Exemplar, Metrics};
use crate::vocab::counters::{LoopKey, LoopPattern, RiskKey, ToolKey};
use crate::vocab::{LabelName, LineOutcome, PathLabels, Reason};

/// A state that exercises every family: escapes in labels, histograms at and past their
/// buckets, models, exemplars on both counters that carry them, every self-metric non-zero.
// A counter added to the follower or the run stats starts at 0 here until it is given a value.
#[allow(clippy::needless_update)]
fn state() -> (Metrics, Gauges, RunStats) {
    let mut m = Metrics::default();
    let tools = ["Bash", "mcp__x\\y", "we\"ird\nname", "Write"];
    for (i, tool) in tools.iter().enumerate() {
        let key = DenialKey {
            path: Default::default(),
            tool: tool.to_string(),
            workflow: format!("wf{}", i % 2),
            reason: Reason::ALL[i % Reason::ALL.len()],
        };
        m.denials.insert(key.clone(), i as u64 + 1);
        if i != 2 {
            let tool_use = format!("toolu_{i:02}");
            m.denial_exemplars.insert(
                key,
                Exemplar::new(Some("exec_\"1\""), Some(&tool_use), 1.0, 1781251200.5),
            );
        }
    }
    // The denial families added with the per-call record, one series with path labels each.
    let pod = PathLabels(vec![(LabelName::Namespace, "ci".into())]);
    for (path, tool) in [(PathLabels::default(), "Bash"), (pod, "we\"ird")] {
        let (tool, workflow) = (tool.to_string(), "wf0".to_string());
        let risk = RiskKey {
            path: path.clone(),
            tool: tool.clone(),
            workflow: workflow.clone(),
            risk: "destructive".into(),
        };
        m.denial_risks.insert(risk.clone(), 2);
        let exemplar = Exemplar::new(Some("exec_2"), Some("toolu_r"), 1.0, 1781251202.0);
        m.denial_risk_exemplars.insert(risk, exemplar);
        let unenforced = ToolKey {
            path: path.clone(),
            tool: tool.clone(),
            workflow: workflow.clone(),
        };
        m.unenforced.insert(unenforced, 1);
        for (pattern, at) in [(LoopPattern::Repeated, 3), (LoopPattern::Varied, 10)] {
            let key = LoopKey {
                path: path.clone(),
                tool: tool.clone(),
                workflow: workflow.clone(),
                pattern,
                at,
            };
            m.loops.insert(key, at as u64 / 2);
        }
    }
    for (w, scale) in [("review", 1.0), ("de\\ploy", 3.5)] {
        let series = m.workflows.entry(w.into()).or_default();
        for v in [0.003, 0.3, 2.0, 1e9] {
            series.cost_usd.observe(metrics::COST_BUCKETS, v * scale);
        }
        series.turns.observe(metrics::TURN_BUCKETS, 7.0 * scale);
        series.turns.observe(metrics::TURN_BUCKETS, 500.0);
        series
            .duration_seconds
            .observe(metrics::DURATION_BUCKETS, 0.125 * scale);
        series.denials.observe(metrics::DENIAL_BUCKETS, 0.0);
        series.denials.observe(metrics::DENIAL_BUCKETS, 3.0);
        series.executions.insert("success".into(), 3);
        series.executions.insert("other".into(), 1);
        series.tokens = [1.0 * scale, 2.5, 1e21, 0.0];
        let model = series.models.entry("claude-x".into()).or_default();
        model.cost_usd = 0.1 + 0.2 * scale;
        model.tokens = [5.0, 0.0, 7.0 * scale, 1.0];
        model.cost_exemplar = Some(Exemplar::new(Some("exec_9"), None, 0.25, 1781251201.0));
        series.models.entry("other".into()).or_default().cost_usd = 0.5;
    }
    m.read_bytes = 123_456_789;
    m.lines_read = 1000;
    for (i, o) in LineOutcome::ALL.iter().enumerate() {
        if *o != LineOutcome::Ignored {
            m.lines.insert(*o, i as u64 + 2);
        }
    }
    m.redactions.insert("github_token".into(), 4);
    m.redactions.insert("zz_retired_kind".into(), 1);
    for (i, l) in LabelName::ALL.iter().enumerate() {
        m.label_overflow.insert(*l, i as u64 + 1);
        m.label_invalid.insert(*l, 2 * i as u64);
        m.label_redacted.insert(*l, 3);
    }
    m.evicted_cap = 5;
    m.evicted_idle = 6;
    m.series_overflow = 7;
    m.denials_clamped = 8;
    m.times_rejected = 9;
    m.last_event_timestamp = 1_700_000_000.123;
    let gauges = Gauges {
        executions_tracked: 11,
        tools_admitted: 4,
        workflows_admitted: 2,
        models_admitted: 2,
    };
    let run = RunStats {
        follow: FollowStats {
            files: vec![("/var/log/a.log".into(), 12), ("/x/\"q\".log".into(), 0)].into(),
            followed: 5,
            lag_others: 9,
            rotations: 2,
            truncations: 3,
            unopenable: 1,
            open_files: 4,
            parked: 7,
            rejoined: 4,
            file_errors_open: 5,
            file_errors_read: 6,
            file_errors_vanished: 7,
            ..Default::default()
        },
        watcher_errors: 1,
        watcher_fallbacks: 2,
        watch_rearms: 3,
        inotify: true,
        state_writes_ok: 40,
        state_writes_error: 1,
        state_last_write: 1_700_000_100.5,
        ..Default::default()
    };
    (m, gauges, run)
}

/// The golden state.
pub(crate) struct Golden {
    metrics: Metrics,
    gauges: Gauges,
    run: RunStats,
}

impl Golden {
    pub(crate) fn new() -> Golden {
        let (metrics, gauges, run) = state();
        Golden {
            metrics,
            gauges,
            run,
        }
    }

    /// The state as `run` shows it (`live`), or as `replay` does.
    pub(crate) fn counted(&self, live: bool) -> Counted<'_> {
        Counted {
            metrics: &self.metrics,
            gauges: self.gauges,
            run: live.then_some(&self.run),
        }
    }
}

/// Holds `got` to the golden file `name`, or rewrites it under `GOLDEN_UPDATE`.
pub(crate) fn check(name: &str, got: &str) {
    // The build's revision and target change with every commit and machine.
    let got = got
        .replace(
            &format!("revision=\"{}\"", crate::build_info::REVISION),
            "revision=\"REVISION\"",
        )
        .replace(
            &format!("target=\"{}\"", crate::build_info::TARGET),
            "target=\"TARGET\"",
        );
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("GOLDEN_UPDATE").is_some() {
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    if *got != want {
        let line = got
            .lines()
            .zip(want.lines())
            .position(|(g, w)| g != w)
            .unwrap_or(got.lines().count().min(want.lines().count()));
        panic!(
            "{} differs from the exposition at line {}:\n got: {:?}\nwant: {:?}",
            path.display(),
            line + 1,
            got.lines().nth(line),
            want.lines().nth(line)
        );
    }
}

#[test]
fn golden_text_as_replay_prints_it() {
    check("replay.prom", &render_text(&Golden::new().counted(false)));
}
