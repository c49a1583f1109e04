//! The text of a history, read once: every text the model sees in its items (messages, tool-call
//! arguments and inputs, tool outputs, reasoning summaries, readable copies of opaque compaction
//! items), tokenized and split into lines. A probe is then answered by set lookups, never by a
//! scan of the text: checking P probes against a context of N bytes costs O(N + P).

use std::collections::HashSet;

use agentctx_protocol::ContentItem;
use agentctx_protocol::ReasoningSummary;
use agentctx_protocol::ResponseItem;
use serde_json::Value;

/// Words that say nothing about what a sentence is about (lowercase): left out of the words a
/// sentence is matched by. Negations are among them: "never push" and "do not push" state the
/// same constraint.
const STOPWORDS: [&str; 64] = [
    "the", "and", "for", "with", "that", "this", "you", "your", "are", "was", "were", "not", "but",
    "all", "any", "can", "will", "would", "should", "could", "have", "has", "had", "its", "it's",
    "from", "into", "onto", "then", "than", "them", "they", "there", "these", "those", "what",
    "when", "where", "which", "who", "why", "how", "also", "just", "like", "some", "does", "did",
    "don't", "dont", "never", "always", "only", "must", "please", "too", "out", "about", "our",
    "let's", "now", "yes", "okay", "ok",
];

/// The bytes that end a token: ASCII whitespace, quotes, brackets and the punctuation of prose
/// and of shell command lines. `/`, `.`, `_`, `-` and `:` stay inside a token, so a path, a
/// dotted name and a `Type::method` are one token each. All are ASCII, so a token is split on
/// bytes without decoding the text.
const SEPARATORS: &[u8] = b" \t\n\r\x0b\x0c`'\"()[]{}<>,;|&=*!?\\";

const fn separator_table() -> [bool; 256] {
    let mut table = [false; 256];
    let mut at = 0;
    while at < SEPARATORS.len() {
        table[SEPARATORS[at] as usize] = true;
        at += 1;
    }
    table
}

static IS_SEPARATOR: [bool; 256] = separator_table();

fn is_separator(byte: u8) -> bool {
    IS_SEPARATOR
        .get(usize::from(byte))
        .copied()
        .unwrap_or(false)
}

/// The tokens of `text`, as they stand (case kept): split at the [`SEPARATORS`], trailing
/// sentence punctuation (`.`, `:`) dropped.
pub(crate) fn tokens(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        loop {
            while bytes.get(at).is_some_and(|byte| is_separator(*byte)) {
                at += 1;
            }
            if at >= bytes.len() {
                return None;
            }
            let start = at;
            while bytes.get(at).is_some_and(|byte| !is_separator(*byte)) {
                at += 1;
            }
            // Both ends are at ASCII bytes or the text's ends: character boundaries.
            let token = text.get(start..at)?.trim_end_matches(['.', ':']);
            if !token.is_empty() {
                return Some(token);
            }
        }
    })
}

/// What a content word is trimmed of.
pub(crate) const WORD_TRIM: [char; 6] = ['.', ':', '-', '#', '$', '/'];

/// The words a sentence is matched by: its distinct lowercase tokens of three characters or
/// more that hold a letter and are not [`STOPWORDS`], in order of first use.
pub(crate) fn content_words(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    let mut seen = HashSet::new();
    let mut words = Vec::new();
    for token in tokens(&lower) {
        let token = token.trim_matches(WORD_TRIM);
        if token.chars().count() < 3
            || !token.chars().any(char::is_alphabetic)
            || STOPWORDS.contains(&token)
        {
            continue;
        }
        if seen.insert(token) {
            words.push(token.to_string());
        }
    }
    words
}

/// `line` as the index keeps it: the line number a read tool prefixes (`{n:>6}\t` of
/// `read_file` and `cat -n`, `{n:>6}→` of Claude Code's `Read`) removed, surrounding whitespace
/// trimmed. `None` for a trivial line: fewer than 8 characters, or fewer than 4 letters or digits
/// (`}`, `});`, `#[test]`, a blank line), which would match in any file.
pub(crate) fn significant_line(line: &str) -> Option<&str> {
    let line = strip_line_number(line).trim();
    let alphanumeric = line.chars().filter(|ch| ch.is_alphanumeric()).count();
    (line.chars().count() >= 8 && alphanumeric >= 4).then_some(line)
}

fn strip_line_number(line: &str) -> &str {
    let trimmed = line.trim_start();
    let digits = trimmed.len()
        - trimmed
            .trim_start_matches(|ch: char| ch.is_ascii_digit())
            .len();
    if digits == 0 {
        return line;
    }
    let rest = trimmed.get(digits..).unwrap_or_default();
    rest.strip_prefix('\t')
        .or_else(|| rest.strip_prefix('→'))
        .unwrap_or(line)
}

/// Calls `visit` with every text the model reads in `item`.
pub(crate) fn item_texts(item: &ResponseItem, mut visit: impl FnMut(&str)) {
    match item {
        ResponseItem::Message { content, .. } => {
            for part in content {
                if let ContentItem::InputText { text } | ContentItem::OutputText { text } = part {
                    visit(text);
                }
            }
        }
        ResponseItem::Reasoning { summary, .. } => {
            for part in summary {
                if let ReasoningSummary::SummaryText { text } = part {
                    visit(text);
                }
            }
        }
        ResponseItem::FunctionCall { arguments, .. } => argument_texts(arguments, &mut visit),
        ResponseItem::CustomToolCall { input, .. } => visit(input),
        ResponseItem::FunctionCallOutput { output, .. }
        | ResponseItem::CustomToolCallOutput { output, .. } => visit(&output.text_content()),
        ResponseItem::LocalShellCall { action, .. } => json_strings(action, &mut visit),
        other => {
            if let Some(copy) = other.readable_copy() {
                visit(copy);
            }
        }
    }
}

/// The strings of a call's JSON arguments (a file's content in a `Write` is text, not an
/// escaped JSON string); the raw text when it is not JSON.
pub(crate) fn argument_texts(arguments: &str, visit: &mut impl FnMut(&str)) {
    match serde_json::from_str::<Value>(arguments) {
        Ok(value) => json_strings(&value, visit),
        Err(_) => visit(arguments),
    }
}

fn json_strings(value: &Value, visit: &mut impl FnMut(&str)) {
    match value {
        Value::String(text) => visit(text),
        Value::Array(values) => values.iter().for_each(|value| json_strings(value, visit)),
        Value::Object(map) => map.values().for_each(|value| json_strings(value, visit)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Calls `visit` with `token` and the forms a lookup may name it by: without a leading `./`,
/// every end of a path after a `/`, and the parts of a dotted or `::` name.
pub(crate) fn token_variants(token: &str, mut visit: impl FnMut(&str)) {
    visit(token);
    let token = token.trim_start_matches("./");
    for (at, _) in token.match_indices('/') {
        if let Some(rest) = token.get(at + 1..).filter(|rest| !rest.is_empty()) {
            visit(rest);
        }
    }
    // Character searches: this runs on every token of a history.
    if token.contains(['.', ':']) {
        for part in token.split(['.', ':']).filter(|part| !part.is_empty()) {
            visit(part);
        }
    }
}

/// A history's text, indexed for lookups: its lowercase tokens (with the suffixes of a path and
/// the parts of a dotted or `::` name, so `src/report.rs` is found in
/// `/home/me/tally/src/report.rs`), its significant lines, and the lowercase text itself for
/// verbatim needles.
#[derive(Debug, Default)]
pub(crate) struct TextIndex {
    tokens: HashSet<String>,
    lines: HashSet<String>,
    lower: String,
    /// The lowercase text is kept (for [`TextIndex::contains`]).
    keep_text: bool,
}

impl TextIndex {
    /// The index of everything the model reads in `items`; `keep_text` keeps the text itself
    /// for verbatim needles.
    pub(crate) fn of_items(items: &[ResponseItem], keep_text: bool) -> Self {
        let mut index = Self {
            keep_text,
            ..Self::default()
        };
        for item in items {
            item_texts(item, |text| index.add(text));
        }
        index
    }

    fn add(&mut self, text: &str) {
        for line in text.lines() {
            if let Some(line) = significant_line(line)
                && !self.lines.contains(line)
            {
                self.lines.insert(line.to_string());
            }
        }
        let lower = text.to_lowercase();
        for token in tokens(&lower) {
            self.add_token(token);
        }
        if self.keep_text {
            self.lower.push_str(&lower);
            self.lower.push('\n');
        }
    }

    fn add_token(&mut self, token: &str) {
        let tokens = &mut self.tokens;
        token_variants(token, |variant| {
            if !tokens.contains(variant) {
                tokens.insert(variant.to_string());
            }
        });
    }

    /// Whether the text holds `token` (lowercase), or a path ending with it.
    pub(crate) fn has_token(&self, token: &str) -> bool {
        self.tokens.contains(token)
    }

    /// Whether the text holds `line` (a [`significant_line`]).
    pub(crate) fn has_line(&self, line: &str) -> bool {
        self.lines.contains(line)
    }

    /// How many of `words` (lowercase) the text holds as tokens.
    pub(crate) fn words_held(&self, words: &[String]) -> usize {
        words.iter().filter(|word| self.has_token(word)).count()
    }

    /// Whether the text holds `needle` verbatim, case aside (one scan per needle: for the few
    /// facts a test plants).
    pub(crate) fn contains(&self, needle: &str) -> bool {
        self.lower.contains(&needle.to_lowercase())
    }
}

#[cfg(test)]
#[path = "text_index_tests.rs"]
mod tests;
