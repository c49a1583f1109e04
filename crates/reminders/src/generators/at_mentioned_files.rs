//! The `at_mentioned_files` reminder: files and folders the user mentioned.
//!
//! Syntax: `@path`, `@"path with spaces"`, and a line range `@path:10-20` (or one line,
//! `@path:10`; also after a quoted path). `@agent-…` is an agent mention and `@server:uri` of a
//! connected MCP server is a resource mention; both are left to their generators. A mention must
//! start the prompt or follow whitespace, so e-mail addresses are not mentions.
//!
//! Files are shown with line numbers within the catalogue's limits ([`MAX_FILE_CONTENT_SIZE`],
//! [`MAX_FILE_LINES`]); folders as a listing. A file the model already read in full and that is
//! unchanged since is skipped silently (the catalogue's `already_read_file`). Every file shown is
//! recorded in the [`crate::FileTracker`], so later edits to it come back as `changed_files`.
//!
//! [`MAX_FILE_CONTENT_SIZE`]: crate::file_content::MAX_FILE_CONTENT_SIZE
//! [`MAX_FILE_LINES`]: crate::file_content::MAX_FILE_LINES

use std::fmt::Write as _;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;

use crate::blocking::run_blocking;
use crate::file_content::FileExcerpt;
use crate::file_content::MAX_READ_BYTES;
use crate::file_content::excerpt;
use crate::file_content::number_lines;
use crate::file_tracker::FileStamp;
use crate::file_tracker::FileTracker;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorError;
use crate::generator_context::GeneratorContext;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// Punctuation that ends a sentence after a mention rather than belonging to it.
const TRAILING_PUNCTUATION: [char; 10] = [',', ';', '!', '?', ')', ']', '}', '\'', '"', '.'];

/// Most entries of a folder listing.
pub(crate) const MAX_DIRECTORY_ENTRIES: usize = 1_000;

/// One `@` mention of a file or folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileMention {
    /// The path as written.
    pub path: String,
    /// First line of the range (1-based).
    pub line_start: Option<usize>,
    /// Last line of the range (inclusive).
    pub line_end: Option<usize>,
}

/// The file and folder mentions of `prompt`, in order, without duplicates. `is_mcp_server`
/// tells whether `server` in `@server:uri` is a connected MCP server.
pub(crate) fn parse_file_mentions(
    prompt: &str,
    is_mcp_server: &dyn Fn(&str) -> bool,
) -> Vec<FileMention> {
    let mut mentions: Vec<FileMention> = Vec::new();
    let mut previous: Option<char> = None;
    let mut chars = prompt.char_indices().peekable();
    while let Some((index, ch)) = chars.next() {
        let starts_mention = ch == '@' && previous.is_none_or(char::is_whitespace);
        previous = Some(ch);
        if !starts_mention {
            continue;
        }
        // `@` is one byte, so `index + 1` is a char boundary.
        let rest = prompt.get(index + 1..).unwrap_or_default();
        let Some((mention, consumed)) = parse_one(rest, is_mcp_server) else {
            continue;
        };
        // Skip what the mention consumed.
        let mut skipped = 0;
        while skipped < consumed {
            match chars.next() {
                Some((_, skipped_char)) => {
                    skipped += skipped_char.len_utf8();
                    previous = Some(skipped_char);
                }
                None => break,
            }
        }
        if !mentions.contains(&mention) {
            mentions.push(mention);
        }
    }
    mentions
}

/// Parses the text after `@`; returns the mention and the bytes it used.
fn parse_one(rest: &str, is_mcp_server: &dyn Fn(&str) -> bool) -> Option<(FileMention, usize)> {
    if let Some(quoted) = rest.strip_prefix('"') {
        let (path, after) = quoted.split_once('"')?;
        let suffix = after.split(char::is_whitespace).next().unwrap_or_default();
        let (line_start, line_end) = suffix
            .strip_prefix(':')
            .and_then(|range| parse_range(range.trim_end_matches(TRAILING_PUNCTUATION)))
            .map_or((None, None), |(start, end)| (Some(start), Some(end)));
        if path.is_empty() {
            return None;
        }
        let mention = FileMention {
            path: path.to_string(),
            line_start,
            line_end,
        };
        // The quotes, the path and the suffix.
        return Some((mention, path.len() + 2 + suffix.len()));
    }
    let whole_token = rest.split(char::is_whitespace).next().unwrap_or_default();
    let token_len = whole_token.len();
    let token = whole_token.trim_end_matches(TRAILING_PUNCTUATION);
    if token.is_empty() || token.starts_with("agent-") {
        return None;
    }
    let mut path = token;
    let mut range = None;
    if let Some((head, tail)) = token.rsplit_once(':')
        && let Some(parsed) = parse_range(tail)
    {
        path = head;
        range = Some(parsed);
    }
    if range.is_none()
        && let Some((server, _uri)) = token.split_once(':')
        && is_mcp_server(server)
    {
        return None;
    }
    if path.is_empty() {
        return None;
    }
    let mention = FileMention {
        path: path.to_string(),
        line_start: range.map(|(start, _)| start),
        line_end: range.map(|(_, end)| end),
    };
    Some((mention, token_len))
}

/// `10-20` → (10, 20); `10` → (10, 10). Lines are 1-based; an inverted range is rejected.
fn parse_range(text: &str) -> Option<(usize, usize)> {
    let (start, end) = match text.split_once('-') {
        Some((start, end)) => (start.parse().ok()?, end.parse().ok()?),
        None => {
            let line = text.parse().ok()?;
            (line, line)
        }
    };
    (start >= 1 && end >= start).then_some((start, end))
}

/// The section of a text file excerpt.
pub(crate) fn render_file(path: &Path, window: &FileExcerpt) -> String {
    let past_end = window.num_lines == 0 && window.start_line > window.total_lines.max(1);
    let mut out = if past_end || (window.is_whole_file() && !window.truncated) {
        format!("Contents of {}:\n", path.display())
    } else {
        format!(
            "Contents of {} (lines {}-{} of {}):\n",
            path.display(),
            window.start_line,
            window.end_line(),
            window.total_lines
        )
    };
    if past_end {
        let _ = write!(
            out,
            "(line {} is past the end of the file, which has {} lines)",
            window.start_line, window.total_lines
        );
    } else if window.num_lines == 0 {
        out.push_str("(no lines)");
    } else {
        out.push_str(&number_lines(&window.text, window.start_line));
    }
    if window.truncated {
        let _ = write!(
            out,
            "\n\n(Truncated at {} lines / {} KB. Read the file with a line range to see lines {} onward.)",
            crate::file_content::MAX_FILE_LINES,
            crate::file_content::MAX_FILE_CONTENT_SIZE / 1_000,
            window.end_line().saturating_add(1)
        );
    }
    out
}

/// The section of a file too large to read whole.
pub(crate) fn render_too_large(path: &Path, len: u64) -> String {
    format!(
        "{} is too large to include ({len} bytes). Read it with a line range to see part of it.",
        path.display()
    )
}

/// The section of a binary file.
pub(crate) fn render_binary(path: &Path, len: usize) -> String {
    format!(
        "{} is a binary file ({len} bytes); its contents are not shown.",
        path.display()
    )
}

/// The section of a folder: one entry per line, sub-folders with a trailing `/`.
pub(crate) fn render_directory(path: &Path, entries: &[String], omitted: usize) -> String {
    let mut out = format!("Contents of directory {}:", path.display());
    for entry in entries {
        let _ = write!(out, "\n- {entry}");
    }
    if entries.is_empty() {
        out.push_str("\n(empty directory)");
    }
    if omitted > 0 {
        let _ = write!(out, "\n- … and {omitted} more");
    }
    out
}

/// Generates the `at_mentioned_files` reminder.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct AtMentionedFilesGenerator;

/// The files a turn's mentions are read against.
struct MentionReader {
    cwd: PathBuf,
    tracker: Arc<FileTracker>,
}

/// A read to record in the [`FileTracker`] once the reminder that shows it is delivered. The
/// blocking work only collects these: if the orchestrator's timeout drops the generator, the
/// model never sees the content, so nothing may claim it did (see docs/design/reminders.md,
/// "Timeouts leave no trace").
struct PendingRead {
    path: PathBuf,
    content: String,
    stamp: Option<FileStamp>,
    offset: Option<usize>,
    limit: Option<usize>,
}

/// One mention's section and the read it makes, if any.
type RenderedMention = (String, Option<PendingRead>);

fn render_mention(
    reader: &MentionReader,
    mention: &FileMention,
) -> Result<Option<RenderedMention>, GeneratorError> {
    let path = resolve(&reader.cwd, &mention.path);
    if !stays_inside(&reader.cwd, &path) {
        // A prompt may name any path, but only the working directory is the model's to see: a
        // mention is not a way around the file tools' boundary (docs/design/reminders.md,
        // "@-mentions stay inside the working directory").
        tracing::warn!(path = %path.display(), "mentioned path is outside the working directory; not read");
        return Ok(None);
    }
    let metadata = match std::fs::metadata(&path) {
        Ok(metadata) => metadata,
        Err(error) => {
            tracing::debug!(path = %path.display(), %error, "mentioned path not found");
            return Ok(None);
        }
    };
    if metadata.is_dir() {
        return list_directory(&path)
            .map(|(entries, omitted)| Some((render_directory(&path, &entries, omitted), None)));
    }
    if reader.tracker.is_unchanged_since_read(&path) {
        tracing::debug!(path = %path.display(), "already_read_file: unchanged since read");
        return Ok(None);
    }
    if metadata.len() > MAX_READ_BYTES {
        return Ok(Some((render_too_large(&path, metadata.len()), None)));
    }
    let bytes = std::fs::read(&path).map_err(|source| GeneratorError::io(&path, source))?;
    let stamp = FileStamp::of(&path).ok();
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => return Ok(Some((render_binary(&path, error.as_bytes().len()), None))),
    };
    let window = excerpt(&text, mention.line_start.unwrap_or(1), mention.line_end);
    let section = render_file(&path, &window);
    let read = if window.is_whole_file() && !window.truncated {
        PendingRead {
            path,
            content: text,
            stamp,
            offset: None,
            limit: None,
        }
    } else {
        PendingRead {
            path,
            offset: Some(window.start_line),
            limit: Some(window.num_lines),
            content: window.text,
            stamp,
        }
    };
    Ok(Some((section, Some(read))))
}

fn resolve(cwd: &Path, written: &str) -> PathBuf {
    let path = Path::new(written);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    }
}

/// Whether `path`, with every `..` and symlink resolved, lies inside `cwd` (itself resolved). A
/// path that cannot be resolved (missing, unreadable) is not inside.
fn stays_inside(cwd: &Path, path: &Path) -> bool {
    match (std::fs::canonicalize(cwd), std::fs::canonicalize(path)) {
        (Ok(cwd), Ok(path)) => path.starts_with(cwd),
        _ => false,
    }
}

fn list_directory(path: &Path) -> Result<(Vec<String>, usize), GeneratorError> {
    let reader = std::fs::read_dir(path).map_err(|source| GeneratorError::io(path, source))?;
    let mut entries: Vec<String> = Vec::new();
    for entry in reader {
        let entry = entry.map_err(|source| GeneratorError::io(path, source))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
        entries.push(if is_dir { format!("{name}/") } else { name });
    }
    entries.sort();
    let omitted = entries.len().saturating_sub(MAX_DIRECTORY_ENTRIES);
    entries.truncate(MAX_DIRECTORY_ENTRIES);
    Ok((entries, omitted))
}

#[async_trait]
impl AttachmentGenerator for AtMentionedFilesGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::AtMentionedFiles
    }

    async fn generate(
        &self,
        ctx: &GeneratorContext,
    ) -> Result<Option<SystemReminder>, GeneratorError> {
        let Some(prompt) = ctx.user_prompt.as_deref() else {
            return Ok(None);
        };
        let mcp = &ctx.providers.mcp;
        let mentions = parse_file_mentions(prompt, &|server| mcp.has_server(server));
        if mentions.is_empty() {
            return Ok(None);
        }
        // Reading the files is blocking work: off the async worker, so the timeout holds.
        let reader = MentionReader {
            cwd: ctx.cwd.clone(),
            tracker: Arc::clone(&ctx.file_tracker),
        };
        let (sections, reads) = run_blocking(self.name(), move || {
            let mut sections = Vec::new();
            let mut reads = Vec::new();
            for mention in &mentions {
                match render_mention(&reader, mention) {
                    Ok(Some((section, read))) => {
                        sections.push(section);
                        reads.extend(read);
                    }
                    Ok(None) => {}
                    Err(error) => {
                        tracing::warn!(mention = %mention.path, %error, "skipping mentioned path");
                    }
                }
            }
            (sections, reads)
        })
        .await?;
        // The result is delivered: from here on the model sees these files.
        for read in reads {
            ctx.file_tracker.track_read_with_stamp(
                read.path,
                read.content,
                read.stamp,
                ctx.turn_number,
                read.offset,
                read.limit,
            );
        }
        if sections.is_empty() {
            return Ok(None);
        }
        Ok(Some(SystemReminder::new(
            AttachmentType::AtMentionedFiles,
            sections.join("\n\n"),
        )))
    }
}

#[cfg(test)]
#[path = "at_mentioned_files_tests.rs"]
mod tests;
