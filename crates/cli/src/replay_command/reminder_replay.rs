//! [`ReminderReplay`]: which system reminders would have fired on each turn of a recorded
//! session.
//!
//! The replay derives the reminder-relevant state from the history (the reminder engine's
//! [`ReminderState`], as a core resuming a session does) and, before each recorded model
//! request (where `agentctx_rollout::RequestSegmenter` finds one), runs the real
//! [`SystemReminderOrchestrator`] with every generator of [`default_generators`] on a
//! current-thread tokio runtime, as the core does before every request: the throttles count
//! requests, and only the request that carries the user's message has user input. A compaction
//! resets the orchestrator, as the core does after one.
//!
//! Sessions often come from another machine, so nothing is read from the user's files on the
//! history's behalf: the file tracker starts empty and tracks no reads (so `changed_files` and
//! `nested_memory` only react to what `@` mentions load), and `@` mentions are resolved against
//! the session's working directory only when that directory exists here; otherwise the
//! `at_mentioned_files` generator is left out and mentions report nothing. Files mentioned are
//! read as they are now, not as they were then.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use agentctx_protocol::ResponseItem;
use agentctx_protocol::SessionMetaLine;
use agentctx_protocol::TokenUsageInfo as RecordedTokenUsage;
use agentctx_reminders::AttachmentType;
use agentctx_reminders::FileTracker;
use agentctx_reminders::GeneratorContext;
use agentctx_reminders::HistoryEvent;
use agentctx_reminders::ItemFlags;
use agentctx_reminders::ReminderState;
use agentctx_reminders::ReminderTier;
use agentctx_reminders::SystemReminderConfig;
use agentctx_reminders::SystemReminderOrchestrator;
use agentctx_reminders::ThrottleManager;
use agentctx_reminders::default_generators;
use agentctx_reminders::is_full_plan_reminder;
use agentctx_rollout::CLAUDE_CODE_ORIGINATOR;
use agentctx_rollout::RecordFlags;
use agentctx_rollout::RequestStart;
use serde::Serialize;

/// The context window assumed for Claude Code sessions, whose transcripts do not record one.
pub(crate) const CLAUDE_CODE_CONTEXT_WINDOW: i64 = 200_000;

/// One reminder that fired on a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct FiredReminder {
    /// The attachment type.
    #[serde(rename = "type")]
    pub(crate) attachment_type: AttachmentType,
    /// Its tier.
    pub(crate) tier: ReminderTier,
    /// The text the model would have seen, wrapped in its XML tag.
    pub(crate) text: String,
    /// `full`, `sparse` or `sub_agent` for plan mode reminders.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) variant: Option<&'static str>,
    /// The model request of the turn (1-based) it fired before.
    pub(crate) request: usize,
}

impl FiredReminder {
    /// `plan_mode:sparse`, `todo_reminder`.
    pub(crate) fn label(&self) -> String {
        match self.variant {
            Some(variant) => format!("{}:{variant}", self.attachment_type),
            None => self.attachment_type.to_string(),
        }
    }
}

/// Runs the reminder engine over one session's history.
pub(crate) struct ReminderReplay {
    config: SystemReminderConfig,
    runtime: tokio::runtime::Runtime,
    orchestrator: Option<SystemReminderOrchestrator>,
    state: ReminderState,
    cwd: PathBuf,
    /// Whether the session's agent has the TodoWrite tool the todo reminder names: Claude Code
    /// has it, Codex (which plans with `update_plan`) does not.
    todo_tool_available: bool,
    file_tracker: Arc<FileTracker>,
    throttle: Arc<ThrottleManager>,
    counts: BTreeMap<AttachmentType, usize>,
    /// The user input of the turn, until the request that carries it.
    turn_prompt: Option<String>,
}

impl std::fmt::Debug for ReminderReplay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReminderReplay")
            .field("state", &self.state)
            .field("cwd", &self.cwd)
            .field("counts", &self.counts)
            .finish_non_exhaustive()
    }
}

impl ReminderReplay {
    /// A replay under `config`.
    pub(crate) fn new(config: SystemReminderConfig) -> std::io::Result<Self> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()?;
        Ok(Self {
            config,
            runtime,
            orchestrator: None,
            state: ReminderState::default(),
            cwd: PathBuf::new(),
            todo_tool_available: false,
            file_tracker: Arc::new(FileTracker::new()),
            throttle: Arc::new(ThrottleManager::new()),
            counts: BTreeMap::new(),
            turn_prompt: None,
        })
    }

    /// The session header: its working directory, and whether it is a Claude Code transcript
    /// (which records no context window).
    pub(crate) fn session_meta(&mut self, meta: &SessionMetaLine) {
        if let Some(cwd) = &meta.cwd {
            self.cwd = PathBuf::from(cwd);
        }
        self.todo_tool_available = meta.originator.as_deref() == Some(CLAUDE_CODE_ORIGINATOR);
        if self.todo_tool_available {
            self.state
                .set_default_context_window(Some(CLAUDE_CODE_CONTEXT_WINDOW));
        }
    }

    /// A conversation item of the main thread (after [`ReminderReplay::start_turn`] for the
    /// message that starts a turn).
    pub(crate) fn observe_item(&mut self, item: &ResponseItem, flags: RecordFlags) {
        let flags = ItemFlags {
            injected: flags.injected,
            permission_mode: flags.permission_mode,
        };
        self.state.observe(HistoryEvent::Item(item, flags));
    }

    /// A recorded `token_count` of the main thread.
    pub(crate) fn token_count(&mut self, info: &RecordedTokenUsage) {
        self.state.observe(HistoryEvent::TokenCount(info));
    }

    /// A compaction of the main thread: the orchestrator starts over.
    pub(crate) fn compacted(&mut self) {
        let ctx = self.context(None, true);
        if let Some(orchestrator) = &self.orchestrator {
            orchestrator.reset(&ctx);
        } else {
            // Nothing generated yet; the shared stores are reset all the same.
            self.throttle.reset();
            self.file_tracker.forget_loaded_memory_files();
            self.file_tracker.forget_reads_in_context();
        }
    }

    /// A user turn starts with `prompt`: its first model request carries it.
    pub(crate) fn start_turn(&mut self, prompt: Option<String>) {
        self.turn_prompt = prompt;
    }

    /// The reminders that fire before the model request `start`, as a live session runs the
    /// engine before every request: the throttles count requests, and only the request that
    /// carries the user's message has user input (and the prompt the `@` mentions are read
    /// from).
    pub(crate) fn before_request(
        &mut self,
        start: RequestStart,
        is_main_agent: bool,
    ) -> Vec<FiredReminder> {
        let request = i32::try_from(start.request).unwrap_or(i32::MAX);
        self.state.observe(HistoryEvent::TurnStarted(request));
        let prompt = if start.has_user_input {
            self.turn_prompt.take()
        } else {
            None
        };
        let mut ctx = self.context(prompt, is_main_agent);
        ctx.turn_number = request;
        ctx.has_user_input = start.has_user_input;
        let plan_sent = self.throttle.session_count(AttachmentType::PlanMode);
        let orchestrator = self.orchestrator.get_or_insert_with(|| {
            let mut generators = default_generators();
            if !self.cwd.is_dir() {
                generators.retain(|generator| {
                    generator.attachment_type() != AttachmentType::AtMentionedFiles
                });
            }
            SystemReminderOrchestrator::with_generators(self.config.clone(), generators)
                .with_sampler_seed(0)
        });
        let report = self
            .runtime
            .block_on(orchestrator.generate_all_with_report(&ctx));
        self.state.reminders_generated();
        report
            .reminders
            .into_iter()
            .map(|reminder| {
                *self.counts.entry(reminder.attachment_type).or_default() += 1;
                let variant = (reminder.attachment_type == AttachmentType::PlanMode).then(|| {
                    if !is_main_agent {
                        "sub_agent"
                    } else if is_full_plan_reminder(plan_sent) {
                        "full"
                    } else {
                        "sparse"
                    }
                });
                FiredReminder {
                    attachment_type: reminder.attachment_type,
                    tier: reminder.tier(),
                    text: reminder.wrap_xml(),
                    variant,
                    request: start.request_in_turn,
                }
            })
            .collect()
    }

    /// Reminders fired so far, by type (snake_case name).
    pub(crate) fn counts(&self) -> BTreeMap<String, usize> {
        self.counts
            .iter()
            .map(|(attachment_type, count)| (attachment_type.to_string(), *count))
            .collect()
    }

    fn context(&self, prompt: Option<String>, is_main_agent: bool) -> GeneratorContext {
        let mut ctx = GeneratorContext::new(self.cwd.clone()).with_config(&self.config);
        ctx.is_main_agent = is_main_agent;
        ctx.user_prompt = prompt;
        self.state.apply_to(&mut ctx);
        ctx.todo.tool_available = self.todo_tool_available;
        if !self.config.is_type_enabled(AttachmentType::TokenUsage) {
            ctx.token_usage = None;
        }
        ctx.file_tracker = Arc::clone(&self.file_tracker);
        ctx.throttle = Arc::clone(&self.throttle);
        ctx
    }
}

#[cfg(test)]
#[path = "reminder_replay_tests.rs"]
mod tests;
