//! A cheap token estimate for budgets inside reminders: one token per four bytes, rounded up.
//!
//! It errs on the high side for code and English (real tokenisers average four to five bytes per
//! token), so a cap is never overshot by much. Exact counts are the context crate's job.

/// Estimated tokens of `text`.
pub fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}
