//! A Claude Code line read borrowed: the members the import reads, each kept as the raw JSON
//! text of its value, and read only when the import looks at it.
//!
//! A line is read by a hand-written scan first (`record_scan`), which checks the line as it
//! goes and gives up on anything unusual; serde_json reads the lines it gave up on, and decides
//! and names what is wrong with them.
//!
//! Building every record as a JSON tree cost as much as typing it; most of a record is never
//! read (`toolUseResult`, which repeats a tool's output, the message's `model`, ...), and the
//! bulk of what is read, the content blocks of tool calls and results, is only carried along.
//! The members are read as a JSON tree reads them (the last of duplicate members wins, a member
//! of the wrong JSON type reads as absent), so the rules of the import are unchanged (see
//! docs/design/rollout-formats.md, "Lazy lines").

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::Deserializer;
use serde::de::DeserializeSeed;
use serde::de::IgnoredAny;
use serde::de::MapAccess;
use serde::de::SeqAccess;
use serde::de::Visitor;
use serde::de::value::MapAccessDeserializer;
use serde_json::Value;
use serde_json::value::RawValue;

use super::record_scan;

/// The members of a Claude Code record the import reads, each as the JSON text of its value
/// (valid JSON: checked when the line was read).
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct RecordView<'a> {
    pub(crate) kind: Option<&'a str>,
    pub(crate) subtype: Option<&'a str>,
    pub(crate) uuid: Option<&'a str>,
    pub(crate) parent_uuid: Option<&'a str>,
    pub(crate) logical_parent_uuid: Option<&'a str>,
    pub(crate) session_id: Option<&'a str>,
    pub(crate) cwd: Option<&'a str>,
    pub(crate) version: Option<&'a str>,
    pub(crate) git_branch: Option<&'a str>,
    pub(crate) timestamp: Option<&'a str>,
    /// `message`, read in the same pass as the record (an empty view when it is not an object).
    pub(crate) message: Option<MessageView<'a>>,
    pub(crate) request_id: Option<&'a str>,
    pub(crate) is_meta: Option<&'a str>,
    pub(crate) is_sidechain: Option<&'a str>,
    pub(crate) is_compact_summary: Option<&'a str>,
    pub(crate) permission_mode: Option<&'a str>,
    pub(crate) compact_metadata: Option<&'a str>,
    /// An `attachment` record's payload (Claude Code 2.1.x: reminders, hook context, queued
    /// commands).
    pub(crate) attachment: Option<&'a str>,
    /// What Claude Code sent the model for an attachment, when it recorded it (later 2.1.x
    /// builds).
    pub(crate) rendered: Option<&'a str>,
}

impl<'a> RecordView<'a> {
    /// The view of a line; `None` when the line is not a JSON object (the caller then parses it
    /// whole, which decides and names what is wrong with it).
    ///
    /// The view accepts what a JSON tree of the members it reads accepts, no more: a member
    /// whose tree would not parse (a number out of range, a lone surrogate escape, nesting past
    /// serde_json's limit) gives `None` too, and the whole parse names the error as before.
    #[cfg(test)]
    pub(crate) fn parse(text: &'a str) -> Option<Self> {
        let mut view = Self::default();
        view.read(text).then_some(view)
    }

    /// [`RecordView::parse`] into an empty view, in place: `false` when the line is not read
    /// (the view is then left partly filled).
    pub(crate) fn read(&mut self, text: &'a str) -> bool {
        if record_scan::scan_into(text, self).is_some() {
            return true;
        }
        match Self::parse_with_serde_json(text) {
            Some(view) => {
                *self = view;
                true
            }
            None => false,
        }
    }

    /// Whether `message.content` is a non-empty array of `tool_result` blocks and nothing else
    /// (a user record that only carries tool results).
    pub(crate) fn content_is_only_tool_results(&self) -> bool {
        match self
            .message
            .as_ref()
            .and_then(|message| message.content.as_ref())
        {
            Some(Content::Blocks(blocks)) => {
                !blocks.is_empty() && blocks.iter().all(|block| block.is("tool_result"))
            }
            Some(Content::Null | Content::Text(_) | Content::Other(_)) | None => false,
        }
    }

    /// [`RecordView::parse`] by serde_json alone: the reading of the lines the scan gives up on.
    pub(crate) fn parse_with_serde_json(text: &'a str) -> Option<Self> {
        let view: Self = serde_json::from_str(text).ok()?;
        let members = [
            view.kind,
            view.subtype,
            view.uuid,
            view.parent_uuid,
            view.logical_parent_uuid,
            view.session_id,
            view.cwd,
            view.version,
            view.git_branch,
            view.timestamp,
            view.request_id,
            view.is_meta,
            view.is_sidechain,
            view.is_compact_summary,
            view.permission_mode,
            view.compact_metadata,
            view.attachment,
            view.rendered,
        ];
        let message = view.message.as_ref();
        let message_members = message.map_or([None, None, None], |message| {
            [message.id, message.usage, message.model]
        });
        let valid = members
            .into_iter()
            .flatten()
            .all(|raw| Validate::check(raw, IN_RECORD))
            && message_members
                .into_iter()
                .flatten()
                .all(|raw| Validate::check(raw, IN_MESSAGE));
        valid.then_some(view)
    }
}

/// The members of a record's `message` the import reads (none when it is not an object).
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct MessageView<'a> {
    pub(crate) id: Option<&'a str>,
    pub(crate) content: Option<Content<'a>>,
    pub(crate) usage: Option<&'a str>,
    /// The model that answered (assistant records).
    pub(crate) model: Option<&'a str>,
}

/// A message's `content`, read in the same pass as the record.
#[derive(Debug, Clone, PartialEq)]
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
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Block<'a> {
    pub(crate) raw: &'a str,
    pub(crate) kind: Option<Cow<'a, str>>,
}

impl<'a> Block<'a> {
    /// `None` when the block would not parse as a JSON tree (see [`RecordView::parse`]).
    fn of(raw: &'a str) -> Option<Self> {
        if !raw.starts_with('{') {
            return Validate::check(raw, IN_CONTENT).then_some(Self { raw, kind: None });
        }
        let view = serde_json::from_str::<BlockView<'_>>(raw).ok()?;
        if let Some(kind) = view.kind
            && !Validate::check(kind, IN_BLOCK)
        {
            return None;
        }
        let kind = view.kind.and_then(as_str);
        Some(Self { raw, kind })
    }

    pub(crate) fn is(&self, kind: &str) -> bool {
        self.kind.as_deref() == Some(kind)
    }
}

/// A string value, borrowed when it holds no escape; `None` for any other JSON value.
pub(crate) fn as_str(raw: &str) -> Option<Cow<'_, str>> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    // The text is valid JSON: a string without a backslash is its own value.
    if memchr::memchr(b'\\', inner.as_bytes()).is_none() {
        return Some(Cow::Borrowed(inner));
    }
    serde_json::from_str::<String>(raw).ok().map(Cow::Owned)
}

/// A boolean value; `None` for any other JSON value.
pub(crate) fn as_bool(raw: &str) -> Option<bool> {
    match raw {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// The JSON tree of a value. The text was validated as JSON when the line was read, so the
/// `Null` of a failed parse is not reached.
pub(crate) fn to_value(raw: &str) -> Value {
    serde_json::from_str(raw).unwrap_or(Value::Null)
}

/// The members of a content block the import needs before the block is typed.
#[derive(Default)]
struct BlockView<'a> {
    kind: Option<&'a str>,
}

/// A member the views keep, read from the value of an object's member.
trait Member<'de>: Sized {
    fn next<A: MapAccess<'de>>(map: &mut A) -> Result<Self, A::Error>;
}

/// Raw JSON text, as serde_json checked and delimited it.
impl<'de> Member<'de> for &'de str {
    fn next<A: MapAccess<'de>>(map: &mut A) -> Result<Self, A::Error> {
        map.next_value::<&'de RawValue>().map(RawValue::get)
    }
}

impl<'de> Member<'de> for MessageView<'de> {
    fn next<A: MapAccess<'de>>(map: &mut A) -> Result<Self, A::Error> {
        map.next_value()
    }
}

impl<'de> Member<'de> for Content<'de> {
    fn next<A: MapAccess<'de>>(map: &mut A) -> Result<Self, A::Error> {
        map.next_value()
    }
}

/// A visitor over the members of an object that keeps the named ones, each read as its field's
/// type (raw JSON, or the message's own view).
macro_rules! members_visitor {
    ($view:ident, $expecting:literal, $skip:expr, { $($name:literal => $field:ident),* $(,)? }) => {
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
                                $($name => view.$field = Some(Member::next(&mut map)?),)*
                                _ => {
                                    map.next_value_seed($skip)?;
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

// The members the import never reads are skipped (and validated) as before; within `message`,
// which was read whole as a tree, every member is checked as its tree would be.
members_visitor!(RecordView, "a claude code record", PhantomData::<IgnoredAny>, {
    "type" => kind,
    "subtype" => subtype,
    "uuid" => uuid,
    "parentUuid" => parent_uuid,
    "logicalParentUuid" => logical_parent_uuid,
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
    "attachment" => attachment,
    "rendered" => rendered,
});

members_visitor!(MessageMembers, "a claude code message", Validate(IN_MESSAGE), {
    "id" => id,
    "content" => content,
    "usage" => usage,
    "model" => model,
});

members_visitor!(BlockView, "a content block", Validate(IN_BLOCK), {
    "type" => kind,
});

/// The members of a message object (the view is built from them).
#[derive(Default)]
struct MessageMembers<'a> {
    id: Option<&'a str>,
    content: Option<Content<'a>>,
    usage: Option<&'a str>,
    model: Option<&'a str>,
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
            model: members.model,
        })
    }
}

/// Reads any JSON value: an object as `T`, anything else skipped as `None`.
struct ObjectOrNot<T>(PhantomData<T>);

impl<T> ObjectOrNot<T> {
    fn new() -> Self {
        Self(PhantomData)
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
        while seq.next_element_seed(Validate(IN_MESSAGE))?.is_some() {}
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
                    let block = Block::of(raw.get()).ok_or_else(|| {
                        serde::de::Error::custom("a content block that is not valid as a tree")
                    })?;
                    blocks.push(block);
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

/// How many more arrays and objects a JSON tree may open inside a member of the record, of
/// `message`, of `message.content` and of a content block: serde_json's tree parse allows 127
/// nested ones in a line, and the record, the message, the content array and the block each take
/// one.
const IN_RECORD: usize = 126;
const IN_MESSAGE: usize = IN_RECORD - 1;
const IN_CONTENT: usize = IN_MESSAGE - 1;
const IN_BLOCK: usize = IN_CONTENT - 1;

/// Checks a value as serde_json's parse into a tree checks it (numbers in range, string escapes,
/// the nesting limit), without building it. The field is the nesting still allowed.
#[derive(Clone, Copy)]
struct Validate(usize);

impl Validate {
    fn check(text: &str, depth: usize) -> bool {
        // Most members are plain strings (uuids, timestamps) or booleans: valid JSON text with
        // no escape to decode is valid as a tree (the line was checked to be UTF-8).
        if matches!(text, "true" | "false" | "null")
            || (text.starts_with('"') && memchr::memchr(b'\\', text.as_bytes()).is_none())
        {
            return true;
        }
        let mut deserializer = serde_json::Deserializer::from_str(text);
        Validate(depth).deserialize(&mut deserializer).is_ok()
    }

    fn enter<E: serde::de::Error>(self) -> Result<Self, E> {
        self.0
            .checked_sub(1)
            .map(Validate)
            .ok_or_else(|| E::custom("recursion limit exceeded"))
    }
}

impl<'de> DeserializeSeed<'de> for Validate {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Validate {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let inner = self.enter()?;
        while map.next_key::<MemberName<'de>>()?.is_some() {
            map.next_value_seed(inner)?;
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let inner = self.enter()?;
        while seq.next_element_seed(inner)?.is_some() {}
        Ok(())
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        Ok(())
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
