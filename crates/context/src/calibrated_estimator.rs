//! A token estimator calibrated against the o200k tokenizer, counting characters by class.
//!
//! One pass over the bytes counts ASCII word runs and their letters, digit groups, code
//! punctuation, whitespace runs with line breaks, CJK characters and other characters; the estimate is a weighted
//! sum of those counts. The weights were fitted (least squares) to o200k_base counts over the
//! mixed corpus in `benches/fixtures/tokens/` (code, prose, JSON tool output, CJK text); the
//! `tiktoken` feature's calibration test keeps the total within 5% of the tokenizer's. See
//! docs/design/context-and-tokens.md, "The calibrated estimator", and
//! docs/design/performance.md for the figures.

use agentctx_protocol::ResponseItem;

use crate::item_text_tokens::item_tokens;
use crate::token_estimator::TokenEstimator;

/// Counts of the character classes of a text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ClassCounts {
    /// Runs of ASCII letters (a word or a piece of an identifier).
    pub(crate) word_runs: u64,
    /// ASCII letters.
    pub(crate) letters: u64,
    /// Groups of up to three ASCII digits (o200k splits numbers that way).
    pub(crate) digit_groups: u64,
    /// ASCII punctuation and symbols.
    pub(crate) punctuation: u64,
    /// Whitespace runs holding a line break (line ends and the indentation after them). Other
    /// whitespace merges into the neighbouring tokens: fitting gave runs of spaces no weight.
    pub(crate) line_breaks: u64,
    /// CJK characters: Han ideographs, kana, Hangul and CJK punctuation.
    pub(crate) cjk: u64,
    /// Any other non-ASCII character.
    pub(crate) other: u64,
}

/// The fitted weight of each class, in the order of [`ClassCounts::features`]: a word costs
/// about 0.62 tokens plus 0.10 per letter (long identifiers split), a digit group 1.45 (digits
/// rarely merge with their neighbours), a punctuation character 0.52, a line break with its
/// indentation 1.01, a CJK character 0.76 and any other character 0.68. Refit with the
/// `feature_rows` test when the tokenizer changes.
pub(crate) const WEIGHTS: [f64; 7] = [0.6162, 0.1006, 1.4483, 0.5213, 1.0064, 0.7553, 0.6787];

impl ClassCounts {
    /// The counts as the feature vector the weights apply to.
    pub(crate) fn features(&self) -> [f64; 7] {
        [
            self.word_runs as f64,
            self.letters as f64,
            self.digit_groups as f64,
            self.punctuation as f64,
            self.line_breaks as f64,
            self.cjk as f64,
            self.other as f64,
        ]
    }

    /// Counts the classes of `text` in one pass, a run at a time (a tight loop per run is what
    /// makes the estimator fast).
    pub(crate) fn of(text: &str) -> Self {
        let mut counts = Self::default();
        let bytes = text.as_bytes();
        let mut index = 0;
        while let Some(&byte) = bytes.get(index) {
            if byte >= 0x80 {
                let (is_cjk, width) = non_ascii_class(bytes, index);
                if is_cjk {
                    counts.cjk += 1;
                } else {
                    counts.other += 1;
                }
                index += width;
                continue;
            }
            let class = ASCII_CLASSES
                .get(usize::from(byte))
                .copied()
                .unwrap_or(Class::Other);
            let start = index;
            index += 1;
            match class {
                Class::Letter => {
                    index = run_end(bytes, index, u8::is_ascii_alphabetic);
                    counts.word_runs += 1;
                    counts.letters += (index - start) as u64;
                }
                Class::Digit => {
                    index = run_end(bytes, index, u8::is_ascii_digit);
                    counts.digit_groups += (index - start).div_ceil(3) as u64;
                }
                Class::Space => {
                    let mut has_break = byte == b'\n';
                    while let Some(&next) = bytes.get(index) {
                        if !matches!(next, b' ' | b'\t' | b'\n' | b'\r') {
                            break;
                        }
                        has_break |= next == b'\n';
                        index += 1;
                    }
                    if has_break {
                        counts.line_breaks += 1;
                    }
                }
                Class::Punctuation => counts.punctuation += 1,
                Class::Other => counts.other += 1,
            }
        }
        counts
    }

    /// The weighted estimate, rounded.
    pub(crate) fn tokens(&self) -> u64 {
        let estimate: f64 = self
            .features()
            .iter()
            .zip(WEIGHTS)
            .map(|(count, weight)| count * weight)
            .sum();
        estimate.round().max(0.0) as u64
    }
}

/// The end of the run of bytes matching `matches` that continues at `index`.
fn run_end(bytes: &[u8], mut index: usize, matches: fn(&u8) -> bool) -> usize {
    while bytes.get(index).is_some_and(matches) {
        index += 1;
    }
    index
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Letter,
    Digit,
    Punctuation,
    Space,
    Other,
}

/// The class of every ASCII byte.
const ASCII_CLASSES: [Class; 128] = {
    let mut classes = [Class::Other; 128];
    let mut byte = 0;
    while byte < 128 {
        let b = byte as u8;
        classes[byte] = if b.is_ascii_alphabetic() {
            Class::Letter
        } else if b.is_ascii_digit() {
            Class::Digit
        } else if b == b' ' || b == b'\t' || b == b'\n' || b == b'\r' {
            Class::Space
        } else if b.is_ascii_punctuation() {
            Class::Punctuation
        } else {
            Class::Other
        };
        byte += 1;
    }
    classes
};

/// Whether the non-ASCII character starting at `index` is CJK, and its byte width.
fn non_ascii_class(bytes: &[u8], index: usize) -> (bool, usize) {
    let lead = bytes.get(index).copied().unwrap_or(0);
    let width = match lead {
        0xF0.. => 4,
        0xE0.. => 3,
        _ => 2,
    };
    let mut code_point = u32::from(lead) & (0x7F >> width);
    for offset in 1..width {
        let continuation = bytes.get(index + offset).copied().unwrap_or(0x80);
        code_point = (code_point << 6) | (u32::from(continuation) & 0x3F);
    }
    (is_cjk(code_point), width)
}

/// Han ideographs (with extensions and compatibility forms), kana, Hangul syllables, CJK
/// punctuation and full-width forms.
fn is_cjk(code_point: u32) -> bool {
    matches!(
        code_point,
        0x3000..=0x30FF
            | 0x3400..=0x4DBF
            | 0x4E00..=0x9FFF
            | 0xAC00..=0xD7AF
            | 0xF900..=0xFAFF
            | 0xFF00..=0xFFEF
            | 0x20000..=0x2FFFF
    )
}

/// Estimates o200k token counts from character classes (see the module doc): within a few
/// percent of the tokenizer on mixed text, at the cost of one pass over the bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CalibratedTokenEstimator;

impl TokenEstimator for CalibratedTokenEstimator {
    fn estimate_text(&self, text: &str) -> u64 {
        estimate(text)
    }

    fn estimate_item(&self, item: &ResponseItem) -> u64 {
        item_tokens(item, &estimate)
    }
}

/// Tokens of `text`: zero when empty, else the weighted estimate and at least one.
fn estimate(text: &str) -> u64 {
    if text.is_empty() {
        0
    } else {
        ClassCounts::of(text).tokens().max(1)
    }
}

#[cfg(test)]
#[path = "calibrated_estimator_tests.rs"]
mod tests;
