//! Every metric family the exporter serves: its name, help text and type, in one place.
//!
//! Owns the names and help texts of the counted families (filled from [`super::counters`]), the
//! exporter's own families, the live follower's and the HTTP connections'. `docs/metrics.md` is
//! the reference for operators and lists every family here; a test holds the two together.
//! Names follow Prometheus conventions; self-metrics are `denials_exporter_<name>_<unit>`, except
//! the `process_*` families, named as every Prometheus client library names them.
//!
//! **Not here:** which samples a family has and in what order (`crate::exposition`), the
//! values (`super::counters`, the follower, the web server), bucket bounds
//! (`super::counters`).

/// A family's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Counter,
    Gauge,
    Histogram,
}

/// One metric family as served: name (a counter's ends in `_total`), help text, type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Family {
    pub name: &'static str,
    pub help: &'static str,
    pub kind: Kind,
}

const fn family(name: &'static str, help: &'static str, kind: Kind) -> Family {
    Family { name, help, kind }
}

use Kind::{Counter, Gauge, Histogram};

// What is counted.
pub const DENIALS: Family = family(
    "permission_denials_total",
    "Denied tool calls, each counted exactly once.",
    Counter,
);
pub const DENIAL_RISKS: Family = family(
    "permission_denial_risks_total",
    "Denied tool calls by what they attempted, each classified exactly once when its input is \
     first known.",
    Counter,
);
pub const DENIALS_UNENFORCED: Family = family(
    "permission_denials_unenforced_total",
    "Denied tool calls that ran anyway (a result that is not an error, or a PostToolUse hook \
     input, for a denied tool use id), each counted once.",
    Counter,
);
pub const DENIAL_LOOPS: Family = family(
    "permission_denial_loops_total",
    "Runs of denials of one tool within one execution that reached the step `at`: consecutive \
     denials (pattern repeated) or distinct inputs tried after the first denial (pattern varied).",
    Counter,
);
pub const EXECUTIONS: Family = family(
    "agent_executions_total",
    "Agent executions completed, by SDK result subtype.",
    Counter,
);
pub const COST: Family = family(
    "agent_execution_cost_usd",
    "Cost of one agent execution in US dollars.",
    Histogram,
);
pub const TOKENS: Family = family(
    "agent_tokens_total",
    "Tokens used by agent executions, by kind.",
    Counter,
);
pub const TOKENS_BY_MODEL: Family = family(
    "agent_tokens_by_model_total",
    "Tokens used by agent executions, by kind and model (from the SDK's modelUsage).",
    Counter,
);
pub const COST_BY_MODEL: Family = family(
    "agent_cost_usd_total",
    "Cost of agent executions in US dollars, by model (from the SDK's modelUsage).",
    Counter,
);
pub const TURNS: Family = family(
    "agent_execution_turns",
    "Turns of one agent execution.",
    Histogram,
);
pub const DURATION: Family = family(
    "agent_execution_duration_seconds",
    "Wall time of one agent execution in seconds.",
    Histogram,
);
pub const DENIALS_PER_EXECUTION: Family = family(
    "agent_execution_denials",
    "Permission denials recorded per agent execution.",
    Histogram,
);

// The exporter's own, in `replay` and `run` alike.
pub const BUILD_INFO: Family = family(
    "denials_exporter_build_info",
    "Build information; always 1.",
    Gauge,
);
pub const READ_BYTES: Family = family(
    "denials_exporter_read_bytes_total",
    "Bytes read from log files.",
    Counter,
);
pub const LINES: Family = family(
    "denials_exporter_lines_total",
    "Lines read, by outcome.",
    Counter,
);
pub const REDACTIONS: Family = family(
    "denials_exporter_redactions_total",
    "Secrets replaced before leaving the exporter, by kind.",
    Counter,
);
pub const LABEL_OVERFLOW: Family = family(
    "denials_exporter_label_overflow_total",
    "Label values mapped to \"other\" because the label hit its cap.",
    Counter,
);
pub const LABEL_INVALID: Family = family(
    "denials_exporter_label_invalid_total",
    "Label values mapped to \"invalid\" by the charset and length rule.",
    Counter,
);
pub const LABEL_REDACTED: Family = family(
    "denials_exporter_label_redacted_total",
    "Label values replaced by \"redacted\" because they held a secret.",
    Counter,
);
pub const LABEL_VALUES: Family = family(
    "denials_exporter_label_values",
    "Distinct admitted label values.",
    Gauge,
);
pub const EXECUTIONS_TRACKED: Family = family(
    "denials_exporter_executions_tracked",
    "Executions held for reconciliation.",
    Gauge,
);
pub const EXECUTIONS_EVICTED: Family = family(
    "denials_exporter_executions_evicted_total",
    "Executions whose reconciliation state was dropped, by cause.",
    Counter,
);
pub const SERIES_OVERFLOW: Family = family(
    "denials_exporter_series_overflow_total",
    "Denials counted under tool and workflow other because --max-series was reached.",
    Counter,
);
pub const PATH_LABELS_EXPIRED: Family = family(
    "denials_exporter_path_labels_expired_total",
    "Label sets --labels-from-path gave (a pod's namespace and pod) whose series were dropped: \
     none of their files had been followed for --path-labels-grace.",
    Counter,
);
pub const RECORD_DENIALS_CLAMPED: Family = family(
    "denials_exporter_record_denials_clamped_total",
    "Denials execution records claimed beyond --max-denials-per-record, not counted.",
    Counter,
);
pub const TIMES_REJECTED: Family = family(
    "denials_exporter_times_rejected_total",
    "Log times further ahead of the wall clock than --max-clock-skew, taken as no time.",
    Counter,
);
pub const LAST_EVENT_TIMESTAMP: Family = family(
    "denials_exporter_last_event_timestamp_seconds",
    "Log time of the last counted event; the read time for lines without one (stream-json).",
    Gauge,
);

// The live follower's (`run` only).
pub const FILES_FOLLOWED: Family = family(
    "denials_exporter_files_followed",
    "Files currently followed.",
    Gauge,
);
pub const FILE_LAG: Family = family(
    "denials_exporter_file_lag_bytes",
    "Bytes written to a followed file but not yet read.",
    Gauge,
);
pub const FILE_LAG_OTHERS: Family = family(
    "denials_exporter_file_lag_others_bytes",
    "Summed lag of the followed files without a series of their own (--max-file-series).",
    Gauge,
);
pub const ROTATIONS: Family = family(
    "denials_exporter_rotations_total",
    "Rotations seen (rename, numbered roll, deletion).",
    Counter,
);
pub const TRUNCATIONS: Family = family(
    "denials_exporter_truncations_total",
    "Truncations seen (copytruncate).",
    Counter,
);
pub const FILES_UNOPENABLE: Family = family(
    "denials_exporter_files_unopenable",
    "Paths the globs match that cannot be opened now (permissions, the fd limit).",
    Gauge,
);
pub const FILES_OPEN: Family = family(
    "denials_exporter_files_open",
    "Followed files holding a descriptor (the others are closed until they change).",
    Gauge,
);
pub const FILES_PARKED: Family = family(
    "denials_exporter_files_parked_total",
    "Times a file read to its end was closed to stay within the open files limit.",
    Counter,
);
pub const LINES_REJOINED: Family = family(
    "denials_exporter_lines_rejoined_total",
    "Lines a writer cut across two rolled files, joined again.",
    Counter,
);
pub const FILE_ERRORS: Family = family(
    "denials_exporter_file_errors_total",
    "Errors on followed files, by kind.",
    Counter,
);
pub const COMPRESSED_FILES: Family = family(
    "denials_exporter_compressed_files_total",
    "Compressed files met: skipped (a glob matched a gzip file; never read as lines), or \
     finished (a saved file found only as its .gz at a restart, read from its saved offset).",
    Counter,
);
pub const STATE_ENTRIES_DROPPED: Family = family(
    "denials_exporter_state_entries_dropped_total",
    "State-file entries dropped at a restart: no file in their directory had their identity.",
    Counter,
);
pub const LOST_FILES: Family = family(
    "denials_exporter_lost_files_total",
    "State-file entries whose file was gone at a restart before it was read to its end (deleted \
     by its rotation, or with its pod with bytes known unread, while the exporter was down): \
     their unread lines are lost.",
    Counter,
);
pub const LOST_BYTES: Family = family(
    "denials_exporter_lost_bytes_total",
    "Bytes known written to the files of denials_exporter_lost_files_total and never read: a \
     lower bound, as what was written after the last state write is not known.",
    Counter,
);
pub const ROLLS_RECOVERED: Family = family(
    "denials_exporter_rolls_recovered_total",
    "Rolls no state recorded (created and rotated away, or compressed, while the exporter was \
     stopped, down, or could not write its state), found beside a followed file and read from \
     their start.",
    Counter,
);
pub const WATCHER_ERRORS: Family = family(
    "denials_exporter_watcher_errors_total",
    "inotify errors and queue overflows.",
    Counter,
);
pub const WATCHER_FALLBACKS: Family = family(
    "denials_exporter_watcher_fallbacks_total",
    "Switches from inotify to polling.",
    Counter,
);
pub const WATCH_REARMS: Family = family(
    "denials_exporter_watch_rearms_total",
    "inotify watches set up again because a watched directory was deleted or replaced.",
    Counter,
);
pub const INOTIFY_WATCHING: Family = family(
    "denials_exporter_inotify_watching",
    "1 while inotify watches are armed; 0 while only the periodic stat finds changes.",
    Gauge,
);
pub const STATE_WRITES: Family = family(
    "denials_exporter_state_writes_total",
    "State-file writes, by result.",
    Counter,
);
pub const FAULTS: Family = family(
    "denials_exporter_faults_total",
    "Data faults met at start-up, by fault; the exporter came up regardless (state_corrupt, \
     state_unreadable, state_newer: the state file was set aside and counting started fresh; \
     state_unwritable: the state cannot be written; log_dir_missing: a --path glob's directory \
     does not exist).",
    Counter,
);
pub const STATE_LAST_WRITE: Family = family(
    "denials_exporter_state_last_write_timestamp_seconds",
    "When the state file was last written.",
    Gauge,
);

// The process's own (`run` only), read from `/proc` at each scrape: the names and help texts of
// the Prometheus client libraries' process collector, so node_exporter users' queries work.
pub const PROCESS_CPU: Family = family(
    "process_cpu_seconds_total",
    "Total user and system CPU time spent in seconds.",
    Counter,
);
pub const PROCESS_OPEN_FDS: Family = family(
    "process_open_fds",
    "Number of open file descriptors.",
    Gauge,
);
pub const PROCESS_MAX_FDS: Family = family(
    "process_max_fds",
    "Maximum number of open file descriptors.",
    Gauge,
);
pub const PROCESS_VIRTUAL_MEMORY: Family = family(
    "process_virtual_memory_bytes",
    "Virtual memory size in bytes.",
    Gauge,
);
pub const PROCESS_RESIDENT_MEMORY: Family = family(
    "process_resident_memory_bytes",
    "Resident memory size in bytes.",
    Gauge,
);
pub const PROCESS_START_TIME: Family = family(
    "process_start_time_seconds",
    "Start time of the process since unix epoch in seconds.",
    Gauge,
);

// The HTTP server's (`run` only), after everything else on `/metrics`.
pub const HTTP_CONNECTIONS_OPEN: Family = family(
    "denials_exporter_http_connections_open",
    "HTTP connections open now.",
    Gauge,
);
pub const HTTP_CONNECTIONS_REJECTED: Family = family(
    "denials_exporter_http_connections_rejected_total",
    "Connections closed at once because --web.max-connections were open, all serving a request.",
    Counter,
);
pub const HTTP_CONNECTIONS_EVICTED: Family = family(
    "denials_exporter_http_connections_evicted_total",
    "Idle connections closed to make room for a new one when --web.max-connections were open.",
    Counter,
);
pub const HTTP_WRITE_TIMEOUTS: Family = family(
    "denials_exporter_http_write_timeouts_total",
    "Connections closed because a response was not written within --web.write-timeout.",
    Counter,
);
pub const HTTP_ACCEPT_ERRORS: Family = family(
    "denials_exporter_http_accept_errors_total",
    "Failed accept() calls (e.g. out of file descriptors); each backs off.",
    Counter,
);
pub const TLS_HANDSHAKE_ERRORS: Family = family(
    "denials_exporter_tls_handshake_errors_total",
    "Failed TLS handshakes by reason (a refused client certificate's, or other).",
    Counter,
);
pub const HTTP_TLS_HANDSHAKE_ERRORS: Family = family(
    "denials_exporter_http_tls_handshake_errors_total",
    "TLS handshakes that failed or timed out.",
    Counter,
);

/// Every family, in exposition order (what the tests hold the docs to).
#[cfg(test)]
pub const ALL: [Family; 62] = [
    DENIALS,
    DENIAL_RISKS,
    DENIALS_UNENFORCED,
    DENIAL_LOOPS,
    EXECUTIONS,
    COST,
    TOKENS,
    TOKENS_BY_MODEL,
    COST_BY_MODEL,
    TURNS,
    DURATION,
    DENIALS_PER_EXECUTION,
    BUILD_INFO,
    READ_BYTES,
    LINES,
    REDACTIONS,
    LABEL_OVERFLOW,
    LABEL_INVALID,
    LABEL_REDACTED,
    LABEL_VALUES,
    EXECUTIONS_TRACKED,
    EXECUTIONS_EVICTED,
    SERIES_OVERFLOW,
    RECORD_DENIALS_CLAMPED,
    PATH_LABELS_EXPIRED,
    TIMES_REJECTED,
    LAST_EVENT_TIMESTAMP,
    FILES_FOLLOWED,
    FILE_LAG,
    FILE_LAG_OTHERS,
    ROTATIONS,
    TRUNCATIONS,
    FILES_UNOPENABLE,
    FILES_OPEN,
    FILES_PARKED,
    LINES_REJOINED,
    FILE_ERRORS,
    COMPRESSED_FILES,
    STATE_ENTRIES_DROPPED,
    LOST_FILES,
    LOST_BYTES,
    ROLLS_RECOVERED,
    WATCHER_ERRORS,
    WATCHER_FALLBACKS,
    WATCH_REARMS,
    INOTIFY_WATCHING,
    STATE_WRITES,
    STATE_LAST_WRITE,
    FAULTS,
    PROCESS_CPU,
    PROCESS_OPEN_FDS,
    PROCESS_MAX_FDS,
    PROCESS_VIRTUAL_MEMORY,
    PROCESS_RESIDENT_MEMORY,
    PROCESS_START_TIME,
    HTTP_CONNECTIONS_OPEN,
    HTTP_CONNECTIONS_REJECTED,
    HTTP_CONNECTIONS_EVICTED,
    HTTP_WRITE_TIMEOUTS,
    HTTP_ACCEPT_ERRORS,
    TLS_HANDSHAKE_ERRORS,
    HTTP_TLS_HANDSHAKE_ERRORS,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_counters_end_in_total() {
        let mut names: Vec<&str> = ALL.iter().map(|f| f.name).collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "a name is used twice");
        for f in ALL {
            assert_eq!(
                f.kind == Kind::Counter,
                f.name.ends_with("_total"),
                "{}",
                f.name
            );
        }
    }

    #[test]
    fn docs_metrics_md_lists_every_family() {
        let doc = include_str!("../../docs/metrics.md");
        let mut missing: Vec<&str> = ALL
            .iter()
            .map(|f| f.name)
            .filter(|name| !doc.contains(&format!("`{name}`")))
            .collect();
        missing.sort_unstable();
        assert!(
            missing.is_empty(),
            "docs/metrics.md does not list {missing:?}"
        );
    }
}
