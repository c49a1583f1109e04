//! `write_file`: writes a whole file, after approval.

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
    content: String,
}

/// Creates or overwrites a file inside the working directory (or the plan file).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct WriteFileTool;

#[async_trait]
impl ToolHandler for WriteFileTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "write_file".to_string(),
            description:
                "Creates or overwrites a file in the working directory with the given content."
                    .to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File path, relative to the working directory or absolute inside it"},
                    "content": {"type": "string", "description": "The whole new content"}
                },
                "required": ["path", "content"],
                "additionalProperties": false
            }),
        }
    }

    fn class(&self) -> Option<ToolClass> {
        Some(ToolClass::Write)
    }

    async fn handle(&self, ctx: &ToolContext, arguments: &str) -> ToolOutput {
        let args: Args = match parse_args("write_file", arguments) {
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
        let request = ApprovalRequest::Write {
            path: path.clone(),
            tool: "write_file".to_string(),
        };
        if ctx.approve(&request).await == ApprovalDecision::Denied {
            return ToolOutput::error(format!(
                "Error: the user did not approve writing {}",
                args.path
            ));
        }
        if let Err(err) = write_atomic(&path, args.content.as_bytes()) {
            return ToolOutput::error(format!("Error: cannot write {}: {err}", args.path));
        }
        ctx.notify_write(&path, &args.content);
        ToolOutput::ok(format!(
            "Wrote {} bytes to {}",
            args.content.len(),
            args.path
        ))
    }
}
