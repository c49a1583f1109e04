//! Whether a typed payload serializes to exactly a given JSON value, checked without building it.
//!
//! [`serializes_to`] runs the payload's `Serialize` against a serializer that walks the expected
//! [`Value`] alongside and stops at the first difference. Reading a rollout line uses it as the
//! fast path of [`crate::PayloadFidelity`]: most lines are exact, and for them no second JSON tree
//! is allocated; only a line that differs is serialized and diffed member by member.

use std::fmt;

use serde::Serialize;
use serde::ser;
use serde_json::Map;
use serde_json::Value;

/// True when `typed` serializes to a value equal to `expected`.
pub(crate) fn serializes_to<T: Serialize + ?Sized>(expected: &Value, typed: &T) -> bool {
    typed.serialize(Compare(expected)).is_ok()
}

/// The first difference found (its details do not matter: the caller falls back to a full diff).
#[derive(Debug)]
pub(crate) struct Mismatch;

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("serialized value differs")
    }
}

impl std::error::Error for Mismatch {}

impl ser::Error for Mismatch {
    fn custom<M: fmt::Display>(_message: M) -> Self {
        Self
    }
}

fn check(equal: bool) -> Result<(), Mismatch> {
    if equal { Ok(()) } else { Err(Mismatch) }
}

/// Compares what is serialized into it with the value it holds.
struct Compare<'a>(&'a Value);

impl<'a> ser::Serializer for Compare<'a> {
    type Ok = ();
    type Error = Mismatch;
    type SerializeSeq = CompareSeq<'a>;
    type SerializeTuple = CompareSeq<'a>;
    type SerializeTupleStruct = CompareSeq<'a>;
    type SerializeTupleVariant = ser::Impossible<(), Mismatch>;
    type SerializeMap = CompareMap<'a>;
    type SerializeStruct = CompareMap<'a>;
    type SerializeStructVariant = CompareMap<'a>;

    fn serialize_bool(self, v: bool) -> Result<(), Mismatch> {
        check(self.0.as_bool() == Some(v))
    }

    fn serialize_i8(self, v: i8) -> Result<(), Mismatch> {
        self.serialize_i64(i64::from(v))
    }

    fn serialize_i16(self, v: i16) -> Result<(), Mismatch> {
        self.serialize_i64(i64::from(v))
    }

    fn serialize_i32(self, v: i32) -> Result<(), Mismatch> {
        self.serialize_i64(i64::from(v))
    }

    fn serialize_i64(self, v: i64) -> Result<(), Mismatch> {
        // A float never equals an integer as a `Value`, and `as_i64` is `None` for floats.
        check(self.0.as_i64() == Some(v))
    }

    fn serialize_u8(self, v: u8) -> Result<(), Mismatch> {
        self.serialize_u64(u64::from(v))
    }

    fn serialize_u16(self, v: u16) -> Result<(), Mismatch> {
        self.serialize_u64(u64::from(v))
    }

    fn serialize_u32(self, v: u32) -> Result<(), Mismatch> {
        self.serialize_u64(u64::from(v))
    }

    fn serialize_u64(self, v: u64) -> Result<(), Mismatch> {
        check(self.0.as_u64() == Some(v))
    }

    fn serialize_f32(self, v: f32) -> Result<(), Mismatch> {
        self.serialize_f64(f64::from(v))
    }

    fn serialize_f64(self, v: f64) -> Result<(), Mismatch> {
        // serde_json writes a non-finite float as `null`.
        if v.is_finite() {
            check(self.0.is_f64() && self.0.as_f64() == Some(v))
        } else {
            check(self.0.is_null())
        }
    }

    fn serialize_char(self, v: char) -> Result<(), Mismatch> {
        let mut buffer = [0u8; 4];
        self.serialize_str(v.encode_utf8(&mut buffer))
    }

    fn serialize_str(self, v: &str) -> Result<(), Mismatch> {
        check(self.0.as_str() == Some(v))
    }

    fn serialize_bytes(self, _v: &[u8]) -> Result<(), Mismatch> {
        // Not produced by protocol types; a full diff handles it.
        Err(Mismatch)
    }

    fn serialize_none(self) -> Result<(), Mismatch> {
        check(self.0.is_null())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Mismatch> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Mismatch> {
        check(self.0.is_null())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Mismatch> {
        check(self.0.is_null())
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Mismatch> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Mismatch> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Mismatch> {
        let inner = single_member(self.0, variant)?;
        value.serialize(Compare(inner))
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<CompareSeq<'a>, Mismatch> {
        match self.0 {
            Value::Array(elements) => Ok(CompareSeq { elements, next: 0 }),
            _ => Err(Mismatch),
        }
    }

    fn serialize_tuple(self, len: usize) -> Result<CompareSeq<'a>, Mismatch> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<CompareSeq<'a>, Mismatch> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Mismatch> {
        // Not produced by protocol types; a full diff handles it.
        Err(Mismatch)
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<CompareMap<'a>, Mismatch> {
        match self.0 {
            Value::Object(members) => Ok(CompareMap {
                members,
                seen: 0,
                key: None,
            }),
            _ => Err(Mismatch),
        }
    }

    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<CompareMap<'a>, Mismatch> {
        self.serialize_map(Some(len))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<CompareMap<'a>, Mismatch> {
        Compare(single_member(self.0, variant)?).serialize_map(Some(len))
    }
}

/// The value of `{variant: value}`, the externally tagged form.
fn single_member<'a>(value: &'a Value, variant: &str) -> Result<&'a Value, Mismatch> {
    match value {
        Value::Object(members) if members.len() == 1 => members.get(variant).ok_or(Mismatch),
        _ => Err(Mismatch),
    }
}

/// Compares elements in order, then checks none is left over.
struct CompareSeq<'a> {
    elements: &'a [Value],
    next: usize,
}

impl CompareSeq<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Mismatch> {
        let expected = self.elements.get(self.next).ok_or(Mismatch)?;
        self.next += 1;
        value.serialize(Compare(expected))
    }

    fn finish(self) -> Result<(), Mismatch> {
        check(self.next == self.elements.len())
    }
}

impl ser::SerializeSeq for CompareSeq<'_> {
    type Ok = ();
    type Error = Mismatch;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Mismatch> {
        self.element(value)
    }

    fn end(self) -> Result<(), Mismatch> {
        self.finish()
    }
}

impl ser::SerializeTuple for CompareSeq<'_> {
    type Ok = ();
    type Error = Mismatch;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Mismatch> {
        self.element(value)
    }

    fn end(self) -> Result<(), Mismatch> {
        self.finish()
    }
}

impl ser::SerializeTupleStruct for CompareSeq<'_> {
    type Ok = ();
    type Error = Mismatch;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Mismatch> {
        self.element(value)
    }

    fn end(self) -> Result<(), Mismatch> {
        self.finish()
    }
}

/// Compares members by key, then checks every expected member was produced. A key produced
/// twice would be counted twice, so `seen` only matches when the member sets are equal.
struct CompareMap<'a> {
    members: &'a Map<String, Value>,
    seen: usize,
    key: Option<String>,
}

impl CompareMap<'_> {
    fn member<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Mismatch> {
        let expected = self.members.get(key).ok_or(Mismatch)?;
        self.seen += 1;
        value.serialize(Compare(expected))
    }

    fn finish(self) -> Result<(), Mismatch> {
        check(self.seen == self.members.len())
    }
}

impl ser::SerializeMap for CompareMap<'_> {
    type Ok = ();
    type Error = Mismatch;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Mismatch> {
        match serde_json::to_value(key) {
            Ok(Value::String(key)) => {
                self.key = Some(key);
                Ok(())
            }
            Ok(_) | Err(_) => Err(Mismatch),
        }
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Mismatch> {
        let key = self.key.take().ok_or(Mismatch)?;
        self.member(&key, value)
    }

    fn end(self) -> Result<(), Mismatch> {
        self.finish()
    }
}

impl ser::SerializeStruct for CompareMap<'_> {
    type Ok = ();
    type Error = Mismatch;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Mismatch> {
        self.member(key, value)
    }

    fn end(self) -> Result<(), Mismatch> {
        self.finish()
    }
}

impl ser::SerializeStructVariant for CompareMap<'_> {
    type Ok = ();
    type Error = Mismatch;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Mismatch> {
        self.member(key, value)
    }

    fn end(self) -> Result<(), Mismatch> {
        self.finish()
    }
}

#[cfg(test)]
#[path = "payload_compare_tests.rs"]
mod tests;
