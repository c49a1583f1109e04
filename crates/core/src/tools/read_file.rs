//! `read_file`: a file's lines, numbered, from `offset` for `limit` lines.

use agentctx_model::ToolSpec;
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;

use super::ToolClass;
use super::ToolContext;
use super::ToolHandler;
use super::ToolOutput;
use super::parse_args;

/// Lines returned when the model gives no limit.
pub(crate) const DEFAULT_READ_LIMIT: usize = 2000;
/// Characters of one line shown before it is cut.
pub(crate) const MAX_LINE_CHARS: usize = 2000;

#[derive(Deserialize)]
struct Args {
    path: String,
    /// 1-based first line.
    #[serde(default)]
    offset: Option<usize>,
    #[serde(default)]
    limit: Option<usize>,
}

/// Reads a text file inside the working directory.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ReadFileTool;

#[async_trait]
impl ToolHandler for ReadFileTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "read_file".to_string(),
            description: "Reads a text file in the working directory and returns its lines numbered from 1. Use offset (1-based line) and limit for large files.".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File path, relative to the working directory or absolute inside it"},
                    "offset": {"type": "integer", "minimum": 1, "description": "First line to read (1-based)"},
                    "limit": {"type": "integer", "minimum": 1, "description": "Number of lines to read (default 2000)"}
                },
                "required": ["path"],
                "additionalProperties": false
            }),
        }
    }

    fn class(&self) -> Option<ToolClass> {
        Some(ToolClass::Read)
    }

    fn parallel_safe(&self) -> bool {
        true
    }

    async fn handle(&self, ctx: &ToolContext, arguments: &str) -> ToolOutput {
        let args: Args = match parse_args("read_file", arguments) {
            Ok(args) => args,
            Err(output) => return output,
        };
        let path = match ctx.resolve_readable_path(&args.path) {
            Ok(path) => path,
            Err(output) => return output,
        };
        let content = match tokio::fs::read(&path).await {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(err) => {
                return ToolOutput::error(format!("Error: cannot read {}: {err}", args.path));
            }
        };
        ctx.notify_read(&path, &content, args.offset, args.limit);
        if content.is_empty() {
            return ToolOutput::ok(format!("{} is empty.", args.path));
        }
        let start = args.offset.unwrap_or(1).max(1);
        let limit = args.limit.unwrap_or(DEFAULT_READ_LIMIT).max(1);
        let total = content.lines().count();
        if start > total {
            return ToolOutput::error(format!(
                "Error: offset {start} is past the end of {} ({total} lines)",
                args.path
            ));
        }
        let mut out = String::new();
        for (index, line) in content.lines().enumerate().skip(start - 1).take(limit) {
            let shown: String = line.chars().take(MAX_LINE_CHARS).collect();
            out.push_str(&format!("{:>6}\t{shown}\n", index + 1));
        }
        let last = (start - 1 + limit).min(total);
        if last < total {
            out.push_str(&format!(
                "... {} more lines; read on with offset {}\n",
                total - last,
                last + 1
            ));
        }
        ToolOutput::ok(out)
    }
}
