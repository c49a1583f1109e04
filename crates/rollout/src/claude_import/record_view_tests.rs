use pretty_assertions::assert_eq;
use serde_json::json;

use super::Content;
use super::RecordView;
use super::as_bool;
use super::as_str;
use super::to_value;

#[test]
fn lines_that_are_not_objects_have_no_view() {
    for line in ["[1]", "\"text\"", "{", "{\"type\":\"user\"} x", "not json"] {
        assert!(RecordView::parse(line).is_none(), "{line}");
    }
}

/// Members are read as a JSON tree reads them: the last duplicate wins, a value of another JSON
/// type reads as absent, escapes are decoded.
#[test]
fn members_read_as_a_json_tree_reads_them() {
    let view = RecordView::parse(
        r#"{"type":"user","toolUseResult":{"stdout":"big"},"isMeta":"yes","type":"assi\u0073tant","isSidechain":true,"uuid":7,"message":{"content":"x","content":[{"type":"tool_result","content":"x"},"text",{"type":1}],"id":null}}"#,
    )
    .unwrap();
    assert_eq!(view.kind.and_then(as_str).as_deref(), Some("assistant"));
    assert_eq!(view.is_meta.and_then(as_bool), None);
    assert_eq!(view.is_sidechain.and_then(as_bool), Some(true));
    assert_eq!(view.uuid.and_then(as_str), None);
    let message = view.message.unwrap();
    assert_eq!(message.id, Some("null"));
    let Some(Content::Blocks(blocks)) = message.content else {
        panic!("blocks expected");
    };
    let types: Vec<_> = blocks.iter().map(|block| block.kind.as_deref()).collect();
    assert_eq!(types, [Some("tool_result"), None, None]);
    assert_eq!(
        to_value(blocks[0].raw),
        json!({"type": "tool_result", "content": "x"})
    );
}

#[test]
fn a_message_that_is_not_an_object_has_no_members() {
    for message in ["\"hi\"", "[1, {}]", "null", "3", "true"] {
        let line = format!(r#"{{"type":"user","message":{message}}}"#);
        let view = RecordView::parse(&line).unwrap();
        let message = view.message.unwrap();
        assert!(message.content.is_none() && message.id.is_none() && message.usage.is_none());
    }
}

#[test]
fn contents_of_every_json_type_are_read() {
    let content = |json: &str| {
        let line = format!(r#"{{"message":{{"content":{json}}}}}"#);
        let content = RecordView::parse(&line).unwrap().message.unwrap().content;
        match content {
            Some(Content::Null) => "null".to_string(),
            Some(Content::Text(text)) => format!("text {text}"),
            Some(Content::Blocks(blocks)) => format!("{} blocks", blocks.len()),
            Some(Content::Other(value)) => format!("other {value}"),
            None => "none".to_string(),
        }
    };
    assert_eq!(content("null"), "null");
    assert_eq!(content(r#""a\nb""#), "text a\nb");
    assert_eq!(content("[]"), "0 blocks");
    for other in ["1", "-1", "1.5", "false", r#"{"a":[1]}"#] {
        assert_eq!(content(other), format!("other {other}"));
    }
}

/// Where the members the import reads hold what a JSON tree refuses (nesting past serde_json's
/// limit, a number out of range, a lone surrogate), the view refuses the line as the tree parse
/// does, at the same nesting; what the import never reads is only skipped, as before.
#[test]
fn the_view_refuses_what_the_tree_of_the_read_members_refuses() {
    let templates = [
        r#"{"type":"user","message":{"content":[{"type":"text","x":NEST}]}}"#,
        r#"{"type":"user","message":{"content":[NEST]}}"#,
        r#"{"type":"user","message":{"content":[{"type":NEST}]}}"#,
        r#"{"type":"assistant","message":{"usage":NEST,"content":[]}}"#,
        r#"{"type":"assistant","message":{"model":NEST,"content":[]}}"#,
        r#"{"type":"user","message":{"content":{"x":NEST}}}"#,
        r#"{"type":"user","message":[NEST]}"#,
        r#"{"type":"system","compactMetadata":NEST}"#,
        r#"{"type":"user","parentUuid":NEST}"#,
        r#"{"type":"attachment","attachment":NEST}"#,
        r#"{"type":"attachment","rendered":NEST}"#,
    ];
    for template in templates {
        let mut flips = 0;
        for depth in 118..132 {
            let nest = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
            let line = template.replace("NEST", &nest);
            let tree = serde_json::from_str::<serde_json::Value>(&line).is_ok();
            assert_eq!(
                RecordView::parse(&line).is_some(),
                tree,
                "{template} at {depth}"
            );
            flips += usize::from(!tree);
        }
        assert!(flips > 0 && flips < 14, "{template}");
    }
    for value in ["1e400", r#""\ud800""#] {
        for template in &templates[..8] {
            let line = template.replace("NEST", value);
            assert!(serde_json::from_str::<serde_json::Value>(&line).is_err());
            assert!(RecordView::parse(&line).is_none(), "{line}");
        }
    }
    let nest = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    let unread =
        format!(r#"{{"type":"user","toolUseResult":{nest},"message":{{"content":"hi"}}}}"#);
    assert!(RecordView::parse(&unread).is_some());
}
