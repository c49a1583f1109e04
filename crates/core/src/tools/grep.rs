//! `grep`: searches file contents for a regular expression, with ripgrep's own crates
//! (`grep-regex` for the matcher, `grep-searcher` for the search: binary files skipped, lines
//! numbered) over ripgrep's walker (see [`super::search_walk`]).
//!
//! The arguments and output modes follow Claude Code's `Grep` tool (`files_with_matches`, the
//! default, most recently modified first; `content`, matching lines with optional context;
//! `count`), so a model trained on it uses ours as it is: Claude Code's tool reference,
//! <https://code.claude.com/docs/en/tools-reference>. Results are capped; a marker says how
//! many were left out and how to narrow the search.

use std::path::Path;
use std::path::PathBuf;
use std::time::SystemTime;

use agentctx_model::ToolSpec;
use async_trait::async_trait;
use globset::GlobBuilder;
use globset::GlobMatcher;
use grep_regex::RegexMatcher;
use grep_regex::RegexMatcherBuilder;
use grep_searcher::BinaryDetection;
use grep_searcher::Searcher;
use grep_searcher::SearcherBuilder;
use grep_searcher::Sink;
use grep_searcher::SinkContext;
use grep_searcher::SinkContextKind;
use grep_searcher::SinkMatch;
use serde::Deserialize;
use serde_json::json;

use super::ToolClass;
use super::ToolContext;
use super::ToolHandler;
use super::ToolOutput;
use super::parse_args;
use super::search_walk;

/// Output lines (`content`) or files (`files_with_matches`, `count`) returned when the model
/// gives no limit.
pub(crate) const DEFAULT_GREP_LIMIT: usize = 100;
/// The most context lines before and after a match.
pub(crate) const MAX_GREP_CONTEXT: usize = 10;

/// What the search returns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum OutputMode {
    #[default]
    FilesWithMatches,
    Content,
    Count,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    pattern: String,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    glob: Option<String>,
    #[serde(default)]
    output_mode: OutputMode,
    #[serde(default)]
    case_insensitive: bool,
    #[serde(default)]
    context: Option<usize>,
    #[serde(default)]
    limit: Option<usize>,
}

/// Searches file contents inside the working directory (read-only).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct GrepTool;

#[async_trait]
impl ToolHandler for GrepTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "grep".to_string(),
            description: "Searches file contents with a regular expression (ripgrep syntax: escape literal braces and dots). output_mode: \"files_with_matches\" (default) lists the files that match, newest first; \"content\" shows the matching lines as path:line:text, with `context` lines around them; \"count\" gives matches per file. Filter files with `glob` (e.g. \"*.rs\", \"src/**/*.ts\"). Files ignored by .gitignore, hidden files and binary files are skipped.".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "description": "Regular expression to search for"},
                    "path": {"type": "string", "description": "File or directory to search, relative to the working directory (default: the working directory)"},
                    "glob": {"type": "string", "description": "Only search files whose path matches this glob; without a / it matches the file name"},
                    "output_mode": {"type": "string", "enum": ["files_with_matches", "content", "count"], "description": "What to return (default files_with_matches)"},
                    "case_insensitive": {"type": "boolean", "description": "Ignore case (default false)"},
                    "context": {"type": "integer", "minimum": 0, "maximum": MAX_GREP_CONTEXT, "description": "Lines of context before and after each match (content mode)"},
                    "limit": {"type": "integer", "minimum": 1, "description": "Lines (content) or files to return (default 100)"}
                },
                "required": ["pattern"],
                "additionalProperties": false
            }),
        }
    }

    fn class(&self) -> Option<ToolClass> {
        Some(ToolClass::Search)
    }

    fn parallel_safe(&self) -> bool {
        true
    }

    async fn handle(&self, ctx: &ToolContext, arguments: &str) -> ToolOutput {
        let args: Args = match parse_args("grep", arguments) {
            Ok(args) => args,
            Err(output) => return output,
        };
        let matcher = match RegexMatcherBuilder::new()
            .case_insensitive(args.case_insensitive)
            .build(&args.pattern)
        {
            Ok(matcher) => matcher,
            Err(err) => {
                return ToolOutput::error(format!("Error: grep: invalid pattern: {err}"));
            }
        };
        let filter = match args.glob.as_deref().map(file_filter).transpose() {
            Ok(filter) => filter,
            Err(output) => return output,
        };
        let root = match search_walk::search_root(ctx, "grep", args.path.as_deref()) {
            Ok(root) => root,
            Err(output) => return output,
        };
        let context = args.context.unwrap_or(0);
        if context > MAX_GREP_CONTEXT {
            return ToolOutput::error(format!(
                "Error: grep: context is at most {MAX_GREP_CONTEXT} lines"
            ));
        }
        let search = Search {
            cwd: ctx.cwd.clone(),
            root,
            matcher,
            filter,
            mode: args.output_mode,
            context,
            limit: args.limit.unwrap_or(DEFAULT_GREP_LIMIT).max(1),
            pattern: args.pattern,
        };
        let cancel = ctx.cancel.clone();
        search_walk::run_blocking("grep", move || search.run(&cancel)).await
    }
}

/// A `glob` argument: a pattern without `/` matches the file name, as ripgrep's `-g` does for
/// such patterns; one with `/` the path relative to the search root.
struct FileFilter {
    matcher: GlobMatcher,
    by_name: bool,
}

fn file_filter(glob: &str) -> Result<FileFilter, ToolOutput> {
    let glob = glob.trim().trim_start_matches("./");
    let by_name = !glob.contains('/');
    GlobBuilder::new(glob)
        .literal_separator(!by_name)
        .build()
        .map(|built| FileFilter {
            matcher: built.compile_matcher(),
            by_name,
        })
        .map_err(|err| ToolOutput::error(format!("Error: grep: invalid glob: {err}")))
}

struct Search {
    cwd: PathBuf,
    root: PathBuf,
    matcher: RegexMatcher,
    filter: Option<FileFilter>,
    mode: OutputMode,
    context: usize,
    limit: usize,
    pattern: String,
}

/// What one file gave.
struct FileResult {
    path: PathBuf,
    modified: SystemTime,
    /// Matching lines.
    matches: u64,
    /// Output lines of content mode (`path:line:text`, context as `path-line-text`, `--`
    /// between groups that are not adjacent).
    lines: Vec<String>,
}

impl Search {
    fn run(&self, cancel: &tokio_util::sync::CancellationToken) -> ToolOutput {
        let mut searcher = SearcherBuilder::new()
            .line_number(true)
            .binary_detection(BinaryDetection::quit(0))
            .before_context(self.context)
            .after_context(self.context)
            .build();
        let mut results = Vec::new();
        let mut unreadable = 0usize;
        for entry in search_walk::walker(&self.root, None) {
            if cancel.is_cancelled() {
                return ToolOutput::error("Error: grep: cancelled");
            }
            let Ok(entry) = entry else {
                unreadable += 1;
                continue;
            };
            if !entry.file_type().is_some_and(|kind| kind.is_file()) || !self.wanted(entry.path()) {
                continue;
            }
            match self.search_file(&mut searcher, entry.path()) {
                Ok(Some(result)) => results.push(result),
                Ok(None) => {}
                Err(_) => unreadable += 1,
            }
        }
        self.render(results, unreadable)
    }

    fn wanted(&self, path: &Path) -> bool {
        let Some(filter) = &self.filter else {
            return true;
        };
        if filter.by_name {
            path.file_name()
                .is_some_and(|name| filter.matcher.is_match(name))
        } else {
            path.strip_prefix(&self.root)
                .is_ok_and(|relative| filter.matcher.is_match(relative))
        }
    }

    fn search_file(
        &self,
        searcher: &mut Searcher,
        path: &Path,
    ) -> Result<Option<FileResult>, std::io::Error> {
        let shown = search_walk::display(&self.cwd, path);
        let mut sink = CollectSink {
            shown: &shown,
            keep_lines: self.mode == OutputMode::Content,
            stop_at_first: self.mode == OutputMode::FilesWithMatches,
            matches: 0,
            lines: Vec::new(),
            last_line: None,
        };
        searcher.search_path(&self.matcher, path, &mut sink)?;
        if sink.matches == 0 {
            return Ok(None);
        }
        let modified = std::fs::metadata(path)
            .and_then(|meta| meta.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        Ok(Some(FileResult {
            path: path.to_path_buf(),
            modified,
            matches: sink.matches,
            lines: sink.lines,
        }))
    }

    fn render(&self, mut results: Vec<FileResult>, unreadable: usize) -> ToolOutput {
        let mut out = String::new();
        if results.is_empty() {
            let place = match search_walk::display(&self.cwd, &self.root) {
                dot if dot == "." => "the working directory".to_string(),
                place => place,
            };
            out.push_str(&format!("No matches for {} in {place}.\n", self.pattern));
        } else {
            match self.mode {
                OutputMode::FilesWithMatches => {
                    results.sort_by(|a, b| {
                        b.modified
                            .cmp(&a.modified)
                            .then_with(|| a.path.cmp(&b.path))
                    });
                    let total = results.len();
                    for result in results.iter().take(self.limit) {
                        out.push_str(&search_walk::display(&self.cwd, &result.path));
                        out.push('\n');
                    }
                    if total > self.limit {
                        out.push_str(&format!(
                            "... {} more files not shown ({total} match); narrow the pattern, path or glob\n",
                            total - self.limit
                        ));
                    }
                }
                OutputMode::Count => {
                    let total = results.len();
                    for result in results.iter().take(self.limit) {
                        out.push_str(&format!(
                            "{}:{}\n",
                            search_walk::display(&self.cwd, &result.path),
                            result.matches
                        ));
                    }
                    if total > self.limit {
                        out.push_str(&format!(
                            "... {} more files not shown ({total} match); narrow the pattern, path or glob\n",
                            total - self.limit
                        ));
                    }
                }
                OutputMode::Content => {
                    let lines: Vec<&String> =
                        results.iter().flat_map(|result| &result.lines).collect();
                    let total = lines.len();
                    for line in lines.iter().take(self.limit) {
                        out.push_str(line);
                        out.push('\n');
                    }
                    if total > self.limit {
                        let matches: u64 = results.iter().map(|result| result.matches).sum();
                        out.push_str(&format!(
                            "... {} more lines not shown ({matches} matching lines in {} files); narrow the pattern, path or glob, or page with a larger limit\n",
                            total - self.limit,
                            results.len()
                        ));
                    }
                }
            }
        }
        if unreadable > 0 {
            out.push_str(&format!("({unreadable} files could not be read)\n"));
        }
        ToolOutput::ok(out)
    }
}

/// Collects one file's matches (and context lines, for content mode).
struct CollectSink<'a> {
    shown: &'a str,
    keep_lines: bool,
    stop_at_first: bool,
    matches: u64,
    lines: Vec<String>,
    /// The last line number written, to put `--` between groups that are not adjacent.
    last_line: Option<u64>,
}

impl CollectSink<'_> {
    fn push(&mut self, line_number: Option<u64>, separator: char, bytes: &[u8]) {
        let number = line_number.unwrap_or(0);
        if let Some(last) = self.last_line
            && number > last + 1
        {
            self.lines.push("--".to_string());
        }
        self.last_line = Some(number);
        let text = String::from_utf8_lossy(bytes);
        let text = text.trim_end_matches(['\n', '\r']);
        self.lines.push(format!(
            "{}{separator}{number}{separator}{}",
            self.shown,
            search_walk::cut_line(text)
        ));
    }
}

impl Sink for CollectSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        self.matches += 1;
        if self.keep_lines {
            self.push(mat.line_number(), ':', mat.bytes());
        }
        Ok(!self.stop_at_first)
    }

    fn context(
        &mut self,
        _searcher: &Searcher,
        context: &SinkContext<'_>,
    ) -> Result<bool, Self::Error> {
        if self.keep_lines
            && matches!(
                context.kind(),
                SinkContextKind::Before | SinkContextKind::After
            )
        {
            self.push(context.line_number(), '-', context.bytes());
        }
        Ok(true)
    }
}

#[cfg(test)]
#[path = "grep_tests.rs"]
mod tests;
