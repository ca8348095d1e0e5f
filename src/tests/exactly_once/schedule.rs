//! One schedule: a seeded interleaving of writer operations and exporter events, executed as it
//! is generated (what may come next depends on what happened: whether the exporter is up, a line
//! is pending), and checked against the model after every wake-up that rescans.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::input::follow::StartAt;

use super::exporter::Exporter;
use super::model::Kind;
use super::writer::{Rotator, Style, World};

/// splitmix64: tiny, seedable, good enough to pick schedules.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True `p` percent of the time.
    pub fn pct(&mut self, p: u64) -> bool {
        self.below(100) < p
    }
}

/// One step of a schedule.
#[derive(Debug, Clone)]
pub enum Op {
    Append {
        w: usize,
        kinds: Vec<Kind>,
    },
    /// The first piece of a line (cut after `cut` bytes past its time), the rest later.
    Partial {
        w: usize,
        kind: Kind,
        cut: usize,
    },
    Complete {
        w: usize,
    },
    /// A numbered roll; older rolls beyond `keep` deleted.
    Roll {
        w: usize,
        keep: Option<usize>,
    },
    /// Rename + create (logrotate's `create`, or the kubelet's timestamped rename).
    RenameCreate {
        keep: usize,
    },
    /// Rename + create, then the rolls gzipped: the newest too, or (`delay`: logrotate's
    /// `delaycompress`, the kubelet) all but the newest.
    RenameCompress {
        keep: usize,
        delay: bool,
    },
    CopyTruncate {
        keep: usize,
    },
    DeleteOpen {
        w: usize,
    },
    /// Wake-up with a rescan.
    ScanRead,
    /// Wake-up without a rescan.
    Read,
    Save,
    /// SIGTERM while reading: the read stops after `after` regions, at a chunk boundary, and
    /// the final state is written.
    Shutdown {
        after: usize,
    },
    /// The temp file written, then a crash before the rename.
    SaveTorn,
    Crash,
    /// Start; `drop_state`: the state file is lost (fresh start, `end`: `--read-from end`).
    Start {
        drop_state: bool,
        end: bool,
    },
    /// Start, and `kill -9` after the first scan, before the first state write.
    CrashAtStart {
        drop_state: bool,
        end: bool,
    },
}

/// The longest schedule, in steps.
const MAX_STEPS: u64 = 60;

pub struct Run {
    world: World,
    state: PathBuf,
    exporter: Option<Exporter>,
    /// The exporter's total at the last state write.
    durable_total: u64,
    pub ops: Vec<Op>,
    /// What the schedule exercised, for the summary.
    pub tally: BTreeMap<String, u64>,
    /// How long the follower keeps a rotated file it read to its end: zero (let go at the
    /// next read: fragments become orphans) or longer than any schedule (never let go).
    grace: Duration,
    /// How many files the follower may hold open (`None`: the open files limit's budget).
    descriptors: Option<usize>,
}

impl Run {
    pub fn new(root: &Path) -> Run {
        Run {
            world: World::new(&root.join("w")),
            state: root.join("state.json"),
            exporter: None,
            durable_total: 0,
            ops: Vec::new(),
            tally: BTreeMap::new(),
            grace: Duration::ZERO,
            descriptors: None,
        }
    }

    /// Generates and executes the schedule of `seed`.
    pub fn schedule(&mut self, seed: u64) -> Result<(), String> {
        let mut rng = Rng::new(seed);
        let trace = std::env::var_os("EXACTLY_ONCE_TRACE").is_some();
        if rng.pct(25) {
            self.grace = Duration::from_secs(3600);
            self.count("schedules with a long grace", 1);
        }
        if rng.pct(30) {
            self.world.rotator = Rotator::Kubelet;
            self.count("schedules with svc rotated by the kubelet", 1);
        }
        if rng.pct(30) {
            // Files read to their end are parked (closed) and opened again when they change.
            self.descriptors = Some(1 + rng.below(2) as usize);
            self.count("schedules with one or two descriptors for files", 1);
        }
        let steps = 5 + rng.below(MAX_STEPS - 5);
        for _ in 0..steps {
            let op = self.pick(&mut rng);
            self.ops.push(op.clone());
            self.apply(op)?;
            if trace {
                self.trace();
            }
        }
        self.finish()
    }

    /// Executes a written-down schedule (a regression), then finishes it like a generated one.
    pub fn replay(&mut self, ops: &[Op]) -> Result<(), String> {
        let trace = std::env::var_os("EXACTLY_ONCE_TRACE").is_some();
        for op in ops {
            self.ops.push(op.clone());
            self.apply(op.clone())?;
            if trace {
                self.trace();
            }
        }
        self.finish()
    }

    /// The writers go quiet with every line whole; the exporter reads until nothing moves.
    fn finish(&mut self) -> Result<(), String> {
        for w in 0..3 {
            if self.world.writers[w].pending.is_some() {
                self.ops.push(Op::Complete { w });
                self.apply(Op::Complete { w })?;
            }
        }
        if self.exporter.is_none() {
            self.ops.push(Op::Start {
                drop_state: false,
                end: false,
            });
            self.apply(self.ops.last().unwrap().clone())?;
        }
        for _ in 0..2 {
            self.ops.push(Op::ScanRead);
            self.apply(Op::ScanRead)?;
        }
        self.count_joins();
        let mut fates = [0; 3];
        for l in self.world.model.lines.iter().filter(|l| l.whole) {
            fates[match (l.out, l.pieces.len() > 1) {
                (false, false) => 0,
                (false, true) => 1,
                (true, _) => 2,
            }] += 1;
        }
        self.count("lines expected, written whole", fates[0]);
        self.count("lines expected, written in two pieces", fates[1]);
        self.count("lines out (lost or skipped)", fates[2]);
        let (files, orphans) = self.exporter.as_ref().unwrap().held();
        let present = self.held_bound();
        if files > present || orphans > 3 {
            return Err(format!(
                "holds {files} files and {orphans} orphans with {present} files on disk"
            ));
        }
        Ok(())
    }

    fn pick(&mut self, rng: &mut Rng) -> Op {
        let up = self.exporter.is_some();
        if up && rng.pct(45) {
            return match rng.below(100) {
                0..=39 => Op::ScanRead,
                40..=54 => Op::Read,
                55..=74 => Op::Save,
                75..=84 => Op::Crash,
                85..=92 => Op::SaveTorn,
                _ if !self.world.model.may_shut_down() => Op::Save,
                _ => Op::Shutdown {
                    after: 1 + rng.below(4) as usize,
                },
            };
        }
        if !up && rng.pct(30) {
            let drop_state = rng.pct(15);
            let end = rng.pct(50);
            if rng.pct(10) {
                return Op::CrashAtStart { drop_state, end };
            }
            return Op::Start { drop_state, end };
        }
        let w = rng.below(3) as usize;
        let style = self.world.writers[w].style;
        let kind = |rng: &mut Rng| match rng.below(100) {
            0..=34 => Kind::Noise,
            35..=69 => Kind::Plain,
            70..=84 if style != Style::Svc => Kind::ExecDenial(0),
            70..=84 => Kind::Plain,
            _ => Kind::ExecRecord(0),
        };
        match rng.below(100) {
            0..=39 => {
                let n = 1 + rng.below(4);
                Op::Append {
                    w,
                    kinds: (0..n).map(|_| kind(rng)).collect(),
                }
            }
            40..=54 => Op::Partial {
                w,
                kind: kind(rng),
                cut: rng.below(1 << 16) as usize,
            },
            55..=64 => Op::Complete { w },
            _ => {
                let keep = 1 + rng.below(3) as usize;
                // svc's files have no numbers: the exporter takes the next file at the path for
                // the successor of a renamed or deleted one, which it can only be sure of when
                // it knew each one (in the state) and its head is past (see the model).
                let model = &self.world.model;
                let key = self.world.writers[2].current;
                let svc = &model.files[key];
                let known =
                    svc.in_entries && svc.head_settled(&model.lines, key) && !model.uncertain;
                let kubelet = self.world.rotator == Rotator::Kubelet;
                match (style, rng.below(10)) {
                    (Style::Svc, 0..=3) if known && !svc.unsettled => match rng.below(3) {
                        0 => Op::RenameCreate { keep },
                        n => Op::RenameCompress {
                            keep,
                            delay: kubelet || n == 2,
                        },
                    },
                    // A copy of a file whose first bytes the state has no signature of is a
                    // roll no state recorded, read whole at the next scan or start, which the
                    // model does not follow (it takes the lines the exporter had not read as
                    // lost): only files with a signed head are copied.
                    (Style::Svc, 4..=6)
                        if known
                            && svc.signed()
                            && !svc.unsettled
                            && !svc.durable_fragment()
                            && !kubelet =>
                    {
                        Op::CopyTruncate { keep }
                    }
                    // Only svc's writer creates its file again at the same path: a numbered
                    // roll is never created twice under one number.
                    (Style::Svc, _) if known && svc.may_unlink() => Op::DeleteOpen { w },
                    (Style::Svc, _) => Op::Complete { w },
                    (_, 0..=5) => Op::Roll { w, keep: None },
                    _ if model.uncertain => Op::Roll { w, keep: None },
                    _ => Op::Roll {
                        w,
                        keep: Some(keep),
                    },
                }
            }
        }
    }

    fn count(&mut self, what: impl Into<String>, n: u64) {
        *self.tally.entry(what.into()).or_default() += n;
    }

    /// Tallies the joins of an exporter about to go.
    fn count_joins(&mut self) {
        let rejoined = self.exporter.as_ref().map_or(0, Exporter::rejoined);
        self.count("lines rejoined by the follower", rejoined);
        let finished = self
            .exporter
            .as_ref()
            .map_or(0, Exporter::finished_compressed);
        self.count("saved files finished from their .gz", finished);
    }

    fn apply(&mut self, op: Op) -> Result<(), String> {
        let name = match &op {
            Op::Start { .. } if self.world.model.has_state => "Start from the state".to_string(),
            Op::Start { end: true, .. } => "Start fresh, --read-from end".to_string(),
            Op::Start { .. } => "Start fresh".to_string(),
            Op::Roll { keep: Some(_), .. } => "Roll, deleting old rolls".to_string(),
            op => format!("{op:?}")
                .split([' ', '{'])
                .next()
                .unwrap()
                .to_string(),
        };
        self.count(name, 1);
        if self.exporter.is_none()
            && matches!(op, Op::RenameCreate { .. } | Op::RenameCompress { .. })
        {
            self.count("rotations out of the globs while the exporter was down", 1);
        }
        if matches!(op, Op::Crash | Op::SaveTorn | Op::Shutdown { .. }) {
            self.count_joins();
        }
        if self.descriptors.is_some() && self.exporter.is_some() && may_unlink(&op) {
            // A parked file has no descriptor to read a deleted file's last lines through: what
            // the exporter wakes to (inotify's modify event) before a writer deletes a file is
            // all it reads of it. Without a wake-up in between, those lines are lost, as with
            // filebeat's `close_inactive`; only files past the descriptor budget are parked.
            self.exporter.as_mut().unwrap().read();
            self.world.model.read();
            self.count("wake-ups before a delete (files parked)", 1);
        }
        let model = &mut self.world.model;
        match op {
            Op::Append { w, kinds } => self.world.append(w, &kinds),
            Op::Partial { w, kind, cut } => self.world.partial(w, kind, cut),
            Op::Complete { w } => self.world.complete(w),
            Op::Roll { w, keep } => self.world.roll(w, keep),
            Op::RenameCreate { keep } => self.world.rename_create(2, keep, None),
            Op::RenameCompress { keep, delay } => self.world.rename_create(2, keep, Some(delay)),
            Op::CopyTruncate { keep } => self.world.copy_truncate(2, keep),
            Op::DeleteOpen { w } => self.world.delete_open(w),
            Op::ScanRead => {
                self.exporter.as_mut().unwrap().scan_read();
                model.scan();
                model.read();
                return self.check("after a scan and read");
            }
            Op::Read => {
                self.exporter.as_mut().unwrap().read();
                model.read();
            }
            Op::Save => {
                let exporter = self.exporter.as_mut().unwrap();
                exporter.save(&self.state);
                self.durable_total = exporter.counts().total();
                model.save();
            }
            Op::SaveTorn => {
                self.exporter.take().unwrap().save_torn(&self.state);
                model.crash();
            }
            Op::Crash => {
                self.exporter = None;
                model.crash();
            }
            Op::Shutdown { after } => {
                let exporter = self.exporter.take().unwrap();
                self.durable_total = exporter.shutdown(&self.state, after);
                model.shutdown();
            }
            Op::CrashAtStart { drop_state, end } => {
                self.launch(drop_state, end).crash_before_first_write();
                self.world.model.start(drop_state, end);
                self.world.model.crash();
            }
            Op::Start { drop_state, end } => {
                let mut exporter = self.launch(drop_state, end);
                let model = &mut self.world.model;
                model.start(drop_state, end);
                assert_eq!(
                    exporter.resumed, model.has_state,
                    "the model knows the state file"
                );
                let saved = exporter.first_wake(&self.state); // as `run` does first
                model.scan();
                model.first_save();
                model.read();
                let total = exporter.counts().total();
                self.exporter = Some(exporter);
                if total < self.durable_total {
                    return Err(format!(
                        "counters went down across a restart: {total} < {} at the last state write",
                        self.durable_total
                    ));
                }
                self.durable_total = saved;
                return self.check("after a start");
            }
        }
        Ok(())
    }

    /// A new exporter process: the state file lost first if `drop_state`; `--read-from end`
    /// if `end` (for a fresh start).
    fn launch(&mut self, drop_state: bool, end: bool) -> Exporter {
        if drop_state {
            let _ = std::fs::remove_file(&self.state);
            self.durable_total = 0;
        }
        let start_at = if end {
            StartAt::End
        } else {
            StartAt::Beginning
        };
        Exporter::start(
            &self.world.pattern(),
            &self.state,
            start_at,
            self.grace,
            self.descriptors,
        )
    }

    /// How many files the follower may hold once it read everything: those on disk, and with a
    /// long grace those deleted too (it keeps them open).
    fn held_bound(&self) -> usize {
        let files = &self.world.model.files;
        let deleted = files.iter().filter(|f| f.unlinked).count();
        files.len() - deleted + if self.grace.is_zero() { 0 } else { deleted }
    }

    /// The counters equal the model's, and what the follower holds is bounded.
    fn check(&self, when: &str) -> Result<(), String> {
        let exporter = self.exporter.as_ref().unwrap();
        let (got, want) = (exporter.counts(), self.world.model.expected());
        if got != want {
            return Err(format!("{when}: counted {got:?}, expected {want:?}"));
        }
        let (files, orphans) = exporter.held();
        let present = self.held_bound();
        if files > present + 6 || orphans > 8 {
            return Err(format!(
                "{when}: holds {files} files and {orphans} orphans with {present} files on disk"
            ));
        }
        Ok(())
    }

    /// After each step (`EXACTLY_ONCE_TRACE` set): the step, the counts, the files.
    fn trace(&self) {
        let op = self.ops.last().unwrap();
        let got = self.exporter.as_ref().map(Exporter::counts);
        eprintln!(
            "{op:?}\n  got {got:?}\n  model {:?}",
            self.world.model.expected()
        );
        for f in &self.world.model.files {
            eprintln!("  {f:?}");
        }
    }

    /// The schedule so far, one step a line.
    pub fn describe(&self) -> String {
        let mut out = format!("  (rotated files kept for {:?} once read)\n", self.grace);
        for (i, op) in self.ops.iter().enumerate() {
            let _ = writeln!(out, "  {i:3}: {op:?}");
        }
        out
    }
}

/// Whether `op` may delete a file (a roll beyond those kept, a file deleted while open, a roll
/// replaced by its `.gz`).
fn may_unlink(op: &Op) -> bool {
    matches!(
        op,
        Op::DeleteOpen { .. }
            | Op::Roll { keep: Some(_), .. }
            | Op::RenameCreate { .. }
            | Op::RenameCompress { .. }
            | Op::CopyTruncate { .. }
    )
}
