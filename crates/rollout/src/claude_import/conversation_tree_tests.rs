use std::collections::HashSet;

use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::ConversationTree;
use super::RecordHead;
use super::canonical_uuid;
use crate::claude_import::record_view::RecordView;

fn prompt(uuid: &str, parent: Option<&str>) -> Value {
    json!({"type": "user", "uuid": uuid, "parentUuid": parent,
           "message": {"role": "user", "content": format!("prompt {uuid}")}})
}

fn tool_result(uuid: &str, parent: &str) -> Value {
    json!({"type": "user", "uuid": uuid, "parentUuid": parent,
           "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}})
}

fn assistant(uuid: &str, parent: &str, message_id: &str) -> Value {
    json!({"type": "assistant", "uuid": uuid, "parentUuid": parent,
           "message": {"id": message_id, "role": "assistant", "content": []}})
}

fn abandoned(records: &[Value]) -> Vec<String> {
    let mut tree = ConversationTree::default();
    let lines: Vec<String> = records.iter().map(Value::to_string).collect();
    for line in &lines {
        tree.add(&RecordHead::of_view(&RecordView::parse(line).unwrap()));
    }
    tree.resolve();
    let mut out: Vec<String> = records
        .iter()
        .filter_map(|record| record.get("uuid").and_then(Value::as_str))
        .filter(|uuid| tree.is_abandoned(uuid))
        .map(str::to_string)
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    out.sort();
    out
}

#[test]
fn a_linear_transcript_abandons_nothing() {
    let records = [
        prompt("u1", None),
        assistant("a1", "u1", "m1"),
        tool_result("r1", "a1"),
        assistant("a2", "r1", "m2"),
    ];
    assert_eq!(abandoned(&records), Vec::<String>::new());
}

#[test]
fn a_rewound_prompt_abandons_the_old_branch_below_the_fork() {
    let records = [
        prompt("u1", None),
        assistant("a1", "u1", "m1"),
        prompt("u2", Some("a1")),
        assistant("a2", "u2", "m2"),
        tool_result("r2", "a2"),
        // The user rewinds to before u2 and types another prompt.
        prompt("u2b", Some("a1")),
        assistant("a2b", "u2b", "m3"),
    ];
    assert_eq!(abandoned(&records), vec!["a2", "r2", "u2"]);
}

#[test]
fn a_regenerated_response_abandons_the_first_one() {
    let records = [
        prompt("u1", None),
        assistant("a1", "u1", "m1"),
        assistant("a1b", "u1", "m1-retry"),
    ];
    assert_eq!(abandoned(&records), vec!["a1"]);
}

#[test]
fn side_leaves_of_the_path_are_kept() {
    let records = [
        prompt("u1", None),
        // One assistant message split over two records, each with its own tool call...
        assistant("a1", "u1", "m1"),
        assistant("a1b", "a1", "m1"),
        // ...whose results hang off the record that made each call.
        tool_result("r1", "a1"),
        tool_result("r2", "a1b"),
        json!({"type": "progress", "uuid": "p1", "parentUuid": "a1"}),
        json!({"type": "user", "uuid": "meta", "parentUuid": "u1", "isMeta": true,
               "message": {"role": "user", "content": "<command-name>/status</command-name>"}}),
        assistant("a2", "r2", "m2"),
    ];
    assert_eq!(abandoned(&records), Vec::<String>::new());
}

#[test]
fn records_whose_parent_is_not_in_the_file_are_kept() {
    let records = [
        prompt("u1", Some("from-another-file")),
        assistant("a1", "u1", "m1"),
        prompt("u2", None),
        assistant("a2", "u2", "m2"),
    ];
    assert_eq!(abandoned(&records), Vec::<String>::new());
}

#[test]
fn a_compact_boundary_links_through_its_logical_parent() {
    let records = [
        prompt("u1", None),
        assistant("a1", "u1", "m1"),
        prompt("u2", Some("a1")),
        json!({"type": "system", "subtype": "compact_boundary", "uuid": "b", "parentUuid": null, "logicalParentUuid": "a1"}),
        json!({"type": "user", "uuid": "s", "parentUuid": "b", "isCompactSummary": true,
               "message": {"role": "user", "content": "summary"}}),
        prompt("u3", Some("s")),
    ];
    // u2 forks from a1 beside the boundary: the path runs u3, s, b, a1, u1.
    assert_eq!(abandoned(&records), vec!["u2"]);
}

#[test]
fn sidechains_of_a_main_transcript_are_kept_and_a_subagent_transcript_is_its_own_conversation() {
    let mut sidechain = prompt("s1", None);
    sidechain["isSidechain"] = json!(true);
    let mut sidechain_reply = assistant("s2", "s1", "ms");
    sidechain_reply["isSidechain"] = json!(true);
    let main = [
        prompt("u1", None),
        sidechain.clone(),
        sidechain_reply.clone(),
        assistant("a1", "u1", "m1"),
    ];
    assert_eq!(abandoned(&main), Vec::<String>::new());

    let mut retry = assistant("s2b", "s1", "ms-retry");
    retry["isSidechain"] = json!(true);
    let subagent = [sidechain, sidechain_reply, retry];
    assert_eq!(abandoned(&subagent), vec!["s2"]);
}

#[test]
fn cycles_and_records_without_uuid_do_not_hang_or_count() {
    let records = [
        json!({"type": "user", "uuid": "x", "parentUuid": "y", "message": {"content": "a"}}),
        json!({"type": "user", "uuid": "y", "parentUuid": "x", "message": {"content": "b"}}),
        json!({"type": "user", "message": {"content": "no uuid"}}),
        prompt("u1", None),
    ];
    let found: HashSet<String> = abandoned(&records).into_iter().collect();
    assert_eq!(found, HashSet::new());
}

/// A uuid is kept as its 16 bytes exactly when it is a canonical (lower-case, hyphenated) UUID.
#[test]
fn canonical_uuids_are_read_as_the_uuid_crate_reads_them() {
    let canonical = "0b6a3f9e-2d41-4c8a-b1f7-6e90a2c5d813";
    let candidates = [
        canonical.to_string(),
        canonical.to_uppercase(),
        canonical.replace('-', ""),
        format!("{{{canonical}}}"),
        format!("urn:uuid:{canonical}"),
        canonical.replacen('-', "x", 1),
        canonical.replacen('b', "g", 1),
        "00000000-0000-0000-0000-000000000000".to_string(),
        "ffffffff-ffff-ffff-ffff-ffffffffffff".to_string(),
        "0b6a3f9e-2d41-4c8a-b1f7-6e90a2c5d8131".to_string(),
        "0b6a3f9e2-d41-4c8a-b1f7-6e90a2c5d813".to_string(),
        "é".repeat(18),
    ];
    for text in candidates {
        let expected = uuid::Uuid::try_parse(&text)
            .ok()
            .filter(|parsed| parsed.hyphenated().to_string() == text)
            .map(|parsed| parsed.as_u128());
        assert_eq!(canonical_uuid(text.as_bytes()), expected, "{text}");
    }
}
