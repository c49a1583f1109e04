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
pub mod tool_result;
pub mod ultramemory;
pub mod verify_plan_reminder;

/// Every generator of the catalogue, in catalogue order. The orchestrator sorts output by
/// (tier, order) anyway, so the order here only affects telemetry.
pub fn default_generators() -> Vec<Arc<dyn AttachmentGenerator>> {
    let mut generators: Vec<Arc<dyn AttachmentGenerator>> = vec![
        Arc::new(at_mentioned_files::AtMentionedFilesGenerator),
        Arc::new(changed_files::ChangedFilesGenerator::default()),
        Arc::new(nested_memory::NestedMemoryGenerator),
        Arc::new(mcp_resources::McpResourcesGenerator),
        Arc::new(agent_mentions::AgentMentionsGenerator),
        Arc::new(plan_mode::PlanModeReentryGenerator::default()),
        Arc::new(plan_mode::PlanModeGenerator::default()),
        Arc::new(plan_mode::PlanModeExitGenerator::default()),
        Arc::new(delegate_mode::DelegateModeGenerator::default()),
        Arc::new(delegate_mode::DelegateModeExitGenerator::default()),
        Arc::new(todo_reminder::TodoReminderGenerator),
        Arc::new(collab_notification::CollabNotificationGenerator::default()),
        Arc::new(critical_instruction::CriticalInstructionGenerator::default()),
        Arc::new(tool_result::ToolResultGenerator::default()),
        Arc::new(invoked_skills::InvokedSkillsGenerator::default()),
        Arc::new(compact_file_reference::CompactFileReferenceGenerator::default()),
        Arc::new(plan_file_reference::PlanFileReferenceGenerator::default()),
        Arc::new(micro_compact::MicroCompactGenerator),
        Arc::new(ide::IdeSelectionGenerator::default()),
        Arc::new(ide::IdeOpenedFileGenerator::default()),
        Arc::new(output_style::OutputStyleGenerator::default()),
        Arc::new(queued_commands::QueuedCommandsGenerator),
        Arc::new(teammate_message::TeammateMessageGenerator),
        Arc::new(diagnostics::DiagnosticsGenerator),
        Arc::new(diagnostics::LspDiagnosticsGenerator),
        Arc::new(background_task::BackgroundTaskGenerator::default()),
        Arc::new(task_progress::TaskProgressGenerator::default()),
        Arc::new(async_agent_status::AsyncAgentStatusGenerator::default()),
        Arc::new(async_hook_responses::AsyncHookResponsesGenerator),
        Arc::new(session_memory::SessionMemoryGenerator::default()),
        Arc::new(ultramemory::UltramemoryGenerator::default()),
        Arc::new(token_usage::TokenUsageGenerator::default()),
        Arc::new(budget_usd::BudgetUsdGenerator::default()),
        Arc::new(verify_plan_reminder::VerifyPlanReminderGenerator::default()),
    ];
    generators.extend(hook_outcomes::hook_outcome_generators());
    generators
}
