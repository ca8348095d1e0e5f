//! What the reading thread publishes for HTTP, and the exposition rendered from it.
//!
//! Owns [`Shared`]: the latest [`Published`] counters (immutable, swapped whole), the
//! [`View`] the landing page and the denials API read, the ready and healthy flags, the
//! telemetry path and the `--path` globs, and the rendered families per format. Invariant: no lock here is held by the reading thread for
//! longer than it takes to swap a pointer or append a few records, and a publication is
//! rendered at most once per format, however many scrapers ask.
//!
//! **Not here:** what a render writes (`crate::exposition`), the body of `/metrics` (the
//! families, then the connection self-metrics, [`super::routes`]).
//!
//! Cost: a render per publication and format, on the first scrape that asks; then a copy.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use hyper::body::Bytes;

use super::recent::RecentDenials;
use crate::account::Gauges;
use crate::exposition::{self, Counted, Format, RunStats};
use crate::vocab::Metrics;

/// The counters as the reading thread last published them: immutable, swapped whole.
#[derive(Debug, Default)]
pub struct Published {
    /// Which publication this is: one more than the one before, so an exposition rendered from
    /// it can be reused until the next.
    pub generation: u64,
    pub metrics: Metrics,
    pub gauges: Gauges,
    pub run: RunStats,
}

/// What the landing page and the denials API show, updated by the reading thread.
#[derive(Debug, Default)]
pub struct View {
    /// Followed files and their lag in bytes.
    pub files: Vec<(String, u64)>,
    pub recent: RecentDenials,
}

/// Everything the routes read.
pub struct Shared {
    pub published: Mutex<Arc<Published>>,
    pub view: Mutex<View>,
    pub ready: AtomicBool,
    pub healthy: AtomicBool,
    pub telemetry_path: String,
    /// The `--path` globs: as the landing page shows them (redacted), and as given.
    globs: Vec<(String, String)>,
    /// Whether a `--state-file` keeps the counts across restarts (the landing page says so).
    pub has_state_file: bool,
    /// The latest families per format ([`Format::index`]), with the generation they show.
    rendered: Mutex<[Option<(u64, Bytes)>; 2]>,
}

/// The largest exposition rendered on the async runtime (see [`Shared::is_cheap`]).
pub const INLINE_RENDER_BYTES: usize = 256 * 1024;

impl Shared {
    /// Neither ready nor healthy yet: the reading thread says when it is.
    pub fn new(telemetry_path: String, view: View) -> Shared {
        Shared {
            published: Mutex::new(Arc::new(Published::default())),
            view: Mutex::new(view),
            ready: AtomicBool::new(false),
            healthy: AtomicBool::new(false),
            telemetry_path,
            globs: Vec::new(),
            has_state_file: false,
            rendered: Mutex::new([None, None]),
        }
    }

    /// The same, knowing the `--path` globs the landing page shows with their matches; a glob
    /// that holds a secret is shown as `redacted`.
    pub fn with_globs(mut self, globs: Vec<String>) -> Shared {
        self.globs = globs
            .into_iter()
            .map(|glob| (crate::redact::label_value(&glob).to_string(), glob))
            .collect();
        self
    }

    /// The same, knowing whether a `--state-file` keeps the counts.
    pub fn with_state_file(mut self, has_state_file: bool) -> Shared {
        self.has_state_file = has_state_file;
        self
    }

    /// The `--path` globs: each as shown, and as given.
    pub fn globs(&self) -> &[(String, String)] {
        &self.globs
    }

    /// The counted families of the latest publication in `format`, without the connection
    /// self-metrics and without a trailer. Rendered at most once per publication and format.
    pub fn families(&self, format: Format) -> Bytes {
        let published = self.published.lock().expect("published lock").clone();
        let mut rendered = self.rendered.lock().expect("rendered lock");
        let slot = &mut rendered[format.index()];
        if let Some((generation, body)) = slot.as_ref() {
            if *generation == published.generation {
                return body.clone();
            }
        }
        let counted = Counted {
            metrics: &published.metrics,
            gauges: published.gauges,
            run: Some(&published.run),
        };
        // The stale body is let go first, and the new one is rendered into about the last one's
        // size: no doubling growth (a copy at each step, the old and the new buffer held at
        // once, up to twice the size kept) adds to the peak memory a scrape takes.
        let size = slot
            .take()
            .map_or(16 * 1024, |(_, body)| body.len() + body.len() / 8);
        let body = Bytes::from(exposition::write(
            format,
            &counted,
            String::with_capacity(size),
        ));
        *slot = Some((published.generation, body.clone()));
        body
    }

    /// Whether a scrape in this format is cheap enough to answer on the async runtime: the
    /// latest publication is rendered already (a scrape then costs a copy), or the last one
    /// rendered was under [`INLINE_RENDER_BYTES`] (about a millisecond of work, one pass into
    /// one buffer).
    pub fn is_cheap(&self, format: Format) -> bool {
        let generation = self.published.lock().expect("published lock").generation;
        let rendered = self.rendered.lock().expect("rendered lock");
        match &rendered[format.index()] {
            Some((g, _)) if *g == generation => true,
            Some((_, body)) => body.len() < INLINE_RENDER_BYTES,
            None => false,
        }
    }

    /// Replaces the publication (the reading thread, after a batch).
    pub fn publish(&self, mut published: Published) {
        let mut current = self.published.lock().expect("published lock");
        published.generation = current.generation + 1;
        *current = Arc::new(published);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn published(denials: u64) -> Published {
        let mut metrics = Metrics::default();
        metrics.denials.insert(
            crate::vocab::counters::DenialKey {
                path: Default::default(),
                tool: "Bash".into(),
                workflow: "w".into(),
                reason: crate::vocab::Reason::Hook,
            },
            denials,
        );
        Published {
            metrics,
            ..Published::default()
        }
    }

    #[test]
    fn renders_once_per_publication_and_format() {
        let (text, om) = (Format::Text, Format::OpenMetrics);
        let shared = Shared::new("/metrics".into(), View::default());
        shared.publish(published(1));
        assert!(!shared.is_cheap(text) && !shared.is_cheap(om));
        let first = shared.families(text);
        assert!(std::str::from_utf8(&first).unwrap().contains("} 1\n"));
        assert!(shared.is_cheap(text) && !shared.is_cheap(om));
        // Asked again: the same buffer, not a new render.
        assert_eq!(shared.families(text).as_ptr(), first.as_ptr());
        let families = shared.families(om);
        assert!(families.starts_with(b"# HELP") && shared.is_cheap(om));
        assert!(!families.ends_with(b"# EOF\n"));

        shared.publish(published(2));
        assert!(
            shared.is_cheap(text) && shared.is_cheap(om),
            "a small exposition may be rendered inline"
        );
        let second = shared.families(text);
        assert_ne!(second.as_ptr(), first.as_ptr());
        assert!(std::str::from_utf8(&second).unwrap().contains("} 2\n"));
    }
}
