//! Rollout lines: the JSONL records of a codex-rs session file.
//!
//! A line is `{"timestamp": "...", "type": T, "payload": {...}}`. Known types are parsed into typed
//! payloads; an unknown type, or a known type whose payload has a shape this version does not
//! understand, is kept verbatim as [`RolloutItem::Unknown`], so writing the line back reproduces it.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Deserializer;
use serde::Serialize;
use serde::Serializer;
use serde_json::Map;
use serde_json::Value;

use crate::models::ExtraFields;
use crate::models::ResponseItem;
use crate::payload_compare::serializes_to;
use crate::payload_fidelity::PayloadFidelity;
use crate::token_usage::TokenUsageInfo;
use crate::typed_payload;

/// One line of a rollout file.
#[derive(Debug, Clone, PartialEq, JsonSchema)]
pub struct RolloutLine {
    /// UTC timestamp, `%Y-%m-%dT%H:%M:%S%.3fZ`; empty when the line had none.
    pub timestamp: String,
    /// What the line records.
    pub item: RolloutItem,
    /// Envelope fields other than `timestamp`, `type` and `payload` (for example `ordinal`).
    pub extra: ExtraFields,
    /// Where the typed payload serializes differently from the line as read (fields written as
    /// `null`, fields of nested parts this version does not model, defaults, aliases); writing
    /// the line back restores them, so an unchanged line round-trips to equal JSON.
    #[schemars(skip)]
    pub fidelity: PayloadFidelity,
}

/// A line's JSON object taken apart into the envelope's members: the one reading of the
/// envelope that [`RolloutLine::from_value`] and `LazyRolloutLine::from_value` share.
pub(crate) struct Envelope {
    /// The `type`.
    pub(crate) kind: String,
    /// The `payload`.
    pub(crate) payload: Value,
    /// The `timestamp`; empty when missing or not a string (a non-string one stays in `extra`).
    pub(crate) timestamp: String,
    /// Every other member.
    pub(crate) extra: ExtraFields,
}

impl Envelope {
    pub(crate) fn split(value: Value) -> Result<Self, RolloutLineError> {
        let Value::Object(mut object) = value else {
            return Err(RolloutLineError::NotAnObject);
        };
        let kind = match object.remove("type") {
            Some(Value::String(kind)) => kind,
            Some(_) | None => return Err(RolloutLineError::MissingType),
        };
        let Some(payload) = object.remove("payload") else {
            return Err(RolloutLineError::MissingPayload(kind));
        };
        let timestamp = match object.remove("timestamp") {
            Some(Value::String(timestamp)) => timestamp,
            Some(other) => {
                object.insert("timestamp".to_string(), other);
                String::new()
            }
            None => String::new(),
        };
        Ok(Self {
            kind,
            payload,
            timestamp,
            extra: object,
        })
    }
}

/// What a rollout line records.
#[derive(Debug, Clone, PartialEq, JsonSchema)]
pub enum RolloutItem {
    /// The session header, always the first line.
    SessionMeta(SessionMetaLine),
    /// A conversation item.
    ResponseItem(ResponseItem),
    /// A compaction, with the history the model saw afterwards when present.
    Compacted(CompactedItem),
    /// The settings of a turn.
    TurnContext(TurnContextItem),
    /// An event (token counts, user and agent messages, compaction markers, ...).
    EventMsg(EventMsg),
    /// A line type, or payload shape, this version does not model; kept verbatim.
    Unknown {
        /// The line's `type`.
        kind: String,
        /// The line's `payload`, verbatim.
        payload: Value,
    },
}

impl RolloutItem {
    /// The `token_count` event of a response whose usage made `info`, as Codex records it.
    pub fn token_count(info: TokenUsageInfo) -> Self {
        Self::EventMsg(EventMsg::TokenCount(TokenCountEvent {
            info: Some(info),
            ..TokenCountEvent::default()
        }))
    }

    /// The `type` of the line on the wire.
    pub fn kind(&self) -> &str {
        match self {
            Self::SessionMeta(_) => "session_meta",
            Self::ResponseItem(_) => "response_item",
            Self::Compacted(_) => "compacted",
            Self::TurnContext(_) => "turn_context",
            Self::EventMsg(_) => "event_msg",
            Self::Unknown { kind, .. } => kind,
        }
    }

    /// Parses a payload of the given line type. Never fails: a payload that does not fit its type
    /// becomes [`RolloutItem::Unknown`].
    pub fn from_parts(kind: &str, payload: Value) -> Self {
        Self::parse_typed(kind, &payload).unwrap_or(Self::Unknown {
            kind: kind.to_string(),
            payload,
        })
    }

    /// [`RolloutItem::from_parts`], plus what the typed item would write differently from
    /// `payload` (see [`PayloadFidelity`]); an unknown payload is kept verbatim and needs none.
    pub fn from_parts_with_fidelity(kind: &str, payload: Value) -> (Self, PayloadFidelity) {
        match Self::parse_typed(kind, &payload) {
            Some(item) => {
                if item.payload_serializes_to(&payload) {
                    return (item, PayloadFidelity::default());
                }
                let fidelity = item
                    .payload_value()
                    .map(|typed| PayloadFidelity::between(&payload, &typed))
                    .unwrap_or_default();
                (item, fidelity)
            }
            None => (
                Self::Unknown {
                    kind: kind.to_string(),
                    payload,
                },
                PayloadFidelity::default(),
            ),
        }
    }

    /// [`RolloutItem::from_parts`] from the payload's JSON text, typed straight from it (no JSON
    /// tree in between, two to four times faster). Equal to `from_parts` of the payload's tree
    /// for any payload whose objects have no duplicate member names: a tree keeps the last of
    /// duplicates, while typing from the text fails or falls back to the untyped variant. So a
    /// payload the text path cannot type, or types only as an untyped `Other`, is typed again
    /// through the tree; a duplicate inside a nested part may still read differently.
    pub fn from_payload_json(kind: &str, payload: &str) -> Self {
        fn typed<'a, T: Deserialize<'a>>(
            payload: &'a str,
            wrap: fn(T) -> RolloutItem,
        ) -> Option<RolloutItem> {
            serde_json::from_str::<T>(payload).ok().map(wrap)
        }
        let item = match kind {
            "session_meta" => typed(payload, Self::SessionMeta),
            // The common shapes are typed without serde's buffering of tagged enums; anything
            // else through the derived path (see `typed_payload`).
            "response_item" => match typed_payload::response_item(payload) {
                Some(item) => Some(Self::ResponseItem(take_recorded_success(item))),
                None => typed(payload, |item| {
                    Self::ResponseItem(take_recorded_success(item))
                }),
            },
            "compacted" => match typed_payload::compacted(payload) {
                Some(compacted) => Some(Self::Compacted(compacted)),
                None => typed(payload, Self::Compacted),
            },
            "turn_context" => typed(payload, Self::TurnContext),
            "event_msg" => match typed_payload::event_msg(payload) {
                Some(event) => Some(Self::EventMsg(event)),
                None => typed(payload, Self::EventMsg),
            },
            _ => None,
        };
        match item {
            Some(item) if !item.is_untyped_fallback() => item,
            Some(_) | None => match serde_json::from_str::<Value>(payload) {
                Ok(value) => Self::from_parts(kind, value),
                Err(_) => Self::Unknown {
                    kind: kind.to_string(),
                    payload: Value::String(payload.to_string()),
                },
            },
        }
    }

    /// An event or item kept untyped by the enum's own fallback variant.
    fn is_untyped_fallback(&self) -> bool {
        matches!(
            self,
            Self::ResponseItem(ResponseItem::Other(_)) | Self::EventMsg(EventMsg::Other(_))
        )
    }

    fn parse_typed(kind: &str, payload: &Value) -> Option<Self> {
        fn typed<T: serde::de::DeserializeOwned>(
            payload: &Value,
            wrap: fn(T) -> RolloutItem,
        ) -> Option<RolloutItem> {
            T::deserialize(payload).ok().map(wrap)
        }
        match kind {
            "session_meta" => typed(payload, Self::SessionMeta),
            "response_item" => typed(payload, |item| {
                Self::ResponseItem(take_recorded_success(item))
            }),
            "compacted" => typed(payload, Self::Compacted),
            "turn_context" => typed(payload, Self::TurnContext),
            "event_msg" => typed(payload, Self::EventMsg),
            _ => None,
        }
    }

    /// True when the payload serializes to exactly `expected` (no tree is built).
    pub(crate) fn payload_serializes_to(&self, expected: &Value) -> bool {
        match self {
            Self::SessionMeta(meta) => serializes_to(expected, meta),
            // A recorded success flag is added beside the item; compare the built tree.
            Self::ResponseItem(item) if tool_output_success(item).is_some() => {
                self.payload_value().is_ok_and(|typed| &typed == expected)
            }
            Self::ResponseItem(item) => serializes_to(expected, item),
            Self::Compacted(compacted) => serializes_to(expected, compacted),
            Self::TurnContext(context) => serializes_to(expected, context),
            Self::EventMsg(event) => serializes_to(expected, event),
            Self::Unknown { payload, .. } => payload == expected,
        }
    }

    /// The payload as JSON.
    pub fn payload_value(&self) -> Result<Value, serde_json::Error> {
        match self {
            Self::SessionMeta(meta) => serde_json::to_value(meta),
            Self::ResponseItem(item) => {
                let mut value = serde_json::to_value(item)?;
                if let (Some(success), Value::Object(fields)) =
                    (tool_output_success(item), &mut value)
                {
                    fields.insert(RECORDED_SUCCESS_FIELD.to_string(), Value::Bool(success));
                }
                Ok(value)
            }
            Self::Compacted(compacted) => serde_json::to_value(compacted),
            Self::TurnContext(context) => serde_json::to_value(context),
            Self::EventMsg(event) => serde_json::to_value(event),
            Self::Unknown { payload, .. } => Ok(payload.clone()),
        }
    }
}

/// The payload member that records whether a tool call succeeded. The flag is harness-internal
/// (the model never sees it, so [`ResponseItem`] does not serialize it), but a session file
/// keeps it beside the output so a failed call is still known as failed when the file is read
/// again (Claude Code's `is_error`, for instance). Codex ignores the member. See
/// docs/design/rollout-formats.md, "Tool output success".
const RECORDED_SUCCESS_FIELD: &str = "success";

fn tool_output_success(item: &ResponseItem) -> Option<bool> {
    match item {
        ResponseItem::FunctionCallOutput { output, .. }
        | ResponseItem::CustomToolCallOutput { output, .. } => output.success,
        _ => None,
    }
}

/// Moves a recorded success flag from the item's unknown fields into its output, so it is not
/// sent to the model as an unknown field and is written back in the same place.
pub(crate) fn take_recorded_success(mut item: ResponseItem) -> ResponseItem {
    if let ResponseItem::FunctionCallOutput { output, extra, .. }
    | ResponseItem::CustomToolCallOutput { output, extra, .. } = &mut item
        && let Some(Value::Bool(success)) = extra.get(RECORDED_SUCCESS_FIELD)
    {
        output.success = Some(*success);
        extra.remove(RECORDED_SUCCESS_FIELD);
    }
    item
}

/// Why a JSON value is not a rollout line.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RolloutLineError {
    /// The value is not a JSON object.
    #[error("rollout line is not a JSON object")]
    NotAnObject,
    /// The object has no string `type`.
    #[error("rollout line has no string `type` field")]
    MissingType,
    /// The object has no `payload`.
    #[error("rollout line of type `{0}` has no `payload` field")]
    MissingPayload(String),
}

impl RolloutLine {
    /// A line with the given timestamp and item.
    pub fn new(timestamp: impl Into<String>, item: RolloutItem) -> Self {
        Self {
            timestamp: timestamp.into(),
            item,
            extra: ExtraFields::new(),
            fidelity: PayloadFidelity::default(),
        }
    }

    /// Reads a line in the `{timestamp, type, payload}` envelope.
    pub fn from_value(value: Value) -> Result<Self, RolloutLineError> {
        let Envelope {
            kind,
            payload,
            timestamp,
            extra,
        } = Envelope::split(value)?;
        let (item, fidelity) = RolloutItem::from_parts_with_fidelity(&kind, payload);
        Ok(Self {
            timestamp,
            item,
            extra,
            fidelity,
        })
    }

    /// The line as a JSON object in the envelope.
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        let mut object = Map::new();
        if !self.timestamp.is_empty() || !self.extra.contains_key("timestamp") {
            object.insert(
                "timestamp".to_string(),
                Value::String(self.timestamp.clone()),
            );
        }
        object.insert(
            "type".to_string(),
            Value::String(self.item.kind().to_string()),
        );
        let mut payload = self.item.payload_value()?;
        self.fidelity.restore(&mut payload);
        object.insert("payload".to_string(), payload);
        for (key, value) in &self.extra {
            object.insert(key.clone(), value.clone());
        }
        Ok(Value::Object(object))
    }
}

impl Serialize for RolloutLine {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value()
            .map_err(serde::ser::Error::custom)?
            .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RolloutLine {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Self::from_value(value).map_err(serde::de::Error::custom)
    }
}

/// The session header.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct SessionMetaLine {
    /// Session (thread) id.
    #[serde(default)]
    pub id: String,
    /// When the session started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// Working directory of the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Which program wrote the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub originator: Option<String>,
    /// Version of the program that wrote the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cli_version: Option<String>,
    /// Where the session came from (`cli`, `vscode`, `exec`, a sub-agent, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Value>,
    /// The model provider id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_provider: Option<String>,
    /// Git information collected at start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<Value>,
    /// Fields not modelled here (instructions, base_instructions, ...).
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// A compaction record.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct CompactedItem {
    /// The summary text.
    #[serde(default)]
    pub message: String,
    /// The history the model saw after the compaction, when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replacement_history: Option<Vec<ResponseItem>>,
    /// Fields not modelled here.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// The settings a turn ran with.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct TurnContextItem {
    /// Turn id (newer builds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    /// Working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Approval policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_policy: Option<Value>,
    /// Sandbox policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_policy: Option<Value>,
    /// Model slug.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Reasoning effort.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<Value>,
    /// Reasoning summary setting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Value>,
    /// Personality (newer builds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub personality: Option<Value>,
    /// Collaboration mode (newer builds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collaboration_mode: Option<Value>,
    /// Fields not modelled here.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// An event recorded in a rollout, tagged by its own `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventMsg {
    /// Token usage after a request.
    TokenCount(TokenCountEvent),
    /// A compaction happened.
    ContextCompacted(ExtraFields),
    /// The user's message, as typed.
    UserMessage(UserMessageEvent),
    /// The agent's message.
    AgentMessage(AgentMessageEvent),
    /// A reasoning summary.
    AgentReasoning(TextEvent),
    /// Raw reasoning content.
    AgentReasoningRawContent(TextEvent),
    /// The turn was aborted.
    TurnAborted(ExtraFields),
    /// The user rolled back the last `num_turns` user turns: a history rebuilt from the rollout
    /// drops them at this point (see docs/design/rollout-formats.md, "Rollback").
    ThreadRolledBack(ThreadRolledBackEvent),
    /// An event this version does not model, kept verbatim.
    #[serde(untagged)]
    Other(Value),
}

/// `token_count` payload.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct TokenCountEvent {
    /// Usage snapshot; absent on early events.
    #[serde(default)]
    pub info: Option<TokenUsageInfo>,
    /// Rate limit snapshot, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limits: Option<Value>,
    /// Fields not modelled here.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// `thread_rolled_back` payload (codex-rs `ThreadRolledBackEvent`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct ThreadRolledBackEvent {
    /// Number of user turns removed from the context.
    pub num_turns: u32,
    /// Fields not modelled here (newer builds add where the rolled-back range starts).
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// `user_message` payload.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct UserMessageEvent {
    /// The text the user typed.
    #[serde(default)]
    pub message: String,
    /// Fields not modelled here (kind, images, ...).
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// `agent_message` payload.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct AgentMessageEvent {
    /// The text of the message.
    #[serde(default)]
    pub message: String,
    /// Fields not modelled here.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// A payload with one `text` field.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct TextEvent {
    /// The text.
    #[serde(default)]
    pub text: String,
    /// Fields not modelled here.
    #[serde(flatten)]
    pub extra: ExtraFields,
}
