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
//! The diff is computed with `similar`'s Myers over the two files' line slices (about 15x faster
//! than `TextDiff` on 2,000-line files) under a deadline, so a huge input degrades to a coarser
//! but still correct diff instead of stalling the turn. `imara-diff` was measured against it and
//! is slower here (its interning and slider post-processing cost more than Myers saves on a few
//! scattered edits) for an equally readable diff; see docs/design/performance.md, "changed_files
//! diff".

use std::fmt::Write as _;
use std::time::Duration;
use std::time::Instant;

use similar::Algorithm;
use similar::DiffOp;
use similar::capture_diff_slices_deadline;
use similar::group_diff_ops;

/// Context lines around each change.
pub(crate) const DEFAULT_CONTEXT_LINES: usize = 3;
/// Time allowed to compute one diff before `similar` falls back to a coarser result.
pub(crate) const DEFAULT_DIFF_DEADLINE: Duration = Duration::from_millis(200);

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
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let ops = capture_diff_slices_deadline(
        Algorithm::Myers,
        &old_lines,
        &new_lines,
        Some(Instant::now() + options.deadline),
    );
    render(&old_lines, &new_lines, ops, options.context_lines)
}

/// Renders diff operations over the two files' lines as hunks with line numbers.
pub(crate) fn render(
    old_lines: &[&str],
    new_lines: &[&str],
    ops: Vec<DiffOp>,
    context_lines: usize,
) -> String {
    let mut out = String::new();
    for group in group_diff_ops(ops, context_lines) {
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
            match *op {
                DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => {
                    for offset in 0..len {
                        let text = old_lines.get(old_index + offset).copied().unwrap_or("");
                        write_line(
                            &mut out,
                            Some(old_index + offset),
                            Some(new_index + offset),
                            ' ',
                            text,
                        );
                    }
                }
                DiffOp::Delete {
                    old_index, old_len, ..
                } => write_deleted(&mut out, old_lines, old_index, old_len),
                DiffOp::Insert {
                    new_index, new_len, ..
                } => write_inserted(&mut out, new_lines, new_index, new_len),
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => {
                    write_deleted(&mut out, old_lines, old_index, old_len);
                    write_inserted(&mut out, new_lines, new_index, new_len);
                }
            }
        }
    }
    while out.ends_with('\n') {
        out.pop();
    }
    out
}

fn write_deleted(out: &mut String, lines: &[&str], start: usize, len: usize) {
    for index in start..start + len {
        let text = lines.get(index).copied().unwrap_or("");
        write_line(out, Some(index), None, '-', text);
    }
}

fn write_inserted(out: &mut String, lines: &[&str], start: usize, len: usize) {
    for index in start..start + len {
        let text = lines.get(index).copied().unwrap_or("");
        write_line(out, None, Some(index), '+', text);
    }
}

/// One diff line: old and new line numbers (1-based, blank when absent), the sign, the text.
fn write_line(
    out: &mut String,
    old_index: Option<usize>,
    new_index: Option<usize>,
    sign: char,
    text: &str,
) {
    let _ = writeln!(
        out,
        "{:>6} {:>6} {sign}{text}",
        line_number(old_index),
        line_number(new_index)
    );
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
