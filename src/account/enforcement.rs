//! Whether a denial held, and whether an agent keeps at a denied tool: per execution, the calls
//! asked for and not answered yet, the calls that ran, the denials that ran anyway, and the
//! current run of denials of one tool.
//!
//! Owns [`CallBook`] (one per execution, inside [`super::reconcile::Execution`]) and what it finds
//! when a denial is counted or a call is answered ([`Finding`]). A denied call is *unenforced*
//! when its tool use id also has an answer that says it ran (docs/formats.md, "What the SDK's
//! per-call record says"), in either order; it is found once. A *loop* is a run of consecutive
//! denials of one tool (a call of any tool that ran ends it), or the distinct inputs tried with
//! a tool after its first denial; each reaching a step of [`LOOP_STEPS`] is found once.
//!
//! Bounded whatever the lines say: at most [`MAX_ASKED`] calls waiting for their answer, the
//! [`MAX_RAN`] latest calls that ran (memory only: a call that ran before a restart and whose
//! denial is first known after it is not found), the [`MAX_DENIED`] latest denials' tool and
//! reason, and per tool at most the last step's number of input digests. The state holds
//! digests and label values only, never an input or a raw id.
//!
//! **Not here:** counting what is found, and its audit record ([`super::Accountant`]).
//!
//! Cold: per tool call of an execution with a correlation key.

use std::collections::{BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};

use super::digest::Digest;
use super::small_map::SmallMap;
use crate::vocab::counters::{LoopPattern, LOOP_STEPS};
use crate::vocab::Reason;

/// Calls asked for and not answered yet, kept per execution at most (oldest dropped first): an
/// assistant message asks for a few at once, and each is answered before the next message.
pub const MAX_ASKED: usize = 32;
/// Calls that ran, kept per execution at most (latest kept), in memory only: 16 bytes each.
pub const MAX_RAN: usize = 64;
/// Denials whose tool and reason are kept per execution, for an unenforced record found later.
pub const MAX_DENIED: usize = 32;

/// A call asked for: its tool and the digest of its input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Asked {
    pub id: Digest,
    /// The tool as the line named it, passed through the label redaction (`label_value`).
    pub tool: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Digest>,
}

/// A denial, as an unenforced record found later shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Denied {
    pub id: Digest,
    /// The `tool` label value it was counted under.
    pub tool: String,
    pub reason: Reason,
}

/// Calls that ran: memory only, so never a difference between two states.
#[derive(Debug, Clone, Default)]
pub struct Ran(VecDeque<Digest>);

impl PartialEq for Ran {
    fn eq(&self, _: &Ran) -> bool {
        true
    }
}

/// The run of consecutive denials an execution is in, and the inputs denied per tool.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Loops {
    /// The `tool` label value of the current run, and its length.
    #[serde(default)]
    pub tool: String,
    #[serde(default)]
    pub run: u32,
    /// Per `tool` label value: the distinct input digests denied, the first one included (at
    /// most the last step plus one).
    #[serde(default, skip_serializing_if = "SmallMap::is_empty")]
    pub inputs: SmallMap<Vec<Digest>>,
}

impl Loops {
    fn is_empty(&self) -> bool {
        self.run == 0 && self.inputs.is_empty()
    }
}

/// What one execution knows of its calls' answers ([module docs](self)).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CallBook {
    #[serde(default, skip_serializing_if = "VecDeque::is_empty")]
    asked: VecDeque<Asked>,
    #[serde(skip)]
    ran: Ran,
    #[serde(default, skip_serializing_if = "VecDeque::is_empty")]
    denied: VecDeque<Denied>,
    /// Denied calls already found unenforced.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    unenforced: BTreeSet<Digest>,
    #[serde(default, skip_serializing_if = "Loops::is_empty")]
    loops: Loops,
}

/// What counting one denial, or one answer, found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Finding {
    /// The `tool` label value of the denial it is about, when an answer found it (a denial's
    /// finding is about the tool it was counted under, which its caller knows).
    pub tool: Option<String>,
    /// The denial's call ran.
    pub unenforced: bool,
    /// The reason the denial was counted under, when still kept.
    pub reason: Option<Reason>,
    /// Loop steps reached, by pattern.
    pub loops: Vec<(LoopPattern, u32)>,
}

impl Finding {
    pub fn is_empty(&self) -> bool {
        !self.unenforced && self.loops.is_empty()
    }
}

impl CallBook {
    pub fn is_empty(&self) -> bool {
        self.asked.is_empty()
            && self.denied.is_empty()
            && self.unenforced.is_empty()
            && self.loops.is_empty()
    }

    /// Calls and tools it keeps, weighed by what each may hold: an asked or denied call one (up
    /// to a 128-byte tool name), a tool with inputs tried two (its name and up to 12 input
    /// digests). What a call that ran keeps is 16 bytes, counted with its execution.
    /// [`super::reconcile::Executions`] bounds their sum over all executions
    /// ([`super::reconcile::MAX_BOOKED_CALLS`]).
    pub fn entries(&self) -> usize {
        self.asked.len() + self.denied.len() + 2 * self.loops.inputs.len()
    }

    /// Notes a call asked for (again: its entry is replaced). Ids are their digests throughout.
    pub fn ask(&mut self, id: Digest, tool: String, input: Option<Digest>) {
        self.asked.retain(|a| a.id != id);
        if self.asked.len() >= MAX_ASKED {
            self.asked.pop_front();
        }
        self.asked.push_back(Asked { id, tool, input });
    }

    /// The call `id` was asked for, while it waits for its answer.
    pub fn asked(&self, id: Digest) -> Option<&Asked> {
        self.asked.iter().find(|a| a.id == id)
    }

    /// The call `id` was answered: it waits no more.
    pub fn answered(&mut self, id: Digest) -> Option<Asked> {
        let at = self.asked.iter().position(|a| a.id == id)?;
        self.asked.remove(at)
    }

    /// A denial of the `tool` label value counted now, with its reason, tool use id (if any) and
    /// input digest (if known; else that of the call asked for): whether its call already ran,
    /// and the loop steps it reaches. `n` denials at once for a record's count without ids.
    pub fn denied(
        &mut self,
        tool: &str,
        reason: Reason,
        id: Option<Digest>,
        input: Option<Digest>,
        n: u64,
    ) -> Finding {
        let mut finding = Finding {
            reason: Some(reason),
            ..Finding::default()
        };
        if let Some(digest) = id {
            let input = input.or_else(|| self.asked(digest).and_then(|a| a.input));
            if self.denied.len() >= MAX_DENIED {
                self.denied.pop_front();
            }
            self.denied.push_back(Denied {
                id: digest,
                tool: tool.to_string(),
                reason,
            });
            finding.unenforced = self.ran.0.contains(&digest) && self.unenforced.insert(digest);
            finding.loops = self.loops.denied(tool, input, n);
        } else {
            finding.loops = self.loops.denied(tool, input, n);
        }
        finding
    }

    /// The call `id` ran (`tool` as the line named it, if it did): it ends the run of denials,
    /// and if it was denied, it is unenforced (found once). `denied` says whether its id was
    /// counted as a denial in this execution.
    pub fn ran(&mut self, digest: Digest, tool: Option<String>, denied: bool) -> Finding {
        let asked = self.answered(digest);
        self.loops.tool.clear();
        self.loops.run = 0;
        if !denied {
            if self.ran.0.len() >= MAX_RAN {
                self.ran.0.pop_front();
            }
            self.ran.0.push_back(digest);
            return Finding::default();
        }
        if !self.unenforced.insert(digest) {
            return Finding::default();
        }
        let known = self.denied.iter().find(|d| d.id == digest);
        let (tool, reason) = match known {
            Some(d) => (d.tool.clone(), Some(d.reason)),
            None => (
                tool.or(asked.map(|a| a.tool))
                    .unwrap_or_else(|| "unknown".to_string()),
                None,
            ),
        };
        Finding {
            tool: Some(tool),
            unenforced: true,
            reason,
            loops: Vec::new(),
        }
    }
}

impl Loops {
    /// `n` more denials of `tool` (with `input`, when known): the steps the run of consecutive
    /// denials and the distinct inputs after the first denial reach now.
    fn denied(&mut self, tool: &str, input: Option<Digest>, n: u64) -> Vec<(LoopPattern, u32)> {
        let mut reached = Vec::new();
        if self.tool != tool {
            self.tool = tool.to_string();
            self.run = 0;
        }
        let before = self.run;
        self.run = self
            .run
            .saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
        for step in LOOP_STEPS {
            if before < step && step <= self.run {
                reached.push((LoopPattern::Repeated, step));
            }
        }
        let last = LOOP_STEPS[LOOP_STEPS.len() - 1] as usize;
        if let Some(input) = input {
            let seen = self.inputs.entry_or_default(tool);
            if seen.len() <= last && !seen.contains(&input) {
                seen.push(input);
                // Distinct inputs after the first denial: all but the first.
                let after_first = (seen.len() - 1) as u32;
                if LOOP_STEPS.contains(&after_first) {
                    reached.push((LoopPattern::Varied, after_first));
                }
            }
        }
        reached
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(id: &str) -> Digest {
        Digest::of(id)
    }

    fn input(s: &str) -> Option<Digest> {
        Some(Digest::of(s))
    }

    #[test]
    fn a_denied_call_that_ran_is_found_once_in_either_order() {
        let mut book = CallBook::default();
        book.ask(d("t1"), "Bash".into(), input("rm -rf /"));
        let f = book.denied("Bash", Reason::Hook, Some(d("t1")), None, 1);
        assert!(!f.unenforced);
        let f = book.ran(d("t1"), None, true);
        assert!(f.unenforced);
        assert_eq!(
            (f.tool.as_deref(), f.reason),
            (Some("Bash"), Some(Reason::Hook))
        );
        assert!(book.ran(d("t1"), None, true).is_empty(), "found once");
        // The other order: it ran, then the record listed it as denied.
        assert!(book.ran(d("t2"), Some("Edit".into()), false).is_empty());
        let f = book.denied("Edit", Reason::Unknown, Some(d("t2")), None, 1);
        assert!(f.unenforced);
        assert_eq!(f.reason, Some(Reason::Unknown));
        assert!(
            !book
                .denied("Edit", Reason::Unknown, Some(d("t2")), None, 1)
                .unenforced
        );
    }

    #[test]
    fn runs_and_probes_reach_each_step_once() {
        let mut book = CallBook::default();
        let mut reached = Vec::new();
        for i in 0..12 {
            let cmd = format!("git push --force origin main{}", i % 7);
            let f = book.denied("Bash", Reason::Hook, None, input(&cmd), 1);
            reached.extend(f.loops);
        }
        assert_eq!(
            reached,
            [
                (LoopPattern::Repeated, 3),
                (LoopPattern::Varied, 3),
                (LoopPattern::Repeated, 5),
                (LoopPattern::Varied, 5),
                (LoopPattern::Repeated, 10),
            ],
            "7 distinct inputs: 6 after the first"
        );
        // A call that ran ends the run; a denial of another tool starts a new one.
        book.ran(d("t9"), Some("Bash".into()), false);
        let f = book.denied("Bash", Reason::Hook, None, None, 2);
        assert!(f.loops.is_empty());
        let f = book.denied("Read", Reason::Rule, None, None, 3);
        assert_eq!(f.loops, [(LoopPattern::Repeated, 3)]);
        // A record's count without ids: the steps it crosses at once.
        let f = book.denied("Read", Reason::Unknown, None, None, 100);
        assert_eq!(
            f.loops,
            [(LoopPattern::Repeated, 5), (LoopPattern::Repeated, 10)]
        );
    }

    #[test]
    fn bounded_and_saved_without_what_ran() {
        let mut book = CallBook::default();
        for i in 0..1000 {
            book.ask(d(&format!("a{i}")), "Bash".into(), input(&format!("{i}")));
            book.ran(d(&format!("r{i}")), None, false);
            book.denied(
                "Bash",
                Reason::Rule,
                Some(d(&format!("d{i}"))),
                input(&format!("{i}")),
                1,
            );
        }
        assert_eq!(book.asked.len(), MAX_ASKED);
        assert_eq!(book.ran.0.len(), MAX_RAN);
        assert_eq!(book.denied.len(), MAX_DENIED);
        assert!(book.loops.inputs.get("Bash").unwrap().len() <= 11);
        let saved = serde_json::to_string(&book).unwrap();
        assert!(
            !saved.contains("\"r1\"") && !saved.contains("\"a1\"") && !saved.contains("\"d1\"")
        );
        let back: CallBook = serde_json::from_str(&saved).unwrap();
        assert_eq!(back, book);
        assert!(back.ran.0.is_empty());
        let empty: CallBook = serde_json::from_str("{}").unwrap();
        assert!(empty.is_empty());
    }
}
