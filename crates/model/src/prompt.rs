//! What one model request carries: instructions, input items, tools, reasoning options and an
//! optional structured-output schema.

use std::borrow::Cow;

use agentctx_protocol::ResponseItem;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;
use serde_json::Value;

use crate::structured_output::StructuredOutputMode;

/// One request to a model, independent of the wire format.
///
/// The input items are borrowed or owned ([`Cow`]): a session sends its whole history before
/// every request, and borrowing it (`ContextManager::prompt_view` in `agentctx-context`) spares
/// a deep copy of a history that can hold a million tokens; what the caller builds for one
/// request only (reminders, a summary request) is owned. Both serialise the same way.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Prompt<'a> {
    /// System (base) instructions; the Responses API `instructions`, a `system` chat message, or
    /// the Anthropic top-level `system`.
    pub instructions: String,
    /// The conversation so far.
    pub input: Vec<Cow<'a, ResponseItem>>,
    /// Function tools the model may call.
    pub tools: Vec<ToolSpec>,
    /// Final provider-level reasoning parameters (see [`crate::thinking`] for how a
    /// [`agentctx_protocol::ThinkingLevel`] becomes these).
    pub reasoning: Option<ReasoningOptions>,
    /// A JSON schema the reply must follow (structured output).
    pub output_schema: Option<Value>,
    /// How `output_schema` is asked for: the wire's own structured-output format (the default),
    /// JSON mode, or nothing but the instructions (for servers that refuse the others).
    #[serde(default, skip_serializing_if = "StructuredOutputMode::is_default")]
    pub output_schema_mode: StructuredOutputMode,
    /// The session (conversation) this request belongs to. The Responses API receives it as
    /// `prompt_cache_key`, so consecutive requests of one session are routed to the same
    /// prompt cache; the other wire formats do not send it.
    pub session_id: Option<String>,
}

impl Prompt<'static> {
    /// A prompt of system instructions and one user message.
    pub fn system_and_user(system: impl Into<String>, user: impl Into<String>) -> Self {
        Self {
            instructions: system.into(),
            input: vec![Cow::Owned(ResponseItem::user_text(user))],
            ..Self::default()
        }
    }
}

impl<'a> Prompt<'a> {
    /// A prompt whose input is `items`, owned; every other field empty.
    pub fn with_items(items: impl IntoIterator<Item = ResponseItem>) -> Self {
        Self {
            input: owned_items(items),
            ..Self::default()
        }
    }

    /// The schema when it goes out as the wire's own structured-output format
    /// ([`StructuredOutputMode::JsonSchema`]); `None` without a schema or in another mode.
    pub fn json_schema_output(&self) -> Option<&Value> {
        self.output_schema
            .as_ref()
            .filter(|_| self.output_schema_mode == StructuredOutputMode::JsonSchema)
    }

    /// The input items.
    pub fn items(&self) -> impl Iterator<Item = &ResponseItem> {
        self.input.iter().map(AsRef::as_ref)
    }

    /// The same prompt owning all of its items (what a recorder of prompts keeps).
    pub fn into_owned(self) -> Prompt<'static> {
        Prompt {
            instructions: self.instructions,
            input: self
                .input
                .into_iter()
                .map(|item| Cow::Owned(item.into_owned()))
                .collect(),
            tools: self.tools,
            reasoning: self.reasoning,
            output_schema: self.output_schema,
            output_schema_mode: self.output_schema_mode,
            session_id: self.session_id,
        }
    }
}

/// `items` as owned prompt input.
pub fn owned_items<'a>(
    items: impl IntoIterator<Item = ResponseItem>,
) -> Vec<Cow<'a, ResponseItem>> {
    items.into_iter().map(Cow::Owned).collect()
}

/// A function tool: a name, a description and a JSON schema of its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolSpec {
    /// The name the model calls it by.
    pub name: String,
    /// What the tool does, shown to the model.
    pub description: String,
    /// JSON schema of the arguments object.
    pub parameters: Value,
}

/// OpenAI reasoning effort (Responses `reasoning.effort`, Chat `reasoning_effort`), ordered from
/// the least to the most reasoning.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ReasoningEffort {
    /// `minimal`.
    Minimal,
    /// `low`.
    Low,
    /// `medium`.
    Medium,
    /// `high`.
    High,
    /// `xhigh`.
    #[serde(rename = "xhigh")]
    XHigh,
}

impl ReasoningEffort {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Minimal => "minimal",
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
            Self::XHigh => "xhigh",
        }
    }
}

/// Responses API `reasoning.summary`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReasoningSummaryMode {
    /// `auto`.
    Auto,
    /// `concise`.
    Concise,
    /// `detailed`.
    Detailed,
}

impl ReasoningSummaryMode {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Concise => "concise",
            Self::Detailed => "detailed",
        }
    }
}

/// Provider-level reasoning parameters, already mapped from a thinking level by the application
/// layer. Each wire format reads the fields it understands: Responses and Chat read `effort`
/// (and Responses `summary`), Anthropic reads `budget_tokens` and `interleaved`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ReasoningOptions {
    /// OpenAI reasoning effort.
    pub effort: Option<ReasoningEffort>,
    /// OpenAI Responses reasoning summary mode.
    pub summary: Option<ReasoningSummaryMode>,
    /// Anthropic extended-thinking budget in tokens.
    pub budget_tokens: Option<i32>,
    /// Anthropic interleaved thinking (beta header).
    pub interleaved: bool,
}
