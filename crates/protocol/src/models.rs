//! Response items: the conversation as the Responses API and codex-rs rollouts spell it.
//!
//! Every struct variant carries an [`ExtraFields`] map that keeps fields this version does not know,
//! and each enum has an `Other` variant that keeps an unknown `type` verbatim, so reading then writing
//! a rollout loses nothing.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Deserializer;
use serde::Serialize;
use serde::Serializer;
use serde_json::Map;
use serde_json::Value;

/// Fields of a JSON object that this version of the protocol does not model, kept verbatim.
pub type ExtraFields = Map<String, Value>;

/// One item of the conversation history, tagged by `type` as codex-rs writes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResponseItem {
    /// A message from the user, the assistant, the developer or the system.
    Message {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        role: String,
        content: Vec<ContentItem>,
        #[serde(flatten)]
        extra: ExtraFields,
    },
    /// Model reasoning: summaries, optional raw content and opaque encrypted content.
    Reasoning {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        #[serde(default)]
        summary: Vec<ReasoningSummary>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<Vec<ReasoningContent>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        encrypted_content: Option<String>,
        #[serde(flatten)]
        extra: ExtraFields,
    },
    /// A shell command the model asked the harness to run.
    LocalShellCall {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<String>,
        action: Value,
        #[serde(flatten)]
        extra: ExtraFields,
    },
    /// A function tool call; `arguments` is the raw JSON string the model produced.
    FunctionCall {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        name: String,
        arguments: String,
        call_id: String,
        #[serde(flatten)]
        extra: ExtraFields,
    },
    /// The harness's answer to a function call (or a local shell call).
    FunctionCallOutput {
        call_id: String,
        output: FunctionCallOutputPayload,
        #[serde(flatten)]
        extra: ExtraFields,
    },
    /// A free-form (custom) tool call.
    CustomToolCall {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<String>,
        call_id: String,
        name: String,
        input: String,
        #[serde(flatten)]
        extra: ExtraFields,
    },
    /// The output of a custom tool call.
    CustomToolCallOutput {
        call_id: String,
        output: FunctionCallOutputPayload,
        #[serde(flatten)]
        extra: ExtraFields,
    },
    /// A server-side web search.
    WebSearchCall {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        action: Option<Value>,
        #[serde(flatten)]
        extra: ExtraFields,
    },
    /// A snapshot of the work tree the harness took; never sent to the model.
    GhostSnapshot {
        ghost_commit: Value,
        #[serde(flatten)]
        extra: ExtraFields,
    },
    /// A server-side compaction result (opaque).
    #[serde(alias = "compaction_summary")]
    Compaction {
        encrypted_content: String,
        #[serde(flatten)]
        extra: ExtraFields,
    },
    /// An item whose `type` this version does not know, kept verbatim.
    #[serde(untagged)]
    Other(Value),
}

/// One part of a message's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentItem {
    /// Text written by the user, the developer or the harness.
    InputText { text: String },
    /// An image, as a URL or a `data:` URL.
    InputImage {
        image_url: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    /// Text written by the model.
    OutputText { text: String },
    /// A content part whose `type` this version does not know, kept verbatim.
    #[serde(untagged)]
    Other(Value),
}

/// A reasoning summary part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ReasoningSummary {
    /// Summary text.
    SummaryText { text: String },
    /// An unknown part, kept verbatim.
    #[serde(untagged)]
    Other(Value),
}

/// A raw reasoning content part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ReasoningContent {
    /// Raw reasoning text.
    ReasoningText { text: String },
    /// Plain text.
    Text { text: String },
    /// An unknown part, kept verbatim.
    #[serde(untagged)]
    Other(Value),
}

/// The output of a tool call. On the wire it is a plain string or an array of content items;
/// `success` is harness-internal and never serialized.
#[derive(Debug, Clone, PartialEq, Default, JsonSchema)]
pub struct FunctionCallOutputPayload {
    /// What the model sees.
    pub body: FunctionCallOutputBody,
    /// Whether the call succeeded, when the harness knows.
    pub success: Option<bool>,
}

/// The body of a tool output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum FunctionCallOutputBody {
    /// Plain text.
    Text(String),
    /// Structured content (text and images).
    ContentItems(Vec<FunctionCallOutputContentItem>),
    /// Any other JSON shape (older builds wrote an object), kept verbatim.
    Other(Value),
}

impl Default for FunctionCallOutputBody {
    fn default() -> Self {
        Self::Text(String::new())
    }
}

/// One part of a structured tool output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FunctionCallOutputContentItem {
    /// Text.
    InputText { text: String },
    /// An image.
    InputImage {
        image_url: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    /// An unknown part, kept verbatim.
    #[serde(untagged)]
    Other(Value),
}

impl Serialize for FunctionCallOutputPayload {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.body.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for FunctionCallOutputPayload {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        FunctionCallOutputBody::deserialize(deserializer).map(Self::from_body)
    }
}

impl FunctionCallOutputPayload {
    /// The payload a recorded `body` stands for.
    pub(crate) fn from_body(body: FunctionCallOutputBody) -> Self {
        // Older codex builds wrote `{content, content_items?, success?}`; the body keeps that
        // object verbatim and `success` is read from it.
        let success = match &body {
            FunctionCallOutputBody::Other(Value::Object(fields)) => {
                fields.get("success").and_then(Value::as_bool)
            }
            FunctionCallOutputBody::Text(_)
            | FunctionCallOutputBody::ContentItems(_)
            | FunctionCallOutputBody::Other(_) => None,
        };
        Self { body, success }
    }

    /// A plain-text output.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            body: FunctionCallOutputBody::Text(text.into()),
            success: None,
        }
    }

    /// The text the model sees: the string itself, or the text parts joined by newlines. For the
    /// legacy object shape it is the object's `content` string (its `content_items` texts when
    /// `content` is missing); any other JSON is rendered as JSON.
    pub fn text_content(&self) -> String {
        match &self.body {
            FunctionCallOutputBody::Text(text) => text.clone(),
            FunctionCallOutputBody::ContentItems(items) => join_texts(items),
            FunctionCallOutputBody::Other(value) => {
                if let Some(content) = value.get("content").and_then(Value::as_str) {
                    return content.to_string();
                }
                value
                    .get("content_items")
                    .and_then(|items| Vec::<FunctionCallOutputContentItem>::deserialize(items).ok())
                    .map_or_else(|| value.to_string(), |items| join_texts(&items))
            }
        }
    }
}

fn join_texts(items: &[FunctionCallOutputContentItem]) -> String {
    items
        .iter()
        .filter_map(|item| match item {
            FunctionCallOutputContentItem::InputText { text } => Some(text.as_str()),
            FunctionCallOutputContentItem::InputImage { .. }
            | FunctionCallOutputContentItem::Other(_) => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl ContentItem {
    /// An `input_text` part.
    pub fn input_text(text: impl Into<String>) -> Self {
        Self::InputText { text: text.into() }
    }

    /// An `output_text` part.
    pub fn output_text(text: impl Into<String>) -> Self {
        Self::OutputText { text: text.into() }
    }

    /// The text of a text part, `None` for images and unknown parts.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::InputText { text } | Self::OutputText { text } => Some(text),
            Self::InputImage { .. } | Self::Other(_) => None,
        }
    }
}

impl ResponseItem {
    /// A message with one text part: `input_text` for user/developer/system, `output_text` for
    /// the assistant.
    pub fn text_message(role: impl Into<String>, text: impl Into<String>) -> Self {
        let role = role.into();
        let part = if role == "assistant" {
            ContentItem::output_text(text)
        } else {
            ContentItem::input_text(text)
        };
        Self::Message {
            id: None,
            role,
            content: vec![part],
            extra: ExtraFields::new(),
        }
    }

    /// A user message with one `input_text` part.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self::text_message("user", text)
    }

    /// An assistant message with one `output_text` part.
    pub fn assistant_text(text: impl Into<String>) -> Self {
        Self::text_message("assistant", text)
    }

    /// A developer message with one `input_text` part.
    pub fn developer_text(text: impl Into<String>) -> Self {
        Self::text_message("developer", text)
    }

    /// A function call.
    pub fn function_call(
        call_id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self::FunctionCall {
            id: None,
            name: name.into(),
            arguments: arguments.into(),
            call_id: call_id.into(),
            extra: ExtraFields::new(),
        }
    }

    /// A plain-text function call output.
    pub fn function_call_output(call_id: impl Into<String>, output: impl Into<String>) -> Self {
        Self::FunctionCallOutput {
            call_id: call_id.into(),
            output: FunctionCallOutputPayload::text(output),
            extra: ExtraFields::new(),
        }
    }

    /// The `type` tag this item has on the wire.
    pub fn type_name(&self) -> &str {
        match self {
            Self::Message { .. } => "message",
            Self::Reasoning { .. } => "reasoning",
            Self::LocalShellCall { .. } => "local_shell_call",
            Self::FunctionCall { .. } => "function_call",
            Self::FunctionCallOutput { .. } => "function_call_output",
            Self::CustomToolCall { .. } => "custom_tool_call",
            Self::CustomToolCallOutput { .. } => "custom_tool_call_output",
            Self::WebSearchCall { .. } => "web_search_call",
            Self::GhostSnapshot { .. } => "ghost_snapshot",
            Self::Compaction { .. } => "compaction",
            Self::Other(value) => value
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("unknown"),
        }
    }

    /// The role of a message, `None` for other items.
    pub fn role(&self) -> Option<&str> {
        match self {
            Self::Message { role, .. } => Some(role),
            _ => None,
        }
    }

    /// The text parts of a message joined by newlines; `None` for other items.
    pub fn message_text(&self) -> Option<String> {
        match self {
            Self::Message { content, .. } => Some(
                content
                    .iter()
                    .filter_map(ContentItem::as_text)
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            _ => None,
        }
    }

    /// The call id of a call or an output, `None` for other items.
    pub fn call_id(&self) -> Option<&str> {
        match self {
            Self::FunctionCall { call_id, .. }
            | Self::FunctionCallOutput { call_id, .. }
            | Self::CustomToolCall { call_id, .. }
            | Self::CustomToolCallOutput { call_id, .. } => Some(call_id),
            Self::LocalShellCall { call_id, .. } => call_id.as_deref(),
            _ => None,
        }
    }

    /// True for items that ask the harness to run a tool.
    pub fn is_tool_call(&self) -> bool {
        matches!(
            self,
            Self::FunctionCall { .. } | Self::CustomToolCall { .. } | Self::LocalShellCall { .. }
        )
    }

    /// True for the harness's answers to tool calls.
    pub fn is_tool_output(&self) -> bool {
        matches!(
            self,
            Self::FunctionCallOutput { .. } | Self::CustomToolCallOutput { .. }
        )
    }

    /// True for a message the harness injected although it travels with the `user` role (a
    /// Claude Code `isMeta` record: a skill body, a command caveat, command output). Such a
    /// message never starts a user turn, so rollback and compaction never cut at it.
    pub fn is_injected(&self) -> bool {
        match self {
            Self::Message { extra, .. } => {
                extra.get(INJECTED_FIELD).and_then(Value::as_bool) == Some(true)
            }
            _ => false,
        }
    }

    /// Marks (or unmarks) a message as injected (see [`ResponseItem::is_injected`]). The mark
    /// is kept in the item's fields, so it is written to and read from session files; it is
    /// not model-visible and a provider request must leave it out
    /// ([`ResponseItem::without_harness_fields`]). Items other than messages are unchanged.
    pub fn set_injected(&mut self, injected: bool) {
        if let Self::Message { extra, .. } = self {
            if injected {
                extra.insert(INJECTED_FIELD.to_string(), Value::Bool(true));
            } else {
                extra.remove(INJECTED_FIELD);
            }
        }
    }

    /// Whether the item carries a field agentctx keeps for itself (the injected mark, a
    /// compaction item's readable copy and writer), which
    /// [`ResponseItem::without_harness_fields`] removes. Without one, the item can be sent as
    /// it is, without a copy.
    pub fn has_harness_fields(&self) -> bool {
        match self {
            Self::Message { extra, .. } => extra.contains_key(INJECTED_FIELD),
            Self::Compaction { extra, .. } => {
                extra.contains_key(crate::compaction_copy::READABLE_COPY_FIELD)
                    || extra.contains_key(crate::compaction_copy::WRITTEN_BY_FIELD)
            }
            _ => false,
        }
    }

    /// The item without the fields agentctx keeps for itself (the injected mark, a compaction
    /// item's readable copy and writer), as a provider request must send it.
    pub fn without_harness_fields(&self) -> Self {
        let mut item = self.clone();
        item.set_injected(false);
        if let Self::Compaction { extra, .. } = &mut item {
            extra.remove(crate::compaction_copy::READABLE_COPY_FIELD);
            extra.remove(crate::compaction_copy::WRITTEN_BY_FIELD);
        }
        item
    }
}

/// The message field that records [`ResponseItem::is_injected`]. See
/// docs/design/rollout-formats.md, "Injected messages".
const INJECTED_FIELD: &str = "agentctx_injected";
