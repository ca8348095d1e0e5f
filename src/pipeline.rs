//! One region of complete lines through every stage: prefilter → frame → decode →
//! account → audit.
//!
//! Owns the [`Accountant`] (the only writer of counting state) and the per-source reading state
//! ([`Source`]: pending container partials, which outcomes were already logged), one per file the
//! follower reports (it is the follower's [`Sink`]). Both commands drive it: `replay` from a
//! reader, `run` from the follower, always on one thread, so the counting state and the offsets
//! the caller commits describe the same lines. Also owns which JSON strings make a line worth
//! decoding: the configured names and the fixed ones of the other formats, given to the
//! prefilter.
//!
//! **Not here:** reading files and offsets ([`crate::input`]), what a line means
//! ([`crate::decode`]), counting rules ([`crate::account`]).
//!
//! Hot: per chunk, a newline count and one prefilter pass; per candidate line, the rest.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tracing::warn;

use crate::account::{Accountant, LineSource};
use crate::audit::AuditWriter;
use crate::config::{Config, Fields};
use crate::decode::{self, Skip};
use crate::input::follow::{FileId, Opened, Sink};
use crate::input::frame::{self, ChunkJoiner, Joined, SavedPartial};
use crate::input::identity::Inode;
use crate::input::prefilter::{is_plain_object_line, Pick, Prefilter};
use crate::vocab::{AuditRecord, LabelName, LineOutcome, PathLabels};

/// The reading state of one source (a file, or stdin), kept across chunks.
#[derive(Debug)]
pub struct Source {
    pub path: Arc<str>,
    path_workflow: Option<String>,
    /// What `--labels-from-path` took from the path, before admission.
    raw_labels: Vec<(LabelName, String)>,
    /// Its series' path labels, admitted when its first lines are counted.
    path_labels: Option<PathLabels>,
    joiner: ChunkJoiner,
    /// Outcomes already logged for this source (each is logged once, then only counted).
    logged: BTreeSet<LineOutcome>,
}

impl Source {
    pub fn new(path: &str, config: &Config) -> Source {
        let captures = config
            .labels_from_path
            .as_ref()
            .map(|pattern| pattern.captures(path))
            .unwrap_or_default();
        Source {
            path: Arc::from(path),
            path_workflow: captures.workflow,
            raw_labels: captures.labels,
            path_labels: None,
            joiner: ChunkJoiner::new(config.limits.max_line_bytes),
            logged: BTreeSet::new(),
        }
    }

    /// What the state file keeps of this source.
    pub fn save(&self) -> SourceState {
        SourceState {
            partials: self.joiner.save(),
        }
    }

    /// Restores what [`Source::save`] returned.
    pub fn restore(&mut self, saved: &SourceState) {
        self.joiner.restore(&saved.partials);
    }
}

/// A source's state-file entry: unfinished container partials held at the file's offset.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SourceState {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub partials: Vec<SavedPartial>,
}

/// The stages after input, on one thread.
pub struct Pipeline {
    accountant: Accountant,
    prefilter: Prefilter,
    audit: Option<AuditWriter>,
    /// How many of the latest audit records to keep for the caller (the recent-denials ring).
    keep_audit: usize,
    kept: Vec<AuditRecord>,
    audit_failed: bool,
    /// Reused by [`Pipeline::lines`].
    picks: Vec<Pick>,
    /// One source per followed file ([`Sink`]).
    sources: HashMap<FileId, Source>,
    /// Sources restored from the state file, until their file is opened again.
    restored: HashMap<Inode, SourceState>,
}

/// The JSON strings a line must hold to be worth decoding ([`Prefilter`]): the configured event
/// and record message, and the fixed names of stream-json frames and results
/// (`permission_denied`, `permission_denials`), Claude Code's hook input (`PermissionDenied`) and
/// the agent CLI (`input_summary`); and what tells of tool calls' answers: stream-json's
/// `assistant` and `user` messages (each has a `parent_tool_use_id`, which no other line has: a
/// `"tool_use"` value is also an executor's `"stopReason"`), the executor's `agent.tool.result`
/// line, Claude Code's `PostToolUse` hook input (`crate::decode::calls`).
fn candidate_tokens(fields: &Fields) -> [&str; 9] {
    [
        &fields.denied_event,
        &fields.completed_message,
        "permission_denied",
        "permission_denials",
        "PermissionDenied",
        "input_summary",
        "parent_tool_use_id",
        crate::decode::calls::TOOL_RESULT_EVENT,
        "PostToolUse",
    ]
}

impl Pipeline {
    /// `keep_audit`: how many of the latest audit records [`Pipeline::take_kept`] returns.
    pub fn new(accountant: Accountant, audit: Option<AuditWriter>, keep_audit: usize) -> Pipeline {
        let mut accountant = accountant;
        accountant.set_auditing(audit.is_some() || keep_audit > 0);
        let prefilter = Prefilter::new(&candidate_tokens(&accountant.config().fields));
        Pipeline {
            accountant,
            prefilter,
            audit,
            keep_audit,
            kept: Vec::new(),
            audit_failed: false,
            picks: Vec::new(),
            sources: HashMap::new(),
            restored: HashMap::new(),
        }
    }

    /// Sources saved in the state file, by the identity of their file.
    pub fn restore_sources(&mut self, saved: impl IntoIterator<Item = (Inode, SourceState)>) {
        self.restored.extend(saved);
    }

    /// The state-file entry of a followed file's source.
    pub fn save_source(&self, id: FileId) -> SourceState {
        self.sources.get(&id).map(Source::save).unwrap_or_default()
    }

    /// Runs `f` on the source of `id` (a fresh one for [`crate::input::follow::NO_FILE`]).
    fn with_source(&mut self, id: FileId, f: impl FnOnce(&mut Pipeline, &mut Source)) {
        let mut source = self
            .sources
            .remove(&id)
            .unwrap_or_else(|| Source::new("(rotated away)", self.accountant.config()));
        f(self, &mut source);
        if id != crate::input::follow::NO_FILE {
            self.sources.insert(id, source);
        }
    }

    /// The prefilter, for a read-ahead thread that picks lines for [`Pipeline::picked`].
    pub fn prefilter(&self) -> &Prefilter {
        &self.prefilter
    }

    pub fn accountant(&self) -> &Accountant {
        &self.accountant
    }

    /// Drops the series of path label sets whose files have been gone for the grace period
    /// (`now`: seconds since the epoch); returns how many were dropped.
    pub fn expire_paths(&mut self, now: f64) -> usize {
        self.accountant.expire_paths(now)
    }

    #[cfg(test)]
    pub fn into_accountant(self) -> Accountant {
        self.accountant
    }

    /// Opens the audit log again at its path (after logrotate moved it away: SIGHUP).
    pub fn reopen_audit(&mut self) -> std::io::Result<()> {
        let Some(path) = self.accountant.config().audit_log.clone() else {
            return Ok(());
        };
        if path.as_os_str() == "-" {
            return Ok(());
        }
        self.audit = Some(AuditWriter::open_at(&path, None)?);
        self.audit_failed = false;
        Ok(())
    }

    /// The audit file's length after the last write, for the state file.
    pub fn audit_len(&self) -> Option<u64> {
        self.audit.as_ref().and_then(|a| a.file_len())
    }

    /// The latest audit records produced since the last call (at most `keep_audit`).
    pub fn take_kept(&mut self) -> Vec<AuditRecord> {
        std::mem::take(&mut self.kept)
    }

    /// Counts lines skipped whole by the reader for being too long.
    pub fn oversized(&mut self, source: &mut Source, n: u64) {
        for _ in 0..n {
            self.accountant.add_read(0, 1);
            self.outcome(source, LineOutcome::Oversized, b"");
        }
    }

    /// Processes a region of complete lines (each ending in `\n`).
    pub fn lines(&mut self, source: &mut Source, region: &[u8]) {
        if region.is_empty() {
            return;
        }
        let max = self.accountant.config().limits.max_line_bytes;
        let mut picks = std::mem::take(&mut self.picks);
        let lines = self.prefilter.pick(region, max, &mut picks);
        self.picked(source, region, lines, &picks);
        self.picks = picks;
        // Followed files: the caller may save its offsets next, with the audit file's length.
        self.flush_audit_file();
    }

    /// Processes a region whose lines were already picked by [`Prefilter::pick`] (on the
    /// read-ahead thread, in replay). Its audit records are written but not flushed: a replay
    /// keeps no offsets, so the audit file is written as its buffer fills and when the pipeline
    /// is dropped, not with a write per region.
    pub fn picked(&mut self, source: &mut Source, region: &[u8], lines: u64, picks: &[Pick]) {
        self.accountant.add_read(region.len() as u64, lines);
        for pick in picks {
            match pick {
                Pick::Line(range) => self.line(source, &region[range.clone()]),
                Pick::Oversized => self.outcome(source, LineOutcome::Oversized, b""),
            }
        }
        self.hand_over_audit();
    }

    /// Processes an unterminated last line (end of a replayed input).
    pub fn last_line(&mut self, source: &mut Source, line: &[u8]) {
        self.accountant.add_read(line.len() as u64, 1);
        if line.len() > self.accountant.config().limits.max_line_bytes {
            self.outcome(source, LineOutcome::Oversized, b"");
        } else {
            self.line(source, line);
        }
        self.hand_over_audit();
        self.flush_audit_file();
    }

    /// One candidate physical line (without its newline).
    fn line(&mut self, source: &mut Source, line: &[u8]) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        // A UTF-8 byte order mark before a file's first line, and the run of NULs copytruncate
        // leaves where a writer with a stale offset resumes, are not part of the line.
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        let line = &line[line.iter().take_while(|b| **b == 0).count()..];
        let app = match source.joiner.push(frame::parse(line)) {
            Joined::Pending => return,
            Joined::Oversized => return self.outcome(source, LineOutcome::Oversized, b""),
            Joined::Line(app) => app,
        };
        let unwrapped = !matches!(app, Cow::Borrowed(_)) || app.len() != line.len();
        if unwrapped && !self.prefilter.is_app_candidate(&app) && is_plain_object_line(&app) {
            // Unwrapped from framing, and only now known not to matter.
            return;
        }
        if app.iter().all(u8::is_ascii_whitespace) {
            return; // a blank line is not malformed, just empty
        }
        self.decode(source, &app);
    }

    fn decode(&mut self, source: &mut Source, app: &[u8]) {
        let fields = &self.accountant.config().fields;
        // decode rejects a line that is not UTF-8; only a line it rejects is checked again, lossily.
        let (decoded, lossy) = match decode::decode(app, fields) {
            Err(Skip::Malformed) if std::str::from_utf8(app).is_err() => (
                decode::decode(String::from_utf8_lossy(app).as_bytes(), fields),
                true,
            ),
            decoded => (decoded, false),
        };
        match decoded {
            Ok(event) => {
                let path_labels = match &source.path_labels {
                    Some(labels) => labels,
                    None => source
                        .path_labels
                        .insert(self.accountant.path_labels(&source.raw_labels)),
                };
                let where_from = LineSource {
                    path: &source.path,
                    path_workflow: source.path_workflow.as_deref(),
                    path_labels,
                };
                let outcome = self.accountant.apply(event, where_from);
                let outcome = if lossy { LineOutcome::NonUtf8 } else { outcome };
                self.outcome(source, outcome, app);
            }
            Err(Skip::Malformed) => {
                let outcome = if lossy {
                    LineOutcome::NonUtf8
                } else {
                    LineOutcome::Malformed
                };
                self.outcome(source, outcome, app);
            }
            Err(Skip::Ignored) if lossy => self.outcome(source, LineOutcome::NonUtf8, app),
            Err(Skip::Ignored) => {}
        }
    }

    /// Counts a line's outcome; the first bad line of each kind per source is logged (redacted).
    fn outcome(&mut self, source: &mut Source, outcome: LineOutcome, line: &[u8]) {
        self.accountant.add_outcome(outcome);
        let bad = matches!(
            outcome,
            LineOutcome::Malformed | LineOutcome::Oversized | LineOutcome::NonUtf8
        );
        if bad && source.logged.insert(outcome) {
            // Redacted whole, then cut: a token that straddles the cut never shows in part.
            let excerpt = self.accountant.excerpt(&String::from_utf8_lossy(line), 120);
            warn!(
                path = %source.path,
                outcome = outcome.as_str(),
                excerpt = %excerpt,
                "skipping a bad line; further ones in this file are only counted"
            );
        }
    }

    /// Moves the audit records made so far to the audit writer and the kept ones.
    fn hand_over_audit(&mut self) {
        let records = self.accountant.take_audit();
        if records.is_empty() {
            return;
        }
        if let Some(writer) = &mut self.audit {
            let written = writer.write(&records);
            self.audit_result(written);
        }
        if self.keep_audit > 0 {
            // Only the latest records are ever shown: never hold a whole backlog's.
            self.kept.extend(records);
            let excess = self.kept.len().saturating_sub(self.keep_audit);
            self.kept.drain(..excess);
        }
    }

    /// Flushes what the audit writer holds to the audit file.
    fn flush_audit_file(&mut self) {
        if let Some(writer) = &mut self.audit {
            let flushed = writer.flush();
            self.audit_result(flushed);
        }
    }

    /// Logs the first failure to write the audit log.
    fn audit_result(&mut self, result: std::io::Result<()>) {
        if let Err(error) = result {
            if !self.audit_failed {
                warn!(%error, "cannot write the audit log; denials are still counted");
                self.audit_failed = true;
            }
        }
    }
}

impl Sink for Pipeline {
    fn opened(&mut self, file: &Opened<'_>) {
        let mut source = Source::new(&file.path.display().to_string(), self.accountant.config());
        // Only a file resumed from its entry takes it: a new file that reused the inode leaves
        // it for the entry's file, found later (renamed, or compressed).
        if let Some(saved) = file
            .resumed
            .then(|| self.restored.remove(&file.inode))
            .flatten()
        {
            source.restore(&saved);
        }
        let labels = self.accountant.path_labels(&source.raw_labels);
        self.accountant.path_opened(&labels);
        source.path_labels = Some(labels);
        self.sources.insert(file.id, source);
    }

    fn lines(&mut self, id: FileId, region: &[u8]) {
        self.with_source(id, |p, source| p.lines(source, region));
    }

    fn oversized(&mut self, id: FileId, count: u64) {
        self.with_source(id, |p, source| p.oversized(source, count));
    }

    fn unterminated(&mut self, id: FileId, fragment: &[u8]) {
        self.with_source(id, |p, source| p.last_line(source, fragment));
    }

    fn reset(&mut self, id: FileId) {
        // Container partials held from the old content must not join the new one.
        self.with_source(id, |p, source| {
            *source = Source::new(&source.path, p.accountant.config());
        });
    }

    fn closed(&mut self, id: FileId) {
        if let Some(labels) = self.sources.remove(&id).and_then(|s| s.path_labels) {
            self.accountant
                .path_closed(&labels, crate::account::wall_now());
        }
    }

    fn is_whole_line(&self, line: &[u8]) -> bool {
        is_json_object(line)
    }
}

/// Whether `line` is exactly one JSON object (surrounding white space allowed).
fn is_json_object(line: &[u8]) -> bool {
    line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
        && serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::audit::TestBuffer;

    #[test]
    fn a_byte_order_mark_or_a_run_of_nuls_before_a_line_does_not_hide_it() {
        let denial = LINES[0];
        for prefix in [&b"\xEF\xBB\xBF"[..], b"\0\0\0\0", b"\xEF\xBB\xBF\0"] {
            let mut input = prefix.to_vec();
            input.extend_from_slice(denial.as_bytes());
            input.push(b'\n');
            let got = fast(&input, &[]);
            assert_eq!(got.denials_total(), 1, "prefix {prefix:?}");
            assert_eq!(
                got.lines_by_outcome()
                    .iter()
                    .find(|(o, _)| *o == LineOutcome::Malformed)
                    .map(|x| x.1),
                Some(0)
            );
        }
    }

    const LINES: &[&str] = &[
        r#"{"level":40,"executionId":"e1","workflow":"review","event":"agent.permission.denied","toolName":"Bash","toolUseId":"t1","decisionReasonType":"hook","msg":"agent permission denied"}"#,
        r#"{"level":40,"executionId":"e1","workflow":"review","event":"agent.permission.denied","toolName":"Edit","decisionReasonType":"rule","msg":"agent permission denied"}"#,
        r#"{"level":30,"executionId":"e1","workflow":"review","permissionDenials":[{"toolName":"Bash","toolUseId":"t1"},{"toolName":"Write","toolUseId":"t7"}],"msg":"Claude Agent SDK execution completed"}"#,
        r#"{"level":30,"msg":"ordinary line","n":1}"#,
        r#"{"level":30,"payload":{"event":"agent.permission.denied"},"msg":"decoy"}"#,
        r#"{"type":"system","subtype":"permission_denied","tool_name":"Bash","tool_use_id":"t9","decision_reason_type":"mode","session_id":"s"}"#,
        r#"{"session_id":"s","turn":2,"tool":"Bash","reason":"Denied by rule","input_summary":"ls"}"#,
        "not json",
        "",
        r#"{"level":40,"event":"agent.permission.denied","toolName":"Ba"#,
        "2026-06-12T10:00:00.1Z stdout P {\"level\":40,\"event\":\"agent.permission.de",
        "2026-06-12T10:00:00.2Z stdout F nied\",\"toolName\":\"Read\",\"decisionReasonType\":\"rule\"}",
        "2026-06-12T10:00:00.3Z stderr F {\"level\":30,\"msg\":\"framed ordinary\"}",
    ];

    fn pipeline() -> Pipeline {
        Pipeline::new(Accountant::new(Config::default()), None, 0)
    }

    #[test]
    fn a_followed_region_writes_its_audit_records_out_and_a_replay_writes_them_at_the_end() {
        let region = format!("{}\n", LINES[0]);
        let audited = |sink: &TestBuffer, len| {
            let writer = AuditWriter::to(Box::new(sink.clone()), len);
            let p = Pipeline::new(Accountant::new(Config::default()), Some(writer), 0);
            let source = Source::new("t", p.accountant().config());
            (p, source)
        };
        let sink = TestBuffer::default();
        let (mut p, mut source) = audited(&sink, Some(0));
        p.lines(&mut source, region.as_bytes());
        assert_eq!(
            sink.records(),
            1,
            "out before the follower's offsets can be saved"
        );
        let sink = TestBuffer::default();
        let (mut p, mut source) = audited(&sink, None);
        let mut picks = Vec::new();
        let lines = p.prefilter().pick(region.as_bytes(), 1 << 20, &mut picks);
        p.picked(&mut source, region.as_bytes(), lines, &picks);
        assert_eq!(sink.records(), 0, "a replayed region does not cost a write");
        drop(p);
        assert_eq!(
            sink.records(),
            1,
            "dropping the pipeline writes what it held"
        );
    }

    /// Every line through the slow path: no prefilter, no shape shortcut.
    fn exhaustive(input: &[u8]) -> crate::vocab::counters::Metrics {
        let mut p = pipeline();
        let mut source = Source::new("t", p.accountant().config());
        for line in input.split_inclusive(|b| *b == b'\n') {
            p.accountant.add_read(line.len() as u64, 1);
            p.line(&mut source, line.strip_suffix(b"\n").unwrap_or(line));
        }
        p.into_accountant().into_state().metrics
    }

    /// The fast path, over the given chunk boundaries (each cut at a line end, as LineBuffer does).
    fn fast(input: &[u8], cuts: &[usize]) -> crate::vocab::counters::Metrics {
        let mut p = pipeline();
        let mut source = Source::new("t", p.accountant().config());
        let mut from = 0;
        for cut in cuts.iter().copied().chain([input.len()]) {
            let end = memchr::memrchr(b'\n', &input[..cut.min(input.len())]).map_or(0, |i| i + 1);
            if end > from {
                p.lines(&mut source, &input[from..end]);
                from = end;
            }
        }
        p.into_accountant().into_state().metrics
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn prefilter_on_and_off_count_the_same(
            picks in proptest::collection::vec(0..LINES.len(), 0..60),
            mut cuts in proptest::collection::vec(0usize..20_000, 0..6),
        ) {
            // Keep CRI partials followed by their end so every input is well-formed framing.
            let mut input = Vec::new();
            for i in picks {
                input.extend_from_slice(LINES[i].as_bytes());
                input.push(b'\n');
                if LINES[i].contains(" stdout P ") {
                    input.extend_from_slice(LINES[i + 1].as_bytes());
                    input.push(b'\n');
                }
            }
            cuts.sort_unstable();
            let want = exhaustive(&input);
            let got = fast(&input, &cuts);
            prop_assert_eq!(&got.denials, &want.denials);
            prop_assert_eq!(got.lines_by_outcome(), want.lines_by_outcome());
            prop_assert_eq!(&got.workflows, &want.workflows);
        }
    }
}
