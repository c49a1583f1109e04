use pretty_assertions::assert_eq;

use super::*;

#[test]
fn ultrathink_wins_over_deepthink_wherever_it_is() {
    let config = KeywordConfig::default();
    assert_eq!(
        detect_thinking_keyword("deepthink first, then ULTRATHINK", &config),
        Some((ThinkingLevel::UltraThink, "ultrathink".to_string()))
    );
    assert_eq!(
        detect_thinking_keyword("please DeepThink about it", &config),
        Some((ThinkingLevel::DeepThink, "deepthink".to_string()))
    );
    assert_eq!(detect_thinking_keyword("just think", &config), None);
}

#[test]
fn word_boundaries_are_required() {
    let config = KeywordConfig::default();
    assert_eq!(detect_thinking_keyword("ultrathinking", &config), None);
    assert_eq!(detect_thinking_keyword("my_ultrathink", &config), None);
    assert_eq!(
        detect_thinking_keyword("x-ultrathink.", &config).map(|(l, _)| l),
        Some(ThinkingLevel::UltraThink)
    );
}

#[test]
fn positions_are_byte_ranges_into_the_original() {
    let config = KeywordConfig::default();
    let message = "héllo UltraThink and deepthink; ultrathink";
    let positions = extract_keyword_positions(message, &config);
    assert_eq!(
        positions,
        vec![
            (7, 17, ThinkingLevel::UltraThink),
            (22, 31, ThinkingLevel::DeepThink),
            (33, 43, ThinkingLevel::UltraThink),
        ]
    );
    assert_eq!(message.get(7..17), Some("UltraThink"));
    assert_eq!(message.get(22..31), Some("deepthink"));
    assert_eq!(message.get(33..43), Some("ultrathink"));
}

#[test]
fn multi_word_keywords_match_any_whitespace_and_overlaps_keep_the_longest() {
    let config = KeywordConfig {
        deepthink_keywords: vec!["think deeper".to_string(), "think".to_string()],
        ultrathink_keywords: vec!["maximum thinking".to_string()],
    };
    let message = "Think\n  deeper, or use MAXIMUM THINKING";
    assert_eq!(
        extract_keyword_positions(message, &config),
        vec![
            (0, 14, ThinkingLevel::DeepThink),
            (23, 39, ThinkingLevel::UltraThink),
        ]
    );
    assert_eq!(
        detect_thinking_keyword(message, &config),
        Some((ThinkingLevel::UltraThink, "maximum thinking".to_string()))
    );
}

#[test]
fn empty_keywords_never_match() {
    let config = KeywordConfig {
        deepthink_keywords: vec![String::new(), "  ".to_string()],
        ultrathink_keywords: Vec::new(),
    };
    assert_eq!(extract_keyword_positions("anything", &config), vec![]);
}
