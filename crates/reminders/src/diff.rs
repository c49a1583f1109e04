//! Unified diffs with line numbers, for the `changed_files` reminder.
//!
//! Each hunk starts with a `@@ -a,b +c,d @@` header; each line carries its old and new line
//! numbers (blank where the line does not exist on that side), then ` `, `-` or `+`:
//!
//! ```text
//! @@ -2,3 +2,3 @@
//!      2      2  b
//!      3        -c
//!             3 +C
//!      4      4  d
//! ```
//!
//! The diff is computed with `similar` (Myers) under a deadline, so a huge input degrades to a
//! coarser but still correct diff instead of stalling the turn.

use std::fmt::Write as _;
use std::time::Duration;
use std::time::Instant;

use similar::Algorithm;
use similar::ChangeTag;
use similar::TextDiff;

/// Context lines around each change.
pub const DEFAULT_CONTEXT_LINES: usize = 3;
/// Time allowed to compute one diff before `similar` falls back to a coarser result.
pub const DEFAULT_DIFF_DEADLINE: Duration = Duration::from_millis(200);

/// How to render a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiffOptions {
    /// Context lines around each change.
    pub context_lines: usize,
    /// Time allowed to compute the diff.
    pub deadline: Duration,
}

impl Default for DiffOptions {
    fn default() -> Self {
        Self {
            context_lines: DEFAULT_CONTEXT_LINES,
            deadline: DEFAULT_DIFF_DEADLINE,
        }
    }
}

/// The unified diff from `old` to `new` with line numbers; empty when they are equal.
pub fn unified_diff_with_line_numbers(old: &str, new: &str, options: DiffOptions) -> String {
    if old == new {
        return String::new();
    }
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .deadline(Instant::now() + options.deadline)
        .diff_lines(old, new);
    let mut out = String::new();
    for group in diff.grouped_ops(options.context_lines) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old_start = first.old_range().start;
        let old_len = last.old_range().end.saturating_sub(old_start);
        let new_start = first.new_range().start;
        let new_len = last.new_range().end.saturating_sub(new_start);
        let _ = writeln!(
            out,
            "@@ -{} +{} @@",
            hunk_range(old_start, old_len),
            hunk_range(new_start, new_len)
        );
        for op in &group {
            for change in diff.iter_changes(op) {
                let sign = match change.tag() {
                    ChangeTag::Equal => ' ',
                    ChangeTag::Delete => '-',
                    ChangeTag::Insert => '+',
                };
                let old_number = line_number(change.old_index());
                let new_number = line_number(change.new_index());
                let text = change.value().trim_end_matches(['\n', '\r']);
                let _ = writeln!(out, "{old_number:>6} {new_number:>6} {sign}{text}");
            }
        }
    }
    while out.ends_with('\n') {
        out.pop();
    }
    out
}

fn line_number(index: Option<usize>) -> String {
    index.map_or_else(String::new, |index| (index + 1).to_string())
}

fn hunk_range(start: usize, len: usize) -> String {
    // Unified diff convention: an empty range names the line before it.
    if len == 0 {
        format!("{start},0")
    } else {
        format!("{},{len}", start + 1)
    }
}

#[cfg(test)]
#[path = "diff_tests.rs"]
mod tests;
