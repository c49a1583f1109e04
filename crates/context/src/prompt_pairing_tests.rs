use std::borrow::Cow;

use agentctx_protocol::ContentItem;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::FunctionCallOutputContentItem;
use agentctx_protocol::FunctionCallOutputPayload;
use agentctx_protocol::ResponseItem;
use pretty_assertions::assert_eq;
use proptest::prelude::*;

use crate::ContextManager;
use crate::InputModality;
use crate::TruncationPolicy;
use crate::normalize::prompt_view;

/// The items a history is built from; call ids come from a small pool so calls, outputs and
/// their removal collide often.
fn item(kind: u8, id: u8) -> ResponseItem {
    let call_id = format!("call_{id}");
    let image = |url: &str| ContentItem::InputImage {
        image_url: url.to_string(),
        detail: None,
    };
    match kind % 10 {
        0 => ResponseItem::function_call(&call_id, "shell", "{}"),
        1 => ResponseItem::function_call_output(&call_id, "ok"),
        2 => ResponseItem::CustomToolCall {
            id: None,
            status: None,
            call_id,
            name: "apply_patch".to_string(),
            input: "*** Begin Patch".to_string(),
            extra: ExtraFields::new(),
        },
        3 => ResponseItem::CustomToolCallOutput {
            call_id,
            output: FunctionCallOutputPayload::text("done"),
            extra: ExtraFields::new(),
        },
        4 => ResponseItem::LocalShellCall {
            id: None,
            call_id: Some(call_id),
            status: None,
            action: serde_json::json!({"type": "exec", "command": ["ls"]}),
            extra: ExtraFields::new(),
        },
        5 => ResponseItem::GhostSnapshot {
            ghost_commit: serde_json::json!({"id": call_id}),
            extra: ExtraFields::new(),
        },
        6 => ResponseItem::Message {
            id: None,
            role: "user".to_string(),
            content: vec![
                ContentItem::input_text("look"),
                image("data:image/png;base64,AA"),
            ],
            extra: ExtraFields::new(),
        },
        7 => ResponseItem::FunctionCallOutput {
            call_id,
            output: FunctionCallOutputPayload {
                body: FunctionCallOutputBody::ContentItems(vec![
                    FunctionCallOutputContentItem::InputImage {
                        image_url: "data:image/png;base64,BB".to_string(),
                        detail: None,
                    },
                ]),
                success: Some(true),
            },
            extra: ExtraFields::new(),
        },
        8 => ResponseItem::user_text(format!("turn {id}")),
        _ => ResponseItem::assistant_text(format!("answer {id}")),
    }
}

#[derive(Debug, Clone)]
enum Op {
    Record(Vec<(u8, u8)>),
    RemoveFirst,
    RemoveLast,
    DropTurns(u32),
    Replace(Vec<(u8, u8)>),
    ReplaceLastTurnImages,
}

fn items(spec: &[(u8, u8)]) -> Vec<ResponseItem> {
    spec.iter().map(|(kind, id)| item(*kind, *id)).collect()
}

fn op() -> impl Strategy<Value = Op> {
    let spec = prop::collection::vec((0u8..10, 0u8..6), 0..8);
    prop_oneof![
        4 => spec.clone().prop_map(Op::Record),
        1 => Just(Op::RemoveFirst),
        1 => Just(Op::RemoveLast),
        1 => (0u32..3).prop_map(Op::DropTurns),
        1 => spec.prop_map(Op::Replace),
        1 => Just(Op::ReplaceLastTurnImages),
    ]
}

fn apply(history: &mut ContextManager, op: &Op) {
    match op {
        Op::Record(spec) => history.record_items(items(spec), TruncationPolicy::Bytes(10_000)),
        Op::RemoveFirst => {
            history.remove_first_item();
        }
        Op::RemoveLast => {
            history.remove_last_item();
        }
        Op::DropTurns(turns) => history.drop_last_n_user_turns(*turns),
        Op::Replace(spec) => history.replace(items(spec)),
        Op::ReplaceLastTurnImages => {
            history.replace_last_turn_images("image removed");
        }
    }
}

/// The view normalisation builds by looking at every item.
fn normalised(history: &ContextManager, modalities: &[InputModality]) -> Vec<ResponseItem> {
    prompt_view(history.raw_items(), modalities)
        .into_iter()
        .map(Cow::into_owned)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Whatever happened to the history, the counted shortcut gives the prompt normalisation
    /// gives.
    #[test]
    fn the_counted_prompt_is_the_normalised_prompt(ops in prop::collection::vec(op(), 1..24)) {
        let mut history = ContextManager::new();
        for op in &ops {
            apply(&mut history, op);
            for modalities in [&InputModality::TEXT_AND_IMAGE[..], &InputModality::TEXT_ONLY[..]] {
                let view: Vec<ResponseItem> = history
                    .prompt_view(modalities)
                    .into_iter()
                    .map(Cow::into_owned)
                    .collect();
                prop_assert_eq!(view, normalised(&history, modalities));
            }
        }
    }
}

#[test]
fn a_healthy_history_is_borrowed_whole_and_a_pending_call_is_not() {
    let mut history = ContextManager::new();
    history.record_items(
        [
            ResponseItem::user_text("go"),
            ResponseItem::function_call("c1", "shell", "{}"),
            ResponseItem::function_call_output("c1", "ok"),
        ],
        TruncationPolicy::Bytes(10_000),
    );
    let view = history.prompt_view(&InputModality::TEXT_ONLY);
    assert!(view.iter().all(|item| matches!(item, Cow::Borrowed(_))));
    assert_eq!(view.len(), 3);

    history.record_items(
        [ResponseItem::function_call("c2", "shell", "{}")],
        TruncationPolicy::Bytes(10_000),
    );
    let view = history.prompt_view(&InputModality::TEXT_ONLY);
    assert_eq!(view.len(), 5, "an aborted output follows the pending call");
    assert!(matches!(view.last(), Some(Cow::Owned(_))));

    history.record_items(
        [ResponseItem::function_call_output("c2", "ok")],
        TruncationPolicy::Bytes(10_000),
    );
    let view = history.prompt_view(&InputModality::TEXT_ONLY);
    assert_eq!(view.len(), 5);
    assert!(view.iter().all(|item| matches!(item, Cow::Borrowed(_))));
}
