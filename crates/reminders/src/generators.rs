//! The attachment generators of the catalogue, one module each, and [`default_generators`].
//!
//! Keep one line per module and one line per entry: two people edit this file.

use std::sync::Arc;

use crate::generator::AttachmentGenerator;

pub(crate) mod agent_mentions;
pub(crate) mod async_agent_status;
pub(crate) mod async_hook_responses;
pub(crate) mod at_mentioned_files;
pub(crate) mod background_task;
pub(crate) mod budget_usd;
pub(crate) mod changed_files;
pub(crate) mod collab_notification;
pub(crate) mod compact_file_reference;
pub(crate) mod critical_instruction;
pub(crate) mod delegate_mode;
pub(crate) mod diagnostics;
pub(crate) mod hook_outcomes;
pub(crate) mod ide;
pub(crate) mod invoked_skills;
mod last_reported;
pub(crate) mod mcp_resources;
pub(crate) mod micro_compact;
pub(crate) mod nested_memory;
pub(crate) mod output_style;
pub(crate) mod plan_file_reference;
pub(crate) mod plan_mode;
pub(crate) mod queued_commands;
pub(crate) mod session_memory;
pub(crate) mod task_progress;
pub(crate) mod teammate_message;
pub(crate) mod todo_reminder;
pub(crate) mod token_usage;
pub(crate) mod tool_result;
pub(crate) mod ultramemory;
pub(crate) mod verify_plan_reminder;

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

#[cfg(test)]
#[path = "generators/verbatim_texts_tests.rs"]
mod verbatim_texts_tests;
