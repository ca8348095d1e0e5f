//! Property tests of the per-call record: each denial is counted once and classified once
//! across its frame, its answer (`tool_result` + `tool_result_meta`), its result entry and its
//! ask, in any order, with lines repeated and restarts (the state saved and restored) anywhere;
//! its reason is that of whichever came first; a denied call whose answer says it ran is counted
//! once as unenforced (unless a restart fell between its answer and its first denial line, which
//! only memory knew), and no other call is.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;
use crate::vocab::AuditKind;

/// A permission layer as the real SDK reports it (CLI 2.1.330): its frame (type and
/// `decision_reason`, when it has one) and its per-call record, with the reasons each gives.
struct Layer {
    frame: Option<(&'static str, &'static str)>,
    meta: &'static str,
    frame_reason: &'static str,
    meta_reason: &'static str,
}

const LAYERS: [Layer; 8] = [
    Layer {
        frame: None,
        meta: r#""non_execution_kind":"permission-rule","permission_decision":{"decision":"reject","source":"hook","reason_type":"hook"}"#,
        frame_reason: "",
        meta_reason: "hook",
    },
    Layer {
        frame: None,
        meta: r#""non_execution_kind":"permission-rule","permission_decision":{"decision":"reject","source":"user_reject"}"#,
        frame_reason: "",
        meta_reason: "permissionPromptTool",
    },
    Layer {
        frame: None,
        meta: r#""permission_decision":{"decision":"reject","source":"config","reason_type":"rule"}"#,
        frame_reason: "",
        meta_reason: "rule",
    },
    Layer {
        frame: Some(("subcommandResults", "")),
        meta: r#""non_execution_kind":"permission-rule","permission_decision":{"decision":"reject","source":"config","reason_type":"subcommandResults"}"#,
        frame_reason: "subcommandResults",
        meta_reason: "subcommandResults",
    },
    Layer {
        frame: Some(("other", "This command requires approval")),
        meta: r#""non_execution_kind":"user-rejected","permission_decision":{"decision":"reject","source":"config"}"#,
        frame_reason: "other",
        meta_reason: "other",
    },
    Layer {
        frame: Some(("mode", "")),
        meta: r#""non_execution_kind":"user-rejected","permission_decision":{"decision":"reject","source":"config"}"#,
        frame_reason: "mode",
        meta_reason: "other",
    },
    Layer {
        frame: Some(("classifier", "Classifier unavailable")),
        meta: r#""non_execution_kind":"automode-unavailable","permission_decision":{"decision":"reject","source":"config","reason_type":"classifier"}"#,
        frame_reason: "classifierUnavailable",
        meta_reason: "classifierUnavailable",
    },
    Layer {
        frame: Some(("classifier", "[Code from External] Runs a script.")),
        meta: r#""non_execution_kind":"automode-blocked","permission_decision":{"decision":"reject","source":"config","reason_type":"classifier"}"#,
        frame_reason: "classifier",
        meta_reason: "classifier",
    },
];

const TOOLS: [&str; 3] = ["Bash", "Read", "WebFetch"];

/// One denied call: its layer, its tool, whether the result lists it, and whether its answer
/// says it ran (then its record is no rejection, and a frame or the result must name it).
#[derive(Debug, Clone)]
struct Planned {
    layer: usize,
    tool: usize,
    listed: bool,
    ran: bool,
}

fn planned() -> impl Strategy<Value = Planned> {
    (0..LAYERS.len(), 0..TOOLS.len(), any::<bool>(), 0..8u8).prop_map(|(layer, tool, listed, r)| {
        let ran = r == 0;
        // A call that ran is a denial only if a frame or the result says so.
        let listed = listed || (ran && LAYERS[layer].frame.is_none());
        Planned {
            layer,
            tool,
            listed,
            ran,
        }
    })
}

/// What a line is, for the expectations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line {
    Ask(usize),
    Frame(usize),
    Answer(usize),
    Result,
    Restart,
}

fn text(line: Line, plan: &[Planned]) -> String {
    let tool = |i: usize| TOOLS[plan[i].tool];
    match line {
        Line::Ask(i) => format!(
            r#"{{"type":"assistant","message":{{"content":[{{"type":"tool_use","id":"t{i}","name":"{}","input":{{"command":"attempt {i}"}}}}]}},"session_id":"s1"}}"#,
            tool(i)
        ),
        Line::Frame(i) => {
            let (kind, reason) = LAYERS[plan[i].layer].frame.expect("a frame");
            format!(
                r#"{{"type":"system","subtype":"permission_denied","tool_name":"{}","tool_use_id":"t{i}","decision_reason_type":"{kind}","decision_reason":"{reason}","session_id":"s1"}}"#,
                tool(i)
            )
        }
        Line::Answer(i) if plan[i].ran => format!(
            r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"t{i}","content":"done","is_error":false}}]}},"tool_result_meta":[{{"id":"t{i}","permission_decision":{{"decision":"accept","source":"config","reason_type":"rule"}}}}],"session_id":"s1"}}"#
        ),
        Line::Answer(i) => format!(
            r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"t{i}","is_error":true,"content":"denied"}}]}},"tool_result_meta":[{{"id":"t{i}",{}}}],"session_id":"s1"}}"#,
            LAYERS[plan[i].layer].meta
        ),
        Line::Result => {
            let entries: Vec<String> = (0..plan.len())
                .filter(|i| plan[*i].listed)
                .map(|i| {
                    format!(
                        r#"{{"tool_name":"{}","tool_use_id":"t{i}","tool_input":{{"command":"attempt {i}"}}}}"#,
                        tool(i)
                    )
                })
                .collect();
            format!(
                r#"{{"type":"result","subtype":"success","session_id":"s1","permission_denials":[{}]}}"#,
                entries.join(",")
            )
        }
        Line::Restart => unreachable!(),
    }
}

/// The plan, its lines shuffled, some repeated, restarts between.
fn schedule() -> impl Strategy<Value = (Vec<Planned>, Vec<Line>)> {
    proptest::collection::vec(planned(), 1..7).prop_flat_map(|plan| {
        let mut lines = vec![Line::Result];
        for (i, p) in plan.iter().enumerate() {
            lines.extend([Line::Ask(i), Line::Answer(i)]);
            if LAYERS[p.layer].frame.is_some() {
                lines.push(Line::Frame(i));
            }
        }
        let n = lines.len();
        let extras = proptest::collection::vec((0..n, any::<bool>()), 0..6);
        (Just(plan), Just(lines).prop_shuffle(), extras).prop_map(|(plan, mut lines, extras)| {
            for (at, restart) in extras {
                let extra = if restart { Line::Restart } else { lines[at] };
                lines.insert(at, extra);
            }
            (plan, lines)
        })
    })
}

/// The reason and tool label each denial must be counted with, and whether it is unenforced.
fn expected(plan: &[Planned], lines: &[Line]) -> Vec<(&'static str, &'static str, bool)> {
    let first = |want: &dyn Fn(Line) -> bool| lines.iter().position(|l| want(*l));
    (0..plan.len())
        .map(|i| {
            let layer = &LAYERS[plan[i].layer];
            let sources = [
                first(&|l| l == Line::Frame(i)).map(|at| (at, layer.frame_reason)),
                first(&|l| l == Line::Answer(i) && !plan[i].ran).map(|at| (at, layer.meta_reason)),
                first(&|l| l == Line::Result && plan[i].listed).map(|at| (at, "unknown")),
            ];
            let (at, reason) = sources.into_iter().flatten().min().expect("a denial");
            let ask = first(&|l| l == Line::Ask(i)).expect("asked");
            let tool = if lines[at] == Line::Answer(i) && ask > at {
                "unknown"
            } else {
                TOOLS[plan[i].tool]
            };
            // An answer after the denial finds it; one before it, only if no restart fell between
            // (what ran is kept in memory only); a line read again after a restart counts anew.
            let unenforced = plan[i].ran
                && (0..lines.len()).any(|p| {
                    lines[p] == Line::Answer(i)
                        && (p > at || !lines[p..at].contains(&Line::Restart))
                });
            (reason, tool, unenforced)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn each_denial_is_counted_once_with_the_reason_that_came_first((plan, lines) in schedule()) {
        let mut a = Accountant::new(Config::default());
        let mut audit = Vec::new();
        for line in &lines {
            if *line == Line::Restart {
                let saved = serde_json::to_string(a.state()).unwrap();
                a = Accountant::with_state(Config::default(), serde_json::from_str(&saved).unwrap());
                continue;
            }
            let outcome = feed(&mut a, &text(*line, &plan));
            a.add_outcome(outcome);
            audit.extend(a.take_audit());
            let m = a.metrics();
            prop_assert_eq!(
                m.denial_risks_total() + a.state().executions.pending() as u64,
                m.denials_total(),
                "classified once, at every line"
            );
        }
        let want = expected(&plan, &lines);
        let m = a.metrics();
        prop_assert_eq!(m.denials_total(), plan.len() as u64, "each counted once");
        let pending = a.state().executions.pending() as u64;
        prop_assert_eq!(m.denial_risks_total() + pending, plan.len() as u64, "each classified once");
        let mut by_id: BTreeMap<String, Vec<&AuditRecord>> = BTreeMap::new();
        for r in &audit {
            by_id.entry(r.tool_use_id.clone().unwrap_or_default()).or_default().push(r);
        }
        for (i, (reason, tool, unenforced)) in want.iter().enumerate() {
            let records = by_id.get(&format!("t{i}")).cloned().unwrap_or_default();
            let denials: Vec<_> = records.iter().filter(|r| r.kind == AuditKind::Denial).collect();
            prop_assert_eq!(denials.len(), 1, "one denial record for t{}: {:?}", i, lines);
            prop_assert_eq!(denials[0].reason.as_str(), *reason, "t{}: {:?}", i, lines);
            prop_assert_eq!(denials[0].tool.as_str(), *tool, "t{}: {:?}", i, lines);
            for r in records.iter().filter(|r| r.kind != AuditKind::Denial) {
                prop_assert_eq!(r.reason, denials[0].reason, "the same reason on every record of t{}", i);
            }
            let marks = records.iter().filter(|r| r.kind == AuditKind::Unenforced).count();
            prop_assert_eq!(marks, usize::from(*unenforced), "t{} unenforced: {:?}", i, lines);
        }
        let unenforced = want.iter().filter(|w| w.2).count() as u64;
        prop_assert_eq!(m.unenforced.values().sum::<u64>(), unenforced);
    }
}

/// The synthetic case the real CLI could not be made to produce: a call a hook denied that ran
/// anyway (tests/data/sdk/unenforced.jsonl has it as a stream): counted once as a denial and once
/// as unenforced, in either order, and a failing call that no layer refused is neither.
#[test]
fn a_denied_call_that_ran_counts_once_as_unenforced() {
    let ask = r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"git push --force origin main"}}]},"session_id":"s1"}"#;
    let hook = r#"{"level":40,"executionId":"s1","workflow":"fix","event":"agent.permission.denied","toolName":"Bash","toolUseId":"t1","decisionReasonType":"hook","msg":"agent permission denied"}"#;
    let ran = r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"To github.com:acme/web.git\n + 1a2b3c...4d5e6f main -> main (forced update)","is_error":false}]},"session_id":"s1"}"#;
    let failed = r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"Exit code 1","is_error":true}]},"session_id":"s1"}"#;
    for lines in [[ask, hook, ran, failed], [ask, ran, failed, hook]] {
        let mut a = account(&lines);
        let a2 = account(&[&lines[..], &lines[..]].concat());
        for a in [&a, &a2] {
            assert_eq!(count(a, "Bash", "fix", "hook"), 1);
            let unenforced: Vec<_> = a.metrics().unenforced.iter().collect();
            assert_eq!(unenforced.len(), 1, "{lines:?}");
            assert_eq!(
                (
                    unenforced[0].0.tool.as_str(),
                    unenforced[0].0.workflow.as_str(),
                    *unenforced[0].1
                ),
                ("Bash", "fix", 1)
            );
        }
        let audit = a.take_audit();
        let marked: Vec<_> = audit
            .iter()
            .filter(|r| r.kind == AuditKind::Unenforced)
            .collect();
        assert_eq!(marked.len(), 1);
        assert_eq!(marked[0].tool_use_id.as_deref(), Some("t1"));
        assert_eq!(marked[0].reason, Reason::Hook);
    }
}

/// Loop and unenforced series are capped by `--max-series` like the denials: past it, their tool
/// and workflow are `other`, and the overflow is counted.
#[test]
fn loop_series_fold_into_other_past_the_series_cap() {
    let mut config = Config::default();
    config.limits.max_series = 13;
    let mut lines = Vec::new();
    for t in 0..20 {
        for i in 0..3 {
            lines.push(format!(
                r#"{{"executionId":"e1","workflow":"fix","event":"agent.permission.denied","toolName":"tool{t}","toolUseId":"t{t}_{i}","decisionReasonType":"hook"}}"#
            ));
        }
    }
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let a = account_with(config, &lines);
    let m = a.metrics();
    assert_eq!(m.loops.values().sum::<u64>(), 20, "every run of 3 counted");
    assert_eq!(m.loops.len(), 14, "13 series, then other");
    assert!(m
        .loops
        .keys()
        .any(|k| k.tool == "other" && k.workflow == "other"));
    assert!(m.series_overflow >= 7);
}
