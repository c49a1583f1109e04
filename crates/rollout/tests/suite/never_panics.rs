//! The reader never panics, whatever the bytes: every non-blank line is either part of a
//! record or reported as skipped.

use std::io::Cursor;
use std::path::Path;

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
    let reader = RolloutReader::new(Path::new("fuzz.jsonl"), Cursor::new(bytes));
    let mut records = 0;
    let mut skipped = 0;
    for event in reader {
        match event.unwrap() {
            ReadEvent::Record(_) => records += 1,
            ReadEvent::Skipped(_) => skipped += 1,
        }
    }
    (records, skipped)
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        read_all(bytes);
    }

    #[test]
    fn fixtures_cut_and_spliced_never_panic(
        fixture in 0..FIXTURES.len(),
        cuts in proptest::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>()), 1..6),
    ) {
        let original = FIXTURES[fixture].as_bytes();
        let mut bytes = original.to_vec();
        // Remove random byte ranges: truncated lines, merged lines, split UTF-8 sequences.
        for (start, len) in cuts {
            if bytes.is_empty() {
                break;
            }
            let start = start.index(bytes.len());
            let end = (start + len.index(64) + 1).min(bytes.len());
            bytes.drain(start..end);
        }
        let (records, skipped) = read_all(bytes);
        prop_assert!(records + skipped > 0 || original.len() < 64);
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
