//! The attachment generators of the catalogue, one module each, and [`default_generators`].
//!
//! Keep one line per module and one line per entry: two people edit this file.

use std::sync::Arc;

use crate::generator::AttachmentGenerator;

pub mod agent_mentions;
pub mod async_agent_status;
pub mod async_hook_responses;
pub mod at_mentioned_files;
pub mod background_task;
pub mod budget_usd;
pub mod changed_files;
pub mod collab_notification;
pub mod compact_file_reference;
pub mod critical_instruction;
pub mod delegate_mode;
pub mod diagnostics;
pub mod hook_outcomes;
pub mod ide;
pub mod invoked_skills;
mod last_reported;
pub mod mcp_resources;
pub mod micro_compact;
pub mod nested_memory;
pub mod output_style;
pub mod plan_file_reference;
pub mod plan_mode;
pub mod queued_commands;
pub mod session_memory;
pub mod task_progress;
pub mod teammate_message;
pub mod todo_reminder;
pub mod token_usage;
pub mod ultramemory;
pub mod verify_plan_reminder;

/// Every generator of the catalogue, in catalogue order. The orchestrator sorts output by
/// (tier, order) anyway, so the order here only affects telemetry.
pub fn default_generators() -> Vec<Arc<dyn AttachmentGenerator>> {
    let mut generators: Vec<Arc<dyn AttachmentGenerator>> = vec![
        Arc::new(at_mentioned_files::AtMentionedFilesGenerator::new()),
        Arc::new(changed_files::ChangedFilesGenerator::new()),
        Arc::new(nested_memory::NestedMemoryGenerator::new()),
        Arc::new(mcp_resources::McpResourcesGenerator::new()),
        Arc::new(agent_mentions::AgentMentionsGenerator::new()),
        Arc::new(plan_mode::PlanModeReentryGenerator::new()),
        Arc::new(plan_mode::PlanModeGenerator::new()),
        Arc::new(plan_mode::PlanModeExitGenerator::new()),
        Arc::new(delegate_mode::DelegateModeGenerator::new()),
        Arc::new(delegate_mode::DelegateModeExitGenerator::new()),
        Arc::new(todo_reminder::TodoReminderGenerator::new()),
        Arc::new(collab_notification::CollabNotificationGenerator::new()),
        Arc::new(critical_instruction::CriticalInstructionGenerator::new()),
        Arc::new(invoked_skills::InvokedSkillsGenerator::new()),
        Arc::new(compact_file_reference::CompactFileReferenceGenerator::new()),
        Arc::new(plan_file_reference::PlanFileReferenceGenerator::new()),
        Arc::new(micro_compact::MicroCompactGenerator::new()),
        Arc::new(ide::IdeSelectionGenerator::new()),
        Arc::new(ide::IdeOpenedFileGenerator::new()),
        Arc::new(output_style::OutputStyleGenerator::new()),
        Arc::new(queued_commands::QueuedCommandsGenerator::new()),
        Arc::new(teammate_message::TeammateMessageGenerator::new()),
        Arc::new(diagnostics::DiagnosticsGenerator::new()),
        Arc::new(diagnostics::LspDiagnosticsGenerator::new()),
        Arc::new(background_task::BackgroundTaskGenerator::new()),
        Arc::new(task_progress::TaskProgressGenerator::new()),
        Arc::new(async_agent_status::AsyncAgentStatusGenerator::new()),
        Arc::new(async_hook_responses::AsyncHookResponsesGenerator::new()),
        Arc::new(session_memory::SessionMemoryGenerator::new()),
        Arc::new(ultramemory::UltramemoryGenerator::new()),
        Arc::new(token_usage::TokenUsageGenerator::new()),
        Arc::new(budget_usd::BudgetUsdGenerator::new()),
        Arc::new(verify_plan_reminder::VerifyPlanReminderGenerator::new()),
    ];
    generators.extend(hook_outcomes::hook_outcome_generators());
    generators
}
