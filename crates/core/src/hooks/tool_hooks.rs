//! The hooks around every tool call (a [`ToolCallInterceptor`] on the registry): `PreToolUse`
//! before it, `PostToolUse` after a call that succeeded and `PostToolUseFailure` after one
//! that failed, and for `todo_write` (Claude Code's `TodoWrite`) `TaskCreated` for each new
//! item and `TaskCompleted` for each item it marks completed, before the list changes: a block
//! refuses the whole call, as Claude Code rolls the task back, with the reason for the model.
//!
//! `PreToolUse`'s decision control is applied here: `updatedInput` replaces the call's input,
//! `allow` approves the call (its approval request is not asked), `ask` asks the user with the
//! input the call will run with, `deny` refuses; `defer` is ignored with a warning, as Claude
//! Code ignores it outside `claude -p`. `PostToolUse`'s `updatedToolOutput` (every tool) and
//! `updatedMCPToolOutput` (MCP tools) replace what the model reads. See docs/design/hooks.md,
//! "Decision control".

use std::sync::Arc;

use agentctx_protocol::TodoItem;
use agentctx_protocol::TodoStatus;
use async_trait::async_trait;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use super::outcome::PermissionDecision;
use super::permission_updates::RuleBehavior;
use super::permission_updates::Subject;
use super::runner::EventResult;
use super::runner::HookRunner;
use super::settings::HookEvent;
use crate::approval::ApprovalDecision;
use crate::approval::ApprovalRequest;
use crate::hooks_ext::claude_tool_name;
use crate::tools::BeforeCall;
use crate::tools::ToolCall;
use crate::tools::ToolCallInterceptor;
use crate::tools::ToolContext;
use crate::tools::ToolOutput;
use crate::tools::updated_arguments;

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

/// The input fields of the per-call events: `permission_mode`, `tool_name` (Claude Code's),
/// `agentctx_tool_name`, `tool_input`, `tool_use_id` (the call's id).
pub(crate) fn tool_fields(ctx: &ToolContext, call: ToolCall<'_>) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert("permission_mode".into(), json!(permission_mode(ctx)));
    fields.insert("tool_name".into(), json!(hook_tool_name(call.name)));
    fields.insert("agentctx_tool_name".into(), json!(call.name));
    fields.insert("tool_input".into(), tool_input(call.arguments));
    fields.insert("tool_use_id".into(), json!(call.call_id));
    fields
}

/// The name hooks see for our tool `name`: Claude Code's, where it has one.
fn hook_tool_name(name: &str) -> &str {
    claude_tool_name(name).unwrap_or(name)
}

/// Whether `name` is an MCP server's tool (`mcp__<server>__<tool>`).
fn is_mcp_tool(name: &str) -> bool {
    name.starts_with("mcp__")
}

/// The text the model reads for a hook's replacement output: a string as it is, anything
/// else as JSON.
fn output_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
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

impl ToolHooks {
    /// Applies the `PreToolUse` hooks' decision control to `call`: the arguments it runs with
    /// (`Some` when `updatedInput` or the user's approval changed them), or its refusal.
    async fn decide(
        &self,
        ctx: &ToolContext,
        call: ToolCall<'_>,
        result: EventResult,
    ) -> Result<Option<String>, ToolOutput> {
        let tool = hook_tool_name(call.name);
        let (decision, reason) = match result.permission {
            Some((PermissionDecision::Defer, _)) => {
                self.0.warn(format!(
                    "a PreToolUse hook answered `defer` for {tool}: ignored, as agentctx has no deferred tool calls to resume (Claude Code honours it in `claude -p` only); the call goes on"
                ));
                return Ok(None);
            }
            Some((decision, reason)) => (Some(decision), reason),
            None => (None, None),
        };
        let mut arguments = None;
        if let Some(input) = &result.updated_input {
            match updated_arguments(call.arguments, input, false) {
                Some(updated) => arguments = Some(updated),
                None => self.0.warn(format!(
                    "a PreToolUse hook's updatedInput for {tool} is not a JSON object: ignored"
                )),
            }
        }
        let current = arguments.as_deref().unwrap_or(call.arguments);
        match decision {
            Some(PermissionDecision::Allow) => {
                if let Some(reason) = reason {
                    self.0
                        .warn(format!("a PreToolUse hook allowed {tool}: {reason}"));
                }
                // "Deny and ask rules are still evaluated regardless of what the hook returns."
                let input = tool_input(current);
                let rule = self.0.permissions().rule(Subject {
                    tool,
                    input: &input,
                    cwd: &self.0.cwd,
                });
                if !matches!(rule, Some(RuleBehavior::Deny | RuleBehavior::Ask)) {
                    ctx.call_approval.approve();
                }
            }
            Some(PermissionDecision::Ask) => {
                let request = ApprovalRequest::ToolCall {
                    tool: tool.to_owned(),
                    input: tool_input(current),
                    reason,
                };
                let answer = ctx.confirm(&request).await;
                if answer.decision == ApprovalDecision::Denied {
                    let why = answer
                        .message
                        .map(|message| format!(": {message}"))
                        .unwrap_or_default();
                    return Err(ToolOutput::error(format!(
                        "Error: the user did not approve this {tool} call (a PreToolUse hook asked){why}"
                    )));
                }
                ctx.call_approval.approve();
                if let Some(updated) = answer
                    .updated_input
                    .and_then(|input| updated_arguments(current, &input, true))
                {
                    arguments = Some(updated);
                }
            }
            Some(PermissionDecision::Deny | PermissionDecision::Defer) | None => {}
        }
        Ok(arguments)
    }
}

#[async_trait]
impl ToolCallInterceptor for ToolHooks {
    async fn before_call(&self, ctx: &ToolContext, call: ToolCall<'_>) -> BeforeCall {
        if self.0.is_idle() {
            return BeforeCall::Proceed;
        }
        let result = self
            .0
            .run(
                HookEvent::PreToolUse,
                &subjects(call.name),
                &format!("PreToolUse:{}", call.name),
                Value::Object(tool_fields(ctx, call)),
            )
            .await;
        if let Some(reason) = result.block {
            return BeforeCall::Refuse(ToolOutput::error(format!(
                "Error: a PreToolUse hook blocked this call: {reason}"
            )));
        }
        let rewritten = match self.decide(ctx, call, result).await {
            Ok(rewritten) => rewritten,
            Err(refusal) => return BeforeCall::Refuse(refusal),
        };
        let (name, arguments) = (call.name, rewritten.as_deref().unwrap_or(call.arguments));
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
                return BeforeCall::Refuse(ToolOutput::error(format!(
                    "Error: a TaskCreated hook blocked this call: {reason}"
                )));
            }
        }
        if name == "todo_write"
            && let Some((event, reason)) = self.todo_blocked(ctx, arguments).await
        {
            return BeforeCall::Refuse(ToolOutput::error(format!(
                "Error: a {} hook blocked this call: {reason}",
                event.as_str()
            )));
        }
        match rewritten {
            Some(arguments) => BeforeCall::Rewrite(arguments),
            None => BeforeCall::Proceed,
        }
    }

    async fn after_call(&self, ctx: &ToolContext, call: ToolCall<'_>, output: &mut ToolOutput) {
        if self.0.is_idle() {
            return;
        }
        let (name, arguments) = (call.name, call.arguments);
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
        let mut fields = tool_fields(ctx, call);
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
        let result = self
            .0
            .run(
                event,
                &subjects(name),
                &format!("{}:{name}", event.as_str()),
                Value::Object(fields),
            )
            .await;
        if event != HookEvent::PostToolUse {
            return;
        }
        // `updatedMCPToolOutput` is for MCP tools only; `updatedToolOutput` for every tool.
        let mcp = result.updated_mcp_tool_output.filter(|_| {
            is_mcp_tool(name) || {
                tracing::info!(tool = name, "updatedMCPToolOutput ignored: not an MCP tool");
                false
            }
        });
        if let Some(replacement) = result.updated_tool_output.or(mcp) {
            output.text = output_text(&replacement);
        }
    }
}
