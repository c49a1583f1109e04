//! Middle truncation of texts: keep the head and the tail, replace the middle with a marker.
//!
//! The budget is split 50/50 between head and tail and both cuts fall on UTF-8 character
//! boundaries, so the kept content (head plus tail) never exceeds the byte budget. The marker is
//! not part of the budget: it says what was cut, as codex writes it, `…{N} chars truncated…`
//! (N removed characters) for byte policies and `…{N} tokens truncated…` (N = ceil(removed bytes
//! / 4)) for token policies, with U+2026 on both sides. A truncated output is therefore at most
//! `byte_budget + MAX_TRUNCATION_MARKER_BYTES` bytes long.

use crate::token_estimator::approx_bytes_for_tokens;
use crate::token_estimator::approx_token_count;
use crate::token_estimator::approx_tokens_from_byte_count;
use crate::truncation_policy::TruncationPolicy;

/// The longest marker [`truncate_text`] can insert: two `…` (3 bytes each), a `u64` (20 digits)
/// and ` tokens truncated` (17 bytes).
pub const MAX_TRUNCATION_MARKER_BYTES: usize = 3 + 20 + 17 + 3;

/// Truncates `text` to the policy's budget, keeping its head and tail.
pub fn truncate_text(text: &str, policy: TruncationPolicy) -> String {
    match policy {
        TruncationPolicy::Bytes(bytes) => truncate_middle_chars(text, bytes),
        TruncationPolicy::Tokens(tokens) => truncate_middle_with_token_budget(text, tokens).0,
    }
}

/// Truncates `text` to at most `max_bytes` bytes of content with a `…{N} chars truncated…` marker.
pub(crate) fn truncate_middle_chars(text: &str, max_bytes: usize) -> String {
    truncate_with_byte_estimate(text, max_bytes, MarkerUnit::Chars)
}

/// Truncates `text` to at most `max_tokens * 4` bytes of content with a `…{N} tokens truncated…`
/// marker. The second value is the original token count when the text was truncated.
pub fn truncate_middle_with_token_budget(text: &str, max_tokens: usize) -> (String, Option<u64>) {
    if text.is_empty() {
        return (String::new(), None);
    }
    let max_bytes = approx_bytes_for_tokens(max_tokens);
    if max_tokens > 0 && text.len() <= max_bytes {
        return (text.to_string(), None);
    }
    let truncated = truncate_with_byte_estimate(text, max_bytes, MarkerUnit::Tokens);
    if truncated == text {
        (truncated, None)
    } else {
        (truncated, Some(approx_token_count(text)))
    }
}

/// [`truncate_text`] with a header telling the model the output was cut:
/// `Warning: truncated output (original token count: {n})\nTotal output lines: {lines}\n\n`.
/// A text within the budget is returned unchanged, without the header.
pub fn formatted_truncate_text(text: &str, policy: TruncationPolicy) -> String {
    if text.len() <= policy.byte_budget() {
        return text.to_string();
    }
    let original_tokens = approx_token_count(text);
    let total_lines = text.lines().count();
    let truncated = truncate_text(text, policy);
    format!(
        "Warning: truncated output (original token count: {original_tokens})\nTotal output lines: {total_lines}\n\n{truncated}"
    )
}

/// The marker text for `removed` units.
#[cfg(test)]
pub(crate) fn truncation_marker(policy: TruncationPolicy, removed: u64) -> String {
    match policy {
        TruncationPolicy::Bytes(_) => MarkerUnit::Chars.marker(removed),
        TruncationPolicy::Tokens(_) => MarkerUnit::Tokens.marker(removed),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MarkerUnit {
    Chars,
    Tokens,
}

impl MarkerUnit {
    fn marker(self, removed: u64) -> String {
        match self {
            Self::Chars => format!("…{removed} chars truncated…"),
            Self::Tokens => format!("…{removed} tokens truncated…"),
        }
    }

    fn removed(self, removed_bytes: usize, removed_chars: usize) -> u64 {
        match self {
            Self::Chars => u64::try_from(removed_chars).unwrap_or(u64::MAX),
            Self::Tokens => approx_tokens_from_byte_count(removed_bytes as u64),
        }
    }
}

fn truncate_with_byte_estimate(text: &str, max_bytes: usize, unit: MarkerUnit) -> String {
    if text.is_empty() {
        return String::new();
    }
    if max_bytes == 0 {
        return unit.marker(unit.removed(text.len(), text.chars().count()));
    }
    if text.len() <= max_bytes {
        return text.to_string();
    }
    let left_budget = max_bytes / 2;
    let right_budget = max_bytes - left_budget;
    let (removed_chars, prefix, suffix) = split_string(text, left_budget, right_budget);
    let removed_bytes = text.len().saturating_sub(max_bytes);
    let marker = unit.marker(unit.removed(removed_bytes, removed_chars));
    let mut out = String::with_capacity(prefix.len() + marker.len() + suffix.len());
    out.push_str(prefix);
    out.push_str(&marker);
    out.push_str(suffix);
    out
}

/// Splits `text` into a head of at most `beginning_bytes` and a tail of at most `end_bytes`, both
/// on character boundaries; also returns how many characters fall between them.
///
/// The head ends at the last character boundary within `beginning_bytes`; the tail starts at
/// the first boundary at or after both the head's end and `text.len() - end_bytes`; only the
/// characters between are counted (a long output is cut without walking its kept parts).
fn split_string(text: &str, beginning_bytes: usize, end_bytes: usize) -> (usize, &str, &str) {
    let tail_start_target = text.len().saturating_sub(end_bytes);
    let prefix_end = text.floor_char_boundary(beginning_bytes);
    let suffix_start = text.ceil_char_boundary(tail_start_target.max(prefix_end));
    let removed_chars = text
        .get(prefix_end..suffix_start)
        .map_or(0, |removed| removed.chars().count());
    let prefix = text.get(..prefix_end).unwrap_or_default();
    let suffix = text.get(suffix_start..).unwrap_or_default();
    (removed_chars, prefix, suffix)
}

#[cfg(test)]
#[path = "truncate_tests.rs"]
mod tests;
