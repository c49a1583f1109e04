//! A Claude Code line read as the JSON tree the import needs: only the members it reads.
//!
//! Real transcripts carry much the import never reads, above all `toolUseResult` on user
//! records, which repeats a tool's output in another shape. Building it into the JSON tree of
//! every record cost as much as the record itself; it is skipped instead (serde_json still
//! validates it, so a corrupt line is still reported as one).

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::Deserializer;
use serde::de::IgnoredAny;
use serde::de::MapAccess;
use serde::de::Visitor;
use serde_json::Map;
use serde_json::Value;

/// The members of a Claude Code record the import reads (those of `ClaudeImporter::decode`
/// and of the conversation tree's heads). The others (`toolUseResult`, which repeats a tool's
/// output, `userType`, `slug`, ...) are skipped, and validated, without being built.
const READ_MEMBERS: [&str; 17] = [
    "type",
    "subtype",
    "uuid",
    "parentUuid",
    "logicalParentUuid",
    "sessionId",
    "cwd",
    "version",
    "gitBranch",
    "timestamp",
    "message",
    "requestId",
    "isMeta",
    "isSidechain",
    "isCompactSummary",
    "permissionMode",
    "compactMetadata",
];

/// A Claude Code line as the JSON tree the import reads: an object holding only
/// [`READ_MEMBERS`]. `None` when the line is not a JSON object; the caller then parses it whole,
/// which decides and names what is wrong with it.
pub(crate) fn read_record(text: &str) -> Option<Value> {
    serde_json::from_str::<ReadMembers>(text)
        .ok()
        .map(|members| Value::Object(members.0))
}

/// See [`read_record`].
struct ReadMembers(Map<String, Value>);

impl<'de> Deserialize<'de> for ReadMembers {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = ReadMembers;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a claude code record")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                // As in a JSON tree, the last of duplicate members wins.
                let mut members = Map::new();
                while let Some(key) = map.next_key::<MemberName<'de>>()? {
                    if READ_MEMBERS.contains(&key.0.as_ref()) {
                        let value = map.next_value::<Value>()?;
                        members.insert(key.0.into_owned(), value);
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(ReadMembers(members))
            }
        }
        deserializer.deserialize_map(MembersVisitor)
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
#[path = "record_members_tests.rs"]
mod tests;
