//! Generators of hostile lines for [`super`]: valid-JSON hostile numbers, times and names,
//! tool inputs of any depth, container framing with partials and prefixes, junk that must count
//! nothing, token soup, and the exactly-once model of executions with their denials and records.

use proptest::prelude::*;

/// A JSON string literal.
pub(super) fn js(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// Current time in ms since the epoch, minus `back_secs`.
pub(super) fn ms_ago(back_secs: u64) -> u64 {
    (crate::account::wall_now() as u64 - back_secs) * 1000
}

/// Values (as valid JSON source text) an attacker would put where a count, cost or time goes.
pub(super) fn hostile_number() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u64..5).prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|f| serde_json::to_string(&f).unwrap()),
        proptest::sample::select(vec![
            "1e308",
            "-1e308",
            "1e15",
            "1e19",
            "18446744073709551616",
            "99999999999999999999999",
            "-0",
            "0.5",
            "3.7",
            "1e-320",
            "\"12\"",
            "\"NaN\"",
            "\"Infinity\"",
            "null",
            "true",
            "[]",
            "{}",
            "\"0x10\"",
            "1.7976931348623157e308",
        ])
        .prop_map(String::from),
    ]
}

/// [`hostile_number`], or text no JSON parser takes (which makes the whole line malformed).
pub(super) fn hostile_or_invalid_number() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => hostile_number(),
        1 => proptest::sample::select(vec!["NaN", "Infinity", "-Infinity", "0x10", "1e", "--1", "+1", "1e400"])
            .prop_map(String::from),
    ]
}

/// A `"time":…,` member, or none: plausible, microsecond epoch, far future, negative, odd.
pub(super) fn time_member() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => Just(String::new()),
        3 => (0u64..600).prop_map(|s| format!("\"time\":{},", ms_ago(900) + s * 1000)),
        1 => Just(format!("\"time\":{},", ms_ago(0) * 1000)),
        1 => proptest::sample::select(vec![
            "9e15", "-1", "1e308", "-1e308", "\"2099-01-01T00:00:00Z\"", "\"yesterday\"",
            "\"1970-01-01T00:00:00Z\"", "null", "\"NaN\"",
        ])
        .prop_map(|t| format!("\"time\":{t},")),
    ]
}

/// A tool input nested `depth` levels, objects and arrays mixed.
pub(super) fn nested(depth: usize) -> String {
    let mut s = String::with_capacity(depth * 6 + 8);
    for i in 0..depth {
        s.push_str(if i % 2 == 0 { "{\"a\":" } else { "[" });
    }
    s.push_str("\"git push --force\"");
    for i in (0..depth).rev() {
        s.push(if i % 2 == 0 { '}' } else { ']' });
    }
    s
}

pub(super) fn depth() -> impl Strategy<Value = usize> {
    prop_oneof![30 => 0usize..300, 1 => Just(100_000usize)]
}

/// A tool name: from a small pool, odd characters, or long (up to 1 MB).
pub(super) fn tool_name() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => proptest::sample::select(vec!["Bash", "Edit", "Read", "WebFetch", "mcp__x__y", "other"])
            .prop_map(String::from),
        6 => "[a-zA-Z0-9_:.\\-]{1,20}",
        // Not empty: a listed entry without a tool name is not a denial (decode::list).
        1 => any::<String>().prop_map(|s| if s.is_empty() { "\u{0}".into() } else { s }),
        1 => prop_oneof![Just(129usize), Just(4096), Just(1_000_000)]
            .prop_map(|n| "T".repeat(n)),
    ]
}

/// Wraps one application line in container framing: none, a CRI line, CRI partials, a Docker
/// json-file line, Docker partials; optionally behind a BOM or NUL run.
pub(super) fn framed(app: String, framing: u8, parts: usize, prefix: u8) -> Vec<u8> {
    let mut out = match prefix % 4 {
        1 => b"\xEF\xBB\xBF".to_vec(),
        2 => vec![0; 17],
        3 => b"\xEF\xBB\xBF\0\0".to_vec(),
        _ => Vec::new(),
    };
    let bytes = app.as_bytes();
    let pieces: Vec<&[u8]> = {
        let step = (bytes.len() / parts.max(1)).max(1);
        bytes.chunks(step).collect()
    };
    let ts = "2026-06-12T10:00:00.000000001Z";
    match framing % 5 {
        1 => out.extend_from_slice(format!("{ts} stdout F {app}\n").as_bytes()),
        2 => {
            for (i, piece) in pieces.iter().enumerate() {
                let tag = if i + 1 == pieces.len() { 'F' } else { 'P' };
                out.extend_from_slice(format!("{ts} stderr {tag} ").as_bytes());
                out.extend_from_slice(piece);
                out.push(b'\n');
            }
            if pieces.is_empty() {
                out.extend_from_slice(format!("{ts} stderr F \n").as_bytes());
            }
        }
        3 => {
            let line =
                serde_json::json!({"log": format!("{app}\n"), "stream": "stdout", "time": ts});
            out.extend_from_slice(line.to_string().as_bytes());
            out.push(b'\n');
        }
        4 => {
            let n = pieces.len();
            for (i, piece) in pieces.iter().enumerate() {
                let mut text = String::from_utf8_lossy(piece).into_owned();
                if i + 1 == n {
                    text.push('\n');
                }
                let line = serde_json::json!({"log": text, "stream": "stdout", "time": ts});
                out.extend_from_slice(line.to_string().as_bytes());
                out.push(b'\n');
            }
            if n == 0 {
                out.extend_from_slice(b"{\"log\":\"\\n\",\"stream\":\"stdout\"}\n");
            }
        }
        _ => {
            out.extend_from_slice(bytes);
            out.push(b'\n');
        }
    }
    out
}

/// Lines that must never count a denial, whatever else they do.
pub(super) fn junk_line() -> impl Strategy<Value = Vec<u8>> {
    let escaped = (any::<bool>(), time_member()).prop_map(|(decoy, time)| {
        let decoy = if decoy { r#","note":"agent.permission.denied","msg":"Claude Agent SDK execution completed?""# } else { "" };
        format!(r#"{{"level":40,{time}"executionId":"junk","event":"agent.permission.\u0064enied","toolName":"Bash","toolUseId":"j1"{decoy}}}"#)
    });
    let deep = (depth(), time_member()).prop_map(|(d, time)| {
        format!(
            r#"{{"level":30,{time}"msg":"tool input","toolInput":{}}}"#,
            nested(d)
        )
    });
    let fixed = proptest::sample::select(vec![
        r#"{"level":30,"payload":{"event":"agent.permission.denied"},"msg":"decoy"}"#,
        r#"{"level":40,"event":"agent.permission.denied","toolName":"Ba"#,
        r#"{"type":"assistant","message":{"content":[{"type":"text","text":"permission_denied \"agent.permission.denied\""}]},"session_id":"junk"}"#,
        r#"{"level":40,"event":"agent.permission.denied ","toolName":"Bash"}"#,
        r#"{"level":40,"event":"AGENT.PERMISSION.DENIED","toolName":"Bash"}"#,
        r#"{"level":40,"event":["agent.permission.denied"],"toolName":"Bash"}"#,
        r#"{"level":30,"msg":"Claude Agent SDK execution completed","permissionDenials":"#,
        "\r", "", "   ", "null", "[]", "{}", "\"agent.permission.denied\"",
    ])
    .prop_map(String::from);
    let bytes = proptest::collection::vec(any::<u8>(), 0..300).prop_map(|mut b| {
        b.iter_mut()
            .filter(|c| **c == b'\n')
            .for_each(|c| *c = b' ');
        b.push(b'\n');
        b
    });
    prop_oneof![
        3 => (prop_oneof![escaped, deep, fixed], 0u8..5, 1usize..4, 0u8..4)
            .prop_map(|(app, f, parts, prefix)| framed(app, f, parts, prefix)),
        1 => bytes,
    ]
}

/// One denial of the model: its tool, whether the stream reported it before the record (and
/// how often), and the depth of its listed tool input.
#[derive(Debug, Clone)]
pub(super) struct ModelDenial {
    pub(super) tool: String,
    pub(super) mid_stream: u8,
    pub(super) depth: usize,
}

/// One execution of the model: stream-json or pino, its denials, how often its record comes.
#[derive(Debug, Clone)]
pub(super) struct ModelExecution {
    pub(super) stream_json: bool,
    pub(super) denials: Vec<ModelDenial>,
    pub(super) records: u8,
    pub(super) cost: String,
    pub(super) time: String,
}

pub(super) fn model_denial() -> impl Strategy<Value = ModelDenial> {
    (tool_name(), 0u8..3, depth()).prop_map(|(tool, mid_stream, depth)| ModelDenial {
        tool,
        mid_stream,
        depth,
    })
}

pub(super) fn model_execution() -> impl Strategy<Value = ModelExecution> {
    (
        any::<bool>(),
        proptest::collection::vec(model_denial(), 0..5),
        1u8..3,
        hostile_number(),
        time_member(),
    )
        .prop_map(|(stream_json, mut denials, records, cost, time)| {
            fit(&mut denials);
            ModelExecution {
                stream_json,
                denials,
                records,
                cost,
                time,
            }
        })
}

/// Shrinks depths, then names, until the record (framed, escaped) fits `--max-line-bytes`: a
/// longer line is skipped whole and counted as oversized, by design, so it has no place in the
/// exactly-once model.
pub(super) fn fit(denials: &mut [ModelDenial]) {
    let size = |ds: &[ModelDenial]| {
        ds.iter()
            .map(|d| d.tool.len() + 5 * d.depth + 100)
            .sum::<usize>()
    };
    const ROOM: usize = 1_000_000 - 4096;
    while size(denials) > ROOM {
        if let Some(d) = denials
            .iter_mut()
            .max_by_key(|d| d.depth)
            .filter(|d| d.depth > 300)
        {
            d.depth = 300;
        } else if let Some(d) = denials.iter_mut().max_by_key(|d| d.tool.len()) {
            match (1..=d.tool.len() / 2)
                .rev()
                .find(|i| d.tool.is_char_boundary(*i))
            {
                Some(keep) => d.tool.truncate(keep),
                None => d.tool = "x".into(),
            }
        }
    }
}

/// The application lines of one execution: its mid-stream denials and its records.
pub(super) fn execution_lines(e: usize, x: &ModelExecution) -> Vec<String> {
    let mut lines = Vec::new();
    let id = |j: usize| format!("toolu_{e}_{j}");
    for (j, d) in x.denials.iter().enumerate() {
        for _ in 0..d.mid_stream {
            lines.push(if x.stream_json {
                format!(
                    r#"{{"type":"system","subtype":"permission_denied","tool_name":{},"tool_use_id":"{}","decision_reason_type":"rule","session_id":"sess-{e}"}}"#,
                    js(&d.tool),
                    id(j)
                )
            } else {
                format!(
                    r#"{{"level":40,{}"executionId":"exec-{e}","workflow":"w{}","event":"agent.permission.denied","toolName":{},"toolUseId":"{}","decisionReasonType":"hook","msg":"agent permission denied"}}"#,
                    x.time,
                    e % 3,
                    js(&d.tool),
                    id(j)
                )
            });
        }
    }
    let (tool_key, id_key, input_key) = if x.stream_json {
        ("tool_name", "tool_use_id", "tool_input")
    } else {
        ("toolName", "toolUseId", "toolInput")
    };
    let list: Vec<String> = x
        .denials
        .iter()
        .enumerate()
        .map(|(j, d)| {
            format!(
                r#"{{"{tool_key}":{},"{id_key}":"{}","{input_key}":{}}}"#,
                js(&d.tool),
                id(j),
                nested(d.depth)
            )
        })
        .collect();
    let list = list.join(",");
    let record = if x.stream_json {
        format!(
            r#"{{"type":"result","subtype":"success","total_cost_usd":{},"num_turns":{},"usage":{{"input_tokens":{}}},"permission_denials":[{list}],"session_id":"sess-{e}"}}"#,
            x.cost, x.cost, x.cost
        )
    } else {
        // The list wins over the hostile per-tool counts and total beside it.
        format!(
            r#"{{"level":30,{}"executionId":"exec-{e}","workflow":"w{}","subtype":"success","costUsd":{},"inputTokens":{},"durationMs":{},"permissionDenialCount":1e15,"permissionDeniedTools":{{"Bash":1e15,"Edit":{}}},"permissionDenials":[{list}],"msg":"Claude Agent SDK execution completed"}}"#,
            x.time,
            e % 3,
            x.cost,
            x.cost,
            x.cost,
            x.cost
        )
    };
    for _ in 0..x.records {
        lines.push(record.clone());
    }
    lines
}

/// Deterministic shuffle (proptest shrinks the seed with everything else).
pub(super) fn shuffle<T>(items: &mut [T], mut seed: u64) {
    for i in (1..items.len()).rev() {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        items.swap(i, (seed >> 33) as usize % (i + 1));
    }
}

/// Token soup: JSON-ish fragments that reach the decoders more often than random bytes do.
pub(super) fn token_soup() -> impl Strategy<Value = Vec<u8>> {
    let token = proptest::sample::select(vec![
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"",
        "\\",
        "\\u0064",
        "\n",
        "\r",
        "\0",
        "\u{feff}",
        "\"event\":",
        "\"agent.permission.denied\"",
        "\"msg\":",
        "\"Claude Agent SDK execution completed\"",
        "\"executionId\":",
        "\"e1\"",
        "\"toolName\":",
        "\"toolUseId\":",
        "\"t1\"",
        "\"permissionDenials\":",
        "\"permissionDeniedTools\":",
        "\"permissionDenialCount\":",
        "\"costUsd\":",
        "\"time\":",
        "1e308",
        "-1",
        "1e15",
        "NaN",
        "\"type\":\"result\"",
        "\"type\":\"system\",\"subtype\":\"permission_denied\"",
        "\"session_id\":\"s\"",
        "\"permission_denials\":",
        "2026-06-12T10:00:00Z stdout P ",
        "2026-06-12T10:00:00Z stderr F ",
        "{\"log\":\"",
        "\\n\",\"stream\":\"stdout\"}",
        "\"tool_name\":\"Bash\"",
        "\"tool_use_id\":\"t2\"",
    ]);
    proptest::collection::vec(token, 0..80).prop_map(|t| t.concat().into_bytes())
}
