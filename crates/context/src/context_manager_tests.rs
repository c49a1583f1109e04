use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;

use agentctx_protocol::ContentItem;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::FunctionCallOutputContentItem;
use agentctx_protocol::FunctionCallOutputPayload;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::normalize::ABORTED_OUTPUT_TEXT;
use crate::token_estimator::estimate_item_model_visible_bytes;

/// Counts calls, delegating to the heuristic.
#[derive(Debug, Default)]
struct CountingEstimator {
    item_calls: AtomicU64,
}

impl TokenEstimator for CountingEstimator {
    fn estimate_text(&self, text: &str) -> u64 {
        ApproxTokenEstimator.estimate_text(text)
    }

    fn estimate_item(&self, item: &ResponseItem) -> u64 {
        self.item_calls.fetch_add(1, Ordering::SeqCst);
        ApproxTokenEstimator.estimate_item(item)
    }
}

const POLICY: TruncationPolicy = TruncationPolicy::Tokens(10_000);

fn ghost() -> ResponseItem {
    ResponseItem::GhostSnapshot {
        ghost_commit: json!({"id": "abc"}),
        extra: ExtraFields::new(),
    }
}

fn reasoning(blob_len: usize) -> ResponseItem {
    ResponseItem::Reasoning {
        id: None,
        summary: Vec::new(),
        content: None,
        encrypted_content: Some("e".repeat(blob_len)),
        extra: ExtraFields::new(),
    }
}

fn env_context() -> ResponseItem {
    ResponseItem::user_text("<environment_context>\n  <cwd>/r</cwd>\n</environment_context>")
}

fn manager(items: Vec<ResponseItem>) -> ContextManager {
    let mut manager = ContextManager::new();
    manager.record_items(items, POLICY);
    manager
}

#[test]
fn unchanged_history_is_not_re_estimated() {
    let estimator = Arc::new(CountingEstimator::default());
    let mut manager = ContextManager::with_estimator(estimator.clone());
    let items: Vec<ResponseItem> = (0..100)
        .map(|index| ResponseItem::user_text(format!("message {index}")))
        .collect();
    manager.record_items(items.clone(), POLICY);
    assert_eq!(estimator.item_calls.load(Ordering::SeqCst), 100);

    let first = manager.estimate_token_count();
    let again = manager.estimate_token_count();
    let _ = manager.get_total_token_usage(false);
    let _ = manager.get_total_token_usage_breakdown();
    let _ = manager.for_prompt(&InputModality::TEXT_AND_IMAGE);
    assert_eq!(first, again);
    assert_eq!(first, ApproxTokenEstimator.estimate_items(&items));
    assert_eq!(estimator.item_calls.load(Ordering::SeqCst), 100);

    // One more item costs one estimation.
    manager.record_items([ResponseItem::assistant_text("done")], POLICY);
    assert_eq!(estimator.item_calls.load(Ordering::SeqCst), 101);
    assert_eq!(
        manager.estimate_token_count(),
        first + ApproxTokenEstimator.estimate_item(&ResponseItem::assistant_text("done"))
    );

    // Removing items re-estimates nothing and keeps the total exact.
    assert!(manager.remove_last_item());
    assert!(manager.remove_first_item());
    assert_eq!(estimator.item_calls.load(Ordering::SeqCst), 101);
    assert_eq!(
        manager.estimate_token_count(),
        ApproxTokenEstimator.estimate_items(manager.raw_items())
    );
}

#[test]
fn record_keeps_api_items_and_truncates_tool_outputs() {
    let mut manager = ContextManager::new();
    manager.record_items(
        [
            ResponseItem::text_message("system", "ignored"),
            ResponseItem::Other(json!({"type": "future_item"})),
            ResponseItem::user_text("hi"),
            ResponseItem::function_call("c1", "shell", "{}"),
            ResponseItem::function_call_output("c1", "o".repeat(100)),
            ghost(),
        ],
        TruncationPolicy::Bytes(10),
    );
    let kinds: Vec<&str> = manager
        .raw_items()
        .iter()
        .map(ResponseItem::type_name)
        .collect();
    assert_eq!(
        kinds,
        vec![
            "message",
            "function_call",
            "function_call_output",
            "ghost_snapshot"
        ]
    );
    let ResponseItem::FunctionCallOutput { output, .. } = &manager.raw_items()[2] else {
        panic!("an output");
    };
    // Bytes(10) * 1.2 = 12 bytes kept.
    assert_eq!(
        output.text_content(),
        format!("{}…88 chars truncated…{}", "o".repeat(6), "o".repeat(6))
    );
}

#[test]
fn for_prompt_normalises_and_strips_ghosts() {
    let manager = manager(vec![
        ResponseItem::user_text("hi"),
        ghost(),
        ResponseItem::function_call("c1", "shell", "{}"),
        ResponseItem::function_call_output("orphan", "x"),
        ResponseItem::Message {
            id: None,
            role: "user".to_string(),
            content: vec![ContentItem::InputImage {
                image_url: "data:image/png;base64,AAAA".to_string(),
                detail: None,
            }],
            extra: ExtraFields::new(),
        },
    ]);
    let prompt = manager.for_prompt(&InputModality::TEXT_ONLY);
    let kinds: Vec<&str> = prompt.iter().map(ResponseItem::type_name).collect();
    assert_eq!(
        kinds,
        vec![
            "message",
            "function_call",
            "function_call_output",
            "message"
        ]
    );
    let ResponseItem::FunctionCallOutput {
        output, call_id, ..
    } = &prompt[2]
    else {
        panic!("an output");
    };
    assert_eq!(call_id, "c1");
    assert_eq!(output.text_content(), ABORTED_OUTPUT_TEXT);
    assert_eq!(
        prompt[3].message_text().as_deref(),
        Some(crate::normalize::IMAGE_OMITTED_PLACEHOLDER)
    );
    // The recorded history is untouched.
    assert_eq!(manager.len(), 5);
}

#[test]
fn removing_a_call_removes_its_output() {
    let mut manager = manager(vec![
        ResponseItem::function_call("c1", "shell", "{}"),
        ResponseItem::user_text("between"),
        ResponseItem::function_call_output("c1", "ok"),
    ]);
    assert!(manager.remove_first_item());
    assert_eq!(manager.raw_items(), &[ResponseItem::user_text("between")]);

    let mut manager = manager_with_output_last();
    assert!(manager.remove_last_item());
    assert_eq!(manager.raw_items(), &[ResponseItem::user_text("first")]);

    let mut empty = ContextManager::new();
    assert!(!empty.remove_last_item());
    assert!(!empty.remove_first_item());
}

fn manager_with_output_last() -> ContextManager {
    manager(vec![
        ResponseItem::user_text("first"),
        ResponseItem::function_call("c1", "shell", "{}"),
        ResponseItem::function_call_output("c1", "ok"),
    ])
}

#[test]
fn drop_last_n_user_turns_cuts_at_turn_boundaries() {
    let developer =
        ResponseItem::developer_text("<permissions instructions>x</permissions instructions>");
    let history = vec![
        developer,
        env_context(),
        ResponseItem::user_text("turn 1"),
        ResponseItem::assistant_text("answer 1"),
        ResponseItem::developer_text("<model_switch>\nm\n</model_switch>"),
        env_context(),
        ResponseItem::user_text("turn 2"),
        ResponseItem::assistant_text("answer 2"),
        ResponseItem::user_text("<system-reminder>\nr\n</system-reminder>"),
        ResponseItem::user_text("turn 3"),
        ResponseItem::assistant_text("answer 3"),
    ];
    let mut manager = manager(history.clone());
    manager.set_reference_context_item(Some(TurnContextItem::default()));

    manager.drop_last_n_user_turns(1);
    assert_eq!(manager.raw_items(), &history[..8]);
    // Only a reminder was trimmed: the baseline stands.
    assert_eq!(
        manager.reference_context_item(),
        Some(&TurnContextItem::default())
    );

    manager.drop_last_n_user_turns(1);
    assert_eq!(manager.raw_items(), &history[..4]);

    // More turns than exist: everything before the first user turn survives, its context
    // included (the session prefix is never rolled back).
    let mut manager = self::manager(history.clone());
    manager.drop_last_n_user_turns(10);
    assert_eq!(manager.raw_items(), &history[..2]);
    assert_eq!(
        manager.estimate_token_count(),
        ApproxTokenEstimator.estimate_items(&history[..2])
    );

    let mut unchanged = self::manager(history.clone());
    unchanged.drop_last_n_user_turns(0);
    assert_eq!(unchanged.raw_items(), history.as_slice());
}

fn image_output(call_id: &str, payload: &str) -> ResponseItem {
    ResponseItem::FunctionCallOutput {
        call_id: call_id.to_string(),
        output: FunctionCallOutputPayload {
            body: FunctionCallOutputBody::ContentItems(vec![
                FunctionCallOutputContentItem::InputImage {
                    image_url: format!("data:image/png;base64,{payload}"),
                    detail: None,
                },
            ]),
            success: None,
        },
        extra: ExtraFields::new(),
    }
}

fn user_image(payload: &str) -> ResponseItem {
    ResponseItem::Message {
        id: None,
        role: "user".to_string(),
        content: vec![ContentItem::InputImage {
            image_url: format!("data:image/png;base64,{payload}"),
            detail: None,
        }],
        extra: ExtraFields::new(),
    }
}

#[test]
fn drop_last_n_user_turns_never_cuts_into_the_session_prefix() {
    // Only the session prefix precedes the first turn: rolling every turn back keeps all of
    // it, whatever its kind.
    let history = vec![
        ResponseItem::developer_text("<permissions instructions>x</permissions instructions>"),
        ResponseItem::assistant_text("session prefix item"),
        env_context(),
        ResponseItem::user_text("turn 1"),
        ResponseItem::assistant_text("answer 1"),
    ];
    let mut manager = manager(history.clone());
    manager.drop_last_n_user_turns(1);
    assert_eq!(manager.raw_items(), &history[..3]);
}

#[test]
fn drop_last_n_user_turns_trims_only_contextual_developer_messages_above_the_cut() {
    let history = vec![
        ResponseItem::user_text("turn 1"),
        ResponseItem::assistant_text("answer 1"),
        ResponseItem::developer_text("Generated images are saved to /tmp by default."),
        ResponseItem::developer_text("<collaboration_mode>plan</collaboration_mode>"),
        env_context(),
        ResponseItem::user_text("turn 2"),
        ResponseItem::assistant_text("answer 2"),
    ];
    let mut manager = manager(history.clone());
    let reference = TurnContextItem {
        model: Some("gpt-5".to_string()),
        ..TurnContextItem::default()
    };
    manager.set_reference_context_item(Some(reference.clone()));
    manager.drop_last_n_user_turns(1);
    assert_eq!(manager.raw_items(), &history[..3]);
    // Only diff fragments were trimmed: the baseline still describes the surviving history.
    assert_eq!(manager.reference_context_item(), Some(&reference));
}

#[test]
fn drop_last_n_user_turns_clears_the_reference_after_trimming_a_mixed_developer_bundle() {
    let mixed = ResponseItem::Message {
        id: None,
        role: "developer".to_string(),
        content: vec![
            ContentItem::input_text("<permissions instructions>p</permissions instructions>"),
            ContentItem::input_text("persistent developer instructions"),
        ],
        extra: ExtraFields::new(),
    };
    let history = vec![
        ResponseItem::user_text("turn 1"),
        ResponseItem::assistant_text("answer 1"),
        mixed,
        env_context(),
        ResponseItem::user_text("turn 2"),
        ResponseItem::assistant_text("answer 2"),
    ];
    let mut manager = manager(history.clone());
    manager.set_reference_context_item(Some(TurnContextItem::default()));
    manager.drop_last_n_user_turns(1);
    assert_eq!(manager.raw_items(), &history[..2]);
    assert_eq!(manager.reference_context_item(), None);
}

#[test]
fn replace_last_turn_images_replaces_the_newest_tool_output_and_re_estimates_it() {
    let valid = image_output("c1", &"A".repeat(4000));
    let mut manager = manager(vec![
        ResponseItem::user_text("look"),
        ResponseItem::function_call("c1", "view_image", "{}"),
        valid.clone(),
        ResponseItem::user_text("next turn"),
        ResponseItem::function_call("c2", "view_image", "{}"),
        image_output("c2", &"B".repeat(4000)),
    ]);
    assert!(manager.replace_last_turn_images("[image removed]"));
    // The output that just failed lost its image; the earlier, valid one is untouched.
    let ResponseItem::FunctionCallOutput { output, .. } = &manager.raw_items()[5] else {
        panic!("an output");
    };
    assert_eq!(output.text_content(), "[image removed]");
    assert_eq!(manager.raw_items()[2], valid);
    assert_eq!(
        manager.estimate_token_count(),
        ApproxTokenEstimator.estimate_items(manager.raw_items())
    );
    assert!(!manager.replace_last_turn_images("[image removed]"));
}

#[test]
fn replace_last_turn_images_leaves_user_images_and_earlier_outputs_alone() {
    // The newest candidate is the user's message: the bad image is the user's, which the
    // harness does not rewrite, and no earlier tool output is touched either.
    let history = vec![
        ResponseItem::user_text("look"),
        ResponseItem::function_call("c1", "view_image", "{}"),
        image_output("c1", &"A".repeat(4000)),
        user_image(&"B".repeat(4000)),
    ];
    let mut manager = manager(history.clone());
    let version = manager.history_version();
    assert!(!manager.replace_last_turn_images("[image removed]"));
    assert_eq!(manager.raw_items(), history.as_slice());
    assert_eq!(manager.history_version(), version);
}

#[test]
fn token_usage_is_last_total_plus_items_since_the_last_model_output() {
    let mut manager = manager(vec![
        ResponseItem::user_text("first"),
        reasoning(4000),
        ResponseItem::assistant_text("answer"),
    ]);
    // No usage reported yet: the whole history is estimated.
    assert_eq!(
        manager.get_total_token_usage(true),
        manager.estimate_token_count() as i64
    );
    manager.update_token_info(
        &TokenUsage {
            input_tokens: 900,
            output_tokens: 100,
            total_tokens: 1000,
            ..TokenUsage::default()
        },
        Some(200_000),
    );
    let added = vec![
        ResponseItem::user_text("second"),
        ResponseItem::developer_text("note"),
    ];
    manager.record_items(added.clone(), POLICY);
    let added_tokens = ApproxTokenEstimator.estimate_items(&added) as i64;
    let added_bytes = added
        .iter()
        .map(estimate_item_model_visible_bytes)
        .sum::<u64>() as i64;
    assert_eq!(manager.get_total_token_usage(true), 1000 + added_tokens);
    // Without server-side reasoning accounting, the encrypted reasoning before the last user
    // turn is added: 4000 * 3 / 4 - 650 = 2350 bytes = 588 tokens.
    assert_eq!(
        manager.get_total_token_usage(false),
        1000 + added_tokens + 588
    );
    assert_eq!(
        manager.get_total_token_usage_breakdown(),
        TotalTokenUsageBreakdown {
            last_api_response_total_tokens: 1000,
            all_history_items_model_visible_bytes: manager
                .raw_items()
                .iter()
                .map(estimate_item_model_visible_bytes)
                .sum::<u64>() as i64,
            estimated_tokens_of_items_added_since_last_successful_api_response: added_tokens,
            estimated_bytes_of_items_added_since_last_successful_api_response: added_bytes,
        }
    );
}

#[test]
fn update_token_info_accumulates_totals() {
    let mut manager = ContextManager::new();
    let usage = TokenUsage {
        input_tokens: 10,
        cached_input_tokens: 2,
        output_tokens: 5,
        reasoning_output_tokens: 1,
        total_tokens: 15,
    };
    manager.update_token_info(&usage, Some(1000));
    manager.update_token_info(&usage, None);
    let info = manager.token_info().cloned().unwrap_or_default();
    assert_eq!(info.last_token_usage, usage);
    assert_eq!(info.total_token_usage.total_tokens, 30);
    assert_eq!(info.total_token_usage.cached_input_tokens, 4);
    assert_eq!(info.model_context_window, Some(1000));
}

#[test]
fn set_token_usage_full_fills_the_window() {
    let mut manager = manager(vec![ResponseItem::assistant_text("x")]);
    manager.set_token_usage_full(128_000);
    assert_eq!(manager.get_total_token_usage(true), 128_000);
    assert_eq!(
        manager
            .token_info()
            .and_then(|info| info.model_context_window),
        Some(128_000)
    );
}

#[test]
fn base_instructions_are_added_to_the_estimate() {
    let manager = manager(vec![ResponseItem::user_text("hi")]);
    assert_eq!(
        manager.estimate_token_count_with_base_instructions("12345678"),
        manager.estimate_token_count() + 2
    );
}

#[test]
fn settings_update_needs_a_reference() {
    let mut manager = ContextManager::new();
    let settings = TurnSettings {
        model: "gpt-5".to_string(),
        cwd: Some("/a".to_string()),
        ..TurnSettings::default()
    };
    assert_eq!(manager.settings_update_items(None, &settings), None);
    manager.set_reference_context_item(Some(settings.to_turn_context_item(None)));
    assert_eq!(
        manager.settings_update_items(None, &settings),
        Some(Vec::new())
    );
    let moved = TurnSettings {
        cwd: Some("/b".to_string()),
        ..settings
    };
    let items = manager
        .settings_update_items(None, &moved)
        .unwrap_or_default();
    assert_eq!(
        items,
        vec![ResponseItem::user_text(
            "<environment_context>\n  <cwd>/b</cwd>\n</environment_context>"
        )]
    );
}

#[test]
fn replace_bumps_the_version_and_re_measures() {
    let mut manager = manager(vec![ResponseItem::user_text("old")]);
    let version = manager.history_version();
    let items = vec![
        ResponseItem::user_text("new"),
        ResponseItem::assistant_text("x"),
    ];
    manager.replace(items.clone());
    assert_eq!(manager.history_version(), version + 1);
    assert_eq!(manager.raw_items(), items.as_slice());
    assert_eq!(
        manager.estimate_token_count(),
        ApproxTokenEstimator.estimate_items(&items)
    );
}

#[test]
fn replacing_tool_output_texts_edits_in_place_and_re_measures_only_them() {
    let estimator = Arc::new(CountingEstimator::default());
    let mut manager = ContextManager::with_estimator(estimator.clone());
    let failed = ResponseItem::FunctionCallOutput {
        call_id: "c2".to_string(),
        output: FunctionCallOutputPayload {
            success: Some(false),
            ..FunctionCallOutputPayload::text("x".repeat(4_000))
        },
        extra: ExtraFields::new(),
    };
    manager.record_items(
        vec![
            ResponseItem::user_text("look"),
            ResponseItem::function_call("c1", "shell", "{}"),
            ResponseItem::function_call_output("c1", "y".repeat(8_000)),
            ResponseItem::function_call("c2", "shell", "{}"),
            failed,
        ],
        POLICY,
    );
    let version = manager.history_version();
    let measured = estimator.item_calls.load(Ordering::SeqCst);

    let replaced = manager.replace_tool_output_texts([
        (2, "[cleared]".to_string()),
        (4, "[cleared too]".to_string()),
        // Not a tool output, and past the end: left alone.
        (0, "not me".to_string()),
        (99, "nobody".to_string()),
    ]);

    assert_eq!(replaced, 2);
    assert_eq!(manager.history_version(), version + 1, "bumped once");
    assert_eq!(
        estimator.item_calls.load(Ordering::SeqCst) - measured,
        2,
        "only the replaced items are measured again"
    );
    let expected = vec![
        ResponseItem::user_text("look"),
        ResponseItem::function_call("c1", "shell", "{}"),
        ResponseItem::function_call_output("c1", "[cleared]"),
        ResponseItem::function_call("c2", "shell", "{}"),
        ResponseItem::FunctionCallOutput {
            call_id: "c2".to_string(),
            output: FunctionCallOutputPayload {
                success: Some(false),
                ..FunctionCallOutputPayload::text("[cleared too]")
            },
            extra: ExtraFields::new(),
        },
    ];
    assert_eq!(manager.raw_items(), expected.as_slice());
    // Sizes and totals as a history built from the replaced items has them.
    let fresh = self::manager(expected);
    assert_eq!(manager.item_sizes(), fresh.item_sizes());
    assert_eq!(manager.estimate_token_count(), fresh.estimate_token_count());
    assert_eq!(
        manager.get_total_token_usage_breakdown(),
        fresh.get_total_token_usage_breakdown()
    );
    assert_eq!(
        manager.for_prompt(&InputModality::TEXT_AND_IMAGE),
        fresh.for_prompt(&InputModality::TEXT_AND_IMAGE)
    );

    assert_eq!(
        manager.replace_tool_output_texts([(0, "no".to_string())]),
        0
    );
    assert_eq!(
        manager.history_version(),
        version + 1,
        "nothing replaced, no new version"
    );
}

#[test]
fn replacing_an_image_output_text_drops_its_image() {
    let mut manager = manager(vec![
        ResponseItem::function_call("c1", "view_image", "{}"),
        image_output("c1", "AAAA"),
    ]);
    assert_eq!(
        manager.replace_tool_output_texts([(1, "[cleared]".to_string())]),
        1
    );
    let fresh = self::manager(vec![
        ResponseItem::function_call("c1", "view_image", "{}"),
        ResponseItem::function_call_output("c1", "[cleared]"),
    ]);
    // The prompt of a model without image input has nothing left to replace.
    assert_eq!(
        manager.for_prompt(&[InputModality::Text]),
        fresh.for_prompt(&[InputModality::Text])
    );
    assert_eq!(manager.item_sizes(), fresh.item_sizes());
}

/// Renders items as `NN:type/role:text` lines.
fn render(items: &[ResponseItem]) -> String {
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            let text = match item {
                ResponseItem::Message { .. } => item.message_text().unwrap_or_default(),
                ResponseItem::FunctionCall {
                    name, arguments, ..
                } => format!("{name}({arguments})"),
                ResponseItem::FunctionCallOutput { output, .. }
                | ResponseItem::CustomToolCallOutput { output, .. } => output.text_content(),
                _ => String::new(),
            };
            let kind = match item.role() {
                Some(role) => format!("{}/{role}", item.type_name()),
                None => item.type_name().to_string(),
            };
            format!("{index:02}:{kind}:{text}")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn prompt_view_snapshot() {
    let manager = manager(vec![
        ResponseItem::developer_text(
            "<permissions instructions>sandbox</permissions instructions>",
        ),
        env_context(),
        ResponseItem::user_text("show me the logo"),
        ghost(),
        ResponseItem::function_call("c1", "view_image", r#"{"path":"logo.png"}"#),
        ResponseItem::FunctionCallOutput {
            call_id: "c1".to_string(),
            output: FunctionCallOutputPayload {
                body: FunctionCallOutputBody::ContentItems(vec![
                    FunctionCallOutputContentItem::InputImage {
                        image_url: "data:image/png;base64,AAAA".to_string(),
                        detail: None,
                    },
                ]),
                success: Some(true),
            },
            extra: ExtraFields::new(),
        },
        ResponseItem::function_call("c2", "shell", r#"{"command":["ls"]}"#),
        ResponseItem::function_call_output("stale", "orphan output"),
        ResponseItem::assistant_text("The logo is a cat."),
    ]);
    insta::assert_snapshot!(
        "prompt_view_text_only",
        render(&manager.for_prompt(&InputModality::TEXT_ONLY))
    );
}

#[test]
fn context_updates_are_full_first_then_diffs() {
    let mut manager = ContextManager::new();
    let first = TurnSettings {
        model: "gpt-5".to_string(),
        cwd: Some("/a".to_string()),
        model_instructions: "You are gpt-5.".to_string(),
        ..TurnSettings::default()
    };
    let initial = || {
        vec![
            ResponseItem::developer_text("base developer instructions"),
            first.environment_context().to_response_item(),
        ]
    };
    let recorded = manager.record_context_updates(None, &first, Some("t1".to_string()), initial);
    assert_eq!(recorded.len(), 2);
    assert_eq!(
        manager
            .reference_context_item()
            .and_then(|item| item.turn_id.as_deref()),
        Some("t1")
    );

    // Same settings: nothing new.
    let recorded = manager.record_context_updates(Some("gpt-5"), &first, None, Vec::new);
    assert_eq!(recorded, Vec::new());

    // Model switch: only the diff, never the initial context.
    let switched = TurnSettings {
        model: "o3".to_string(),
        model_instructions: "You are o3.".to_string(),
        ..first.clone()
    };
    let recorded = manager.record_context_updates(Some("gpt-5"), &switched, None, || {
        panic!("a reference exists, no full context")
    });
    assert_eq!(
        recorded,
        vec![ResponseItem::developer_text(
            crate::settings_update::model_switch_message("You are o3.")
        )]
    );
    assert_eq!(manager.len(), 3);

    // A rollback that trims no initial-context bundle keeps the reference, as codex does: the
    // session prefix with the full context survives, so re-sending it would duplicate it.
    manager.record_items([ResponseItem::user_text("hi")], POLICY);
    manager.drop_last_n_user_turns(1);
    assert_eq!(manager.len(), 3);
    assert!(manager.reference_context_item().is_some());
}

#[test]
fn rollback_never_cuts_at_an_injected_message() {
    // An imported skill body (Claude Code `isMeta`) reads like a prompt but is not a turn.
    let mut skill_body = ResponseItem::user_text("Base directory for this skill: /s\n\nDo X.");
    skill_body.set_injected(true);
    let history = vec![
        ResponseItem::user_text("turn 1"),
        ResponseItem::assistant_text("answer 1"),
        ResponseItem::user_text("turn 2"),
        skill_body,
        ResponseItem::assistant_text("answer 2"),
    ];
    let mut manager = manager(history.clone());
    manager.drop_last_n_user_turns(1);
    assert_eq!(manager.raw_items(), &history[..2]);
}
