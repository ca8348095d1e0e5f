//! Micro-benchmark of the risk classifier: `bench/risk.sh` runs it in a release build
//! (`cargo bench --bench risk`). Prints nanoseconds per classification over the labelled corpus (every kind of
//! attempt, dangerous and ordinary; each input as the JSON text it was logged as, the form the
//! pipeline hands over), over its ordinary commands alone (what most denials are),
//! with user rules, and over inputs at the byte
//! budget (the worst case), after one warm-up pass that compiles the rules. Each figure is the best of seven runs in thread CPU time, so a loaded machine
//! inflates it less than wall time would.
//!
//! No timing is asserted (the machine may be loaded); the figures are for the reader and the
//! replay budget: at 1% denial lines, replay reads about 27,000 denials per GiB, so each
//! microsecond per classification costs about 27 ms per GiB.

use std::hint::black_box;

use denials_exporter::risk::{Attempt, Input, RiskRules, MAX_EXAMINED_BYTES};
use serde_json::json;

#[path = "../tests/risk_support/mod.rs"]
mod risk_support;

/// CPU time of this thread, in nanoseconds: unlike wall time, not inflated while other
/// processes hold the core.
fn thread_cpu_ns() -> u128 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    t.tv_sec as u128 * 1_000_000_000 + t.tv_nsec as u128
}

/// The best of `REPEATS` measurements of passes over `attempts`, one pass per rule set in
/// `passes`, in CPU nanoseconds per classification.
fn ns_per_call(passes: &[RiskRules], attempts: &[Attempt<'_>]) -> f64 {
    const REPEATS: usize = 7;
    (0..REPEATS)
        .map(|_| {
            let start = thread_cpu_ns();
            for rules in passes {
                for attempt in attempts {
                    black_box(rules.classify(black_box(attempt)));
                }
            }
            (thread_cpu_ns() - start) as f64 / (passes.len() * attempts.len()) as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// A corpus case's attempt with its input as the JSON text it was logged as.
fn as_logged<'a>((case, text): (&'a risk_support::Case, &'a Option<String>)) -> Attempt<'a> {
    match text {
        Some(text) => Attempt {
            input: Some(Input::JsonText(text)),
            ..case.attempt()
        },
        None => case.attempt(),
    }
}

fn main() {
    let rounds: usize = std::env::var("RISK_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let cases = risk_support::corpus();
    // Inputs as the pipeline hands them over: the JSON text as logged.
    let logged: Vec<Option<String>> = cases
        .iter()
        .map(|c| c.input.as_ref().map(|v| v.to_string()))
        .collect();
    let all: Vec<Attempt<'_>> = cases.iter().zip(&logged).map(as_logged).collect();
    let ordinary: Vec<Attempt<'_>> = cases
        .iter()
        .zip(&logged)
        .filter(|(c, _)| c.expected == "none" && c.kind == "command")
        .map(as_logged)
        .collect();
    let long_command =
        json!({ "command": "echo ok; ".repeat(MAX_EXAMINED_BYTES / 9 + 1) }).to_string();
    let long_script = json!({
        "file_path": "scripts/build.sh",
        "content": "npm ci && npm run build\n".repeat(MAX_EXAMINED_BYTES / 24 + 1),
    })
    .to_string();
    let long = [
        Attempt {
            tool: "Bash",
            input: Some(Input::JsonText(&long_command)),
            reason: None,
        },
        Attempt {
            tool: "Write",
            input: Some(Input::JsonText(&long_script)),
            reason: None,
        },
    ];
    let user_rules = || {
        RiskRules::new(
            [
                "db_migration=\\bprisma\\s+migrate\\s+reset\\b",
                "history_rewrite=\\bjj\\s+abandon\\b",
            ],
            ["corp.example"],
        )
        .expect("valid rules")
    };
    // Rule sets built outside the timed loops; one warm-up pass compiles the rules.
    let fresh: Vec<RiskRules> = (0..rounds).map(|_| RiskRules::builtin()).collect();
    let fresh_user: Vec<RiskRules> = (0..rounds).map(|_| user_rules()).collect();
    ns_per_call(&fresh[..1], &all);
    ns_per_call(&fresh_user[..1], &all);
    println!("| attempts | count | ns per classification |");
    println!("| --- | ---: | ---: |");
    let few = rounds.div_ceil(10);
    for (name, attempts, passes) in [
        ("whole corpus, first sight", &all[..], &fresh[..]),
        ("ordinary commands, first sight", &ordinary[..], &fresh[..]),
        (
            "whole corpus, two user rules, first sight",
            &all[..],
            &fresh_user[..],
        ),
        (
            "16 KiB command / script (worst case)",
            &long[..],
            &fresh[..few],
        ),
    ] {
        println!(
            "| {name} | {} | {:.0} |",
            attempts.len(),
            ns_per_call(passes, attempts)
        );
    }
}
