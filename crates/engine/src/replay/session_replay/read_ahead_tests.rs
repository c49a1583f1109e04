use std::io::BufRead;
use std::io::Cursor;
use std::io::Read;
use std::path::Path;
use std::path::PathBuf;
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

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/sessions")
}

fn sample_files() -> Vec<PathBuf> {
    let samples = samples();
    vec![
        samples.join("rollout-2025-11-24T09-31-07-019a9d4e-6b2f-7c10-8e3a-5f41c2d7b9e8.jsonl"),
        samples.join("claude-code/3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865.jsonl"),
        samples.join(
            "claude-code/3e9b7c41-58d2-4a0f-b6e3-9c1d27f4a865/subagents/agent-5c1e9a07.jsonl",
        ),
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
    let text = std::fs::read_to_string(&sample_files()[0]).unwrap();
    let (header, rest) = text.split_once('\n').unwrap();
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
        .map(|path| (path.display().to_string(), std::fs::read(&path).unwrap()))
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
    // The helper stopped a few batches ahead of the failure, not at the end of the file.
    let taken = taken.load(Ordering::Relaxed);
    assert!(taken < total / 4, "{taken} of {total} bytes read");
}
