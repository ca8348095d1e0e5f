//! A record's denial list (`permissionDenials`, `permission_denials`), read without building
//! its tool inputs.
//!
//! The model chooses a tool's input, so an injected agent can nest it as deep as it likes, and
//! serde_json refuses a tree deeper than 128 levels: parsed as one `Value`, such a list failed
//! whole and the execution's record-only denials vanished. Here the list is split into raw
//! entries (skipping a value needs no recursion), and only each entry's own top-level fields are
//! read; a tool input is kept as raw text (bounded) for the risk class, and summarised from it
//! only when an audit record wants the summary.
//!
//! **Not here:** what the entries mean for counting (`crate::account`).
//!
//! Cold: per record line.

use serde_json::value::RawValue;

use super::object::Object;
use super::{tool_attempt, RecordedDenial};
use crate::config::Fields;
use crate::vocab::digest::Digest;

/// The entries of the first of `keys` that holds an array; `None` if none does.
pub fn denial_list(
    object: &Object<'_>,
    keys: &[&str],
    fields: &Fields,
) -> Option<Vec<RecordedDenial>> {
    let raw = keys.iter().find_map(|key| object.raw(key))?;
    let items: Vec<&RawValue> = serde_json::from_str(raw.get()).ok()?;
    Some(
        items
            .iter()
            .filter_map(|item| entry(item, fields))
            .collect(),
    )
}

/// One entry of a denial list, in either spelling (`toolName` or `tool_name`). Every object in
/// the list is a denial: one without a tool name is the tool `unknown`, as a mid-stream denial
/// without one is.
fn entry(item: &RawValue, fields: &Fields) -> Option<RecordedDenial> {
    let entry = Object::parse_str(item.get())?;
    let tool = entry
        .id(&fields.tool_key)
        .or_else(|| entry.id("tool_name"))
        .unwrap_or_else(|| "unknown".to_string());
    let tool_use_id = entry
        .id(&fields.tool_use_id_key)
        .or_else(|| entry.id("tool_use_id"));
    let attempted = tool_attempt(entry.raw("toolInput").or_else(|| entry.raw("tool_input")));
    Some(RecordedDenial {
        tool,
        tool_use_digest: tool_use_id.as_deref().map(Digest::of),
        tool_use_id,
        attempted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(line: &str) -> Option<Vec<RecordedDenial>> {
        let object = Object::parse(line.as_bytes()).unwrap();
        denial_list(
            &object,
            &["permissionDenials", "permission_denials"],
            &Fields::default(),
        )
    }

    #[test]
    fn nesting_in_a_tool_input_never_hides_an_entry() {
        for depth in [1, 127, 128, 129, 10_000, 200_000] {
            let deep = "[".repeat(depth) + &"]".repeat(depth);
            let line = format!(
                r#"{{"permissionDenials":[{{"toolName":"Bash","toolUseId":"t1","toolInput":{{"x":{deep}}}}},{{"tool_name":"Edit","tool_use_id":"t2","tool_input":{{"command":"ls"}}}}]}}"#
            );
            let entries = list(&line).unwrap_or_else(|| panic!("depth {depth}: list lost"));
            assert_eq!(entries.len(), 2, "depth {depth}");
            assert_eq!(
                (entries[0].tool.as_str(), entries[0].tool_use_id.as_deref()),
                ("Bash", Some("t1"))
            );
            assert_eq!(entries[1].input_summary().as_deref(), Some("ls"));
            // Past the parser's depth, the summary is the raw text's, cut.
            if depth >= 10_000 {
                let deep = entries[0].input_summary().unwrap();
                assert!(deep.starts_with(r#"{"x"#), "depth {depth}: {deep:.40}");
                assert!(deep.len() < depth, "depth {depth}: cut");
            }
        }
    }

    #[test]
    fn not_an_array_is_no_list() {
        assert_eq!(list(r#"{"permissionDenials":{"a":1}}"#), None);
        assert_eq!(list(r#"{"other":[]}"#), None);
        // An object is a denial even without a tool name; anything else in the list is not.
        let entries = list(r#"{"permission_denials":[1,{"x":2},{"toolName":""}]}"#).unwrap();
        let tools: Vec<&str> = entries.iter().map(|e| e.tool.as_str()).collect();
        assert_eq!(tools, ["unknown", "unknown"]);
    }
}
