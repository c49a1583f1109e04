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
use serde::de::Visitor;
use serde_json::Value;
use serde_json::value::RawValue;

/// The members of a Claude Code record the import reads, as raw JSON.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct RecordView<'a> {
    pub(crate) kind: Option<&'a RawValue>,
    pub(crate) subtype: Option<&'a RawValue>,
    pub(crate) uuid: Option<&'a RawValue>,
    pub(crate) session_id: Option<&'a RawValue>,
    pub(crate) cwd: Option<&'a RawValue>,
    pub(crate) version: Option<&'a RawValue>,
    pub(crate) git_branch: Option<&'a RawValue>,
    pub(crate) timestamp: Option<&'a RawValue>,
    pub(crate) message: Option<&'a RawValue>,
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

    /// The members of `message` the import reads (none when it is not an object).
    pub(crate) fn message(&self) -> MessageView<'a> {
        self.message
            .and_then(|raw| serde_json::from_str(raw.get()).ok())
            .unwrap_or_default()
    }
}

/// The members of a record's `message` the import reads, as raw JSON.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct MessageView<'a> {
    pub(crate) id: Option<&'a RawValue>,
    pub(crate) content: Option<&'a RawValue>,
    pub(crate) usage: Option<&'a RawValue>,
}

/// The `type` of a content block, when the block is an object and its `type` a string.
pub(crate) fn block_type(block: &RawValue) -> Option<Cow<'_, str>> {
    serde_json::from_str::<BlockView<'_>>(block.get())
        .ok()
        .and_then(|view| view.kind)
        .and_then(as_str)
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

/// The JSON type a raw value is of, told by its first character.
pub(crate) fn starts_with(raw: &RawValue, open: char) -> bool {
    raw.get().starts_with(open)
}

/// The members of a content block the import needs before the block is typed.
#[derive(Default)]
struct BlockView<'a> {
    kind: Option<&'a RawValue>,
}

/// A visitor over the members of an object that keeps those `keep` names, as raw JSON.
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
                                $($name => view.$field = Some(map.next_value::<&'de RawValue>()?),)*
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

members_visitor!(MessageView, "a claude code message", {
    "id" => id,
    "content" => content,
    "usage" => usage,
});

members_visitor!(BlockView, "a content block", {
    "type" => kind,
});

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
