//! Nothing leaves unredacted: not the audit stream, not the exposition, not the exporter's log.

mod common;

/// Fake secrets, assembled so that the source holds no realistic-looking key.
fn secrets() -> Vec<(&'static str, String)> {
    vec![
        (
            "github",
            format!("ghp_{}", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"),
        ),
        ("aws", format!("AKIA{}", "IOSFODNN7EXAMPLQ")),
        (
            "anthropic",
            format!("sk-ant-api03-{}", "x".repeat(40) + "AbCdEf012345"),
        ),
        (
            "slack",
            format!(
                "xoxb-{}-{}-{}",
                "123456789012", "1234567890123", "AbCdEfGhIjKlMnOpQrStUvWx"
            ),
        ),
        ("password", "hunter2hunter2".to_string()),
    ]
}

fn log_with_secrets() -> (Vec<u8>, Vec<String>) {
    let s = secrets();
    let secret = |k: &str| s.iter().find(|(kind, _)| *kind == k).unwrap().1.clone();
    let reason = format!(
        "PreToolUse hook denied: curl -H 'Authorization: Bearer {}' https://api.github.com/repos/acme/web",
        secret("github")
    );
    let denial = common::denial("exec_s", "review", "Bash", Some("toolu_01S"), "hook").replace(
        r#""decisionReason":"denied""#,
        &format!(r#""decisionReason":"{reason}""#),
    );
    let input = serde_json::json!({
        "command": format!(
            "export AWS_ACCESS_KEY_ID={} ANTHROPIC_API_KEY={} && mysql -uroot -p{} -h db.internal && curl -X POST https://hooks.slack.com/x -H 'Authorization: Bearer {}'",
            secret("aws"), secret("anthropic"), secret("password"), secret("slack")
        )
    });
    let record = format!(
        r#"{{"level":30,"executionId":"exec_s","workflow":"review","subtype":"success","permissionDenials":[{{"toolName":"Bash","toolUseId":"toolu_01S"}},{{"toolName":"Write","toolUseId":"toolu_01T","toolInput":{input}}}],"msg":"Claude Agent SDK execution completed"}}"#
    );
    let malformed = format!(
        r#"{{"event":"agent.permission.denied","toolName":"Bash","decisionReason":"token {}"#,
        secret("github")
    );
    let log = format!("{denial}\n{record}\n{malformed}\n").into_bytes();
    (log, s.into_iter().map(|(_, v)| v).collect())
}

#[test]
fn secrets_never_leave_the_process() {
    let (log, secrets) = log_with_secrets();
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let (e, stderr) = common::replay_stdin(&log, &["--audit-log", audit.to_str().unwrap()]);
    let audit_text = std::fs::read_to_string(&audit).unwrap();
    for secret in &secrets {
        assert!(
            !audit_text.contains(secret.as_str()),
            "audit leaks {secret}:\n{audit_text}"
        );
        assert!(
            !e.text.contains(secret.as_str()),
            "exposition leaks {secret}"
        );
        assert!(
            !stderr.contains(secret.as_str()),
            "own log leaks {secret}:\n{stderr}"
        );
    }
    // Redacted, with the kind named, and what an operator needs still readable.
    assert!(audit_text.contains("[REDACTED:"), "{audit_text}");
    assert!(
        audit_text.contains("https://api.github.com/repos/acme/web"),
        "{audit_text}"
    );
    assert!(audit_text.contains("mysql -uroot"), "{audit_text}");
    assert!(audit_text.contains("db.internal"), "{audit_text}");
    assert!(audit_text.contains("toolu_01T"), "{audit_text}");
    assert!(
        stderr.contains("[REDACTED:"),
        "the bad line's excerpt is redacted: {stderr}"
    );
    assert_eq!(e.sum("permission_denials_total", &[]), 2.0);
    assert!(
        e.sum("denials_exporter_redactions_total", &[]) >= 6.0,
        "{}",
        e.text
    );
}

#[test]
fn no_redaction_kind_is_exported_before_it_replaced_something() {
    let (e, _) = common::replay_stdin(b"", &[]);
    let kinds = e
        .samples
        .iter()
        .filter(|s| s.name == "denials_exporter_redactions_total")
        .count();
    assert_eq!(kinds, 0, "a kind never seen is no series");
}
