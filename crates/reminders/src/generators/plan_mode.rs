//! Plan mode reminders: the full reminder with the 5-phase workflow, the sparse one, the
//! sub-agent one, re-entry and exit (see docs/design/reminders.md, "Plan mode").
//!
//! While plan mode is active the orchestrator's throttle lets [`PlanModeGenerator`] fire on the
//! first turn, then every [`crate::throttle::PLAN_MODE_TURNS_BETWEEN`] turns; the first
//! attachment and every [`crate::throttle::FULL_REMINDER_EVERY_N_ATTACHMENTS`]th one after it are
//! full, the others sparse. Sub-agents get the shorter sub-agent reminder every time. Re-entry
//! and exit fire once each time they happen, however long the host keeps its flag set.

use std::path::Path;

use async_trait::async_trait;

use super::last_reported::LastReported;
use crate::blocking::run_blocking;
use crate::generator::AttachmentGenerator;
use crate::generator::GeneratorError;
use crate::generator::GeneratorResult;
use crate::generator_context::GeneratorContext;
use crate::throttle::is_full_plan_reminder;
use crate::types::AttachmentType;
use crate::types::SystemReminder;

/// Default number of Explore agents plan mode may launch in parallel
/// (`CLAUDE_CODE_PLAN_V2_EXPLORE_AGENT_COUNT`).
pub(crate) const DEFAULT_MAX_EXPLORE_AGENTS: u32 = 3;
/// Default number of Plan agents plan mode may launch in parallel
/// (`CLAUDE_CODE_PLAN_V2_AGENT_COUNT`).
pub(crate) const DEFAULT_MAX_PLAN_AGENTS: u32 = 1;
/// The plan file path shown when the host gave none.
pub(crate) const UNKNOWN_PLAN_FILE: &str = "the plan file";

/// Which plan mode reminder to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PlanReminderType {
    /// Complete instructions with the 5-phase workflow.
    Full,
    /// The abbreviated single-line reminder.
    Sparse,
}

/// The full reminder for the main agent, with the 5-phase workflow.
pub(crate) fn render_full_plan_reminder(
    plan_file_path: &Path,
    plan_exists: bool,
    max_explore_agents: u32,
    max_plan_agents: u32,
) -> String {
    let plan_info = if plan_exists {
        format!(
            "A plan file already exists at {}. You can read it and make incremental edits using the Edit tool.",
            plan_file_path.display()
        )
    } else {
        format!(
            "No plan file exists yet. You should create your plan at {} using the Write tool.",
            plan_file_path.display()
        )
    };

    format!(
        r#"Plan mode is active. The user indicated that they do not want you to execute yet -- you MUST NOT make any edits (with the exception of the plan file mentioned below), run any non-readonly tools (including changing configs or making commits), or otherwise make any changes to the system. This supercedes any other instructions you have received.

## Plan File Info:
{plan_info}

You should build your plan incrementally by writing to or editing this file. NOTE that this is the only file you are allowed to edit - other than this you are only allowed to take READ-ONLY actions.

## Plan Workflow

### Phase 1: Initial Understanding
Goal: Gain a comprehensive understanding of the user's request by reading through code and asking them questions. Critical: In this phase you should only use the Explore subagent type.

1. Focus on understanding the user's request and the code associated with their request

2. **Launch up to {max_explore_agents} Explore agents IN PARALLEL** (single message, multiple tool calls) to efficiently explore the codebase.
   - Use 1 agent when the task is isolated to known files, the user provided specific file paths, or you're making a small targeted change.
   - Use multiple agents when: the scope is uncertain, multiple areas of the codebase are involved, or you need to understand existing patterns before planning.
   - Quality over quantity - {max_explore_agents} agents maximum, but you should try to use the minimum number of agents necessary (usually just 1)

3. After exploring the code, use the AskUserQuestion tool to clarify ambiguities in the user request up front.

### Phase 2: Design
Goal: Design an implementation approach.

Launch Plan agent(s) to design the implementation based on the user's intent and your exploration results from Phase 1.

You can launch up to {max_plan_agents} agent(s) in parallel.

**Guidelines:**
- **Default**: Launch at least 1 Plan agent for most tasks - it helps validate your understanding and consider alternatives
- **Skip agents**: Only for truly trivial tasks (typo fixes, single-line changes, simple renames)
- **Multiple agents**: Use up to {max_plan_agents} agents for complex tasks that benefit from different perspectives

### Phase 3: Review
Goal: Review the plan(s) from Phase 2 and ensure alignment with the user's intentions.
1. Read the critical files identified by agents to deepen your understanding
2. Ensure that the plans align with the user's original request
3. Use AskUserQuestion to clarify any remaining questions with the user

### Phase 4: Final Plan
Goal: Write your final plan to the plan file (the only file you can edit).
- Include only your recommended approach, not all alternatives
- Ensure that the plan file is concise enough to scan quickly, but detailed enough to execute effectively
- Include the paths of critical files to be modified
- Include a verification section describing how to test the changes end-to-end

### Phase 5: Call ExitPlanMode
At the very end of your turn, once you have asked the user questions and are happy with your final plan file - you should always call ExitPlanMode to indicate to the user that you are done planning.
This is critical - your turn should only end with either using the AskUserQuestion tool OR calling ExitPlanMode. Do not stop unless it's for these 2 reasons

**Important:** Use AskUserQuestion ONLY to clarify requirements or choose between approaches. Use ExitPlanMode to request plan approval. Do NOT ask about plan approval in any other way."#
    )
}

/// The sparse reminder sent between full ones.
pub(crate) fn render_sparse_plan_reminder(plan_file_path: &Path) -> String {
    format!(
        "Plan mode still active (see full instructions earlier in conversation). Read-only except plan file ({}). Follow 5-phase workflow. End turns with AskUserQuestion (for clarifications) or ExitPlanMode (for plan approval). Never ask about plan approval via text or AskUserQuestion.",
        plan_file_path.display()
    )
}

/// The shorter reminder for Plan and Explore sub-agents.
pub(crate) fn render_sub_agent_plan_reminder(plan_file_path: &Path, plan_exists: bool) -> String {
    let plan_info = if plan_exists {
        format!(
            "A plan file already exists at {}. You can read it and make incremental edits using the Edit tool if you need to.",
            plan_file_path.display()
        )
    } else {
        format!(
            "No plan file exists yet. You should create your plan at {} using the Write tool if you need to.",
            plan_file_path.display()
        )
    };

    format!(
        r#"Plan mode is active. The user indicated that they do not want you to execute yet -- you MUST NOT make any edits, run any non-readonly tools (including changing configs or making commits), or otherwise make any changes to the system. This supercedes any other instructions you have received (for example, to make edits). Instead, you should:

## Plan File Info:
{plan_info}

You should build your plan incrementally by writing to or editing this file. NOTE that this is the only file you are allowed to edit - other than this you are only allowed to take READ-ONLY actions.
Answer the user's query comprehensively, using the AskUserQuestion tool if you need to ask the user clarifying questions."#
    )
}

/// The re-entry reminder, word for word as docs/design/reminders.md ("Plan mode") gives it.
///
/// It is written with `\` line continuations, which drop the next line's indentation, so the
/// sub-items of step 3 start at the beginning of their line.
pub(crate) fn render_plan_mode_reentry(plan_file_path: &Path) -> String {
    let plan_file_path = plan_file_path.display();
    format!(
        "## Re-entering Plan Mode\n\n\
         You are returning to plan mode after having previously exited it. \
         A plan file exists at {plan_file_path} from your previous planning session.\n\n\
         **Before proceeding with any new planning, you should:**\n\
         1. Read the existing plan file to understand what was previously planned\n\
         2. Evaluate the user's current request against that plan\n\
         3. Decide how to proceed:\n\
            - **Different task**: If the user's request is for a different task—even if it's similar \
              or related—start fresh by overwriting the existing plan\n\
            - **Same task, continuing**: If this is explicitly a continuation or refinement of \
              the exact same task, modify the existing plan while cleaning up outdated sections\n\
         4. Continue on with the plan process and most importantly you should always edit the \
            plan file one way or the other before calling ExitPlanMode\n\n\
         Treat this as a fresh planning session. Do not assume the existing plan is relevant \
         without evaluating it first."
    )
}

/// The reminder sent on the turn after plan mode was left.
pub(crate) fn render_plan_mode_exit(plan_file_path: Option<&Path>, plan_exists: bool) -> String {
    let mut text = String::from(
        "## Exited Plan Mode\n\nYou have exited plan mode. You can now make edits, run tools, and take actions.",
    );
    if let (Some(path), true) = (plan_file_path, plan_exists) {
        text.push_str(&format!(
            " The plan file is located at {} if you need to reference it.",
            path.display()
        ));
    }
    text
}

/// The plan file of the session, or a stand-in when the host gave none.
fn plan_file(ctx: &GeneratorContext) -> &Path {
    ctx.plan
        .plan_file_path
        .as_deref()
        .unwrap_or_else(|| Path::new(UNKNOWN_PLAN_FILE))
}

/// Whether the plan file exists on disk and is not empty. Looking is blocking work (a plan
/// file on a hung network mount would hold the turn): it runs on the blocking pool, so the
/// orchestrator's timeout holds.
async fn plan_exists(ctx: &GeneratorContext, generator: &str) -> Result<bool, GeneratorError> {
    let Some(path) = ctx.plan.plan_file_path.clone() else {
        return Ok(false);
    };
    run_blocking(generator, move || {
        std::fs::metadata(path).is_ok_and(|metadata| metadata.is_file() && metadata.len() > 0)
    })
    .await
}

/// Generates the plan mode reminder (full, sparse or sub-agent).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PlanModeGenerator {
    max_explore_agents: u32,
    max_plan_agents: u32,
}

impl Default for PlanModeGenerator {
    /// The default agent counts.
    fn default() -> Self {
        Self::with_agent_counts(DEFAULT_MAX_EXPLORE_AGENTS, DEFAULT_MAX_PLAN_AGENTS)
    }
}

impl PlanModeGenerator {
    /// A generator allowing `max_explore_agents` Explore and `max_plan_agents` Plan agents
    /// (each clamped to 1..=5, as Claude Code's environment variables are).
    pub(crate) fn with_agent_counts(max_explore_agents: u32, max_plan_agents: u32) -> Self {
        Self {
            max_explore_agents: max_explore_agents.clamp(1, 5),
            max_plan_agents: max_plan_agents.clamp(1, 5),
        }
    }

    /// The reminder type of the next attachment, from the number already sent.
    pub(crate) fn reminder_type(attachments_sent: i32) -> PlanReminderType {
        if is_full_plan_reminder(attachments_sent) {
            PlanReminderType::Full
        } else {
            PlanReminderType::Sparse
        }
    }
}

#[async_trait]
impl AttachmentGenerator for PlanModeGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::PlanMode
    }

    /// Human turns, not requests: Claude Code 2.1's `getPlanModeAttachmentTurnCount`
    /// (`src/utils/attachments.ts`) counts the non-meta user messages that are not tool results
    /// since the last `plan_mode` attachment, because its tool loop asks for attachments on
    /// every tool round and counting requests would repeat plan mode every five tool calls.
    fn throttle_clock(&self, ctx: &GeneratorContext) -> i32 {
        ctx.user_turns
    }

    /// Outside plan mode, nothing to say.
    fn generate_now(&self, ctx: &GeneratorContext) -> Option<GeneratorResult> {
        (!ctx.is_plan_mode()).then_some(Ok(None))
    }

    async fn generate(
        &self,
        ctx: &GeneratorContext,
    ) -> Result<Option<SystemReminder>, GeneratorError> {
        if let Some(answer) = self.generate_now(ctx) {
            return answer;
        }
        let path = plan_file(ctx);
        let exists = plan_exists(ctx, self.name()).await?;
        let content = if !ctx.is_main_agent {
            render_sub_agent_plan_reminder(path, exists)
        } else {
            let sent = ctx.throttle.session_count(AttachmentType::PlanMode);
            match Self::reminder_type(sent) {
                PlanReminderType::Full => render_full_plan_reminder(
                    path,
                    exists,
                    self.max_explore_agents,
                    self.max_plan_agents,
                ),
                PlanReminderType::Sparse => render_sparse_plan_reminder(path),
            }
        };
        Ok(Some(SystemReminder::new(AttachmentType::PlanMode, content)))
    }
}

/// Generates the re-entry reminder once when plan mode is entered again and a plan file exists.
#[derive(Debug, Default)]
pub(crate) struct PlanModeReentryGenerator {
    last: LastReported<bool>,
}

#[async_trait]
impl AttachmentGenerator for PlanModeReentryGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::PlanModeReentry
    }

    fn reset(&self) {
        self.last.forget();
    }

    /// Unless plan mode was entered again, nothing to say (and not re-entered is recorded).
    fn generate_now(&self, ctx: &GeneratorContext) -> Option<GeneratorResult> {
        if ctx.is_plan_mode() && ctx.plan.is_reentry {
            return None;
        }
        self.last.changed(&false);
        Some(Ok(None))
    }

    async fn generate(
        &self,
        ctx: &GeneratorContext,
    ) -> Result<Option<SystemReminder>, GeneratorError> {
        if let Some(answer) = self.generate_now(ctx) {
            return answer;
        }
        let reentered = plan_exists(ctx, self.name()).await?;
        if !self.last.changed(&reentered) || !reentered {
            return Ok(None);
        }
        Ok(Some(SystemReminder::new(
            AttachmentType::PlanModeReentry,
            render_plan_mode_reentry(plan_file(ctx)),
        )))
    }
}

/// Generates the exit reminder once, on the turn after plan mode was left.
#[derive(Debug, Default)]
pub(crate) struct PlanModeExitGenerator {
    last: LastReported<bool>,
}

#[async_trait]
impl AttachmentGenerator for PlanModeExitGenerator {
    fn attachment_type(&self) -> AttachmentType {
        AttachmentType::PlanModeExit
    }

    fn reset(&self) {
        self.last.forget();
    }

    /// Unless plan mode was just left, nothing to say (and not exited is recorded).
    fn generate_now(&self, ctx: &GeneratorContext) -> Option<GeneratorResult> {
        if ctx.plan.just_exited && !ctx.is_plan_mode() {
            return None;
        }
        self.last.changed(&false);
        Some(Ok(None))
    }

    async fn generate(
        &self,
        ctx: &GeneratorContext,
    ) -> Result<Option<SystemReminder>, GeneratorError> {
        if let Some(answer) = self.generate_now(ctx) {
            return answer;
        }
        // Look before recording: a run the timeout drops must not count as reported.
        let exists = plan_exists(ctx, self.name()).await?;
        if !self.last.changed(&true) {
            return Ok(None);
        }
        Ok(Some(SystemReminder::new(
            AttachmentType::PlanModeExit,
            render_plan_mode_exit(ctx.plan.plan_file_path.as_deref(), exists),
        )))
    }
}

#[cfg(test)]
#[path = "plan_mode_tests.rs"]
mod tests;
