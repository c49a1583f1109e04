use agentctx_protocol::ContentItem;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::cleanup_summary_tags;
use super::collect_user_message_texts;
use super::filter_for_summarization;
use super::is_valid_summary;

fn injected_user(text: &str) -> ResponseItem {
    let mut item = ResponseItem::user_text(text);
    item.set_injected(true);
    item
}

fn user_parts(parts: Vec<ContentItem>) -> ResponseItem {
    ResponseItem::Message {
        id: None,
        role: "user".to_string(),
        content: parts,
        extra: ExtraFields::new(),
    }
}

fn reasoning() -> ResponseItem {
    serde_json::from_value(json!({
        "type": "reasoning", "summary": [{"type": "summary_text", "text": "thinking"}],
        "encrypted_content": "opaque"
    }))
    .unwrap()
}

fn ghost_snapshot() -> ResponseItem {
    serde_json::from_value(json!({"type": "ghost_snapshot", "ghost_commit": {"id": "abc"}}))
        .unwrap()
}

#[test]
fn the_summariser_sees_no_reasoning_snapshots_reminders_or_injected_context() {
    let history = vec![
        ResponseItem::developer_text(
            "<permissions instructions>sandboxed</permissions instructions>",
        ),
        ResponseItem::user_text("<environment_context>\n<cwd>/repo</cwd>\n</environment_context>"),
        ResponseItem::user_text(
            "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nbe brief\n</INSTRUCTIONS>",
        ),
        ResponseItem::user_text("fix the parser"),
        ResponseItem::user_text("<system-reminder>\nfile changed\n</system-reminder>"),
        injected_user("Base directory for this skill: /skills/x"),
        reasoning(),
        ResponseItem::function_call("c1", "shell", r#"{"command":["cargo","test"]}"#),
        ResponseItem::function_call_output("c1", "Exit code: 0"),
        ghost_snapshot(),
        serde_json::from_value(json!({"type": "compaction", "encrypted_content": "blob"})).unwrap(),
        serde_json::from_value(json!({"type": "future_item", "x": 1})).unwrap(),
        ResponseItem::assistant_text("Fixed."),
    ];
    let filtered = filter_for_summarization(&history);
    assert_eq!(
        filtered,
        vec![
            ResponseItem::user_text("fix the parser"),
            ResponseItem::function_call("c1", "shell", r#"{"command":["cargo","test"]}"#),
            ResponseItem::function_call_output("c1", "Exit code: 0"),
            ResponseItem::assistant_text("Fixed."),
        ]
    );
}

#[test]
fn harness_parts_are_cut_out_of_a_mixed_user_message_and_images_become_text() {
    let history = vec![user_parts(vec![
        ContentItem::input_text("<system-reminder>\ntodo list is empty\n</system-reminder>"),
        ContentItem::input_text("look at this screenshot"),
        ContentItem::InputImage {
            image_url: "data:image/png;base64,AAAA".to_string(),
            detail: None,
        },
        ContentItem::input_text("<local-command-stdout>ok</local-command-stdout>"),
    ])];
    assert_eq!(
        filter_for_summarization(&history),
        vec![user_parts(vec![
            ContentItem::input_text("look at this screenshot"),
            ContentItem::input_text("[image]"),
        ])]
    );
}

#[test]
fn persistent_developer_text_stays_but_turn_settings_sections_go() {
    let history = vec![ResponseItem::Message {
        id: None,
        role: "developer".to_string(),
        content: vec![
            ContentItem::input_text("<model_switch>\nnow gpt-5\n</model_switch>"),
            ContentItem::input_text("Always answer in French."),
        ],
        extra: ExtraFields::new(),
    }];
    let filtered = filter_for_summarization(&history);
    assert_eq!(
        filtered
            .iter()
            .filter_map(ResponseItem::message_text)
            .collect::<Vec<_>>(),
        vec!["Always answer in French.".to_string()]
    );
}

#[test]
fn filtering_an_empty_history_is_empty() {
    assert_eq!(filter_for_summarization(&[]), Vec::<ResponseItem>::new());
}

#[test]
fn user_texts_are_verbatim_and_leave_out_context_injections_and_earlier_summaries() {
    let history = vec![
        ResponseItem::user_text("<environment_context>\n<cwd>/r</cwd>\n</environment_context>"),
        ResponseItem::user_text("  first request, with spaces kept  "),
        injected_user("<command-name>/model</command-name>"),
        ResponseItem::user_text("<system-reminder>\nx\n</system-reminder>"),
        ResponseItem::user_text("[Request interrupted by user]"),
        ResponseItem::user_text(
            "Another language model started to solve this problem and produced a summary of its thinking process. You also have access...\nsummary body",
        ),
        ResponseItem::user_text(
            "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n...",
        ),
        ResponseItem::assistant_text("an answer"),
        user_parts(vec![
            ContentItem::input_text("<system-reminder>\nr\n</system-reminder>"),
            ContentItem::input_text("second"),
            ContentItem::input_text("request"),
        ]),
    ];
    assert_eq!(
        collect_user_message_texts(&history),
        vec![
            "  first request, with spaces kept  ".to_string(),
            "second\nrequest".to_string(),
        ]
    );
}

#[test]
fn a_summary_with_text_is_valid() {
    assert!(is_valid_summary("## Primary request\nFix the parser."));
    assert!(is_valid_summary(
        "<analysis>thinking</analysis>\n<summary>1. Primary request: fix it</summary>"
    ));
}

#[test]
fn empty_failed_or_analysis_only_summaries_are_invalid() {
    for text in [
        "",
        "   \n\t ",
        "---\n***",
        "(no summary available)",
        "Prompt is too long",
        "API Error: 500 {\"type\":\"error\"}",
        "Request timed out",
        "<analysis>I was thinking about the parser</analysis>",
        "<analysis>cut off while thinking",
        "<summary>\n\n</summary>",
    ] {
        assert!(!is_valid_summary(text), "{text:?} must be invalid");
    }
}

#[test]
fn cleanup_keeps_only_the_summary_blocks() {
    let text = "<analysis>\nLet me think.\n</analysis>\n\n<summary>\n1. Primary Request:\n   fix it\n\n\n\n2. Next Step: test\n</summary>\ntrailing chatter";
    assert_eq!(
        cleanup_summary_tags(text),
        "1. Primary Request:\n   fix it\n\n2. Next Step: test"
    );
}

#[test]
fn cleanup_without_tags_only_trims_and_collapses_blank_lines() {
    assert_eq!(
        cleanup_summary_tags("\n\nplain summary\n\n\n\nsecond paragraph  \n"),
        "plain summary\n\nsecond paragraph"
    );
}

#[test]
fn cleanup_matches_tags_in_any_case_and_handles_unclosed_blocks() {
    assert_eq!(
        cleanup_summary_tags("<ANALYSIS>x</Analysis><Summary>kept\nto the end"),
        "kept\nto the end"
    );
    assert_eq!(
        cleanup_summary_tags("before <analysis>never closed"),
        "before"
    );
    assert_eq!(
        cleanup_summary_tags("<summary>a</summary> middle <summary>b</summary>"),
        "a\n\nb"
    );
}

#[test]
fn cleanup_is_safe_on_multibyte_text_around_tags() {
    assert_eq!(
        cleanup_summary_tags("é<analysis>ü</analysis>日本<summary>요약</summary>"),
        "요약"
    );
}

#[test]
fn an_opaque_compaction_item_reaches_the_summariser_as_its_readable_copy() {
    let mut item: ResponseItem =
        serde_json::from_value(json!({"type": "compaction", "encrypted_content": "blob"})).unwrap();
    item.set_readable_copy("The parser was ported to nom.");
    let history = vec![item.clone(), ResponseItem::user_text("now the lexer")];
    assert_eq!(
        filter_for_summarization(&history),
        vec![
            item.readable_copy_message().unwrap(),
            ResponseItem::user_text("now the lexer"),
        ]
    );
}
