//! Path labels: each file's series under the labels its path gave, bounded like every label,
//! and dropped once its files have been gone for the grace period.

use super::super::*;
use crate::config::{Fields, PathPattern};
use crate::decode;

const KUBELET: &str = r"^/var/log/pods/(?P<namespace>[^_/]+)_(?P<pod>[^_/]+)_[^/]+/";

/// The path labels the kubelet's path of `namespace`/`pod` gives, admitted by `a`.
fn labels_of(a: &mut Accountant, namespace: &str, pod: &str) -> PathLabels {
    let pattern = PathPattern::new("labels-from-path", KUBELET).unwrap();
    let path = format!("/var/log/pods/{namespace}_{pod}_0f0e/executor/0.log");
    let captures = pattern.captures(&path);
    assert_eq!(captures.workflow, None);
    a.path_labels(&captures.labels)
}

/// A denial and a completed record with a cost, from the file with `labels`.
fn denial_and_record(a: &mut Accountant, labels: &PathLabels, execution: &str) {
    let denial = format!(
        r#"{{"executionId":"{execution}","workflow":"review","event":"agent.permission.denied","toolName":"Bash","toolUseId":"t1","decisionReasonType":"hook"}}"#
    );
    let record = format!(
        r#"{{"executionId":"{execution}","workflow":"review","subtype":"success","costUsd":0.5,"modelUsage":{{"m":{{"inputTokens":1,"costUSD":0.5}}}},"msg":"Claude Agent SDK execution completed"}}"#
    );
    for line in [denial, record] {
        let event = decode::decode(line.as_bytes(), &Fields::default()).unwrap();
        let source = LineSource {
            path: "0.log",
            path_workflow: None,
            path_labels: labels,
        };
        a.apply(event, source);
    }
}

fn accountant(max_path_values: usize, grace: u64) -> Accountant {
    let mut config = Config::default();
    config.limits.max_path_values = max_path_values;
    config.limits.path_labels_grace_secs = grace;
    Accountant::new(config)
}

#[test]
fn each_pods_denials_executions_and_spend_carry_its_namespace_and_pod() {
    let mut a = accountant(10, 60);
    let (one, two) = (
        labels_of(&mut a, "ci", "pod-a"),
        labels_of(&mut a, "prod", "pod-b"),
    );
    assert_eq!(
        one.pairs().collect::<Vec<_>>(),
        [("namespace", "ci"), ("pod", "pod-a")]
    );
    denial_and_record(&mut a, &one, "e1");
    denial_and_record(&mut a, &two, "e2");
    denial_and_record(&mut a, &two, "e3");
    let m = a.metrics();
    let denials = |p: &PathLabels| {
        m.denials
            .iter()
            .filter(|(k, _)| k.path == *p)
            .map(|(_, n)| n)
            .sum::<u64>()
    };
    assert_eq!((denials(&one), denials(&two)), (1, 2));
    assert!(m
        .denial_risks
        .keys()
        .all(|k| k.path == one || k.path == two));
    assert_eq!(m.path_workflows[&one]["review"].executions["success"], 1);
    assert_eq!(m.path_workflows[&two]["review"].executions["success"], 2);
    assert_eq!(m.path_workflows[&two]["review"].models["m"].cost_usd, 1.0);
    assert!(
        m.workflows.is_empty(),
        "nothing counted without path labels"
    );
    // Every audit record (the class decided when a record came too) says its pod.
    let records = a.take_audit();
    assert!(records
        .iter()
        .all(|r| r.namespace.is_some() && r.pod.is_some()));
    let denials: Vec<_> = records
        .into_iter()
        .filter(|r| r.kind == crate::vocab::AuditKind::Denial)
        .map(|r| format!("{}/{}", r.namespace.unwrap(), r.pod.unwrap()))
        .collect();
    assert_eq!(denials, ["ci/pod-a", "prod/pod-b", "prod/pod-b"]);
}

#[test]
fn path_label_values_are_validated_and_capped() {
    let mut a = accountant(2, 60);
    labels_of(&mut a, "ci", "pod-a");
    labels_of(&mut a, "ci", "pod-b");
    let third = labels_of(&mut a, "ci", "pod-c");
    assert_eq!(third.get(LabelName::Pod), Some(labels::OTHER));
    assert_eq!(third.get(LabelName::Namespace), Some("ci"));
    let odd = a.path_labels(&[(LabelName::Pod, "pod a\"".into())]);
    assert_eq!(odd.get(LabelName::Pod), Some(labels::INVALID));
    let m = a.metrics();
    assert_eq!(m.label_overflow[&LabelName::Pod], 1);
    assert_eq!(m.label_invalid[&LabelName::Pod], 1);
}

#[test]
fn a_pods_series_go_after_its_files_have_been_gone_for_the_grace_period() {
    let mut a = accountant(1, 60);
    let gone = labels_of(&mut a, "ci", "pod-a");
    a.path_opened(&gone);
    denial_and_record(&mut a, &gone, "e1");
    a.path_closed(&gone, 1000.0);
    assert_eq!(a.expire_paths(1059.0), 0, "within the grace period");
    assert_eq!(a.metrics().denials_total(), 1);
    // Opened again (a new roll of the same pod) and let go: the grace period starts over.
    a.path_opened(&gone);
    assert_eq!(a.expire_paths(5000.0), 0, "a file still followed");
    a.path_closed(&gone, 5000.0);
    assert_eq!(a.expire_paths(5060.0), 1);
    let m = a.metrics();
    assert_eq!(m.denials_total(), 0);
    assert!(m.denial_risks.is_empty() && m.path_workflows.is_empty());
    assert_eq!(m.path_labels_expired, 1);
    // Its pod value was let go: a new pod is admitted under the cap of 1.
    let next = labels_of(&mut a, "ci", "pod-b");
    assert_eq!(next.get(LabelName::Pod), Some("pod-b"));
}

#[test]
fn series_restored_from_the_state_without_their_files_go_after_the_grace_period() {
    let mut a = accountant(10, 60);
    let (kept, gone) = (
        labels_of(&mut a, "ci", "kept"),
        labels_of(&mut a, "ci", "gone"),
    );
    denial_and_record(&mut a, &kept, "e1");
    denial_and_record(&mut a, &gone, "e2");
    let mut restarted = Accountant::with_state(a.config().clone(), a.state().clone());
    let kept = labels_of(&mut restarted, "ci", "kept");
    restarted.path_opened(&kept);
    assert_eq!(
        restarted.expire_paths(100.0),
        0,
        "the grace period starts at the restart"
    );
    assert_eq!(restarted.expire_paths(160.0), 1);
    let m = restarted.metrics();
    assert!(m.denials.keys().all(|k| k.path == kept));
    assert_eq!(m.denials_total(), 1);
}
