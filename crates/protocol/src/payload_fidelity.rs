//! What typed parsing changed in a rollout payload, kept so that writing the line back restores
//! the original JSON.
//!
//! Typed payloads cannot hold everything a real rollout may contain: an optional field written as
//! `null` reads as absent, a field this version does not model inside a nested part (a content
//! part, a token usage) is dropped, a defaulted field that was absent is written back, and an
//! alias (`compaction_summary`) is written under its canonical name. [`PayloadFidelity`] records,
//! at read time, every place where the typed payload serializes differently from the original
//! (its JSON pointer, the original member and the typed one), and puts the original back on
//! write — but only where the typed value is still the one recorded, so an item changed after
//! reading is written as changed.

use serde_json::Value;

/// The differences between a payload as read and its typed form, undone on write.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PayloadFidelity {
    edits: Vec<PayloadEdit>,
}

/// One member that serializes differently from the original.
#[derive(Debug, Clone, PartialEq)]
struct PayloadEdit {
    /// JSON pointer of the member (`""` for the whole payload).
    pointer: String,
    /// The member as read; `None` when the original had no such member.
    original: Option<Value>,
    /// The member as the typed payload writes it; `None` when it writes no such member.
    typed: Option<Value>,
}

impl PayloadFidelity {
    /// Records how `typed` (the typed payload serialized) differs from `original`.
    pub fn between(original: &Value, typed: &Value) -> Self {
        let mut edits = Vec::new();
        diff(original, typed, &mut Vec::new(), &mut edits);
        Self { edits }
    }

    /// True when the typed payload writes exactly what was read.
    pub fn is_exact(&self) -> bool {
        self.edits.is_empty()
    }

    /// JSON pointers of the members that were written as `null` and read as absent.
    pub fn null_pointers(&self) -> impl Iterator<Item = &str> {
        self.edits
            .iter()
            .filter(|edit| edit.original == Some(Value::Null) && edit.typed.is_none())
            .map(|edit| edit.pointer.as_str())
    }

    /// Puts the original members back into `payload` wherever it still holds the typed value.
    pub fn restore(&self, payload: &mut Value) {
        for edit in &self.edits {
            edit.apply(payload);
        }
    }
}

impl PayloadEdit {
    fn apply(&self, payload: &mut Value) {
        if self.pointer.is_empty() {
            if self.typed.as_ref() == Some(payload)
                && let Some(original) = &self.original
            {
                *payload = original.clone();
            }
            return;
        }
        let Some((parent, key)) = self.pointer.rsplit_once('/') else {
            return;
        };
        let key = unescape(key);
        match payload.pointer_mut(parent) {
            Some(Value::Object(map)) => {
                if map.get(&key) != self.typed.as_ref() {
                    return;
                }
                match &self.original {
                    Some(original) => {
                        map.insert(key, original.clone());
                    }
                    None => {
                        map.remove(&key);
                    }
                }
            }
            Some(Value::Array(elements)) => {
                let Some(slot) = key.parse::<usize>().ok().and_then(|i| elements.get_mut(i)) else {
                    return;
                };
                if Some(&*slot) == self.typed.as_ref()
                    && let Some(original) = &self.original
                {
                    *slot = original.clone();
                }
            }
            Some(_) | None => {}
        }
    }
}

/// One step of the path from the payload to a member.
#[derive(Clone, Copy)]
enum Segment<'a> {
    Key(&'a str),
    Index(usize),
}

/// Walks both values together and records the members that differ, as high up as the difference
/// can be put back (an object member, or an array element when both arrays have one length).
/// The pointer of a member is only written out when it differs.
fn diff<'a>(
    original: &'a Value,
    typed: &'a Value,
    path: &mut Vec<Segment<'a>>,
    out: &mut Vec<PayloadEdit>,
) {
    match (original, typed) {
        (Value::Object(original), Value::Object(typed)) => {
            for (key, member) in original {
                path.push(Segment::Key(key));
                match typed.get(key) {
                    Some(typed_member) => diff(member, typed_member, path, out),
                    None => out.push(PayloadEdit {
                        pointer: pointer(path),
                        original: Some(member.clone()),
                        typed: None,
                    }),
                }
                path.pop();
            }
            if typed.len() > original.len() || typed.keys().any(|key| !original.contains_key(key)) {
                for (key, typed_member) in typed {
                    if !original.contains_key(key) {
                        path.push(Segment::Key(key));
                        out.push(PayloadEdit {
                            pointer: pointer(path),
                            original: None,
                            typed: Some(typed_member.clone()),
                        });
                        path.pop();
                    }
                }
            }
        }
        (Value::Array(original), Value::Array(typed)) if original.len() == typed.len() => {
            for (index, (member, typed_member)) in original.iter().zip(typed).enumerate() {
                path.push(Segment::Index(index));
                diff(member, typed_member, path, out);
                path.pop();
            }
        }
        _ => {
            if original != typed {
                out.push(PayloadEdit {
                    pointer: pointer(path),
                    original: Some(original.clone()),
                    typed: Some(typed.clone()),
                });
            }
        }
    }
}

/// The RFC 6901 pointer of `path`.
fn pointer(path: &[Segment<'_>]) -> String {
    let mut pointer = String::new();
    for segment in path {
        pointer.push('/');
        match segment {
            Segment::Key(key) => {
                for character in key.chars() {
                    match character {
                        '~' => pointer.push_str("~0"),
                        '/' => pointer.push_str("~1"),
                        other => pointer.push(other),
                    }
                }
            }
            Segment::Index(index) => pointer.push_str(&index.to_string()),
        }
    }
    pointer
}

fn unescape(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
#[path = "payload_fidelity_tests.rs"]
mod tests;
