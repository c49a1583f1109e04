//! Edge cases of the byte stream: empty input, CRLF, no trailing newline, huge and non-UTF-8
//! lines.

use std::io::Cursor;
use std::path::Path;

use agentctx_rollout::ReadEvent;
use agentctx_rollout::RolloutError;
use agentctx_rollout::RolloutFormat;
use agentctx_rollout::RolloutReader;
use agentctx_rollout::SkippedLine;
use agentctx_rollout::read_rollout;
use pretty_assertions::assert_eq;

const CODEX_CURRENT: &str = include_str!("../fixtures/codex_current.jsonl");

fn read(bytes: &[u8], max_line_bytes: Option<usize>) -> (usize, Vec<SkippedLine>, usize) {
    let mut reader = RolloutReader::new(Path::new("edge.jsonl"), Cursor::new(bytes.to_vec()));
    if let Some(max) = max_line_bytes {
        reader = reader.with_max_line_bytes(max);
    }
    let mut records = 0;
    let mut skipped = Vec::new();
    for event in reader.by_ref() {
        match event.unwrap() {
            ReadEvent::Record(_) => records += 1,
            ReadEvent::Skipped(line) => skipped.push(line),
        }
    }
    (records, skipped, reader.lines_read())
}

#[test]
fn an_empty_file_is_a_typed_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.jsonl");
    std::fs::write(&path, "").unwrap();
    let err = read_rollout(&path).unwrap_err();
    assert!(
        matches!(&err, RolloutError::UnrecognizedFormat { path: p, lines: 0 } if p == &path),
        "{err}"
    );
    assert!(err.to_string().contains("empty.jsonl"));
}

#[test]
fn crlf_line_endings_and_a_missing_final_newline_read_like_lf() {
    let lf = read(CODEX_CURRENT.as_bytes(), None);
    let crlf = CODEX_CURRENT.replace('\n', "\r\n");
    assert_eq!(read(crlf.as_bytes(), None), lf);
    let trimmed = CODEX_CURRENT.trim_end_matches('\n');
    assert_eq!(read(trimmed.as_bytes(), None), lf);
    assert!(lf.1.is_empty());
}

#[test]
fn a_line_over_the_limit_is_skipped_without_being_held_and_reading_goes_on() {
    let mut lines: Vec<String> = CODEX_CURRENT.lines().map(str::to_string).collect();
    let limit = lines.iter().map(String::len).max().unwrap() + 1;
    let huge = format!(
        r#"{{"timestamp":"t","type":"response_item","payload":{{"type":"function_call_output","call_id":"c","output":"{}"}}}}"#,
        "x".repeat(limit * 3)
    );
    let huge_len = huge.len() + 1;
    lines.insert(2, huge.clone());
    // The last line is huge too and has no newline.
    lines.push(huge);
    let text = lines.join("\n");
    let (records, skipped, total) = read(text.as_bytes(), Some(limit));
    assert_eq!(records, CODEX_CURRENT.lines().count());
    assert_eq!(total, lines.len());
    assert_eq!(
        skipped,
        vec![
            SkippedLine {
                line_number: 3,
                reason: format!("line of {huge_len} bytes is longer than the {limit}-byte limit"),
            },
            SkippedLine {
                line_number: lines.len(),
                reason: format!(
                    "line of {} bytes is longer than the {limit}-byte limit",
                    huge_len - 1
                ),
            },
        ]
    );
}

#[test]
fn a_line_with_a_stray_non_utf8_byte_is_skipped_alone() {
    let mut bytes = Vec::new();
    for (index, line) in CODEX_CURRENT.lines().enumerate() {
        if index == 1 {
            bytes.extend_from_slice(&line.as_bytes()[..20]);
            bytes.push(0xC3);
            bytes.extend_from_slice(&line.as_bytes()[20..]);
        } else {
            bytes.extend_from_slice(line.as_bytes());
        }
        bytes.push(b'\n');
    }
    let (records, skipped, _) = read(&bytes, None);
    assert_eq!(records, CODEX_CURRENT.lines().count() - 1);
    assert_eq!(
        skipped,
        vec![SkippedLine {
            line_number: 2,
            reason: "invalid utf-8".to_string(),
        }]
    );
}

#[test]
fn blank_and_whitespace_lines_are_not_skipped_lines() {
    let text = format!("\n  \r\n{CODEX_CURRENT}\n\n");
    let (records, skipped, _) = read(text.as_bytes(), None);
    assert_eq!(records, CODEX_CURRENT.lines().count());
    assert_eq!(skipped, vec![]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.jsonl");
    std::fs::write(&path, &text).unwrap();
    assert_eq!(read_rollout(&path).unwrap().format, RolloutFormat::Codex);
}

/// A source that grows once its reader seeks back to a start a second time: a live Claude Code
/// transcript written to between the two passes of its import.
struct GrowingSource {
    data: Cursor<Vec<u8>>,
    starts: usize,
    appended: Vec<u8>,
}

impl std::io::Read for GrowingSource {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.data.read(buf)
    }
}

impl std::io::Seek for GrowingSource {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        if let std::io::SeekFrom::Start(_) = pos {
            self.starts += 1;
            if self.starts == 2 {
                let appended = std::mem::take(&mut self.appended);
                self.data.get_mut().extend_from_slice(&appended);
            }
        }
        self.data.seek(pos)
    }
}

#[test]
fn a_transcript_that_grows_between_the_two_passes_is_read_as_far_as_the_first_pass_saw() {
    let transcript = include_str!("../fixtures/claude_rewind.jsonl");
    let appended = r#"{"type":"user","uuid":"late","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"written while the file was read"}}"#;
    let source = GrowingSource {
        data: Cursor::new(transcript.as_bytes().to_vec()),
        starts: 0,
        appended: format!("{appended}\n").into_bytes(),
    };
    let mut reader =
        RolloutReader::seekable(Path::new("live.jsonl"), std::io::BufReader::new(source));
    let records: Vec<_> = reader.by_ref().map(Result::unwrap).collect();
    let expected: Vec<_> = RolloutReader::new(
        Path::new("live.jsonl"),
        Cursor::new(transcript.as_bytes().to_vec()),
    )
    .map(Result::unwrap)
    .collect();
    assert_eq!(records, expected);
    assert_eq!(reader.lines_read(), transcript.lines().count());
}
