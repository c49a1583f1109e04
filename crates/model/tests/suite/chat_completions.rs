//! OpenAI-compatible Chat Completions (vLLM / DeepSeek `reasoning_content`, Ollama `reasoning`)
//! against a wiremock server serving real SSE bodies.

use agentctx_model::ContextOverflow;
use agentctx_model::ModelClient;
use agentctx_model::ModelError;
use agentctx_model::Prompt;
use agentctx_model::ResponseEvent;
use agentctx_model::SystemMessageMode;
use agentctx_model::WireApi;
use agentctx_model::owned_items;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::FunctionCallOutputContentItem;
use agentctx_protocol::FunctionCallOutputPayload;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;
use pretty_assertions::assert_eq;
use serde_json::json;
use wiremock::Mock;
use wiremock::MockServer;
use wiremock::ResponseTemplate;
use wiremock::matchers::body_partial_json;
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

#[tokio::test]
async fn tool_calls_accumulate_by_index_with_reasoning_and_usage() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", "Bearer sk-test-123"))
        .and(body_partial_json(
            json!({ "stream": true, "stream_options": { "include_usage": true } }),
        ))
        .respond_with(sse(fixture("chat_tool_call.sse")))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(
        provider(WireApi::Chat, &format!("{}/v1", server.uri())),
        "qwen3-32b",
    );

    let (events, error) = collect(&client, &rich_prompt(WireApi::Chat)).await;

    assert_eq!(error, None);
    assert_eq!(
        trace(&events),
        vec![
            "created",
            "added:reasoning",
            "thinking:The user wants ",
            "thinking:the files in src.",
            "added:message",
            "text:Listing ",
            "text:src.",
            "done:reasoning",
            "done:message",
            "added:function_call",
            "done:function_call",
            "added:function_call",
            "done:function_call",
            "completed:chatcmpl-1",
        ]
    );
    assert_eq!(
        done_items(&events),
        vec![
            json!({
                "type": "reasoning",
                "summary": [],
                "content": [{ "type": "reasoning_text", "text": "The user wants the files in src." }],
            }),
            json!({
                "type": "message",
                "role": "assistant",
                "content": [{ "type": "output_text", "text": "Listing src." }],
            }),
            json!({
                "type": "function_call",
                "name": "shell",
                "arguments": "{\"command\": [\"ls\", \"src\"]}",
                "call_id": "call_1",
            }),
            json!({
                "type": "function_call",
                "name": "read_file",
                "arguments": "{\"path\": \"README.md\"}",
                "call_id": "call_2",
            }),
        ]
    );
    assert_eq!(
        events.last(),
        Some(&ResponseEvent::Completed {
            response_id: "chatcmpl-1".to_string(),
            token_usage: Some(TokenUsage {
                input_tokens: 310,
                cached_input_tokens: 256,
                output_tokens: 42,
                reasoning_output_tokens: 12,
                total_tokens: 352,
            }),
        })
    );

    let requests = server.received_requests().await.unwrap();
    let body: serde_json::Value = requests[0].body_json().unwrap();
    insta::assert_json_snapshot!("chat_request_body", body);
}

#[tokio::test]
async fn ollama_reasoning_field_and_plain_text() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(sse(fixture("chat_ollama_reasoning.sse")))
        .expect(1)
        .mount(&server)
        .await;
    let mut ollama = agentctx_model::ProviderConfig::ollama();
    ollama.base_url = format!("{}/v1", server.uri());
    let client = agentctx_model::HttpModelClient::new(ollama, "qwen3:8b", &|_| None).unwrap();

    let (events, error) = collect(&client, &Prompt::system_and_user("Be brief.", "hello")).await;

    assert_eq!(error, None);
    assert_eq!(
        done_items(&events),
        vec![
            json!({
                "type": "reasoning",
                "summary": [],
                "content": [{ "type": "reasoning_text", "text": "Okay, the user says hello." }],
            }),
            json!({
                "type": "message",
                "role": "assistant",
                "content": [{ "type": "output_text", "text": "Hello! How can I help?" }],
            }),
        ]
    );
    assert_eq!(
        events.last(),
        Some(&ResponseEvent::Completed {
            response_id: "chatcmpl-431".to_string(),
            token_usage: Some(TokenUsage {
                input_tokens: 20,
                cached_input_tokens: 0,
                output_tokens: 15,
                reasoning_output_tokens: 0,
                total_tokens: 35,
            }),
        })
    );
    // Keyless provider: no authorization header.
    let requests = server.received_requests().await.unwrap();
    assert!(requests[0].headers.get("authorization").is_none());
}

#[tokio::test]
async fn error_chunk_mid_stream_is_classified() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse(fixture("chat_error.sse")))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(provider(WireApi::Chat, &server.uri()), "qwen3-32b");

    let (events, error) = collect(&client, &rich_prompt(WireApi::Chat)).await;

    assert_eq!(trace(&events), vec!["created", "added:message", "text:Hi"]);
    assert!(
        matches!(&error, Some(ModelError::ContextWindowExceeded { message }) if message.starts_with("This model's maximum context length is 4096")),
        "{error:?}"
    );
}

/// What a strict OpenAI-compatible server enforces on a request.
#[derive(Clone, Copy)]
struct Strict {
    /// Chat templates of Qwen3, Gemma and Mistral (vLLM, llama.cpp, LM Studio): one system
    /// message, first; user and assistant turns alternate.
    template: bool,
    /// The OpenAI API: `role: "tool"` content is text only; reasoning models refuse
    /// `max_tokens`; the effort must be one the model accepts.
    openai: bool,
    /// llama-cpp-python's server: its pydantic request model takes an assistant message's
    /// `content` as an optional string, so `null` is refused (abetlen/llama-cpp-python,
    /// `llama_cpp/llama_types.py`, `ChatCompletionRequestAssistantMessage`); and its jinja chat
    /// templates concatenate `content` as a string, so a list of parts crashes the template
    /// after the response started (the stream ends without an event).
    llama_cpp_python: bool,
}

/// A 400 as vLLM writes it (`{"object":"error",...}`).
fn vllm_400(message: &str) -> ResponseTemplate {
    ResponseTemplate::new(400).set_body_json(json!({
        "object": "error", "message": message, "type": "BadRequestError", "param": null, "code": 400
    }))
}

impl wiremock::Respond for Strict {
    fn respond(&self, request: &wiremock::Request) -> ResponseTemplate {
        let body: serde_json::Value = request.body_json().unwrap();
        let messages = body["messages"].as_array().unwrap();
        if self.llama_cpp_python {
            if let Some(index) = messages
                .iter()
                .position(|m| m["role"] == "assistant" && m.get("content") == Some(&json!(null)))
            {
                return ResponseTemplate::new(500).set_body_json(json!({ "error": {
                    "message": format!("1 validation error for ChatCompletionRequestAssistantMessage\nmessages.{index}.content\n  Input should be a valid string [type=string_type, input_value=None, input_type=NoneType]"),
                    "type": "internal_server_error",
                }}));
            }
            let text_parts_only = |m: &serde_json::Value| {
                m["content"]
                    .as_array()
                    .is_some_and(|parts| parts.iter().all(|p| p["type"] == "text"))
            };
            if messages.iter().any(text_parts_only) {
                // TypeError: can only concatenate str (not "list") to str, raised inside the
                // streaming generator.
                return sse(String::new());
            }
        }
        if self.template {
            // The Qwen3 template raises this for a system message after the first position.
            if messages.iter().skip(1).any(|m| m["role"] == "system") {
                return vllm_400("System message must be at the beginning.");
            }
            let turns: Vec<&str> = messages
                .iter()
                .filter_map(|m| m["role"].as_str())
                .filter(|role| *role == "user" || *role == "assistant")
                .collect();
            if turns
                .windows(2)
                .any(|pair| pair[0] == pair[1] && pair[0] == "user")
            {
                return vllm_400(
                    "After the optional system message, conversation roles must alternate user/assistant/user/assistant/...",
                );
            }
            if let Some(effort) = body["reasoning_effort"].as_str()
                && !["low", "medium", "high"].contains(&effort)
            {
                return vllm_400(&format!(
                    "1 validation error for ChatCompletionRequest\nreasoning_effort\n  Input should be 'low', 'medium' or 'high' [type=literal_error, input_value='{effort}', input_type=str]"
                ));
            }
        }
        if self.openai {
            for (index, message) in messages.iter().enumerate() {
                let has_image = message["content"]
                    .as_array()
                    .is_some_and(|parts| parts.iter().any(|p| p["type"] != "text"));
                if message["role"] == "tool" && has_image {
                    return ResponseTemplate::new(400).set_body_json(json!({ "error": {
                        "message": format!("Invalid 'messages[{index}]'. Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an image URL."),
                        "type": "invalid_request_error", "param": format!("messages[{index}]"), "code": "invalid_value",
                    }}));
                }
            }
            let model = body["model"].as_str().unwrap_or_default();
            let reasoning_model = model.starts_with("gpt-5") || model.starts_with('o');
            if reasoning_model && body.get("max_tokens").is_some() {
                return ResponseTemplate::new(400).set_body_json(json!({ "error": {
                    "message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
                    "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter",
                }}));
            }
            if model == "gpt-5" && body["reasoning_effort"] == "xhigh" {
                return ResponseTemplate::new(400).set_body_json(json!({ "error": {
                    "message": "Unsupported value: 'xhigh' is not supported with the 'gpt-5' model. Supported values are: 'minimal', 'low', 'medium', and 'high'.",
                    "type": "invalid_request_error", "param": "reasoning_effort", "code": "unsupported_value",
                }}));
            }
        }
        sse(fixture("chat_ollama_reasoning.sse"))
    }
}

async fn strict_server(strict: Strict) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(strict)
        .mount(&server)
        .await;
    server
}

async fn sent_messages(server: &MockServer) -> serde_json::Value {
    let requests = server.received_requests().await.unwrap();
    let body: serde_json::Value = requests.last().unwrap().body_json().unwrap();
    body["messages"].clone()
}

/// A history with a developer message in mid-conversation (a reminder, a permission change).
fn mid_conversation_developer_prompt() -> Prompt<'static> {
    Prompt {
        instructions: "You are a coding agent.".to_string(),
        input: owned_items(vec![
            ResponseItem::developer_text("<permissions>read-only</permissions>"),
            ResponseItem::user_text("What is in src?"),
            ResponseItem::assistant_text("lib.rs and main.rs."),
            ResponseItem::developer_text("<permissions>workspace-write</permissions>"),
            ResponseItem::user_text("Now edit lib.rs."),
        ]),
        ..Prompt::default()
    }
}

#[tokio::test]
async fn mid_conversation_developer_message_becomes_user_text_for_strict_templates() {
    let server = strict_server(Strict {
        template: true,
        openai: false,
        llama_cpp_python: false,
    })
    .await;
    let client = client(
        provider(WireApi::Chat, &format!("{}/v1", server.uri())),
        "Qwen/Qwen3-32B",
    );

    let (_, error) = collect(&client, &mid_conversation_developer_prompt()).await;

    assert_eq!(error, None);
    insta::assert_json_snapshot!("strict_template_as_user", sent_messages(&server).await);
}

#[tokio::test]
async fn mid_conversation_developer_message_merges_into_the_system_message_when_configured() {
    let server = strict_server(Strict {
        template: true,
        openai: false,
        llama_cpp_python: false,
    })
    .await;
    let mut provider = provider(WireApi::Chat, &format!("{}/v1", server.uri()));
    provider.system_messages = Some(SystemMessageMode::MergeIntoSystem);
    let client = client(provider, "Qwen/Qwen3-32B");

    let (_, error) = collect(&client, &mid_conversation_developer_prompt()).await;

    assert_eq!(error, None);
    insta::assert_json_snapshot!("strict_template_merged", sent_messages(&server).await);
}

#[tokio::test]
async fn developer_messages_keep_their_place_where_the_server_accepts_them() {
    let server = strict_server(Strict {
        template: false,
        openai: true,
        llama_cpp_python: false,
    })
    .await;
    let mut provider = provider(WireApi::Chat, &format!("{}/v1", server.uri()));
    provider.system_messages = Some(SystemMessageMode::AsIs);
    let client = client(provider, "gpt-4.1");

    let (_, error) = collect(&client, &mid_conversation_developer_prompt()).await;

    assert_eq!(error, None);
    let roles: Vec<serde_json::Value> = sent_messages(&server)
        .await
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].clone())
        .collect();
    assert_eq!(
        roles,
        vec![
            json!("system"),
            json!("system"),
            json!("user"),
            json!("assistant"),
            json!("system"),
            json!("user")
        ]
    );
}

#[tokio::test]
async fn images_in_tool_output_go_in_a_following_user_message() {
    let server = strict_server(Strict {
        template: false,
        openai: true,
        llama_cpp_python: false,
    })
    .await;
    let client = client(
        provider(WireApi::Chat, &format!("{}/v1", server.uri())),
        "gpt-4.1",
    );
    let screenshot = |call_id: &str, text: &str| ResponseItem::FunctionCallOutput {
        call_id: call_id.to_string(),
        output: FunctionCallOutputPayload {
            body: FunctionCallOutputBody::ContentItems(vec![
                FunctionCallOutputContentItem::InputText {
                    text: text.to_string(),
                },
                FunctionCallOutputContentItem::InputImage {
                    image_url: "data:image/png;base64,iVBORw0KGgo=".to_string(),
                    detail: Some("low".to_string()),
                },
            ]),
            success: Some(true),
        },
        extra: ExtraFields::new(),
    };
    let prompt = Prompt {
        instructions: "You are a coding agent.".to_string(),
        input: owned_items(vec![
            ResponseItem::user_text("Screenshot both pages."),
            ResponseItem::function_call("call_a", "screenshot", r#"{"page":"a"}"#),
            ResponseItem::function_call("call_b", "screenshot", r#"{"page":"b"}"#),
            screenshot("call_a", "page a"),
            screenshot("call_b", "page b"),
        ]),
        ..Prompt::default()
    };

    let (_, error) = collect(&client, &prompt).await;

    assert_eq!(error, None);
    insta::assert_json_snapshot!("tool_images_in_user_message", sent_messages(&server).await);
}

#[tokio::test]
async fn openai_reasoning_models_get_max_completion_tokens_and_an_accepted_effort() {
    let server = strict_server(Strict {
        template: false,
        openai: true,
        llama_cpp_python: false,
    })
    .await;
    let client = client(
        provider(WireApi::Chat, &format!("{}/v1", server.uri())),
        "gpt-5",
    );

    let (_, error) = collect(&client, &rich_prompt(WireApi::Chat)).await;

    assert_eq!(error, None);
    let requests = server.received_requests().await.unwrap();
    let body: serde_json::Value = requests[0].body_json().unwrap();
    assert_eq!(body.get("max_tokens"), None);
    assert_eq!(body["max_completion_tokens"], json!(128_000));
    assert_eq!(body["reasoning_effort"], json!("high"));
}

#[tokio::test]
async fn ultrathink_on_a_local_server_sends_an_effort_it_accepts() {
    let server = strict_server(Strict {
        template: true,
        openai: false,
        llama_cpp_python: false,
    })
    .await;
    let client = client(
        provider(WireApi::Chat, &format!("{}/v1", server.uri())),
        "Qwen/Qwen3-32B",
    );
    let prompt = Prompt {
        reasoning: rich_prompt(WireApi::Chat).reasoning,
        ..Prompt::system_and_user("Be brief.", "ultrathink: why?")
    };

    let (_, error) = collect(&client, &prompt).await;

    assert_eq!(error, None);
    let requests = server.received_requests().await.unwrap();
    let body: serde_json::Value = requests[0].body_json().unwrap();
    assert_eq!(body["reasoning_effort"], json!("high"));
}

#[tokio::test]
async fn tool_call_name_repeated_in_every_chunk_is_not_concatenated() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse(fixture("chat_vllm_repeated_name.sse")))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(provider(WireApi::Chat, &server.uri()), "Qwen/Qwen3-32B");

    let (events, error) = collect(&client, &Prompt::system_and_user("Be brief.", "ls")).await;

    assert_eq!(error, None);
    assert_eq!(
        done_items(&events),
        vec![json!({
            "type": "function_call",
            "name": "shell",
            "arguments": "{\"command\": [\"ls\"]}",
            "call_id": "chatcmpl-tool-91a",
        })]
    );
}

#[tokio::test]
async fn vllm_context_length_error_is_classified_with_both_numbers() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(vllm_400("This model's maximum context length is 32768 tokens. However, you requested 33000 tokens (28904 in the messages, 4096 in the completion). Please reduce the length of the messages or completion."))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(provider(WireApi::Chat, &server.uri()), "Qwen/Qwen3-32B");

    let error = client
        .stream(&Prompt::system_and_user("Be brief.", "hi"))
        .await
        .err()
        .unwrap();

    assert!(
        matches!(&error, ModelError::ContextWindowExceeded { .. }),
        "{error:?}"
    );
    assert_eq!(
        error.context_overflow(),
        Some(ContextOverflow {
            input_tokens: Some(28_904),
            max_tokens: Some(4_096),
            context_window: Some(32_768),
        })
    );
}

/// A session as `run` sends it to a local server: the environment context and the prompt as two
/// user messages (with a permissions message between), then a tool round trip whose call came
/// without text.
fn session_with_a_tool_round_trip() -> Prompt<'static> {
    Prompt {
        instructions: "You are a coding agent.".to_string(),
        input: owned_items(vec![
            ResponseItem::user_text(
                "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>",
            ),
            ResponseItem::developer_text("<permissions>workspace-write</permissions>"),
            ResponseItem::user_text("What is in src?"),
            ResponseItem::function_call("call_1", "shell", r#"{"command":["ls","src"]}"#),
            ResponseItem::function_call_output("call_1", "lib.rs\nmain.rs"),
            ResponseItem::assistant_text("src has lib.rs and main.rs."),
            ResponseItem::user_text("Thanks."),
        ]),
        ..Prompt::default()
    }
}

#[tokio::test(start_paused = true)]
async fn llama_cpp_python_takes_merged_user_text_and_tool_calls_without_content() {
    let server = strict_server(Strict {
        template: true,
        openai: false,
        llama_cpp_python: true,
    })
    .await;
    let client = client(
        provider(WireApi::Chat, &format!("{}/v1", server.uri())),
        "SmolLM2-135M-Instruct",
    );

    let (_, error) = collect(&client, &session_with_a_tool_round_trip()).await;

    assert_eq!(error, None);
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
    insta::assert_json_snapshot!("llama_cpp_python_messages", sent_messages(&server).await);
}

#[tokio::test]
async fn a_model_without_an_output_limit_gets_one_sized_from_its_window() {
    let server = MockServer::start().await;
    // A llama.cpp server generates until its window is full when no limit is sent; this one
    // answers only a request that carries one.
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(body_partial_json(json!({ "max_tokens": 1_024 })))
        .respond_with(sse(fixture("chat_ollama_reasoning.sse")))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(
        provider(WireApi::Chat, &format!("{}/v1", server.uri())),
        "SmolLM2-135M-Instruct",
    )
    .with_model_info(agentctx_model::ModelInfo::with_context_window(4_096));

    let (_, error) = collect(&client, &Prompt::system_and_user("Be brief.", "hi")).await;

    assert_eq!(error, None);
}

#[tokio::test]
async fn an_answer_cut_at_the_output_limit_is_kept_and_marked_truncated() {
    let chunks = [
        json!({ "id": "chatcmpl-9", "object": "chat.completion.chunk", "choices": [{ "index": 0, "delta": { "role": "assistant", "content": "The answer" }, "finish_reason": null }] }),
        json!({ "id": "chatcmpl-9", "object": "chat.completion.chunk", "choices": [{ "index": 0, "delta": { "content": " is" }, "finish_reason": null }] }),
        json!({ "id": "chatcmpl-9", "object": "chat.completion.chunk", "choices": [{ "index": 0, "delta": {}, "finish_reason": "length" }] }),
        json!({ "id": "chatcmpl-9", "object": "chat.completion.chunk", "choices": [], "usage": { "prompt_tokens": 30, "completion_tokens": 2, "total_tokens": 32 } }),
    ];
    let body: String = chunks
        .iter()
        .map(|chunk| format!("data: {chunk}\n\n"))
        .chain(std::iter::once("data: [DONE]\n\n".to_string()))
        .collect();
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse(body))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(
        provider(WireApi::Chat, &server.uri()),
        "SmolLM2-135M-Instruct",
    );

    let (events, error) = collect(&client, &Prompt::system_and_user("Be brief.", "hi")).await;

    assert_eq!(error, None);
    assert_eq!(
        trace(&events),
        vec![
            "created",
            "added:message",
            "text:The answer",
            "text: is",
            "done:message",
            "truncated:length",
            "completed:chatcmpl-9",
        ]
    );
    assert_eq!(
        events.last(),
        Some(&ResponseEvent::Completed {
            response_id: "chatcmpl-9".to_string(),
            token_usage: Some(TokenUsage {
                input_tokens: 30,
                cached_input_tokens: 0,
                output_tokens: 2,
                reasoning_output_tokens: 0,
                total_tokens: 32,
            }),
        })
    );
}

#[tokio::test(start_paused = true)]
async fn llama_cpp_python_takes_the_environment_context_and_the_prompt_as_one_string() {
    let server = strict_server(Strict {
        template: true,
        openai: false,
        llama_cpp_python: true,
    })
    .await;
    let client = client(
        provider(WireApi::Chat, &format!("{}/v1", server.uri())),
        "SmolLM2-135M-Instruct",
    );
    let prompt = Prompt {
        instructions: "You are a coding agent.".to_string(),
        input: owned_items(vec![
            ResponseItem::user_text(
                "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>",
            ),
            ResponseItem::user_text("hi"),
        ]),
        ..Prompt::default()
    };

    let (_, error) = collect(&client, &prompt).await;

    assert_eq!(error, None);
    assert_eq!(
        sent_messages(&server).await[1]["content"],
        json!("<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>\n\nhi")
    );
}
