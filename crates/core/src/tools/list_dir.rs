//! `list_dir`: the entries of a directory, a few levels deep, as an indented tree.
//!
//! The shape follows codex's `list_dir` tool (codex-rs `core/src/tools/handlers/list_dir.rs`:
//! two spaces of indentation per level, `/` after directories, `@` after symlinks, entries in
//! name order, `offset`/`limit` paging, depth 2 by default), walked with ripgrep's walker so
//! ignored and hidden entries are left out (see [`super::search_walk`]).

use std::path::PathBuf;

use agentctx_model::ToolSpec;
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;

use super::ToolClass;
use super::ToolContext;
use super::ToolHandler;
use super::ToolOutput;
use super::parse_args;
use super::search_walk;

/// Levels listed when the model gives no depth.
pub(crate) const DEFAULT_LIST_DEPTH: usize = 2;
/// The deepest listing a call may ask for.
pub(crate) const MAX_LIST_DEPTH: usize = 8;
/// Entries returned when the model gives no limit.
pub(crate) const DEFAULT_LIST_LIMIT: usize = 200;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    depth: Option<usize>,
    /// 1-based first entry.
    #[serde(default)]
    offset: Option<usize>,
    #[serde(default)]
    limit: Option<usize>,
}

/// Lists a directory inside the working directory (read-only).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ListDirTool;

#[async_trait]
impl ToolHandler for ListDirTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "list_dir".to_string(),
            description: "Lists the files and directories under a directory of the working directory as an indented tree (directories end in /). Entries ignored by .gitignore and hidden entries are left out. Use depth to see deeper levels and offset/limit to page through large directories.".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Directory to list, relative to the working directory (default: the working directory)"},
                    "depth": {"type": "integer", "minimum": 1, "maximum": MAX_LIST_DEPTH, "description": "Levels to list (default 2)"},
                    "offset": {"type": "integer", "minimum": 1, "description": "First entry to return (1-based, default 1)"},
                    "limit": {"type": "integer", "minimum": 1, "description": "Entries to return (default 200)"}
                },
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
        let args: Args = match parse_args("list_dir", arguments) {
            Ok(args) => args,
            Err(output) => return output,
        };
        let root = match search_walk::search_root(ctx, "list_dir", args.path.as_deref()) {
            Ok(root) => root,
            Err(output) => return output,
        };
        if !root.is_dir() {
            return ToolOutput::error(format!(
                "Error: list_dir: {} is not a directory",
                search_walk::display(&ctx.cwd, &root)
            ));
        }
        let depth = args.depth.unwrap_or(DEFAULT_LIST_DEPTH);
        if depth == 0 || depth > MAX_LIST_DEPTH {
            return ToolOutput::error(format!(
                "Error: list_dir: depth must be between 1 and {MAX_LIST_DEPTH}"
            ));
        }
        let offset = args.offset.unwrap_or(1);
        let limit = args.limit.unwrap_or(DEFAULT_LIST_LIMIT);
        if offset == 0 || limit == 0 {
            return ToolOutput::error("Error: list_dir: offset and limit start at 1");
        }
        let cwd = ctx.cwd.clone();
        search_walk::run_blocking("list_dir", move || list(&cwd, root, depth, offset, limit)).await
    }
}

fn list(
    cwd: &std::path::Path,
    root: PathBuf,
    depth: usize,
    offset: usize,
    limit: usize,
) -> ToolOutput {
    let mut lines = Vec::new();
    let mut unreadable = 0usize;
    for entry in search_walk::walker(&root, Some(depth)) {
        let entry = match entry {
            Ok(entry) => entry,
            Err(_) => {
                unreadable += 1;
                continue;
            }
        };
        if entry.depth() == 0 {
            continue;
        }
        let name = search_walk::cut_line(&entry.file_name().to_string_lossy());
        let suffix = match entry.file_type() {
            Some(kind) if kind.is_symlink() => "@",
            Some(kind) if kind.is_dir() => "/",
            Some(kind) if kind.is_file() => "",
            _ => "?",
        };
        let indent = "  ".repeat(entry.depth() - 1);
        lines.push(format!("{indent}{name}{suffix}"));
    }
    let total = lines.len();
    let mut out = format!("{}/\n", search_walk::display(cwd, &root));
    if total == 0 {
        out.push_str("(empty, or every entry is ignored)\n");
        return ToolOutput::ok(out);
    }
    if offset > total {
        return ToolOutput::error(format!(
            "Error: list_dir: offset {offset} is past the last entry ({total})"
        ));
    }
    let end = (offset - 1 + limit).min(total);
    for line in &lines[offset - 1..end] {
        out.push_str(line);
        out.push('\n');
    }
    if end < total {
        out.push_str(&format!(
            "... {} more entries; list on with offset {}, or list a subdirectory\n",
            total - end,
            end + 1
        ));
    }
    if unreadable > 0 {
        out.push_str(&format!("({unreadable} entries could not be read)\n"));
    }
    ToolOutput::ok(out)
}

#[cfg(test)]
#[path = "list_dir_tests.rs"]
mod tests;
