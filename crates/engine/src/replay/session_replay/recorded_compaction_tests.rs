use pretty_assertions::assert_eq;

/// A message item whose text is `text`.
fn message(text: &str) -> agentctx_protocol::ResponseItem {
    serde_json::from_value(serde_json::json!({
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text}],
    }))
    .unwrap()
}

#[test]
fn a_kept_item_is_described_by_its_words_joined_and_cut_as_before() {
    // What the description was before it joined only the words it keeps.
    let joined_then_cut = |text: &str| -> String {
        let line: String = text
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .take(super::KEPT_ITEM_CHARS)
            .collect();
        format!("assistant: {line}")
    };
    let long_word = "x".repeat(150);
    let texts = [
        String::new(),
        "   ".to_string(),
        "one".to_string(),
        "  several \n\t words,   spaced \r\n oddly  ".to_string(),
        "é — 😀 naïve café «cité» ".repeat(10),
        "word ".repeat(19) + "abcdefghijklmnopq",
        "word ".repeat(20),
        "w".repeat(99) + " y and more",
        "w".repeat(100) + " more",
        long_word,
    ];
    for text in texts {
        assert_eq!(
            super::describe_item(&message(&text)),
            joined_then_cut(&text),
            "{text:?}"
        );
    }
}

#[test]
fn first_chars_cuts_at_a_character_and_says_whether_it_did() {
    use super::first_chars;
    assert_eq!(first_chars("", 3), ("", false));
    assert_eq!(first_chars("abc", 3), ("abc", false));
    assert_eq!(first_chars("abcd", 3), ("abc", true));
    assert_eq!(first_chars("é😀ab", 2), ("é😀", true));
    assert_eq!(first_chars("é😀", 2), ("é😀", false));
}
