//! Truncation of any text to any budget: never panics, the result is valid text and the
//! middle-truncated output stays within the budget plus the marker.
#![no_main]

use agentctx_context::MAX_TRUNCATION_MARKER_BYTES;
use agentctx_context::TruncationPolicy;
use agentctx_context::formatted_truncate_text;
use agentctx_context::truncate_middle_with_token_budget;
use agentctx_context::truncate_text;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((budget, rest)) = data.split_first_chunk::<2>() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let budget = usize::from(u16::from_le_bytes(*budget));
    let bytes = truncate_text(text, TruncationPolicy::Bytes(budget));
    assert!(bytes.len() <= text.len().max(budget + MAX_TRUNCATION_MARKER_BYTES));
    let _ = truncate_text(text, TruncationPolicy::Tokens(budget));
    let _ = formatted_truncate_text(text, TruncationPolicy::Bytes(budget));
    let (middle, _original) = truncate_middle_with_token_budget(text, budget);
    assert!(middle.len() <= text.len().max(budget * 4 + MAX_TRUNCATION_MARKER_BYTES));
});
