use pretty_assertions::assert_eq;

use super::TextIndex;
use super::content_words;
use super::significant_line;
use super::tokens;
use agentctx_protocol::ResponseItem;

#[test]
fn tokens_keep_paths_and_names_whole_and_drop_prose_punctuation() {
    let text = "see `src/report.rs`: ReportOptions::default(), then run cargo test -q.";
    assert_eq!(
        tokens(text).collect::<Vec<_>>(),
        [
            "see",
            "src/report.rs",
            "ReportOptions::default",
            "then",
            "run",
            "cargo",
            "test",
            "-q"
        ]
    );
}

#[test]
fn content_words_leave_out_short_words_numbers_and_stopwords() {
    assert_eq!(
        content_words("Never run `git push` on the 1.85 branch; the user pushes."),
        ["run", "git", "push", "branch", "user", "pushes"]
    );
}

#[test]
fn a_line_number_of_a_read_tool_is_not_part_of_the_line() {
    assert_eq!(
        significant_line("    12\tpub fn parse_date(input: &str)"),
        Some("pub fn parse_date(input: &str)")
    );
    assert_eq!(
        significant_line("     3→from feedkit import digest"),
        Some("from feedkit import digest")
    );
    assert_eq!(significant_line("    });"), None);
    assert_eq!(significant_line("#[test]"), None);
    // A number that is the line's own text stays.
    assert_eq!(significant_line("2025 was a year"), Some("2025 was a year"));
}

#[test]
fn a_path_is_found_by_its_end_and_a_call_by_its_decoded_arguments() {
    let index = TextIndex::of_items(
        &[
            ResponseItem::user_text("Edited /home/mira/src/tally/src/report.rs today."),
            ResponseItem::function_call(
                "c1",
                "Write",
                serde_json::json!({"file_path": "notes.md", "content": "first line here\nsecond line here"})
                    .to_string(),
            ),
        ],
        true,
    );
    assert!(index.has_token("src/report.rs"));
    assert!(index.has_token("report.rs"));
    assert!(index.has_token("/home/mira/src/tally/src/report.rs"));
    assert!(!index.has_token("src/cli.rs"));
    assert!(index.has_line("second line here"));
    assert!(index.contains("FIRST LINE"));
    assert_eq!(
        index.words_held(&["edited".to_string(), "yesterday".to_string()]),
        1
    );
}

#[test]
fn an_index_without_its_text_answers_no_verbatim_needle() {
    let index = TextIndex::of_items(&[ResponseItem::user_text("keep the text")], false);
    assert!(index.has_token("keep"));
    assert!(!index.contains("keep the text"));
}
