//! Tool results kept on disk when micro-compaction clears them, and the texts that replace them
//! in the history (see docs/design/compaction.md, "Micro-compaction").

use std::path::Path;
use std::path::PathBuf;

/// The folder under the agentctx home that holds persisted tool results.
pub const TOOL_RESULTS_DIR: &str = "tool-results";

/// The text a cleared tool result is replaced with (the last line of the persisted marker too).
pub(crate) const CLEARED_TOOL_RESULT_TEXT: &str = "[Old tool result content cleared]";

/// The opening of the persisted marker.
const PERSISTED_OUTPUT_OPEN: &str = "<persisted-output path=\"";

/// The line of the persisted marker that tells the model how to get the result back: the file
/// reads with `read_file`, and `recall` finds it by a word of it.
pub(crate) const PERSISTED_OUTPUT_HINT: &str =
    "The full result is in that file: read_file it, or recall a word from it.";

/// The longest file stem kept from a call id; longer ids are cut and hashed.
const MAX_STEM_BYTES: usize = 96;

/// The file a cleared result of `call_id` is written to: `<home>/tool-results/<stem>.txt`
/// (the `recall` tool finds a session's persisted results by their call ids through it).
pub fn persisted_output_path(home: &Path, call_id: &str) -> PathBuf {
    home.join(TOOL_RESULTS_DIR)
        .join(format!("{}.txt", path_safe_stem(call_id)))
}

/// A file stem for `call_id` that cannot leave the folder: ASCII letters, digits, `_` and `-`
/// only, so no `/`, `\`, `..`, drive prefix or absolute path can come through. Ids that are
/// already safe (provider ids such as `toolu_01…` and `call_…` are) are used as they are; any
/// other id gets its unsafe characters replaced and a hash of the whole id appended, so two ids
/// that differ only in unsafe characters still get different files.
pub(crate) fn path_safe_stem(call_id: &str) -> String {
    let is_safe_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if !call_id.is_empty() && call_id.len() <= MAX_STEM_BYTES && call_id.chars().all(is_safe_char) {
        return call_id.to_string();
    }
    let cleaned: String = call_id
        .chars()
        .map(|c| if is_safe_char(c) { c } else { '_' })
        .take(MAX_STEM_BYTES)
        .collect();
    format!("{cleaned}-{:016x}", fnv1a_64(call_id.as_bytes()))
}

/// FNV-1a, 64 bits: stable across builds and platforms (std's hasher is not), which keeps file
/// names, and so the marker bytes, the same for the same id.
fn fnv1a_64(bytes: &[u8]) -> u64 {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes.iter().fold(OFFSET_BASIS, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(PRIME)
    })
}

/// The opening of the digest line of the persisted marker.
const DIGEST_OPEN: &str = "Digest: ";

/// The longest line kept in a digest, in characters; longer lines are cut with `…`.
const DIGEST_LINE_CHARS: usize = 120;

/// The one-line digest of a cleared result `text`: its line count and its first and last
/// non-blank lines (each cut to [`DIGEST_LINE_CHARS`]), which for a command's output are
/// usually its status and its verdict (`Exit code: 1` … `test result: FAILED. 3 passed; 1
/// failed`). One line whatever the text holds.
pub(crate) fn output_digest(text: &str) -> String {
    let lines = text.lines().count();
    let mut non_blank = text.lines().map(str::trim).filter(|line| !line.is_empty());
    let first = non_blank.next();
    let last = non_blank.next_back();
    let cut = |line: &str| {
        if line.chars().count() > DIGEST_LINE_CHARS {
            let kept: String = line.chars().take(DIGEST_LINE_CHARS).collect();
            format!("{kept}…")
        } else {
            line.to_string()
        }
    };
    let noun = if lines == 1 { "line" } else { "lines" };
    match (first, last) {
        (None, _) => format!("{DIGEST_OPEN}{lines} {noun}, blank."),
        (Some(first), None) => format!("{DIGEST_OPEN}{lines} {noun}; only: {}", cut(first)),
        (Some(first), Some(last)) => format!(
            "{DIGEST_OPEN}{lines} {noun}; first: {}; last: {}",
            cut(first),
            cut(last)
        ),
    }
}

/// The text that replaces a result persisted to `path`; `original_size` is the result's length
/// in bytes and `digest` its one-line digest ([`output_digest`]). The path is escaped as an XML
/// attribute value.
pub(crate) fn persisted_output_marker(path: &Path, original_size: usize, digest: &str) -> String {
    let path = escape_attribute(&path.display().to_string());
    format!(
        "{PERSISTED_OUTPUT_OPEN}{path}\" original_size=\"{original_size}\" />\n{digest}\n{PERSISTED_OUTPUT_HINT}\n{CLEARED_TOOL_RESULT_TEXT}"
    )
}

/// Whether `text` is already one of the replacement texts (so there is nothing left to clear).
/// Markers written before the digest line, or before the hint line, existed count too.
pub(crate) fn is_cleared_output(text: &str) -> bool {
    if text == CLEARED_TOOL_RESULT_TEXT {
        return true;
    }
    // The marker's first line is the whole tag: the path's newlines are escaped.
    text.split_once('\n').is_some_and(|(tag, rest)| {
        let rest = match rest.split_once('\n') {
            Some((digest, after)) if digest.starts_with(DIGEST_OPEN) => after,
            _ => rest,
        };
        let rest = rest
            .strip_prefix(PERSISTED_OUTPUT_HINT)
            .and_then(|rest| rest.strip_prefix('\n'))
            .unwrap_or(rest);
        tag.starts_with(PERSISTED_OUTPUT_OPEN)
            && tag.ends_with("\" />")
            && rest == CLEARED_TOOL_RESULT_TEXT
    })
}

/// Writes a result's text to `path` atomically (temp file in the same folder, fsync, rename,
/// fsync of the folder), so a reader never sees part of a file and a crash never leaves an empty
/// one behind a marker the model may follow.
///
/// The fsync costs about 2–10 ms a file. A session micro-compacts before every request, so the
/// results cleared at once are the few that just aged out; only a first micro-compaction of a
/// long history persists many at once (848 files in the benchmark's history, seconds; see
/// docs/reliability.md, "Atomic writes").
pub(crate) fn persist_output(path: &Path, text: &str) -> std::io::Result<()> {
    agentctx_atomic_file::write_atomically(path, text.as_bytes())
}

fn escape_attribute(value: &str) -> String {
    let mut escaped = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '"' => escaped.push_str("&quot;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '\n' => escaped.push_str("&#10;"),
            _ => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
#[path = "persisted_output_tests.rs"]
mod tests;
