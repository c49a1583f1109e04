use pretty_assertions::assert_eq;

use super::*;

#[test]
fn a_range_is_inclusive_and_one_based() {
    let got = excerpt("a\nb\nc\nd\n", 2, Some(3));
    assert_eq!(
        got,
        FileExcerpt {
            text: "b\nc".to_string(),
            start_line: 2,
            num_lines: 2,
            total_lines: 4,
            truncated: false,
        }
    );
    assert_eq!(got.end_line(), 3);
    assert!(!got.is_whole_file());
}

#[test]
fn more_than_max_lines_is_truncated() {
    let content: String = (0..MAX_FILE_LINES + 10).map(|n| format!("{n}\n")).collect();
    let got = excerpt(&content, 1, None);
    assert_eq!(got.num_lines, MAX_FILE_LINES);
    assert_eq!(got.total_lines, MAX_FILE_LINES + 10);
    assert!(got.truncated);
}

#[test]
fn more_than_max_bytes_is_truncated_at_a_line_boundary() {
    let line = "x".repeat(999);
    let content: String = (0..100).map(|_| format!("{line}\n")).collect();
    let got = excerpt(&content, 1, None);
    assert_eq!(got.num_lines, 40);
    assert!(got.text.len() <= MAX_FILE_CONTENT_SIZE);
    assert!(got.truncated);
}

#[test]
fn numbered_lines_use_the_read_tool_format() {
    assert_eq!(number_lines("a\nb", 9), "     9\u{2192}a\n    10\u{2192}b");
}
