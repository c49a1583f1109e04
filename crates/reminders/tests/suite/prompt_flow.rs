//! Reminders in the prompt across turns: placement, prompt-cache friendliness, compaction.

use std::fs;

use agentctx_protocol::ResponseItem;
use agentctx_reminders::AttachmentType;
use agentctx_reminders::GeneratorContext;
use agentctx_reminders::ReminderPlacement;
use agentctx_reminders::SystemReminderConfig;
use agentctx_reminders::SystemReminderOrchestrator;
use agentctx_reminders::filter_system_reminders;
use agentctx_reminders::inject_system_reminders;
use agentctx_reminders::is_system_reminder_message;
use pretty_assertions::assert_eq;

const CRITICAL: &str = "Never push to main.";

fn initial_context() -> Vec<ResponseItem> {
    vec![
        ResponseItem::developer_text(
            "<permissions instructions>read-only</permissions instructions>",
        ),
        ResponseItem::user_text("<user_instructions>\nBe brief.\n</user_instructions>"),
        ResponseItem::user_text("<environment_context>\n  <cwd>/p</cwd>\n</environment_context>"),
    ]
}

/// The bytes a client sends: one JSON line per input item.
fn request_bytes(prompt: &[ResponseItem]) -> String {
    prompt
        .iter()
        .map(|item| serde_json::to_string(item).unwrap() + "\n")
        .collect()
}

fn rendered(prompt: &[ResponseItem]) -> Vec<String> {
    prompt
        .iter()
        .map(|item| {
            format!(
                "{}:{}",
                item.role().unwrap_or(item.type_name()),
                item.message_text().unwrap_or_default()
            )
        })
        .collect()
}

struct Session {
    dir: tempfile::TempDir,
    config: SystemReminderConfig,
    orchestrator: SystemReminderOrchestrator,
    ctx: GeneratorContext,
    history: Vec<ResponseItem>,
}

impl Session {
    fn new(placement: ReminderPlacement) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let config = SystemReminderConfig {
            critical_instruction: Some(CRITICAL.to_string()),
            placement,
            ..SystemReminderConfig::default()
        };
        let orchestrator = SystemReminderOrchestrator::new(config.clone()).with_sampler_seed(1);
        let ctx = GeneratorContext::new(dir.path()).with_config(&config);
        Self {
            dir,
            config,
            orchestrator,
            ctx,
            history: initial_context(),
        }
    }

    /// One turn: record the user input, generate reminders, build the prompt the model gets.
    async fn turn(&mut self, turn: i32, input: &str) -> Vec<ResponseItem> {
        self.history.push(ResponseItem::user_text(input));
        self.ctx.turn_number = turn;
        self.ctx.user_prompt = Some(input.to_string());
        self.ctx.has_user_input = true;
        let reminders = self.orchestrator.generate_all(&self.ctx).await;
        match self.config.placement {
            ReminderPlacement::Tail => {
                inject_system_reminders(&mut self.history, &reminders, ReminderPlacement::Tail);
                self.history.clone()
            }
            ReminderPlacement::AfterEnvironmentContext => {
                let mut prompt = self.history.clone();
                inject_system_reminders(
                    &mut prompt,
                    &reminders,
                    ReminderPlacement::AfterEnvironmentContext,
                );
                prompt
            }
        }
    }

    /// The model's answer: it reads `name`, and says something.
    fn model_reads(&mut self, name: &str, text: &str) {
        let path = self.dir.path().join(name);
        fs::write(&path, text).unwrap();
        self.history.push(ResponseItem::function_call(
            "read_file",
            format!("{{\"path\":\"{name}\"}}"),
            "call-1",
        ));
        self.ctx
            .file_tracker
            .track_read(&path, text, self.ctx.turn_number, None, None);
        self.history
            .push(ResponseItem::function_call_output("call-1", text));
        self.history.push(ResponseItem::assistant_text("Read it."));
    }
}

#[tokio::test]
async fn reminders_are_in_the_request_sent_to_the_model() {
    let mut session = Session::new(ReminderPlacement::Tail);
    let prompt = session.turn(1, "hello").await;
    let request = request_bytes(&prompt);
    assert!(
        request.contains("<system-reminder>\\nNever push to main.\\n</system-reminder>"),
        "{request}"
    );
}

#[tokio::test]
async fn after_environment_context_placement_puts_reminders_after_the_environment_context() {
    let mut session = Session::new(ReminderPlacement::AfterEnvironmentContext);
    let prompt = session.turn(1, "hello").await;
    insta::assert_snapshot!(
        "after_environment_context_prompt",
        rendered(&prompt).join("\n")
    );
    // Rebuilt per prompt: the history itself never holds reminders.
    assert!(!session.history.iter().any(is_system_reminder_message));
}

#[tokio::test]
async fn tail_placement_makes_each_prompt_a_byte_identical_extension_of_the_previous() {
    let mut session = Session::new(ReminderPlacement::Tail);
    let first = session.turn(1, "read notes.txt").await;
    session.model_reads("notes.txt", "alpha\nbeta\n");
    // Someone edits the file between turns: turn 2 carries a changed_files reminder too.
    fs::write(session.dir.path().join("notes.txt"), "alpha\nBETA\n").unwrap();
    let second = session.turn(2, "and now?").await;
    let third = session.turn(3, "thanks").await;

    let (first_bytes, second_bytes, third_bytes) = (
        request_bytes(&first),
        request_bytes(&second),
        request_bytes(&third),
    );
    assert!(second_bytes.starts_with(&first_bytes));
    assert!(third_bytes.starts_with(&second_bytes));
    assert_eq!(second[..first.len()], first[..]);
    let tail: Vec<String> = rendered(&second[first.len()..]);
    // The call, its output, the answer, the new input and the changed-file note: the critical
    // instruction of turn 1 is still in the history, so it is not appended again.
    assert_eq!(tail.len(), 5, "{tail:#?}");
    assert!(
        tail[4].starts_with("user:<system-reminder>\nNote: "),
        "{tail:#?}"
    );
    insta::assert_snapshot!(
        "tail_prompt_turn_2",
        rendered(&second)
            .join("\n")
            .replace(&session.dir.path().display().to_string(), "[TMP]")
    );
}

#[tokio::test]
async fn after_environment_context_placement_rewrites_the_prompt_middle() {
    let mut session = Session::new(ReminderPlacement::AfterEnvironmentContext);
    let first = session.turn(1, "hi").await;
    session.model_reads("a.txt", "x\n");
    fs::write(session.dir.path().join("a.txt"), "y\n").unwrap();
    let second = session.turn(2, "again").await;
    // The turn-2 changed_files reminder lands before turn 1's messages: the prefix breaks,
    // which is why tail is the default.
    assert!(!request_bytes(&second).starts_with(&request_bytes(&first)));
    assert_eq!(
        SystemReminderConfig::default().placement,
        ReminderPlacement::Tail
    );
}

#[test]
fn is_system_reminder_message_identifies_reminders() {
    for text in [
        "<system-reminder>\nx\n</system-reminder>",
        "<system-notification>x</system-notification>",
        "<session-memory>\nx\n</session-memory>",
        "<new-diagnostics>x</new-diagnostics>",
    ] {
        assert!(
            is_system_reminder_message(&ResponseItem::user_text(text)),
            "{text}"
        );
        assert!(
            !is_system_reminder_message(&ResponseItem::assistant_text(text)),
            "{text}"
        );
    }
    assert!(!is_system_reminder_message(&ResponseItem::user_text(
        "please add a <system-reminder> tag"
    )));
    assert!(!is_system_reminder_message(&ResponseItem::user_text(
        "hello"
    )));
}

#[tokio::test]
async fn reminders_filtered_during_summarization() {
    let mut session = Session::new(ReminderPlacement::Tail);
    session.turn(1, "first").await;
    session.model_reads("a.txt", "x\n");
    session.turn(2, "second").await;
    assert!(session.history.iter().any(is_system_reminder_message));
    let to_summarize = filter_system_reminders(&session.history);
    assert!(!to_summarize.iter().any(is_system_reminder_message));
    assert!(!request_bytes(&to_summarize).contains(CRITICAL));
    // Everything else is kept, in order.
    let kept: Vec<&ResponseItem> = session
        .history
        .iter()
        .filter(|item| !is_system_reminder_message(item))
        .collect();
    assert_eq!(to_summarize.iter().collect::<Vec<_>>(), kept);
}

#[tokio::test]
async fn critical_reminders_re_injected_after_compaction() {
    let mut session = Session::new(ReminderPlacement::Tail);
    session.turn(1, "first").await;
    // Compaction: the history becomes the initial context plus a summary; reminders are gone.
    let mut compacted = initial_context();
    compacted.push(ResponseItem::user_text(
        "Summary of the conversation so far: ...",
    ));
    assert!(!request_bytes(&compacted).contains(CRITICAL));
    session.history = compacted;
    // What core does after a compaction.
    session.orchestrator.reset(&session.ctx);
    let prompt = session.turn(2, "continue").await;
    let critical = prompt
        .iter()
        .filter(|item| {
            item.message_text().is_some_and(|text| {
                text == format!("<system-reminder>\n{CRITICAL}\n</system-reminder>")
            })
        })
        .count();
    assert_eq!(critical, 1);
}

#[tokio::test]
async fn sub_agents_get_core_reminders_but_not_main_agent_ones() {
    let mut session = Session::new(ReminderPlacement::Tail);
    session.ctx.is_main_agent = false;
    session.ctx.budget = Some(agentctx_reminders::BudgetInfo {
        used: 1.0,
        total: 10.0,
        remaining: 9.0,
    });
    let reminders = session.orchestrator.generate_all(&session.ctx).await;
    let types: Vec<AttachmentType> = reminders.iter().map(|r| r.attachment_type).collect();
    assert_eq!(types, vec![AttachmentType::CriticalInstruction]);
    session.ctx.is_main_agent = true;
    let reminders = session.orchestrator.generate_all(&session.ctx).await;
    assert!(
        reminders
            .iter()
            .any(|r| r.attachment_type == AttachmentType::BudgetUsd)
    );
}
