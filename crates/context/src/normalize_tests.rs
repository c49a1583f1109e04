use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn local_shell_call(call_id: &str) -> ResponseItem {
    ResponseItem::LocalShellCall {
        id: None,
        call_id: Some(call_id.to_string()),
        status: Some("completed".to_string()),
        action: json!({"type": "exec", "command": ["ls"]}),
        extra: ExtraFields::new(),
    }
}

fn custom_call(call_id: &str) -> ResponseItem {
    ResponseItem::CustomToolCall {
        id: None,
        status: None,
        call_id: call_id.to_string(),
        name: "apply_patch".to_string(),
        input: "*** Begin Patch".to_string(),
        extra: ExtraFields::new(),
    }
}

#[test]
fn missing_outputs_are_inserted_right_after_their_calls() {
    let mut items = vec![
        ResponseItem::user_text("go"),
        ResponseItem::function_call("f1", "shell", "{}"),
        custom_call("c1"),
        local_shell_call("l1"),
        ResponseItem::function_call("f2", "shell", "{}"),
        ResponseItem::function_call_output("f2", "done"),
    ];
    ensure_call_outputs_present(&mut items);
    assert_eq!(
        items,
        vec![
            ResponseItem::user_text("go"),
            ResponseItem::function_call("f1", "shell", "{}"),
            aborted_function_output("f1"),
            custom_call("c1"),
            aborted_custom_output("c1"),
            local_shell_call("l1"),
            aborted_function_output("l1"),
            ResponseItem::function_call("f2", "shell", "{}"),
            ResponseItem::function_call_output("f2", "done"),
        ]
    );
}

#[test]
fn synthetic_ids_are_stable_and_distinct() {
    let first = synthetic_output_id("fco", "call-1");
    assert_eq!(first, synthetic_output_id("fco", "call-1"));
    assert_ne!(first, synthetic_output_id("fco", "call-2"));
    assert_ne!(first, synthetic_output_id("ctco", "call-1"));
    assert!(first.starts_with("fco_"));
    let ResponseItem::FunctionCallOutput { extra, output, .. } = aborted_function_output("call-1")
    else {
        panic!("a function output");
    };
    assert_eq!(extra.get("id"), Some(&Value::String(first)));
    assert_eq!(output.text_content(), ABORTED_OUTPUT_TEXT);
}

#[test]
fn orphan_outputs_are_removed() {
    let mut items = vec![
        ResponseItem::function_call_output("gone", "x"),
        local_shell_call("l1"),
        ResponseItem::function_call_output("l1", "ok"),
        ResponseItem::CustomToolCallOutput {
            call_id: "nope".to_string(),
            output: FunctionCallOutputPayload::text("x"),
            extra: ExtraFields::new(),
        },
        // A function output does not pair with a custom call.
        custom_call("c1"),
        ResponseItem::function_call_output("c1", "wrong kind"),
    ];
    remove_orphan_outputs(&mut items);
    assert_eq!(
        items,
        vec![
            local_shell_call("l1"),
            ResponseItem::function_call_output("l1", "ok"),
            custom_call("c1"),
        ]
    );
}

#[test]
fn corresponding_partner_is_found_both_ways() {
    let call = ResponseItem::function_call("f1", "shell", "{}");
    let output = ResponseItem::function_call_output("f1", "ok");
    let user = ResponseItem::user_text("x");
    assert_eq!(
        find_corresponding(&[user.clone(), output.clone()], &call),
        Some(1)
    );
    assert_eq!(find_corresponding(&[call, user.clone()], &output), Some(0));
    assert_eq!(
        find_corresponding(&[local_shell_call("f1")], &output),
        Some(0)
    );
    assert_eq!(find_corresponding(std::slice::from_ref(&user), &user), None);
}

#[test]
fn images_are_replaced_only_without_image_input() {
    let message = ResponseItem::Message {
        id: None,
        role: "user".to_string(),
        content: vec![
            ContentItem::input_text("see"),
            ContentItem::InputImage {
                image_url: "data:image/png;base64,AAAA".to_string(),
                detail: None,
            },
        ],
        extra: ExtraFields::new(),
    };
    let output = ResponseItem::FunctionCallOutput {
        call_id: "f".to_string(),
        output: FunctionCallOutputPayload {
            body: FunctionCallOutputBody::ContentItems(vec![
                FunctionCallOutputContentItem::InputImage {
                    image_url: "data:image/png;base64,AAAA".to_string(),
                    detail: Some("high".to_string()),
                },
            ]),
            success: None,
        },
        extra: ExtraFields::new(),
    };
    let mut items = vec![message.clone(), output.clone()];
    assert!(!strip_images_when_unsupported(
        &InputModality::TEXT_AND_IMAGE,
        &mut items
    ));
    assert_eq!(items, vec![message, output]);
    assert!(has_images(&items[0]) && has_images(&items[1]));

    assert!(strip_images_when_unsupported(
        &InputModality::TEXT_ONLY,
        &mut items
    ));
    assert!(!has_images(&items[0]) && !has_images(&items[1]));
    assert_eq!(
        items[0].message_text().as_deref(),
        Some("see\nimage content omitted because you do not support image input")
    );
    let ResponseItem::FunctionCallOutput { output, .. } = &items[1] else {
        panic!("still an output");
    };
    assert_eq!(output.text_content(), IMAGE_OMITTED_PLACEHOLDER);
}

#[test]
fn normalize_applies_everything() {
    let mut items = vec![
        ResponseItem::function_call_output("orphan", "x"),
        ResponseItem::function_call("f1", "shell", "{}"),
        ResponseItem::user_text("next"),
    ];
    normalize_history(&mut items, &InputModality::TEXT_ONLY);
    assert_eq!(
        items,
        vec![
            ResponseItem::function_call("f1", "shell", "{}"),
            aborted_function_output("f1"),
            ResponseItem::user_text("next"),
        ]
    );
}

fn image_message() -> ResponseItem {
    ResponseItem::Message {
        id: None,
        role: "user".to_string(),
        content: vec![
            ContentItem::input_text("see"),
            ContentItem::InputImage {
                image_url: "data:image/png;base64,AAAA".to_string(),
                detail: None,
            },
        ],
        extra: ExtraFields::new(),
    }
}

/// Every case normalisation handles: calls of each kind with and without outputs, orphan
/// outputs of each kind, a duplicate output, images, ghost snapshots.
fn mixed_history() -> Vec<ResponseItem> {
    vec![
        ResponseItem::GhostSnapshot {
            ghost_commit: json!({"id": "g0"}),
            extra: ExtraFields::new(),
        },
        ResponseItem::function_call_output("orphan", "x"),
        image_message(),
        ResponseItem::function_call("f1", "shell", "{}"),
        custom_call("c1"),
        local_shell_call("l1"),
        ResponseItem::function_call_output("l1", "listed"),
        ResponseItem::function_call("f2", "shell", "{}"),
        ResponseItem::function_call_output("f2", "done"),
        ResponseItem::function_call_output("f2", "done twice"),
        ResponseItem::CustomToolCallOutput {
            call_id: "c-orphan".to_string(),
            output: FunctionCallOutputPayload::text("y"),
            extra: ExtraFields::new(),
        },
        custom_call("c2"),
        ResponseItem::GhostSnapshot {
            ghost_commit: json!({"id": "g1"}),
            extra: ExtraFields::new(),
        },
        ResponseItem::CustomToolCallOutput {
            call_id: "c2".to_string(),
            output: FunctionCallOutputPayload::text("patched"),
            extra: ExtraFields::new(),
        },
        ResponseItem::function_call("f3", "shell", "{}"),
    ]
}

#[test]
fn prompt_view_equals_normalising_a_copy() {
    let items = mixed_history();
    for modalities in [
        &InputModality::TEXT_ONLY[..],
        &InputModality::TEXT_AND_IMAGE[..],
    ] {
        let mut expected = items.clone();
        normalize_history(&mut expected, modalities);
        expected.retain(|item| !matches!(item, ResponseItem::GhostSnapshot { .. }));

        let view = prompt_view(&items, modalities);
        let owned: Vec<ResponseItem> = view.iter().map(|item| item.as_ref().clone()).collect();
        assert_eq!(owned, expected);
        // The request body written from the view is the one written from the copy.
        assert_eq!(
            serde_json::to_string(&view).unwrap(),
            serde_json::to_string(&expected).unwrap()
        );
    }
}

#[test]
fn prompt_view_copies_only_what_normalisation_adds_or_changes() {
    let items = mixed_history();
    let owned = |view: &[Cow<'_, ResponseItem>]| -> Vec<ResponseItem> {
        view.iter()
            .filter(|item| matches!(item, Cow::Owned(_)))
            .map(|item| item.as_ref().clone())
            .collect()
    };
    let with_images = prompt_view(&items, &InputModality::TEXT_AND_IMAGE);
    assert_eq!(
        owned(&with_images),
        vec![
            aborted_function_output("f1"),
            aborted_custom_output("c1"),
            aborted_function_output("f3"),
        ]
    );
    let text_only = prompt_view(&items, &InputModality::TEXT_ONLY);
    let mut stripped = image_message();
    replace_images(&mut stripped, IMAGE_OMITTED_PLACEHOLDER);
    assert_eq!(
        owned(&text_only),
        vec![
            stripped,
            aborted_function_output("f1"),
            aborted_custom_output("c1"),
            aborted_function_output("f3"),
        ]
    );
}
