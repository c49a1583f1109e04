//! Codex's older JSON shell outputs (`{"output": "…", "metadata": {"exit_code": N, …}}`), read
//! without building their JSON tree.
//!
//! The digest, the recorded reads and the micro tier read the exit code (and the printed text)
//! of every shell output they meet; parsed into a `serde_json::Value`, each output was copied
//! string by string into a tree only to be looked up twice. [`json_shell_output`] reads the same
//! two members in one pass of the same parser: every value is checked exactly as `Value` checks
//! it (the same `deserialize_any` for every string, number and nesting level; the text must end
//! after the value), a string is borrowed from the text when it has no escapes, and nothing
//! else is kept. It answers what `serde_json::from_str::<Value>(text)` answers, looked up with
//! `get("output").and_then(Value::as_str)` and
//! `get("metadata").and_then(|m| m.get("exit_code")).and_then(Value::as_i64)`.

use std::borrow::Cow;
use std::fmt;

use serde::de;
use serde::de::DeserializeSeed;
use serde::de::MapAccess;
use serde::de::SeqAccess;
use serde::de::Visitor;
use serde_json::Value;
use serde_json::value::RawValue;

/// The key `serde_json` reads as a raw value when it comes first in an object (its
/// `raw_value` feature is on in the workspace): `Value` reads such an object its own way, so
/// the text is then read as a `Value` ([`exact`]).
const RAW_VALUE_KEY: &str = "$serde_json::private::RawValue";

/// The error [`json_exit_code`]'s reading stops with when its `output` is not a string it can
/// check without undoing its escapes: the text is then read in full.
const READ_IN_FULL: &str = "agentctx: read the output in full";

/// The two members of a JSON shell output that are read.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct JsonShellOutput<'a> {
    /// The `output` member, when it is a string (the last one, when repeated, as `Value`
    /// keeps it).
    pub output: Option<Cow<'a, str>>,
    /// `metadata.exit_code`, when it is an integer `Value::as_i64` reads.
    pub exit_code: Option<i64>,
}

/// `text` read as a JSON value (`None`: it is not one, as `serde_json::from_str::<Value>`
/// fails), with its `output` and `metadata.exit_code` when it is an object that has them.
pub fn json_shell_output(text: &str) -> Option<JsonShellOutput<'_>> {
    match read(text) {
        Ok(read) => Some(read),
        Err(error) if error.to_string().starts_with(RAW_VALUE_KEY) => exact(text),
        Err(_) => None,
    }
}

/// `text` read as a JSON value (`None`: it is not one), with its `metadata.exit_code` when it
/// is an object that has one: [`json_shell_output`]'s `exit_code`, the `output` only checked.
/// A string `output` without `\u` escapes (the common case) is checked without its escapes
/// being undone: `serde_json` checks such a string alike either way (the surrogates a `\u`
/// escape may pair are what only undoing checks); any other is read as [`json_shell_output`]
/// reads it.
pub fn json_exit_code(text: &str) -> Option<Option<i64>> {
    match read_as(text, Role::TopExitCode) {
        Ok(read) => Some(read.exit_code),
        Err(error) if error.to_string().starts_with(READ_IN_FULL) => {
            json_shell_output(text).map(|read| read.exit_code)
        }
        Err(error) if error.to_string().starts_with(RAW_VALUE_KEY) => {
            exact(text).map(|read| read.exit_code)
        }
        Err(_) => None,
    }
}

/// One pass of `serde_json`'s parser over `text`, as `serde_json::from_str` makes it.
fn read(text: &str) -> serde_json::Result<JsonShellOutput<'_>> {
    read_as(text, Role::Top)
}

/// [`read`] with the whole text read as `top`.
fn read_as(text: &str, top: Role) -> serde_json::Result<JsonShellOutput<'_>> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let read = top.deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(match read {
        Read::Object { output, exit_code } => JsonShellOutput { output, exit_code },
        Read::Str(_) | Read::Int(_) | Read::Other => JsonShellOutput::default(),
    })
}

/// The same answer through a `Value` (only for a text with an object whose first key is
/// [`RAW_VALUE_KEY`]).
fn exact(text: &str) -> Option<JsonShellOutput<'_>> {
    let value: Value = serde_json::from_str(text).ok()?;
    Some(JsonShellOutput {
        output: value
            .get("output")
            .and_then(Value::as_str)
            .map(|output| Cow::Owned(output.to_string())),
        exit_code: value
            .get("metadata")
            .and_then(|metadata| metadata.get("exit_code"))
            .and_then(Value::as_i64),
    })
}

/// What the value at a place is read for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The whole text: its `output` and `metadata` are read.
    Top,
    /// The whole text: its `metadata` is read, its `output` checked ([`json_exit_code`]).
    TopExitCode,
    /// The `metadata` member: its `exit_code` is read.
    Metadata,
    /// The value of a member read (`output`, `exit_code`): a string or an integer is kept.
    Kept,
    /// Any other value: checked, and dropped.
    Skipped,
}

/// A value as far as it is read.
enum Read<'de> {
    /// A string, kept ([`Role::Kept`]).
    Str(Cow<'de, str>),
    /// A number, as `Value::as_i64` reads it ([`Role::Kept`]).
    Int(Option<i64>),
    /// An object read for its members ([`Role::Top`], [`Role::Metadata`]).
    Object {
        output: Option<Cow<'de, str>>,
        exit_code: Option<i64>,
    },
    /// Anything else.
    Other,
}

impl<'de> DeserializeSeed<'de> for Role {
    type Value = Read<'de>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Read<'de>, D::Error> {
        // As `Value` reads every value: through `deserialize_any`.
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Role {
    type Value = Read<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Read<'de>, E> {
        Ok(Read::Other)
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Read<'de>, E> {
        Ok(self.int(Some(value)))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Read<'de>, E> {
        Ok(self.int(i64::try_from(value).ok()))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Read<'de>, E> {
        Ok(self.int(None))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Read<'de>, E> {
        Ok(match self {
            Self::Kept => Read::Str(Cow::Owned(value.to_string())),
            Self::Top | Self::TopExitCode | Self::Metadata | Self::Skipped => Read::Other,
        })
    }

    fn visit_borrowed_str<E: de::Error>(self, value: &'de str) -> Result<Read<'de>, E> {
        Ok(match self {
            Self::Kept => Read::Str(Cow::Borrowed(value)),
            Self::Top | Self::TopExitCode | Self::Metadata | Self::Skipped => Read::Other,
        })
    }

    fn visit_unit<E: de::Error>(self) -> Result<Read<'de>, E> {
        Ok(Read::Other)
    }

    fn visit_none<E: de::Error>(self) -> Result<Read<'de>, E> {
        Ok(Read::Other)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Read<'de>, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Read<'de>, A::Error> {
        while seq.next_element_seed(Role::Skipped)?.is_some() {}
        Ok(Read::Other)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Read<'de>, A::Error> {
        let mut output = None;
        let mut exit_code = None;
        let mut first = true;
        while let Some(key) = map.next_key_seed(KeySeed)? {
            if first && key == Key::RawValue {
                return Err(de::Error::custom(RAW_VALUE_KEY));
            }
            first = false;
            // A repeated member replaces the one before, as in `Value`'s map.
            match (self, key) {
                (Self::Top, Key::Output) => {
                    output = match map.next_value_seed(Role::Kept)? {
                        Read::Str(text) => Some(text),
                        Read::Int(_) | Read::Object { .. } | Read::Other => None,
                    };
                }
                (Self::TopExitCode, Key::Output) => {
                    let raw: &'de RawValue = map.next_value()?;
                    let raw = raw.get();
                    // A string without `\u` escapes: checked alike by either reading.
                    if !raw.starts_with('"') || raw.contains("\\u") {
                        return Err(de::Error::custom(READ_IN_FULL));
                    }
                }
                (Self::Top | Self::TopExitCode, Key::Metadata) => {
                    exit_code = match map.next_value_seed(Role::Metadata)? {
                        Read::Object { exit_code, .. } => exit_code,
                        Read::Str(_) | Read::Int(_) | Read::Other => None,
                    };
                }
                (Self::Metadata, Key::ExitCode) => {
                    exit_code = match map.next_value_seed(Role::Kept)? {
                        Read::Int(code) => code,
                        Read::Str(_) | Read::Object { .. } | Read::Other => None,
                    };
                }
                _ => {
                    map.next_value_seed(Role::Skipped)?;
                }
            }
        }
        Ok(match self {
            Self::Top | Self::TopExitCode | Self::Metadata => Read::Object { output, exit_code },
            Self::Kept | Self::Skipped => Read::Other,
        })
    }
}

impl Role {
    /// A number read here.
    fn int<'de>(self, value: Option<i64>) -> Read<'de> {
        match self {
            Self::Kept => Read::Int(value),
            Self::Top | Self::TopExitCode | Self::Metadata | Self::Skipped => Read::Other,
        }
    }
}

/// The keys that are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Output,
    Metadata,
    ExitCode,
    RawValue,
    Other,
}

/// Reads a key as `Value` reads it (a string, escapes undone) and names it.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = Key;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a string key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        Ok(match key {
            "output" => Key::Output,
            "metadata" => Key::Metadata,
            "exit_code" => Key::ExitCode,
            RAW_VALUE_KEY => Key::RawValue,
            _ => Key::Other,
        })
    }
}

#[cfg(test)]
#[path = "json_shell_output_tests.rs"]
mod tests;
