//! Finding where a JSON string's plain run of characters ends, eight bytes at a time.
//!
//! A rollout line's envelope (its keys, timestamp and record type) is read by hand: the strings
//! there never hold an escape, and reading them without a deserializer is most of what makes
//! the lazy read cheap. Each is read up to its first quote, backslash or control character:
//! [`first_quote_escape_or_control`] finds that byte with word arithmetic rather than one byte at
//! a time. [`quote_escape_or_control_marks`], the word test it uses, is public.

/// The position of the first byte of `bytes` that is a quote, a backslash or a control
/// character (below 0x20), the bytes that end or interrupt a plain run of a JSON string.
pub(crate) fn first_quote_escape_or_control(bytes: &[u8]) -> Option<usize> {
    let mut words = bytes.chunks_exact(8);
    let mut offset = 0usize;
    for chunk in &mut words {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let marks = quote_escape_or_control_marks(u64::from_le_bytes(word));
        if marks != 0 {
            // The lowest mark is always a byte looked for: a borrow only runs on to the bytes
            // after (above) the first one found.
            return Some(offset + (marks.trailing_zeros() / 8) as usize);
        }
        offset += 8;
    }
    words
        .remainder()
        .iter()
        .position(|byte| matches!(byte, b'"' | b'\\' | 0x00..=0x1f))
        .map(|at| offset + at)
}

const ONES: u64 = u64::from_le_bytes([1; 8]);
const HIGHS: u64 = ONES * 0x80;

/// The high bit of each byte of `word` (eight bytes of text, little-endian) that is a quote, a
/// backslash or a control character (below 0x20), and possibly of bytes after one of them: zero
/// exactly when there is none, and the lowest bit set always marks one (a borrow only runs on to
/// the bytes after the first found).
pub fn quote_escape_or_control_marks(word: u64) -> u64 {
    let control = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    (control | (quote.wrapping_sub(ONES) & !quote) | (backslash.wrapping_sub(ONES) & !backslash))
        & HIGHS
}

#[cfg(test)]
#[path = "json_string_scan_tests.rs"]
mod tests;
