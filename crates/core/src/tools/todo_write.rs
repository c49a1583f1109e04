//! `todo_write`: replaces the session's todo list.

use agentctx_model::ToolSpec;
use agentctx_protocol::TodoItem;
use agentctx_protocol::TodoStatus;
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;

use super::ToolContext;
use super::ToolHandler;
use super::ToolOutput;
use super::parse_args;

#[derive(Deserialize)]
struct Args {
    todos: Vec<TodoItem>,
}

/// Sets the todo list (the whole list each time, as Claude Code's `TodoWrite`).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TodoWriteTool;

#[async_trait]
impl ToolHandler for TodoWriteTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "todo_write".to_string(),
            description: "Replaces the todo list of this task. Keep exactly one item in_progress while working; mark items completed as soon as they are done.".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "todos": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "content": {"type": "string"},
                                "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
                                "activeForm": {"type": "string"}
                            },
                            "required": ["content", "status", "activeForm"]
                        }
                    }
                },
                "required": ["todos"],
                "additionalProperties": false
            }),
        }
    }

    async fn handle(&self, ctx: &ToolContext, arguments: &str) -> ToolOutput {
        let args: Args = match parse_args("todo_write", arguments) {
            Ok(args) => args,
            Err(output) => return output,
        };
        let open = args
            .todos
            .iter()
            .filter(|todo| todo.status != TodoStatus::Completed)
            .count();
        let total = args.todos.len();
        let mut state = ctx.state();
        state.todos = args.todos;
        state.last_todo_write_turn = Some(ctx.turn);
        ToolOutput::ok(format!("Todo list updated: {total} items, {open} open."))
    }
}
