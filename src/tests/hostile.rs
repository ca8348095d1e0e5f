//! Hostile input through the whole line path (`Pipeline::lines` → prefilter → frame →
//! decode → account), as property tests: the fuzzing part of the hostile-input work.
//!
//! Owns the drivers ([`feed`], [`feed_by_line`]), the invariants every input must keep
//! ([`check_bounds`]) and the properties, among them the exactly-once model
//! ([`counts_every_denial_once`]). [`generate`] makes the lines: arbitrary bytes, JSON-ish token
//! soup, and structure-aware pino / stream-json / CRI / Docker lines with hostile counts, depths,
//! numbers, times and names. [`corpus`] replays the files kept in `tests/data/hostile/` under the
//! same invariants.
//!
//! Why property tests and not coverage-guided fuzzing: `cargo fuzz` needs a nightly toolchain,
//! the `cargo-fuzz` binary and the `libfuzzer-sys` crate. CI builds on stable; on the build box a
//! nightly is installed but neither crate is in the local registry (`cargo install cargo-fuzz
//! --offline` finds nothing), so a fuzz target could not be built or run where the tests run.
//! These properties run on stable in `cargo test`; `HOSTILE_CASES=n` raises every property's
//! case count (default 48) for a longer local run.
//! An input that ever fails goes into `tests/data/hostile/` as a file.

mod corpus;
mod generate;

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;

use crate::account::labels::MAX_LABEL_BYTES;
use crate::account::{AccountState, Accountant};
use crate::config::{Config, Limits};
use crate::pipeline::{Pipeline, Source};
use generate::{
    depth, execution_lines, framed, hostile_or_invalid_number, js, junk_line, model_execution,
    nested, shuffle, time_member, token_soup, tool_name,
};

/// Cases of a property: `HOSTILE_CASES` if set, else `default` (sized so the module runs in
/// well under a minute in a debug build on two shared cores).
fn cases(default: u32) -> ProptestConfig {
    let n = std::env::var("HOSTILE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    ProptestConfig {
        cases: n,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Small caps, so that every cap is reached by a few generated lines.
fn tight() -> Config {
    Config {
        limits: Limits {
            max_tools: 5,
            max_workflows: 3,
            max_executions: 8,
            max_series: 20,
            max_denials_per_record: 100,
            ..Limits::default()
        },
        ..Config::default()
    }
}

/// Feeds `input` in chunks cut at `cuts` (each snapped back to a line end, as the line buffer
/// does), then any unterminated tail as the last line of a replay.
fn feed(config: Config, input: &[u8], cuts: &[usize]) -> Accountant {
    let mut p = Pipeline::new(Accountant::new(config), None, 0);
    let mut source = Source::new("hostile.log", p.accountant().config());
    let mut from = 0;
    let mut cuts = cuts.to_vec();
    cuts.sort_unstable();
    for cut in cuts.into_iter().chain([input.len()]) {
        let end = memchr::memrchr(b'\n', &input[..cut.min(input.len())]).map_or(0, |i| i + 1);
        if end > from {
            p.lines(&mut source, &input[from..end]);
            from = end;
        }
    }
    if from < input.len() {
        p.last_line(&mut source, &input[from..]);
    }
    p.into_accountant()
}

/// Feeds `input` one physical line at a time, checking that no line reveals more denials than
/// a record's budget (a mid-stream denial reveals one).
fn feed_by_line(config: Config, input: &[u8]) -> Accountant {
    let budget = config.limits.max_denials_per_record.max(1);
    let mut p = Pipeline::new(Accountant::new(config), None, 16);
    let mut source = Source::new("hostile.log", p.accountant().config());
    for line in input.split_inclusive(|b| *b == b'\n') {
        let before = p.accountant().metrics().denials_total();
        if line.ends_with(b"\n") {
            p.lines(&mut source, line);
        } else {
            p.last_line(&mut source, line);
        }
        let revealed = p.accountant().metrics().denials_total() - before;
        assert!(
            revealed <= budget,
            "one line revealed {revealed} > {budget}"
        );
        assert!(
            p.take_kept().len() <= 16,
            "the audit ring holds more than asked"
        );
    }
    p.into_accountant()
}

/// What every input must leave behind: structures within the flags, finite numbers, label
/// values within the label rule, and a state that survives the state file.
fn check_bounds(acc: &Accountant) {
    let limits = acc.config().limits;
    let gauges = acc.gauges();
    assert!(gauges.executions_tracked <= limits.max_executions);
    assert!(gauges.tools_admitted <= limits.max_tools);
    assert!(gauges.workflows_admitted <= limits.max_workflows);
    let state = acc.state();
    let m = &state.metrics;
    assert!(
        m.denials.len() <= limits.max_series + crate::vocab::Reason::ALL.len(),
        "{} denial series",
        m.denials.len()
    );
    for key in m.denials.keys() {
        assert!(key.tool.len() <= MAX_LABEL_BYTES && key.workflow.len() <= MAX_LABEL_BYTES);
    }
    assert!(m.workflows.len() <= limits.max_workflows + 2);
    assert!(state.clock.is_finite() && m.last_event_timestamp.is_finite());
    for series in m.workflows.values() {
        for h in [
            &series.cost_usd,
            &series.turns,
            &series.duration_seconds,
            &series.denials,
        ] {
            assert!(h.sum.is_finite(), "histogram sum {}", h.sum);
        }
        assert!(
            series.tokens.iter().all(|t| t.is_finite()),
            "{:?}",
            series.tokens
        );
    }
    let json = serde_json::to_string(state).expect("the state serialises");
    // Memory proxy: what counting keeps is bounded by the flags, not by the input.
    let per_execution = 1024 + 2 * (limits.max_tools + 3) * (MAX_LABEL_BYTES + 32);
    let bound = (1 << 20) + limits.max_executions * per_execution + 65_536 * 70;
    assert!(
        json.len() <= bound,
        "state of {} bytes > {bound}",
        json.len()
    );
    let back: AccountState = serde_json::from_str(&json).expect("the state deserialises");
    assert_eq!(&back, state, "the state file does not round-trip");
}

proptest! {
    #![proptest_config(cases(48))]

    /// Every denial counts exactly once: mid-stream (some repeated), record-only (behind tool
    /// inputs up to 100,000 deep), records repeated, each under random framing and prefixes,
    /// shuffled among junk that must count nothing, and cut at random chunk boundaries.
    #[test]
    fn counts_every_denial_once(
        executions in proptest::collection::vec(model_execution(), 0..6),
        loose in proptest::collection::vec(tool_name(), 0..4),
        junk in proptest::collection::vec(junk_line(), 0..16),
        framing in proptest::collection::vec((0u8..5, 1usize..4, 0u8..4), 64),
        seed in any::<u64>(),
        cuts in proptest::collection::vec(0usize..400_000, 0..8),
    ) {
        let mut apps = Vec::new();
        for (e, x) in executions.iter().enumerate() {
            apps.extend(execution_lines(e, x));
        }
        for (k, tool) in loose.iter().enumerate() {
            apps.push(format!(
                r#"{{"level":40,"event":"agent.permission.denied","toolName":{},"toolUseId":"loose-{k}","msg":"no execution"}}"#,
                js(tool)
            ));
        }
        let mut units: Vec<Vec<u8>> = apps
            .into_iter()
            .enumerate()
            .map(|(i, app)| {
                let (f, parts, prefix) = framing[i % framing.len()];
                framed(app, f, parts, prefix)
            })
            .collect();
        units.extend(junk);
        shuffle(&mut units, seed);
        let input = units.concat();
        let expected = executions.iter().map(|x| x.denials.len() as u64).sum::<u64>()
            + loose.len() as u64;
        let acc = feed(Config::default(), &input, &cuts);
        check_bounds(&acc);
        prop_assert_eq!(acc.metrics().denials_total(), expected);
    }

    /// Hostile records and denials under tight caps, one line at a time: no line reveals more
    /// than the budget, and every structure stays within its flag.
    #[test]
    fn hostile_lines_stay_within_the_flags(
        lines in proptest::collection::vec(
            prop_oneof![
                3 => (0usize..12, proptest::collection::vec((tool_name(), hostile_or_invalid_number()), 0..6),
                      hostile_or_invalid_number(), hostile_or_invalid_number(), time_member(), depth(), tool_name())
                    .prop_map(|(e, per_tool, total, cost, time, d, workflow)| {
                        let per_tool: Vec<String> = per_tool
                            .iter()
                            .map(|(t, n)| format!("{}:{n}", js(t)))
                            .collect();
                        let list = if d % 3 == 0 {
                            format!(r#""permissionDenials":[{{"toolName":"Bash","toolInput":{}}}],"#, nested(d))
                        } else {
                            String::new()
                        };
                        format!(
                            r#"{{"level":30,{time}"executionId":"e{e}","workflow":{},"costUsd":{cost},"outputTokens":{cost},"numTurns":{cost},"permissionDenialCount":{total},{list}"permissionDeniedTools":{{{}}},"msg":"Claude Agent SDK execution completed"}}"#,
                            js(&workflow),
                            per_tool.join(",")
                        )
                    }),
                3 => (0usize..12, tool_name(), tool_name(), time_member(), any::<bool>())
                    .prop_map(|(e, tool, workflow, time, with_id)| {
                        let id = if with_id { format!(r#""toolUseId":"u{e}","#) } else { String::new() };
                        format!(
                            r#"{{"level":40,{time}"executionId":"e{e}","workflow":{},"event":"agent.permission.denied","toolName":{},{id}"msg":"d"}}"#,
                            js(&workflow),
                            js(&tool)
                        )
                    }),
                1 => (0usize..12, hostile_or_invalid_number()).prop_map(|(e, n)| format!(
                    r#"{{"type":"result","subtype":"error_max_turns","total_cost_usd":{n},"duration_ms":{n},"modelUsage":{{"m":{{"inputTokens":{n},"costUSD":{n}}}}},"permission_denials":[{{"tool_name":"Bash","tool_use_id":"x{e}"}}],"session_id":"s{e}"}}"#
                )),
            ]
            .prop_flat_map(|app| (Just(app), 0u8..5, 1usize..5, 0u8..4))
            .prop_map(|(app, f, parts, prefix)| framed(app, f, parts, prefix)),
            0..24,
        ),
        junk in proptest::collection::vec(junk_line(), 0..6),
        dangling_partial in any::<bool>(),
    ) {
        let mut input = lines.concat();
        input.extend(junk.concat());
        if dangling_partial {
            input.extend_from_slice(b"2026-06-12T10:00:00Z stdout P {\"event\":\"agent.permission.denied\"");
        }
        check_bounds(&feed_by_line(tight(), &input));
    }

    /// Arbitrary bytes, with default and tight caps, cut anywhere.
    #[test]
    fn arbitrary_bytes_never_break_the_line_path(
        bytes in proptest::collection::vec(any::<u8>(), 0..4096),
        cuts in proptest::collection::vec(0usize..4096, 0..8),
    ) {
        check_bounds(&feed(Config::default(), &bytes, &cuts));
        check_bounds(&feed(tight(), &bytes, &cuts));
    }

    /// JSON-ish token soup, which reaches the decoders and the reconciliation far more often.
    #[test]
    fn token_soup_never_breaks_the_line_path(
        lines in proptest::collection::vec(token_soup(), 1..24),
        cuts in proptest::collection::vec(0usize..8192, 0..8),
    ) {
        let input = lines.join(&b'\n');
        check_bounds(&feed(Config::default(), &input, &cuts));
        check_bounds(&feed_by_line(tight(), &input));
    }
}
