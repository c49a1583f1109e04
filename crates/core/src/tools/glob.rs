//! `glob`: the files whose path matches a glob pattern, most recently modified first.
//!
//! As Claude Code's `Glob` tool: `*` stays within one path segment, `**` crosses any number,
//! `{a,b}` alternates; a pattern without `/` matches only the search directory's own entries
//! (`*.json`), `**/*.json` every depth; results sorted by modification time, newest first, and
//! capped at 100 with a marker (Claude Code's tool reference,
//! <https://code.claude.com/docs/en/tools-reference>). Matching is `globset`'s (ripgrep's
//! glob crate), the walk ripgrep's (see [`super::search_walk`]).

use std::path::PathBuf;
use std::time::SystemTime;

use agentctx_model::ToolSpec;
use async_trait::async_trait;
use globset::GlobBuilder;
use globset::GlobMatcher;
use serde::Deserialize;
use serde_json::json;

use super::ToolClass;
use super::ToolContext;
use super::ToolHandler;
use super::ToolOutput;
use super::parse_args;
use super::search_walk;

/// Paths returned when the model gives no limit.
pub(crate) const DEFAULT_GLOB_LIMIT: usize = 100;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    pattern: String,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    limit: Option<usize>,
}

/// Finds files by a glob pattern inside the working directory (read-only).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct GlobTool;

#[async_trait]
impl ToolHandler for GlobTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "glob".to_string(),
            description: "Finds files whose path matches a glob pattern (`**/*.rs`, `src/**/*.{ts,tsx}`, `*.toml` for the directory itself), most recently modified first. Paths are shown relative to the working directory; files ignored by .gitignore and hidden files are left out.".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "description": "Glob pattern, matched against paths relative to the search directory"},
                    "path": {"type": "string", "description": "Directory to search in, relative to the working directory (default: the working directory)"},
                    "limit": {"type": "integer", "minimum": 1, "description": "Paths to return (default 100)"}
                },
                "required": ["pattern"],
                "additionalProperties": false
            }),
        }
    }

    fn class(&self) -> Option<ToolClass> {
        Some(ToolClass::List)
    }

    fn parallel_safe(&self) -> bool {
        true
    }

    async fn handle(&self, ctx: &ToolContext, arguments: &str) -> ToolOutput {
        let args: Args = match parse_args("glob", arguments) {
            Ok(args) => args,
            Err(output) => return output,
        };
        let matcher = match glob_matcher(&args.pattern) {
            Ok(matcher) => matcher,
            Err(output) => return output,
        };
        let root = match search_walk::search_root(ctx, "glob", args.path.as_deref()) {
            Ok(root) => root,
            Err(output) => return output,
        };
        if !root.is_dir() {
            return ToolOutput::error(format!(
                "Error: glob: {} is not a directory",
                search_walk::display(&ctx.cwd, &root)
            ));
        }
        let limit = args.limit.unwrap_or(DEFAULT_GLOB_LIMIT).max(1);
        let cwd = ctx.cwd.clone();
        let cancel = ctx.cancel.clone();
        let pattern = args.pattern;
        search_walk::run_blocking("glob", move || {
            let mut found: Vec<(SystemTime, PathBuf)> = Vec::new();
            for entry in search_walk::walker(&root, None).flatten() {
                if cancel.is_cancelled() {
                    return ToolOutput::error("Error: glob: cancelled");
                }
                if !entry.file_type().is_some_and(|kind| kind.is_file()) {
                    continue;
                }
                let Ok(relative) = entry.path().strip_prefix(&root) else {
                    continue;
                };
                if matcher.is_match(relative) {
                    let modified = entry
                        .metadata()
                        .ok()
                        .and_then(|meta| meta.modified().ok())
                        .unwrap_or(SystemTime::UNIX_EPOCH);
                    found.push((modified, entry.into_path()));
                }
            }
            render(&cwd, &pattern, found, limit)
        })
        .await
    }
}

/// The matcher of `pattern`, or the tool error naming what is wrong with it.
fn glob_matcher(pattern: &str) -> Result<GlobMatcher, ToolOutput> {
    let pattern = pattern.trim().trim_start_matches("./");
    if pattern.is_empty() {
        return Err(ToolOutput::error("Error: glob: the pattern is empty"));
    }
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|err| ToolOutput::error(format!("Error: glob: invalid pattern: {err}")))
}

fn render(
    cwd: &std::path::Path,
    pattern: &str,
    mut found: Vec<(SystemTime, PathBuf)>,
    limit: usize,
) -> ToolOutput {
    if found.is_empty() {
        return ToolOutput::ok(format!("No files match {pattern}.\n"));
    }
    // Newest first; equal times in path order, so the listing is stable.
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let total = found.len();
    let mut out = String::new();
    for (_, path) in found.iter().take(limit) {
        out.push_str(&search_walk::display(cwd, path));
        out.push('\n');
    }
    if total > limit {
        out.push_str(&format!(
            "... {} more files not shown ({total} match); narrow the pattern or the path\n",
            total - limit
        ));
    }
    ToolOutput::ok(out)
}

#[cfg(test)]
#[path = "glob_tests.rs"]
mod tests;
