//! Glue to `agentctx-engine`: what the session hands the context engine at its seams.
//!
//! The engine decides what the model sees (history, reminders, micro-, session-memory- and
//! full compaction, restoration, usage accounting); the session keeps the model stream, the
//! tools, approvals, hooks, MCP and subagents. This file turns the session's own state into the
//! engine's [`HostState`] and its options into [`EngineOptions`] — the two things a Codex fork
//! writes for its own turn loop (docs/design/engine.md, "Wiring a host"). Each takes the fields it
//! reads (the state, the model, the folders and configs), never the session: the subagent
//! runner builds its engine's options here too.

pub(crate) use agentctx_engine::Action;
pub(crate) use agentctx_engine::CompactConfig;
pub(crate) use agentctx_engine::CompactPoint;
pub(crate) use agentctx_engine::CompactReason;
pub(crate) use agentctx_engine::ContextEngine;
pub(crate) use agentctx_engine::EngineOptions;
pub(crate) use agentctx_engine::HostPlan;
pub(crate) use agentctx_engine::HostState;
pub(crate) use agentctx_engine::PreparedRequest;
pub(crate) use agentctx_engine::PromptParts;
pub(crate) use agentctx_engine::SystemReminderConfig;
pub(crate) use agentctx_engine::prompt_overhead_tokens;
use std::path::Path;

use agentctx_model::ModelClient;
use agentctx_protocol::BackgroundTask;
use agentctx_protocol::BackgroundTaskStatus;
use agentctx_protocol::BackgroundTaskType;
use agentctx_reminders::ToolResultInfo;

use crate::process::BackgroundStatus;
use crate::session_state::BackgroundShell;
use crate::session_state::SessionState;

/// The engine's options for the session (or subagent) `session_id` working in `cwd` under
/// `home`, with the user's `[system_reminder]` and `[compact]` settings, at the window and
/// output limit of `model` (the engine scales the compaction thresholds to it).
pub(crate) fn engine_options(
    model: &dyn ModelClient,
    cwd: &Path,
    home: &Path,
    session_id: &str,
    reminders: &SystemReminderConfig,
    compact: &CompactConfig,
) -> EngineOptions {
    let info = model.model_info();
    EngineOptions::new(cwd, home, session_id, reminders.clone(), compact.clone())
        .with_window(info.context_window, info.max_output_tokens)
}

/// What the engine needs of the session's state now.
pub(crate) fn host_state(state: &SessionState) -> HostState {
    HostState {
        requests: state.requests,
        todos: state.todos.clone(),
        last_todo_write_turn: state.last_todo_write_turn,
        todo_tool_available: true,
        plan: HostPlan {
            active: state.plan.active,
            plan_file: state.plan.plan_file.clone(),
            entered_before: state.plan.entered_before,
            just_exited: state.plan.just_exited,
        },
        background_tasks: state
            .shells
            .iter()
            .map(|(id, shell)| background_task(id, shell))
            .chain(
                state
                    .agents
                    .iter()
                    .map(|(id, agent)| agent.background_task(id)),
            )
            .collect(),
        invoked_skills: state.invoked_skills.clone(),
        last_tool_results: state
            .last_tool_results
            .iter()
            .map(|run| ToolResultInfo {
                tool_name: run.name.clone(),
                call_id: run.call_id.clone(),
                success: run.success,
                duration_ms: run.duration_ms,
            })
            .collect(),
    }
}

fn background_task(id: &str, shell: &BackgroundShell) -> BackgroundTask {
    let status = shell.process.status();
    BackgroundTask {
        task_id: id.to_string(),
        task_type: BackgroundTaskType::Shell,
        command: Some(shell.command.clone()),
        description: shell.description.clone(),
        status: match status {
            BackgroundStatus::Running => BackgroundTaskStatus::Running,
            BackgroundStatus::Exited(Some(0)) => BackgroundTaskStatus::Completed,
            BackgroundStatus::Exited(_) | BackgroundStatus::Failed => BackgroundTaskStatus::Failed,
            BackgroundStatus::Killed => BackgroundTaskStatus::Killed,
        },
        exit_code: match status {
            BackgroundStatus::Exited(code) => code,
            _ => None,
        },
        output_len: u64::try_from(shell.process.output_len()).unwrap_or(u64::MAX),
        delta_summary: None,
        progress_message: None,
    }
}
