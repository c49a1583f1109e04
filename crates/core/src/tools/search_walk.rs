//! The file walk the read-only search tools share (`grep`, `glob`, `list_dir`): ripgrep's own
//! walker (`ignore`), so a search sees what `rg` would: `.gitignore`, `.ignore` and
//! `.git/info/exclude` rules are honoured (also outside a git repository, as a user who keeps a
//! `.gitignore` expects), hidden files and directories are skipped, symlinks are not followed.

use std::path::Path;
use std::path::PathBuf;

use ignore::WalkBuilder;

use super::ToolContext;
use super::ToolOutput;

/// Characters of one result line (a matching line, a path) shown before it is cut.
pub(crate) const MAX_RESULT_LINE_CHARS: usize = 500;

/// The walker over `root`, with the rules above; `max_depth` limits how deep it goes (`Some(1)`:
/// the directory's own entries).
pub(crate) fn walker(root: &Path, max_depth: Option<usize>) -> ignore::Walk {
    WalkBuilder::new(root)
        .hidden(true)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(true)
        .ignore(true)
        .parents(true)
        .require_git(false)
        .follow_links(false)
        .max_depth(max_depth)
        .sort_by_file_name(std::ffi::OsStr::cmp)
        .build()
}

/// Resolves the tool's `path` argument (default: the working directory) to an existing
/// directory or file inside the working directory or one of the session's readable folders
/// ([`ToolContext::readable_dirs`]), or the tool error to return.
pub(crate) fn search_root(
    ctx: &ToolContext,
    tool: &str,
    path: Option<&str>,
) -> Result<PathBuf, ToolOutput> {
    let raw = path.filter(|path| !path.trim().is_empty()).unwrap_or(".");
    let root = ctx.resolve_readable_path(raw)?;
    if !root.exists() {
        return Err(ToolOutput::error(format!(
            "Error: {tool}: {raw} does not exist in the working directory"
        )));
    }
    Ok(root)
}

/// `path` as the model should read it: relative to the working directory when inside it.
pub(crate) fn display(cwd: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(cwd).unwrap_or(path);
    let text = relative.to_string_lossy();
    if text.is_empty() {
        ".".to_string()
    } else {
        cut_line(&text)
    }
}

/// `line` cut to [`MAX_RESULT_LINE_CHARS`] characters, with a marker saying so.
pub(crate) fn cut_line(line: &str) -> String {
    match line.char_indices().nth(MAX_RESULT_LINE_CHARS) {
        None => line.to_string(),
        Some((end, _)) => format!("{}… [line cut]", &line[..end]),
    }
}

/// Runs the blocking search `work` off the async runtime; a search that could not run (the
/// runtime shutting down) is a tool error, not a panic.
pub(crate) async fn run_blocking<F>(tool: &'static str, work: F) -> ToolOutput
where
    F: FnOnce() -> ToolOutput + Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(output) => output,
        Err(err) => ToolOutput::error(format!("Error: {tool} did not finish: {err}")),
    }
}
