//! The `/metrics` body as served, held byte for byte: against the golden files
//! `tests/golden/run.prom` and `run.openmetrics.prom` (the exposition's golden state, then the
//! HTTP server's own families, then the trailer), and the server's own families against the
//! same reference encoders the exposition's writers are held to
//! ([`crate::exposition::tests::reference`]).
//!
//! The `process_*` figures in the goldens are a fixed example ([`ProcessStats::example`]), not
//! this process's. `GOLDEN_UPDATE=1 cargo test --lib golden` rewrites the files; review the diff.

use crate::exposition::tests::golden::{check, Golden};
use crate::exposition::tests::reference::{prometheus_client_openmetrics, prometheus_text};
use crate::exposition::{write, Describe, Format};
use crate::web::connection::ConnectionStats;
use crate::web::process::ProcessStats;
use crate::web::routes::metrics_body;

/// The `/metrics` body as served, for a connection layer that saw nothing yet.
fn served(format: Format) -> String {
    let families = write(format, &Golden::new().counted(true), String::new());
    let body = metrics_body(
        families.as_bytes(),
        &ProcessStats::example(),
        &ConnectionStats::default(),
        format,
    );
    String::from_utf8(body).unwrap()
}

#[test]
fn golden_text_as_served() {
    check("run.prom", &served(Format::Text));
}

#[test]
fn golden_openmetrics_as_served() {
    check("run.openmetrics.prom", &served(Format::OpenMetrics));
}

/// Holds `format`'s writer to `reference` on `what`.
fn same<D: Describe>(format: Format, what: &D, reference: fn(&D) -> String) {
    let mine = write(format, what, String::new()) + format.trailer();
    assert_eq!(mine, reference(what));
}

#[test]
fn the_servers_families_are_written_as_the_prometheus_crate_writes_them() {
    same(Format::Text, &ConnectionStats::busy(), prometheus_text);
    for p in [ProcessStats::example(), ProcessStats::read()] {
        same(Format::Text, &p, prometheus_text);
    }
}

#[test]
fn the_servers_families_are_written_as_prometheus_client_writes_them() {
    let openmetrics = Format::OpenMetrics;
    same(
        openmetrics,
        &ConnectionStats::busy(),
        prometheus_client_openmetrics,
    );
    for p in [ProcessStats::example(), ProcessStats::read()] {
        same(openmetrics, &p, prometheus_client_openmetrics);
    }
}
