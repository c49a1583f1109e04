use agentctx_protocol::ContentItem;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::attachment_parts;

fn text(attachment: Value) -> Option<String> {
    let parts = attachment_parts(&attachment, None)?;
    Some(
        parts
            .iter()
            .filter_map(ContentItem::as_text)
            .collect::<Vec<_>>()
            .join("|"),
    )
}

#[test]
fn hook_context_is_named_by_its_hook_and_joined_by_lines() {
    // As Claude Code 2.1.293 recorded the attachment and, in `rendered`, what it sent.
    let attachment = json!({"type":"hook_additional_context","content":["first","second"],"hookName":"UserPromptSubmit","toolUseID":"hook-a9c01229","hookEvent":"UserPromptSubmit"});
    assert_eq!(
        text(attachment).as_deref(),
        Some(
            "<system-reminder>\nUserPromptSubmit hook additional context: first\nsecond\n</system-reminder>"
        )
    );
    // No context: nothing was sent.
    assert_eq!(
        text(json!({"type":"hook_additional_context","content":[],"hookName":"SessionStart"})),
        None
    );
}

#[test]
fn todo_and_task_reminders_list_their_items() {
    let todo = text(json!({"type":"todo_reminder","content":[
        {"content":"read the parser","status":"completed","activeForm":"Reading the parser"},
        {"content":"fix the bug","status":"in_progress","activeForm":"Fixing the bug"}
    ],"itemCount":2}))
    .unwrap_or_default();
    assert!(todo.starts_with("<system-reminder>\nThe TodoWrite tool hasn't been used recently."));
    assert!(todo.ends_with(
        "Here are the existing contents of your todo list:\n\n[1. [completed] read the parser\n2. [in_progress] fix the bug]\n</system-reminder>"
    ));
    // The shape Claude Code 2.1.123 wrote (ids are strings).
    let task = text(json!({"type":"task_reminder","content":[
        {"id":"76","subject":"Review the plan","description":"…","activeForm":"Reviewing","status":"completed","blocks":[],"blockedBy":[]},
        {"id":"77","subject":"Tag a restore point","description":"…","activeForm":"Tagging","status":"in_progress","blocks":[],"blockedBy":[]}
    ],"itemCount":2}))
    .unwrap_or_default();
    assert!(task.starts_with("<system-reminder>\nThe task tools haven't been used recently."));
    assert!(task.ends_with(
        "Here are the existing tasks:\n\n#76. [completed] Review the plan\n#77. [in_progress] Tag a restore point\n</system-reminder>"
    ));
    // An empty list: the reminder alone.
    let empty =
        text(json!({"type":"todo_reminder","content":[],"itemCount":0})).unwrap_or_default();
    assert!(!empty.contains("Here are"));
}

#[test]
fn queued_commands_are_framed_by_where_they_came_from() {
    let note = "<task-notification>\n<task-id>bgkpah4ly</task-id>\n<status>completed</status>\n</task-notification>";
    assert_eq!(
        text(json!({"type":"queued_command","prompt":note,"commandMode":"task-notification"}))
            .as_deref(),
        Some(format!(
            "<system-reminder>\nA background agent completed a task:\n{note}\n</system-reminder>"
        ))
        .as_deref()
    );
    let typed = text(json!({"type":"queued_command","prompt":"and check the logs","commandMode":"prompt","origin":{"kind":"human"}}))
        .unwrap_or_default();
    assert!(typed.starts_with(
        "<system-reminder>\nThe user sent a new message while you were working:\nand check the logs\n\nIMPORTANT:"
    ));
    // Blocks: the texts joined, the images kept as images.
    let parts = attachment_parts(
        &json!({"type":"queued_command","commandMode":"prompt","prompt":[
            {"type":"text","text":"look at this"},
            {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBO"}}
        ]}),
        None,
    )
    .unwrap_or_default();
    assert_eq!(parts.len(), 2);
    assert_eq!(
        parts[1],
        ContentItem::InputImage {
            image_url: "data:image/png;base64,iVBO".to_string(),
            detail: None
        }
    );
}

#[test]
fn a_recorded_rendering_is_what_the_model_saw() {
    let attachment =
        json!({"type":"skill_listing","content":"- review: Review a change","skillCount":1});
    // Later builds record it: taken as it is, whatever the kind.
    let rendered = json!([{"content":"<system-reminder>\nThe following skills are available\n</system-reminder>"}]);
    assert_eq!(
        attachment_parts(&attachment, Some(&rendered)),
        Some(vec![ContentItem::input_text(
            "<system-reminder>\nThe following skills are available\n</system-reminder>"
        )])
    );
    // Content blocks in `rendered`.
    let blocks = json!([{"content":[{"type":"text","text":"<system-reminder>\nThe user sent a new message"}]}]);
    assert_eq!(
        attachment_parts(&json!({"type":"queued_command"}), Some(&blocks)),
        Some(vec![ContentItem::input_text(
            "<system-reminder>\nThe user sent a new message"
        )])
    );
    // Rendered to nothing: the model saw nothing.
    assert_eq!(attachment_parts(&attachment, Some(&json!([]))), None);
    // Without a rendering, a kind whose text is not known here is not read.
    assert_eq!(attachment_parts(&attachment, None), None);
    assert_eq!(
        attachment_parts(
            &json!({"type":"deferred_tools_delta","addedNames":["WebFetch"]}),
            None
        ),
        None
    );
}
