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

#[test]
fn a_single_line_longer_than_the_limit_shows_its_start_on_a_char_boundary() {
    let line = "é".repeat(MAX_FILE_CONTENT_SIZE);
    let got = excerpt(&line, 1, None);
    assert_eq!(got.num_lines, 1);
    assert!(got.truncated);
    assert!(got.text.len() <= MAX_FILE_CONTENT_SIZE);
    assert!(got.text.len() >= MAX_FILE_CONTENT_SIZE - 1);
    assert!(got.text.chars().all(|ch| ch == 'é'));
}

#[test]
fn a_range_past_the_end_is_empty_without_panicking() {
    let got = excerpt("a\nb\n", 50, Some(60));
    assert_eq!(
        (got.num_lines, got.total_lines, got.truncated),
        (0, 2, false)
    );
    let got = excerpt("a\nb\n", usize::MAX, Some(usize::MAX));
    assert_eq!(got.num_lines, 0);
}

#[test]
fn read_capped_cuts_at_a_line_end_and_never_splits_a_character() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plan.md");
    std::fs::write(&path, "ab\ncd\nef\n").unwrap();
    assert_eq!(
        read_capped(&path, 7).unwrap(),
        CappedText {
            text: "ab\ncd".to_string(),
            total_bytes: 9,
            truncated: true,
        }
    );
    assert_eq!(read_capped(&path, 9).unwrap().text, "ab\ncd\nef\n");
    assert!(!read_capped(&path, 9).unwrap().truncated);
    // One long line: cut at the cap, without half of the two-byte `é`.
    std::fs::write(&path, "aé").unwrap();
    assert_eq!(read_capped(&path, 2).unwrap().text, "a");
}
