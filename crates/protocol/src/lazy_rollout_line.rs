//! A rollout line whose envelope is read and whose payload is kept as JSON text, typed on demand.
//!
//! Reading a rollout into [`RolloutLine`]s builds every payload twice: once as a JSON tree and
//! once as its type, and then proves [`PayloadFidelity`] by serializing the typed payload again.
//! Most readers need a fraction of that: the line's kind, the payload's own `type` (to pick the
//! `token_count` events, say), and the typed payload of a few kinds. [`LazyRolloutLine::parse`]
//! reads the envelope (`timestamp`, `type`, the other envelope fields) in one pass over the line,
//! keeps the payload as the JSON text it was read from, and notes the payload's own `type` on
//! the way, without building it. The payload is typed only when asked:
//!
//! - [`LazyRolloutLine::item`] types it without the fidelity record, for readers that never write
//!   the line back;
//! - [`LazyRolloutLine::into_line`] gives the [`RolloutLine`] that [`RolloutLine::from_value`]
//!   gives for the same line, fidelity included.
//!
//! The line is still checked to be JSON when it is parsed (serde_json validates what it skips),
//! so a lazy line is never a corrupt one. See docs/design/rollout-formats.md, "Lazy lines".

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::Deserializer;
use serde::de::IgnoredAny;
use serde::de::MapAccess;
use serde::de::SeqAccess;
use serde::de::Visitor;
use serde_json::Value;

use crate::json_string_scan::first_quote_escape_or_control;
use crate::models::ExtraFields;
use crate::payload_fidelity::PayloadFidelity;
use crate::rollout::Envelope;
use crate::rollout::RolloutItem;
use crate::rollout::RolloutLine;
use crate::rollout::RolloutLineError;
use crate::typed_payload;

/// One line of a rollout in the `{timestamp, type, payload}` envelope, its payload untyped.
///
/// ```
/// use agentctx_protocol::EventMsg;
/// use agentctx_protocol::LazyRolloutLine;
/// use agentctx_protocol::RolloutItem;
/// use agentctx_protocol::RolloutLine;
///
/// let text = r#"{"timestamp":"2025-10-01T10:00:00.000Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":null}}"#;
/// let line = LazyRolloutLine::parse(text.as_bytes())?;
/// assert_eq!((line.kind(), line.payload_type()), ("event_msg", Some("token_count")));
/// assert!(matches!(line.item(), RolloutItem::EventMsg(EventMsg::TokenCount(_))));
/// // Typed with its fidelity record, it is the line the typed reading gives.
/// let typed = RolloutLine::from_value(serde_json::from_str(text)?)?;
/// assert_eq!(line.into_line(), typed);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct LazyRolloutLine {
    /// The line as read (surrounding whitespace aside); the spans below point into it.
    text: Box<str>,
    timestamp: Text,
    kind: Text,
    /// Byte span of the payload's JSON in `text`.
    payload: (usize, usize),
    /// The payload's own `type` when it is a string.
    payload_type: Option<Text>,
    extra: ExtraFields,
    /// The payload as it was read with the line, and how: typed in full
    /// ([`LazyRolloutLine::parse_typing`]), what [`LazyRolloutLine::item`] gives; or read in
    /// part ([`LazyRolloutLine::parse_reading`]), what the caller's reader made of it, which
    /// [`LazyRolloutLine::item`] never gives.
    read: Option<ReadItem>,
}

/// An item read with its line, and how it was read.
type ReadItem = Box<(RolloutItem, ReadAs)>;

/// Lines are the same when they were read from the same text: whether the payload was typed (or
/// read in part) as it was read does not matter (it is what [`LazyRolloutLine::item`] gives
/// either way).
impl PartialEq for LazyRolloutLine {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
            && self.timestamp == other.timestamp
            && self.kind == other.kind
            && self.payload == other.payload
            && self.payload_type == other.payload_type
            && self.extra == other.extra
    }
}

/// Which payloads [`LazyRolloutLine::parse_typing`] types as it reads them: called with the
/// line's `type` and the payload's own `type`.
pub type TypeAsRead = fn(kind: &str, payload_type: &str) -> bool;

/// What a [`ReadInPart`] reader made of a payload.
#[derive(Debug)]
pub struct PartRead<'a> {
    /// The payload as the reader reads it: not necessarily the payload typed in full.
    pub item: RolloutItem,
    /// The payload's own `type` when it is a string, as [`LazyRolloutLine::payload_type`]
    /// gives it: the reader must have read every `type` member to say so.
    pub payload_type: Option<Cow<'a, str>>,
    /// The length of the payload's JSON text: the offset just after it.
    pub length: usize,
}

/// Which payloads [`LazyRolloutLine::parse_reading`] reads in part, and how: called with the
/// line's `type`, the payload's `type` when it is the payload's first member and a plain string
/// (`None` otherwise), and the line's text from the payload to the end of the line. It answers
/// the payload read its own way ([`PartRead`]) or `None`, and the payload is then read as usual.
///
/// A reader that answers must have read the whole payload as JSON, as serde_json validates it
/// (deserializing a type that names the members it wants, the rest skipped with
/// [`serde::de::IgnoredAny`], does), so that a line read in part is never a corrupt one.
pub type ReadInPart =
    for<'a> fn(kind: &str, first_type: Option<&'a str>, payload: &'a str) -> Option<PartRead<'a>>;

/// A string of the line: a span of the line's text, or decoded when it held escapes.
#[derive(Debug, Clone, PartialEq)]
enum Text {
    Span(usize, usize),
    Owned(Box<str>),
}

impl Text {
    fn resolve<'a>(&'a self, text: &'a str) -> &'a str {
        match self {
            Self::Span(start, end) => text.get(*start..*end).unwrap_or_default(),
            Self::Owned(owned) => owned,
        }
    }

    fn of(string: Cow<'_, str>, text: &str) -> Self {
        match string {
            Cow::Borrowed(borrowed) => match span_in(borrowed, text) {
                Some((start, end)) => Self::Span(start, end),
                None => Self::Owned(borrowed.into()),
            },
            Cow::Owned(owned) => Self::Owned(owned.into_boxed_str()),
        }
    }

    const EMPTY: Self = Self::Span(0, 0);
}

/// Where `part`, a slice borrowed from `text`, lies in it.
fn span_in(part: &str, text: &str) -> Option<(usize, usize)> {
    let start = (part.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    let end = start.checked_add(part.len())?;
    (text.get(start..end).map(str::as_ptr) == Some(part.as_ptr())).then_some((start, end))
}

/// Why a line could not be read as a lazy rollout line.
#[derive(Debug, thiserror::Error)]
pub enum LazyLineError {
    /// The bytes are not UTF-8.
    #[error("invalid utf-8")]
    InvalidUtf8,
    /// The line is not JSON; the error is serde_json's for the whole line.
    #[error("invalid json: {0}")]
    InvalidJson(serde_json::Error),
    /// The line is JSON but not an object.
    #[error("not a json object")]
    NotAnObject,
    /// The object is not in the envelope (no string `type`, or no `payload`).
    #[error(transparent)]
    Envelope(RolloutLineError),
}

impl LazyRolloutLine {
    /// Reads the envelope of one line (surrounding ASCII whitespace is ignored). Fails as the
    /// typed reading would: not UTF-8, not JSON (with serde_json's error for the whole line),
    /// not an object, or not in the envelope.
    pub fn parse(line: &[u8]) -> Result<Self, LazyLineError> {
        Self::parse_typing(line, None)
    }

    /// [`LazyRolloutLine::parse`], typing on the way the `response_item` and `event_msg`
    /// payloads `wanted` names (by the line's `type` and the payload's own), when their own
    /// `type` comes first and their kind comes before them: the payload is then read once,
    /// instead of once to validate it and once more to type it. The line is the one `parse`
    /// gives; [`LazyRolloutLine::item`] gives the item typed on the way (the one it would type).
    pub fn parse_typing(line: &[u8], wanted: Option<TypeAsRead>) -> Result<Self, LazyLineError> {
        Self::parse_reading(line, wanted, None)
    }

    /// [`LazyRolloutLine::parse_typing`], reading on the way the payloads `in_part` reads (see
    /// [`ReadInPart`]): where it answers, the payload is read once, by it, instead of once to
    /// validate it and again by the caller. What it made of the payload is
    /// [`LazyRolloutLine::part_read`]; the line is otherwise the one `parse` gives, and
    /// [`LazyRolloutLine::item`] still types the payload in full.
    pub fn parse_reading(
        line: &[u8],
        wanted: Option<TypeAsRead>,
        in_part: Option<ReadInPart>,
    ) -> Result<Self, LazyLineError> {
        let trimmed = line.trim_ascii();
        let Ok(text) = std::str::from_utf8(trimmed) else {
            return Err(LazyLineError::InvalidUtf8);
        };
        match scan_envelope(text, wanted, in_part) {
            Some(Ok(scanned)) => Ok(scanned.into_line(text)),
            Some(Err(envelope)) => Err(LazyLineError::Envelope(envelope)),
            // The scan stops at anything unusual; the JSON tree decides and names the error.
            None => match serde_json::from_str::<Value>(text) {
                Err(err) => Err(LazyLineError::InvalidJson(err)),
                Ok(value @ Value::Object(_)) => {
                    Self::from_value(value).map_err(LazyLineError::Envelope)
                }
                Ok(_) => Err(LazyLineError::NotAnObject),
            },
        }
    }

    /// The lazy line of a JSON object in the envelope (its payload written back as JSON text).
    pub fn from_value(value: Value) -> Result<Self, RolloutLineError> {
        let Envelope {
            kind,
            payload,
            timestamp,
            extra: object,
        } = Envelope::split(value)?;
        let payload_type = payload
            .get("type")
            .and_then(Value::as_str)
            .map(|kind| Text::Owned(kind.into()));
        let text = payload.to_string();
        let payload = (0, text.len());
        Ok(Self {
            text: text.into_boxed_str(),
            timestamp: Text::Owned(timestamp.into_boxed_str()),
            kind: Text::Owned(kind.into_boxed_str()),
            payload,
            payload_type,
            extra: object,
            read: None,
        })
    }

    /// The line's `timestamp`; empty when it had none (or a non-string one, kept in
    /// [`LazyRolloutLine::extra`]).
    pub fn timestamp(&self) -> &str {
        self.timestamp.resolve(&self.text)
    }

    /// The line's `type` (`response_item`, `event_msg`, ...).
    pub fn kind(&self) -> &str {
        self.kind.resolve(&self.text)
    }

    /// The payload's own `type` when it is a string: the item type of a `response_item`
    /// (`message`, `function_call`, ...), the event of an `event_msg` (`token_count`, ...).
    pub fn payload_type(&self) -> Option<&str> {
        self.payload_type
            .as_ref()
            .map(|payload_type| payload_type.resolve(&self.text))
    }

    /// The payload's JSON text, as read.
    pub fn payload_json(&self) -> &str {
        self.text
            .get(self.payload.0..self.payload.1)
            .unwrap_or_default()
    }

    /// Envelope fields other than `timestamp`, `type` and `payload`.
    pub fn extra(&self) -> &ExtraFields {
        &self.extra
    }

    /// The payload as a JSON tree.
    pub fn payload_value(&self) -> Result<Value, serde_json::Error> {
        serde_json::from_str(self.payload_json())
    }

    /// The typed payload, without the fidelity record, for readers that never write the line
    /// back: equal to the item of [`LazyRolloutLine::into_line`] for any payload without
    /// duplicate member names (see [`RolloutItem::from_payload_json`]).
    pub fn item(&self) -> RolloutItem {
        match self.read.as_deref() {
            Some((item, ReadAs::Typed)) => item.clone(),
            Some((_, ReadAs::InPart)) | None => {
                RolloutItem::from_payload_json(self.kind(), self.payload_json())
            }
        }
    }

    /// Whether the payload was typed as the line was read ([`LazyRolloutLine::parse_typing`]).
    pub fn is_typed(&self) -> bool {
        matches!(self.read.as_deref(), Some((_, ReadAs::Typed)))
    }

    /// The payload as the [`ReadInPart`] reader read it, when it did
    /// ([`LazyRolloutLine::parse_reading`]).
    pub fn part_read(&self) -> Option<&RolloutItem> {
        match self.read.as_deref() {
            Some((item, ReadAs::InPart)) => Some(item),
            Some((_, ReadAs::Typed)) | None => None,
        }
    }

    /// The payload as the [`ReadInPart`] reader read it, taken out of the line (which is
    /// otherwise unchanged); `None` when no such reader read it, or it was taken before.
    pub fn take_part_read(&mut self) -> Option<RolloutItem> {
        if !matches!(self.read.as_deref(), Some((_, ReadAs::InPart))) {
            return None;
        }
        self.read.take().map(|read| read.0)
    }

    /// [`LazyRolloutLine::item`], consuming the line (an item typed as the line was read is
    /// moved out, not copied), with the line's `timestamp` and other envelope fields.
    pub fn into_item(self) -> (String, RolloutItem, ExtraFields) {
        let timestamp = self.timestamp().to_string();
        let item = match self.read {
            Some(read) if read.1 == ReadAs::Typed => read.0,
            Some(_) | None => RolloutItem::from_payload_json(self.kind(), self.payload_json()),
        };
        (timestamp, item, self.extra)
    }

    /// The typed line, fidelity included: what [`RolloutLine::from_value`] gives for the line.
    pub fn to_line(&self) -> RolloutLine {
        let (item, fidelity) = match self.payload_value() {
            Ok(payload) => RolloutItem::from_parts_with_fidelity(self.kind(), payload),
            // The payload was checked to be JSON when the line was parsed; should that ever
            // change, the text is kept rather than lost.
            Err(_) => (
                RolloutItem::Unknown {
                    kind: self.kind().to_string(),
                    payload: Value::String(self.payload_json().to_string()),
                },
                PayloadFidelity::default(),
            ),
        };
        RolloutLine {
            timestamp: self.timestamp().to_string(),
            item,
            extra: self.extra.clone(),
            fidelity,
        }
    }

    /// [`LazyRolloutLine::to_line`], consuming the line.
    pub fn into_line(self) -> RolloutLine {
        self.to_line()
    }
}

/// The span of a payload in the line, and the payload's own `type` when it is a string.
type ScannedPayload<'a> = ((usize, usize), Option<Cow<'a, str>>);

/// What the scan of an envelope found.
struct Scanned<'a> {
    timestamp: Option<StringOrValue<'a>>,
    kind: Option<StringOrValue<'a>>,
    /// The payload's span and its own `type`.
    payload: Option<ScannedPayload<'a>>,
    extra: ExtraFields,
    /// The payload typed or read in part as it was read, with the kind it was read as (one
    /// field for both, so the scan's state, moved on every line, holds one item at most).
    /// The item is boxed as soon as it is read: the scan's state and its result are moved a
    /// few times on every line, and an item is a few hundred bytes.
    read: Option<(Cow<'a, str>, ReadItem)>,
}

/// How a payload was read as its line was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ReadAs {
    /// Typed in full ([`LazyRolloutLine::parse_typing`]).
    Typed,
    /// Read in part by the caller's reader ([`LazyRolloutLine::parse_reading`]).
    InPart,
}

impl Scanned<'_> {
    fn into_line(self, text: &str) -> LazyRolloutLine {
        let mut extra = self.extra;
        let timestamp = match self.timestamp {
            Some(StringOrValue::String(timestamp)) => Text::of(timestamp, text),
            Some(StringOrValue::Value(other)) => {
                extra.insert("timestamp".to_string(), other);
                Text::EMPTY
            }
            None => Text::EMPTY,
        };
        let (kind, payload) = match (self.kind, self.payload) {
            (Some(StringOrValue::String(kind)), Some(payload)) => (kind, payload),
            // `scan_envelope` returns an error for these.
            _ => (Cow::Borrowed(""), ((0, 0), None)),
        };
        let (span, payload_type) = payload;
        // An item read as another kind (the line's `type` given again after the payload) is
        // dropped: it is typed again when asked, and not read in part.
        let read = self
            .read
            .filter(|(read_as, _)| *read_as == kind)
            .map(|(_, read)| read);
        LazyRolloutLine {
            text: text.into(),
            timestamp,
            kind: Text::of(kind, text),
            payload: span,
            payload_type: payload_type.map(|payload_type| Text::of(payload_type, text)),
            extra,
            read,
        }
    }
}

impl<'a> Scanned<'a> {
    /// Reads the payload at `at` (read in part, typed, or its head only; see
    /// [`LazyRolloutLine::parse_reading`]), replacing a payload read before; the offset after
    /// it.
    fn payload_at(
        &mut self,
        text: &'a str,
        at: usize,
        wanted: Option<TypeAsRead>,
        in_part: Option<ReadInPart>,
    ) -> Option<usize> {
        self.read = None;
        let kind = match &self.kind {
            Some(StringOrValue::String(kind)) => Some(kind.clone()),
            _ => None,
        };
        // The payload's `type`, when it comes first, peeked at once for both readers (and not
        // at all when there is neither).
        let first = if wanted.is_some() || in_part.is_some() {
            first_type(text, at)
        } else {
            None
        };
        if let (Some(in_part), Some(kind)) = (in_part, &kind)
            && let Some((part, end)) = part_at(text, at, kind, first, in_part)
        {
            self.payload = Some(((at, end), part.payload_type));
            self.read = Some((kind.clone(), Box::new((part.item, ReadAs::InPart))));
            return Some(end);
        }
        if let (Some(wanted), Some(kind), Some(first)) = (wanted, &kind, first)
            && let Some((item, end)) = typed_at(text, at, kind, first, wanted)
        {
            self.payload = Some(((at, end), Some(Cow::Borrowed(first))));
            self.read = Some((kind.clone(), item));
            return Some(end);
        }
        let (head, end) = next_value::<PayloadHead<'_>>(text, at)?;
        self.payload = Some(((at, end), head.0));
        Some(end)
    }
}

/// Reads the top-level object of `text` key by key, each value with serde_json (which validates
/// it and says where it ends). `None` when the text is not a well-formed object or anything is
/// unusual; the caller then parses the whole line as a JSON tree. As in a tree, the last of
/// duplicate keys wins. The payloads `wanted` names are typed on the way when they can be (see
/// [`LazyRolloutLine::parse_typing`]).
fn scan_envelope(
    text: &str,
    wanted: Option<TypeAsRead>,
    in_part: Option<ReadInPart>,
) -> Option<Result<Scanned<'_>, RolloutLineError>> {
    let bytes = text.as_bytes();
    let mut scanned = Scanned {
        timestamp: None,
        kind: None,
        payload: None,
        extra: ExtraFields::new(),
        read: None,
    };
    let mut at = skip_whitespace(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    at = skip_whitespace(bytes, at + 1);
    if bytes.get(at) == Some(&b'}') {
        at += 1;
    } else {
        loop {
            if bytes.get(at) != Some(&b'"') {
                return None;
            }
            let (key, end) = match plain_string(text, at) {
                Some((key, end)) => (JsonString(Cow::Borrowed(key)), end),
                None => next_value::<JsonString<'_>>(text, at)?,
            };
            at = skip_whitespace(bytes, end);
            if bytes.get(at) != Some(&b':') {
                return None;
            }
            at = skip_whitespace(bytes, at + 1);
            let end = match key.0.as_ref() {
                "payload" => scanned.payload_at(text, at, wanted, in_part)?,
                "type" => {
                    let (kind, end) = string_or_value(text, at)?;
                    scanned.kind = Some(kind);
                    end
                }
                "timestamp" => {
                    let (timestamp, end) = string_or_value(text, at)?;
                    scanned.timestamp = Some(timestamp);
                    end
                }
                other => {
                    let (value, end) = next_value::<Value>(text, at)?;
                    scanned.extra.insert(other.to_string(), value);
                    end
                }
            };
            at = skip_whitespace(bytes, end);
            match bytes.get(at) {
                Some(b',') => at = skip_whitespace(bytes, at + 1),
                Some(b'}') => {
                    at += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    if skip_whitespace(bytes, at) != bytes.len() {
        return None;
    }
    Some(match (&scanned.kind, &scanned.payload) {
        (Some(StringOrValue::String(_)), Some(_)) => Ok(scanned),
        (Some(StringOrValue::String(kind)), None) => {
            Err(RolloutLineError::MissingPayload(kind.to_string()))
        }
        _ => Err(RolloutLineError::MissingType),
    })
}

/// The payload at `at` as `in_part` reads it (see [`ReadInPart`]), with the offset just after
/// it.
fn part_at<'a>(
    text: &'a str,
    at: usize,
    kind: &str,
    first_type: Option<&'a str>,
    in_part: ReadInPart,
) -> Option<(PartRead<'a>, usize)> {
    let payload = text.get(at..)?;
    let part = in_part(kind, first_type, payload)?;
    let end = at.checked_add(part.length)?;
    // The reader's length must end a value of the line.
    text.get(at..end)?;
    Some((part, end))
}

/// The `type` of the object at `at` when it is its first member and a plain string.
fn first_type(text: &str, at: usize) -> Option<&str> {
    let bytes = text.as_bytes();
    let open = skip_whitespace(bytes, at);
    if bytes.get(open) != Some(&b'{') {
        return None;
    }
    let (key, end) = plain_string(text, skip_whitespace(bytes, open + 1))?;
    let colon = skip_whitespace(bytes, end);
    if key != "type" || bytes.get(colon) != Some(&b':') {
        return None;
    }
    plain_string(text, skip_whitespace(bytes, colon + 1)).map(|(payload_type, _)| payload_type)
}

/// The payload at `at`, typed as [`RolloutItem::from_payload_json`] types it (boxed, as the line
/// keeps it), with the offset just after it: when `wanted` names it by `kind` and
/// `payload_type`, its `type` (which must be its first member, a plain string, peeked at by hand
/// by the caller, so an unwanted payload costs nothing more), and when it types without the
/// derived path (see `typed_payload`).
fn typed_at(
    text: &str,
    at: usize,
    kind: &str,
    payload_type: &str,
    wanted: TypeAsRead,
) -> Option<(ReadItem, usize)> {
    if !wanted(kind, payload_type) {
        return None;
    }
    let (item, length) = typed_payload::rollout_item_prefix(kind, text.get(at..)?)?;
    let end = at.checked_add(length)?;
    Some((Box::new((item, ReadAs::Typed)), end))
}

/// JSON's whitespace (as serde_json reads it).
fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\n' | b'\t' | b'\r') = bytes.get(at) {
        at += 1;
    }
    at
}

/// The string starting with the quote at `at` when it holds no escape and no control character
/// (the envelope's keys, timestamp and type always do): the text between the quotes and the
/// offset after the closing one, found without a deserializer. `None` sends the caller to
/// serde_json, which reads (or rejects) any other string.
fn plain_string(text: &str, at: usize) -> Option<(&str, usize)> {
    if text.as_bytes().get(at) != Some(&b'"') {
        return None;
    }
    let start = at.checked_add(1)?;
    let rest = text.as_bytes().get(start..)?;
    let close = first_quote_escape_or_control(rest)?;
    if rest.get(close) != Some(&b'"') {
        return None;
    }
    let end = start.checked_add(close)?;
    Some((text.get(start..end)?, end.checked_add(1)?))
}

/// A member value: a plain string read by hand, anything else through serde_json.
fn string_or_value(text: &str, at: usize) -> Option<(StringOrValue<'_>, usize)> {
    match plain_string(text, at) {
        Some((string, end)) => Some((StringOrValue::String(Cow::Borrowed(string)), end)),
        None => next_value::<StringOrValue<'_>>(text, at),
    }
}

/// Deserializes one value starting at `at`; returns it and the offset just after it.
fn next_value<'a, T: Deserialize<'a>>(text: &'a str, at: usize) -> Option<(T, usize)> {
    let rest = text.get(at..)?;
    let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<T>();
    let value = stream.next()?.ok()?;
    Some((value, at.checked_add(stream.byte_offset())?))
}

/// A JSON string, borrowed from the line when it holds no escapes.
struct JsonString<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for JsonString<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StringVisitor;
        impl<'de> Visitor<'de> for StringVisitor {
            type Value = JsonString<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                v: &'de str,
            ) -> Result<Self::Value, E> {
                Ok(JsonString(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(JsonString(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(JsonString(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(StringVisitor)
    }
}

/// A member that is usually a string (borrowed when it can be), kept as a tree otherwise.
enum StringOrValue<'a> {
    String(Cow<'a, str>),
    Value(Value),
}

impl<'de> Deserialize<'de> for StringOrValue<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Peeking is not possible through serde; a string is by far the common case, so it is
        // tried first through a visitor that also accepts every other shape as a tree.
        struct AnyVisitor;
        impl<'de> Visitor<'de> for AnyVisitor {
            type Value = StringOrValue<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                v: &'de str,
            ) -> Result<Self::Value, E> {
                Ok(StringOrValue::String(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(StringOrValue::String(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(StringOrValue::String(Cow::Owned(v)))
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(StringOrValue::Value(Value::Bool(v)))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(StringOrValue::Value(Value::from(v)))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(StringOrValue::Value(Value::from(v)))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
                // As serde_json's own tree: a non-finite float is null.
                Ok(StringOrValue::Value(
                    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number),
                ))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(StringOrValue::Value(Value::Null))
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(StringOrValue::Value(Value::Null))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                let value = Value::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))?;
                Ok(StringOrValue::Value(value))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let value = Value::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(StringOrValue::Value(value))
            }
        }
        deserializer.deserialize_any(AnyVisitor)
    }
}

/// The payload read for its own `type` only (the last one, as in a tree); the rest is skipped
/// (and validated) without being built.
struct PayloadHead<'a>(Option<Cow<'a, str>>);

impl<'de> Deserialize<'de> for PayloadHead<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct HeadVisitor;
        impl<'de> Visitor<'de> for HeadVisitor {
            type Value = PayloadHead<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut kind = None;
                while let Some(key) = map.next_key::<JsonString<'de>>()? {
                    if key.0 == "type" {
                        kind = match map.next_value::<StringOrValue<'de>>()? {
                            StringOrValue::String(kind) => Some(kind),
                            StringOrValue::Value(_) => None,
                        };
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(PayloadHead(kind))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(PayloadHead(None))
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(PayloadHead(None))
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(PayloadHead(None))
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(PayloadHead(None))
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(PayloadHead(None))
            }
            fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(PayloadHead(None))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(PayloadHead(None))
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(PayloadHead(None))
            }
        }
        deserializer.deserialize_any(HeadVisitor)
    }
}

#[cfg(test)]
#[path = "lazy_rollout_line_tests.rs"]
mod tests;
