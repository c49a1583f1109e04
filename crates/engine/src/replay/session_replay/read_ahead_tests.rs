use std::io::BufRead;
use std::io::Cursor;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;

use agentctx_model::Prompt;
use agentctx_rollout::RolloutReader;
use pretty_assertions::assert_eq;

use crate::error::ReplayError;
use crate::replay::ReplayOptions;
use crate::replay::RequestSink;
use crate::replay::SessionReplay;
use crate::replay::replay_reader;

/// The repository's Codex sample (`examples/sessions`), as the replay bench keeps it.
const CODEX_SAMPLE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/benches/fixtures/codex-sample.jsonl"
));

/// The first 30 lines of the repository's Claude Code sample (`examples/sessions/claude-code`).
const CLAUDE_CODE_START: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/claude-code-start.jsonl"
));

fn sample_files() -> Vec<(&'static str, &'static str)> {
    vec![
        ("codex-sample.jsonl", CODEX_SAMPLE),
        ("claude-code-start.jsonl", CLAUDE_CODE_START),
    ]
}

fn replay_bytes(
    name: &str,
    bytes: Vec<u8>,
    options: &ReplayOptions,
    read_ahead: bool,
) -> Result<SessionReplay, ReplayError> {
    let reader = RolloutReader::new(Path::new(name), Cursor::new(bytes));
    let options = ReplayOptions {
        read_ahead,
        ..options.clone()
    };
    replay_reader(reader, &options, None)
}

/// The Codex sample repeated `copies` times (its header once), with a line that is not JSON
/// and a blank line in each copy.
fn long_codex_session(copies: usize) -> Vec<u8> {
    let (header, rest) = CODEX_SAMPLE.split_once('\n').unwrap();
    let mut out = format!("{header}\n");
    for _ in 0..copies {
        out.push_str(rest);
        out.push_str("{not json\n\n");
    }
    out.into_bytes()
}

#[test]
fn read_ahead_the_replay_is_the_one_thread_replay() {
    // Several batches of records, skipped lines among them.
    let long = long_codex_session(12);
    let mut cases: Vec<(String, Vec<u8>)> = sample_files()
        .into_iter()
        .map(|(name, text)| (name.to_string(), text.as_bytes().to_vec()))
        .collect();
    cases.push(("long.jsonl".to_string(), long));
    for reminders in [true, false] {
        let options = ReplayOptions {
            reminders: reminders.then(Default::default),
            ..ReplayOptions::default()
        };
        for (name, bytes) in &cases {
            let one = replay_bytes(name, bytes.clone(), &options, false).unwrap();
            let ahead = replay_bytes(name, bytes.clone(), &options, true).unwrap();
            assert!(!one.turns.is_empty() && !one.requests.is_empty(), "{name}");
            assert_eq!(ahead, one, "{name}, reminders {reminders}");
        }
    }
    let long = replay_bytes(
        "long.jsonl",
        long_codex_session(12),
        &ReplayOptions::default(),
        true,
    );
    assert_eq!(long.unwrap().skipped.len(), 12);
}

/// A source that fails after `good` bytes.
struct FailingAfter {
    bytes: Cursor<Vec<u8>>,
    good: u64,
}

impl Read for FailingAfter {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.good.saturating_sub(self.bytes.position());
        if left == 0 {
            return Err(std::io::Error::other("disk gone"));
        }
        let take = buf.len().min(usize::try_from(left).unwrap());
        self.bytes.read(&mut buf[..take])
    }
}

impl BufRead for FailingAfter {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.bytes.position() >= self.good {
            return Err(std::io::Error::other("disk gone"));
        }
        let good = usize::try_from(self.good - self.bytes.position()).unwrap();
        let available = self.bytes.fill_buf()?;
        let end = available.len().min(good);
        Ok(&available[..end])
    }

    fn consume(&mut self, amount: usize) {
        self.bytes.consume(amount);
    }
}

#[test]
fn a_read_error_ends_the_replay_read_ahead_as_on_one_thread() {
    let bytes = long_codex_session(12);
    let good = u64::try_from(bytes.len() / 2).unwrap();
    let errors: Vec<String> = [false, true]
        .into_iter()
        .map(|read_ahead| {
            let source = FailingAfter {
                bytes: Cursor::new(bytes.clone()),
                good,
            };
            let reader = RolloutReader::new(Path::new("failing.jsonl"), source);
            let options = ReplayOptions {
                read_ahead,
                ..ReplayOptions::default()
            };
            replay_reader(reader, &options, None)
                .unwrap_err()
                .to_string()
        })
        .collect();
    assert!(errors[0].contains("disk gone"), "{}", errors[0]);
    assert_eq!(errors[1], errors[0]);
}

/// A sink that fails on request `fails_at`, counting what it was told.
struct FailingSink {
    fails_at: usize,
    told: usize,
}

impl RequestSink for FailingSink {
    fn request(&mut self, request: usize, _prompt: &Prompt<'_>) -> std::io::Result<()> {
        self.told += 1;
        if request == self.fails_at {
            return Err(std::io::Error::other("full"));
        }
        Ok(())
    }
}

/// A source that counts the bytes taken from it.
struct Counting {
    bytes: Cursor<Vec<u8>>,
    taken: Arc<AtomicU64>,
}

impl Read for Counting {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let read = self.bytes.read(buf)?;
        self.taken
            .fetch_add(u64::try_from(read).unwrap(), Ordering::Relaxed);
        Ok(read)
    }
}

impl BufRead for Counting {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.bytes.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        self.taken
            .fetch_add(u64::try_from(amount).unwrap(), Ordering::Relaxed);
        self.bytes.consume(amount);
    }
}

#[test]
fn a_failing_replay_stops_the_reading_ahead() {
    let bytes = long_codex_session(40);
    let total = u64::try_from(bytes.len()).unwrap();
    let queue_lines = (super::BATCHES_AHEAD + 3) * super::BATCH;
    let queue_bytes: usize = bytes
        .split(|byte| *byte == b'\n')
        .take(queue_lines)
        .map(|line| line.len() + 1)
        .sum();
    let taken = Arc::new(AtomicU64::new(0));
    let source = Counting {
        bytes: Cursor::new(bytes),
        taken: Arc::clone(&taken),
    };
    let reader = RolloutReader::new(Path::new("long.jsonl"), source);
    let mut sink = FailingSink {
        fails_at: 3,
        told: 0,
    };
    let options = ReplayOptions {
        read_ahead: true,
        ..ReplayOptions::default()
    };
    let error = replay_reader(reader, &options, Some(&mut sink)).unwrap_err();
    assert!(
        matches!(error, ReplayError::Sink { request: 3, .. }),
        "{error}"
    );
    assert_eq!(sink.told, 3);
    // The helper stopped at most its queue ahead of the failure (`BATCHES_AHEAD` batches of
    // `BATCH` records, plus the batch it was building and the one being replayed, and the
    // reader's buffer), not at the end of the file: how far it gets within that bound depends
    // on how fast the replay consumes.
    let taken = taken.load(Ordering::Relaxed);
    let bound = u64::try_from(queue_bytes).unwrap() + (1 << 20);
    assert!(
        taken <= bound,
        "{taken} of {total} bytes read, over the queue's {bound}"
    );
    assert!(taken < total / 2, "{taken} of {total} bytes read");
}

/// The records of `payloads` (`token_count` payloads), read lazily from a Codex rollout.
fn token_count_records(payloads: &[&str], in_part: bool) -> Vec<agentctx_rollout::LazyRecord> {
    let mut text = format!("{}\n", CODEX_SAMPLE.lines().next().unwrap());
    for payload in payloads {
        text.push_str(&format!(
            "{{\"timestamp\":\"t\",\"type\":\"event_msg\",\"payload\":{payload}}}\n"
        ));
    }
    let mut reader = RolloutReader::new(Path::new("counts.jsonl"), Cursor::new(text));
    if in_part {
        reader = reader.reading_in_part(super::read_in_part);
    }
    reader
        .lazy()
        .filter_map(|event| match event.unwrap() {
            agentctx_rollout::LazyReadEvent::Record(record)
                if record.payload_type() == Some("token_count") =>
            {
                Some(record)
            }
            _ => None,
        })
        .collect()
}

/// What the replay reads of a typed `token_count`: its usage and its model, when it is one.
fn usage_and_model(
    record: &agentctx_rollout::RolloutRecord,
) -> Option<(Option<agentctx_protocol::TokenUsageInfo>, Option<String>)> {
    match &record.line.item {
        agentctx_protocol::RolloutItem::EventMsg(agentctx_protocol::EventMsg::TokenCount(
            event,
        )) => Some((
            event.info.clone(),
            event
                .extra
                .get("model")
                .and_then(serde_json::Value::as_str)
                .map(str::to_string),
        )),
        _ => None,
    }
}

/// `token_count` payloads: the sample's, then some the replay reads in part, then some it types
/// in full; with how many are read in part.
fn token_count_payloads() -> (Vec<String>, usize) {
    let info = r#"{"total_token_usage":{"input_tokens":10,"output_tokens":3,"total_tokens":13},"last_token_usage":{"input_tokens":10,"output_tokens":3,"total_tokens":13},"model_context_window":272000,"new":[1]}"#;
    let mut payloads: Vec<String> = CODEX_SAMPLE
        .lines()
        .filter_map(|line| agentctx_protocol::LazyRolloutLine::parse(line.as_bytes()).ok())
        .filter(|line| line.payload_type() == Some("token_count"))
        .map(|line| line.payload_json().to_string())
        .collect();
    assert!(payloads.len() > 20);
    let read_in_part = [
        format!(
            r#"{{"type":"token_count","info":{info},"rate_limits":{{"primary":{{"used_percent":2.5}}}}}}"#
        ),
        format!(
            r#"{{"info":{info},"type":"token_count","model":"gpt-5","other":{{"a":1}},"other":2}}"#
        ),
        format!(r#"{{"type":"token_count","info":{info},"model":7}}"#),
        r#"{"type":"token_count","info":null,"rate_limits":null}"#.to_string(),
        r#"{"type":"token_count"}"#.to_string(),
    ];
    let typed_in_full = [
        // What the typed event reads differently (the last of repeated members) or not at all.
        format!(r#"{{"type":"token_count","info":null,"info":{info}}}"#),
        format!(r#"{{"type":"token_count","info":{info},"model":"a","model":"b"}}"#),
        r#"{"type":"token_count","rate_limits":1,"rate_limits":2}"#.to_string(),
        r#"{"type":"token_count","info":null,"type":"token_count"}"#.to_string(),
        r#"{"type":"token_count","info":{"last_token_usage":"many"}}"#.to_string(),
    ];
    let partial = read_in_part.len() + payloads.len();
    payloads.extend(read_in_part);
    payloads.extend(typed_in_full);
    (payloads, partial)
}

#[test]
fn a_token_count_is_read_in_part_only_where_typed_in_full_it_reads_the_same() {
    let (payloads, partial) = token_count_payloads();
    let payloads: Vec<&str> = payloads.iter().map(String::as_str).collect();
    let records = token_count_records(&payloads, false);
    assert_eq!(records.len(), payloads.len());
    for (index, record) in records.iter().enumerate() {
        let full = record.clone().into_read_only_record();
        let part = super::token_count_read(record);
        assert_eq!(part.is_some(), index < partial, "{}", payloads[index]);
        if let Some(part) = part {
            assert_eq!(part.line_number, full.line_number);
            assert_eq!(part.flags, full.flags);
            assert_eq!(part.line.timestamp, full.line.timestamp);
            let read = usage_and_model(&part);
            assert!(read.is_some(), "{}", payloads[index]);
            assert_eq!(read, usage_and_model(&full), "{}", payloads[index]);
        }
    }
}

#[test]
fn every_payload_the_replay_types_in_the_codex_sample_is_typed_as_read() {
    let mut typed = 0;
    for line in CODEX_SAMPLE.lines() {
        let plain = agentctx_protocol::LazyRolloutLine::parse(line.as_bytes()).unwrap();
        let wanted = plain
            .payload_type()
            .is_some_and(|payload_type| super::super::replay_types(plain.kind(), payload_type));
        let line = agentctx_protocol::LazyRolloutLine::parse_typing(
            line.as_bytes(),
            Some(super::super::replay_types),
        )
        .unwrap();
        assert_eq!(line.is_typed(), wanted, "{}", line.payload_json());
        typed += usize::from(wanted);
    }
    assert!(typed > 150, "{typed}");
}

/// The records of `payloads` (`turn_context` payloads), read lazily from a Codex rollout.
fn turn_context_records(payloads: &[&str], in_part: bool) -> Vec<agentctx_rollout::LazyRecord> {
    let mut text = format!("{}\n", CODEX_SAMPLE.lines().next().unwrap());
    for payload in payloads {
        text.push_str(&format!(
            "{{\"timestamp\":\"t\",\"type\":\"turn_context\",\"payload\":{payload}}}\n"
        ));
    }
    let mut reader = RolloutReader::new(Path::new("contexts.jsonl"), Cursor::new(text));
    if in_part {
        reader = reader.reading_in_part(super::read_in_part);
    }
    reader
        .lazy()
        .filter_map(|event| match event.unwrap() {
            agentctx_rollout::LazyReadEvent::Record(record) if record.kind() == "turn_context" => {
                Some(record)
            }
            _ => None,
        })
        .collect()
}

/// What the replay reads of a typed `turn_context`: its model, truncation policy and tools.
fn settings(
    record: &agentctx_rollout::RolloutRecord,
) -> Option<(
    Option<String>,
    Option<serde_json::Value>,
    Option<serde_json::Value>,
)> {
    match &record.line.item {
        agentctx_protocol::RolloutItem::TurnContext(context) => Some((
            context.model.clone(),
            context.extra.get("truncation_policy").cloned(),
            context
                .extra
                .get(super::super::RECORDED_TOOLS_FIELD)
                .cloned(),
        )),
        _ => None,
    }
}

/// `turn_context` payloads: the sample's, then some the replay reads in part, then some it types
/// in full; with how many are read in part.
fn turn_context_payloads() -> (Vec<String>, usize) {
    let mut payloads: Vec<String> = CODEX_SAMPLE
        .lines()
        .filter_map(|line| agentctx_protocol::LazyRolloutLine::parse(line.as_bytes()).ok())
        .filter(|line| line.kind() == "turn_context")
        .map(|line| line.payload_json().to_string())
        .collect();
    assert!(payloads.len() > 10);
    let tools = r#"[{"type":"function","name":"shell","parameters":{"type":"object"}}]"#;
    let read_in_part = [
        format!(
            r#"{{"cwd":"/w","model":"gpt-5","truncation_policy":{{"mode":"bytes","limit":10000}},"agentctx_tools":{tools},"sandbox_policy":{{"mode":"x"}},"other":1,"other":2}}"#
        ),
        r#"{"model":null,"effort":"high","collaboration_mode":{"a":[1]}}"#.to_string(),
        r#"{}"#.to_string(),
    ];
    let typed_in_full = [
        // A typed field mistyped, or a member the replay reads given twice.
        r#"{"cwd":7,"model":"m"}"#.to_string(),
        r#"{"model":"a","model":"b"}"#.to_string(),
        r#"{"truncation_policy":1,"truncation_policy":2}"#.to_string(),
        r#"{"sandbox_policy":{},"sandbox_policy":null}"#.to_string(),
    ];
    let partial = read_in_part.len() + payloads.len();
    payloads.extend(read_in_part);
    payloads.extend(typed_in_full);
    (payloads, partial)
}

#[test]
fn a_turn_context_is_read_in_part_only_where_typed_in_full_it_reads_the_same() {
    assert_eq!(super::super::RECORDED_TOOLS_FIELD, "agentctx_tools");
    let (payloads, partial) = turn_context_payloads();
    let payloads: Vec<&str> = payloads.iter().map(String::as_str).collect();
    let records = turn_context_records(&payloads, true);
    assert_eq!(records.len(), payloads.len());
    for (index, record) in records.iter().enumerate() {
        let full = record.clone().into_read_only_record();
        let part = record.clone().take_part_read_record();
        assert_eq!(part.is_some(), index < partial, "{}", payloads[index]);
        if let Some(part) = part {
            assert_eq!(
                (part.line_number, part.flags, &part.line.timestamp),
                (full.line_number, full.flags, &full.line.timestamp)
            );
            let read = settings(&part);
            assert!(read.is_some(), "{}", payloads[index]);
            assert_eq!(read, settings(&full), "{}", payloads[index]);
        }
    }
}

/// The records of `payloads` read as the replay reads them (in part as the line is read where
/// it can be), each with the record typed in full and whether it was read in part on the way.
fn fed_beside_full(
    payloads: &[&str],
    records: fn(&[&str], bool) -> Vec<agentctx_rollout::LazyRecord>,
) -> Vec<(
    agentctx_rollout::RolloutRecord,
    agentctx_rollout::RolloutRecord,
    bool,
)> {
    let plain = records(payloads, false);
    let read = records(payloads, true);
    assert_eq!(read.len(), payloads.len());
    plain
        .into_iter()
        .zip(read)
        .map(|(plain, read)| {
            // The line is the same line either way.
            assert_eq!(read.lazy_line(), plain.lazy_line());
            assert_eq!(read.payload_type(), plain.payload_type());
            let in_part = read.lazy_line().unwrap().part_read().is_some();
            let super::Fed::Record(fed) =
                super::Fed::of(agentctx_rollout::LazyReadEvent::Record(read))
            else {
                panic!("a token_count or turn_context is read");
            };
            (fed, plain.into_read_only_record(), in_part)
        })
        .collect()
}

#[test]
fn a_token_count_read_in_part_as_its_line_is_read_reads_as_typed_in_full() {
    let (payloads, partial) = token_count_payloads();
    let payloads: Vec<&str> = payloads.iter().map(String::as_str).collect();
    let mut in_part = 0;
    for (index, (fed, full, read_in_part)) in fed_beside_full(&payloads, token_count_records)
        .into_iter()
        .enumerate()
    {
        let payload = payloads[index];
        // Only a payload whose `type` comes first is read as its line is read.
        let type_first = payload.starts_with(r#"{"type":"token_count""#);
        assert_eq!(read_in_part, index < partial && type_first, "{payload}");
        in_part += usize::from(read_in_part);
        assert_eq!(
            (fed.line_number, fed.flags, &fed.line.timestamp),
            (full.line_number, full.flags, &full.line.timestamp)
        );
        if index < partial {
            assert!(usage_and_model(&fed).is_some(), "{payload}");
        }
        assert_eq!(usage_and_model(&fed), usage_and_model(&full), "{payload}");
    }
    assert!(in_part > 20, "{in_part}");
}

#[test]
fn a_turn_context_read_in_part_as_its_line_is_read_reads_as_typed_in_full() {
    let (mut payloads, partial) = turn_context_payloads();
    // A `type` member (Codex writes none) is the payload's type either way.
    payloads.insert(0, r#"{"type":"settings","model":"m"}"#.to_string());
    let partial = partial + 1;
    // Not a string, it is no type: the payload is typed in full.
    payloads.push(r#"{"model":"m","type":7}"#.to_string());
    let payloads: Vec<&str> = payloads.iter().map(String::as_str).collect();
    for (index, (fed, full, read_in_part)) in fed_beside_full(&payloads, turn_context_records)
        .into_iter()
        .enumerate()
    {
        let payload = payloads[index];
        assert_eq!(read_in_part, index < partial, "{payload}");
        assert_eq!(
            (fed.line_number, fed.flags, &fed.line.timestamp),
            (full.line_number, full.flags, &full.line.timestamp)
        );
        if index < partial {
            assert!(settings(&fed).is_some(), "{payload}");
        }
        assert_eq!(settings(&fed), settings(&full), "{payload}");
    }
}
