//! Anthropic Messages API: `POST {base_url}/v1/messages` with `stream: true`.

use std::collections::BTreeMap;

use agentctx_protocol::ContentItem;
use agentctx_protocol::ExtraFields;
use agentctx_protocol::FunctionCallOutputBody;
use agentctx_protocol::FunctionCallOutputContentItem;
use agentctx_protocol::ReasoningContent;
use agentctx_protocol::ReasoningSummary;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::TokenUsage;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use crate::context_management::ContextManagementConfig;
use crate::error::ModelError;
use crate::error::ProviderErrorBody;
use crate::model_info::ModelInfo;
use crate::prompt::Prompt;
use crate::response_event::AppliedContextEdit;
use crate::response_event::ProviderContextReport;
use crate::response_event::ResponseEvent;
use crate::thinking::ANTHROPIC_MIN_BUDGET_TOKENS;
use crate::wire::WireEventParser;
use crate::wire::anthropic_compaction::ANTHROPIC_COMPACTION_ID_PREFIX;
use crate::wire::anthropic_compaction::COMPACTION_STOP_REASON;
use crate::wire::anthropic_compaction::CompactionBlock;
use crate::wire::anthropic_compaction::applied_edits;
use crate::wire::anthropic_compaction::compaction_block;
use crate::wire::anthropic_compaction::compaction_usage;
use crate::wire::anthropic_messages_cache::add_cache_breakpoints;
use crate::wire::anthropic_messages_max_tokens::SizingInput;
use crate::wire::anthropic_messages_max_tokens::size_output;
use crate::wire::int_field;
use crate::wire::is_json;
use crate::wire::output_budget::DEFAULT_OUTPUT_TOKENS;
use crate::wire::output_budget::MIN_OUTPUT_TOKENS;
use crate::wire::output_budget::estimate_input_tokens;
use crate::wire::parse_json;
use crate::wire::str_field;

/// `max_tokens` when the model info names no output limit: at most a quarter of the window, then
/// capped to fit it (see `wire/anthropic_messages_max_tokens.rs`).
pub const DEFAULT_ANTHROPIC_MAX_TOKENS: i64 = DEFAULT_OUTPUT_TOKENS;
/// The smallest `max_tokens` sent, however full the window is, in a window of 32,768 tokens or
/// more; a smaller window's floor is an eighth of it (see docs/design/model-streaming.md,
/// "Anthropic request shaping").
pub const MIN_ANTHROPIC_MAX_TOKENS: i64 = MIN_OUTPUT_TOKENS;
/// The tool a structured-output request forces; its input is the structured reply.
pub const STRUCTURED_OUTPUT_TOOL: &str = "structured_output";
/// The beta header value that turns on interleaved thinking.
pub const INTERLEAVED_THINKING_BETA: &str = "interleaved-thinking-2025-05-14";

/// Whether a request marks prompt-cache breakpoints, and with which lifetime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CacheMarking {
    /// Breakpoints (see [`add_cache_breakpoints`]) whose entries live this long.
    Breakpoints(crate::provider_config::PromptCacheTtl),
    /// None: plain strings where the API takes them.
    Off,
}

/// The request body: `system` separate, the history as alternating user / assistant messages of
/// content blocks, tools with `input_schema`, `thinking` with `budget_tokens`.
///
/// A structured-output request forces a [`STRUCTURED_OUTPUT_TOOL`] tool whose input schema is
/// the requested schema; Anthropic refuses forced tool use with thinking, so such a request
/// carries no thinking.
///
/// With `cache` [`CacheMarking::Breakpoints`] (the provider's `prompt_cache_breakpoints`,
/// default on, and `prompt_cache_ttl`) the prompt-cache breakpoints are marked (see
/// [`add_cache_breakpoints`]); without, nothing is
/// marked and `system` and text-only messages go as strings (see
/// [`text_only_content_as_strings`]).
///
/// The provider's `context_management` edits (context editing, server-side compaction) go in
/// `context_management`; thinking block clearing only with a request that thinks.
pub(crate) fn request_body(
    prompt: &Prompt<'_>,
    slug: &str,
    model_info: &ModelInfo,
    cache: CacheMarking,
    context_management: &ContextManagementConfig,
) -> Value {
    let requested_budget = prompt
        .reasoning
        .filter(|_| model_info.may_reason() && prompt.json_schema_output().is_none())
        .and_then(|options| options.budget_tokens)
        .map(|budget| i64::from(budget.max(ANTHROPIC_MIN_BUDGET_TOKENS)));
    let interleaved = prompt.reasoning.is_some_and(|options| options.interleaved);

    let mut tools: Vec<Value> = prompt
        .tools
        .iter()
        .map(|tool| {
            json!({
                "name": tool.name,
                "description": tool.description,
                "input_schema": tool.parameters,
            })
        })
        .collect();
    if let Some(schema) = prompt.json_schema_output() {
        tools.push(json!({
            "name": STRUCTURED_OUTPUT_TOOL,
            "description": "Reply with the requested structured output.",
            "input_schema": schema,
        }));
    }

    let mut system = (!prompt.instructions.is_empty()).then(|| json!(prompt.instructions));
    let mut messages = Value::Array(messages(prompt.items()));
    let mut tools = (!tools.is_empty()).then_some(Value::Array(tools));
    let input_bytes = [system.as_ref(), Some(&messages), tools.as_ref()]
        .into_iter()
        .flatten()
        .map(|value| value.to_string().len())
        .sum();
    let output = size_output(SizingInput {
        model_max_output: model_info.max_output_tokens,
        context_window: model_info.context_window,
        estimated_input_tokens: estimate_input_tokens(input_bytes),
        thinking_budget: requested_budget,
        interleaved,
    });
    if let CacheMarking::Breakpoints(ttl) = cache {
        add_cache_breakpoints(tools.as_mut(), system.as_mut(), &mut messages, ttl);
    } else {
        text_only_content_as_strings(&mut messages);
    }

    let mut body = Map::new();
    // `claude-opus-4-6[1m]` goes as `claude-opus-4-6`, its window opened by the beta header.
    let (model, _) = crate::model_table::one_million_mode(slug);
    body.insert("model".into(), json!(model));
    body.insert("max_tokens".into(), json!(output.max_tokens));
    if let Some(system) = system {
        body.insert("system".into(), system);
    }
    body.insert("messages".into(), messages);
    if let Some(tools) = tools {
        body.insert("tools".into(), tools);
    }
    if prompt.json_schema_output().is_some() {
        body.insert(
            "tool_choice".into(),
            json!({ "type": "tool", "name": STRUCTURED_OUTPUT_TOOL }),
        );
    }
    if let Some(budget) = output.thinking_budget {
        body.insert(
            "thinking".into(),
            json!({ "type": "enabled", "budget_tokens": budget }),
        );
    }
    if let Some(field) = context_management.anthropic_field(output.thinking_budget.is_some()) {
        body.insert("context_management".into(), field);
    }
    body.insert("stream".into(), json!(true));
    Value::Object(body)
}

/// True when the request asks for interleaved thinking (sent as an `anthropic-beta` header).
pub(crate) fn wants_interleaved_thinking(prompt: &Prompt<'_>, model_info: &ModelInfo) -> bool {
    model_info.may_reason()
        && prompt.json_schema_output().is_none()
        && prompt
            .reasoning
            .is_some_and(|options| options.interleaved && options.budget_tokens.is_some())
}

/// The `id` prefix of the reasoning items this parser makes. Anthropic's thinking blocks have no
/// id of their own; the prefix is how a later request tells Anthropic's reasoning (whose
/// signature Anthropic verifies) from another provider's encrypted reasoning after a provider
/// switch. The Responses API request drops item ids, so the marker never reaches OpenAI.
pub(crate) const ANTHROPIC_REASONING_ID_PREFIX: &str = "anthropic_thinking_";

/// True for a reasoning item made from an Anthropic thinking block.
pub(crate) fn is_anthropic_reasoning(id: Option<&str>) -> bool {
    id.is_some_and(|id| id.starts_with(ANTHROPIC_REASONING_ID_PREFIX))
}

/// Converts the history into Anthropic messages, merging consecutive blocks of one role.
///
/// Developer and system messages in the history become user text (the top-level `system` is the
/// prompt's instructions). Anthropic's own reasoning (marked by
/// [`ANTHROPIC_REASONING_ID_PREFIX`]) goes back as it came: raw text and a signature as a
/// `thinking` block, encrypted data alone as a `redacted_thinking` block, unchanged as the API
/// requires (<https://docs.claude.com/en/docs/build-with-claude/extended-thinking>, "Preserving
/// thinking blocks"). Reasoning of another provider (OpenAI's `encrypted_content`, a local
/// model's raw text) would fail Anthropic's signature check and is left out, as is reasoning
/// without a signature.
///
/// An Anthropic `compaction` block recorded from an earlier answer goes back as it came, in its
/// place in the assistant's content (the API then ignores what came before it); another
/// provider's compaction item is opaque to Anthropic and left out (the engine sends its
/// readable copy instead).
fn messages<'a>(input: impl IntoIterator<Item = &'a ResponseItem>) -> Vec<Value> {
    let mut messages: Vec<(String, Vec<Value>)> = Vec::new();
    let mut push = |role: &str, block: Value| match messages.last_mut() {
        Some((last_role, blocks)) if last_role == role => blocks.push(block),
        _ => messages.push((role.to_string(), vec![block])),
    };
    for item in input {
        match item {
            ResponseItem::Message { role, content, .. } => {
                let role = if role == "assistant" {
                    "assistant"
                } else {
                    "user"
                };
                for part in content {
                    if let Some(block) = content_block(part) {
                        push(role, block);
                    }
                }
            }
            ResponseItem::Reasoning { id, .. } if !is_anthropic_reasoning(id.as_deref()) => {
                tracing::debug!(
                    id = id.as_deref().unwrap_or_default(),
                    "reasoning of another provider has no anthropic form; left out"
                );
            }
            ResponseItem::Reasoning {
                content,
                encrypted_content,
                summary,
                ..
            } => {
                let text: Vec<&str> = content
                    .iter()
                    .flatten()
                    .filter_map(|part| match part {
                        ReasoningContent::ReasoningText { text }
                        | ReasoningContent::Text { text } => Some(text.as_str()),
                        ReasoningContent::Other(_) => None,
                    })
                    .collect();
                match encrypted_content {
                    Some(signature) if !text.is_empty() => push(
                        "assistant",
                        json!({ "type": "thinking", "thinking": text.concat(), "signature": signature }),
                    ),
                    Some(data) => push(
                        "assistant",
                        json!({ "type": "redacted_thinking", "data": data }),
                    ),
                    None => {
                        let summaries = summary
                            .iter()
                            .filter(|part| matches!(part, ReasoningSummary::SummaryText { .. }))
                            .count();
                        tracing::debug!(
                            summaries,
                            "unsigned reasoning has no anthropic form; left out"
                        );
                    }
                }
            }
            ResponseItem::FunctionCall {
                name,
                arguments,
                call_id,
                ..
            } => push("assistant", tool_use(call_id, name, arguments)),
            ResponseItem::CustomToolCall {
                call_id,
                name,
                input,
                ..
            } => push(
                "assistant",
                json!({ "type": "tool_use", "id": call_id, "name": name, "input": { "input": input } }),
            ),
            ResponseItem::LocalShellCall {
                call_id: Some(call_id),
                action,
                ..
            } => push(
                "assistant",
                json!({ "type": "tool_use", "id": call_id, "name": "local_shell", "input": action }),
            ),
            ResponseItem::FunctionCallOutput {
                call_id, output, ..
            }
            | ResponseItem::CustomToolCallOutput {
                call_id, output, ..
            } => {
                let content = match &output.body {
                    FunctionCallOutputBody::ContentItems(items) => Value::Array(
                        items
                            .iter()
                            .filter_map(|item| match item {
                                FunctionCallOutputContentItem::InputText { text } => {
                                    Some(json!({ "type": "text", "text": text }))
                                }
                                FunctionCallOutputContentItem::InputImage { image_url, .. } => {
                                    Some(image_block(image_url))
                                }
                                FunctionCallOutputContentItem::Other(_) => None,
                            })
                            .collect(),
                    ),
                    FunctionCallOutputBody::Text(_) | FunctionCallOutputBody::Other(_) => {
                        Value::String(output.text_content())
                    }
                };
                let mut block =
                    json!({ "type": "tool_result", "tool_use_id": call_id, "content": content });
                if output.success == Some(false)
                    && let Value::Object(map) = &mut block
                {
                    map.insert("is_error".into(), json!(true));
                }
                push("user", block);
            }
            ResponseItem::Compaction { .. } => match compaction_block(item) {
                Some(block) => push("assistant", block),
                None => tracing::debug!("another provider's compaction item left out"),
            },
            ResponseItem::LocalShellCall { call_id: None, .. }
            | ResponseItem::WebSearchCall { .. }
            | ResponseItem::GhostSnapshot { .. }
            | ResponseItem::Other(_) => {
                tracing::debug!(
                    item = item.type_name(),
                    "item has no anthropic form; left out"
                );
            }
        }
    }
    messages
        .into_iter()
        .map(|(role, content)| json!({ "role": role, "content": content }))
        .collect()
}

/// Gives each message whose content blocks are all `text` its texts joined with newlines as a
/// string `content`, which Anthropic accepts as one text block
/// (https://docs.claude.com/en/api/messages, `content`: "string or array"). Used when the
/// provider marks no cache breakpoints: a proxy that turns block arrays into chat array content
/// (LiteLLM) reaches backends whose chat templates concatenate strings (llama.cpp), and those
/// read only string content. The newline join is the Chat Completions wire's.
fn text_only_content_as_strings(messages: &mut Value) {
    let Some(messages) = messages.as_array_mut() else {
        return;
    };
    for message in messages {
        let Some(content) = message.get_mut("content") else {
            continue;
        };
        let texts: Option<Vec<&str>> = content.as_array().and_then(|blocks| {
            blocks
                .iter()
                .map(|block| {
                    (str_field(block, "type") == Some("text"))
                        .then(|| str_field(block, "text"))
                        .flatten()
                })
                .collect()
        });
        if let Some(texts) = texts {
            *content = Value::String(texts.join("\n"));
        }
    }
}

fn tool_use(call_id: &str, name: &str, arguments: &str) -> Value {
    let input = match serde_json::from_str::<Value>(arguments) {
        Ok(value @ Value::Object(_)) => value,
        Ok(other) => json!({ "value": other }),
        Err(err) => {
            tracing::warn!(call_id, %err, "function call arguments are not json; sent as {{}}");
            json!({})
        }
    };
    json!({ "type": "tool_use", "id": call_id, "name": name, "input": input })
}

fn content_block(part: &ContentItem) -> Option<Value> {
    match part {
        ContentItem::InputText { text } | ContentItem::OutputText { text } => {
            Some(json!({ "type": "text", "text": text }))
        }
        ContentItem::InputImage { image_url, .. } => Some(image_block(image_url)),
        ContentItem::Other(_) => None,
    }
}

/// A `data:` URL becomes a base64 source, anything else a URL source.
fn image_block(image_url: &str) -> Value {
    if let Some(rest) = image_url.strip_prefix("data:")
        && let Some((meta, data)) = rest.split_once(',')
        && let Some(media_type) = meta.strip_suffix(";base64")
    {
        return json!({
            "type": "image",
            "source": { "type": "base64", "media_type": media_type, "data": data }
        });
    }
    json!({ "type": "image", "source": { "type": "url", "url": image_url } })
}

/// A content block being streamed.
#[derive(Debug)]
enum Block {
    Text(String),
    Thinking {
        text: String,
        signature: String,
    },
    RedactedThinking(String),
    ToolUse {
        id: String,
        name: String,
        json: String,
    },
    StructuredOutput(String),
    Compaction(CompactionBlock),
    Other(Value),
}

/// Parser state of one Anthropic stream.
#[derive(Debug, Default)]
pub(crate) struct AnthropicParser {
    message_id: String,
    input_tokens: i64,
    cached_input_tokens: i64,
    output_tokens: i64,
    usage_seen: bool,
    /// `cache_read_input_tokens` and `cache_creation_input_tokens`, once reported.
    cache: Option<(i64, i64)>,
    blocks: BTreeMap<u64, Block>,
    /// Tool uses whose input is not whole JSON, until the stop reason is known.
    held_tool_uses: Vec<HeldToolUse>,
    stop_reason: Option<String>,
    /// The edits context editing applied, once reported.
    applied_edits: Vec<AppliedContextEdit>,
    /// What the compaction step(s) used (`usage.iterations`), once reported.
    compaction_usage: Option<TokenUsage>,
    complete: bool,
}

impl AnthropicParser {
    /// The id of the compaction item of content block `index`.
    fn compaction_id(&self, index: u64) -> String {
        format!(
            "{ANTHROPIC_COMPACTION_ID_PREFIX}{}_{index}",
            self.message_id
        )
    }

    /// Reads what the provider did to the context: `context_management.applied_edits` and the
    /// compaction entries of `usage.iterations` (each event repeats the whole list; the last
    /// one reported wins).
    fn read_context_management(
        &mut self,
        context_management: Option<&Value>,
        usage: Option<&Value>,
    ) {
        let edits = applied_edits(context_management);
        if !edits.is_empty() {
            self.applied_edits = edits;
        }
        if let Some(compaction) = compaction_usage(usage) {
            self.compaction_usage = Some(compaction);
        }
    }

    /// The report of what the provider did to the context, when it did anything.
    fn provider_context(&self) -> Option<ProviderContextReport> {
        let report = ProviderContextReport {
            applied_edits: self.applied_edits.clone(),
            compaction_usage: self.compaction_usage,
            paused_after_compaction: self.stop_reason.as_deref() == Some(COMPACTION_STOP_REASON),
        };
        (report != ProviderContextReport::default()).then_some(report)
    }

    /// The id of the reasoning item of content block `index`.
    fn reasoning_id(&self, index: u64) -> String {
        format!("{ANTHROPIC_REASONING_ID_PREFIX}{}_{index}", self.message_id)
    }

    /// The usage read so far: `message_start` carries the input side, each `message_delta`
    /// the output tokens produced until then.
    fn token_usage(&self) -> TokenUsage {
        TokenUsage {
            input_tokens: self.input_tokens,
            cached_input_tokens: self.cached_input_tokens,
            output_tokens: self.output_tokens,
            reasoning_output_tokens: 0,
            total_tokens: self.input_tokens.saturating_add(self.output_tokens),
        }
    }

    fn read_usage(&mut self, usage: Option<&Value>) {
        let Some(usage) = usage else { return };
        self.usage_seen = true;
        let has = |key: &str| usage.get(key).and_then(Value::as_i64).is_some();
        if has("input_tokens") || has("cache_read_input_tokens") {
            self.input_tokens = int_field(Some(usage), "input_tokens")
                .saturating_add(int_field(Some(usage), "cache_read_input_tokens"))
                .saturating_add(int_field(Some(usage), "cache_creation_input_tokens"));
            self.cached_input_tokens = int_field(Some(usage), "cache_read_input_tokens");
            if has("cache_read_input_tokens") || has("cache_creation_input_tokens") {
                self.cache = Some((
                    int_field(Some(usage), "cache_read_input_tokens"),
                    int_field(Some(usage), "cache_creation_input_tokens"),
                ));
            }
        }
        if has("output_tokens") {
            self.output_tokens = int_field(Some(usage), "output_tokens");
        }
    }

    fn block_start(&mut self, index: u64, block: &Value, out: &mut Vec<ResponseEvent>) {
        let kind = str_field(block, "type").unwrap_or_default();
        let started = match kind {
            "text" => {
                out.push(ResponseEvent::OutputItemAdded(
                    ResponseItem::assistant_text(""),
                ));
                let text = str_field(block, "text").unwrap_or_default().to_string();
                if !text.is_empty() {
                    out.push(ResponseEvent::OutputTextDelta(text.clone()));
                }
                Block::Text(text)
            }
            "thinking" => {
                out.push(ResponseEvent::OutputItemAdded(reasoning_item(
                    self.reasoning_id(index),
                    None,
                    None,
                )));
                Block::Thinking {
                    text: str_field(block, "thinking").unwrap_or_default().to_string(),
                    signature: str_field(block, "signature")
                        .unwrap_or_default()
                        .to_string(),
                }
            }
            "redacted_thinking" => {
                out.push(ResponseEvent::OutputItemAdded(reasoning_item(
                    self.reasoning_id(index),
                    None,
                    None,
                )));
                Block::RedactedThinking(str_field(block, "data").unwrap_or_default().to_string())
            }
            "tool_use" if str_field(block, "name") == Some(STRUCTURED_OUTPUT_TOOL) => {
                out.push(ResponseEvent::OutputItemAdded(
                    ResponseItem::assistant_text(""),
                ));
                Block::StructuredOutput(String::new())
            }
            "tool_use" => {
                let id = str_field(block, "id").unwrap_or_default().to_string();
                let name = str_field(block, "name").unwrap_or_default().to_string();
                out.push(ResponseEvent::OutputItemAdded(ResponseItem::function_call(
                    id.clone(),
                    name.clone(),
                    "",
                )));
                Block::ToolUse {
                    id,
                    name,
                    json: String::new(),
                }
            }
            "compaction" => {
                out.push(ResponseEvent::OutputItemAdded(
                    CompactionBlock::default().into_item(self.compaction_id(index)),
                ));
                Block::Compaction(CompactionBlock::start(block))
            }
            _ => Block::Other(block.clone()),
        };
        self.blocks.insert(index, started);
    }

    fn block_delta(&mut self, index: u64, delta: &Value, out: &mut Vec<ResponseEvent>) {
        let Some(block) = self.blocks.get_mut(&index) else {
            tracing::warn!(index, "content_block_delta for an unknown block; skipped");
            return;
        };
        let kind = str_field(delta, "type").unwrap_or_default();
        match (kind, block) {
            ("text_delta", Block::Text(text)) => {
                let piece = str_field(delta, "text").unwrap_or_default();
                text.push_str(piece);
                out.push(ResponseEvent::OutputTextDelta(piece.to_string()));
            }
            ("thinking_delta", Block::Thinking { text, .. }) => {
                let piece = str_field(delta, "thinking").unwrap_or_default();
                text.push_str(piece);
                out.push(ResponseEvent::ReasoningContentDelta(piece.to_string()));
            }
            ("signature_delta", Block::Thinking { signature, .. }) => {
                signature.push_str(str_field(delta, "signature").unwrap_or_default());
            }
            ("input_json_delta", Block::ToolUse { json, .. }) => {
                json.push_str(str_field(delta, "partial_json").unwrap_or_default());
            }
            ("input_json_delta", Block::StructuredOutput(json)) => {
                let piece = str_field(delta, "partial_json").unwrap_or_default();
                json.push_str(piece);
                out.push(ResponseEvent::OutputTextDelta(piece.to_string()));
            }
            ("compaction_delta", Block::Compaction(compaction)) => compaction.delta(delta),
            (kind, _) => tracing::trace!(index, kind, "ignoring content_block_delta"),
        }
    }

    fn block_stop(&mut self, index: u64, out: &mut Vec<ResponseEvent>) {
        let Some(block) = self.blocks.remove(&index) else {
            tracing::warn!(index, "content_block_stop for an unknown block; skipped");
            return;
        };
        let item = match block {
            Block::Text(text) | Block::StructuredOutput(text) => ResponseItem::assistant_text(text),
            Block::Thinking { text, signature } => reasoning_item(
                self.reasoning_id(index),
                Some(text),
                (!signature.is_empty()).then_some(signature),
            ),
            Block::RedactedThinking(data) => {
                reasoning_item(self.reasoning_id(index), None, Some(data))
            }
            Block::ToolUse { id, name, json } if !is_json(&json) => {
                self.held_tool_uses.push(HeldToolUse { id, name, json });
                return;
            }
            Block::ToolUse { id, name, json } => ResponseItem::function_call(id, name, json),
            Block::Compaction(compaction) => compaction.into_item(self.compaction_id(index)),
            Block::Other(value) => ResponseItem::Other(value),
        };
        out.push(ResponseEvent::OutputItemDone(item));
    }
}

/// The stop reason of a response stopped by `max_tokens`.
const MAX_TOKENS_STOP_REASON: &str = "max_tokens";

/// A `tool_use` block whose input is not whole JSON (empty, or cut), held until the stop reason
/// says whether the output limit cut it.
#[derive(Debug)]
struct HeldToolUse {
    id: String,
    name: String,
    json: String,
}

impl AnthropicParser {
    /// Delivers the held tool uses once the stop reason is known. A response stopped by
    /// `max_tokens` may end in a tool use block cut short ("the truncated response contains an
    /// incomplete tool use block": https://docs.claude.com/en/api/handling-stop-reasons): such
    /// a call is left out rather than run with half its input. Otherwise an empty input is `{}`
    /// (a tool without parameters) and anything else goes as it came.
    fn release_held_tool_uses(&mut self, truncated: bool, out: &mut Vec<ResponseEvent>) {
        for HeldToolUse { id, name, json } in std::mem::take(&mut self.held_tool_uses) {
            if truncated {
                tracing::debug!(id, name, "tool use cut by max_tokens; left out");
                continue;
            }
            let arguments = if json.trim().is_empty() {
                "{}".to_string()
            } else {
                json
            };
            out.push(ResponseEvent::OutputItemDone(ResponseItem::function_call(
                id, name, arguments,
            )));
        }
    }
}

/// A reasoning item: thinking text as `reasoning_text` content, the signature (or redacted
/// data) as `encrypted_content`, and an id marking it as Anthropic's.
fn reasoning_item(
    id: String,
    text: Option<String>,
    encrypted_content: Option<String>,
) -> ResponseItem {
    ResponseItem::Reasoning {
        id: Some(id),
        summary: Vec::new(),
        content: text.map(|text| vec![ReasoningContent::ReasoningText { text }]),
        encrypted_content,
        extra: ExtraFields::new(),
    }
}

impl WireEventParser for AnthropicParser {
    fn on_event(
        &mut self,
        event: &str,
        data: &str,
        out: &mut Vec<ResponseEvent>,
    ) -> Result<(), ModelError> {
        let value = parse_json(event, data)?;
        let kind = str_field(&value, "type").unwrap_or(event);
        let index = value.get("index").and_then(Value::as_u64).unwrap_or(0);
        match kind {
            "message_start" => {
                let message = value.get("message");
                self.message_id = message
                    .and_then(|m| str_field(m, "id"))
                    .unwrap_or_default()
                    .to_string();
                self.read_usage(message.and_then(|m| m.get("usage")));
                self.read_context_management(
                    message.and_then(|m| m.get("context_management")),
                    message.and_then(|m| m.get("usage")),
                );
                out.push(ResponseEvent::Created);
            }
            "content_block_start" => {
                let block = value.get("content_block").cloned().unwrap_or(Value::Null);
                self.block_start(index, &block, out);
            }
            "content_block_delta" => {
                let delta = value.get("delta").cloned().unwrap_or(Value::Null);
                self.block_delta(index, &delta, out);
            }
            "content_block_stop" => self.block_stop(index, out),
            "message_delta" => {
                if let Some(reason) = value.get("delta").and_then(|d| str_field(d, "stop_reason")) {
                    self.stop_reason = Some(reason.to_string());
                }
                self.read_usage(value.get("usage"));
                self.read_context_management(value.get("context_management"), value.get("usage"));
            }
            "message_stop" => {
                self.complete = true;
                let truncated = self.stop_reason.as_deref() == Some(MAX_TOKENS_STOP_REASON);
                self.release_held_tool_uses(truncated, out);
                if self.stop_reason.as_deref() == Some("model_context_window_exceeded") {
                    return Err(ModelError::ContextWindowExceeded {
                        message: "stop_reason model_context_window_exceeded".to_string(),
                    });
                }
                if let Some((read_input_tokens, creation_input_tokens)) = self.cache {
                    out.push(ResponseEvent::PromptCache {
                        read_input_tokens,
                        creation_input_tokens,
                    });
                }
                if let Some(report) = self.provider_context() {
                    out.push(ResponseEvent::ProviderContext(report));
                }
                if truncated {
                    // The blocks already delivered are kept: the text is cut short, not wrong.
                    out.push(ResponseEvent::OutputTruncated {
                        reason: MAX_TOKENS_STOP_REASON.to_string(),
                    });
                }
                out.push(ResponseEvent::Completed {
                    response_id: self.message_id.clone(),
                    token_usage: Some(self.token_usage()),
                });
            }
            "error" => return Err(ProviderErrorBody::parse(data).into_stream_error()),
            "ping" => {}
            other => tracing::trace!(event = other, "ignoring anthropic sse event"),
        }
        Ok(())
    }

    fn on_end(&mut self, _out: &mut Vec<ResponseEvent>) -> Result<(), ModelError> {
        if self.complete {
            Ok(())
        } else {
            Err(ModelError::StreamDisconnected {
                reason: "stream closed before message_stop".to_string(),
            })
        }
    }

    fn is_complete(&self) -> bool {
        self.complete
    }

    fn usage_so_far(&self) -> Option<TokenUsage> {
        self.usage_seen.then(|| self.token_usage())
    }
}

#[cfg(test)]
#[path = "anthropic_messages_tests.rs"]
mod tests;
