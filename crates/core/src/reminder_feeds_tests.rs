use std::path::PathBuf;

use agentctx_protocol::BackgroundTask;
use agentctx_protocol::BackgroundTaskStatus;
use agentctx_protocol::BackgroundTaskType;
use agentctx_protocol::TodoItem;
use agentctx_protocol::TodoStatus;
use agentctx_reminders::SystemReminderConfig;
use agentctx_reminders::SystemReminderOrchestrator;
use pretty_assertions::assert_eq;

use super::*;
use crate::process::BackgroundProcess;
use crate::session_state::BackgroundShell;

fn todo(status: TodoStatus) -> TodoItem {
    TodoItem {
        content: "Implement the plan".to_string(),
        status,
        active_form: "Implementing the plan".to_string(),
    }
}

#[tokio::test]
async fn the_plan_is_verified_once_its_todo_list_is_done_after_plan_mode_was_left() {
    let mut feeds = ReminderFeeds::default();
    let mut state = SessionState::default();
    state.plan.plan_file = Some(PathBuf::from("/home/u/.agentctx/plans/otter.md"));
    let orchestrator = SystemReminderOrchestrator::new(SystemReminderConfig::default());
    let mut verify_texts = Vec::new();
    // Plan mode left (the plan approved), then the list worked through.
    let steps = [
        (true, vec![todo(TodoStatus::InProgress)]),
        (false, vec![todo(TodoStatus::InProgress)]),
        (false, vec![todo(TodoStatus::Completed)]),
        (false, vec![todo(TodoStatus::Completed)]),
    ];
    for (just_exited, todos) in steps {
        state.plan.just_exited = just_exited;
        state.todos = todos;
        let mut ctx = GeneratorContext::new("/work/project");
        feeds.apply(&mut ctx, &state, None);
        let fired = orchestrator.generate_all(&ctx).await;
        verify_texts.push(
            fired
                .iter()
                .filter(|reminder| {
                    reminder.attachment_type
                        == agentctx_reminders::AttachmentType::VerifyPlanReminder
                })
                .map(|reminder| reminder.content.clone())
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(verify_texts[0], Vec::<String>::new());
    assert_eq!(verify_texts[1], Vec::<String>::new());
    assert_eq!(
        verify_texts[2],
        vec!["You have completed implementing the plan. Before you finish, read the plan (/home/u/.agentctx/plans/otter.md) again and check that every item of it was completed correctly; fix what is missing.".to_string()]
    );
    // Once.
    assert_eq!(verify_texts[3], Vec::<String>::new());
}

#[tokio::test]
async fn a_completed_list_without_an_approved_plan_is_not_a_plan_to_verify() {
    let mut feeds = ReminderFeeds::default();
    let state = SessionState {
        todos: vec![todo(TodoStatus::Completed)],
        ..SessionState::default()
    };
    let mut ctx = GeneratorContext::new("/work/project");
    feeds.apply(&mut ctx, &state, None);
    assert!(!ctx.plan.implementation_complete);
}

#[tokio::test]
async fn a_running_shell_reports_its_latest_output_line_as_progress() {
    let mut feeds = ReminderFeeds::default();
    let mut state = SessionState::default();
    let process =
        BackgroundProcess::spawn("echo 'compiling 3/10'; sleep 30", Path::new("/")).unwrap();
    // The reader task copies the output in the background.
    for _ in 0..500 {
        if process.output_len() > 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    state.shells.insert(
        "bash_1".to_string(),
        BackgroundShell {
            command: "cargo build".to_string(),
            description: "build".to_string(),
            process,
        },
    );
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.background_tasks = vec![BackgroundTask {
        task_id: "bash_1".to_string(),
        task_type: BackgroundTaskType::Shell,
        command: Some("cargo build".to_string()),
        description: "build".to_string(),
        status: BackgroundTaskStatus::Running,
        exit_code: None,
        output_len: 16,
        delta_summary: None,
        progress_message: None,
    }];
    feeds.apply(&mut ctx, &state, None);
    assert_eq!(
        ctx.background_tasks[0].progress_message.as_deref(),
        Some(
            "Background Bash bash_1 (command: cargo build) is still running; its latest output: compiling 3/10"
        )
    );
    if let Some(shell) = state.shells.get_mut("bash_1") {
        shell.process.kill();
    }
}

#[test]
fn spend_is_priced_from_the_bundled_table_and_unknown_models_are_counted_apart() {
    let mut meter = SpendMeter::default();
    let usage = TokenUsage {
        input_tokens: 1_000_000,
        output_tokens: 0,
        ..TokenUsage::default()
    };
    meter.record("gpt-4o-mini", &usage);
    assert!(meter.usd > 0.0, "{meter:?}");
    let priced = meter.usd;
    meter.record("no-such-model-anywhere", &usage);
    assert_eq!(meter.usd, priced);
    assert_eq!(meter.unpriced_requests, 1);
    let budget = meter.budget(priced * 4.0);
    assert_eq!(budget.remaining, priced * 3.0);
}

#[test]
fn queued_prompts_are_handed_over_once() {
    let queue = CommandQueue::default();
    let handle = queue.clone();
    handle.push("also run clippy");
    assert_eq!(queue.len(), 1);
    let taken = queue.take_queued_commands();
    assert_eq!(taken.len(), 1);
    assert_eq!(taken[0].prompt, "also run clippy");
    assert!(queue.take_queued_commands().is_empty());
}

#[test]
fn prompts_no_request_showed_are_taken_in_order_for_the_next_turn() {
    let queue = CommandQueue::default();
    queue.push("first");
    queue.push("second");
    assert_eq!(queue.take_prompts(), vec!["first", "second"]);
    assert!(queue.is_empty());
}
