//! The hooks around every tool call (a [`ToolCallInterceptor`] on the registry): `PreToolUse`
//! before it, `PostToolUse` after a call that succeeded and `PostToolUseFailure` after one
//! that failed, and for `todo_write` (Claude Code's `TodoWrite`) `TaskCreated` for each new
//! item and `TaskCompleted` for each item it marks completed, before the list changes: a block
//! refuses the whole call, as Claude Code rolls the task back, with the reason for the model.

use std::sync::Arc;

use agentctx_protocol::TodoItem;
use agentctx_protocol::TodoStatus;
use async_trait::async_trait;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use super::runner::HookRunner;
use super::settings::HookEvent;
use crate::hooks_ext::claude_tool_name;
use crate::tools::ToolCallInterceptor;
use crate::tools::ToolContext;
use crate::tools::ToolOutput;

/// The tool hooks of a session (or of a subagent running a skill).
pub(crate) struct ToolHooks(pub(crate) Arc<HookRunner>);

/// The tool's input as hooks see it: the call's arguments, with `file_path` for `path` as
/// Claude Code's file tools name it.
pub(crate) fn tool_input(arguments: &str) -> Value {
    let mut input: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut input
        && !map.contains_key("file_path")
        && let Some(path) = map.get("path").cloned()
    {
        map.insert("file_path".to_string(), path);
    }
    input
}

/// `permission_mode` as Claude Code names it: `plan` in plan mode, else `default`.
pub(crate) fn permission_mode(ctx: &ToolContext) -> &'static str {
    if ctx.state().plan.active {
        "plan"
    } else {
        "default"
    }
}

pub(crate) fn tool_fields(ctx: &ToolContext, name: &str, arguments: &str) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert("permission_mode".into(), json!(permission_mode(ctx)));
    fields.insert(
        "tool_name".into(),
        json!(claude_tool_name(name).unwrap_or(name)),
    );
    fields.insert("agentctx_tool_name".into(), json!(name));
    fields.insert("tool_input".into(), tool_input(arguments));
    fields
}

/// The subjects a tool matcher is tried on: our name and Claude Code's.
fn subjects(name: &str) -> Vec<&str> {
    std::iter::once(name)
        .chain(claude_tool_name(name))
        .collect()
}

/// The arguments of a `task` call that starts a background agent: its description (or the
/// start of its prompt, as the tool names it) and its prompt; `None` for a foreground call.
fn background_task(arguments: &str) -> Option<(String, String)> {
    let args: Value = serde_json::from_str(arguments).ok()?;
    if args.get("run_in_background").and_then(Value::as_bool) != Some(true) {
        return None;
    }
    let prompt = args
        .get("prompt")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let subject = args
        .get("description")
        .and_then(Value::as_str)
        .map_or_else(|| prompt.chars().take(60).collect(), str::to_owned);
    Some((subject, prompt))
}

/// The agent id a background `task` call's output names (`… in the background as agent_3. …`).
fn started_agent_id(output: &str) -> Option<&str> {
    let rest = output.split_once(" in the background as ")?.1;
    rest.split_once('.').map(|(id, _)| id)
}

impl ToolHooks {
    /// `TaskCreated` / `TaskCompleted` for what `todo_write` with `arguments` changes; the
    /// first block's event and reason.
    async fn todo_blocked(
        &self,
        ctx: &ToolContext,
        arguments: &str,
    ) -> Option<(HookEvent, String)> {
        #[derive(serde::Deserialize)]
        struct Args {
            todos: Vec<TodoItem>,
        }
        let args: Args = serde_json::from_str(arguments).ok()?;
        let before = ctx.state().todos.clone();
        let mode = permission_mode(ctx);
        for (index, todo) in args.todos.iter().enumerate() {
            let previous = before.iter().find(|old| old.content == todo.content);
            let fields = |_: ()| {
                json!({
                    "permission_mode": mode,
                    "task_id": format!("todo-{}", index + 1),
                    "task_subject": todo.content,
                    "task_description": todo.active_form,
                })
            };
            let mut events = Vec::new();
            if previous.is_none() {
                events.push(HookEvent::TaskCreated);
            }
            if todo.status == TodoStatus::Completed
                && previous.is_none_or(|old| old.status != TodoStatus::Completed)
            {
                events.push(HookEvent::TaskCompleted);
            }
            for event in events {
                let result = self.0.run_event(event, fields(())).await;
                if let Some(reason) = result.block {
                    return Some((event, reason));
                }
            }
        }
        None
    }
}

#[async_trait]
impl ToolCallInterceptor for ToolHooks {
    async fn before_call(
        &self,
        ctx: &ToolContext,
        name: &str,
        arguments: &str,
    ) -> Option<ToolOutput> {
        if self.0.is_idle() {
            return None;
        }
        let result = self
            .0
            .run(
                HookEvent::PreToolUse,
                &subjects(name),
                &format!("PreToolUse:{name}"),
                Value::Object(tool_fields(ctx, name, arguments)),
            )
            .await;
        if let Some(reason) = result.block {
            return Some(ToolOutput::error(format!(
                "Error: a PreToolUse hook blocked this call: {reason}"
            )));
        }
        // A background agent is a task of the session: `TaskCreated` may refuse it.
        if name == "task"
            && let Some((subject, prompt)) = background_task(arguments)
        {
            let fields = json!({
                "permission_mode": permission_mode(ctx),
                "task_id": format!("agent_{}", ctx.state().agents_started + 1),
                "task_subject": subject,
                "task_description": prompt,
            });
            let result = self.0.run_event(HookEvent::TaskCreated, fields).await;
            if let Some(reason) = result.block {
                return Some(ToolOutput::error(format!(
                    "Error: a TaskCreated hook blocked this call: {reason}"
                )));
            }
        }
        if name == "todo_write"
            && let Some((event, reason)) = self.todo_blocked(ctx, arguments).await
        {
            return Some(ToolOutput::error(format!(
                "Error: a {} hook blocked this call: {reason}",
                event.as_str()
            )));
        }
        None
    }

    async fn after_call(
        &self,
        ctx: &ToolContext,
        name: &str,
        arguments: &str,
        output: &ToolOutput,
    ) {
        if self.0.is_idle() {
            return;
        }
        // A background agent's end is `TaskCompleted`, whenever it comes; nothing can undo it,
        // so a block is only logged.
        if name == "task"
            && output.success
            && let Some((subject, prompt)) = background_task(arguments)
            && let Some(id) = started_agent_id(&output.text)
        {
            let waiter = ctx
                .state()
                .agents
                .get(id)
                .map(crate::background_agents::BackgroundAgent::waiter);
            if let Some(waiter) = waiter {
                let (runner, id, mode) = (Arc::clone(&self.0), id.to_owned(), permission_mode(ctx));
                tokio::spawn(async move {
                    let run = waiter.wait(crate::background_agents::NO_LIMIT).await;
                    // Stopped with the session, or gone without a report: not completed.
                    if !matches!(run, crate::background_agents::AgentRun::Completed(_)) {
                        return;
                    }
                    let fields = json!({
                        "permission_mode": mode,
                        "task_id": id,
                        "task_subject": subject,
                        "task_description": prompt,
                        "agentctx_status": run.as_str(),
                    });
                    let result = runner.run_event(HookEvent::TaskCompleted, fields).await;
                    if let Some(reason) = result.block {
                        tracing::info!(%id, "a TaskCompleted hook objected to a finished background agent: {reason}");
                    }
                });
            }
        }
        let mut fields = tool_fields(ctx, name, arguments);
        let event = if output.success {
            fields.insert(
                "tool_response".into(),
                json!({ "output": output.text, "success": true }),
            );
            HookEvent::PostToolUse
        } else {
            fields.insert("error".into(), json!(output.text));
            fields.insert("is_interrupt".into(), json!(ctx.cancel.is_cancelled()));
            HookEvent::PostToolUseFailure
        };
        self.0
            .run(
                event,
                &subjects(name),
                &format!("{}:{name}", event.as_str()),
                Value::Object(fields),
            )
            .await;
    }
}
