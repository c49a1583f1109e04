//! Typing a `response_item` or `event_msg` payload straight from its JSON text, when its own
//! `type` is its first member (as every writer we know puts it).
//!
//! [`ResponseItem`] and [`EventMsg`] are tagged by a `type` member with an untagged fallback
//! variant, so serde's derived `Deserialize` first buffers the whole payload (every string and
//! number of it) into an intermediate tree to find the tag, then types the variant from that
//! tree, and keeps the tree to retry the fallback. Reading a rollout, that buffering is most of
//! the cost of typing an item. Here the tag is read first, and the rest of the members go
//! straight into the variant's fields.
//!
//! These paths only answer when they give exactly what the derived `Deserialize` gives: any
//! payload they do not expect (the tag not first or not a string, an unknown tag, a second
//! `type`, a missing or mistyped field, an unknown nested part) makes them answer `None`, and
//! the caller types the payload through the derived path as before. So they never decide
//! between a typed variant and the fallback one. Each variant's fields are spelled again below,
//! with the same serde attributes as the enum's; the tests compare both paths on every field.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::Deserializer;
use serde::de;
use serde::de::DeserializeSeed;
use serde::de::MapAccess;
use serde::de::SeqAccess;
use serde::de::Visitor;
use serde::de::value::BorrowedStrDeserializer;
use serde::de::value::MapAccessDeserializer;
use serde::de::value::SeqAccessDeserializer;
use serde::de::value::StringDeserializer;
use serde_json::Value;

use crate::models::ContentItem;
use crate::models::ExtraFields;
use crate::models::FunctionCallOutputBody;
use crate::models::FunctionCallOutputContentItem;
use crate::models::FunctionCallOutputPayload;
use crate::models::ReasoningContent;
use crate::models::ReasoningSummary;
use crate::models::ResponseItem;
use crate::rollout::AgentMessageEvent;
use crate::rollout::CompactedItem;
use crate::rollout::EventMsg;
use crate::rollout::RolloutItem;
use crate::rollout::TextEvent;
use crate::rollout::ThreadRolledBackEvent;
use crate::rollout::TokenCountEvent;
use crate::rollout::UserMessageEvent;
use crate::rollout::take_recorded_success;

/// The tag member of every payload typed here.
const TAG: &str = "type";

/// The item of a `response_item` payload, as `serde_json::from_str::<ResponseItem>` types it,
/// when its `type` comes first and names a known variant whose fields all read; else `None`.
pub(crate) fn response_item(payload: &str) -> Option<ResponseItem> {
    from_text::<Tagged<ResponseItem>>(payload).map(|tagged| tagged.0)
}

/// The event of an `event_msg` payload, as `serde_json::from_str::<EventMsg>` types it, when
/// its `type` comes first and names a known variant whose fields all read; else `None`.
pub(crate) fn event_msg(payload: &str) -> Option<EventMsg> {
    from_text::<Tagged<EventMsg>>(payload).map(|tagged| tagged.0)
}

/// The compaction of a `compacted` payload, as `serde_json::from_str::<CompactedItem>` types
/// it, when every item of its replacement history takes the fast path; else `None`.
pub(crate) fn compacted(payload: &str) -> Option<CompactedItem> {
    let fields = from_text::<CompactedFields>(payload)?;
    Some(CompactedItem {
        message: fields.message,
        replacement_history: fields.replacement_history.map(untag),
        extra: fields.extra,
    })
}

/// The item of the `kind` payload that starts `text` (anything may follow it), as
/// [`RolloutItem::from_payload_json`] types that payload, and the payload's length; `None` when
/// `kind` is neither `response_item` nor `event_msg` or the payload does not take the fast path.
pub(crate) fn rollout_item_prefix(kind: &str, text: &str) -> Option<(RolloutItem, usize)> {
    match kind {
        "response_item" => first_value::<Tagged<ResponseItem>>(text).map(|(item, end)| {
            (
                RolloutItem::ResponseItem(take_recorded_success(item.0)),
                end,
            )
        }),
        "event_msg" => first_value::<Tagged<EventMsg>>(text)
            .map(|(event, end)| (RolloutItem::EventMsg(event.0), end)),
        _ => None,
    }
}

/// The first value of `text` and the offset just after it.
fn first_value<'a, T: Deserialize<'a>>(text: &'a str) -> Option<(T, usize)> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<T>();
    let value = stream.next()?.ok()?;
    Some((value, stream.byte_offset()))
}

/// `T` read from the whole of `text` (only whitespace may follow it, as `from_str` requires).
fn from_text<'a, T: Deserialize<'a>>(text: &'a str) -> Option<T> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = T::deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()?;
    Some(value)
}

/// A type tagged by its first member, `type`: [`Variants::read`] types the rest by the tag.
trait Variants<'de>: Sized {
    /// The value of variant `tag` from the members after the tag.
    fn read<A: MapAccess<'de>>(tag: &str, rest: TagFree<A>) -> Result<Self, A::Error>;
}

/// `T` read from an object whose first member is its string `type`.
struct Tagged<T>(T);

impl<'de, T: Variants<'de>> Deserialize<'de> for Tagged<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_map(TypeFirst(PhantomData))
            .map(Tagged)
    }
}

struct TypeFirst<T>(PhantomData<T>);

impl<'de, T: Variants<'de>> Visitor<'de> for TypeFirst<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object whose first member is its string `type`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        match map.next_key::<JsonStr<'de>>()? {
            Some(key) if key.0 == TAG => {}
            _ => return Err(de::Error::custom("`type` is not the first member")),
        }
        let tag = map.next_value::<JsonStr<'de>>()?;
        T::read(&tag.0, TagFree(map))
    }
}

/// The members after the tag: a second `type` is an error, as it is for serde's tagged enums
/// (the variant's own fields would otherwise keep it as an unknown member, or drop it).
struct TagFree<A>(A);

impl<'de, A: MapAccess<'de>> MapAccess<'de> for TagFree<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(NotTheTag(seed))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.0.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

/// A member name, refused when it is the tag, else handed to `K` as the string it is.
struct NotTheTag<K>(K);

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for NotTheTag<K> {
    type Value = K::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<K::Value, D::Error> {
        let key = JsonStr::deserialize(deserializer)?;
        if key.0 == TAG {
            return Err(de::Error::duplicate_field(TAG));
        }
        match key.0 {
            Cow::Borrowed(key) => self.0.deserialize(BorrowedStrDeserializer::new(key)),
            Cow::Owned(key) => self.0.deserialize(StringDeserializer::new(key)),
        }
    }
}

/// A JSON string, borrowed from the text when it holds no escapes.
struct JsonStr<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for JsonStr<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StrVisitor;
        impl<'de> Visitor<'de> for StrVisitor {
            type Value = JsonStr<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(JsonStr(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(JsonStr(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(JsonStr(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(StrVisitor)
    }
}

/// `T` from the members after the tag.
fn rest<'de, T: Deserialize<'de>, A: MapAccess<'de>>(rest: TagFree<A>) -> Result<T, A::Error> {
    T::deserialize(MapAccessDeserializer::new(rest))
}

fn unknown_tag<E: de::Error>(tag: &str) -> E {
    de::Error::custom(format_args!("no fast path for `type` {tag}"))
}

impl<'de> Variants<'de> for ResponseItem {
    fn read<A: MapAccess<'de>>(tag: &str, members: TagFree<A>) -> Result<Self, A::Error> {
        Ok(match tag {
            "message" => rest::<MessageFields, A>(members)?.into(),
            "reasoning" => rest::<ReasoningFields, A>(members)?.into(),
            "local_shell_call" => rest::<LocalShellCallFields, A>(members)?.into(),
            "function_call" => rest::<FunctionCallFields, A>(members)?.into(),
            "function_call_output" => {
                let fields = rest::<ToolOutputFields, A>(members)?;
                Self::FunctionCallOutput {
                    call_id: fields.call_id,
                    output: fields.output.0,
                    extra: fields.extra,
                }
            }
            "custom_tool_call" => rest::<CustomToolCallFields, A>(members)?.into(),
            "custom_tool_call_output" => {
                let fields = rest::<ToolOutputFields, A>(members)?;
                Self::CustomToolCallOutput {
                    call_id: fields.call_id,
                    output: fields.output.0,
                    extra: fields.extra,
                }
            }
            "web_search_call" => rest::<WebSearchCallFields, A>(members)?.into(),
            "ghost_snapshot" => rest::<GhostSnapshotFields, A>(members)?.into(),
            "compaction" | "compaction_summary" => rest::<CompactionFields, A>(members)?.into(),
            other => return Err(unknown_tag(other)),
        })
    }
}

impl<'de> Variants<'de> for EventMsg {
    fn read<A: MapAccess<'de>>(tag: &str, members: TagFree<A>) -> Result<Self, A::Error> {
        Ok(match tag {
            "token_count" => Self::TokenCount(rest::<TokenCountEvent, A>(members)?),
            "context_compacted" => Self::ContextCompacted(rest::<ExtraFields, A>(members)?),
            "user_message" => Self::UserMessage(rest::<UserMessageEvent, A>(members)?),
            "agent_message" => Self::AgentMessage(rest::<AgentMessageEvent, A>(members)?),
            "agent_reasoning" => Self::AgentReasoning(rest::<TextEvent, A>(members)?),
            "agent_reasoning_raw_content" => {
                Self::AgentReasoningRawContent(rest::<TextEvent, A>(members)?)
            }
            "turn_aborted" => Self::TurnAborted(rest::<ExtraFields, A>(members)?),
            "thread_rolled_back" => {
                Self::ThreadRolledBack(rest::<ThreadRolledBackEvent, A>(members)?)
            }
            other => return Err(unknown_tag(other)),
        })
    }
}

// The fields of each `ResponseItem` variant, as the enum declares them (models.rs); the tests
// compare their JSON schemas with the enum's.

#[derive(Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
struct MessageFields {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    role: String,
    content: Vec<Tagged<ContentItem>>,
    #[serde(flatten)]
    extra: ExtraFields,
}

impl From<MessageFields> for ResponseItem {
    fn from(fields: MessageFields) -> Self {
        Self::Message {
            id: fields.id,
            role: fields.role,
            content: untag(fields.content),
            extra: fields.extra,
        }
    }
}

#[derive(Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
struct ReasoningFields {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    #[serde(default)]
    summary: Vec<Tagged<ReasoningSummary>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    content: Option<Vec<Tagged<ReasoningContent>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    encrypted_content: Option<String>,
    #[serde(flatten)]
    extra: ExtraFields,
}

impl From<ReasoningFields> for ResponseItem {
    fn from(fields: ReasoningFields) -> Self {
        Self::Reasoning {
            id: fields.id,
            summary: untag(fields.summary),
            content: fields.content.map(untag),
            encrypted_content: fields.encrypted_content,
            extra: fields.extra,
        }
    }
}

#[derive(Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
struct LocalShellCallFields {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    status: Option<String>,
    action: Value,
    #[serde(flatten)]
    extra: ExtraFields,
}

impl From<LocalShellCallFields> for ResponseItem {
    fn from(fields: LocalShellCallFields) -> Self {
        Self::LocalShellCall {
            id: fields.id,
            call_id: fields.call_id,
            status: fields.status,
            action: fields.action,
            extra: fields.extra,
        }
    }
}

#[derive(Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
struct FunctionCallFields {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    name: String,
    arguments: String,
    call_id: String,
    #[serde(flatten)]
    extra: ExtraFields,
}

impl From<FunctionCallFields> for ResponseItem {
    fn from(fields: FunctionCallFields) -> Self {
        Self::FunctionCall {
            id: fields.id,
            name: fields.name,
            arguments: fields.arguments,
            call_id: fields.call_id,
            extra: fields.extra,
        }
    }
}

/// `function_call_output` and `custom_tool_call_output` have the same fields.
#[derive(Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
struct ToolOutputFields {
    call_id: String,
    output: Output,
    #[serde(flatten)]
    extra: ExtraFields,
}

#[derive(Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
struct CustomToolCallFields {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    status: Option<String>,
    call_id: String,
    name: String,
    input: String,
    #[serde(flatten)]
    extra: ExtraFields,
}

impl From<CustomToolCallFields> for ResponseItem {
    fn from(fields: CustomToolCallFields) -> Self {
        Self::CustomToolCall {
            id: fields.id,
            status: fields.status,
            call_id: fields.call_id,
            name: fields.name,
            input: fields.input,
            extra: fields.extra,
        }
    }
}

#[derive(Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
struct WebSearchCallFields {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    action: Option<Value>,
    #[serde(flatten)]
    extra: ExtraFields,
}

impl From<WebSearchCallFields> for ResponseItem {
    fn from(fields: WebSearchCallFields) -> Self {
        Self::WebSearchCall {
            id: fields.id,
            status: fields.status,
            action: fields.action,
            extra: fields.extra,
        }
    }
}

#[derive(Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
struct GhostSnapshotFields {
    ghost_commit: Value,
    #[serde(flatten)]
    extra: ExtraFields,
}

impl From<GhostSnapshotFields> for ResponseItem {
    fn from(fields: GhostSnapshotFields) -> Self {
        Self::GhostSnapshot {
            ghost_commit: fields.ghost_commit,
            extra: fields.extra,
        }
    }
}

#[derive(Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
struct CompactionFields {
    encrypted_content: String,
    #[serde(flatten)]
    extra: ExtraFields,
}

impl From<CompactionFields> for ResponseItem {
    fn from(fields: CompactionFields) -> Self {
        Self::Compaction {
            encrypted_content: fields.encrypted_content,
            extra: fields.extra,
        }
    }
}

/// The fields of a `compacted` payload, as [`CompactedItem`] declares them (rollout.rs); its
/// replacement history's items take the fast path.
#[derive(Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
struct CompactedFields {
    #[serde(default)]
    message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    replacement_history: Option<Vec<Tagged<ResponseItem>>>,
    #[serde(flatten)]
    extra: ExtraFields,
}

fn untag<T>(parts: Vec<Tagged<T>>) -> Vec<T> {
    parts.into_iter().map(|part| part.0).collect()
}

// The parts inside items, tagged the same way (their unknown members are dropped, as serde drops
// them for these variants).

#[derive(Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
struct TextField {
    text: String,
}

#[derive(Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
struct ImageFields {
    image_url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
}

impl<'de> Variants<'de> for ContentItem {
    fn read<A: MapAccess<'de>>(tag: &str, members: TagFree<A>) -> Result<Self, A::Error> {
        Ok(match tag {
            "input_text" => Self::InputText {
                text: rest::<TextField, A>(members)?.text,
            },
            "output_text" => Self::OutputText {
                text: rest::<TextField, A>(members)?.text,
            },
            "input_image" => {
                let fields = rest::<ImageFields, A>(members)?;
                Self::InputImage {
                    image_url: fields.image_url,
                    detail: fields.detail,
                }
            }
            other => return Err(unknown_tag(other)),
        })
    }
}

impl<'de> Variants<'de> for ReasoningSummary {
    fn read<A: MapAccess<'de>>(tag: &str, members: TagFree<A>) -> Result<Self, A::Error> {
        match tag {
            "summary_text" => Ok(Self::SummaryText {
                text: rest::<TextField, A>(members)?.text,
            }),
            other => Err(unknown_tag(other)),
        }
    }
}

impl<'de> Variants<'de> for ReasoningContent {
    fn read<A: MapAccess<'de>>(tag: &str, members: TagFree<A>) -> Result<Self, A::Error> {
        match tag {
            "reasoning_text" => Ok(Self::ReasoningText {
                text: rest::<TextField, A>(members)?.text,
            }),
            "text" => Ok(Self::Text {
                text: rest::<TextField, A>(members)?.text,
            }),
            other => Err(unknown_tag(other)),
        }
    }
}

/// A tool output read by its JSON shape, as the untagged [`FunctionCallOutputBody`] reads it: a
/// string is the text, an array the content items, anything else kept as it is.
struct Output(FunctionCallOutputPayload);

impl<'de> Deserialize<'de> for Output {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct BodyVisitor;
        impl<'de> Visitor<'de> for BodyVisitor {
            type Value = FunctionCallOutputBody;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tool output")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(FunctionCallOutputBody::Text(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(FunctionCallOutputBody::Text(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                Vec::<FunctionCallOutputContentItem>::deserialize(SeqAccessDeserializer::new(seq))
                    .map(FunctionCallOutputBody::ContentItems)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                Value::deserialize(MapAccessDeserializer::new(map))
                    .map(FunctionCallOutputBody::Other)
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(FunctionCallOutputBody::Other(Value::Bool(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(FunctionCallOutputBody::Other(Value::from(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(FunctionCallOutputBody::Other(Value::from(v)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(FunctionCallOutputBody::Other(
                    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number),
                ))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(FunctionCallOutputBody::Other(Value::Null))
            }
        }
        let body = deserializer.deserialize_any(BodyVisitor)?;
        Ok(Self(FunctionCallOutputPayload::from_body(body)))
    }
}

/// A part or output schema is the schema of what it reads, so the fields' schemas compare with
/// the enum's.
#[cfg(test)]
macro_rules! schema_of {
    ($wrapper:ty, $inner:ty) => {
        impl schemars::JsonSchema for $wrapper {
            fn schema_name() -> String {
                <$inner>::schema_name()
            }
            fn json_schema(
                generator: &mut schemars::r#gen::SchemaGenerator,
            ) -> schemars::schema::Schema {
                <$inner>::json_schema(generator)
            }
        }
    };
}

#[cfg(test)]
schema_of!(Tagged<ContentItem>, ContentItem);
#[cfg(test)]
schema_of!(Tagged<ReasoningSummary>, ReasoningSummary);
#[cfg(test)]
schema_of!(Tagged<ReasoningContent>, ReasoningContent);
#[cfg(test)]
schema_of!(Output, FunctionCallOutputPayload);
#[cfg(test)]
schema_of!(Tagged<ResponseItem>, ResponseItem);

#[cfg(test)]
#[path = "typed_payload_tests.rs"]
mod tests;
