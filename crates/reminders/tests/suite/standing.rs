//! The within-turn rule of standing reminders (docs/design/reminders.md, "Standing reminders"):
//! a standing reminder whose content the model already saw in the same user turn is held back,
//! unless the content changed, a new user turn began, a compaction removed the earlier copy or
//! `todo_restate_after_requests` requests went by. Event reminders are never held back.

use std::path::PathBuf;

use agentctx_protocol::PermissionMode;
use agentctx_reminders::AttachmentGenerator;
use agentctx_reminders::AttachmentType;
use agentctx_reminders::GeneratorContext;
use agentctx_reminders::GeneratorError;
use agentctx_reminders::GeneratorStatus;
use agentctx_reminders::ReminderPlacement;
use agentctx_reminders::SystemReminder;
use agentctx_reminders::SystemReminderConfig;
use agentctx_reminders::SystemReminderOrchestrator;
use async_trait::async_trait;
use pretty_assertions::assert_eq;

/// A generator of `0`'s type that says whatever the context's `ultramemory` field holds, every
/// time: it keeps no state of its own, so only the orchestrator can hold a repeat back.
#[derive(Debug)]
struct Echo(AttachmentType);

#[async_trait]
impl AttachmentGenerator for Echo {
    fn attachment_type(&self) -> AttachmentType {
        self.0
    }

    async fn generate(
        &self,
        ctx: &GeneratorContext,
    ) -> Result<Option<SystemReminder>, GeneratorError> {
        Ok(ctx
            .ultramemory
            .clone()
            .map(|text| SystemReminder::new(self.0, text)))
    }
}

fn echoing(attachment_type: AttachmentType) -> SystemReminderOrchestrator {
    echoing_with(SystemReminderConfig::default(), attachment_type)
}

fn echoing_with(
    config: SystemReminderConfig,
    attachment_type: AttachmentType,
) -> SystemReminderOrchestrator {
    SystemReminderOrchestrator::with_generators(
        config,
        vec![std::sync::Arc::new(Echo(attachment_type))],
    )
}

/// The context of model request `request`, in user turn `user_turn`, the generator saying `text`.
fn request(request: i32, user_turn: i32, text: &str) -> GeneratorContext {
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.turn_number = request;
    ctx.user_turns = user_turn;
    ctx.ultramemory = Some(text.to_string());
    ctx
}

/// The texts that went out on `ctx`.
async fn sent(orchestrator: &SystemReminderOrchestrator, ctx: &GeneratorContext) -> Vec<String> {
    orchestrator
        .generate_all(ctx)
        .await
        .into_iter()
        .map(|reminder| reminder.content)
        .collect()
}

#[tokio::test]
async fn the_same_standing_content_twice_in_one_user_turn_is_sent_once() {
    let orchestrator = echoing(AttachmentType::OutputStyle);
    assert_eq!(
        sent(&orchestrator, &request(1, 1, "Explanatory")).await,
        ["Explanatory"]
    );
    assert_eq!(
        sent(&orchestrator, &request(2, 1, "Explanatory")).await,
        Vec::<String>::new()
    );
    let report = orchestrator
        .generate_all_with_report(&request(3, 1, "Explanatory"))
        .await;
    assert_eq!(report.reminders, Vec::new());
    let statuses = report
        .outcomes
        .iter()
        .map(|outcome| outcome.status.clone())
        .collect::<Vec<_>>();
    assert_eq!(statuses, [GeneratorStatus::Unchanged]);
}

#[tokio::test]
async fn changed_standing_content_is_sent_at_once() {
    let orchestrator = echoing(AttachmentType::BudgetUsd);
    assert_eq!(
        sent(&orchestrator, &request(1, 1, "$1/$10")).await,
        ["$1/$10"]
    );
    assert_eq!(
        sent(&orchestrator, &request(2, 1, "$2/$10")).await,
        ["$2/$10"]
    );
    // Back to an earlier text: it differs from the one the model saw last.
    assert_eq!(
        sent(&orchestrator, &request(3, 1, "$1/$10")).await,
        ["$1/$10"]
    );
    assert_eq!(
        sent(&orchestrator, &request(4, 1, "$1/$10")).await,
        Vec::<String>::new()
    );
}

#[tokio::test]
async fn a_new_user_turn_sends_unchanged_standing_content_again() {
    let orchestrator = echoing(AttachmentType::InvokedSkills);
    assert_eq!(
        sent(&orchestrator, &request(1, 1, "commit")).await,
        ["commit"]
    );
    assert_eq!(
        sent(&orchestrator, &request(2, 1, "commit")).await,
        Vec::<String>::new()
    );
    assert_eq!(
        sent(&orchestrator, &request(3, 2, "commit")).await,
        ["commit"]
    );
}

#[tokio::test]
async fn after_a_compaction_unchanged_standing_content_is_sent_again() {
    let orchestrator = echoing(AttachmentType::SessionMemory);
    let ctx = request(1, 1, "notes");
    assert_eq!(sent(&orchestrator, &ctx).await, ["notes"]);
    assert_eq!(
        sent(&orchestrator, &request(2, 1, "notes")).await,
        Vec::<String>::new()
    );
    // The compaction removed the copy the model saw.
    orchestrator.reset(&ctx);
    assert_eq!(
        sent(&orchestrator, &request(3, 1, "notes")).await,
        ["notes"]
    );
}

#[tokio::test]
async fn unchanged_standing_content_is_restated_after_the_configured_requests() {
    let config = SystemReminderConfig {
        todo_restate_after_requests: 5,
        ..SystemReminderConfig::default()
    };
    let orchestrator = echoing_with(config.clone(), AttachmentType::PlanFileReference);
    let at = |number: i32| request(number, 1, "the plan of otter.md").with_config(&config);
    assert_eq!(sent(&orchestrator, &at(1)).await.len(), 1);
    for number in 2..=5 {
        assert_eq!(sent(&orchestrator, &at(number)).await.len(), 0, "{number}");
    }
    // Five requests after the model saw it: stale enough to say again.
    assert_eq!(sent(&orchestrator, &at(6)).await.len(), 1);
    assert_eq!(sent(&orchestrator, &at(7)).await.len(), 0);
}

#[tokio::test]
async fn event_reminders_are_never_held_back() {
    for attachment_type in [
        AttachmentType::QueuedCommands,
        AttachmentType::ChangedFiles,
        AttachmentType::ToolResult,
        AttachmentType::HookAdditionalContext,
        AttachmentType::AtMentionedFiles,
    ] {
        let orchestrator = echoing(attachment_type);
        for number in 1..=3 {
            let mut ctx = request(number, 1, "the same words");
            ctx.has_user_input = true;
            assert_eq!(
                sent(&orchestrator, &ctx).await,
                ["the same words"],
                "{attachment_type} on request {number}"
            );
        }
    }
}

#[tokio::test]
async fn rebuilt_placement_shows_standing_reminders_on_every_request() {
    // Rebuilt into each prompt, the earlier copy is no longer in front of the model.
    let config = SystemReminderConfig {
        placement: ReminderPlacement::AfterEnvironmentContext,
        ..SystemReminderConfig::default()
    };
    let orchestrator = echoing_with(config, AttachmentType::OutputStyle);
    for number in 1..=3 {
        assert_eq!(
            sent(&orchestrator, &request(number, 1, "Explanatory")).await,
            ["Explanatory"]
        );
    }
}

/// The requests of one long user turn in plan mode on which the plan mode reminder went out,
/// and whether it was the full one.
async fn plan_mode_requests(user_turn_of: impl Fn(i32) -> i32) -> Vec<(i32, &'static str)> {
    let orchestrator = SystemReminderOrchestrator::new(SystemReminderConfig::default());
    // The throttle lives in the context's shared `Arc`: every request starts from one context.
    let session = GeneratorContext::new("/work/project");
    let mut fired = Vec::new();
    for number in 1..=21 {
        let mut ctx = session.clone();
        ctx.turn_number = number;
        ctx.user_turns = user_turn_of(number);
        ctx.permission_mode = PermissionMode::Plan;
        ctx.plan.plan_file_path = Some(PathBuf::from("/home/u/.agentctx/plans/otter.md"));
        for reminder in orchestrator.generate_all(&ctx).await {
            if reminder.attachment_type == AttachmentType::PlanMode {
                let kind = if reminder.content.contains("## Plan Workflow") {
                    "full"
                } else {
                    "sparse"
                };
                fired.push((number, kind));
            }
        }
    }
    fired
}

#[tokio::test]
async fn plan_mode_counts_user_turns_as_claude_code_does() {
    // One user turn of 21 requests: the full text once. Claude Code 2.1 counts plan mode's five
    // turns in human turns, so a long tool loop never repeats it.
    assert_eq!(plan_mode_requests(|_| 1).await, [(1, "full")]);
    // Every request a user turn of its own: the throttle alone decides.
    assert_eq!(
        plan_mode_requests(|number| number).await,
        [
            (1, "full"),
            (6, "sparse"),
            (11, "sparse"),
            (16, "sparse"),
            (21, "sparse")
        ]
    );
}
