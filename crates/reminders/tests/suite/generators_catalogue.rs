//! The whole generator catalogue through the orchestrator: one turn where (almost) every
//! generator has something to say, then the same state again, which must stay quiet.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;

use agentctx_protocol::PermissionMode;
use agentctx_protocol::TodoItem;
use agentctx_protocol::TodoStatus;
use agentctx_reminders::AsyncHookResponse;
use agentctx_reminders::AttachmentType;
use agentctx_reminders::BackgroundTaskInfo;
use agentctx_reminders::BackgroundTaskStatus;
use agentctx_reminders::BackgroundTaskType;
use agentctx_reminders::BudgetInfo;
use agentctx_reminders::CollabChat;
use agentctx_reminders::ContextTokenUsage;
use agentctx_reminders::Diagnostic;
use agentctx_reminders::DiagnosticFile;
use agentctx_reminders::DiagnosticSeverity;
use agentctx_reminders::DiagnosticsProvider;
use agentctx_reminders::GeneratorContext;
use agentctx_reminders::HookEventType;
use agentctx_reminders::HookOutcome;
use agentctx_reminders::HookResponse;
use agentctx_reminders::HookResponseProvider;
use agentctx_reminders::IdeProvider;
use agentctx_reminders::IdeSelection;
use agentctx_reminders::InvokedSkill;
use agentctx_reminders::McpResource;
use agentctx_reminders::McpResourceContent;
use agentctx_reminders::McpResourceProvider;
use agentctx_reminders::ProviderError;
use agentctx_reminders::QueuedCommand;
use agentctx_reminders::QueuedCommandsProvider;
use agentctx_reminders::ReminderTier;
use agentctx_reminders::SessionMemoryEntry;
use agentctx_reminders::SystemReminder;
use agentctx_reminders::SystemReminderConfig;
use agentctx_reminders::SystemReminderOrchestrator;
use agentctx_reminders::TeammateMailbox;
use agentctx_reminders::TeammateMessage;
use agentctx_reminders::ToolResultInfo;
use agentctx_reminders::XmlTag;
use async_trait::async_trait;
use pretty_assertions::assert_eq;

/// A host with something in every outside source.
#[derive(Debug, Default)]
struct BusyHost {
    queued: Mutex<Vec<QueuedCommand>>,
    messages: Mutex<Vec<TeammateMessage>>,
    diagnostics: Mutex<Vec<DiagnosticFile>>,
    lsp: Mutex<Vec<DiagnosticFile>>,
    async_hooks: Mutex<Vec<AsyncHookResponse>>,
    outcomes: Mutex<Vec<HookOutcome>>,
}

impl BusyHost {
    fn loaded() -> Self {
        let diagnostic = |message: &str, severity| DiagnosticFile {
            file_path: PathBuf::from("/work/project/src/parser.rs"),
            diagnostics: vec![Diagnostic {
                message: message.to_string(),
                severity,
                line: 7,
                column: Some(3),
                code: None,
                source: Some("rustc".to_string()),
            }],
        };
        Self {
            queued: Mutex::new(vec![QueuedCommand {
                prompt: "Also update the README.".to_string(),
                source_uuid: "u-9".to_string(),
                image_paste_ids: Vec::new(),
            }]),
            messages: Mutex::new(vec![TeammateMessage {
                from: "team-lead".to_string(),
                text: "Take task #3.".to_string(),
            }]),
            diagnostics: Mutex::new(vec![diagnostic(
                "unused import",
                DiagnosticSeverity::Warning,
            )]),
            lsp: Mutex::new(vec![diagnostic(
                "cannot find value `x`",
                DiagnosticSeverity::Error,
            )]),
            async_hooks: Mutex::new(vec![AsyncHookResponse {
                process_id: "77".to_string(),
                hook_name: "PostToolUse:Edit".to_string(),
                hook_event: HookEventType("PostToolUse".to_string()),
                tool_name: Some("Edit".to_string()),
                response: HookResponse {
                    system_message: Some("Formatted src/parser.rs.".to_string()),
                    additional_context: None,
                },
                stdout: None,
                stderr: None,
                exit_code: Some(0),
            }]),
            outcomes: Mutex::new(vec![
                HookOutcome::BlockingError {
                    hook_name: "PreToolUse:Bash".to_string(),
                    command: "./deny-push.sh".to_string(),
                    blocking_error: "no pushes".to_string(),
                },
                HookOutcome::Success {
                    hook_event: HookEventType("UserPromptSubmit".to_string()),
                    hook_name: "UserPromptSubmit".to_string(),
                    content: "branch feature/parser".to_string(),
                },
                HookOutcome::AdditionalContext {
                    hook_name: "SessionStart".to_string(),
                    content: vec!["CI is green".to_string()],
                },
                HookOutcome::StoppedContinuation {
                    hook_name: "Stop".to_string(),
                    message: "tests fail".to_string(),
                },
            ]),
        }
    }
}

fn take<T>(items: &Mutex<Vec<T>>) -> Vec<T> {
    std::mem::take(&mut *items.lock().unwrap())
}

impl QueuedCommandsProvider for BusyHost {
    fn take_queued_commands(&self) -> Vec<QueuedCommand> {
        take(&self.queued)
    }
}

impl TeammateMailbox for BusyHost {
    fn unread_chats(&self) -> Vec<CollabChat> {
        vec![CollabChat {
            handle: "reviewer".to_string(),
            unread_count: 2,
        }]
    }
    fn take_messages(&self) -> Vec<TeammateMessage> {
        take(&self.messages)
    }
}

impl DiagnosticsProvider for BusyHost {
    fn take_new_diagnostics(&self) -> Vec<DiagnosticFile> {
        take(&self.diagnostics)
    }
    fn take_new_lsp_diagnostics(&self) -> Vec<DiagnosticFile> {
        take(&self.lsp)
    }
}

impl HookResponseProvider for BusyHost {
    fn take_async_responses(&self) -> Vec<AsyncHookResponse> {
        take(&self.async_hooks)
    }
    fn take_hook_outcomes(&self) -> Vec<HookOutcome> {
        take(&self.outcomes)
    }
}

impl IdeProvider for BusyHost {
    fn selection(&self) -> Option<IdeSelection> {
        Some(IdeSelection {
            filename: PathBuf::from("/work/project/src/parser.rs"),
            line_start: 7,
            line_end: 7,
            content: "let y = x + 1;".to_string(),
        })
    }
}

#[async_trait]
impl McpResourceProvider for BusyHost {
    fn has_server(&self, server: &str) -> bool {
        server == "docs"
    }
    async fn read_resource(
        &self,
        server: &str,
        uri: &str,
    ) -> Result<Option<McpResource>, ProviderError> {
        Ok(Some(McpResource {
            server: server.to_string(),
            uri: uri.to_string(),
            name: "style".to_string(),
            description: None,
            content: McpResourceContent::Text("One import per line.".to_string()),
        }))
    }
}

fn task(
    id: &str,
    task_type: BackgroundTaskType,
    status: BackgroundTaskStatus,
    progress: Option<&str>,
) -> BackgroundTaskInfo {
    BackgroundTaskInfo {
        task_id: id.to_string(),
        task_type,
        command: (task_type == BackgroundTaskType::Shell).then(|| "cargo test".to_string()),
        description: format!("task {id}"),
        status,
        exit_code: (status == BackgroundTaskStatus::Completed).then_some(0),
        output_len: 64,
        delta_summary: None,
        progress_message: progress.map(str::to_string),
    }
}

/// Turn 6 of a busy main-agent session in plan mode (re-entered), as a team lead.
fn busy_turn(host: Arc<BusyHost>, plan_file: PathBuf) -> GeneratorContext {
    let config = SystemReminderConfig {
        critical_instruction: Some("Never push to main.".to_string()),
        enable_token_usage: true,
        ..SystemReminderConfig::default()
    };
    let mut ctx = GeneratorContext::new("/work/project")
        .with_config(&config)
        .with_user_prompt("Plan with @agent-Plan, following @docs:guide://style");
    ctx.turn_number = 6;
    ctx.permission_mode = PermissionMode::Plan;
    ctx.plan.plan_file_path = Some(plan_file.clone());
    ctx.plan.is_reentry = true;
    ctx.plan.implementation_complete = true;
    ctx.plan.reference_file = Some(plan_file);
    ctx.delegate.active = true;
    ctx.delegate.team_name = Some("parser-team".to_string());
    ctx.delegate.task_list_path = Some(PathBuf::from("/work/teams/parser-team/tasks/"));
    ctx.todo.items = vec![TodoItem {
        content: "Write the plan".to_string(),
        status: TodoStatus::InProgress,
        active_form: "Writing the plan".to_string(),
    }];
    ctx.todo.last_write_turn = Some(1);
    ctx.assistant_messages = 12;
    ctx.last_tool_results = vec![ToolResultInfo {
        tool_name: "Bash".to_string(),
        call_id: "call_9".to_string(),
        success: false,
        duration_ms: 2_300,
    }];
    ctx.background_tasks = vec![
        task(
            "bash_1",
            BackgroundTaskType::Shell,
            BackgroundTaskStatus::Completed,
            None,
        ),
        task(
            "agent_2",
            BackgroundTaskType::AsyncAgent,
            BackgroundTaskStatus::Completed,
            None,
        ),
        task(
            "agent_3",
            BackgroundTaskType::AsyncAgent,
            BackgroundTaskStatus::Running,
            Some("Read 12 of 40 files"),
        ),
    ];
    ctx.token_usage = Some(ContextTokenUsage {
        used: 30_000,
        total: 200_000,
        remaining: 170_000,
    });
    ctx.budget = Some(BudgetInfo {
        used: 0.5,
        total: 5.0,
        remaining: 4.5,
    });
    ctx.session_memory = vec![SessionMemoryEntry {
        full_path: PathBuf::from("/home/u/.agentctx/session-memory/s1/summary.md"),
        content: "## Current Task\nCI setup".to_string(),
        last_modified: None,
        remaining_lines: 0,
    }];
    ctx.invoked_skills = vec![InvokedSkill {
        name: "commit".to_string(),
        path: PathBuf::from("/work/project/.agentctx/skills/commit/SKILL.md"),
        content: "Small commits.".to_string(),
    }];
    ctx.output_style = Some("Explanatory".to_string());
    ctx.compact_file_references = vec![PathBuf::from("/work/project/big.json")];
    ctx.micro_compact_cleared = 3;
    ctx.ultramemory = Some("The user likes short answers.".to_string());
    ctx.providers.ide = host.clone();
    ctx.providers.diagnostics = host.clone();
    ctx.providers.mcp = host.clone();
    ctx.providers.hooks = host.clone();
    ctx.providers.mailbox = host.clone();
    ctx.providers.queued_commands = host;
    ctx
}

fn render(reminders: &[SystemReminder], redact: &str) -> String {
    reminders
        .iter()
        .enumerate()
        .map(|(index, reminder)| {
            format!(
                "{index:02}:{}\n{}",
                reminder.attachment_type,
                reminder.wrap_xml().replace(redact, "[TMP]")
            )
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[tokio::test]
async fn every_catalogue_generator_in_one_turn_in_catalogue_order() {
    let dir = tempfile::tempdir().unwrap();
    let plan_file = dir.path().join("brave-otter.md");
    std::fs::write(&plan_file, "# Plan: parser\n").unwrap();
    let host = Arc::new(BusyHost::loaded());
    let ctx = busy_turn(host, plan_file.clone());
    let orchestrator = SystemReminderOrchestrator::new(SystemReminderConfig {
        enable_token_usage: true,
        ..SystemReminderConfig::default()
    });
    let reminders = orchestrator.generate_all(&ctx).await;

    let types = reminders
        .iter()
        .map(|reminder| reminder.attachment_type)
        .collect::<Vec<_>>();
    let mut sorted = types.clone();
    sorted.sort_by_key(|attachment_type| attachment_type.sort_key());
    assert_eq!(types, sorted, "user prompt, then core, then main agent");
    let expected_missing = [
        // Nothing was read, nothing changed on disk.
        AttachmentType::AtMentionedFiles,
        AttachmentType::ChangedFiles,
        AttachmentType::NestedMemory,
        // Plan mode is active, so it was not just left; delegate mode likewise.
        AttachmentType::PlanModeExit,
        AttachmentType::DelegateModeExit,
        // A selection hides the opened file.
        AttachmentType::IdeOpenedFile,
    ];
    for attachment_type in AttachmentType::ALL {
        assert_eq!(
            types.contains(attachment_type),
            !expected_missing.contains(attachment_type),
            "{attachment_type}"
        );
    }
    for reminder in &reminders {
        assert!(reminder.is_meta(), "{}", reminder.attachment_type);
        let text = reminder.wrap_xml();
        match reminder.xml_tag() {
            XmlTag::SystemReminder => assert!(text.starts_with("<system-reminder>\n")),
            XmlTag::SystemNotification => assert!(text.starts_with("<system-notification>A")),
            XmlTag::NewDiagnostics => assert!(text.starts_with("<new-diagnostics>The")),
            XmlTag::SessionMemory => assert!(text.starts_with("<session-memory>\n")),
            XmlTag::None => assert!(text.starts_with("<teammate-message ")),
        }
    }
    assert_eq!(
        reminders
            .iter()
            .filter(|reminder| reminder.tier() == ReminderTier::UserPrompt)
            .count(),
        2
    );
    insta::assert_snapshot!(
        "catalogue_busy_turn",
        render(&reminders, dir.path().to_str().unwrap())
    );
}

#[tokio::test]
async fn the_same_state_on_the_next_turn_only_repeats_the_always_on_reminders() {
    let dir = tempfile::tempdir().unwrap();
    let plan_file = dir.path().join("brave-otter.md");
    std::fs::write(&plan_file, "# Plan: parser\n").unwrap();
    let host = Arc::new(BusyHost::loaded());
    let orchestrator = SystemReminderOrchestrator::new(SystemReminderConfig {
        enable_token_usage: true,
        ..SystemReminderConfig::default()
    });
    let first = busy_turn(host.clone(), plan_file.clone());
    let throttle = first.throttle.clone();
    assert!(!orchestrator.generate_all(&first).await.is_empty());

    let mut second = busy_turn(host, plan_file);
    second.turn_number = 7;
    second.throttle = throttle;
    second.user_prompt = None;
    second.has_user_input = false;
    second.plan.is_reentry = false;
    second.micro_compact_cleared = 0;
    let types = orchestrator
        .generate_all(&second)
        .await
        .iter()
        .map(|reminder| reminder.attachment_type)
        .collect::<Vec<_>>();
    // Everything derived from state that did not change stays quiet (plan mode is throttled for
    // 5 turns, the todo reminder for 3), and with the default tail placement the critical
    // instruction already sits in the history from the first turn.
    assert_eq!(types, []);
}

#[tokio::test]
async fn after_reset_state_derived_reminders_are_reported_again() {
    let dir = tempfile::tempdir().unwrap();
    let plan_file = dir.path().join("brave-otter.md");
    std::fs::write(&plan_file, "# Plan: parser\n").unwrap();
    let orchestrator = SystemReminderOrchestrator::new(SystemReminderConfig {
        enable_token_usage: true,
        ..SystemReminderConfig::default()
    });
    let quiet_host = Arc::new(BusyHost::default());
    let first = busy_turn(quiet_host.clone(), plan_file.clone());
    let throttle = first.throttle.clone();
    let before = orchestrator.generate_all(&first).await;

    // Compaction: the host resets the orchestrator, then runs the next turn with the same state.
    let mut next = busy_turn(quiet_host, plan_file);
    next.turn_number = 7;
    next.throttle = throttle;
    orchestrator.reset(&next);
    let after = orchestrator
        .generate_all(&next)
        .await
        .iter()
        .map(|reminder| reminder.attachment_type)
        .collect::<Vec<_>>();
    let reported_again = [
        AttachmentType::PlanMode,
        AttachmentType::DelegateMode,
        AttachmentType::TodoReminder,
        AttachmentType::InvokedSkills,
        AttachmentType::SessionMemory,
        AttachmentType::OutputStyle,
        AttachmentType::TokenUsage,
        AttachmentType::BudgetUsd,
        AttachmentType::Ultramemory,
        AttachmentType::PlanFileReference,
        AttachmentType::CompactFileReference,
        AttachmentType::VerifyPlanReminder,
        AttachmentType::TaskProgress,
    ];
    for attachment_type in reported_again {
        assert!(
            before
                .iter()
                .any(|reminder| reminder.attachment_type == attachment_type),
            "{attachment_type} fired on the first turn"
        );
        assert!(after.contains(&attachment_type), "{attachment_type} again");
    }
    // An ended background task and a finished async agent are never announced twice.
    assert!(!after.contains(&AttachmentType::BackgroundTask));
    assert!(!after.contains(&AttachmentType::AsyncAgentStatus));
}
