use pretty_assertions::assert_eq;

use super::*;

#[test]
fn codex_utf8_example_keeps_head_and_tail() {
    let content = "😀😀😀😀😀😀😀😀😀😀\nsecond line with text\n";
    assert_eq!(
        truncate_text(content, TruncationPolicy::Bytes(20)),
        "😀😀…21 chars truncated…with text\n"
    );
}

#[test]
fn text_within_budget_is_unchanged() {
    assert_eq!(
        truncate_text("small", TruncationPolicy::Tokens(10)),
        "small"
    );
    assert_eq!(truncate_text("small", TruncationPolicy::Bytes(5)), "small");
    assert_eq!(
        truncate_middle_with_token_budget("small", 2),
        ("small".to_string(), None)
    );
}

#[test]
fn empty_text_stays_empty() {
    assert_eq!(truncate_text("", TruncationPolicy::Bytes(0)), "");
    assert_eq!(
        truncate_middle_with_token_budget("", 0),
        (String::new(), None)
    );
}

#[test]
fn zero_budget_gives_the_marker_alone() {
    assert_eq!(truncate_middle_chars("abcdef", 0), "…6 chars truncated…");
    assert_eq!(
        truncate_middle_with_token_budget("abcdefghi", 0),
        ("…3 tokens truncated…".to_string(), Some(3))
    );
}

#[test]
fn token_budget_splits_fifty_fifty() {
    let text = "a".repeat(50) + &"b".repeat(50);
    let (out, original) = truncate_middle_with_token_budget(&text, 5);
    // 20 bytes kept, 80 removed -> 20 tokens.
    assert_eq!(
        out,
        format!("{}…20 tokens truncated…{}", "a".repeat(10), "b".repeat(10))
    );
    assert_eq!(original, Some(25));
}

#[test]
fn odd_budget_gives_the_extra_byte_to_the_tail() {
    assert_eq!(
        truncate_middle_chars("abcdefghij", 5),
        "ab…5 chars truncated…hij"
    );
}

#[test]
fn multibyte_characters_are_never_split() {
    // Each "é" is 2 bytes; a 5-byte budget keeps 1 char of head (2 bytes, 3 would split) and
    // 1 char of tail.
    let out = truncate_middle_chars("éééééé", 5);
    assert_eq!(out, "é…4 chars truncated…é");
}

#[test]
fn formatted_truncation_adds_the_warning_header() {
    let text = (1..=100)
        .map(|line| format!("line {line}"))
        .collect::<Vec<_>>()
        .join("\n");
    let out = formatted_truncate_text(&text, TruncationPolicy::Tokens(10));
    insta::assert_snapshot!("formatted_truncation_tokens", out);
    assert_eq!(
        formatted_truncate_text("short", TruncationPolicy::Tokens(10)),
        "short"
    );
}

#[test]
fn marker_texts() {
    let markers = [
        truncation_marker(TruncationPolicy::Bytes(1), 42),
        truncation_marker(TruncationPolicy::Tokens(1), 7),
        truncate_middle_chars(&"x".repeat(40), 10),
        truncate_middle_with_token_budget(&"y".repeat(40), 2).0,
    ]
    .join("\n");
    insta::assert_snapshot!("truncation_markers", markers);
}

#[test]
fn longest_marker_fits_the_documented_bound() {
    let marker = truncation_marker(TruncationPolicy::Tokens(0), u64::MAX);
    assert_eq!(marker.len(), MAX_TRUNCATION_MARKER_BYTES);
}

/// How the split was made before it was computed from the boundaries: every character walked.
fn split_string_walking(
    text: &str,
    beginning_bytes: usize,
    end_bytes: usize,
) -> (usize, &str, &str) {
    let tail_start_target = text.len().saturating_sub(end_bytes);
    let mut prefix_end = 0usize;
    let mut suffix_start = text.len();
    let mut suffix_started = false;
    let mut removed_chars = 0usize;
    for (index, character) in text.char_indices() {
        let character_end = index + character.len_utf8();
        if character_end <= beginning_bytes {
            prefix_end = character_end;
            continue;
        }
        if index >= tail_start_target {
            if !suffix_started {
                suffix_start = index;
                suffix_started = true;
            }
            continue;
        }
        removed_chars += 1;
    }
    let suffix_start = suffix_start.max(prefix_end);
    let prefix = text.get(..prefix_end).unwrap_or_default();
    let suffix = text.get(suffix_start..).unwrap_or_default();
    (removed_chars, prefix, suffix)
}

#[test]
fn the_split_is_the_one_walking_every_character_makes() {
    let texts = [
        String::new(),
        "a".to_string(),
        "é".to_string(),
        "ascii only, long enough to be cut somewhere".to_string(),
        "é — 😀 naïve café «cité» ".repeat(7),
        "😀".repeat(13),
        "ab😀cd€ef".repeat(5),
    ];
    for text in &texts {
        for beginning in 0..=text.len() + 2 {
            for end in 0..=text.len() + 2 {
                assert_eq!(
                    split_string(text, beginning, end),
                    split_string_walking(text, beginning, end),
                    "{text:?} {beginning} {end}"
                );
            }
        }
    }
}
