//! A Claude Code line read borrowed: the members the import reads, each kept as the raw JSON
//! text of its value, and read only when the import looks at it.
//!
//! Building every record as a JSON tree cost as much as typing it; most of a record is never
//! read (`toolUseResult`, which repeats a tool's output, the message's `model`, ...), and the
//! bulk of what is read, the content blocks of tool calls and results, is only carried along.
//! The members are read as a JSON tree reads them (the last of duplicate members wins, a member
//! of the wrong JSON type reads as absent), so the rules of the import are unchanged (see
//! docs/design/rollout-formats.md, "Lazy lines").

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::Deserializer;
use serde::de::IgnoredAny;
use serde::de::MapAccess;
use serde::de::SeqAccess;
use serde::de::Visitor;
use serde::de::value::MapAccessDeserializer;
use serde_json::Value;
use serde_json::value::RawValue;

/// The members of a Claude Code record the import reads, as raw JSON.
#[derive(Debug, Default, Clone)]
pub(crate) struct RecordView<'a> {
    pub(crate) kind: Option<&'a RawValue>,
    pub(crate) subtype: Option<&'a RawValue>,
    pub(crate) uuid: Option<&'a RawValue>,
    pub(crate) session_id: Option<&'a RawValue>,
    pub(crate) cwd: Option<&'a RawValue>,
    pub(crate) version: Option<&'a RawValue>,
    pub(crate) git_branch: Option<&'a RawValue>,
    pub(crate) timestamp: Option<&'a RawValue>,
    /// `message`, read in the same pass as the record (an empty view when it is not an object).
    pub(crate) message: Option<MessageView<'a>>,
    pub(crate) request_id: Option<&'a RawValue>,
    pub(crate) is_meta: Option<&'a RawValue>,
    pub(crate) is_sidechain: Option<&'a RawValue>,
    pub(crate) is_compact_summary: Option<&'a RawValue>,
    pub(crate) permission_mode: Option<&'a RawValue>,
    pub(crate) compact_metadata: Option<&'a RawValue>,
}

impl<'a> RecordView<'a> {
    /// The view of a line; `None` when the line is not a JSON object (the caller then parses it
    /// whole, which decides and names what is wrong with it).
    pub(crate) fn parse(text: &'a str) -> Option<Self> {
        serde_json::from_str(text).ok()
    }
}

/// The members of a record's `message` the import reads (none when it is not an object).
#[derive(Debug, Default, Clone)]
pub(crate) struct MessageView<'a> {
    pub(crate) id: Option<&'a RawValue>,
    pub(crate) content: Option<Content<'a>>,
    pub(crate) usage: Option<&'a RawValue>,
}

/// A message's `content`, read in the same pass as the record.
#[derive(Debug, Clone)]
pub(crate) enum Content<'a> {
    Null,
    Text(Cow<'a, str>),
    /// Each block as its JSON text, with its `type`.
    Blocks(Vec<Block<'a>>),
    /// Any other JSON value (a number, a boolean, an object), as a tree.
    Other(Value),
}

/// A content block as its JSON text, with its `type` when the block is an object and its
/// `type` a string.
#[derive(Debug, Clone)]
pub(crate) struct Block<'a> {
    pub(crate) raw: &'a RawValue,
    pub(crate) kind: Option<Cow<'a, str>>,
}

impl<'a> Block<'a> {
    fn of(raw: &'a RawValue) -> Self {
        let kind = serde_json::from_str::<BlockView<'_>>(raw.get())
            .ok()
            .and_then(|view| view.kind)
            .and_then(as_str);
        Self { raw, kind }
    }

    pub(crate) fn is(&self, kind: &str) -> bool {
        self.kind.as_deref() == Some(kind)
    }
}

/// A string value, borrowed when it holds no escape; `None` for any other JSON value.
pub(crate) fn as_str(raw: &RawValue) -> Option<Cow<'_, str>> {
    let text = raw.get();
    if !text.starts_with('"') {
        return None;
    }
    match serde_json::from_str::<&str>(text) {
        Ok(text) => Some(Cow::Borrowed(text)),
        Err(_) => serde_json::from_str::<String>(text).ok().map(Cow::Owned),
    }
}

/// A boolean value; `None` for any other JSON value.
pub(crate) fn as_bool(raw: &RawValue) -> Option<bool> {
    match raw.get() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// The JSON tree of a value. The text was validated as JSON when the line was read, so the
/// `Null` of a failed parse is not reached.
pub(crate) fn to_value(raw: &RawValue) -> Value {
    serde_json::from_str(raw.get()).unwrap_or(Value::Null)
}

/// The members of a content block the import needs before the block is typed.
#[derive(Default)]
struct BlockView<'a> {
    kind: Option<&'a RawValue>,
}

/// A visitor over the members of an object that keeps the named ones, each read as its field's
/// type (raw JSON, or the message's own view).
macro_rules! members_visitor {
    ($view:ident, $expecting:literal, { $($name:literal => $field:ident),* $(,)? }) => {
        impl<'de> Deserialize<'de> for $view<'de> {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct MembersVisitor;
                impl<'de> Visitor<'de> for MembersVisitor {
                    type Value = $view<'de>;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_map<A: MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> Result<Self::Value, A::Error> {
                        // As in a JSON tree, the last of duplicate members wins.
                        let mut view = $view::default();
                        while let Some(key) = map.next_key::<MemberName<'de>>()? {
                            match key.0.as_ref() {
                                $($name => view.$field = Some(map.next_value()?),)*
                                _ => {
                                    map.next_value::<IgnoredAny>()?;
                                }
                            }
                        }
                        Ok(view)
                    }
                }
                deserializer.deserialize_map(MembersVisitor)
            }
        }
    };
}

members_visitor!(RecordView, "a claude code record", {
    "type" => kind,
    "subtype" => subtype,
    "uuid" => uuid,
    "sessionId" => session_id,
    "cwd" => cwd,
    "version" => version,
    "gitBranch" => git_branch,
    "timestamp" => timestamp,
    "message" => message,
    "requestId" => request_id,
    "isMeta" => is_meta,
    "isSidechain" => is_sidechain,
    "isCompactSummary" => is_compact_summary,
    "permissionMode" => permission_mode,
    "compactMetadata" => compact_metadata,
});

members_visitor!(MessageMembers, "a claude code message", {
    "id" => id,
    "content" => content,
    "usage" => usage,
});

members_visitor!(BlockView, "a content block", {
    "type" => kind,
});

/// The members of a message object (the view is built from them).
#[derive(Default)]
struct MessageMembers<'a> {
    id: Option<&'a RawValue>,
    content: Option<Content<'a>>,
    usage: Option<&'a RawValue>,
}

impl<'de> Deserialize<'de> for MessageView<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // As a JSON tree reads it: a `message` that is not an object has no members.
        let Some(members) =
            deserializer.deserialize_any(ObjectOrNot::<MessageMembers<'de>>::new())?
        else {
            return Ok(MessageView::default());
        };
        Ok(MessageView {
            id: members.id,
            content: members.content,
            usage: members.usage,
        })
    }
}

/// Reads any JSON value: an object as `T`, anything else skipped as `None`.
struct ObjectOrNot<T>(std::marker::PhantomData<T>);

impl<T> ObjectOrNot<T> {
    fn new() -> Self {
        Self(std::marker::PhantomData)
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectOrNot<T> {
    type Value = Option<T>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map)).map(Some)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

impl<'de> Deserialize<'de> for Content<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ContentVisitor;
        impl<'de> Visitor<'de> for ContentVisitor {
            type Value = Content<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a message content")
            }
            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                v: &'de str,
            ) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::new();
                while let Some(raw) = seq.next_element::<&'de RawValue>()? {
                    blocks.push(Block::of(raw));
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                Value::deserialize(MapAccessDeserializer::new(map)).map(Content::Other)
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(Content::Other(Value::Bool(v)))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(Content::Other(Value::from(v)))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(Content::Other(Value::from(v)))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(Content::Other(Value::from(v)))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(Content::Null)
            }
        }
        deserializer.deserialize_any(ContentVisitor)
    }
}

/// A member name, borrowed from the line when it holds no escape.
struct MemberName<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for MemberName<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NameVisitor;
        impl<'de> Visitor<'de> for NameVisitor {
            type Value = MemberName<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                v: &'de str,
            ) -> Result<Self::Value, E> {
                Ok(MemberName(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(MemberName(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(MemberName(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(NameVisitor)
    }
}

#[cfg(test)]
#[path = "record_view_tests.rs"]
mod tests;
