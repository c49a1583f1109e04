//! The reader never panics, whatever the bytes: every non-blank line is either part of a
//! record or reported as skipped.

use std::io::Cursor;
use std::path::Path;

use agentctx_protocol::RolloutItem;
use agentctx_rollout::ReadEvent;
use agentctx_rollout::RolloutReader;
use proptest::prelude::*;

const FIXTURES: [&str; 5] = [
    include_str!("../fixtures/codex_current.jsonl"),
    include_str!("../fixtures/codex_legacy.jsonl"),
    include_str!("../fixtures/claude_1x.jsonl"),
    include_str!("../fixtures/claude_2x.jsonl"),
    include_str!("../fixtures/claude_rewind.jsonl"),
];

fn read_all(bytes: Vec<u8>) -> (usize, usize) {
    let read = read_checked(&bytes);
    (read.records.len(), read.skipped.len())
}

/// What one read of a byte string gave.
struct Read {
    /// The source line of each record.
    records: Vec<usize>,
    /// The skipped lines.
    skipped: Vec<usize>,
}

/// Reads `bytes` and checks what the reader promises for any input: it ends without an error
/// (an in-memory source cannot fail), counts every line, reports each skipped line once by
/// its own number, never names a blank line, and reports every line that is not a JSON
/// object as skipped (it cannot be part of a record).
fn read_checked(bytes: &[u8]) -> Read {
    let mut reader = RolloutReader::new(Path::new("fuzz.jsonl"), Cursor::new(bytes.to_vec()));
    let mut records = Vec::new();
    // Records other than the session header, which a Claude Code import derives from the
    // first conversation record even when that record's message is then skipped.
    let mut items = Vec::new();
    let mut skipped = Vec::new();
    for event in reader.by_ref() {
        match event.expect("an in-memory read never fails") {
            ReadEvent::Record(record) => {
                records.push(record.line_number);
                if !matches!(record.line.item, RolloutItem::SessionMeta(_)) {
                    items.push(record.line_number);
                }
            }
            ReadEvent::Skipped(line) => skipped.push(line.line_number),
        }
    }
    let lines: Vec<&[u8]> = bytes.split_inclusive(|byte| *byte == b'\n').collect();
    assert_eq!(reader.lines_read(), lines.len(), "lines counted");
    let line = |number: usize| -> &[u8] { lines[number - 1].trim_ascii() };
    let mut unique = skipped.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(
        unique.len(),
        skipped.len(),
        "a line skipped twice: {skipped:?}"
    );
    for &number in skipped.iter().chain(&records) {
        assert!(
            (1..=lines.len()).contains(&number),
            "line {number} of {}",
            lines.len()
        );
        assert!(!line(number).is_empty(), "blank line {number} reported");
    }
    for &number in &items {
        assert!(
            !skipped.contains(&number),
            "line {number} is both a record and skipped"
        );
    }
    for number in 1..=lines.len() {
        let text = line(number);
        let is_object = matches!(
            serde_json::from_slice::<serde_json::Value>(text),
            Ok(serde_json::Value::Object(_))
        );
        if !text.is_empty() && !is_object {
            assert!(
                skipped.contains(&number),
                "line {number} is not a json object but was not reported: {:?}",
                String::from_utf8_lossy(text)
            );
        }
    }
    Read { records, skipped }
}

/// One line of a session file: fixture lines of every format, JSON that is not an object,
/// blanks and random bytes.
fn line() -> impl Strategy<Value = Vec<u8>> {
    let fixture_lines: Vec<Vec<u8>> = FIXTURES
        .iter()
        .flat_map(|fixture| fixture.lines())
        .map(|line| line.as_bytes().to_vec())
        .collect();
    let not_objects: Vec<Vec<u8>> = [
        "1", "-2.5e3", "[]", "[{}]", "null", "true", "\"text\"", "{}x", "{",
    ]
    .iter()
    .map(|text| text.as_bytes().to_vec())
    .collect();
    prop_oneof![
        4 => prop::sample::select(fixture_lines),
        2 => prop::sample::select(not_objects),
        1 => prop::sample::select(vec![b"".to_vec(), b"  \t".to_vec(), b"{\"type\":\"unknown\"}".to_vec()]),
        2 => proptest::collection::vec(any::<u8>().prop_filter("one line", |byte| *byte != b'\n'), 0..40),
    ]
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic_and_every_unusable_line_is_reported(
        bytes in proptest::collection::vec(any::<u8>(), 0..2048),
    ) {
        read_checked(&bytes);
    }

    #[test]
    fn mixed_lines_are_each_read_or_reported(
        lines in proptest::collection::vec(line(), 0..30),
        crlf in any::<bool>(),
    ) {
        let newline: &[u8] = if crlf { b"\r\n" } else { b"\n" };
        read_checked(&lines.join(newline));
    }

    #[test]
    fn fixtures_cut_and_spliced_never_panic_and_every_broken_line_is_reported(
        fixture in 0..FIXTURES.len(),
        cuts in proptest::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>()), 0..6),
    ) {
        let original = FIXTURES[fixture].as_bytes();
        let mut bytes = original.to_vec();
        // Remove random byte ranges: truncated lines, merged lines, split UTF-8 sequences.
        for (start, len) in &cuts {
            if bytes.is_empty() {
                break;
            }
            let start = start.index(bytes.len());
            let end = (start + len.index(64) + 1).min(bytes.len());
            bytes.drain(start..end);
        }
        let read = read_checked(&bytes);
        if cuts.is_empty() {
            // The fixtures are whole: nothing in them is skipped.
            prop_assert_eq!(read.skipped, Vec::<usize>::new());
            prop_assert!(!read.records.is_empty());
        }
    }
}

/// The indices of the generated records whose item was read (from `… {index}` texts and
/// `t{index}` call ids).
fn kept_indices(bytes: Vec<u8>) -> std::collections::HashSet<usize> {
    let reader = RolloutReader::new(Path::new("tree.jsonl"), Cursor::new(bytes));
    reader
        .filter_map(|event| match event.unwrap() {
            ReadEvent::Record(record) => record.response_item().cloned(),
            ReadEvent::Skipped(_) => None,
        })
        .filter_map(|item| {
            let tag = match item.call_id() {
                Some(call_id) => call_id.trim_start_matches('t').to_string(),
                None => item.message_text()?.rsplit(' ').next()?.to_string(),
            };
            tag.parse().ok()
        })
        .collect()
}

/// A Claude Code record linked to `parent`.
fn claude_record(uuid: usize, parent: Option<usize>, kind: u8) -> String {
    let parent = parent.map_or("null".to_string(), |p| format!("\"u{p}\""));
    match kind % 3 {
        0 => format!(
            r#"{{"type":"user","sessionId":"s","uuid":"u{uuid}","parentUuid":{parent},"message":{{"role":"user","content":"prompt {uuid}"}}}}"#
        ),
        1 => format!(
            r#"{{"type":"assistant","sessionId":"s","uuid":"u{uuid}","parentUuid":{parent},"message":{{"id":"m{uuid}","role":"assistant","content":[{{"type":"text","text":"answer {uuid}"}}]}}}}"#
        ),
        _ => format!(
            r#"{{"type":"user","sessionId":"s","uuid":"u{uuid}","parentUuid":{parent},"message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t{uuid}","content":"ok"}}]}}}}"#
        ),
    }
}

proptest! {
    #[test]
    fn any_claude_tree_reads_and_a_linear_chain_loses_nothing(
        links in proptest::collection::vec((any::<prop::sample::Index>(), any::<bool>(), 0u8..3), 1..40),
    ) {
        // Random trees (parents point anywhere earlier, even forward ids that do not exist).
        let lines: Vec<String> = links
            .iter()
            .enumerate()
            .map(|(index, (parent, dangling, kind))| {
                let parent = if index == 0 { None } else if *dangling { Some(index + 1000) } else { Some(parent.index(index)) };
                claude_record(index, parent, *kind)
            })
            .collect();
        let (records, skipped) = read_all(lines.join("\n").into_bytes());
        prop_assert_eq!(skipped, 0);
        prop_assert!(records >= 1);
        // Every record on the path from the newest record to its root is kept.
        let parents: Vec<Option<usize>> = links
            .iter()
            .enumerate()
            .map(|(index, (parent, dangling, _))| (index > 0 && !*dangling).then(|| parent.index(index)))
            .collect();
        let kept = kept_indices(lines.join("\n").into_bytes());
        let mut current = Some(links.len() - 1);
        while let Some(index) = current {
            prop_assert!(kept.contains(&index), "record {} of the path was dropped", index);
            current = parents[index];
        }

        // The same records as one chain: every message is kept.
        let chain: Vec<String> = links
            .iter()
            .enumerate()
            .map(|(index, (_, _, kind))| claude_record(index, index.checked_sub(1), *kind))
            .collect();
        let (records, _) = read_all(chain.join("\n").into_bytes());
        // One session header plus one item per record.
        prop_assert_eq!(records, links.len() + 1);
    }
}
