//! Per-execution reconciliation state: what was already counted for an execution, so that its
//! record adds only what the stream missed, and running totals turn into increments.
//!
//! Owns the bounded map of executions (a cap with least-recently-seen eviction, and an idle
//! timeout), each holding the tool use ids counted, the per-tool counts, mid-stream denials that
//! had no id yet, mid-stream denials whose risk class waits for the record's input
//! ([`PendingRisk`]), the totals of the last record and its cumulative `modelUsage`. **Not here:** label values and counters
//! ([`super::Accountant`] decides what the findings here mean for them).
//!
//! Work and memory per line are bounded whatever the line says: a record reveals at most a
//! budget of denials in total, as counts (one [`Revealed`] per tool, never one per denial), and
//! the per-execution maps are keyed by admitted `tool` label values, so they hold at most as
//! many entries as that label may take.
//!
//! The state holds no raw id: executions and tool use ids are kept as [`Digest`]s (an id is
//! whatever the executor or the model wrote, and may carry a token). Memory is bounded by three
//! caps: executions (`--max-executions`), tool use ids remembered over all executions
//! ([`MAX_TRACKED_IDS`]; a denial waiting for its input shares its [`PendingRisk`] with those
//! alike, so it adds a map entry, not a copy of its tool and text) and calls kept by the
//! executions' [`CallBook`]s ([`MAX_BOOKED_CALLS`]); past any, the least recently seen execution
//! is evicted, in O(1) amortised (a queue of touches, compacted as it grows).
//!
//! Cold: per denial or record line.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

use super::digest::Digest;
use super::enforcement::CallBook;
use super::small_map::SmallMap;
use super::totals::Totals;
use crate::decode::{Attempted, RecordedDenial, RecordedDenials};
use crate::vocab::{PathLabels, Reason};

/// Tool use ids remembered per execution, at most.
pub const MAX_IDS_PER_EXECUTION: usize = 10_000;

/// Tool use ids remembered over all executions, at most.
pub const MAX_TRACKED_IDS: usize = 65_536;

/// Calls kept by the executions' [`CallBook`]s over all executions, at most, as weighed by
/// [`CallBook::entries`] (each up to about 220 bytes): past it, the least recently seen
/// execution is evicted, as past [`MAX_TRACKED_IDS`].
pub const MAX_BOOKED_CALLS: usize = 32_768;

/// Denials the record revealed that nothing counted before: `count` of them, of one tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revealed {
    /// The `tool` label value.
    pub tool: String,
    pub tool_use_id: Option<String>,
    /// The digest of `tool_use_id`, computed once.
    pub digest: Option<Digest>,
    /// The entry's tool input, for the risk class and the audit record's summary.
    pub attempted: Option<Attempted>,
    pub count: u64,
}

/// A mid-stream denial counted before its input was known, waiting for its execution's record
/// to bring it (matched by tool use id). Holds label values and the class its reason text gives;
/// the state file gets only those, never a raw text.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PendingRisk {
    /// The path, `tool` and `workflow` label values it was counted under.
    #[serde(default, skip_serializing_if = "PathLabels::is_empty")]
    pub path: PathLabels,
    pub tool: String,
    pub workflow: String,
    pub reason: Reason,
    /// The class of its reason text (`unknown` without one): its class if no input comes.
    /// Decided only when needed (most records bring the input, and then the reason text's
    /// class is never used): when no input comes, or before the state is saved
    /// ([`super::Accountant::state`]).
    #[serde(with = "decided_label")]
    pub fallback: OnceLock<String>,
    /// What decides `fallback`, in memory only until it is decided: the tool as logged and the
    /// reason text (at most [`DEFERRED_REASON_BYTES`]; a longer one is classified at once).
    #[serde(skip)]
    pub undecided: Option<Box<Undecided>>,
}

/// Equal when saved alike: what is kept only in memory to decide the fallback is left out.
impl PartialEq for PendingRisk {
    fn eq(&self, other: &PendingRisk) -> bool {
        (
            &self.path,
            &self.tool,
            &self.workflow,
            self.reason,
            &self.fallback,
        ) == (
            &other.path,
            &other.tool,
            &other.workflow,
            other.reason,
            &other.fallback,
        )
    }
}

impl Eq for PendingRisk {}

/// The longest reason text a waiting denial keeps undecided; past it, its class is decided when
/// the denial is counted, so a waiting denial holds at most this much text.
pub const DEFERRED_REASON_BYTES: usize = 1024;

/// A waiting denial's reason text and tool, kept to decide its fallback class if one is needed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undecided {
    pub tool: Box<str>,
    pub reason_text: Option<Box<str>>,
}

/// The state file holds a waiting denial's fallback as its label value; one not decided when the
/// state is written (which [`super::Accountant::state`] prevents) is written as `unknown`.
mod decided_label {
    use std::sync::OnceLock;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(label: &OnceLock<String>, s: S) -> Result<S::Ok, S::Error> {
        let unknown = crate::risk::Risk::Unknown
            .builtin_name()
            .unwrap_or("unknown");
        s.serialize_str(label.get().map_or(unknown, String::as_str))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<OnceLock<String>, D::Error> {
        Ok(OnceLock::from(String::deserialize(d)?))
    }
}

impl Revealed {
    /// `count` denials of `tool` known only by a count (no id, no input).
    fn counted(tool: String, count: u64) -> Revealed {
        Revealed {
            tool,
            tool_use_id: None,
            digest: None,
            attempted: None,
            count,
        }
    }

    /// The entry's input summary ([`Attempted::summary`]), taken when an audit record shows it.
    pub fn input_summary(&self) -> Option<String> {
        self.attempted.as_ref().and_then(Attempted::summary)
    }
}

/// What a record revealed, and how many more denials it claimed beyond its budget.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Revelation {
    pub revealed: Vec<Revealed>,
    pub clamped: u64,
}

impl Revelation {
    /// The denials revealed, in total.
    pub fn total(&self) -> u64 {
        self.revealed.iter().map(|r| r.count).sum()
    }
}

/// A record's denial budget, spent as it reveals.
struct Budget {
    left: u64,
    clamped: u64,
}

impl Budget {
    /// Takes up to `wanted`; what does not fit is clamped.
    fn take(&mut self, wanted: u64) -> u64 {
        let taken = wanted.min(self.left);
        self.left -= taken;
        self.clamped = self.clamped.saturating_add(wanted - taken);
        taken
    }
}

/// What the accountant knows of one execution.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Execution {
    pub workflow: Option<String>,
    /// Tool use ids already counted (mid-stream or from a record).
    pub ids: HashSet<Digest>,
    /// Denials counted per `tool` label value, from every source.
    pub by_tool: SmallMap<u64>,
    /// Mid-stream denials without an id, per `tool` label value, not yet matched to a listed id.
    pub anonymous: SmallMap<u64>,
    pub last: Totals,
    /// The last cumulative `modelUsage` seen, by model (at most
    /// [`super::spend::MAX_MODELS_PER_EXECUTION`]).
    #[serde(default, skip_serializing_if = "SmallMap::is_empty")]
    pub models: super::spend::SeenModels,
    /// Mid-stream denials whose class waits for the record, by tool use id: a subset of `ids`,
    /// so bounded like them. Denials alike (one tool, workflow, reason and reason text) share
    /// one [`PendingRisk`]: an id costs its map entry, not a copy of the tool and its text.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        with = "shared_pending"
    )]
    pub pending: BTreeMap<Digest, Arc<PendingRisk>>,
    /// The last few distinct waiting denials held, for the next one alike to share (each also
    /// in `pending`, so it costs nothing more).
    #[serde(skip)]
    alike: Alike,
    /// Its calls' answers: asked, ran, unenforced, loops ([`super::enforcement`]).
    #[serde(default, skip_serializing_if = "CallBook::is_empty")]
    pub calls: CallBook,
    /// Clock (seconds) when a line of this execution was last seen.
    pub last_seen: f64,
    /// The touch that last saw it, for the eviction queue.
    #[serde(skip)]
    touched: Touch,
}

/// A position in the eviction queue: bookkeeping, not state, so it never makes two executions
/// differ.
#[derive(Debug, Clone, Copy, Default)]
struct Touch(u64);

impl PartialEq for Touch {
    fn eq(&self, _: &Touch) -> bool {
        true
    }
}

/// The last [`ALIKE`] distinct waiting denials an execution held: bookkeeping, not state.
#[derive(Debug, Clone, Default)]
struct Alike(VecDeque<Arc<PendingRisk>>);

/// Distinct waiting denials an execution looks among for one to share.
const ALIKE: usize = 8;

impl PartialEq for Alike {
    fn eq(&self, _: &Alike) -> bool {
        true
    }
}

impl Alike {
    /// `pending`, or one alike already held (the same labels, reason, class and undecided text).
    fn share(&mut self, pending: PendingRisk) -> Arc<PendingRisk> {
        if let Some(same) = self
            .0
            .iter()
            .find(|p| ***p == pending && p.undecided == pending.undecided)
        {
            return Arc::clone(same);
        }
        if self.0.len() >= ALIKE {
            self.0.pop_front();
        }
        let shared = Arc::new(pending);
        self.0.push_back(Arc::clone(&shared));
        shared
    }
}

/// The state file spells each waiting denial out, as before they were shared; read back,
/// denials alike share one again.
mod shared_pending {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use serde::{Deserialize, Deserializer, Serializer};

    use super::{Alike, Digest, PendingRisk};

    pub fn serialize<S: Serializer>(
        map: &BTreeMap<Digest, Arc<PendingRisk>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_map(map.iter().map(|(k, v)| (k, &**v)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<Digest, Arc<PendingRisk>>, D::Error> {
        let read = BTreeMap::<Digest, PendingRisk>::deserialize(d)?;
        let mut alike = Alike::default();
        Ok(read.into_iter().map(|(k, v)| (k, alike.share(v))).collect())
    }
}

impl Execution {
    /// Records a mid-stream denial of the `tool` label value. Returns false if and only if its id
    /// was already counted.
    #[cfg(test)]
    pub fn note_denial(&mut self, tool: &str, tool_use_id: Option<&str>) -> bool {
        self.note_denial_digest(tool, tool_use_id.map(Digest::of))
    }

    /// [`Execution::note_denial`] with the tool use id's digest, computed by the caller.
    pub fn note_denial_digest(&mut self, tool: &str, tool_use_id: Option<Digest>) -> bool {
        match tool_use_id {
            Some(id) if !self.remember(id) => return false,
            Some(_) => {}
            None => *self.anonymous.entry_or_default(tool) += 1,
        }
        // A record may have claimed up to u64::MAX of this tool already (then clamped).
        let counted = self.by_tool.entry_or_default(tool);
        *counted = counted.saturating_add(1);
        true
    }

    /// Takes a record's denials and returns those not already counted, marking them counted.
    ///
    /// By tool use id where the list has ids (a listed id matches a mid-stream denial of the same
    /// tool that had no id); else by per-tool count, the record's count minus what was counted,
    /// never negative. A total alone reveals its excess under the tool `unknown`. At most
    /// `budget` denials are revealed in all; the rest are marked counted (a repeated record
    /// reveals nothing again) and reported as clamped. `label` maps a raw tool name to its
    /// `tool` label value.
    pub fn reveal(
        &mut self,
        denials: &RecordedDenials,
        budget: u64,
        label: &mut impl FnMut(&str) -> String,
    ) -> Revelation {
        let mut budget = Budget {
            left: budget,
            clamped: 0,
        };
        let mut revealed = Vec::new();
        match denials {
            RecordedDenials::List(items) => {
                let mut listed: BTreeMap<String, u64> = BTreeMap::new();
                let mut without_id: BTreeMap<String, Vec<&RecordedDenial>> = BTreeMap::new();
                for item in items {
                    let tool = label(&item.tool);
                    *listed.entry(tool.clone()).or_default() += 1;
                    let (Some(id), Some(digest)) = (&item.tool_use_id, item.tool_use_digest) else {
                        without_id.entry(tool).or_default().push(item);
                        continue;
                    };
                    if !self.remember(digest) {
                        continue;
                    }
                    if let Some(n) = self.anonymous.get_mut(&tool).filter(|n| **n > 0) {
                        *n -= 1; // the stream reported it, without an id
                        continue;
                    }
                    *self.by_tool.entry_or_default(&tool) += 1;
                    if budget.take(1) == 1 {
                        revealed.push(Revealed {
                            tool,
                            tool_use_id: Some(id.clone()),
                            digest: Some(digest),
                            attempted: item.attempted.clone(),
                            count: 1,
                        });
                    }
                }
                for (tool, entries) in without_id {
                    let extra = budget.take(self.excess(&tool, listed[&tool]));
                    revealed.extend(entries.into_iter().take(extra as usize).map(|item| {
                        Revealed {
                            tool: tool.clone(),
                            tool_use_id: None,
                            digest: None,
                            attempted: item.attempted.clone(),
                            count: 1,
                        }
                    }));
                }
            }
            RecordedDenials::PerTool(counts) => {
                // Tools past the label cap share `other`: their counts add up.
                let mut by_label: BTreeMap<String, u64> = BTreeMap::new();
                for (tool, n) in counts {
                    let sum = by_label.entry(label(tool)).or_default();
                    *sum = sum.saturating_add(*n);
                }
                for (tool, n) in by_label {
                    let extra = budget.take(self.excess(&tool, n));
                    if extra > 0 {
                        revealed.push(Revealed::counted(tool, extra));
                    }
                }
            }
            RecordedDenials::Total(n) => {
                let counted = self.denials_counted();
                let tool = label("unknown");
                let wanted = n.saturating_sub(counted);
                let counted = self.by_tool.entry_or_default(&tool);
                *counted = counted.saturating_add(wanted);
                let extra = budget.take(wanted);
                if extra > 0 {
                    revealed.push(Revealed::counted(tool, extra));
                }
            }
            RecordedDenials::None => {}
        }
        Revelation {
            revealed,
            clamped: budget.clamped,
        }
    }

    /// Keeps `pending` until the record brings the input of the tool use with `digest`;
    /// false (and nothing kept) when the id is not remembered (past [`MAX_IDS_PER_EXECUTION`]).
    pub fn hold_pending(&mut self, digest: Digest, pending: PendingRisk) -> bool {
        if !self.ids.contains(&digest) {
            return false;
        }
        let shared = self.alike.share(pending);
        self.pending.insert(digest, shared);
        true
    }

    /// Takes the denials waiting for their input (their record came): none is kept alive for
    /// the next ones alike to share either.
    pub fn take_pending(&mut self) -> BTreeMap<Digest, Arc<PendingRisk>> {
        self.alike.0.clear();
        std::mem::take(&mut self.pending)
    }

    /// Whether the tool use with digest `id` was counted as a denial (and is still remembered).
    pub fn counted(&self, id: Digest) -> bool {
        self.ids.contains(&id)
    }

    /// Marks the tool use `id` counted; false if it already was.
    fn remember(&mut self, digest: Digest) -> bool {
        if self.ids.contains(&digest) {
            return false;
        }
        if self.ids.len() < MAX_IDS_PER_EXECUTION {
            self.ids.insert(digest);
        }
        true
    }

    /// How many of `recorded` denials of `tool` exceed what was counted; marks them counted.
    fn excess(&mut self, tool: &str, recorded: u64) -> u64 {
        let counted = self.by_tool.entry_or_default(tool);
        let extra = recorded.saturating_sub(*counted);
        *counted += extra;
        extra
    }

    /// Denials counted for this execution, from every source.
    pub fn denials_counted(&self) -> u64 {
        self.by_tool.values().fold(0, |a, b| a.saturating_add(*b))
    }
}

/// The bounded map of executions, keyed by the [`Digest`] of their id. Each execution is boxed:
/// the table keeps spare slots as it grows, and a spare slot then costs a pointer, not an
/// execution with its books (docs/memory.md).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Executions {
    map: HashMap<Digest, Box<Execution>>,
    last_sweep: f64,
    /// Touches, oldest first: `(key, touch)`; an entry whose execution was touched again since
    /// is stale and skipped. Rebuilt from `last_seen` after a restore.
    #[serde(skip)]
    order: VecDeque<(Digest, u64)>,
    #[serde(skip)]
    touches: u64,
    /// Tool use ids remembered over all executions.
    #[serde(skip)]
    ids: usize,
    /// Calls kept by the executions' books ([`CallBook::entries`]) over all executions.
    #[serde(skip)]
    booked: usize,
    /// Pending classifications of executions evicted since the last [`Executions::take_ended`]:
    /// drained by the accountant within the line that evicted them, so never saved.
    #[serde(skip)]
    ended: Vec<Arc<PendingRisk>>,
    /// The digests of the execution ids looked up last.
    #[serde(skip)]
    recent: RecentKeys,
}

/// Execution ids looked up last, at most.
const RECENT_KEYS: usize = 8;

/// The longest execution id [`RecentKeys`] keeps, in bytes; a longer one is digested each time.
const RECENT_KEY_MAX_BYTES: usize = 64;

/// The digests of the last [`RECENT_KEYS`] execution ids looked up, with the ids: a line's
/// execution is nearly always one of the few in flight, and its id is then found here rather
/// than hashed again (a SHA-256 per line that visits an execution). In memory only, never
/// saved, and bounded (at most [`RECENT_KEYS`] ids of at most [`RECENT_KEY_MAX_BYTES`]): the
/// state keeps holding digests only. Replaced round-robin; an id found here gives its own
/// digest, since it is compared whole.
#[derive(Debug, Clone, Default)]
struct RecentKeys {
    ids: Vec<(Box<str>, Digest)>,
    next: usize,
}

impl RecentKeys {
    /// The digest of the execution id `id`, as [`Digest::of`] gives it.
    fn key(&mut self, id: &str) -> Digest {
        if let Some((_, digest)) = self.ids.iter().find(|(known, _)| **known == *id) {
            return *digest;
        }
        let digest = Digest::of(id);
        if id.len() <= RECENT_KEY_MAX_BYTES {
            if self.ids.len() < RECENT_KEYS {
                self.ids.push((id.into(), digest));
            } else {
                self.ids[self.next] = (id.into(), digest);
                self.next = (self.next + 1) % RECENT_KEYS;
            }
        }
        digest
    }
}

impl PartialEq for Executions {
    fn eq(&self, other: &Self) -> bool {
        self.map == other.map && self.last_sweep == other.last_sweep
    }
}

impl Executions {
    /// Runs `f` on the execution `id` (created if new, marked seen at `now`), then evicts the
    /// least recently seen executions while more than `cap` are held or more than
    /// [`MAX_TRACKED_IDS`] ids are remembered. Returns what `f` returned and how many were
    /// evicted.
    pub fn with<R>(
        &mut self,
        id: &str,
        now: f64,
        cap: usize,
        f: impl FnOnce(&mut Execution) -> R,
    ) -> (R, u64) {
        self.rebuild_order_if_restored();
        let key = self.recent.key(id);
        self.touches += 1;
        let touch = self.touches;
        let execution = self.map.entry(key).or_default();
        execution.last_seen = execution.last_seen.max(now);
        execution.touched = Touch(touch);
        let (ids_before, booked_before) = (execution.ids.len(), execution.calls.entries());
        let result = f(execution);
        self.ids = self.ids + execution.ids.len() - ids_before;
        self.booked = self.booked + execution.calls.entries() - booked_before;
        self.order.push_back((key, touch));
        let mut evicted = 0;
        while self.map.len() > cap.max(1)
            || self.ids > MAX_TRACKED_IDS
            || self.booked > MAX_BOOKED_CALLS
        {
            let Some(oldest) = self.pop_oldest(key) else {
                break;
            };
            self.ids -= oldest.ids.len();
            self.booked -= oldest.calls.entries();
            self.ended.extend(oldest.pending.into_values());
            evicted += 1;
        }
        if self.order.len() > 2 * self.map.len() + 64 {
            let map = &self.map;
            self.order
                .retain(|(k, t)| map.get(k).is_some_and(|e| e.touched.0 == *t));
        }
        (result, evicted)
    }

    /// Removes the least recently touched execution other than `keep`.
    fn pop_oldest(&mut self, keep: Digest) -> Option<Execution> {
        while let Some((key, touch)) = self.order.pop_front() {
            let current = self.map.get(&key).is_some_and(|e| e.touched.0 == touch);
            if current && key != keep {
                return self.map.remove(&key).map(|e| *e);
            }
            if current {
                self.order.push_back((key, touch)); // the one being worked on stays
                if self.order.len() == 1 {
                    return None;
                }
            }
        }
        None
    }

    /// After a restore the queue is empty: order the executions by when they were last seen.
    fn rebuild_order_if_restored(&mut self) {
        if !self.order.is_empty() || self.map.is_empty() {
            return;
        }
        let mut keys: Vec<(f64, Digest)> =
            self.map.iter().map(|(k, e)| (e.last_seen, *k)).collect();
        keys.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
        self.ids = self.map.values().map(|e| e.ids.len()).sum();
        self.booked = self.map.values().map(|e| e.calls.entries()).sum();
        for (_, key) in keys {
            self.touches += 1;
            if let Some(e) = self.map.get_mut(&key) {
                e.touched = Touch(self.touches);
            }
            self.order.push_back((key, self.touches));
        }
    }

    /// Drops executions not seen for `idle_secs` before `now`; returns how many. Runs at most
    /// once a minute of clock.
    pub fn sweep(&mut self, now: f64, idle_secs: f64) -> u64 {
        if now - self.last_sweep < 60.0 {
            return 0;
        }
        self.last_sweep = now;
        let (mut dropped, mut dropped_ids, mut dropped_booked) = (0, 0, 0);
        let ended = &mut self.ended;
        self.map.retain(|_, e| {
            if e.last_seen <= 0.0 {
                // Seen before any log time (stream-json lines carry none): idle from the first
                // log time on, not since 1970, or that first time evicts it and its record
                // counts its denials again.
                e.last_seen = now;
                return true;
            }
            let keep = now - e.last_seen <= idle_secs;
            if !keep {
                dropped += 1;
                dropped_ids += e.ids.len();
                dropped_booked += e.calls.entries();
                ended.extend(std::mem::take(&mut e.pending).into_values());
            }
            keep
        });
        self.ids = self.ids.saturating_sub(dropped_ids);
        self.booked = self.booked.saturating_sub(dropped_booked);
        dropped
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Holds `pending` in the execution `id` until its record brings the input of the tool use
    /// with digest `tool_use`; false (nothing held) when the execution or the id is not
    /// remembered.
    pub fn hold_pending(&mut self, id: &str, tool_use: Digest, pending: PendingRisk) -> bool {
        let key = self.recent.key(id);
        self.map
            .get_mut(&key)
            .is_some_and(|e| e.hold_pending(tool_use, pending))
    }

    /// Every denial still waiting for its input.
    pub fn waiting(&self) -> impl Iterator<Item = &PendingRisk> {
        self.map
            .values()
            .flat_map(|e| e.pending.values().map(|p| &**p))
    }

    /// The pending classifications of the executions evicted since the last call.
    pub fn take_ended(&mut self) -> Vec<Arc<PendingRisk>> {
        std::mem::take(&mut self.ended)
    }

    /// Pending classifications held over all executions.
    #[cfg(test)]
    pub fn pending(&self) -> usize {
        self.map.values().map(|e| e.pending.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::RecordedDenial;

    fn reveal(e: &mut Execution, denials: &RecordedDenials) -> Vec<Revealed> {
        e.reveal(denials, 10_000, &mut str::to_string).revealed
    }

    fn listed(tool: &str, id: Option<&str>) -> RecordedDenial {
        RecordedDenial {
            tool: tool.into(),
            tool_use_id: id.map(String::from),
            tool_use_digest: id.map(Digest::of),
            attempted: None,
        }
    }

    #[test]
    fn ids_reconcile_against_the_stream() {
        let mut e = Execution::default();
        assert!(e.note_denial("Bash", Some("t1")));
        assert!(
            !e.note_denial("Bash", Some("t1")),
            "a frame seen twice counts once"
        );
        let list =
            RecordedDenials::List(vec![listed("Bash", Some("t1")), listed("Edit", Some("t2"))]);
        let revealed = reveal(&mut e, &list);
        assert_eq!(revealed.len(), 1);
        assert_eq!(revealed[0].tool_use_id.as_deref(), Some("t2"));
        assert!(
            reveal(&mut e, &list).is_empty(),
            "a cumulative result seen again adds nothing"
        );
        assert_eq!(e.denials_counted(), 2);
    }

    #[test]
    fn anonymous_stream_denials_match_listed_ids() {
        let mut e = Execution::default();
        e.note_denial("Bash", None);
        let list =
            RecordedDenials::List(vec![listed("Bash", Some("t1")), listed("Bash", Some("t2"))]);
        assert_eq!(reveal(&mut e, &list).len(), 1);
        assert_eq!(e.denials_counted(), 2);
    }

    #[test]
    fn counts_reconcile_without_ids() {
        let mut e = Execution::default();
        e.note_denial("Bash", None);
        e.note_denial("Bash", None);
        e.note_denial("Edit", None);
        let per_tool = RecordedDenials::PerTool(vec![
            ("Bash".into(), 3),
            ("Edit".into(), 0),
            ("Write".into(), 1),
        ]);
        let revealed = reveal(&mut e, &per_tool);
        let tools: Vec<(&str, u64)> = revealed
            .iter()
            .map(|r| (r.tool.as_str(), r.count))
            .collect();
        assert_eq!(tools, [("Bash", 1), ("Write", 1)]);
        assert!(reveal(&mut e, &per_tool).is_empty());
        assert_eq!(reveal(&mut e, &RecordedDenials::Total(6)).len(), 1);
        let list = RecordedDenials::List(vec![listed("Bash", None); 4]);
        assert_eq!(reveal(&mut e, &list).len(), 1);
    }

    #[test]
    fn a_record_reveals_at_most_its_budget_as_counts() {
        // 2,000 tools at 1e15 each: 20,000 revealed Revealed structs and 2e18 loop turns before.
        let mut e = Execution::default();
        let per_tool =
            RecordedDenials::PerTool((0..2000).map(|i| (format!("t{i}"), 1e15 as u64)).collect());
        let mut labels = |raw: &str| {
            if raw < "t2" {
                raw.to_string()
            } else {
                "other".to_string()
            }
        };
        let first = e.reveal(&per_tool, 10_000, &mut labels);
        assert_eq!(first.total(), 10_000);
        assert_eq!(first.clamped, 2000 * 1e15 as u64 - 10_000);
        assert!(first.revealed.len() <= 2000);
        assert!(
            e.by_tool.len() < 1200,
            "keyed by label values: {}",
            e.by_tool.len()
        );
        let again = e.reveal(&per_tool, 10_000, &mut labels);
        assert_eq!(
            (again.total(), again.clamped),
            (0, 0),
            "a repeated record reveals nothing"
        );
        let total = e.reveal(&RecordedDenials::Total(u64::MAX), 5, &mut labels);
        assert_eq!(total.total(), 5);
    }

    #[test]
    fn cap_and_idle_evict() {
        let mut ex = Executions::default();
        let mut touch = |id: &str, now: f64| ex.with(id, now, 2, |_| ()).1;
        assert_eq!(touch("a", 1.0) + touch("b", 2.0) + touch("a", 3.0), 0);
        assert_eq!(touch("c", 4.0), 1, "evicts b, the least recently seen");
        assert!(ex.map.contains_key(&Digest::of("a")) && !ex.map.contains_key(&Digest::of("b")));
        assert_eq!(ex.sweep(100.0, 97.0), 0, "a (3.0) idle 97: kept; c kept");
        assert_eq!(ex.len(), 2);
        assert_eq!(ex.sweep(200.0, 97.0), 2);
        assert_eq!(ex.len(), 0);
    }

    #[test]
    fn eviction_at_the_cap_stays_cheap_and_the_state_holds_no_raw_id() {
        let mut ex = Executions::default();
        let mut evicted = 0u64;
        for i in 0..200_000u32 {
            let id = format!("exec_ghp_{i:036}");
            let (_, n) = ex.with(&id, f64::from(i), 1000, |e| {
                e.note_denial("Bash", Some(&format!("toolu_{i}")))
            });
            evicted += n;
        }
        assert_eq!((ex.len(), evicted), (1000, 199_000));
        assert!(
            ex.order.len() <= 2 * 1000 + 65,
            "queue compacted: {}",
            ex.order.len()
        );
        let saved = serde_json::to_string(&ex).unwrap();
        assert!(
            !saved.contains("ghp_") && !saved.contains("toolu_"),
            "raw ids in the state"
        );
        let mut back: Executions = serde_json::from_str(&saved).unwrap();
        // Restored: the same executions, the oldest evicted first, ids still deduplicated.
        let last = 199_999u32;
        let (dup, _) = back.with(&format!("exec_ghp_{last:036}"), 0.0, 1000, |e| {
            e.note_denial("Bash", Some(&format!("toolu_{last}")))
        });
        assert!(!dup, "a tool use id counted before the restore counts once");
    }

    #[test]
    fn a_state_with_hex_digests_or_raw_ids_reads_back_into_the_same_dedup() {
        let mut ex = Executions::default();
        ex.with("exec_1", 1.0, 10, |e| {
            e.note_denial("Bash", Some("toolu_1"))
        });
        let saved = serde_json::to_string(&ex).unwrap();
        let quoted = |id: &str| format!("\"{}\"", Digest::of(id));
        assert!(saved.contains(&quoted("exec_1")) && saved.contains(&quoted("toolu_1")));
        // A state from before digests held raw ids, as keys and in the id lists.
        let legacy = saved.replace(&quoted("exec_1"), "\"exec_1\"").replace(
            &quoted("toolu_1"),
            &format!("{},\"toolu_2\"", quoted("toolu_1")),
        );
        for state in [saved, legacy] {
            let mut back: Executions = serde_json::from_str(&state).unwrap();
            let (again, _) = back.with("exec_1", 2.0, 10, |e| {
                let old = e.note_denial("Bash", Some("toolu_1"));
                (old, e.note_denial("Bash", Some("toolu_2")))
            });
            assert!(
                !again.0,
                "an id counted before the restore counts once: {state}"
            );
            assert_eq!(again.1, !state.contains("toolu_2"), "{state}");
            assert_eq!(back.len(), 1);
        }
    }

    /// An execution id found among the recent ones gives its own digest, never a neighbour's,
    /// whether it was kept, replaced since, or too long to keep.
    #[test]
    fn a_recent_execution_id_gives_its_own_digest() {
        let mut recent = RecentKeys::default();
        let long = format!("exec_{}", "9".repeat(RECENT_KEY_MAX_BYTES));
        let ids: Vec<String> = (0..3 * RECENT_KEYS)
            .map(|i| format!("exec_{i}"))
            .chain([
                long.clone(),
                "exec_1x".into(),
                "exec_".into(),
                String::new(),
            ])
            .collect();
        for round in 0..3 {
            for (i, id) in ids.iter().enumerate() {
                // The id just asked, and one asked a few before (kept, or replaced since).
                for asked in [id, &ids[i.saturating_sub(round * 3)]] {
                    assert_eq!(recent.key(asked), Digest::of(asked), "{asked:?}");
                }
            }
        }
        assert!(recent.ids.len() <= RECENT_KEYS);
        assert!(recent.ids.iter().all(|(id, _)| **id != *long));
        // Through the map: two executions whose ids share a prefix stay two.
        let mut ex = Executions::default();
        for id in ["exec_1", "exec_10", "exec_1", "exec_10"] {
            ex.with(id, 1.0, 10, |e| e.note_denial("Bash", Some(id)));
        }
        assert_eq!(ex.len(), 2);
        assert!(ex.map.contains_key(&Digest::of("exec_10")));
    }

    #[test]
    fn remembered_ids_are_capped_over_all_executions() {
        let mut ex = Executions::default();
        let mut evicted = 0u64;
        for i in 0..(MAX_TRACKED_IDS / 1000 + 10) {
            let ((), n) = ex.with(&format!("e{i}"), 0.0, usize::MAX, |e| {
                for j in 0..1000 {
                    e.note_denial("Bash", Some(&format!("t{i}_{j}")));
                }
            });
            evicted += n;
        }
        assert!(ex.ids <= MAX_TRACKED_IDS, "{}", ex.ids);
        assert!(evicted >= 10);
    }
}

#[cfg(test)]
mod shared_tests {
    use super::*;

    fn waiting(tool: &str, text: &str) -> PendingRisk {
        PendingRisk {
            path: PathLabels::default(),
            tool: "other".into(),
            workflow: "unknown".into(),
            reason: Reason::Rule,
            fallback: OnceLock::new(),
            undecided: Some(Box::new(Undecided {
                tool: tool.into(),
                reason_text: Some(text.into()),
            })),
        }
    }

    #[test]
    fn waiting_denials_alike_share_one_entry_and_are_saved_each() {
        let mut e = Execution::default();
        let long = format!("Tool_{}", "x".repeat(90));
        for i in 0..100 {
            e.note_denial("other", Some(&format!("t{i}")));
            // Ten tools, one after the other, then one with another reason text.
            assert!(e.hold_pending(
                Digest::of(&format!("t{i}")),
                waiting(&format!("{long}{}", i / 10), "no")
            ));
        }
        e.note_denial("other", Some("u"));
        assert!(e.hold_pending(Digest::of("u"), waiting(&format!("{long}9"), "other text")));
        let distinct = |e: &Execution| {
            let mut seen: Vec<*const PendingRisk> = e.pending.values().map(Arc::as_ptr).collect();
            seen.sort();
            seen.dedup();
            seen.len()
        };
        assert_eq!((e.pending.len(), distinct(&e)), (101, 11));
        // Decided before the state is saved, as `Accountant::state` does: once per shared entry.
        for waiting in e.pending.values() {
            let _ = waiting.fallback.set("unknown".into());
        }
        let saved = serde_json::to_string(&e).unwrap();
        assert_eq!(saved.matches("\"fallback\"").count(), 101);
        let back: Execution = serde_json::from_str(&saved).unwrap();
        assert!(back == e, "read back as saved");
        // Read back, their classes are decided and the text is gone: alike ones share again.
        assert_eq!(distinct(&back), 1);
    }

    #[test]
    fn calls_booked_are_capped_over_all_executions() {
        let mut ex = Executions::default();
        let executions = MAX_BOOKED_CALLS / 64 + 10;
        let mut evicted = 0;
        for i in 0..executions {
            let ((), n) = ex.with(&format!("e{i}"), 0.0, usize::MAX, |e| {
                for j in 0..100 {
                    let id = Digest::of(&format!("a{i}_{j}"));
                    e.calls.ask(id, "Tool".into(), None);
                    let denied = Digest::of(&format!("d{i}_{j}"));
                    e.calls.denied("Tool", Reason::Rule, Some(denied), None, 1);
                }
            });
            evicted += n;
        }
        assert!(ex.booked <= MAX_BOOKED_CALLS, "{}", ex.booked);
        assert_eq!(
            ex.booked,
            ex.map.values().map(|e| e.calls.entries()).sum::<usize>()
        );
        assert_eq!(ex.len() as u64 + evicted, executions as u64);
        assert!(evicted >= 10, "{evicted}");
    }
}
