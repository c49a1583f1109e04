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
//! The reading itself is lazy ([`RolloutReader::next_lazy`], [`RolloutReader::lazy`]): a Codex
//! line is read as a [`agentctx_protocol::LazyRolloutLine`], its payload typed only when asked,
//! and the typed events are those lazy events typed, so there is one implementation of line
//! reading, skipping, format detection and numbering.
//!
//! Codex rollouts stream record by record. A Claude Code transcript is a tree whose abandoned
//! branches are only known at its end. From a seekable source (a file, [`RolloutReader::open`]
//! or [`RolloutReader::seekable`]) it is read twice: a first pass reads only what the tree
//! needs, a second streams the records, so memory does not grow with the file. Its start (the
//! first 8 MiB) is read once for both passes, the work shared with a scoped helper thread
//! ([`RolloutReader::with_helper_thread`]). From any other source ([`RolloutReader::new`]) its
//! records are held until the end of the file.

use std::collections::BTreeMap;
use std::collections::VecDeque;
use std::fs::File;
use std::io::BufRead;
use std::io::BufReader;
use std::io::Read;
use std::io::Seek;
use std::io::SeekFrom;
use std::path::Path;
use std::path::PathBuf;

use agentctx_protocol::LazyRolloutLine;
use agentctx_protocol::ReadInPart;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::RolloutItem;
use agentctx_protocol::SessionMetaLine;
use agentctx_protocol::TypeAsRead;
use serde_json::Value;

use crate::claude_import;
use crate::claude_import::ClaudeImporter;
use crate::claude_import::ConversationTree;
use crate::codex_decoder;
use crate::error::RolloutError;
use crate::format::RolloutFormat;
use crate::record::LazyReadEvent;
use crate::record::LazyRecord;
use crate::record::ReadEvent;
use crate::record::RolloutRecord;
use crate::record::SkippedLine;

mod overlap;

use overlap::Overlap;
use overlap::ReadOnce;

/// The Codex line types `agentctx-protocol` models (`RolloutItem`); any other is passed on
/// untyped and counted in `ignored`.
const MODELLED_CODEX_KINDS: [&str; 5] = [
    "session_meta",
    "response_item",
    "compacted",
    "turn_context",
    "event_msg",
];

/// Buffer size of the reader: large enough for typical tool-output lines in one read.
const READ_BUFFER_BYTES: usize = 256 * 1024;

/// Longest line the reader holds in memory by default; a longer line is skipped (and reported)
/// without being buffered whole.
pub(crate) const DEFAULT_MAX_LINE_BYTES: usize = 256 * 1024 * 1024;

/// The most bytes at the start of a Claude Code transcript read once for both passes (see
/// [`RolloutReader::with_helper_thread`]): held with their records' events (about twice the
/// bytes) until the first pass ends, well inside the memory the reader is allowed.
const AHEAD_BYTES: usize = 8 * 1024 * 1024;

/// Below this, a transcript's start is read on the reader's thread alone (starting a helper
/// costs about as much as reading this many bytes), each line still read once.
const AHEAD_MIN_BYTES: usize = 256 * 1024;

/// When the start of a Claude Code transcript, read once for both passes, is read with a helper
/// thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Helper {
    /// When the start is at least [`AHEAD_MIN_BYTES`] and a second core can run the helper.
    WhenWorthIt,
    /// Always (tests of the helper, whatever the machine).
    #[cfg_attr(not(test), allow(dead_code, reason = "chosen by tests"))]
    Always,
    /// Never (tests of the reader's thread alone).
    #[cfg_attr(not(test), allow(dead_code, reason = "chosen by tests"))]
    Never,
}

/// Whether a helper thread can run beside the reader's (on one core it only takes turns with
/// it, and the reader's thread reads the start alone, as fast).
fn two_cores() -> bool {
    std::thread::available_parallelism().is_ok_and(|cores| cores.get() > 1)
}

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
    /// Records not read into the conversation, counted by kind: bookkeeping kinds that carry no
    /// conversation (dropped), records of Claude Code branches the user abandoned (dropped, as
    /// `abandoned-branch`), Claude Code attachments whose text is not known (dropped, as
    /// `attachment:{type}`), and Codex line types this version does not model (passed on
    /// untyped, in `records` too).
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
    /// Moves a seekable source; `None` for a source read once.
    seeker: Option<Seeker<R>>,
    buffer: Vec<u8>,
    line_number: usize,
    bytes_read: u64,
    decoder: Option<Decoder>,
    /// A Claude Code transcript was recognised at the line just read, and the source can seek:
    /// the first pass runs before anything else.
    first_pass: bool,
    /// After a first pass: the bytes it saw. The second pass stops there, so a file that grows
    /// while it is read (a live session) is read as far as the tree knows it.
    read_limit: Option<u64>,
    pending: VecDeque<LazyReadEvent>,
    ignored: BTreeMap<String, usize>,
    finished: bool,
    max_line_bytes: usize,
    /// The most bytes at the start of a Claude Code transcript read once for both passes;
    /// `None`: no helper thread, each pass reads every line.
    ahead_bytes: Option<usize>,
    /// When the start is read with a helper thread.
    helper: Helper,
    /// The payloads of Codex lines typed as they are read ([`RolloutReader::typing_as_read`]).
    type_as_read: Option<TypeAsRead>,
    /// The payloads of Codex lines read in part as they are read
    /// ([`RolloutReader::reading_in_part`]).
    read_in_part: Option<ReadInPart>,
}

/// How a seekable source tells and sets its position.
struct Seeker<R> {
    position: fn(&mut R) -> std::io::Result<u64>,
    seek_to: fn(&mut R, u64) -> std::io::Result<u64>,
}

impl<R> Clone for Seeker<R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R> Copy for Seeker<R> {}

impl<R> std::fmt::Debug for Seeker<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Seeker")
    }
}

fn stream_position<R: Seek>(source: &mut R) -> std::io::Result<u64> {
    source.stream_position()
}

fn seek_to<R: Seek>(source: &mut R, position: u64) -> std::io::Result<u64> {
    source.seek(SeekFrom::Start(position))
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
    /// Opens a file for reading. A Claude Code transcript is read in two passes (see
    /// [`RolloutReader::seekable`]).
    pub fn open(path: &Path) -> Result<Self, RolloutError> {
        let file = File::open(path).map_err(|source| RolloutError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(Self::seekable(
            path,
            BufReader::with_capacity(READ_BUFFER_BYTES, file),
        ))
    }
}

impl<R: BufRead + Seek> RolloutReader<R> {
    /// Reads from a buffered source that can seek; `path` names it in errors. A Claude Code
    /// transcript is read twice, so its memory stays bounded whatever its size: a first pass
    /// over its records' heads builds the conversation tree, then a second streams the records
    /// (see docs/design/rollout-formats.md, "Two passes over a Claude Code transcript").
    pub fn seekable(path: &Path, source: R) -> Self {
        let mut reader = Self::new(path, source);
        reader.seeker = Some(Seeker {
            position: stream_position::<R>,
            seek_to: seek_to::<R>,
        });
        reader
    }
}

impl<R: BufRead> RolloutReader<R> {
    /// Reads from any buffered source, once; `path` names it in errors. A Claude Code
    /// transcript read this way is held in memory until its end, when its abandoned branches
    /// are known; use [`RolloutReader::seekable`] where the source can seek.
    pub fn new(path: &Path, source: R) -> Self {
        Self {
            path: path.to_path_buf(),
            source,
            seeker: None,
            buffer: Vec::new(),
            line_number: 0,
            bytes_read: 0,
            decoder: None,
            first_pass: false,
            read_limit: None,
            pending: VecDeque::new(),
            ignored: BTreeMap::new(),
            finished: false,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            ahead_bytes: Some(AHEAD_BYTES),
            helper: Helper::WhenWorthIt,
            type_as_read: None,
            read_in_part: None,
        }
    }

    /// Sets the longest line held in memory (256 MiB by default); longer
    /// lines are skipped with their number and length.
    pub fn with_max_line_bytes(mut self, max_line_bytes: usize) -> Self {
        self.max_line_bytes = max_line_bytes.max(1);
        self
    }

    /// Whether a Claude Code transcript read in two passes (see [`RolloutReader::seekable`])
    /// has the start of it (its first 8 MiB, in whole lines) read once for both: each line is
    /// read on this thread, and a helper thread gives its head to the tree and imports its
    /// record, the events held until the first pass ends (on one core, or for a start under
    /// 256 KiB, this thread does both in turn). On by default; the events are the same either
    /// way. Off, no thread is started and each pass reads every line, which takes more time and
    /// less memory.
    pub fn with_helper_thread(mut self, enabled: bool) -> Self {
        self.ahead_bytes = enabled.then_some(AHEAD_BYTES);
        self
    }

    /// Types the payloads of Codex lines that `wanted` names (by the line's `type` and the
    /// payload's own) as the lines are read, when they can be
    /// ([`LazyRolloutLine::parse_typing`]): for a reader that will type them anyway, each is then
    /// read once instead of twice. The events are the same; only when the work is done differs.
    pub fn typing_as_read(mut self, wanted: TypeAsRead) -> Self {
        self.type_as_read = Some(wanted);
        self
    }

    /// Reads the payloads of Codex lines that `in_part` reads as the lines are read
    /// ([`LazyRolloutLine::parse_reading`]): for a reader that needs a few members of some
    /// payloads, each is then read once, by `in_part`, instead of once to validate it and again
    /// for those members ([`LazyRecord::take_part_read_record`] gives what it read). The events
    /// are the same otherwise, and typing them in full still gives the whole payload.
    pub fn reading_in_part(mut self, in_part: ReadInPart) -> Self {
        self.read_in_part = Some(in_part);
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

    /// Records not read into the conversation so far, counted by kind (see
    /// [`RolloutFile::ignored`]).
    pub fn ignored(&self) -> &BTreeMap<String, usize> {
        &self.ignored
    }

    /// The lazy events: records typed on demand ([`LazyRecord`]) and skipped lines. The reader
    /// stays usable afterwards for [`RolloutReader::format`], [`RolloutReader::ignored`], ...
    pub fn lazy(&mut self) -> LazyEvents<'_, R> {
        LazyEvents { reader: self }
    }

    /// The next lazy event, `None` at the end of the input.
    pub fn next_lazy(&mut self) -> Option<Result<LazyReadEvent, RolloutError>> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Some(Ok(event));
            }
            if self.finished {
                return None;
            }
            let line = match self.read_limit {
                Some(limit) if self.bytes_read >= limit => Ok(LineRead::End),
                Some(_) | None => self.read_line_bounded(),
            };
            match line {
                Ok(LineRead::End) => {
                    self.finished = true;
                    if let Some(Decoder::ClaudeCode(importer)) = &mut self.decoder {
                        importer.finish(&mut self.pending, &mut self.ignored);
                    }
                }
                Ok(LineRead::Line(read)) => {
                    self.line_number += 1;
                    self.bytes_read = self.bytes_read.saturating_add(read as u64);
                    self.handle_line();
                    if self.first_pass {
                        self.first_pass = false;
                        if let Err(err) = self.claude_first_pass(read) {
                            self.finished = true;
                            return Some(Err(err));
                        }
                    }
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

    fn handle_line(&mut self) {
        let line_number = self.line_number;
        let text = self.buffer.trim_ascii();
        if text.is_empty() {
            return;
        }
        if let Some(Decoder::Codex) = self.decoder {
            // The common case, kept off the JSON tree: the envelope is read, the payload kept.
            match LazyRolloutLine::parse_reading(text, self.type_as_read, self.read_in_part) {
                Ok(line) => self.push_codex_line(line_number, line),
                Err(err) => self.skip(line_number, err.to_string()),
            }
            return;
        }
        // The line is checked to be UTF-8 once, so serde_json need not check string by string
        // (a line that is not UTF-8 is never JSON: it was skipped with this reason before too).
        let Ok(text) = std::str::from_utf8(text) else {
            self.skip(line_number, "invalid utf-8".to_string());
            return;
        };
        // Past the first line of a Claude Code transcript, the import reads the line borrowed,
        // without a JSON tree; a line that is not a JSON object is parsed whole below, which
        // names what is wrong with it.
        if let Some(Decoder::ClaudeCode(importer)) = &mut self.decoder
            && importer.decode(line_number, text, &mut self.ignored)
        {
            importer.drain_ready(&mut self.pending);
            return;
        }
        let value = match serde_json::from_str::<Value>(text) {
            Ok(value) => value,
            Err(err) => {
                self.skip(line_number, format!("invalid json: {err}"));
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
                Some(RolloutFormat::ClaudeCode) => {
                    if self.seeker.is_some() {
                        // The line is read again by both passes, from its start.
                        self.first_pass = true;
                        self.decoder = Some(Decoder::ClaudeCode(Box::default()));
                        return;
                    }
                    Some(Decoder::ClaudeCode(Box::default()))
                }
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
            Some(Decoder::Codex) => {
                match LazyRolloutLine::parse_reading(
                    text.as_bytes(),
                    self.type_as_read,
                    self.read_in_part,
                ) {
                    Ok(line) => self.push_codex_line(line_number, line),
                    Err(err) => self.skip(line_number, err.to_string()),
                }
            }
            Some(Decoder::CodexLegacy) => {
                if let Some(event) =
                    codex_decoder::decode_legacy(line_number, value, &mut self.ignored)
                {
                    self.pending.push_back(LazyReadEvent::from(event));
                }
            }
            Some(Decoder::ClaudeCode(importer)) => {
                // The first line of a transcript read in one pass (a JSON object: it was just
                // recognised).
                importer.decode(line_number, text, &mut self.ignored);
                importer.drain_ready(&mut self.pending);
            }
            None => {}
        }
    }

    /// The first pass over a Claude Code transcript, from the line just read (`read` bytes,
    /// the first recognised one) to the end: each record's head goes into the conversation
    /// tree. The source is then put back at the start of that line, and reading goes on as the
    /// second pass, which streams.
    ///
    /// The start of the transcript (whole lines, up to 8 MiB; see
    /// [`RolloutReader::with_helper_thread`]) is read into memory first and read once for both
    /// passes ([`Overlap`]); the first pass goes on over the rest of the file, and the second
    /// then streams from the end of that start. Should a line of the start need the reader's
    /// own handling (not UTF-8, not a JSON object, too long), its import is dropped and the
    /// second pass reads it again, from its first line, as without the helper.
    fn claude_first_pass(&mut self, read: usize) -> Result<(), RolloutError> {
        let Some(seeker) = self.seeker else {
            return Ok(());
        };
        if !matches!(self.decoder, Some(Decoder::ClaudeCode(_))) {
            return Ok(());
        }
        let path = self.path.clone();
        let line_number = self.line_number;
        let io_error = |line: usize| {
            let path = path.clone();
            move |source| RolloutError::Read { path, line, source }
        };
        let start = (seeker.position)(&mut self.source)
            .map_err(io_error(line_number))?
            .saturating_sub(read as u64);
        (seeker.seek_to)(&mut self.source, start).map_err(io_error(line_number - 1))?;
        let ahead = self
            .read_ahead_of_first_pass()
            .map_err(io_error(line_number - 1))?;
        let mut ahead_bytes = 0;
        let mut cut = false;
        let read_once = match ahead {
            Some(ahead) => {
                ahead_bytes = ahead.bytes.len();
                cut = ahead.cut;
                let overlap = Overlap {
                    bytes: &ahead.bytes,
                    first_line: line_number,
                    max_line_bytes: self.max_line_bytes,
                };
                let with_helper = match self.helper {
                    Helper::WhenWorthIt => ahead_bytes >= AHEAD_MIN_BYTES && two_cores(),
                    Helper::Always => true,
                    Helper::Never => false,
                };
                if with_helper {
                    overlap.run()
                } else {
                    overlap.run_here()
                }
            }
            None => ReadOnce {
                tree: ConversationTree::default(),
                imported: None,
                lines: 0,
            },
        };
        let ReadOnce {
            mut tree,
            imported,
            lines: ahead_lines,
        } = read_once;
        let rest = start.saturating_add(ahead_bytes as u64);
        if cut {
            // More was read than the start's whole lines: the first pass goes on after them.
            (seeker.seek_to)(&mut self.source, rest).map_err(io_error(line_number - 1))?;
        }
        let mut line = line_number - 1 + ahead_lines;
        let mut seen = ahead_bytes as u64;
        loop {
            match self.read_line_bounded().map_err(io_error(line))? {
                LineRead::End => break,
                LineRead::TooLong(read) => seen = seen.saturating_add(read as u64),
                LineRead::Line(read) => {
                    seen = seen.saturating_add(read as u64);
                    claude_import::observe_head(&mut tree, self.buffer.trim_ascii());
                }
            }
            line += 1;
        }
        let bytes_before = self.bytes_read.saturating_sub(read as u64);
        self.read_limit = Some(bytes_before.saturating_add(seen));
        self.buffer.clear();
        match imported {
            Some(imported) => {
                // The second pass goes on after the lines imported beside the first.
                (seeker.seek_to)(&mut self.source, rest).map_err(io_error(line_number - 1))?;
                let (mut importer, ignored) = imported;
                importer.start_streaming_with(tree);
                importer.drain_ready(&mut self.pending);
                self.decoder = Some(Decoder::ClaudeCode(Box::new(importer)));
                for (kind, count) in ignored {
                    *self.ignored.entry(kind).or_default() += count;
                }
                self.line_number = line_number - 1 + ahead_lines;
                self.bytes_read = bytes_before.saturating_add(ahead_bytes as u64);
            }
            None => {
                if let Some(Decoder::ClaudeCode(importer)) = &mut self.decoder {
                    importer.start_streaming_with(tree);
                }
                (seeker.seek_to)(&mut self.source, start).map_err(io_error(line_number - 1))?;
                // The recognised line is read again, now by the second pass.
                self.line_number = line_number - 1;
                self.bytes_read = bytes_before;
            }
        }
        Ok(())
    }

    /// The start of a Claude Code transcript, for both passes at once: whole lines, at most
    /// [`AHEAD_BYTES`]; `None` when the helper thread is off.
    fn read_ahead_of_first_pass(&mut self) -> std::io::Result<Option<Ahead>> {
        let Some(limit) = self.ahead_bytes else {
            return Ok(None);
        };
        let mut bytes = Vec::with_capacity(limit);
        (&mut self.source)
            .take(limit as u64)
            .read_to_end(&mut bytes)?;
        let mut cut = false;
        if bytes.len() == limit {
            // The file may go on: the last line read may be cut, and is read again after.
            let whole = memchr::memrchr(b'\n', &bytes).map_or(0, |newline| newline + 1);
            cut = whole < bytes.len();
            bytes.truncate(whole);
        }
        Ok(Some(Ahead { bytes, cut }))
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
            let (chunk, done) = match memchr::memchr(b'\n', available) {
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

    /// A line of a Codex rollout, passed on as it was read. A line of a type this version does
    /// not model (`world_state`, `inter_agent_communication_metadata`, `token_usage_record`,
    /// whatever newer builds add) is counted in `ignored` by its type as well: it is still
    /// passed on (as `RolloutItem::Unknown` once typed), so a host that writes lines back keeps
    /// it, but nothing reads it into the conversation (see docs/design/rollout-formats.md,
    /// "Line types read, and line types counted").
    fn push_codex_line(&mut self, line_number: usize, line: LazyRolloutLine) {
        if !MODELLED_CODEX_KINDS.contains(&line.kind()) {
            match self.ignored.get_mut(line.kind()) {
                Some(count) => *count += 1,
                None => {
                    self.ignored.insert(line.kind().to_string(), 1);
                }
            }
        }
        self.pending
            .push_back(LazyReadEvent::Record(LazyRecord::raw(line_number, line)));
    }

    fn skip(&mut self, line_number: usize, reason: String) {
        tracing::debug!(path = %self.path.display(), line_number, %reason, "skipping rollout line");
        self.pending.push_back(LazyReadEvent::Skipped(SkippedLine {
            line_number,
            reason,
        }));
    }
}

impl<R: BufRead> Iterator for RolloutReader<R> {
    type Item = Result<ReadEvent, RolloutError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_lazy()
            .map(|event| event.map(LazyReadEvent::into_typed))
    }
}

/// The lazy events of a [`RolloutReader`] ([`RolloutReader::lazy`]).
#[derive(Debug)]
pub struct LazyEvents<'a, R> {
    reader: &'a mut RolloutReader<R>,
}

impl<R: BufRead> Iterator for LazyEvents<'_, R> {
    type Item = Result<LazyReadEvent, RolloutError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.reader.next_lazy()
    }
}

/// The start of a Claude Code transcript, read ahead of its first pass.
struct Ahead {
    /// Whole lines.
    bytes: Vec<u8>,
    /// More was read than these lines: the source is to be put back after them.
    cut: bool,
}

#[cfg(test)]
#[path = "reader_tests.rs"]
mod tests;
