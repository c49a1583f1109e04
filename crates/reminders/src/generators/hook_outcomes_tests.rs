use std::sync::Mutex;

use pretty_assertions::assert_eq;

use super::*;
use crate::providers::HookEventType;

#[derive(Debug, Default)]
struct FakeHooks {
    outcomes: Mutex<Vec<HookOutcome>>,
}

impl HookResponseProvider for FakeHooks {
    fn take_hook_outcomes(&self) -> Vec<HookOutcome> {
        std::mem::take(&mut *self.outcomes.lock().unwrap())
    }
}

fn outcomes() -> Vec<HookOutcome> {
    vec![
        HookOutcome::BlockingError {
            hook_name: "PreToolUse:Bash".to_string(),
            command: "./hooks/deny-push.sh".to_string(),
            blocking_error: "git push is not allowed from the agent".to_string(),
        },
        HookOutcome::Success {
            hook_event: HookEventType("SessionStart".to_string()),
            hook_name: "SessionStart:startup".to_string(),
            content: "Loaded 3 project notes.".to_string(),
        },
        HookOutcome::Success {
            hook_event: HookEventType("PostToolUse".to_string()),
            hook_name: "PostToolUse:Edit".to_string(),
            content: "formatted".to_string(),
        },
        HookOutcome::AdditionalContext {
            hook_name: "UserPromptSubmit".to_string(),
            content: vec![
                "Current branch: feature/parser".to_string(),
                "2 files staged".to_string(),
            ],
        },
        HookOutcome::AdditionalContext {
            hook_name: "UserPromptSubmit".to_string(),
            content: Vec::new(),
        },
        HookOutcome::StoppedContinuation {
            hook_name: "Stop".to_string(),
            message: "Tests are failing; fix them before stopping.".to_string(),
        },
    ]
}

#[tokio::test]
async fn each_hook_generator_takes_its_own_outcomes_once() {
    let hooks = Arc::new(FakeHooks::default());
    *hooks.outcomes.lock().unwrap() = outcomes();
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.providers.hooks = hooks;
    let generators = hook_outcome_generators();
    // Run in reverse so the first to drain the provider is not the first type.
    let mut texts = Vec::new();
    for generator in generators.iter().rev() {
        let reminder = generator.generate(&ctx).await.unwrap().unwrap();
        assert_eq!(reminder.attachment_type, generator.attachment_type());
        texts.push((generator.name().to_string(), reminder.wrap_xml()));
    }
    texts.reverse();
    let [blocking, success, context, stopped] = texts.try_into().unwrap();
    assert_eq!(blocking.0, "hook_blocking_error");
    insta::assert_snapshot!("hook_blocking_error", blocking.1);
    insta::assert_snapshot!("hook_success", success.1);
    insta::assert_snapshot!("hook_additional_context", context.1);
    insta::assert_snapshot!("hook_stopped_continuation", stopped.1);
    for generator in &generators {
        assert_eq!(generator.generate(&ctx).await.unwrap(), None);
    }
}

#[test]
fn hook_success_of_other_events_and_empty_output_stay_silent() {
    let silent = HookOutcome::Success {
        hook_event: HookEventType("UserPromptSubmit".to_string()),
        hook_name: "UserPromptSubmit".to_string(),
        content: String::new(),
    };
    assert_eq!(render_hook_outcome(&silent), None);
    let other = HookOutcome::Success {
        hook_event: HookEventType("PreToolUse".to_string()),
        hook_name: "PreToolUse:Bash".to_string(),
        content: "ok".to_string(),
    };
    assert_eq!(render_hook_outcome(&other), None);
}

#[tokio::test]
async fn outcomes_of_a_disabled_hook_type_are_drained_from_the_shared_inbox() {
    let hooks = Arc::new(FakeHooks::default());
    *hooks.outcomes.lock().unwrap() = outcomes();
    let mut ctx = GeneratorContext::new("/work/project");
    ctx.providers.hooks = hooks.clone();
    let inbox = Arc::new(HookOutcomeInbox::default());
    let generators: Vec<Arc<dyn AttachmentGenerator>> = [
        AttachmentType::HookBlockingError,
        AttachmentType::HookSuccess,
        AttachmentType::HookAdditionalContext,
        AttachmentType::HookStoppedContinuation,
    ]
    .into_iter()
    .map(|attachment_type| {
        Arc::new(HookOutcomeGenerator::new(attachment_type, inbox.clone()))
            as Arc<dyn AttachmentGenerator>
    })
    .collect();
    let mut config = crate::SystemReminderConfig::default();
    config
        .attachments
        .set_enabled(AttachmentType::HookSuccess, false);
    config
        .attachments
        .set_enabled(AttachmentType::HookStoppedContinuation, false);
    let orchestrator = crate::SystemReminderOrchestrator::with_generators(config, generators);

    let produced: Vec<AttachmentType> = orchestrator
        .generate_all(&ctx)
        .await
        .iter()
        .map(|reminder| reminder.attachment_type)
        .collect();
    assert_eq!(
        produced,
        vec![
            AttachmentType::HookBlockingError,
            AttachmentType::HookAdditionalContext
        ]
    );
    let nothing_new = FakeHooks::default();
    for attachment_type in [
        AttachmentType::HookSuccess,
        AttachmentType::HookStoppedContinuation,
    ] {
        assert_eq!(inbox.take(&nothing_new, attachment_type), Vec::new());
    }

    // With every hook type disabled nothing reads the provider, yet its outcomes are drained.
    *hooks.outcomes.lock().unwrap() = outcomes();
    let mut all_off = crate::SystemReminderConfig::default();
    for attachment_type in [
        AttachmentType::HookBlockingError,
        AttachmentType::HookSuccess,
        AttachmentType::HookAdditionalContext,
        AttachmentType::HookStoppedContinuation,
    ] {
        all_off.attachments.set_enabled(attachment_type, false);
    }
    let orchestrator = crate::SystemReminderOrchestrator::with_generators(
        all_off,
        orchestrator.generators().to_vec(),
    );
    assert_eq!(orchestrator.generate_all(&ctx).await, Vec::new());
    assert_eq!(hooks.outcomes.lock().unwrap().len(), 0);
    assert_eq!(
        inbox.take(&nothing_new, AttachmentType::HookSuccess),
        Vec::new()
    );
}
