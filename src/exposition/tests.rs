//! The exposition's tests: the families a state makes ([below](self)), the goldens as `replay`
//! prints them ([`golden`]), and the writers held byte for byte to the crates they replace
//! ([`reference`]). The golden state, the check against a golden file and the reference
//! encoders serve `crate::web`'s tests too, which hold the `/metrics` body the same way.

pub(crate) mod golden;
pub(crate) mod reference;

use super::*;
use crate::vocab::counters::DenialKey;
use crate::vocab::Reason;

#[test]
fn renders_denials_and_zeroed_self_metrics() {
    let mut m = Metrics::default();
    m.denials.insert(
        DenialKey {
            path: Default::default(),
            tool: "Bash".into(),
            workflow: "re\"view".into(),
            reason: Reason::Hook,
        },
        2,
    );
    m.workflows
        .entry("review".into())
        .or_default()
        .cost_usd
        .observe(COST_BUCKETS, 0.3);
    m.lines_read = 5;
    // A state file written when every kind was a series holds zeros.
    m.redactions.insert("github_token".into(), 0);
    let text = render_text(&Counted {
        metrics: &m,
        gauges: Gauges::default(),
        run: Some(&RunStats::default()),
    });
    assert!(
        text.contains(
            "permission_denials_total{reason=\"hook\",tool=\"Bash\",workflow=\"re\\\"view\"} 2\n"
        ),
        "{text}"
    );
    assert!(text.contains("denials_exporter_lines_total{outcome=\"ignored\"} 5\n"));
    assert!(
        !text.contains("denials_exporter_redactions_total"),
        "a kind never seen is no series: {text}"
    );
    assert!(text.contains("agent_execution_cost_usd_bucket{workflow=\"review\",le=\"0.5\"} 1\n"));
    assert!(text.contains("agent_execution_cost_usd_count{workflow=\"review\"} 1\n"));
    assert!(text.contains("denials_exporter_state_writes_total{result=\"error\"} 0\n"));

    m.redactions.insert("aws_access_key".into(), 2);
    let text = render_text(&Counted {
        metrics: &m,
        gauges: Gauges::default(),
        run: None,
    });
    let kinds: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("denials_exporter_redactions_total"))
        .collect();
    assert_eq!(
        kinds,
        ["denials_exporter_redactions_total{kind=\"aws_access_key\"} 2"]
    );
}

#[test]
fn negotiation_follows_the_accept_header() {
    let prometheus = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
    let om = |accept| Format::from_accept(accept) == Format::OpenMetrics;
    assert!(om(Some(prometheus)));
    assert!(om(Some("application/openmetrics-text")));
    assert!(!om(None));
    assert!(!om(Some("*/*")));
    assert!(!om(Some("text/plain")));
    assert!(!om(Some(
        "application/openmetrics-text;q=0.2,text/plain;q=0.9"
    )));
    assert!(!om(Some("application/openmetrics-text;q=0")));
}
