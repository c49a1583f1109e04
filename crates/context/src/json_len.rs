//! The length of a value's compact JSON, as `serde_json::to_writer` would write it, computed
//! without writing it.
//!
//! The history measures every item by the length of its JSON (the codex heuristic: four bytes a
//! token). Counting the bytes `serde_json` writes costs about what writing them costs: most of
//! it is finding the characters a JSON string escapes, byte after byte. [`json_len`] walks the
//! value through serde as `serde_json`'s compact serializer does and sums what it would write;
//! a string's escapes are counted in blocks the compiler vectorises ([`string_len`]). Floats
//! and map keys other than strings are rare in items: they are counted by `serde_json` itself, or the whole value is
//! (see [`json_len`]).

use std::fmt;
use std::io;

use serde::Serialize;
use serde::ser;
use serde::ser::Impossible;

/// The length of `value`'s compact JSON: `serde_json::to_writer(_, value)`'s byte count, or
/// `None` where `serde_json` fails to write it.
pub(crate) fn json_len<T: Serialize + ?Sized>(value: &T) -> Option<u64> {
    let mut len = Len(0);
    match value.serialize(&mut len) {
        Ok(()) => Some(len.0),
        // A shape counted here only through serde_json (a map key that is not a string):
        // the whole value is.
        Err(Unsupported) => serde_json_len(value),
    }
}

/// The length `serde_json` writes for `value`, counted as it writes.
fn serde_json_len<T: Serialize + ?Sized>(value: &T) -> Option<u64> {
    let mut counter = ByteCounter(0);
    serde_json::to_writer(&mut counter, value).ok()?;
    Some(counter.0)
}

/// An `io::Write` that only counts bytes.
struct ByteCounter(u64);

impl io::Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 = self.0.saturating_add(buf.len() as u64);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The length of `text` as a JSON string, quotes included.
///
/// Counted in blocks of [`BLOCK`] bytes, each byte's escape looked at on its own in a
/// branch-free loop the compiler turns into vector instructions (a block's counts fit in a byte
/// each). About twice as fast as the word arithmetic it replaced, on long tool outputs and short
/// messages alike. The token estimate of every item the history records runs through here.
pub(crate) fn string_len(text: &str) -> u64 {
    let bytes = text.as_bytes();
    let extra: u64 = bytes.chunks(BLOCK).map(block_escape_extra).sum();
    (bytes.len() as u64).saturating_add(extra).saturating_add(2)
}

/// Bytes per block of [`string_len`]: at most 255, so that the escaped bytes of a block (and
/// its long escapes) are counted in one byte each.
const BLOCK: usize = 255;

/// What escaping adds to `block` (at most [`BLOCK`] bytes), as serde_json escapes: `\"`, `\\`
/// and the short escapes of backspace, tab, newline, form feed and carriage return add one byte,
/// the other control characters (`\u00XX`) five, anything else nothing.
#[inline(always)]
fn block_escape_extra(block: &[u8]) -> u64 {
    let mut escaped: u8 = 0;
    let mut long: u8 = 0;
    for &byte in block {
        let control = byte < 0x20;
        escaped = escaped.wrapping_add(u8::from((byte == b'"') | (byte == b'\\') | control));
        long = long.wrapping_add(u8::from(
            control & !matches!(byte, 0x08 | b'\t' | b'\n' | 0x0c | b'\r'),
        ));
    }
    u64::from(escaped) + 4 * u64::from(long)
}

/// The decimal digits of `value`.
fn digits(value: u64) -> u64 {
    value.checked_ilog10().map_or(1, |log| u64::from(log) + 1)
}

fn signed_len(value: i64) -> u64 {
    u64::from(value < 0) + digits(value.unsigned_abs())
}

fn unsigned_128_len(value: u128) -> u64 {
    value.checked_ilog10().map_or(1, |log| u64::from(log) + 1)
}

/// A shape this counter leaves to serde_json.
#[derive(Debug)]
struct Unsupported;

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("counted by serde_json")
    }
}

impl std::error::Error for Unsupported {}

impl ser::Error for Unsupported {
    fn custom<T: fmt::Display>(_msg: T) -> Self {
        Self
    }
}

/// The running length.
struct Len(u64);

impl Len {
    fn add(&mut self, bytes: u64) {
        self.0 = self.0.saturating_add(bytes);
    }

    /// `"variant":` of an externally tagged variant, after its `{`.
    fn variant_key(&mut self, variant: &str) {
        self.add(string_len(variant) + 1);
    }
}

/// A sequence, map or struct being counted: its separators and its closing bracket(s).
struct Compound<'a> {
    len: &'a mut Len,
    first: bool,
    /// Brackets closed at the end (`]` or `}`, and the `}` of a variant's wrapping object).
    closing: u64,
}

impl Compound<'_> {
    fn separator(&mut self) {
        if self.first {
            self.first = false;
        } else {
            self.len.add(1);
        }
    }

    fn end(self) {
        self.len.add(self.closing);
    }
}

impl<'a> ser::Serializer for &'a mut Len {
    type Ok = ();
    type Error = Unsupported;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, value: bool) -> Result<(), Unsupported> {
        self.add(if value { 4 } else { 5 });
        Ok(())
    }

    fn serialize_i8(self, value: i8) -> Result<(), Unsupported> {
        self.serialize_i64(i64::from(value))
    }

    fn serialize_i16(self, value: i16) -> Result<(), Unsupported> {
        self.serialize_i64(i64::from(value))
    }

    fn serialize_i32(self, value: i32) -> Result<(), Unsupported> {
        self.serialize_i64(i64::from(value))
    }

    fn serialize_i64(self, value: i64) -> Result<(), Unsupported> {
        self.add(signed_len(value));
        Ok(())
    }

    fn serialize_i128(self, value: i128) -> Result<(), Unsupported> {
        self.add(u64::from(value < 0) + unsigned_128_len(value.unsigned_abs()));
        Ok(())
    }

    fn serialize_u8(self, value: u8) -> Result<(), Unsupported> {
        self.serialize_u64(u64::from(value))
    }

    fn serialize_u16(self, value: u16) -> Result<(), Unsupported> {
        self.serialize_u64(u64::from(value))
    }

    fn serialize_u32(self, value: u32) -> Result<(), Unsupported> {
        self.serialize_u64(u64::from(value))
    }

    fn serialize_u64(self, value: u64) -> Result<(), Unsupported> {
        self.add(digits(value));
        Ok(())
    }

    fn serialize_u128(self, value: u128) -> Result<(), Unsupported> {
        self.add(unsigned_128_len(value));
        Ok(())
    }

    fn serialize_f32(self, value: f32) -> Result<(), Unsupported> {
        self.add(serde_json_len(&value).ok_or(Unsupported)?);
        Ok(())
    }

    fn serialize_f64(self, value: f64) -> Result<(), Unsupported> {
        self.add(serde_json_len(&value).ok_or(Unsupported)?);
        Ok(())
    }

    fn serialize_char(self, value: char) -> Result<(), Unsupported> {
        self.serialize_str(value.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, value: &str) -> Result<(), Unsupported> {
        self.add(string_len(value));
        Ok(())
    }

    fn serialize_bytes(self, value: &[u8]) -> Result<(), Unsupported> {
        // An array of numbers.
        let numbers: u64 = value.iter().map(|byte| digits(u64::from(*byte))).sum();
        let commas = (value.len() as u64).saturating_sub(1);
        self.add(2 + numbers + commas);
        Ok(())
    }

    fn serialize_none(self) -> Result<(), Unsupported> {
        self.serialize_unit()
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Unsupported> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Unsupported> {
        self.add(4);
        Ok(())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Unsupported> {
        self.serialize_unit()
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Unsupported> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        self.add(1);
        self.variant_key(variant);
        value.serialize(&mut *self)?;
        self.add(1);
        Ok(())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a>, Unsupported> {
        self.add(1);
        Ok(Compound {
            len: self,
            first: true,
            closing: 1,
        })
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'a>, Unsupported> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Compound<'a>, Unsupported> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Unsupported> {
        self.add(1);
        self.variant_key(variant);
        self.add(1);
        Ok(Compound {
            len: self,
            first: true,
            closing: 2,
        })
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a>, Unsupported> {
        self.add(1);
        Ok(Compound {
            len: self,
            first: true,
            closing: 1,
        })
    }

    fn serialize_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Compound<'a>, Unsupported> {
        self.serialize_map(Some(len))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Unsupported> {
        self.add(1);
        self.variant_key(variant);
        self.add(1);
        Ok(Compound {
            len: self,
            first: true,
            closing: 2,
        })
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.separator();
        value.serialize(&mut *self.len)
    }

    fn end(self) -> Result<(), Unsupported> {
        Compound::end(self);
        Ok(())
    }
}

impl ser::SerializeTuple for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        ser::SerializeSeq::serialize_element(self, value)
    }

    fn end(self) -> Result<(), Unsupported> {
        Compound::end(self);
        Ok(())
    }
}

impl ser::SerializeTupleStruct for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        ser::SerializeSeq::serialize_element(self, value)
    }

    fn end(self) -> Result<(), Unsupported> {
        Compound::end(self);
        Ok(())
    }
}

impl ser::SerializeTupleVariant for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        ser::SerializeSeq::serialize_element(self, value)
    }

    fn end(self) -> Result<(), Unsupported> {
        Compound::end(self);
        Ok(())
    }
}

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Unsupported> {
        self.separator();
        key.serialize(KeyLen(&mut *self.len))?;
        self.len.add(1);
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        value.serialize(&mut *self.len)
    }

    fn end(self) -> Result<(), Unsupported> {
        Compound::end(self);
        Ok(())
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        ser::SerializeMap::serialize_entry(self, key, value)
    }

    fn end(self) -> Result<(), Unsupported> {
        Compound::end(self);
        Ok(())
    }
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        ser::SerializeMap::serialize_entry(self, key, value)
    }

    fn end(self) -> Result<(), Unsupported> {
        Compound::end(self);
        Ok(())
    }
}

/// A map key: a string is counted; any other key is left to serde_json (which writes some
/// quoted and refuses others).
struct KeyLen<'a>(&'a mut Len);

impl ser::Serializer for KeyLen<'_> {
    type Ok = ();
    type Error = Unsupported;
    type SerializeSeq = Impossible<(), Unsupported>;
    type SerializeTuple = Impossible<(), Unsupported>;
    type SerializeTupleStruct = Impossible<(), Unsupported>;
    type SerializeTupleVariant = Impossible<(), Unsupported>;
    type SerializeMap = Impossible<(), Unsupported>;
    type SerializeStruct = Impossible<(), Unsupported>;
    type SerializeStructVariant = Impossible<(), Unsupported>;

    fn serialize_str(self, value: &str) -> Result<(), Unsupported> {
        self.0.add(string_len(value));
        Ok(())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        value.serialize(self)
    }

    fn serialize_bool(self, _value: bool) -> Result<(), Unsupported> {
        Err(Unsupported)
    }

    fn serialize_i8(self, _value: i8) -> Result<(), Unsupported> {
        Err(Unsupported)
    }

    fn serialize_i16(self, _value: i16) -> Result<(), Unsupported> {
        Err(Unsupported)
    }

    fn serialize_i32(self, _value: i32) -> Result<(), Unsupported> {
        Err(Unsupported)
    }

    fn serialize_i64(self, _value: i64) -> Result<(), Unsupported> {
        Err(Unsupported)
    }

    fn serialize_u8(self, _value: u8) -> Result<(), Unsupported> {
        Err(Unsupported)
    }

    fn serialize_u16(self, _value: u16) -> Result<(), Unsupported> {
        Err(Unsupported)
    }

    fn serialize_u32(self, _value: u32) -> Result<(), Unsupported> {
        Err(Unsupported)
    }

    fn serialize_u64(self, _value: u64) -> Result<(), Unsupported> {
        Err(Unsupported)
    }

    fn serialize_f32(self, _value: f32) -> Result<(), Unsupported> {
        Err(Unsupported)
    }

    fn serialize_f64(self, _value: f64) -> Result<(), Unsupported> {
        Err(Unsupported)
    }

    fn serialize_char(self, _value: char) -> Result<(), Unsupported> {
        Err(Unsupported)
    }

    fn serialize_bytes(self, _value: &[u8]) -> Result<(), Unsupported> {
        Err(Unsupported)
    }

    fn serialize_none(self) -> Result<(), Unsupported> {
        Err(Unsupported)
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<(), Unsupported> {
        Err(Unsupported)
    }

    fn serialize_unit(self) -> Result<(), Unsupported> {
        Err(Unsupported)
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Unsupported> {
        Err(Unsupported)
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
    ) -> Result<(), Unsupported> {
        Err(Unsupported)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), Unsupported> {
        Err(Unsupported)
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Unsupported> {
        Err(Unsupported)
    }

    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Unsupported> {
        Err(Unsupported)
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Unsupported> {
        Err(Unsupported)
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Unsupported> {
        Err(Unsupported)
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Unsupported> {
        Err(Unsupported)
    }

    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, Unsupported> {
        Err(Unsupported)
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Unsupported> {
        Err(Unsupported)
    }
}

#[cfg(test)]
#[path = "json_len_tests.rs"]
mod tests;
