//! The files a recorded history read and wrote, with the content the model saw: what a resumed
//! session and `agentctx compact` feed the engine's file observer, so the changed-file reminder,
//! the restoration cache and the read ledger know what the model has seen (see
//! docs/design/engine.md, "Recorded reads").
//!
//! Read from the tool calls and their outputs, in history order:
//!
//! - agentctx's `read_file` (`{"path", "offset"?, "limit"?}`): its output numbers each line
//!   (`{n:>6}\t{line}`) and ends with `... N more lines; read on with offset M` when it stopped
//!   early (`agentctx-core`'s `tools/read_file.rs`); an empty file is `{path} is empty.`;
//! - Claude Code's `Read` (`{"file_path", "offset"?, "limit"?}`): `{n:>6}→{line}` (older
//!   versions `{n}\t{line}`), a `<system-reminder>` after the lines, the empty-file warning, and
//!   `File unchanged since last read` for a repeated read;
//! - Codex shell calls that print one file (`cat`, `cat -n`, `nl -ba`, `sed -n 'A,Bp'`, `head`;
//!   `agentctx_context::shell_file_read`) and ended with exit code 0;
//! - writes: `write_file` and `Write` (the whole content), `edit_file`, `Edit` and `MultiEdit`
//!   (applied to the content the model last saw whole, when it did), and `apply_patch` (content
//!   not known);
//! - the files an earlier compaction of ours restored (`agentctx_compact::restored_file_of`).
//!
//! A failed call (an error result, a non-zero exit) is not a read. Relative paths resolve
//! against the call's working directory, else the session's.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Component;
use std::path::Path;
use std::path::PathBuf;

use agentctx_context::ShellFileRead;
use agentctx_context::has_cut_marker;
use agentctx_protocol::ContentItem;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::SYSTEM_REMINDER_OPEN_TAG;
use agentctx_protocol::is_model_generated;
use serde_json::Value;

/// Characters of a line both read tools show before cutting it: a line this long may be cut.
const MAX_LINE_CHARS: usize = 2000;
/// Lines both read tools return when the call gives no limit.
const DEFAULT_READ_LIMIT: usize = 2000;
/// Claude Code's answer to a read of a file it already showed unchanged (2.x).
const CLAUDE_UNCHANGED: &str = "File unchanged since last read";
/// Claude Code's answer to a read of an empty file.
const CLAUDE_EMPTY: &str = "the file exists but the contents are empty";
/// The trailer of agentctx's `read_file` when lines remain.
const READ_FILE_MORE: &str = "... ";

/// What a recorded call did to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordedAccess {
    /// The model read it, with the `offset` (first line, 1-based) and `limit` (lines) of the
    /// call.
    Read {
        /// The first line asked for.
        offset: Option<usize>,
        /// The lines asked for.
        limit: Option<usize>,
    },
    /// The model wrote it (a whole-content write, an edit, a patch).
    Write,
}

/// One file a recorded history read or wrote, with what the model saw of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedRead {
    /// The file, absolute.
    pub path: PathBuf,
    /// Read or written.
    pub access: RecordedAccess,
    /// The text the model saw, line numbers removed: lines `first_line..` of the file, or the
    /// whole file when `whole`. `None`: the model changed the file and the history does not
    /// spell out what it holds now (a patch, an edit of a file it never saw whole).
    pub content: Option<String>,
    /// The line `content` starts at (1 for a whole file).
    pub first_line: usize,
    /// `content` is the whole file.
    pub whole: bool,
    /// The model request of the call (the reminders' clock: requests counted from 1).
    pub request: i32,
}

impl RecordedRead {
    /// Whether the file `disk` holds agrees with what the model saw: its lines from
    /// `first_line` are the lines seen (a seen line as long as the tools show may be a cut
    /// one), and, for a whole read, there are no more.
    pub fn agrees_with(&self, disk: &str) -> bool {
        let Some(content) = &self.content else {
            return false;
        };
        let mut disk_lines = disk.lines().skip(self.first_line.saturating_sub(1));
        for seen in self.seen_lines(content) {
            let Some(line) = disk_lines.next() else {
                return false;
            };
            let cut = seen.chars().count() >= MAX_LINE_CHARS && line.starts_with(seen);
            if line != seen && !cut {
                return false;
            }
        }
        !self.whole || disk_lines.next().is_none()
    }

    /// The text the restoration cache keeps when the file is not on this machine: the whole
    /// content, else the lines seen with their numbers (`{n:>6}\t{line}`, as `read_file` shows
    /// them), so a restored part is never taken for the whole file.
    pub fn cache_text(&self) -> Option<String> {
        let content = self.content.as_ref()?;
        if self.whole {
            return Some(content.clone());
        }
        let mut out = String::with_capacity(content.len().saturating_add(content.len() / 8));
        for (index, line) in self.seen_lines(content).into_iter().enumerate() {
            // `{:>6}\t{line}\n`, written in place.
            push_line_number(&mut out, self.first_line + index);
            out.push('\t');
            out.push_str(line);
            out.push('\n');
        }
        Some(out)
    }

    /// The `offset` and `limit` the change detection keeps for what the model saw: a part of
    /// the file is a partial read (never diffed against the whole file), the whole file a full
    /// one.
    pub fn seen_range(&self) -> (Option<usize>, Option<usize>) {
        if self.whole {
            return (None, None);
        }
        let lines = self
            .content
            .as_deref()
            .map_or(0, |text| self.seen_lines(text).len());
        (Some(self.first_line), Some(lines))
    }

    /// The lines of `content`: a whole file's as text lines, a part's exactly as they were
    /// joined (its last line may be empty).
    fn seen_lines<'a>(&self, content: &'a str) -> Vec<&'a str> {
        if self.whole {
            content.lines().collect()
        } else if content.is_empty() {
            Vec::new()
        } else {
            content.split('\n').collect()
        }
    }
}

/// `number` right-aligned in six columns (`{:>6}`), as `read_file` numbers its lines.
fn push_line_number(out: &mut String, number: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = number;
    loop {
        at -= 1;
        // A digit: `rest % 10` is below ten.
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let width = digits.len() - at;
    for _ in width..6 {
        out.push(' ');
    }
    for &digit in &digits[at..] {
        out.push(char::from(digit));
    }
}

/// The files `history` read and wrote, in order, with the content the model saw; relative paths
/// resolve against `cwd`.
pub fn recorded_reads(history: &[ResponseItem], cwd: &Path) -> Vec<RecordedRead> {
    let mut scan = Scan {
        cwd,
        pending: HashMap::new(),
        last_whole: HashMap::new(),
        last_seen: HashMap::new(),
        reads: Vec::new(),
        request: 0,
        in_response: false,
    };
    for item in history {
        scan.item(item);
    }
    scan.reads
}

/// The model requests `history` holds, counted as the live session's clock counts them: a
/// request starts with the first model output after anything else.
pub(crate) fn request_count(history: &[ResponseItem]) -> i32 {
    let mut requests: i32 = 0;
    let mut in_response = false;
    for item in history {
        let from_model = is_model_generated(item);
        if from_model && !in_response {
            requests = requests.saturating_add(1);
        }
        in_response = from_model;
    }
    requests
}

/// A call waiting for its output.
#[derive(Debug, Clone)]
enum Call {
    /// `read_file` or `Read`.
    Read {
        path: PathBuf,
        offset: Option<usize>,
        limit: Option<usize>,
    },
    /// A shell command printing one file.
    Shell { path: PathBuf, read: ShellFileRead },
    /// A whole-content write.
    Write { path: PathBuf, content: String },
    /// Exact-string replacements, in order: `(old, new, all occurrences)`.
    Edit {
        path: PathBuf,
        edits: Vec<(String, String, bool)>,
    },
    /// A patch: the files it changed, content unknown.
    Patch { paths: Vec<PathBuf> },
}

struct Scan<'a> {
    cwd: &'a Path,
    pending: HashMap<String, (Call, i32)>,
    /// The last whole content seen of each file (edits apply to it).
    last_whole: HashMap<PathBuf, String>,
    /// The last read of each file (a repeated read Claude Code answers with "unchanged").
    last_seen: HashMap<PathBuf, RecordedRead>,
    reads: Vec<RecordedRead>,
    request: i32,
    in_response: bool,
}

impl Scan<'_> {
    fn item(&mut self, item: &ResponseItem) {
        // The live session's clock counts model requests: a request starts with the first
        // model output after anything else (as `ReminderEngine::resume_from_history` counts).
        let from_model = is_model_generated(item);
        if from_model && !self.in_response {
            self.request = self.request.saturating_add(1);
        }
        self.in_response = from_model;
        match item {
            ResponseItem::FunctionCall {
                name,
                arguments,
                call_id,
                ..
            } => {
                if let Some(call) = self.function_call(name, arguments) {
                    self.pending.insert(call_id.clone(), (call, self.request));
                }
            }
            ResponseItem::CustomToolCall {
                name,
                input,
                call_id,
                ..
            } if name == "apply_patch" => {
                let call = self.patch(input);
                self.pending.insert(call_id.clone(), (call, self.request));
            }
            ResponseItem::LocalShellCall {
                call_id: Some(call_id),
                action,
                ..
            } => {
                if let Some(read) = agentctx_context::local_shell_file_read(action) {
                    let call = self.shell(read);
                    self.pending.insert(call_id.clone(), (call, self.request));
                }
            }
            ResponseItem::FunctionCallOutput {
                call_id, output, ..
            }
            | ResponseItem::CustomToolCallOutput {
                call_id, output, ..
            } => {
                if let Some((call, request)) = self.pending.remove(call_id)
                    && output.success != Some(false)
                {
                    self.output(call, request, &output.text_content());
                }
            }
            ResponseItem::Message { role, content, .. } if role == "user" => {
                // A restored file's text opens with the reminder tag, so its first text part
                // does (the parts are joined by newlines): any other message is not joined.
                let may_be_restored = content
                    .iter()
                    .find_map(ContentItem::as_text)
                    .is_some_and(|text| text.starts_with(SYSTEM_REMINDER_OPEN_TAG));
                if may_be_restored
                    && let Some((path, content)) = item
                        .message_text()
                        .and_then(|text| agentctx_compact::restored_file_of(&text))
                {
                    let path = self.resolve(None, &path.to_string_lossy());
                    let whole = !has_cut_marker(&content);
                    let first_line = 1;
                    let content = if whole {
                        content
                    } else {
                        leading_lines(&content)
                    };
                    self.push(RecordedRead {
                        path,
                        access: RecordedAccess::Read {
                            offset: None,
                            limit: None,
                        },
                        content: Some(content),
                        first_line,
                        whole,
                        request: self.request,
                    });
                }
            }
            _ => {}
        }
    }

    fn function_call(&self, name: &str, arguments: &str) -> Option<Call> {
        if let Some(read) = agentctx_context::shell_file_read(name, arguments) {
            return Some(self.shell(read));
        }
        if !matches!(
            name,
            "read_file"
                | "Read"
                | "write_file"
                | "Write"
                | "edit_file"
                | "Edit"
                | "MultiEdit"
                | "apply_patch"
        ) {
            // No other tool reads or writes a file: its arguments are not parsed.
            return None;
        }
        let args: Value = serde_json::from_str(arguments).ok()?;
        let path = || {
            ["path", "file_path"]
                .iter()
                .find_map(|key| args.get(key).and_then(Value::as_str))
                .filter(|path| !path.trim().is_empty())
                .map(|path| self.resolve(None, path))
        };
        let number = |key: &str| {
            args.get(key)
                .and_then(Value::as_u64)
                .and_then(|value| usize::try_from(value).ok())
        };
        let text = |key: &str| args.get(key).and_then(Value::as_str).map(str::to_string);
        match name {
            "read_file" | "Read" => Some(Call::Read {
                path: path()?,
                offset: number("offset"),
                limit: number("limit"),
            }),
            "write_file" | "Write" => Some(Call::Write {
                path: path()?,
                content: text("content")?,
            }),
            "edit_file" | "Edit" => Some(Call::Edit {
                path: path()?,
                edits: vec![(
                    text("old_string")?,
                    text("new_string")?,
                    args.get("replace_all")
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                )],
            }),
            "MultiEdit" => {
                let edits = args
                    .get("edits")?
                    .as_array()?
                    .iter()
                    .map(|edit| {
                        Some((
                            edit.get("old_string")?.as_str()?.to_string(),
                            edit.get("new_string")?.as_str()?.to_string(),
                            edit.get("replace_all")
                                .and_then(Value::as_bool)
                                .unwrap_or(false),
                        ))
                    })
                    .collect::<Option<Vec<_>>>()?;
                Some(Call::Edit {
                    path: path()?,
                    edits,
                })
            }
            "apply_patch" => {
                let patch = args
                    .get("input")
                    .and_then(Value::as_str)
                    .unwrap_or(arguments);
                Some(self.patch(patch))
            }
            _ => None,
        }
    }

    fn shell(&self, read: ShellFileRead) -> Call {
        let path = self.resolve(read.workdir.as_deref(), &read.path);
        Call::Shell { path, read }
    }

    fn patch(&self, patch: &str) -> Call {
        let paths = agentctx_context::patch_paths(patch)
            .iter()
            .map(|path| self.resolve(None, path))
            .collect();
        Call::Patch { paths }
    }

    /// `raw` against `workdir` (itself against the session's directory), lexically normalised.
    fn resolve(&self, workdir: Option<&str>, raw: &str) -> PathBuf {
        let base = match workdir {
            Some(dir) => self.cwd.join(dir),
            None => self.cwd.to_path_buf(),
        };
        normalize(&base.join(raw))
    }

    fn output(&mut self, call: Call, request: i32, text: &str) {
        match call {
            Call::Read {
                path,
                offset,
                limit,
            } => self.read_output(path, offset, limit, request, text),
            Call::Shell { path, read } => self.shell_output(path, &read, request, text),
            Call::Write { path, content } => {
                if text.trim_start().starts_with("Error") {
                    return;
                }
                self.push(write(path, Some(content), request));
            }
            Call::Edit { path, edits } => {
                if text.trim_start().starts_with("Error") {
                    return;
                }
                let content = self
                    .last_whole
                    .get(&path)
                    .and_then(|before| apply_edits(before, &edits));
                self.push(write(path, content, request));
            }
            Call::Patch { paths } => {
                let output = agentctx_context::shell_output(text);
                let failed = output.exit_code.is_some_and(|code| code != 0)
                    || text.trim_start().starts_with("Error")
                    || text.contains("apply_patch verification failed");
                if failed {
                    return;
                }
                for path in paths {
                    self.push(write(path, None, request));
                }
            }
        }
    }

    fn read_output(
        &mut self,
        path: PathBuf,
        offset: Option<usize>,
        limit: Option<usize>,
        request: i32,
        text: &str,
    ) {
        let access = RecordedAccess::Read { offset, limit };
        let trimmed = text.trim();
        if trimmed.starts_with("Error") || trimmed.starts_with("<tool_use_error>") {
            return;
        }
        if trimmed.starts_with(CLAUDE_UNCHANGED) {
            if let Some(last) = self.last_seen.get(&path).cloned() {
                self.push(RecordedRead {
                    access,
                    request,
                    ..last
                });
            }
            return;
        }
        let from_start = offset.is_none_or(|offset| offset <= 1);
        // An output cut when it entered the history keeps its lines before the cut.
        let truncated = has_cut_marker(text);
        let kept;
        let text = if truncated {
            kept = leading_lines(text);
            kept.as_str()
        } else {
            text
        };
        let Some(numbered) = numbered_lines(text) else {
            let empty_file = (trimmed.ends_with(" is empty.") && !trimmed.contains('\n'))
                || trimmed.contains(CLAUDE_EMPTY);
            if empty_file && from_start {
                self.push(RecordedRead {
                    path,
                    access,
                    content: Some(String::new()),
                    first_line: 1,
                    whole: true,
                    request,
                });
            }
            return;
        };
        // The read stopped early: agentctx says so; Claude Code stops at the default limit.
        let more = numbered.rest.trim_start().starts_with(READ_FILE_MORE);
        let at_default_limit = limit.is_none() && numbered.lines.len() >= DEFAULT_READ_LIMIT;
        let whole = from_start
            && numbered.first == 1
            && limit.is_none_or(|limit| numbered.lines.len() < limit)
            && !more
            && !at_default_limit
            && !truncated
            && !numbered.cut_line;
        self.push(RecordedRead {
            path,
            access,
            content: Some(lines_text(&numbered.lines, whole)),
            first_line: numbered.first,
            whole,
            request,
        });
    }

    fn shell_output(&mut self, path: PathBuf, read: &ShellFileRead, request: i32, text: &str) {
        let output = agentctx_context::shell_output(text);
        if output.exit_code != Some(0) {
            return;
        }
        let first = read.first_line.unwrap_or(1);
        let access = RecordedAccess::Read {
            offset: read.first_line,
            limit: match (read.first_line, read.last_line) {
                (Some(first), Some(last)) => Some(last + 1 - first),
                _ => None,
            },
        };
        let printed: Cow<'_, str> = if output.truncated {
            Cow::Owned(leading_lines(&output.text))
        } else {
            Cow::Borrowed(&output.text)
        };
        let (lines, first_line, cut_line): (Vec<&str>, usize, bool) = if read.numbered {
            match numbered_lines(&printed) {
                Some(numbered) if numbered.rest.trim().is_empty() || output.truncated => {
                    (numbered.lines, numbered.first, numbered.cut_line)
                }
                _ => return,
            }
        } else {
            (printed.lines().collect(), first, false)
        };
        if output.text.trim().is_empty() && first > 1 {
            return;
        }
        // A range that asked for more lines than came back reached the end of the file.
        let reached_end = match read.last_line {
            None => true,
            Some(last) => lines.len() < last + 1 - first,
        };
        let whole = first_line == 1 && reached_end && !output.truncated && !cut_line;
        let content = if whole && !read.numbered {
            // `cat` printed the file itself.
            output.text.to_string()
        } else {
            lines_text(&lines, whole)
        };
        self.push(RecordedRead {
            path,
            access,
            content: Some(content),
            first_line,
            whole,
            request,
        });
    }

    fn push(&mut self, read: RecordedRead) {
        match (&read.content, read.whole) {
            (Some(content), true) => {
                self.last_whole.insert(read.path.clone(), content.clone());
            }
            (None, _) => {
                self.last_whole.remove(&read.path);
            }
            (Some(_), false) => {}
        }
        if matches!(read.access, RecordedAccess::Read { .. }) {
            self.last_seen.insert(read.path.clone(), read.clone());
        } else {
            self.last_seen.remove(&read.path);
        }
        self.reads.push(read);
    }
}

fn write(path: PathBuf, content: Option<String>, request: i32) -> RecordedRead {
    RecordedRead {
        path,
        access: RecordedAccess::Write,
        whole: content.is_some(),
        content,
        first_line: 1,
        request,
    }
}

/// `before` with `edits` applied as the edit tools apply them (each old string must occur, once
/// unless all occurrences are replaced); `None` when one does not apply.
fn apply_edits(before: &str, edits: &[(String, String, bool)]) -> Option<String> {
    let mut text = before.to_string();
    for (old, new, all) in edits {
        if old.is_empty() {
            return None;
        }
        let count = text.matches(old.as_str()).count();
        text = match (count, all) {
            (0, _) => return None,
            (_, true) => text.replace(old.as_str(), new),
            (1, false) => text.replacen(old.as_str(), new, 1),
            _ => return None,
        };
    }
    Some(text)
}

/// The numbered lines a read tool printed.
struct Numbered<'a> {
    /// The number of the first line.
    first: usize,
    /// The lines, numbers removed; a contiguous run.
    lines: Vec<&'a str>,
    /// A line may have been cut (it is as long as the tools show).
    cut_line: bool,
    /// What follows the run.
    rest: &'a str,
}

/// The leading run of `{n}\t{line}` or `{n}→{line}` lines of `text` (numbers right-aligned,
/// each one more than the last); `None` when the first line is not numbered.
fn numbered_lines(text: &str) -> Option<Numbered<'_>> {
    let mut lines = Vec::new();
    let mut first = None;
    let mut cut_line = false;
    let mut rest = text;
    while !rest.is_empty() {
        let (line, after) = rest.split_once('\n').unwrap_or((rest, ""));
        let Some((number, content)) = numbered_line(line) else {
            break;
        };
        let expected = first.map(|first: usize| first + lines.len());
        if expected.is_some_and(|expected| expected != number) {
            break;
        }
        first.get_or_insert(number);
        cut_line |= content.chars().count() >= MAX_LINE_CHARS;
        lines.push(content);
        rest = after;
    }
    Some(Numbered {
        first: first?,
        lines,
        cut_line,
        rest,
    })
}

fn numbered_line(line: &str) -> Option<(usize, &str)> {
    let trimmed = line.trim_start_matches(' ');
    let digits = trimmed.find(|ch: char| !ch.is_ascii_digit())?;
    if digits == 0 {
        return None;
    }
    let number = trimmed.get(..digits)?.parse().ok()?;
    let after = trimmed.get(digits..)?;
    let content = after
        .strip_prefix('\t')
        .or_else(|| after.strip_prefix('→'))?;
    Some((number, content.strip_suffix('\r').unwrap_or(content)))
}

/// Lines as text: joined by newlines, and ending with one when they are a whole file (the read
/// tools do not show whether the file ends with a newline; most text files do).
fn lines_text(lines: &[&str], whole: bool) -> String {
    let mut text = lines.join("\n");
    if whole && !lines.is_empty() {
        text.push('\n');
    }
    text
}

/// The lines of `text` before the first cut marker (a truncated output), whole lines only.
/// A marker never spans lines: the first line holding one is the line of the first marker.
fn leading_lines(text: &str) -> String {
    let before_marker = match agentctx_context::first_cut_marker(text) {
        Some(at) => text
            .get(..at)
            .and_then(|head| head.rfind('\n'))
            .map_or(0, |newline| newline + 1),
        None => text.len(),
    };
    let head = text.get(..before_marker).unwrap_or_default();
    // Only whole lines: a last line without its newline is left out.
    head.rfind('\n')
        .and_then(|newline| head.get(..=newline))
        .unwrap_or_default()
        .to_string()
}

/// Removes `.` and folds `..` without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
#[path = "recorded_reads_tests.rs"]
mod tests;
