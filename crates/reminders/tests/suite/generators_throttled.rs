//! Generator rules that need the orchestrator's throttle and tier filter, over many turns.

use std::path::PathBuf;

use agentctx_protocol::PermissionMode;
use agentctx_protocol::TodoItem;
use agentctx_protocol::TodoStatus;
use agentctx_reminders::AttachmentType;
use agentctx_reminders::BackgroundTaskInfo;
use agentctx_reminders::BackgroundTaskStatus;
use agentctx_reminders::BackgroundTaskType;
use agentctx_reminders::GeneratorContext;
use agentctx_reminders::ReminderPlacement;
use agentctx_reminders::SystemReminder;
use agentctx_reminders::SystemReminderConfig;
use agentctx_reminders::SystemReminderOrchestrator;
use pretty_assertions::assert_eq;

fn fired(reminders: &[SystemReminder], attachment_type: AttachmentType) -> Option<String> {
    reminders
        .iter()
        .find(|reminder| reminder.attachment_type == attachment_type)
        .map(|reminder| reminder.content.clone())
}

/// Runs turns `1..=last` with `setup(turn, ctx)` and returns the turns `attachment_type` fired on.
async fn firing_turns(
    last: i32,
    attachment_type: AttachmentType,
    setup: impl Fn(i32, &mut GeneratorContext),
) -> Vec<(i32, String)> {
    let orchestrator = SystemReminderOrchestrator::new(SystemReminderConfig::default());
    let base = GeneratorContext::new("/work/project");
    let mut turns = Vec::new();
    for turn in 1..=last {
        let mut ctx = base.clone();
        ctx.turn_number = turn;
        setup(turn, &mut ctx);
        if let Some(content) = fired(&orchestrator.generate_all(&ctx).await, attachment_type) {
            turns.push((turn, content));
        }
    }
    turns
}

fn pending(content: &str) -> TodoItem {
    TodoItem {
        content: content.to_string(),
        status: TodoStatus::Pending,
        active_form: String::new(),
    }
}

/// The todo reminder's clock: one assistant message per turn, each turn a user turn of its own
/// (so the within-turn repetition rule stays out of the way).
fn one_message_per_turn(turn: i32, ctx: &mut GeneratorContext) {
    ctx.assistant_messages = turn;
    ctx.user_turns = turn;
}

#[tokio::test]
async fn todo_reminder_keeps_10_assistant_messages_between_reminders() {
    let turns = firing_turns(40, AttachmentType::TodoReminder, |turn, ctx| {
        one_message_per_turn(turn, ctx);
        ctx.todo.items = vec![pending("Run the tests")];
        ctx.todo.last_write_turn = Some(1);
    })
    .await;
    let turns = turns.iter().map(|(turn, _)| *turn).collect::<Vec<_>>();
    assert_eq!(turns, [11, 21, 31]);
}

#[tokio::test]
async fn todo_reminder_waits_10_assistant_messages_after_each_todo_write() {
    let turns = firing_turns(40, AttachmentType::TodoReminder, |turn, ctx| {
        one_message_per_turn(turn, ctx);
        ctx.todo.items = vec![pending("Run the tests")];
        // TodoWrite after messages 1 and 18.
        ctx.todo.last_write_turn = Some(if turn >= 18 { 18 } else { 1 });
    })
    .await;
    let turns = turns.iter().map(|(turn, _)| *turn).collect::<Vec<_>>();
    assert_eq!(turns, [11, 28, 38]);
}

#[tokio::test]
async fn todo_reminder_counts_assistant_messages_not_requests() {
    // Three assistant messages per request (text and two tool calls): the reminder comes after
    // four requests, not ten.
    let turns = firing_turns(12, AttachmentType::TodoReminder, |turn, ctx| {
        ctx.assistant_messages = turn * 3;
        ctx.user_turns = turn;
        ctx.todo.items = vec![pending("Run the tests")];
        ctx.todo.last_write_turn = Some(0);
    })
    .await;
    let turns = turns.iter().map(|(turn, _)| *turn).collect::<Vec<_>>();
    assert_eq!(turns, [4, 8, 12]);
}

#[tokio::test]
async fn todo_reminder_stops_once_every_item_is_done() {
    let turns = firing_turns(30, AttachmentType::TodoReminder, |turn, ctx| {
        one_message_per_turn(turn, ctx);
        let status = if turn >= 12 {
            TodoStatus::Completed
        } else {
            TodoStatus::Pending
        };
        ctx.todo.items = vec![TodoItem {
            content: "Run the tests".to_string(),
            status,
            active_form: String::new(),
        }];
        ctx.todo.last_write_turn = Some(0);
    })
    .await;
    let turns = turns.iter().map(|(turn, _)| *turn).collect::<Vec<_>>();
    assert_eq!(turns, [10]);
}

#[tokio::test]
async fn plan_mode_first_always_then_every_5_turns_full_every_fifth_attachment() {
    // Each turn a user turn of its own, so the within-turn rule of standing reminders stays out
    // of the way (`standing.rs` tests it).
    let turns = firing_turns(26, AttachmentType::PlanMode, |turn, ctx| {
        ctx.user_turns = turn;
        ctx.permission_mode = PermissionMode::Plan;
        ctx.plan.plan_file_path = Some(PathBuf::from("/home/u/.agentctx/plans/otter.md"));
    })
    .await;
    let kinds = turns
        .iter()
        .map(|(turn, content)| {
            let kind = if content.contains("## Plan Workflow") {
                "full"
            } else {
                "sparse"
            };
            (*turn, kind)
        })
        .collect::<Vec<_>>();
    assert_eq!(
        kinds,
        [
            (1, "full"),
            (6, "sparse"),
            (11, "sparse"),
            (16, "sparse"),
            (21, "sparse"),
            (26, "full"),
        ]
    );
}

#[tokio::test]
async fn background_task_only_for_main_agent_through_the_orchestrator() {
    let orchestrator = SystemReminderOrchestrator::new(SystemReminderConfig::default());
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.background_tasks = vec![BackgroundTaskInfo {
        task_id: "bash_1".to_string(),
        task_type: BackgroundTaskType::Shell,
        command: Some("cargo build".to_string()),
        description: "Build".to_string(),
        status: BackgroundTaskStatus::Completed,
        exit_code: Some(0),
        output_len: 10,
        delta_summary: None,
        progress_message: None,
    }];
    ctx.is_main_agent = false;
    assert_eq!(
        fired(
            &orchestrator.generate_all(&ctx).await,
            AttachmentType::BackgroundTask
        ),
        None
    );
    ctx.is_main_agent = true;
    assert_eq!(
        fired(
            &orchestrator.generate_all(&ctx).await,
            AttachmentType::BackgroundTask
        )
        .as_deref(),
        Some(
            "Background Bash bash_1 (command: cargo build) (status: completed) (exit code: 0) Has new output available. You can check its output using the BashOutput tool.\n"
        )
    );
}

#[tokio::test]
async fn critical_instruction_from_config_on_every_turn() {
    // Every turn with rebuilt placement, where reminders are rebuilt into each prompt.
    let config = SystemReminderConfig {
        critical_instruction: Some("Never push to main.".to_string()),
        placement: ReminderPlacement::AfterEnvironmentContext,
        ..SystemReminderConfig::default()
    };
    let orchestrator = SystemReminderOrchestrator::new(config.clone());
    for turn in 1..=3 {
        let mut ctx = GeneratorContext::new("/work/project").with_config(&config);
        ctx.turn_number = turn;
        let reminders = orchestrator.generate_all(&ctx).await;
        assert_eq!(
            fired(&reminders, AttachmentType::CriticalInstruction).as_deref(),
            Some("Never push to main.")
        );
    }
}

#[tokio::test]
async fn per_type_switch_silences_one_generator() {
    let mut config = SystemReminderConfig {
        critical_instruction: Some("Never push to main.".to_string()),
        ..SystemReminderConfig::default()
    };
    config
        .attachments
        .set_enabled(AttachmentType::CriticalInstruction, false);
    let orchestrator = SystemReminderOrchestrator::new(config.clone());
    let mut ctx = GeneratorContext::new("/work/project").with_config(&config);
    ctx.micro_compact_cleared = 2;
    let reminders = orchestrator.generate_all(&ctx).await;
    assert_eq!(fired(&reminders, AttachmentType::CriticalInstruction), None);
    assert!(fired(&reminders, AttachmentType::MicroCompact).is_some());
}

#[tokio::test]
async fn the_orchestrators_critical_instruction_applies_without_with_config() {
    let config = SystemReminderConfig {
        critical_instruction: Some("Never push to main.".to_string()),
        ..SystemReminderConfig::default()
    };
    let orchestrator = SystemReminderOrchestrator::new(config);
    let ctx = GeneratorContext::new("/work/project");
    let reminders = orchestrator.generate_all(&ctx).await;
    assert_eq!(
        fired(&reminders, AttachmentType::CriticalInstruction).as_deref(),
        Some("Never push to main.")
    );
}

#[tokio::test]
async fn sub_agent_executor_injects_its_critical_system_reminder() {
    // The sub-agent executor runs the same orchestrator for the sub-agent with the definition's
    // `critical_system_reminder` in the context; it wins over the main config's instruction and
    // lands in the sub-agent's history next to its task, main-agent-only reminders left out.
    let config = SystemReminderConfig {
        critical_instruction: Some("Never push to main.".to_string()),
        ..SystemReminderConfig::default()
    };
    let orchestrator = SystemReminderOrchestrator::new(config.clone());
    let mut ctx = GeneratorContext::new("/work/project").with_user_prompt("find the parser");
    ctx.is_main_agent = false;
    ctx.critical_instruction =
        Some("CRITICAL: This is a PLANNING task. You MUST NOT modify any files.".to_string());
    ctx.token_usage = Some(agentctx_reminders::ContextTokenUsage {
        used: 1,
        total: 2,
        remaining: 1,
    });
    let reminders = orchestrator.generate_all(&ctx).await;
    let mut history = vec![agentctx_protocol::ResponseItem::user_text(
        "find the parser",
    )];
    agentctx_reminders::inject_system_reminders(&mut history, &reminders, config.placement);
    let texts: Vec<Option<String>> = history
        .iter()
        .map(agentctx_protocol::ResponseItem::message_text)
        .collect();
    assert_eq!(
        texts,
        vec![
            Some("find the parser".to_string()),
            Some(
                "<system-reminder>\nCRITICAL: This is a PLANNING task. You MUST NOT modify any files.\n</system-reminder>"
                    .to_string()
            ),
        ]
    );
}
