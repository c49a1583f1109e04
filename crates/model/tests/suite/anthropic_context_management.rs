//! Anthropic's provider-side context management against a wiremock server speaking the real
//! Messages wire format: context editing (body, beta header, applied edits, the usage after the
//! edits) and server-side compaction (the `compaction` block streamed, recorded and sent back,
//! its tokens counted apart).
//!
//! Fixtures are built from the documentation: `anthropic_context_editing.sse` carries the
//! `applied_edits` of the context editing page
//! (<https://platform.claude.com/docs/en/build-with-claude/context-editing>: `type`,
//! `cleared_tool_uses`, `cleared_thinking_turns`, `cleared_input_tokens`, reported in the final
//! `message_delta` when streaming), and `anthropic_compaction.sse` the compaction page's
//! example (<https://platform.claude.com/docs/en/build-with-claude/compaction>: a `compaction`
//! block first in the content, streamed with `compaction_delta`, and `usage.iterations` with a
//! `compaction` entry of 180,000 input and 3,500 output tokens beside a top-level usage of
//! 23,000 and 1,000 that leaves it out).

use agentctx_model::AnthropicCompaction;
use agentctx_model::AppliedContextEdit;
use agentctx_model::ClearThinking;
use agentctx_model::ClearToolUses;
use agentctx_model::ClearTrigger;
use agentctx_model::ContextManagementConfig;
use agentctx_model::KeepThinking;
use agentctx_model::ModelClient;
use agentctx_model::Prompt;
use agentctx_model::ProviderContextReport;
use agentctx_model::RemoteCompactionSupport;
use agentctx_model::ResponseEvent;
use agentctx_model::WireApi;
use agentctx_model::owned_items;
use agentctx_model::provider_compaction_summary;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;
use pretty_assertions::assert_eq;
use serde_json::json;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::matchers::header;
use wiremock::matchers::method;
use wiremock::matchers::path;

use super::support::client;
use super::support::collect;
use super::support::done_items;
use super::support::fixture;
use super::support::provider;
use super::support::rich_prompt;
use super::support::sse;
use super::support::trace;

fn completed_usage(events: &[ResponseEvent]) -> Option<TokenUsage> {
    events.iter().find_map(|event| match event {
        ResponseEvent::Completed { token_usage, .. } => *token_usage,
        _ => None,
    })
}

fn provider_context(events: &[ResponseEvent]) -> Option<&ProviderContextReport> {
    events.iter().find_map(|event| match event {
        ResponseEvent::ProviderContext(report) => Some(report),
        _ => None,
    })
}

#[tokio::test]
async fn context_editing_sends_its_edits_and_beta_and_reports_what_was_cleared() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .and(header("anthropic-version", "2023-06-01"))
        .respond_with(sse(fixture("anthropic_context_editing.sse")))
        .expect(1)
        .mount(&server)
        .await;
    let mut provider = provider(WireApi::Anthropic, &server.uri());
    provider.http_headers.insert(
        "anthropic-beta".to_string(),
        "context-1m-2025-08-07".to_string(),
    );
    provider.context_management = ContextManagementConfig {
        clear_tool_uses: Some(ClearToolUses {
            trigger: Some(ClearTrigger::InputTokens(30_000)),
            keep: Some(3),
            clear_at_least: Some(5_000),
            exclude_tools: vec!["memory".to_string()],
            clear_tool_inputs: Some(false),
        }),
        clear_thinking: Some(ClearThinking {
            keep: Some(KeepThinking::Turns(1)),
        }),
        ..ContextManagementConfig::default()
    };
    let client = client(provider, "claude-sonnet-4-5");
    assert_eq!(
        client.remote_compaction(),
        RemoteCompactionSupport {
            context_editing: true,
            ..RemoteCompactionSupport::NONE
        }
    );

    let (events, error) = collect(&client, &rich_prompt(WireApi::Anthropic)).await;

    assert_eq!(error, None);
    assert_eq!(
        trace(&events),
        vec![
            "created",
            "added:message",
            "text:Based on the latest results, the build passes.",
            "done:message",
            "prompt_cache",
            "provider_context",
            "completed:msg_edit_1",
        ]
    );
    assert_eq!(
        provider_context(&events),
        Some(&ProviderContextReport {
            applied_edits: vec![
                AppliedContextEdit {
                    kind: "clear_thinking_20251015".to_string(),
                    cleared_input_tokens: 1_500,
                    cleared_tool_uses: 0,
                    cleared_thinking_turns: 2,
                },
                AppliedContextEdit {
                    kind: "clear_tool_uses_20250919".to_string(),
                    cleared_input_tokens: 8_240,
                    cleared_tool_uses: 3,
                    cleared_thinking_turns: 0,
                },
            ],
            compaction_usage: None,
            paused_after_compaction: false,
        })
    );
    // The usage is the one the stream reports last, after the edits: 620 input tokens, not the
    // 632 of message_start.
    assert_eq!(
        completed_usage(&events),
        Some(TokenUsage {
            input_tokens: 620,
            output_tokens: 45,
            total_tokens: 665,
            ..TokenUsage::default()
        })
    );

    let requests = server.received_requests().await.unwrap();
    let betas: Vec<&str> = requests[0]
        .headers
        .get_all("anthropic-beta")
        .iter()
        .map(|value| value.to_str().unwrap())
        .collect();
    assert_eq!(
        betas,
        vec!["context-1m-2025-08-07,context-management-2025-06-27"]
    );
    let body: serde_json::Value = requests[0].body_json().unwrap();
    assert!(body.get("thinking").is_some(), "the prompt thinks: {body}");
    insta::assert_json_snapshot!(
        "anthropic_context_editing_field",
        body["context_management"]
    );
}

#[tokio::test]
async fn compaction_block_is_recorded_counted_apart_and_sent_back_as_it_came() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .and(header("anthropic-beta", "compact-2026-01-12"))
        .respond_with(sse(fixture("anthropic_compaction.sse")))
        .expect(2)
        .mount(&server)
        .await;
    let mut provider = provider(WireApi::Anthropic, &server.uri());
    provider.context_management.compaction = Some(AnthropicCompaction {
        trigger: Some(150_000),
        pause_after_compaction: None,
        instructions: Some("Keep every file path and failing test name.".to_string()),
    });
    let client = client(provider, "claude-opus-4-6");
    assert!(client.remote_compaction().in_request);
    let first = Prompt::system_and_user("You are a coding agent.", "Why does the test fail?");

    let (events, error) = collect(&client, &first).await;

    assert_eq!(error, None);
    assert_eq!(
        trace(&events),
        vec![
            "created",
            "added:compaction",
            "done:compaction",
            "added:message",
            "text:Based on our conversation so far, the fix is in parse_range.",
            "done:message",
            "prompt_cache",
            "provider_context",
            "completed:msg_compact_1",
        ]
    );
    let items = done_items(&events);
    assert_eq!(
        items[0],
        json!({
            "type": "compaction",
            "encrypted_content": "",
            "id": "anthropic_compaction_msg_compact_1_0",
            "content": "Summary of the conversation: the user is fixing a failing test in src/lib.rs; the cause is an off-by-one in parse_range.",
        })
    );
    let recorded: Vec<ResponseItem> = items
        .into_iter()
        .map(|item| serde_json::from_value(item).unwrap())
        .collect();
    assert_eq!(
        provider_compaction_summary(&recorded[0]),
        Some(
            "Summary of the conversation: the user is fixing a failing test in src/lib.rs; the cause is an off-by-one in parse_range."
        )
    );
    // The summary's own tokens are reported apart; the answer's usage is the top-level one.
    assert_eq!(
        provider_context(&events).and_then(|report| report.compaction_usage),
        Some(TokenUsage {
            input_tokens: 180_000,
            output_tokens: 3_500,
            total_tokens: 183_500,
            ..TokenUsage::default()
        })
    );
    assert_eq!(
        completed_usage(&events),
        Some(TokenUsage {
            input_tokens: 23_000,
            output_tokens: 1_000,
            total_tokens: 24_000,
            ..TokenUsage::default()
        })
    );

    let mut history: Vec<ResponseItem> = first
        .input
        .iter()
        .map(|item| item.clone().into_owned())
        .collect();
    history.extend(recorded);
    history.push(ResponseItem::user_text("Fix it."));
    let second = Prompt {
        input: owned_items(history),
        ..first.clone()
    };
    let (_, error) = collect(&client, &second).await;
    assert_eq!(error, None);

    let requests = server.received_requests().await.unwrap();
    let second_body: serde_json::Value = requests[1].body_json().unwrap();
    insta::assert_json_snapshot!("anthropic_request_with_compaction_block", second_body);
}

#[tokio::test]
async fn opaque_items_of_the_other_provider_are_left_out_of_each_request() {
    let openai_item: ResponseItem = serde_json::from_value(json!({
        "type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAA-opaque"
    }))
    .unwrap();
    let anthropic_item: ResponseItem = serde_json::from_value(json!({
        "type": "compaction",
        "encrypted_content": "",
        "id": "anthropic_compaction_msg_1_0",
        "content": "Summary."
    }))
    .unwrap();
    let history = owned_items(vec![
        ResponseItem::user_text("hi"),
        openai_item,
        anthropic_item,
        ResponseItem::user_text("go on"),
    ]);
    let prompt = Prompt {
        instructions: "sys".to_string(),
        input: history,
        ..Prompt::default()
    };
    let anthropic = client(provider(WireApi::Anthropic, "http://localhost:9"), "claude");
    let responses = client(
        provider(WireApi::Responses, "http://localhost:9/v1"),
        "gpt-5",
    );

    let anthropic_body = anthropic.request_body(&prompt);
    let responses_body = responses.request_body(&prompt);

    assert_eq!(
        anthropic_body["messages"][1],
        json!({ "role": "assistant", "content": [{ "type": "compaction", "content": "Summary." }] })
    );
    assert_eq!(anthropic_body["messages"].as_array().unwrap().len(), 3);
    let compactions: Vec<&serde_json::Value> = responses_body["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["type"] == "compaction")
        .collect();
    assert_eq!(
        compactions,
        vec![&json!({ "type": "compaction", "encrypted_content": "gAAAA-opaque" })]
    );
}
