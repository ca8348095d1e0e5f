//! Micro-benchmark of the risk classifier, ignored by default: `bench/risk.sh` runs it in a
//! release build. Prints nanoseconds per classification over the labelled corpus (every kind of
//! attempt, dangerous and ordinary), over its ordinary commands alone (what most denials are),
//! and over inputs at the byte budget (the worst case), after one warm-up pass that compiles
//! the rules. Each figure is the best of seven runs in thread CPU time, so a loaded machine
//! inflates it less than wall time would.
//!
//! No timing is asserted (the machine may be loaded); the figures are for the reader and the
//! replay budget: at 1% denial lines, replay reads about 27,000 denials per GiB, so each
//! microsecond per classification costs about 27 ms per GiB.

use std::hint::black_box;

use denials_exporter::risk::{Attempt, Input, RiskRules, MAX_EXAMINED_BYTES};
use serde_json::json;

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

/// The best of `REPEATS` measurements of `rounds` passes over `attempts`, in CPU nanoseconds
/// per classification.
fn ns_per_call(rounds: usize, attempts: &[Attempt<'_>], rules: &RiskRules) -> f64 {
    const REPEATS: usize = 7;
    (0..REPEATS)
        .map(|_| {
            let start = thread_cpu_ns();
            for _ in 0..rounds {
                for attempt in attempts {
                    black_box(rules.classify(black_box(attempt)));
                }
            }
            (thread_cpu_ns() - start) as f64 / (rounds * attempts.len()) as f64
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
#[ignore = "a benchmark: run bench/risk.sh"]
fn ns_per_classification() {
    let rounds: usize = std::env::var("RISK_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let rules = RiskRules::builtin();
    let cases = risk_support::corpus();
    let all: Vec<Attempt<'_>> = cases.iter().map(|c| c.attempt()).collect();
    let ordinary: Vec<Attempt<'_>> = cases
        .iter()
        .filter(|c| c.expected == "none" && c.kind == "command")
        .map(|c| c.attempt())
        .collect();
    let long_command = json!({ "command": "echo ok; ".repeat(MAX_EXAMINED_BYTES / 9 + 1) });
    let long_script = json!({
        "file_path": "scripts/build.sh",
        "content": "npm ci && npm run build\n".repeat(MAX_EXAMINED_BYTES / 24 + 1),
    });
    let long = [
        Attempt {
            tool: "Bash",
            input: Some(Input::Json(&long_command)),
            reason: None,
        },
        Attempt {
            tool: "Write",
            input: Some(Input::Json(&long_script)),
            reason: None,
        },
    ];
    let user = RiskRules::new(
        [
            "db_migration=\\bprisma\\s+migrate\\s+reset\\b",
            "history_rewrite=\\bjj\\s+abandon\\b",
        ],
        ["corp.example"],
    )
    .expect("valid rules");
    ns_per_call(1, &all, &rules);
    ns_per_call(1, &all, &user);
    println!("| attempts | count | ns per classification |");
    println!("| --- | ---: | ---: |");
    for (name, attempts, rules, rounds) in [
        ("whole corpus", &all[..], &rules, rounds),
        ("ordinary commands", &ordinary[..], &rules, rounds),
        ("whole corpus, two user rules", &all[..], &user, rounds),
        (
            "16 KiB command / script (worst case)",
            &long[..],
            &rules,
            rounds.div_ceil(10),
        ),
    ] {
        println!(
            "| {name} | {} | {:.0} |",
            attempts.len(),
            ns_per_call(rounds, attempts, rules)
        );
    }
}
