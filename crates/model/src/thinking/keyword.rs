//! Thinking keywords in a user message ("ultrathink" > "deepthink"), with byte positions for
//! UI highlighting.

use agentctx_protocol::ThinkingLevel;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

/// The keywords that ask for each level (`[thinking.keywords]`).
///
/// Matching is case-insensitive and on word boundaries; a space in a keyword matches any run of
/// whitespace, so `think deeper` matches `Think\n deeper`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct KeywordConfig {
    /// Keywords for [`ThinkingLevel::DeepThink`]; default `["deepthink"]`.
    #[serde(rename = "deepthink", alias = "deepthink_keywords")]
    pub deepthink_keywords: Vec<String>,
    /// Keywords for [`ThinkingLevel::UltraThink`]; default `["ultrathink"]`.
    #[serde(rename = "ultrathink", alias = "ultrathink_keywords")]
    pub ultrathink_keywords: Vec<String>,
}

impl Default for KeywordConfig {
    fn default() -> Self {
        Self {
            deepthink_keywords: vec!["deepthink".to_string()],
            ultrathink_keywords: vec!["ultrathink".to_string()],
        }
    }
}

/// The highest level a keyword in `message` asks for, with that keyword as configured.
/// UltraThink wins over DeepThink wherever they appear.
pub fn detect_thinking_keyword(
    message: &str,
    config: &KeywordConfig,
) -> Option<(ThinkingLevel, String)> {
    let first_match = |keywords: &[String]| {
        keywords
            .iter()
            .filter_map(|keyword| {
                find_keyword(message, keyword)
                    .first()
                    .map(|(start, _)| (*start, keyword.clone()))
            })
            .min_by_key(|(start, _)| *start)
            .map(|(_, keyword)| keyword)
    };
    if let Some(keyword) = first_match(&config.ultrathink_keywords) {
        return Some((ThinkingLevel::UltraThink, keyword));
    }
    first_match(&config.deepthink_keywords).map(|keyword| (ThinkingLevel::DeepThink, keyword))
}

/// Every keyword occurrence as `(start, end, level)` byte ranges into `message`, sorted by
/// start. Overlapping occurrences keep the earlier one, then the longer, then the higher level.
pub fn extract_keyword_positions(
    message: &str,
    config: &KeywordConfig,
) -> Vec<(usize, usize, ThinkingLevel)> {
    let mut found: Vec<(usize, usize, ThinkingLevel)> = Vec::new();
    for (level, keywords) in [
        (ThinkingLevel::UltraThink, &config.ultrathink_keywords),
        (ThinkingLevel::DeepThink, &config.deepthink_keywords),
    ] {
        for keyword in keywords {
            found.extend(
                find_keyword(message, keyword)
                    .into_iter()
                    .map(|(start, end)| (start, end, level)),
            );
        }
    }
    found.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then((b.1 - b.0).cmp(&(a.1 - a.0)))
            .then(b.2.cmp(&a.2))
    });
    let mut kept: Vec<(usize, usize, ThinkingLevel)> = Vec::with_capacity(found.len());
    for range in found {
        if kept.last().is_none_or(|last| range.0 >= last.1) {
            kept.push(range);
        }
    }
    kept
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// All non-overlapping, word-bounded, case-insensitive occurrences of `keyword` in `message`.
fn find_keyword(message: &str, keyword: &str) -> Vec<(usize, usize)> {
    let keyword: Vec<char> = keyword.trim().chars().collect();
    if keyword.is_empty() {
        return Vec::new();
    }
    let mut found = Vec::new();
    let mut previous: Option<char> = None;
    let mut resume_at = 0;
    for (start, c) in message.char_indices() {
        let before = previous;
        previous = Some(c);
        if start < resume_at || before.is_some_and(is_word_char) {
            continue;
        }
        let Some(end) = match_at(message, start, &keyword) else {
            continue;
        };
        let after = message.get(end..).and_then(|rest| rest.chars().next());
        if after.is_some_and(is_word_char) {
            continue;
        }
        found.push((start, end));
        resume_at = end;
    }
    found
}

/// The end byte of `keyword` matched at `start`, if it matches there.
fn match_at(message: &str, start: usize, keyword: &[char]) -> Option<usize> {
    let rest = message.get(start..)?;
    let mut chars = rest.char_indices().peekable();
    let mut k = 0;
    while k < keyword.len() {
        let expected = *keyword.get(k)?;
        if expected.is_whitespace() {
            // One or more whitespace characters in the message.
            let mut matched_any = false;
            while let Some((_, c)) = chars.peek() {
                if !c.is_whitespace() {
                    break;
                }
                matched_any = true;
                chars.next();
            }
            if !matched_any {
                return None;
            }
            while keyword.get(k).is_some_and(|c| c.is_whitespace()) {
                k += 1;
            }
            continue;
        }
        let (_, actual) = chars.next()?;
        if !actual.to_lowercase().eq(expected.to_lowercase()) {
            return None;
        }
        k += 1;
    }
    let end = chars.peek().map_or(rest.len(), |(offset, _)| *offset);
    Some(start + end)
}

#[cfg(test)]
#[path = "keyword_tests.rs"]
mod tests;
