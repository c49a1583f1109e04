//! `edit_file`: replaces one exact, unique occurrence of a string.

use agentctx_model::ToolSpec;
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;

use super::ToolClass;
use super::ToolContext;
use super::ToolHandler;
use super::ToolOutput;
use super::parse_args;
use crate::approval::ApprovalDecision;
use crate::approval::ApprovalRequest;
use agentctx_atomic_file::write_atomically as write_atomic;

#[derive(Deserialize)]
struct Args {
    path: String,
    old_string: String,
    new_string: String,
}

/// Edits a file by exact string replacement; the old string must occur exactly once.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct EditFileTool;

#[async_trait]
impl ToolHandler for EditFileTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "edit_file".to_string(),
            description: "Replaces old_string with new_string in a file. old_string must match the file exactly (whitespace included) and occur exactly once; include surrounding lines to make it unique.".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File path, relative to the working directory or absolute inside it"},
                    "old_string": {"type": "string", "description": "The exact text to replace"},
                    "new_string": {"type": "string", "description": "The replacement"}
                },
                "required": ["path", "old_string", "new_string"],
                "additionalProperties": false
            }),
        }
    }

    fn class(&self) -> Option<ToolClass> {
        Some(ToolClass::Edit)
    }

    async fn handle(&self, ctx: &ToolContext, arguments: &str) -> ToolOutput {
        let args: Args = match parse_args("edit_file", arguments) {
            Ok(args) => args,
            Err(output) => return output,
        };
        let path = match ctx.resolve_path(&args.path) {
            Ok(path) => path,
            Err(output) => return output,
        };
        if let Some(refusal) = ctx.plan_mode_refusal(&path) {
            return refusal;
        }
        if args.old_string.is_empty() {
            return ToolOutput::error(
                "Error: old_string is empty; use write_file to create a file",
            );
        }
        if args.old_string == args.new_string {
            return ToolOutput::error("Error: old_string and new_string are the same");
        }
        let content = match tokio::fs::read_to_string(&path).await {
            Ok(content) => content,
            Err(err) => {
                return ToolOutput::error(format!("Error: cannot read {}: {err}", args.path));
            }
        };
        match content.matches(args.old_string.as_str()).count() {
            0 => {
                return ToolOutput::error(format!(
                    "Error: old_string was not found in {}; read the file and copy the text exactly",
                    args.path
                ));
            }
            1 => {}
            n => {
                return ToolOutput::error(format!(
                    "Error: old_string occurs {n} times in {}; include more surrounding text so it matches once",
                    args.path
                ));
            }
        }
        let request = ApprovalRequest::Write {
            path: path.clone(),
            tool: "edit_file".to_string(),
        };
        if ctx.approve(&request).await == ApprovalDecision::Denied {
            return ToolOutput::error(format!(
                "Error: the user did not approve editing {}",
                args.path
            ));
        }
        let updated = content.replacen(args.old_string.as_str(), &args.new_string, 1);
        if let Err(err) = write_atomic(&path, updated.as_bytes()) {
            return ToolOutput::error(format!("Error: cannot write {}: {err}", args.path));
        }
        ctx.notify_write(&path, &updated);
        ToolOutput::ok(format!("Edited {}", args.path))
    }
}
