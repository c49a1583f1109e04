//! `enter_plan_mode` and `exit_plan_mode`: a read-only planning phase with its plan file
//! `<home>/plans/<slug>.md`. See docs/design/core.md, "Plan mode".

use std::path::Path;
use std::path::PathBuf;

use agentctx_model::ToolSpec;
use agentctx_protocol::LoopEvent;
use async_trait::async_trait;
use serde_json::json;

use super::ToolContext;
use super::ToolHandler;
use super::ToolOutput;
use crate::approval::ApprovalDecision;
use crate::approval::ApprovalRequest;
use crate::event::SessionEvent;
use crate::plan_slug::generate_plan_slug;
use crate::plan_slug::plan_file_path;
use crate::session_state::SessionState;

/// Turns plan mode on in `state` and returns the plan file (the same file on re-entry). Returns
/// `None` when plan mode was already on.
pub(crate) fn enter_plan_mode(state: &mut SessionState, plans_dir: &Path) -> Option<PathBuf> {
    if state.plan.active {
        return None;
    }
    let slug = state
        .plan
        .slug
        .get_or_insert_with(|| generate_plan_slug(&mut rand::rng()))
        .clone();
    let plan_file = plan_file_path(plans_dir, &slug);
    state.plan.plan_file = Some(plan_file.clone());
    state.plan.active = true;
    state.plan.just_exited = false;
    Some(plan_file)
}

const PLAN_FILE_LEAD: &str = "write your plan to ";
const PLAN_FILE_TAIL: &str = " with write_file";

/// The plan file named in an `enter_plan_mode` result (a resumed session finds it there).
pub(crate) fn plan_file_from_output(text: &str) -> Option<PathBuf> {
    let (_, rest) = text.split_once(PLAN_FILE_LEAD)?;
    let (path, _) = rest.split_once(PLAN_FILE_TAIL)?;
    Some(PathBuf::from(path))
}

/// Enters plan mode.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct EnterPlanModeTool;

#[async_trait]
impl ToolHandler for EnterPlanModeTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "enter_plan_mode".to_string(),
            description: "Enters plan mode for a task that needs a plan before code changes: explore read-only, write the plan to the plan file, then call exit_plan_mode.".to_string(),
            parameters: json!({"type": "object", "properties": {}, "additionalProperties": false}),
        }
    }

    async fn handle(&self, ctx: &ToolContext, _arguments: &str) -> ToolOutput {
        let entered = enter_plan_mode(&mut ctx.state(), &ctx.plans_dir);
        let Some(plan_file) = entered else {
            return ToolOutput::ok("Plan mode is already on.");
        };
        if let Some(parent) = plan_file.parent()
            && let Err(err) = std::fs::create_dir_all(parent)
        {
            return ToolOutput::error(format!("Error: cannot create {}: {err}", parent.display()));
        }
        ctx.emit(SessionEvent::Loop(LoopEvent::PlanModeEntered {
            plan_file: plan_file.clone(),
        }));
        ToolOutput::ok(format!(
            "Entered plan mode. Explore the code read-only, {PLAN_FILE_LEAD}{}{PLAN_FILE_TAIL}, then call exit_plan_mode.",
            plan_file.display()
        ))
    }
}

/// Presents the plan and leaves plan mode when the user approves it.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ExitPlanModeTool;

#[async_trait]
impl ToolHandler for ExitPlanModeTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "exit_plan_mode".to_string(),
            description: "Presents the plan in the plan file to the user and, once approved, leaves plan mode so implementation can start.".to_string(),
            parameters: json!({"type": "object", "properties": {}, "additionalProperties": false}),
        }
    }

    async fn handle(&self, ctx: &ToolContext, _arguments: &str) -> ToolOutput {
        let plan_file = {
            let state = ctx.state();
            if !state.plan.active {
                return ToolOutput::error("Error: plan mode is not on.");
            }
            state.plan.plan_file.clone()
        };
        let Some(plan_file) = plan_file else {
            return ToolOutput::error("Error: plan mode has no plan file.");
        };
        let plan = std::fs::read_to_string(&plan_file).unwrap_or_default();
        if plan.trim().is_empty() {
            return ToolOutput::error(format!(
                "Error: the plan file {} is empty; write the plan first.",
                plan_file.display()
            ));
        }
        let request = ApprovalRequest::Plan {
            plan_file: plan_file.clone(),
            plan,
        };
        let approved = ctx.approve(&request).await == ApprovalDecision::Approved;
        ctx.emit(SessionEvent::Loop(LoopEvent::PlanModeExited { approved }));
        if !approved {
            return ToolOutput::error(
                "The user rejected the plan. Stay in plan mode: revise the plan file and call exit_plan_mode again.",
            );
        }
        {
            let mut state = ctx.state();
            state.plan.active = false;
            state.plan.entered_before = true;
            state.plan.just_exited = true;
        }
        ToolOutput::ok(format!(
            "The user approved the plan in {}. Plan mode is off: implement the plan.",
            plan_file.display()
        ))
    }
}
