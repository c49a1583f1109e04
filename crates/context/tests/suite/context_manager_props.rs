//! The per-item token cache never drifts from a full re-estimation, whatever the edits, and the
//! prompt view always pairs calls with outputs.

use std::collections::HashMap;

use agentctx_context::ApproxTokenEstimator;
use agentctx_context::ContextManager;
use agentctx_context::InputModality;
use agentctx_context::TokenEstimator;
use agentctx_context::TruncationPolicy;
use agentctx_protocol::ContentItem;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::FunctionCallOutputContentItem;
use agentctx_protocol::FunctionCallOutputPayload;
use agentctx_protocol::ResponseItem;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Record(Vec<ResponseItem>),
    RemoveFirst,
    RemoveLast,
    DropTurns(u32),
    ReplaceImages,
    Replace(Vec<ResponseItem>),
}

fn response_item() -> impl Strategy<Value = ResponseItem> {
    let call_id = prop::sample::select(vec!["a", "b", "c", "d"]);
    let ghost_or_call = call_id.clone();
    prop_oneof![
        "[a-z ]{0,40}".prop_map(ResponseItem::user_text),
        "[a-z ]{0,40}".prop_map(ResponseItem::assistant_text),
        "[a-z ]{0,40}".prop_map(ResponseItem::developer_text),
        call_id
            .clone()
            .prop_map(|id| ResponseItem::function_call(id, "shell", "{}")),
        (ghost_or_call, "[a-z]{0,300}")
            .prop_map(|(id, text)| ResponseItem::function_call_output(id, text)),
        Just(ResponseItem::Message {
            id: None,
            role: "user".to_string(),
            content: vec![ContentItem::InputImage {
                image_url: "data:image/png;base64,AAAAAAAA".to_string(),
                detail: None,
            }],
            extra: ExtraFields::new(),
        }),
        Just(ResponseItem::GhostSnapshot {
            ghost_commit: serde_json::json!({"id": "deadbeef"}),
            extra: ExtraFields::new(),
        }),
        call_id.clone().prop_map(|id| ResponseItem::CustomToolCall {
            id: None,
            status: None,
            call_id: format!("custom-{id}"),
            name: "apply_patch".to_string(),
            input: "*** Begin Patch".to_string(),
            extra: ExtraFields::new(),
        }),
        call_id
            .clone()
            .prop_map(|id| ResponseItem::CustomToolCallOutput {
                call_id: format!("custom-{id}"),
                output: FunctionCallOutputPayload::text("done"),
                extra: ExtraFields::new(),
            }),
        call_id.clone().prop_map(|id| ResponseItem::LocalShellCall {
            id: None,
            call_id: Some(format!("shell-{id}")),
            status: Some("completed".to_string()),
            action: serde_json::json!({"type": "exec", "command": ["ls"]}),
            extra: ExtraFields::new(),
        }),
        call_id
            .clone()
            .prop_map(|id| ResponseItem::function_call_output(format!("shell-{id}"), "listing")),
        Just(ResponseItem::FunctionCallOutput {
            call_id: "a".to_string(),
            output: FunctionCallOutputPayload {
                body: FunctionCallOutputBody::ContentItems(vec![
                    FunctionCallOutputContentItem::InputImage {
                        image_url: "data:image/png;base64,BBBB".to_string(),
                        detail: None,
                    },
                ]),
                success: None,
            },
            extra: ExtraFields::new(),
        }),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => prop::collection::vec(response_item(), 0..6).prop_map(Op::Record),
        1 => Just(Op::RemoveFirst),
        1 => Just(Op::RemoveLast),
        1 => (0u32..3).prop_map(Op::DropTurns),
        1 => Just(Op::ReplaceImages),
        1 => prop::collection::vec(response_item(), 0..6).prop_map(Op::Replace),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn cached_estimates_match_a_full_recount(ops in prop::collection::vec(op(), 0..20)) {
        let mut manager = ContextManager::new();
        for op in ops {
            match op {
                Op::Record(items) => manager.record_items(items, TruncationPolicy::Bytes(50)),
                Op::RemoveFirst => {
                    manager.remove_first_item();
                }
                Op::RemoveLast => {
                    manager.remove_last_item();
                }
                Op::DropTurns(n) => manager.drop_last_n_user_turns(n),
                Op::ReplaceImages => {
                    manager.replace_last_turn_images("[image]");
                }
                Op::Replace(items) => manager.replace(items),
            }
            let items = manager.raw_items();
            prop_assert_eq!(manager.estimate_token_count(), ApproxTokenEstimator.estimate_items(items));
            let bytes: u64 = items.iter().map(|item| ApproxTokenEstimator.estimate_item_size(item).bytes).sum();
            prop_assert_eq!(
                manager.get_total_token_usage_breakdown().all_history_items_model_visible_bytes,
                bytes as i64
            );
            prop_assert_eq!(manager.item_sizes().len(), items.len());

            // The prompt view pairs every call with exactly one output and vice versa.
            let prompt = manager.for_prompt(&InputModality::TEXT_ONLY);
            let mut calls: HashMap<String, i32> = HashMap::new();
            let mut outputs: HashMap<String, i32> = HashMap::new();
            // Only ghost snapshots and outputs are removed; everything else reaches the model.
            let kept = |item: &&ResponseItem| {
                !item.is_tool_output() && !matches!(item, ResponseItem::GhostSnapshot { .. })
            };
            prop_assert_eq!(
                prompt.iter().filter(kept).count(),
                items.iter().filter(kept).count()
            );
            for (index, item) in prompt.iter().enumerate() {
                // A synthetic output sits right after its call.
                if item.is_tool_output()
                    && matches!(item, ResponseItem::FunctionCallOutput { extra, .. } | ResponseItem::CustomToolCallOutput { extra, .. } if extra.contains_key("id"))
                {
                    let previous = index.checked_sub(1).and_then(|i| prompt.get(i));
                    prop_assert_eq!(previous.and_then(ResponseItem::call_id), item.call_id());
                }
                match item {
                    ResponseItem::FunctionCall { call_id, .. }
                    | ResponseItem::CustomToolCall { call_id, .. }
                    | ResponseItem::LocalShellCall { call_id: Some(call_id), .. } => *calls.entry(call_id.clone()).or_default() += 1,
                    ResponseItem::FunctionCallOutput { call_id, .. }
                    | ResponseItem::CustomToolCallOutput { call_id, .. } => *outputs.entry(call_id.clone()).or_default() += 1,
                    ResponseItem::GhostSnapshot { .. } => prop_assert!(false, "ghost snapshot in prompt"),
                    _ => {}
                }
                prop_assert!(!has_images(item));
            }
            for call_id in calls.keys() {
                prop_assert!(outputs.contains_key(call_id), "call {} has no output", call_id);
            }
            for call_id in outputs.keys() {
                prop_assert!(calls.contains_key(call_id), "output {} has no call", call_id);
            }
        }
    }
}

fn has_images(item: &ResponseItem) -> bool {
    match item {
        ResponseItem::Message { content, .. } => content
            .iter()
            .any(|part| matches!(part, ContentItem::InputImage { .. })),
        ResponseItem::FunctionCallOutput { output, .. }
        | ResponseItem::CustomToolCallOutput { output, .. } => match &output.body {
            FunctionCallOutputBody::ContentItems(parts) => parts
                .iter()
                .any(|part| matches!(part, FunctionCallOutputContentItem::InputImage { .. })),
            FunctionCallOutputBody::Text(_) | FunctionCallOutputBody::Other(_) => false,
        },
        _ => false,
    }
}
