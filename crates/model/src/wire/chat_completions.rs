//! OpenAI-compatible Chat Completions (OpenAI, Ollama, LM Studio, vLLM, llama.cpp server):
//! `POST {base_url}/chat/completions` with `stream: true`.

use std::collections::BTreeMap;

use agentctx_protocol::ContentItem;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::FunctionCallOutputContentItem;
use agentctx_protocol::FunctionCallOutputPayload;
use agentctx_protocol::ReasoningContent;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use crate::error::ModelError;
use crate::error::ProviderErrorBody;
use crate::model_info::ModelInfo;
use crate::model_info::clamp_effort;
use crate::prompt::Prompt;
use crate::prompt::ReasoningEffort;
use crate::provider_config::SystemMessageMode;
use crate::response_event::ResponseEvent;
use crate::structured_output::StructuredOutputMode;
use crate::wire::WireEventParser;
use crate::wire::int_field;
use crate::wire::is_json;
use crate::wire::output_budget::estimate_input_tokens;
use crate::wire::output_budget::json_bytes;
use crate::wire::output_budget::output_limit;
use crate::wire::parse_json;
use crate::wire::responses::OUTPUT_SCHEMA_NAME;
use crate::wire::str_field;

/// The efforts every OpenAI-compatible server takes in `reasoning_effort` (vLLM validates
/// exactly these; Ollama and LM Studio take them too), used when the model's own list is
/// unknown.
const CHAT_EFFORTS: &[ReasoningEffort] = &[
    ReasoningEffort::Low,
    ReasoningEffort::Medium,
    ReasoningEffort::High,
];

/// The request body: `messages` converted from the history, tools as `function` tools, usage
/// requested in the stream.
///
/// The effort is clamped to what the model accepts ([`CHAT_EFFORTS`] when unknown), and the
/// output limit goes in `max_completion_tokens` for OpenAI reasoning models, which reject
/// `max_tokens` (https://platform.openai.com/docs/api-reference/chat/create). A model whose
/// output limit is unknown gets one sized from its window ([`default_max_tokens`]).
pub(crate) fn request_body(prompt: &Prompt<'_>, slug: &str, model_info: &ModelInfo) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(slug));
    let mode = model_info.system_messages.unwrap_or_default();
    body.insert("messages".into(), Value::Array(messages(prompt, mode)));
    body.insert("stream".into(), json!(true));
    body.insert("stream_options".into(), json!({ "include_usage": true }));
    if !prompt.tools.is_empty() {
        let tools: Vec<Value> = prompt
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": tool.parameters,
                    }
                })
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        body.insert("tool_choice".into(), json!("auto"));
    }
    if let Some((_, effort)) = effort(prompt, model_info) {
        body.insert("reasoning_effort".into(), json!(effort.as_str()));
    }
    let max_tokens = model_info
        .max_output_tokens
        .unwrap_or_else(|| default_max_tokens(&body, model_info.context_window));
    body.insert(
        model_info.max_tokens_field.as_str().into(),
        json!(max_tokens),
    );
    if let Some(schema) = &prompt.output_schema {
        let format = match prompt.output_schema_mode {
            StructuredOutputMode::JsonSchema => Some(json!({
                "type": "json_schema",
                "json_schema": { "name": OUTPUT_SCHEMA_NAME, "schema": schema, "strict": false }
            })),
            // llama-cpp-python turns the `schema` of a `json_object` format into a grammar
            // (`ChatCompletionRequestResponseFormat`, llama_cpp/llama_types.py); others ignore it.
            StructuredOutputMode::JsonObject => {
                Some(json!({ "type": "json_object", "schema": schema }))
            }
            StructuredOutputMode::Text => None,
        };
        if let Some(format) = format {
            body.insert("response_format".into(), format);
        }
    }
    Value::Object(body)
}

/// The effort the prompt asks for and the one the body carries: clamped to what the model
/// accepts, [`CHAT_EFFORTS`] when that is unknown. `None` when the body carries none.
pub(crate) fn effort(
    prompt: &Prompt<'_>,
    model_info: &ModelInfo,
) -> Option<(ReasoningEffort, ReasoningEffort)> {
    let requested = prompt
        .reasoning
        .filter(|_| model_info.may_reason())
        .and_then(|options| options.effort)?;
    let accepted = if model_info.reasoning_efforts.is_empty() {
        CHAT_EFFORTS
    } else {
        model_info.reasoning_efforts.as_slice()
    };
    Some((requested, clamp_effort(accepted, requested)))
}

/// The output limit of a model whose own is unknown: a quarter of the window, at most 8,192
/// tokens, capped by the room the input leaves (see `output_budget.rs`). Sending none let a
/// local server generate to the end of its window (llama.cpp's `n_predict` defaults to -1,
/// "infinite": tools/server/README.md of ggml-org/llama.cpp), leaving the next request no room.
fn default_max_tokens(body: &Map<String, Value>, context_window: i64) -> i64 {
    let input_bytes = ["messages", "tools"]
        .iter()
        .filter_map(|key| body.get(*key))
        .map(json_bytes)
        .sum();
    output_limit(None, context_window, estimate_input_tokens(input_bytes))
}

/// Converts the history into chat messages.
///
/// Developer and system messages are placed by `mode` (see [`SystemMessageMode`]); function
/// (and custom / local shell) calls become `tool_calls` of an assistant message, merged into
/// the assistant message just before them; outputs become `tool` messages, whose content is
/// text only (OpenAI rejects images there), so their images follow in a user message after the
/// run of tool messages. Reasoning, web search, compaction, ghost snapshots and unknown items
/// have no chat form and are left out.
fn messages(prompt: &Prompt<'_>, mode: SystemMessageMode) -> Vec<Value> {
    let mut out = ChatMessages {
        mode,
        ..ChatMessages::default()
    };
    if !prompt.instructions.is_empty() {
        out.list
            .push(json!({ "role": "system", "content": prompt.instructions }));
    }
    for item in prompt.items() {
        match item {
            ResponseItem::Message { role, content, .. } => match role.as_str() {
                "developer" | "system" => out.system(content),
                "assistant" => out.push("assistant", message_content(content)),
                _ => out.push("user", message_content(content)),
            },
            ResponseItem::FunctionCall {
                name,
                arguments,
                call_id,
                ..
            } => out.tool_call(call_id, name, arguments),
            ResponseItem::CustomToolCall {
                call_id,
                name,
                input,
                ..
            } => out.tool_call(call_id, name, input),
            ResponseItem::LocalShellCall {
                call_id: Some(call_id),
                action,
                ..
            } => out.tool_call(call_id, "local_shell", &action.to_string()),
            ResponseItem::FunctionCallOutput {
                call_id, output, ..
            }
            | ResponseItem::CustomToolCallOutput {
                call_id, output, ..
            } => out.tool_output(call_id, output),
            ResponseItem::LocalShellCall { call_id: None, .. }
            | ResponseItem::Reasoning { .. }
            | ResponseItem::WebSearchCall { .. }
            | ResponseItem::GhostSnapshot { .. }
            | ResponseItem::Compaction { .. }
            | ResponseItem::Other(_) => {
                tracing::debug!(
                    item = item.type_name(),
                    "item has no chat completions form; left out"
                );
            }
        }
    }
    out.finish()
}

/// Chat messages being built from the history.
#[derive(Debug, Default)]
struct ChatMessages {
    list: Vec<Value>,
    mode: SystemMessageMode,
    /// True once a user, assistant or tool message was pushed.
    conversation_started: bool,
    /// Image parts of tool outputs, waiting for the end of the run of tool messages.
    pending_images: Vec<Value>,
}

impl ChatMessages {
    fn push(&mut self, role: &str, content: Value) {
        self.flush_images();
        self.conversation_started = true;
        self.list.push(json!({ "role": role, "content": content }));
    }

    /// A developer or system message of the history, placed by the mode.
    fn system(&mut self, content: &[ContentItem]) {
        let text = content
            .iter()
            .filter_map(ContentItem::as_text)
            .collect::<Vec<_>>()
            .join("\n");
        match self.mode {
            SystemMessageMode::AsIs => {
                self.flush_images();
                self.list.push(json!({ "role": "system", "content": text }));
            }
            SystemMessageMode::AsUser if self.conversation_started => {
                self.push("user", Value::String(text));
            }
            SystemMessageMode::AsUser | SystemMessageMode::MergeIntoSystem => {
                self.append_to_leading_system(&text);
            }
        }
    }

    fn append_to_leading_system(&mut self, text: &str) {
        if let Some(Value::Object(first)) = self.list.first_mut()
            && first.get("role").and_then(Value::as_str) == Some("system")
        {
            let joined = match first.get("content").and_then(Value::as_str) {
                Some(existing) if !existing.is_empty() => format!("{existing}\n\n{text}"),
                _ => text.to_string(),
            };
            first.insert("content".into(), Value::String(joined));
            return;
        }
        self.list
            .insert(0, json!({ "role": "system", "content": text }));
    }

    /// Appends a tool call to the last assistant message when it is the previous message,
    /// else starts a new assistant message.
    ///
    /// An assistant message with tool calls and no text has no `content` key at all: OpenAI
    /// takes `content` as optional when `tool_calls` is present ("Required unless `tool_calls`
    /// or `function_call` is specified", https://platform.openai.com/docs/api-reference/chat/create),
    /// while llama-cpp-python refuses `"content": null` with a 500 (its request model types an
    /// assistant's `content` as `NotRequired[str]`: abetlen/llama-cpp-python,
    /// `llama_cpp/llama_types.py`) and LM Studio refuses it too. Text said before the calls is
    /// kept.
    fn tool_call(&mut self, call_id: &str, name: &str, arguments: &str) {
        self.flush_images();
        self.conversation_started = true;
        let call = json!({
            "id": call_id,
            "type": "function",
            "function": { "name": name, "arguments": arguments },
        });
        if let Some(Value::Object(last)) = self.list.last_mut()
            && last.get("role").and_then(Value::as_str) == Some("assistant")
        {
            if last.get("content").is_some_and(is_empty_content) {
                last.remove("content");
            }
            match last.get_mut("tool_calls") {
                Some(Value::Array(calls)) => calls.push(call),
                _ => {
                    last.insert("tool_calls".into(), json!([call]));
                }
            }
            return;
        }
        self.list
            .push(json!({ "role": "assistant", "tool_calls": [call] }));
    }

    /// A `tool` message with the output's text; its images wait for the following user
    /// message.
    fn tool_output(&mut self, call_id: &str, output: &FunctionCallOutputPayload) {
        self.conversation_started = true;
        let images: Vec<Value> = match &output.body {
            FunctionCallOutputBody::ContentItems(items) => items
                .iter()
                .filter_map(|item| match item {
                    FunctionCallOutputContentItem::InputImage { image_url, detail } => {
                        Some(image_part(image_url, detail.as_deref()))
                    }
                    FunctionCallOutputContentItem::InputText { .. }
                    | FunctionCallOutputContentItem::Other(_) => None,
                })
                .collect(),
            FunctionCallOutputBody::Text(_) | FunctionCallOutputBody::Other(_) => Vec::new(),
        };
        let mut text = output.text_content();
        if !images.is_empty() {
            if text.is_empty() {
                text = format!("(the output of {call_id} is the image in the next message)");
            }
            self.pending_images.push(json!({
                "type": "text",
                "text": format!("Images returned by tool call {call_id}:"),
            }));
            self.pending_images.extend(images);
        }
        self.list
            .push(json!({ "role": "tool", "tool_call_id": call_id, "content": text }));
    }

    fn flush_images(&mut self) {
        if !self.pending_images.is_empty() {
            let parts = std::mem::take(&mut self.pending_images);
            self.list
                .push(json!({ "role": "user", "content": Value::Array(parts) }));
        }
    }

    /// The messages; in the strict modes consecutive user messages are merged into one message
    /// (see [`merge_content`]), since the strictest templates (Mistral, Gemma) require user and
    /// assistant turns to alternate.
    fn finish(mut self) -> Vec<Value> {
        self.flush_images();
        if self.mode == SystemMessageMode::AsIs {
            return self.list;
        }
        let mut merged: Vec<Value> = Vec::with_capacity(self.list.len());
        for message in self.list {
            let is_user = |m: &Value| m.get("role").and_then(Value::as_str) == Some("user");
            match merged.last_mut() {
                Some(last) if is_user(last) && is_user(&message) => {
                    let previous = last.get("content").cloned().unwrap_or(Value::Null);
                    let next = message.get("content").cloned().unwrap_or(Value::Null);
                    last["content"] = merge_content(previous, next);
                }
                _ => merged.push(message),
            }
        }
        merged
    }
}

/// What separates two user messages merged into one (a blank line, as between the system
/// prompt and a developer message merged into it).
const MERGED_MESSAGE_SEPARATOR: &str = "\n\n";

/// Two user contents as one. Text and text make one string: the chat templates of llama.cpp
/// and llama-cpp-python (jinja) concatenate `content` as a string and fail on a list of parts,
/// and codex sends a message of texts as one string too, a list only when it holds an image
/// (openai/codex, `codex-rs/codex-api/src/requests/chat.rs`, `ChatRequestBuilder::build`).
/// With an image on either side the result is the list of both contents' parts.
fn merge_content(first: Value, second: Value) -> Value {
    match (first, second) {
        (Value::String(first), Value::String(second)) => {
            if first.is_empty() {
                Value::String(second)
            } else if second.is_empty() {
                Value::String(first)
            } else {
                Value::String(format!("{first}{MERGED_MESSAGE_SEPARATOR}{second}"))
            }
        }
        (first, second) => {
            let parts = |content: Value| match content {
                Value::Array(parts) => parts,
                Value::String(text) if text.is_empty() => Vec::new(),
                Value::String(text) => vec![json!({ "type": "text", "text": text })],
                _ => Vec::new(),
            };
            let mut all = parts(first);
            all.extend(parts(second));
            Value::Array(all)
        }
    }
}

/// Text-only content becomes one string (parts joined by newlines); content with images
/// becomes an array of `text` and `image_url` parts.
fn message_content(content: &[ContentItem]) -> Value {
    let has_image = content
        .iter()
        .any(|part| matches!(part, ContentItem::InputImage { .. }));
    if !has_image {
        let text: Vec<&str> = content.iter().filter_map(ContentItem::as_text).collect();
        return Value::String(text.join("\n"));
    }
    Value::Array(
        content
            .iter()
            .filter_map(|part| match part {
                ContentItem::InputText { text } | ContentItem::OutputText { text } => {
                    Some(json!({ "type": "text", "text": text }))
                }
                ContentItem::InputImage { image_url, detail } => {
                    Some(image_part(image_url, detail.as_deref()))
                }
                ContentItem::Other(_) => None,
            })
            .collect(),
    )
}

/// An empty string or an empty list of parts.
fn is_empty_content(content: &Value) -> bool {
    match content {
        Value::String(text) => text.is_empty(),
        Value::Array(parts) => parts.is_empty(),
        Value::Null => true,
        _ => false,
    }
}

fn image_part(url: &str, detail: Option<&str>) -> Value {
    let mut image = Map::new();
    image.insert("url".into(), json!(url));
    if let Some(detail) = detail {
        image.insert("detail".into(), json!(detail));
    }
    json!({ "type": "image_url", "image_url": image })
}

/// The finish reason of a response stopped by the output limit (`max_tokens`).
const LENGTH_FINISH_REASON: &str = "length";

/// A tool call being assembled from `delta.tool_calls` fragments.
#[derive(Debug, Default)]
struct ToolCallParts {
    id: Option<String>,
    name: String,
    arguments: String,
}

/// Parser state of one chat completions stream.
#[derive(Debug, Default)]
pub(crate) struct ChatCompletionsParser {
    response_id: String,
    created: bool,
    reasoning: Option<String>,
    text: Option<String>,
    tool_calls: BTreeMap<u64, ToolCallParts>,
    usage: Option<TokenUsage>,
    finish_reason: Option<String>,
    complete: bool,
}

impl ChatCompletionsParser {
    /// Emits the assembled items and `Completed`. A response cut by the output limit
    /// (`finish_reason: "length"`) keeps its text and whole tool calls, and says so with
    /// [`ResponseEvent::OutputTruncated`] just before `Completed`; a call whose arguments were
    /// cut (they are not JSON) is left out, since running it with half its arguments would do
    /// something nobody asked for.
    fn finish(&mut self, out: &mut Vec<ResponseEvent>) -> Result<(), ModelError> {
        if self.complete {
            return Ok(());
        }
        let truncated = self.finish_reason.as_deref() == Some(LENGTH_FINISH_REASON);
        if let Some(text) = self.reasoning.take() {
            out.push(ResponseEvent::OutputItemDone(ResponseItem::Reasoning {
                id: None,
                summary: Vec::new(),
                content: Some(vec![ReasoningContent::ReasoningText { text }]),
                encrypted_content: None,
                extra: ExtraFields::new(),
            }));
        }
        if let Some(text) = self.text.take() {
            out.push(ResponseEvent::OutputItemDone(ResponseItem::assistant_text(
                text,
            )));
        }
        for (index, call) in std::mem::take(&mut self.tool_calls) {
            let call_id = call
                .id
                .unwrap_or_else(|| format!("call_{}_{index}", self.response_id));
            if truncated && !is_json(&call.arguments) {
                tracing::debug!(
                    call_id,
                    name = call.name,
                    "tool call cut by the output limit; left out"
                );
                continue;
            }
            let arguments = if call.arguments.trim().is_empty() {
                "{}".to_string()
            } else {
                call.arguments
            };
            let item = ResponseItem::function_call(call_id, call.name, arguments);
            out.push(ResponseEvent::OutputItemAdded(item.clone()));
            out.push(ResponseEvent::OutputItemDone(item));
        }
        self.complete = true;
        if truncated {
            out.push(ResponseEvent::OutputTruncated {
                reason: LENGTH_FINISH_REASON.to_string(),
            });
        }
        out.push(ResponseEvent::Completed {
            response_id: self.response_id.clone(),
            token_usage: self.usage,
        });
        Ok(())
    }

    fn on_delta(&mut self, delta: &Value, out: &mut Vec<ResponseEvent>) {
        let reasoning = str_field(delta, "reasoning_content")
            .or_else(|| str_field(delta, "reasoning"))
            .filter(|text| !text.is_empty());
        if let Some(piece) = reasoning {
            if self.reasoning.is_none() {
                out.push(ResponseEvent::OutputItemAdded(ResponseItem::Reasoning {
                    id: None,
                    summary: Vec::new(),
                    content: None,
                    encrypted_content: None,
                    extra: ExtraFields::new(),
                }));
            }
            self.reasoning.get_or_insert_default().push_str(piece);
            out.push(ResponseEvent::ReasoningContentDelta(piece.to_string()));
        }
        if let Some(piece) = str_field(delta, "content").filter(|text| !text.is_empty()) {
            if self.text.is_none() {
                out.push(ResponseEvent::OutputItemAdded(
                    ResponseItem::assistant_text(""),
                ));
            }
            self.text.get_or_insert_default().push_str(piece);
            out.push(ResponseEvent::OutputTextDelta(piece.to_string()));
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for (position, call) in calls.iter().enumerate() {
                let index = call
                    .get("index")
                    .and_then(Value::as_u64)
                    .unwrap_or(position as u64);
                let parts = self.tool_calls.entry(index).or_default();
                if let Some(id) = str_field(call, "id").filter(|id| !id.is_empty()) {
                    parts.id = Some(id.to_string());
                }
                if let Some(function) = call.get("function") {
                    if let Some(name) = str_field(function, "name") {
                        merge_name(&mut parts.name, name);
                    }
                    match function.get("arguments") {
                        Some(Value::String(piece)) => parts.arguments.push_str(piece),
                        // Some servers send the arguments as an object.
                        Some(object @ Value::Object(_)) => {
                            parts.arguments.push_str(&object.to_string())
                        }
                        _ => {}
                    }
                }
            }
        }
    }
}

/// Adds a `name` piece of a tool-call delta. OpenAI sends the whole name once; some vLLM and
/// llama.cpp versions repeat it in every chunk, and a few send it cumulatively, so a piece equal
/// to or extending what is known replaces it and only a genuinely new fragment is appended.
fn merge_name(name: &mut String, piece: &str) {
    if piece.is_empty() || name.as_str() == piece {
        return;
    }
    if name.is_empty() || piece.starts_with(name.as_str()) {
        *name = piece.to_string();
    } else {
        name.push_str(piece);
    }
}

/// Token usage of a chat completions `usage` object.
fn token_usage(usage: &Value) -> TokenUsage {
    let input_tokens = int_field(Some(usage), "prompt_tokens");
    let output_tokens = int_field(Some(usage), "completion_tokens");
    let total = int_field(Some(usage), "total_tokens");
    TokenUsage {
        input_tokens,
        cached_input_tokens: int_field(usage.get("prompt_tokens_details"), "cached_tokens"),
        output_tokens,
        reasoning_output_tokens: int_field(
            usage.get("completion_tokens_details"),
            "reasoning_tokens",
        ),
        total_tokens: if total > 0 {
            total
        } else {
            input_tokens.saturating_add(output_tokens)
        },
    }
}

impl WireEventParser for ChatCompletionsParser {
    fn on_event(
        &mut self,
        event: &str,
        data: &str,
        out: &mut Vec<ResponseEvent>,
    ) -> Result<(), ModelError> {
        if data.trim() == "[DONE]" {
            return self.finish(out);
        }
        let value = parse_json(event, data)?;
        if value.get("error").is_some() || event == "error" {
            return Err(ProviderErrorBody::parse(data).into_stream_error());
        }
        if !self.created {
            self.created = true;
            self.response_id = str_field(&value, "id").unwrap_or_default().to_string();
            out.push(ResponseEvent::Created);
        }
        if let Some(usage) = value.get("usage").filter(|usage| usage.is_object()) {
            self.usage = Some(token_usage(usage));
        }
        let choices = value.get("choices").and_then(Value::as_array);
        for choice in choices.into_iter().flatten() {
            if choice.get("index").and_then(Value::as_u64).unwrap_or(0) != 0 {
                continue;
            }
            if let Some(delta) = choice.get("delta") {
                self.on_delta(delta, out);
            }
            if let Some(reason) = str_field(choice, "finish_reason") {
                self.finish_reason = Some(reason.to_string());
            }
        }
        Ok(())
    }

    fn on_end(&mut self, out: &mut Vec<ResponseEvent>) -> Result<(), ModelError> {
        if self.complete {
            return Ok(());
        }
        if self.finish_reason.is_some() {
            // Some servers end the stream after the finish reason without `[DONE]`.
            return self.finish(out);
        }
        Err(ModelError::StreamDisconnected {
            reason: "stream closed before finish_reason / [DONE]".to_string(),
        })
    }

    fn is_complete(&self) -> bool {
        self.complete
    }
}

#[cfg(test)]
#[path = "chat_completions_tests.rs"]
mod tests;
