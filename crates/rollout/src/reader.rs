//! The tolerant, streaming reader of session files.
//!
//! [`RolloutReader`] reads a file line by line through a `BufRead` (memory stays proportional to
//! the longest line, not the file, and a line over 256 MiB (by default) is skipped without
//! being held), detects its [`RolloutFormat`] from the first recognisable
//! line, and yields [`ReadEvent`]s: records in the Codex envelope whatever the source format, and
//! the lines it skipped with their 1-based number and the reason (invalid JSON, invalid UTF-8, a
//! line of the wrong shape). It never panics on input; only I/O failures end it early, as typed
//! errors naming the file. [`read_rollout`] collects a whole file into a [`RolloutFile`].
//!
//! Codex rollouts stream record by record. A Claude Code transcript is a tree whose abandoned
//! branches are only known at its end, so its records are yielded once the file is read.

use std::collections::BTreeMap;
use std::collections::VecDeque;
use std::fs::File;
use std::io::BufRead;
use std::io::BufReader;
use std::path::Path;
use std::path::PathBuf;

use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::SessionMetaLine;
use serde_json::Value;

use crate::claude_import::ClaudeImporter;
use crate::codex_decoder;
use crate::error::RolloutError;
use crate::format::RolloutFormat;
use crate::record::ReadEvent;
use crate::record::RolloutRecord;
use crate::record::SkippedLine;

/// Buffer size of the reader: large enough for typical tool-output lines in one read.
const READ_BUFFER_BYTES: usize = 256 * 1024;

/// Longest line the reader holds in memory by default; a longer line is skipped (and reported)
/// without being buffered whole.
pub(crate) const DEFAULT_MAX_LINE_BYTES: usize = 256 * 1024 * 1024;

/// A whole session file, read.
#[derive(Debug, Clone, PartialEq)]
pub struct RolloutFile {
    /// The file.
    pub path: PathBuf,
    /// Its detected format.
    pub format: RolloutFormat,
    /// Lines in the file (blank lines included).
    pub lines: usize,
    /// The records, in file order.
    pub records: Vec<RolloutRecord>,
    /// Lines that could not be used.
    pub skipped: Vec<SkippedLine>,
    /// Records skipped by rule, counted by kind: bookkeeping kinds that carry no conversation,
    /// and (as `abandoned-branch`) records of Claude Code branches the user abandoned.
    pub ignored: BTreeMap<String, usize>,
}

impl RolloutFile {
    /// The conversation items, in order.
    pub fn items(&self) -> impl Iterator<Item = &ResponseItem> {
        self.records.iter().filter_map(RolloutRecord::response_item)
    }

    /// The session header, when the file has one.
    pub fn session_meta(&self) -> Option<&SessionMetaLine> {
        self.records
            .iter()
            .find_map(|record| match &record.line.item {
                RolloutItem::SessionMeta(meta) => Some(meta),
                _ => None,
            })
    }
}

/// Reads a whole session file, skipping (and reporting) the lines it cannot use.
///
/// Fails only when the file cannot be read, or when no line of it is recognisable as a Codex
/// rollout or a Claude Code transcript.
pub fn read_rollout(path: &Path) -> Result<RolloutFile, RolloutError> {
    let mut reader = RolloutReader::open(path)?;
    let mut records = Vec::new();
    let mut skipped = Vec::new();
    for event in reader.by_ref() {
        match event? {
            ReadEvent::Record(record) => records.push(record),
            ReadEvent::Skipped(line) => skipped.push(line),
        }
    }
    let format = reader
        .format()
        .ok_or_else(|| RolloutError::UnrecognizedFormat {
            path: path.to_path_buf(),
            lines: reader.lines_read(),
        })?;
    Ok(RolloutFile {
        path: path.to_path_buf(),
        format,
        lines: reader.lines_read(),
        records,
        skipped,
        ignored: reader.ignored().clone(),
    })
}

/// Streams the records of a session file.
#[derive(Debug)]
pub struct RolloutReader<R = BufReader<File>> {
    path: PathBuf,
    source: R,
    buffer: Vec<u8>,
    line_number: usize,
    bytes_read: u64,
    decoder: Option<Decoder>,
    pending: VecDeque<ReadEvent>,
    scratch: Vec<ReadEvent>,
    ignored: BTreeMap<String, usize>,
    finished: bool,
    max_line_bytes: usize,
}

/// What one bounded line read found.
enum LineRead {
    /// End of input.
    End,
    /// A line (in the buffer) of this many bytes, newline included.
    Line(usize),
    /// A line longer than the limit, of this many bytes; only its start is in the buffer.
    TooLong(usize),
}

#[derive(Debug)]
enum Decoder {
    Codex,
    CodexLegacy,
    ClaudeCode(Box<ClaudeImporter>),
}

impl RolloutReader<BufReader<File>> {
    /// Opens a file for reading.
    pub fn open(path: &Path) -> Result<Self, RolloutError> {
        let file = File::open(path).map_err(|source| RolloutError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(Self::new(
            path,
            BufReader::with_capacity(READ_BUFFER_BYTES, file),
        ))
    }
}

impl<R: BufRead> RolloutReader<R> {
    /// Reads from any buffered source; `path` names it in errors.
    pub fn new(path: &Path, source: R) -> Self {
        Self {
            path: path.to_path_buf(),
            source,
            buffer: Vec::new(),
            line_number: 0,
            bytes_read: 0,
            decoder: None,
            pending: VecDeque::new(),
            scratch: Vec::new(),
            ignored: BTreeMap::new(),
            finished: false,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
        }
    }

    /// Sets the longest line held in memory (256 MiB by default); longer
    /// lines are skipped with their number and length.
    pub fn with_max_line_bytes(mut self, max_line_bytes: usize) -> Self {
        self.max_line_bytes = max_line_bytes.max(1);
        self
    }

    /// The file's format, once a recognisable line has been read.
    pub fn format(&self) -> Option<RolloutFormat> {
        self.decoder.as_ref().map(|decoder| match decoder {
            Decoder::Codex => RolloutFormat::Codex,
            Decoder::CodexLegacy => RolloutFormat::CodexLegacy,
            Decoder::ClaudeCode(_) => RolloutFormat::ClaudeCode,
        })
    }

    /// The path the reader was opened with.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Lines read so far.
    pub fn lines_read(&self) -> usize {
        self.line_number
    }

    /// Bytes read so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// Records skipped by rule so far, counted by kind.
    pub fn ignored(&self) -> &BTreeMap<String, usize> {
        &self.ignored
    }

    fn handle_line(&mut self) {
        let line_number = self.line_number;
        let text = self.buffer.trim_ascii();
        if text.is_empty() {
            return;
        }
        let value = match serde_json::from_slice::<Value>(text) {
            Ok(value) => value,
            Err(err) => {
                let reason = if std::str::from_utf8(text).is_err() {
                    "invalid utf-8".to_string()
                } else {
                    format!("invalid json: {err}")
                };
                self.skip(line_number, reason);
                return;
            }
        };
        let Value::Object(object) = &value else {
            self.skip(line_number, "not a json object".to_string());
            return;
        };
        if self.decoder.is_none() {
            self.decoder = match RolloutFormat::detect(object) {
                Some(RolloutFormat::Codex) => Some(Decoder::Codex),
                Some(RolloutFormat::CodexLegacy) => Some(Decoder::CodexLegacy),
                Some(RolloutFormat::ClaudeCode) => Some(Decoder::ClaudeCode(Box::default())),
                None => {
                    self.skip(
                        line_number,
                        "record of unknown shape before the format was recognised".to_string(),
                    );
                    return;
                }
            };
        }
        match &mut self.decoder {
            Some(Decoder::Codex) => self
                .pending
                .push_back(codex_decoder::decode_envelope(line_number, value)),
            Some(Decoder::CodexLegacy) => {
                if let Some(event) =
                    codex_decoder::decode_legacy(line_number, value, &mut self.ignored)
                {
                    self.pending.push_back(event);
                }
            }
            Some(Decoder::ClaudeCode(importer)) => {
                importer.decode(line_number, value, &mut self.ignored);
            }
            None => {}
        }
    }

    /// Reads one line into the buffer, keeping at most `max_line_bytes` of it; the rest of a
    /// longer line is consumed and dropped.
    fn read_line_bounded(&mut self) -> std::io::Result<LineRead> {
        self.buffer.clear();
        let mut total = 0usize;
        loop {
            let available = match self.source.fill_buf() {
                Ok(available) => available,
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            if available.is_empty() {
                return Ok(match total {
                    0 => LineRead::End,
                    n if n > self.max_line_bytes => LineRead::TooLong(n),
                    n => LineRead::Line(n),
                });
            }
            let (chunk, done) = match available.iter().position(|byte| *byte == b'\n') {
                Some(index) => (index + 1, true),
                None => (available.len(), false),
            };
            let room = self.max_line_bytes.saturating_sub(self.buffer.len());
            if let Some(kept) = available.get(..chunk.min(room)) {
                self.buffer.extend_from_slice(kept);
            }
            self.source.consume(chunk);
            total = total.saturating_add(chunk);
            if done {
                return Ok(if total > self.max_line_bytes {
                    LineRead::TooLong(total)
                } else {
                    LineRead::Line(total)
                });
            }
        }
    }

    fn skip(&mut self, line_number: usize, reason: String) {
        tracing::debug!(path = %self.path.display(), line_number, %reason, "skipping rollout line");
        self.pending.push_back(ReadEvent::Skipped(SkippedLine {
            line_number,
            reason,
        }));
    }
}

impl<R: BufRead> Iterator for RolloutReader<R> {
    type Item = Result<ReadEvent, RolloutError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Some(Ok(event));
            }
            if self.finished {
                return None;
            }
            match self.read_line_bounded() {
                Ok(LineRead::End) => {
                    self.finished = true;
                    if let Some(Decoder::ClaudeCode(importer)) = &mut self.decoder {
                        importer.finish(&mut self.scratch, &mut self.ignored);
                        self.pending.extend(self.scratch.drain(..));
                    }
                }
                Ok(LineRead::Line(read)) => {
                    self.line_number += 1;
                    self.bytes_read = self.bytes_read.saturating_add(read as u64);
                    self.handle_line();
                }
                Ok(LineRead::TooLong(read)) => {
                    self.line_number += 1;
                    self.bytes_read = self.bytes_read.saturating_add(read as u64);
                    self.buffer.clear();
                    let limit = self.max_line_bytes;
                    self.skip(
                        self.line_number,
                        format!("line of {read} bytes is longer than the {limit}-byte limit"),
                    );
                }
                Err(source) => {
                    self.finished = true;
                    return Some(Err(RolloutError::Read {
                        path: self.path.clone(),
                        line: self.line_number,
                        source,
                    }));
                }
            }
        }
    }
}
