//! OpenAI Responses API: `POST {base_url}/responses` with `stream: true`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use agentctx_protocol::ContentItem;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;
use serde::Serialize;
use serde::Serializer;
use serde::ser::SerializeMap;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use crate::error::ModelError;
use crate::error::ProviderErrorBody;
use crate::model_info::ModelInfo;
use crate::prompt::Prompt;
use crate::prompt::ReasoningEffort;
use crate::response_event::ResponseEvent;
use crate::structured_output::StructuredOutputMode;
use crate::wire::WireEventParser;
use crate::wire::anthropic_compaction::is_anthropic_compaction;
use crate::wire::int_field;
use crate::wire::output_budget::estimate_input_tokens;
use crate::wire::output_budget::json_bytes;
use crate::wire::output_budget::output_limit;
use crate::wire::parse_json;
use crate::wire::str_field;

/// Name of the structured-output format sent in `text.format`.
pub(crate) const OUTPUT_SCHEMA_NAME: &str = "output";

/// The `text` field of a structured request: the schema as a `json_schema` format, JSON mode
/// (`json_object`) after a server refused that, or nothing in plain-text mode.
fn text_format(prompt: &Prompt<'_>) -> Option<Value> {
    let schema = prompt.output_schema.as_ref()?;
    match prompt.output_schema_mode {
        StructuredOutputMode::JsonSchema => Some(json!({
            "format": {
                "type": "json_schema",
                "name": OUTPUT_SCHEMA_NAME,
                "schema": schema,
                "strict": false,
            }
        })),
        StructuredOutputMode::JsonObject => Some(json!({ "format": { "type": "json_object" } })),
        StructuredOutputMode::Text => None,
    }
}

/// The request body. Input items pass through as codex writes them, shaped for a request
/// that is not stored (`store: false`, see [`input_item`]).
///
/// A reasoning model always gets `include: ["reasoning.encrypted_content"]`: without it the
/// reasoning items come back empty and the model loses its reasoning state between turns
/// (https://platform.openai.com/docs/guides/reasoning, "Encrypted reasoning items"). The
/// requested effort is clamped to what the model accepts, and `prompt_cache_key` carries the
/// session id so consecutive requests of a session share the prompt cache
/// (https://platform.openai.com/docs/guides/prompt-caching).
///
/// The items are written straight from the prompt's (borrowed) items; only the ones that must
/// change (an id or reasoning text removed, the injected mark dropped) are copied. Building a
/// JSON tree of the input first would copy a long history twice before every request. A
/// message whose parts are all text is written with string content (see [`InputItem`]).
///
/// With server-side compaction configured, `context_management` asks the server to compact
/// once the rendered context passes the threshold (see [`RequestBody::with_context_management`]).
#[derive(Debug, Serialize)]
pub(crate) struct RequestBody<'a> {
    pub(super) model: &'a str,
    pub(super) instructions: &'a str,
    #[serde(serialize_with = "serialize_input")]
    pub(super) input: Vec<Cow<'a, ResponseItem>>,
    pub(super) tools: Vec<Value>,
    tool_choice: &'static str,
    pub(super) parallel_tool_calls: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) reasoning: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    include: Option<[&'static str; 1]>,
    store: bool,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) prompt_cache_key: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) text: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    context_management: Option<Value>,
    /// Sent only for a model whose own output limit is unknown (see [`output_tokens`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) max_output_tokens: Option<i64>,
}

impl<'a> RequestBody<'a> {
    pub(crate) fn new(prompt: &'a Prompt<'_>, slug: &'a str, model_info: &ModelInfo) -> Self {
        let input: Vec<Cow<'a, ResponseItem>> = prompt
            .input
            .iter()
            .filter_map(|item| input_item(item, model_info))
            .collect();
        let tools: Vec<Value> = prompt
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "type": "function",
                    "name": tool.name,
                    "description": tool.description,
                    "strict": false,
                    "parameters": tool.parameters,
                })
            })
            .collect();
        let reasoning_options = prompt
            .reasoning
            .filter(|_| model_info.may_reason())
            .filter(|options| options.effort.is_some() || options.summary.is_some());
        let reasoning = reasoning_options.map(|options| {
            let mut value = Map::new();
            if let Some(effort) = options.effort {
                let effort = model_info.clamp_effort(effort);
                value.insert("effort".into(), json!(effort.as_str()));
            }
            if let Some(summary) = options.summary {
                value.insert("summary".into(), json!(summary.as_str()));
            }
            Value::Object(value)
        });
        let include = (reasoning_options.is_some() || model_info.supports_reasoning == Some(true))
            .then_some(["reasoning.encrypted_content"]);
        let text = text_format(prompt);
        let max_output_tokens = output_tokens(model_info, &prompt.instructions, &input, &tools);
        Self {
            model: slug,
            instructions: &prompt.instructions,
            input,
            tools,
            tool_choice: "auto",
            parallel_tool_calls: false,
            reasoning,
            include,
            store: false,
            stream: true,
            prompt_cache_key: prompt.session_id.as_deref().filter(|id| !id.is_empty()),
            text,
            context_management: None,
            max_output_tokens,
        }
    }

    /// Sends `context_management` (server-side compaction, see
    /// [`crate::ContextManagementConfig::compact_threshold`]) when it is `Some`.
    pub(crate) fn with_context_management(mut self, field: Option<Value>) -> Self {
        self.context_management = field;
        self
    }
}

/// `max_output_tokens` for a model whose own output limit is unknown: sized from its window as
/// the Chat Completions and Anthropic bodies size theirs (`output_budget::output_limit`), so a
/// local server behind the Responses API (llama.cpp, LiteLLM, vLLM) does not generate until its
/// window is full. A model whose limit is known gets none: the server knows it, as codex
/// assumes (it never sends the field). The input is measured only then, by writing it to a
/// byte counter.
fn output_tokens(
    model_info: &ModelInfo,
    instructions: &str,
    input: &[Cow<'_, ResponseItem>],
    tools: &[Value],
) -> Option<i64> {
    if model_info.max_output_tokens.is_some() {
        return None;
    }
    let input_bytes = instructions
        .len()
        .saturating_add(json_bytes(&InputItems(input)))
        .saturating_add(json_bytes(&tools));
    Some(output_limit(
        None,
        model_info.context_window,
        estimate_input_tokens(input_bytes),
    ))
}

/// The input items as the body writes them.
struct InputItems<'i, 'a>(&'i [Cow<'a, ResponseItem>]);

impl Serialize for InputItems<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_input(self.0, serializer)
    }
}

/// The effort the prompt asks for and the one the body carries (clamped to what the model
/// accepts); `None` when the body carries none.
pub(crate) fn effort(
    prompt: &Prompt<'_>,
    model_info: &ModelInfo,
) -> Option<(ReasoningEffort, ReasoningEffort)> {
    let requested = prompt
        .reasoning
        .filter(|_| model_info.may_reason())
        .and_then(|options| options.effort)?;
    Some((requested, model_info.clamp_effort(requested)))
}

pub(super) fn serialize_input<S: Serializer>(
    input: &[Cow<'_, ResponseItem>],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(input.iter().map(|item| InputItem(item)))
}

/// One input item as it is written. A message whose parts are all text goes with its texts
/// joined into one string, `{"type":"message","role":..,"content":".."}` (the Responses API's
/// `EasyInputMessage`, which takes a string `content` for every role:
/// https://platform.openai.com/docs/api-reference/responses/create), plus the fields the
/// message carries (`phase`, `status`). A translating proxy (LiteLLM) turns an array of
/// parts into chat array content, which chat templates that concatenate strings (llama.cpp's
/// jinja templates) cannot read. The texts are joined with a newline, as the Chat Completions
/// wire joins them. A message with an image or a part of unknown type keeps its array, and
/// every other item is written as it is.
struct InputItem<'a>(&'a ResponseItem);

impl Serialize for InputItem<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            ResponseItem::Message {
                id,
                role,
                content,
                extra,
            } if content.iter().all(|part| part.as_text().is_some()) => {
                let mut map = serializer.serialize_map(None)?;
                map.serialize_entry("type", "message")?;
                if let Some(id) = id {
                    map.serialize_entry("id", id)?;
                }
                map.serialize_entry("role", role)?;
                map.serialize_entry("content", &JoinedText(content))?;
                for (key, value) in extra {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
            item => item.serialize(serializer),
        }
    }
}

/// The texts of a message's parts joined with newlines, written as one JSON string without
/// building it first.
struct JoinedText<'a>(&'a [ContentItem]);

impl fmt::Display for JoinedText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut texts = self.0.iter().filter_map(ContentItem::as_text);
        if let Some(first) = texts.next() {
            f.write_str(first)?;
        }
        for text in texts {
            f.write_str("\n")?;
            f.write_str(text)?;
        }
        Ok(())
    }
}

impl Serialize for JoinedText<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// [`RequestBody`] (with `context_management` when `Some`) as a JSON tree.
pub(crate) fn request_body(
    prompt: &Prompt<'_>,
    slug: &str,
    model_info: &ModelInfo,
    context_management: Option<Value>,
) -> Value {
    let body =
        RequestBody::new(prompt, slug, model_info).with_context_management(context_management);
    match serde_json::to_value(body) {
        Ok(value) => value,
        Err(error) => {
            // Only a map with keys that are not strings fails, and the body has none.
            tracing::error!(%error, "the request body could not be built as JSON");
            Value::Null
        }
    }
}

/// One history item as a request that is not stored may carry it, or `None` to leave it out.
/// Borrowed when it goes as it is.
///
/// - Item ids are removed: nothing is stored, so an id points at nothing and the API answers
///   "Item with id ... not found".
/// - Reasoning goes back only as its encrypted state (with its summary): raw reasoning text is
///   never sent, and reasoning without encrypted content (from a Chat Completions server, or a
///   request made without `include`) has nothing the API can use, so it is left out. A model
///   that does not reason gets no reasoning items at all.
/// - Reasoning made from an Anthropic thinking block (after a provider switch) is left out: its
///   signature is Anthropic's, not OpenAI's encrypted state.
/// - Ghost snapshots are harness-only; unknown item types that carry a server id are left out
///   for the same reason as ids.
/// - A compaction item goes back as codex-rs writes it, `{"type": "compaction",
///   "encrypted_content": ...}` (the input item the API reference names: its `id` is optional
///   and `created_by` is output only), and one made from an Anthropic compaction block (after a
///   provider switch) is left out: OpenAI cannot read it. The engine puts the readable copy in
///   the place of such an item before a request.
fn input_item<'a>(item: &'a ResponseItem, model_info: &ModelInfo) -> Option<Cow<'a, ResponseItem>> {
    // What the request changes: the id (and reasoning text) of the item, and agentctx's own
    // marks (the injected flag), which are never sent.
    let changes = match item {
        ResponseItem::Reasoning {
            id,
            content,
            encrypted_content,
            ..
        } => {
            if !model_info.may_reason() || encrypted_content.as_deref().is_none_or(str::is_empty) {
                tracing::debug!("reasoning item without encrypted content left out");
                return None;
            }
            if super::anthropic_messages::is_anthropic_reasoning(id.as_deref()) {
                // After a switch from Anthropic: its thinking signature is not OpenAI's
                // encrypted state, and the API would reject it as undecryptable.
                tracing::debug!("anthropic thinking left out of an openai request");
                return None;
            }
            id.is_some() || content.is_some()
        }
        ResponseItem::Message { id, .. }
        | ResponseItem::LocalShellCall { id, .. }
        | ResponseItem::FunctionCall { id, .. }
        | ResponseItem::CustomToolCall { id, .. }
        | ResponseItem::WebSearchCall { id, .. } => id.is_some(),
        ResponseItem::GhostSnapshot { .. } => return None,
        ResponseItem::Compaction { .. } if is_anthropic_compaction(item) => {
            tracing::debug!("anthropic compaction block left out of an openai request");
            return None;
        }
        ResponseItem::Compaction { extra, .. } => !extra.is_empty(),
        ResponseItem::Other(value) if value.get("id").is_some() => {
            let kind = value
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("unknown");
            tracing::debug!(
                item = kind,
                "unknown item with a server id left out (requests are not stored)"
            );
            return None;
        }
        // Nothing to send.
        ResponseItem::Other(Value::Null) => return None,
        ResponseItem::FunctionCallOutput { .. }
        | ResponseItem::CustomToolCallOutput { .. }
        | ResponseItem::Other(_) => false,
    };
    if !changes && !item.has_harness_fields() {
        return Some(Cow::Borrowed(item));
    }
    let mut item = item.without_harness_fields();
    match &mut item {
        ResponseItem::Reasoning { id, content, .. } => {
            *id = None;
            *content = None;
        }
        ResponseItem::Message { id, .. }
        | ResponseItem::LocalShellCall { id, .. }
        | ResponseItem::FunctionCall { id, .. }
        | ResponseItem::CustomToolCall { id, .. }
        | ResponseItem::WebSearchCall { id, .. } => *id = None,
        ResponseItem::Compaction { extra, .. } => extra.clear(),
        ResponseItem::FunctionCallOutput { .. }
        | ResponseItem::CustomToolCallOutput { .. }
        | ResponseItem::GhostSnapshot { .. }
        | ResponseItem::Other(_) => {}
    }
    Some(Cow::Owned(item))
}

/// Token usage of a `response.completed` event.
pub(crate) fn token_usage(usage: &Value) -> TokenUsage {
    let input_tokens = int_field(Some(usage), "input_tokens");
    let output_tokens = int_field(Some(usage), "output_tokens");
    let total = int_field(Some(usage), "total_tokens");
    TokenUsage {
        input_tokens,
        cached_input_tokens: int_field(usage.get("input_tokens_details"), "cached_tokens"),
        output_tokens,
        reasoning_output_tokens: int_field(usage.get("output_tokens_details"), "reasoning_tokens"),
        total_tokens: if total > 0 {
            total
        } else {
            input_tokens.saturating_add(output_tokens)
        },
    }
}

/// The `incomplete_details.reason` of a response stopped by `max_output_tokens`.
const MAX_OUTPUT_TOKENS_REASON: &str = "max_output_tokens";

/// Parser state of one Responses stream.
#[derive(Debug, Default)]
pub(crate) struct ResponsesParser {
    /// The text of each message item started and not yet done, by `output_index`: what a
    /// response stopped by the output limit leaves when no `output_item.done` closes it.
    open_messages: BTreeMap<u64, String>,
    complete: bool,
}

impl ResponsesParser {
    /// The `output_index` of an event (0 when absent).
    fn output_index(value: &Value) -> u64 {
        value
            .get("output_index")
            .and_then(Value::as_u64)
            .unwrap_or(0)
    }

    /// A response stopped by `max_output_tokens`: the message items left open are delivered
    /// (the response's own `output` item when it has one, else the text streamed), then
    /// [`ResponseEvent::OutputTruncated`] and `Completed`. OpenAI closes the cut message with
    /// `output_item.done` (status `incomplete`) before `response.incomplete`, so usually
    /// nothing is open; a translating proxy may not. Open function calls, reasoning and other
    /// items were cut and are left out.
    fn truncated(&mut self, response: Option<&Value>, out: &mut Vec<ResponseEvent>) {
        let output = response
            .and_then(|r| r.get("output"))
            .and_then(Value::as_array);
        for (index, text) in std::mem::take(&mut self.open_messages) {
            let listed = usize::try_from(index)
                .ok()
                .and_then(|index| output.and_then(|output| output.get(index)))
                .filter(|item| str_field(item, "type") == Some("message"))
                .and_then(|item| serde_json::from_value::<ResponseItem>(item.clone()).ok());
            match listed {
                Some(item) => out.push(ResponseEvent::OutputItemDone(item)),
                None if !text.is_empty() => out.push(ResponseEvent::OutputItemDone(
                    ResponseItem::assistant_text(text),
                )),
                None => {}
            }
        }
        self.complete = true;
        out.push(ResponseEvent::OutputTruncated {
            reason: MAX_OUTPUT_TOKENS_REASON.to_string(),
        });
        out.push(ResponseEvent::Completed {
            response_id: response
                .and_then(|r| str_field(r, "id"))
                .unwrap_or_default()
                .to_string(),
            token_usage: response
                .and_then(|r| r.get("usage"))
                .filter(|usage| usage.is_object())
                .map(token_usage),
        });
    }

    fn item(kind: &str, value: &Value) -> Result<ResponseItem, ModelError> {
        let item = value.get("item").cloned().unwrap_or(Value::Null);
        serde_json::from_value(item).map_err(|err| ModelError::Decode {
            what: format!("sse event `{kind}` item"),
            message: err.to_string(),
        })
    }
}

impl WireEventParser for ResponsesParser {
    fn on_event(
        &mut self,
        event: &str,
        data: &str,
        out: &mut Vec<ResponseEvent>,
    ) -> Result<(), ModelError> {
        let value = parse_json(event, data)?;
        let kind = str_field(&value, "type").unwrap_or(event);
        let delta = || str_field(&value, "delta").unwrap_or_default().to_string();
        match kind {
            "response.created" => out.push(ResponseEvent::Created),
            "response.output_item.added" => {
                let item = Self::item(kind, &value)?;
                if matches!(item, ResponseItem::Message { .. }) {
                    self.open_messages
                        .insert(Self::output_index(&value), String::new());
                }
                out.push(ResponseEvent::OutputItemAdded(item));
            }
            "response.output_item.done" => {
                self.open_messages.remove(&Self::output_index(&value));
                out.push(ResponseEvent::OutputItemDone(Self::item(kind, &value)?));
            }
            "response.output_text.delta" => {
                if let Some(text) = self.open_messages.get_mut(&Self::output_index(&value)) {
                    text.push_str(str_field(&value, "delta").unwrap_or_default());
                }
                out.push(ResponseEvent::OutputTextDelta(delta()));
            }
            "response.reasoning_summary_text.delta" => {
                out.push(ResponseEvent::ReasoningSummaryDelta(delta()));
            }
            "response.reasoning_text.delta" => {
                out.push(ResponseEvent::ReasoningContentDelta(delta()));
            }
            "response.completed" => {
                let response = value.get("response");
                let response_id = response
                    .and_then(|r| str_field(r, "id"))
                    .unwrap_or_default()
                    .to_string();
                let token_usage = response
                    .and_then(|r| r.get("usage"))
                    .filter(|usage| usage.is_object())
                    .map(token_usage);
                self.complete = true;
                out.push(ResponseEvent::Completed {
                    response_id,
                    token_usage,
                });
            }
            "response.failed" => {
                let error = value
                    .get("response")
                    .and_then(|r| r.get("error"))
                    .map(|error| ProviderErrorBody::parse(&json!({ "error": error }).to_string()))
                    .unwrap_or_else(|| ProviderErrorBody::parse(data));
                return Err(error.into_stream_error());
            }
            "response.incomplete" => {
                let response = value.get("response");
                let reason = response
                    .and_then(|r| r.get("incomplete_details"))
                    .and_then(|d| str_field(d, "reason"))
                    .unwrap_or("unknown");
                if reason == MAX_OUTPUT_TOKENS_REASON {
                    self.truncated(response, out);
                    return Ok(());
                }
                // Another reason (`content_filter`): the answer was withheld, not cut short.
                return Err(ModelError::Incomplete {
                    reason: reason.to_string(),
                });
            }
            "error" => return Err(ProviderErrorBody::parse(data).into_stream_error()),
            other => tracing::trace!(event = other, "ignoring responses sse event"),
        }
        Ok(())
    }

    fn on_end(&mut self, _out: &mut Vec<ResponseEvent>) -> Result<(), ModelError> {
        if self.complete {
            Ok(())
        } else {
            Err(ModelError::StreamDisconnected {
                reason: "stream closed before response.completed".to_string(),
            })
        }
    }

    fn is_complete(&self) -> bool {
        self.complete
    }
}

#[cfg(test)]
#[path = "responses_tests.rs"]
mod tests;
