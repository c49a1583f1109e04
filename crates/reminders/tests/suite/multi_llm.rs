//! Reminders are plain user messages, so every provider adapter carries
//! them unchanged. Each test runs the real orchestrator, injects its reminders, sends the prompt
//! through the real HTTP client to a local wiremock server speaking the provider's SSE, and reads
//! the reminder back out of the request body the provider received.

use agentctx_model::HttpModelClient;
use agentctx_model::ModelClient;
use agentctx_model::Prompt;
use agentctx_model::ProviderConfig;
use agentctx_model::WireApi;
use agentctx_model::complete_prompt;
use agentctx_protocol::ResponseItem;
use agentctx_reminders::GeneratorContext;
use agentctx_reminders::ReminderPlacement;
use agentctx_reminders::SystemReminderConfig;
use agentctx_reminders::SystemReminderOrchestrator;
use agentctx_reminders::inject_system_reminders;
use pretty_assertions::assert_eq;
use serde_json::Value;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::ResponseTemplate;
use wiremock::matchers::method;

const CRITICAL: &str = "Never push to main.";

const RESPONSES_SSE: &str = "event: response.created\n\
data: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_1\"}}\n\n\
event: response.output_item.done\n\
data: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"ok\"}]}}\n\n\
event: response.completed\n\
data: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_1\",\"usage\":{\"input_tokens\":40,\"output_tokens\":1,\"total_tokens\":41}}}\n\n";

const CHAT_SSE: &str = "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":null}]}\n\n\
data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
data: [DONE]\n\n";

const ANTHROPIC_SSE: &str = "event: message_start\n\
data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\",\"stop_reason\":null,\"usage\":{\"input_tokens\":40,\"output_tokens\":1}}}\n\n\
event: content_block_start\n\
data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
event: content_block_delta\n\
data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\n\
event: content_block_stop\n\
data: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
event: message_delta\n\
data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n\
event: message_stop\n\
data: {\"type\":\"message_stop\"}\n\n";

/// The history of one turn with this turn's reminders injected at the tail, and the reminder
/// text the model must see.
async fn history_with_reminders() -> (Vec<ResponseItem>, String) {
    let config = SystemReminderConfig {
        critical_instruction: Some(CRITICAL.to_string()),
        ..SystemReminderConfig::default()
    };
    let orchestrator = SystemReminderOrchestrator::new(config.clone());
    let cwd = tempfile::tempdir().unwrap();
    let ctx = GeneratorContext::new(cwd.path())
        .with_user_prompt("fix the failing test")
        .with_config(&config);
    let reminders = orchestrator.generate_all(&ctx).await;
    assert!(!reminders.is_empty(), "the critical instruction fires");
    let expected = reminders
        .iter()
        .map(agentctx_reminders::SystemReminder::wrap_xml)
        .collect::<Vec<_>>()
        .join("\n");
    let mut history = vec![ResponseItem::user_text("fix the failing test")];
    inject_system_reminders(&mut history, &reminders, ReminderPlacement::Tail);
    (history, expected)
}

async fn send(wire_api: WireApi, base_path: &str, slug: &str, body: &'static str) -> Value {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("content-type", "text/event-stream")
                .set_body_raw(body, "text/event-stream"),
        )
        .expect(1)
        .mount(&server)
        .await;
    let provider = ProviderConfig {
        name: "test".to_string(),
        base_url: format!("{}{base_path}", server.uri()),
        env_key: Some("TEST_API_KEY".to_string()),
        wire_api,
        request_max_retries: Some(0),
        stream_max_retries: Some(0),
        stream_idle_timeout_ms: Some(0),
        ..ProviderConfig::default()
    };
    let client = HttpModelClient::new(provider, slug, &|name| {
        (name == "TEST_API_KEY").then(|| "sk-test".to_string())
    })
    .unwrap();
    let (input, _) = history_with_reminders().await;
    let prompt = Prompt {
        instructions: "You are a coding agent.".to_string(),
        input: agentctx_model::owned_items(input),
        ..Prompt::default()
    };
    let reply = complete_prompt(&client, &prompt).await.unwrap();
    assert_eq!(reply, "ok");
    assert_eq!(client.slug(), slug);
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 1);
    serde_json::from_slice(&requests[0].body).unwrap()
}

/// Every reminder in `value`: a string that starts with a reminder tag, or each tagged block of
/// a string that merged the reminder with other text (Chat Completions sends a user turn's texts
/// as one string).
fn reminder_texts(value: &Value, out: &mut Vec<String>) {
    const CLOSE: &str = "</system-reminder>";
    match value {
        Value::String(text) if agentctx_protocol::is_system_reminder_text(text) => {
            out.push(text.clone());
        }
        Value::String(text) => {
            let mut rest = text.as_str();
            while let Some(start) = rest.find("<system-reminder>") {
                let Some(end) = rest[start..].find(CLOSE) else {
                    break;
                };
                let block = &rest[start..start + end + CLOSE.len()];
                out.push(block.to_string());
                rest = &rest[start + end + CLOSE.len()..];
            }
        }
        Value::Array(items) => items.iter().for_each(|item| reminder_texts(item, out)),
        Value::Object(map) => map.values().for_each(|item| reminder_texts(item, out)),
        _ => {}
    }
}

/// Asserts that the last entry of `list` is a user message carrying exactly `expected`.
fn assert_last_user_message_carries(list: &Value, expected: &str) {
    let last = list.as_array().unwrap().last().unwrap();
    assert_eq!(last["role"], "user");
    let mut found = Vec::new();
    reminder_texts(last, &mut found);
    assert_eq!(found.join("\n"), expected);
}

#[tokio::test]
async fn reminders_reach_the_openai_responses_adapter_unchanged() {
    let body = send(WireApi::Responses, "/v1", "gpt-5.1-codex", RESPONSES_SSE).await;
    let (_, expected) = history_with_reminders().await;
    assert_last_user_message_carries(&body["input"], &expected);
}

#[tokio::test]
async fn reminders_reach_a_gemini_model_through_the_openai_compatible_chat_adapter() {
    // Gemini serves the OpenAI-compatible Chat Completions API; agentctx reaches it through the
    // chat adapter, with no Gemini-specific code for reminders.
    let body = send(WireApi::Chat, "/v1beta/openai", "gemini-2.5-pro", CHAT_SSE).await;
    let (_, expected) = history_with_reminders().await;
    assert_last_user_message_carries(&body["messages"], &expected);
}

#[tokio::test]
async fn reminders_reach_the_anthropic_adapter_unchanged() {
    let body = send(WireApi::Anthropic, "", "claude-sonnet-4-5", ANTHROPIC_SSE).await;
    let (_, expected) = history_with_reminders().await;
    assert_last_user_message_carries(&body["messages"], &expected);
    // The system prompt stays separate: no reminder leaks into it.
    let mut in_system = Vec::new();
    reminder_texts(&body["system"], &mut in_system);
    assert!(in_system.is_empty());
}
