use std::borrow::Cow;

use agentctx_protocol::ExtraFields;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn block<'a>(raw: &'a str, kind: &'a str) -> Block<'a> {
    Block {
        raw,
        kind: Some(Cow::Borrowed(kind)),
    }
}

fn written(check: &OutputCheck) -> ExtraFields {
    let mut extra = ExtraFields::new();
    check.write(&mut extra);
    extra
}

#[test]
fn lines_that_repeat_one_count_are_told_from_lines_whose_count_grows() {
    let thinking =
        r#"{"type":"thinking","thinking":"abcd","signature":"EqkCCkYIBxgCKkB0c2lnbmF0dXJl"}"#;
    let text = r#"{"type":"text","text":"a \"quoted\" line"}"#;
    let call = r#"{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}"#;
    let mut repeated = OutputCheck::default();
    for (raw, kind) in [(thinking, "thinking"), (text, "text"), (call, "tool_use")] {
        repeated.usage(r#"{"input_tokens":3,"output_tokens":8}"#);
        repeated.content(&Content::Blocks(vec![block(raw, kind)]));
    }
    // The thinking without its signature, the text unescaped, the call whole.
    let bytes = 4 + "a \"quoted\" line".len() + call.len();
    assert_eq!(
        written(&repeated),
        ExtraFields::from_iter([
            ("visible_output_bytes".to_string(), json!(bytes)),
            ("output_tokens_repeated".to_string(), json!(true)),
        ])
    );

    let mut grew = repeated.clone();
    grew.usage(r#"{"input_tokens":3,"output_tokens":164}"#);
    assert_eq!(
        written(&grew).get("output_tokens_repeated"),
        Some(&json!(false))
    );
}

#[test]
fn a_response_without_visible_output_writes_nothing() {
    let mut check = OutputCheck::default();
    check.usage(r#"{"output_tokens":1}"#);
    check.content(&Content::Null);
    assert_eq!(written(&check), ExtraFields::new());
    check.content(&Content::Text(Cow::Borrowed("plain")));
    assert_eq!(written(&check).get("visible_output_bytes"), Some(&json!(5)));
}
