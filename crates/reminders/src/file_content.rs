//! Text files shown to the model: the size limits of the catalogue, line ranges and numbering.

use std::fmt::Write as _;

/// Largest excerpt of a file shown at once, in bytes (`MAX_FILE_CONTENT_SIZE`).
pub(crate) const MAX_FILE_CONTENT_SIZE: usize = 40_000;
/// Most lines of a file shown at once (`MAX_FILE_LINES`).
pub(crate) const MAX_FILE_LINES: usize = 3_000;

/// A window of a text file's lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileExcerpt {
    /// The lines of the window, joined with `\n`.
    pub text: String,
    /// The first line of the window (1-based).
    pub start_line: usize,
    /// Lines in the window.
    pub num_lines: usize,
    /// Lines in the file.
    pub total_lines: usize,
    /// Whether the window was shortened by [`MAX_FILE_LINES`] or [`MAX_FILE_CONTENT_SIZE`].
    pub truncated: bool,
}

impl FileExcerpt {
    /// The last line of the window (1-based; `start_line - 1` when empty).
    pub(crate) fn end_line(&self) -> usize {
        self.start_line
            .saturating_add(self.num_lines)
            .saturating_sub(1)
    }

    /// Whether the window is the whole file.
    pub(crate) fn is_whole_file(&self) -> bool {
        self.start_line <= 1 && self.num_lines == self.total_lines
    }
}

/// Lines `start_line..=end_line` (1-based, inclusive; `end_line` `None` for the rest of the file)
/// of `content`, within the catalogue's limits.
pub(crate) fn excerpt(content: &str, start_line: usize, end_line: Option<usize>) -> FileExcerpt {
    let start_line = start_line.max(1);
    let total_lines = content.lines().count();
    let wanted = end_line.map_or(usize::MAX, |end| {
        end.saturating_add(1).saturating_sub(start_line)
    });
    let mut text = String::new();
    let mut num_lines = 0usize;
    let mut truncated = false;
    for line in content.lines().skip(start_line - 1).take(wanted) {
        if num_lines == 0 && line.len() > MAX_FILE_CONTENT_SIZE {
            // One line longer than the limit (minified code): show its start rather than nothing.
            text.push_str(prefix_at_char_boundary(line, MAX_FILE_CONTENT_SIZE));
            num_lines = 1;
            truncated = true;
            break;
        }
        if num_lines == MAX_FILE_LINES
            || text.len() + line.len() + usize::from(num_lines > 0) > MAX_FILE_CONTENT_SIZE
        {
            truncated = true;
            break;
        }
        if num_lines > 0 {
            text.push('\n');
        }
        text.push_str(line);
        num_lines += 1;
    }
    FileExcerpt {
        text,
        start_line,
        num_lines,
        total_lines,
        truncated,
    }
}

/// The longest prefix of `text` of at most `max_bytes` bytes that ends on a char boundary.
pub(crate) fn prefix_at_char_boundary(text: &str, max_bytes: usize) -> &str {
    let mut end = max_bytes.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default()
}

/// Most bytes of a plan file shown in a reminder; a longer plan is cut at a line end and
/// marked (see docs/design/reminders.md, "Size limits").
pub(crate) const MAX_PLAN_FILE_BYTES: usize = MAX_FILE_CONTENT_SIZE;

/// Largest file read whole to show it or diff it; larger ones are named, not read.
pub(crate) const MAX_READ_BYTES: u64 = 8 * 1024 * 1024;

/// The start of a text file, read within a byte cap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CappedText {
    /// The text read (lossily decoded), cut at the last line end within the cap when the file
    /// is longer.
    pub text: String,
    /// The file's size in bytes.
    pub total_bytes: u64,
    /// Whether `text` is only the start of the file.
    pub truncated: bool,
}

/// Reads at most `cap` bytes of `path`. A longer file is cut at the last line end within the
/// cap (at the cap itself when its first line is longer), so no line is shown half.
pub(crate) fn read_capped(path: &std::path::Path, cap: usize) -> std::io::Result<CappedText> {
    use std::io::Read as _;
    let file = std::fs::File::open(path)?;
    let total_bytes = file.metadata()?.len();
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes)?;
    let truncated = bytes.len() > cap;
    if truncated {
        bytes.truncate(cap);
        if let Some(line_end) = bytes.iter().rposition(|byte| *byte == b'\n') {
            bytes.truncate(line_end);
        }
    }
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if truncated && text.ends_with('\u{FFFD}') {
        // A character split by the cap: drop its remains.
        text = text.trim_end_matches('\u{FFFD}').to_string();
    }
    Ok(CappedText {
        text,
        total_bytes,
        truncated,
    })
}

/// `text` with each line prefixed by its number, as the Read tool shows files
/// (`     1→first line`).
pub(crate) fn number_lines(text: &str, start_line: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for (index, line) in text.lines().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        let _ = write!(out, "{:>6}\u{2192}{line}", start_line.saturating_add(index));
    }
    out
}

#[cfg(test)]
#[path = "file_content_tests.rs"]
mod tests;
