//! The reminder stage of the pipeline: builds the generators' [`GeneratorContext`] from the
//! host's state and the engine's own figures, runs the orchestrator before every model request
//! and places the reminders.
//!
//! [`crate::ContextEngine`] calls [`ReminderEngine::context`] and [`ReminderEngine::generate`]
//! before each request of a turn and [`ReminderEngine::reset_after_compaction`] after every
//! compaction; the file tools report to [`ReminderEngine::file_observer`].

use std::borrow::Cow;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;

use agentctx_protocol::PermissionMode;
use agentctx_protocol::ResponseItem;
use agentctx_protocol::is_model_generated;
use agentctx_reminders::AttachmentType;
use agentctx_reminders::ContextTokenUsage;
use agentctx_reminders::FileTracker;
use agentctx_reminders::GeneratorContext;
use agentctx_reminders::HistoryEvent;
use agentctx_reminders::ItemFlags;
use agentctx_reminders::PlanState;
use agentctx_reminders::ReminderClock;
use agentctx_reminders::ReminderPlacement;
use agentctx_reminders::ReminderState;
use agentctx_reminders::ReminderTier;
use agentctx_reminders::SystemReminderConfig;
use agentctx_reminders::SystemReminderOrchestrator;
use agentctx_reminders::ThrottleManager;
use agentctx_reminders::TodoState;
use agentctx_reminders::default_generators;
use agentctx_reminders::inject_system_reminders;
use agentctx_reminders::is_full_plan_reminder;

use crate::file_observer::FileObserver;
use crate::host_state::HostPlan;
use crate::host_state::HostState;
use serde::Serialize;

/// What the session knows about one model request, beyond its own state.
#[derive(Debug, Clone, Default)]
pub struct RequestFacts<'a> {
    /// This request carries the user's message (the first request of a turn).
    pub has_user_input: bool,
    /// The user's message of the turn.
    pub user_prompt: Option<&'a str>,
    /// Context usage `(used, effective window)` as the compaction trigger sees it.
    pub token_usage: Option<(u64, u64)>,
    /// Tool results micro-compaction cleared before this request.
    pub micro_compact_cleared: usize,
    /// Files the last compaction referenced without restoring them.
    pub compact_file_references: Vec<PathBuf>,
    /// A compaction happened since the last request: the plan file, if the session has one on
    /// disk, is pointed at with its content (`plan_file_reference`).
    pub plan_reference_after_compaction: bool,
}

/// One reminder that fired before a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FiredReminder {
    /// The attachment type.
    #[serde(rename = "type")]
    pub attachment_type: AttachmentType,
    /// Its tier.
    pub tier: ReminderTier,
    /// The text the model sees, wrapped in its XML tag.
    pub text: String,
    /// `full`, `sparse` or `sub_agent` for plan mode reminders.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<&'static str>,
}

impl FiredReminder {
    /// `plan_mode:sparse`, `todo_reminder`.
    pub fn label(&self) -> String {
        match self.variant {
            Some(variant) => format!("{}:{variant}", self.attachment_type),
            None => self.attachment_type.to_string(),
        }
    }
}

/// Reminders of one request, placed.
#[derive(Debug, Clone, Default)]
pub struct PlacedReminders {
    /// Items to record in the history (the `tail` placement), in order.
    pub record: Vec<ResponseItem>,
    /// Items to insert into this request's prompt view only (`after_environment_context`).
    pub prompt_only: Vec<ResponseItem>,
    /// Items to append to the end of this request's prompt only (a `tail` placement whose
    /// host does not record reminders: a replay of a session another agent recorded).
    pub prompt_tail: Vec<ResponseItem>,
    /// What fired, in injection order.
    pub fired: Vec<FiredReminder>,
}

impl PlacedReminders {
    /// How many reminders this request carries.
    pub fn len(&self) -> usize {
        self.record.len() + self.prompt_only.len() + self.prompt_tail.len()
    }

    /// No reminder.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Inserts the prompt-only reminders into `prompt` after the environment context.
    pub fn place_in_prompt(&self, prompt: &mut Vec<Cow<'_, ResponseItem>>) {
        if self.prompt_only.is_empty() {
            return;
        }
        let position = agentctx_reminders::after_environment_context_position(prompt);
        prompt.splice(
            position..position,
            self.prompt_only.iter().cloned().map(Cow::Owned),
        );
    }
}

/// The main agent's reminder engine: orchestrator, file tracker and throttle.
pub struct ReminderEngine {
    config: SystemReminderConfig,
    orchestrator: SystemReminderOrchestrator,
    file_tracker: Arc<FileTracker>,
    throttle: Arc<ThrottleManager>,
    /// State read back from a recorded history (a resumed session, whose todos and plan move
    /// into the host's state; or a replay, which keeps feeding it), applied before the host's.
    resumed: Option<ReminderState>,
    /// Whether the reminders are for the main agent (not a subagent).
    main_agent: bool,
    /// Whether tail reminders are recorded in the history (else they ride on one prompt).
    record_tail: bool,
    /// Claude Code's clock of the todo reminder, from the items the model produced.
    clock: ReminderClock,
    /// User turns so far (requests that carried the user's message).
    user_turns: i32,
    /// A context holding only this engine's shared stores and the config's per-turn settings:
    /// every request's context starts as a copy of it (a new context would build stores of its
    /// own and its providers, only to have them replaced).
    blank: GeneratorContext,
}

impl std::fmt::Debug for ReminderEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReminderEngine")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl ReminderEngine {
    /// An engine with the default generators under `config`.
    pub fn new(config: SystemReminderConfig) -> Self {
        let file_tracker = Arc::new(FileTracker::new());
        let throttle = Arc::new(ThrottleManager::new());
        let blank = GeneratorContext {
            file_tracker: Arc::clone(&file_tracker),
            throttle: Arc::clone(&throttle),
            ..GeneratorContext::new(PathBuf::new())
        }
        .with_config(&config);
        Self {
            orchestrator: SystemReminderOrchestrator::new(config.clone()),
            config,
            file_tracker,
            throttle,
            resumed: None,
            main_agent: true,
            record_tail: true,
            clock: ReminderClock::default(),
            user_turns: 0,
            blank,
        }
    }

    /// An engine for the replay of a recorded session run in `cwd`: the sampler is seeded so
    /// a replay is repeatable, and when `cwd` is not a folder on this machine (a session from
    /// elsewhere) `@` mentions are not resolved.
    pub fn for_replay(config: SystemReminderConfig, cwd: &Path) -> Self {
        let mut generators = default_generators();
        if !cwd.is_dir() {
            generators.retain(|generator| {
                generator.attachment_type() != AttachmentType::AtMentionedFiles
            });
        }
        Self {
            orchestrator: SystemReminderOrchestrator::with_generators(config.clone(), generators)
                .with_sampler_seed(0),
            ..Self::new(config)
        }
    }

    /// Whether the reminders are for the main agent.
    pub(crate) fn set_main_agent(&mut self, main_agent: bool) {
        self.main_agent = main_agent;
    }

    /// Whether tail reminders are recorded in the history.
    pub(crate) fn set_record_tail(&mut self, record_tail: bool) {
        self.record_tail = record_tail;
    }

    /// Counts the items the model produced among `items` on the todo reminder's clock.
    pub(crate) fn observe_items(&mut self, items: &[ResponseItem]) {
        for item in items {
            self.clock.observe(item);
        }
    }

    /// A request is about to be prepared; `first_request` carries the user's message (a user
    /// turn starts).
    pub(crate) fn count_request(&mut self, first_request: bool) {
        if first_request {
            self.user_turns = self.user_turns.saturating_add(1);
        }
    }

    /// Claude Code's clock of the todo reminder: assistant messages and the last todo write.
    pub fn clock(&self) -> ReminderClock {
        self.clock
    }

    /// Feeds one event of a recorded history into the derived reminder state (a replay).
    pub(crate) fn observe_recorded(&mut self, event: HistoryEvent<'_>) {
        self.resumed
            .get_or_insert_with(ReminderState::default)
            .observe(event);
    }

    /// The host state a recorded history implies (a replay has no live state of its own).
    pub(crate) fn recorded_host_state(
        &self,
        requests: i32,
        todo_tool_available: bool,
    ) -> HostState {
        let Some(state) = &self.resumed else {
            return HostState {
                requests,
                todo_tool_available,
                ..HostState::default()
            };
        };
        let plan = state.plan();
        HostState {
            requests,
            todos: state.todo().items.clone(),
            last_todo_write_turn: state.todo().last_write_turn,
            todo_tool_available,
            plan: HostPlan {
                active: state.permission_mode() == PermissionMode::Plan,
                plan_file: plan.plan_file_path.clone(),
                entered_before: plan.is_reentry,
                just_exited: plan.just_exited,
            },
            background_tasks: state.background_tasks().to_vec(),
            invoked_skills: state.invoked_skills().to_vec(),
            last_tool_results: state.last_tool_results().to_vec(),
        }
    }

    /// The file tracker (what the model read, for changed-file reminders).
    pub fn file_tracker(&self) -> &Arc<FileTracker> {
        &self.file_tracker
    }

    /// The observer the file tools report reads and writes to.
    pub fn file_observer(&self) -> Arc<dyn FileObserver> {
        Arc::new(TrackerObserver(Arc::clone(&self.file_tracker)))
    }

    /// The critical instruction, re-injected after compaction.
    pub fn critical_instruction(&self) -> Option<&str> {
        self.config.critical_instruction.as_deref()
    }

    /// The generator context of the main agent for one request.
    pub(crate) fn context(
        &self,
        cwd: &Path,
        state: &HostState,
        facts: &RequestFacts<'_>,
    ) -> GeneratorContext {
        let mut ctx = self.blank.clone();
        ctx.cwd = cwd.to_path_buf();
        // Reminders run before every request, so their clock is the request count.
        ctx.turn_number = state.requests;
        ctx.is_main_agent = self.main_agent;
        ctx.has_user_input = facts.has_user_input;
        ctx.user_prompt = facts
            .user_prompt
            .filter(|_| facts.has_user_input)
            .map(str::to_string);
        ctx.file_tracker = Arc::clone(&self.file_tracker);
        ctx.throttle = Arc::clone(&self.throttle);
        ctx.permission_mode = if state.plan.active {
            PermissionMode::Plan
        } else {
            PermissionMode::Default
        };
        ctx.plan = PlanState {
            plan_file_path: state.plan.plan_file.clone(),
            is_reentry: state.plan.active && state.plan.entered_before,
            just_exited: state.plan.just_exited,
            reference_file: state
                .plan
                .plan_file
                .clone()
                .filter(|file| facts.plan_reference_after_compaction && file.is_file()),
            ..PlanState::default()
        };
        // The todo list and plan mode of a resumed session were moved into the session state;
        // what only the recorded history knows (its shells, skills, last tool results) stays
        // from the derivation until the live session has its own.
        // The todo reminder runs on Claude Code's clock (assistant messages), kept from the
        // items this engine recorded, in a live session and a replay alike.
        ctx.assistant_messages = self.clock.assistant_messages;
        ctx.user_turns = self.user_turns;
        ctx.todo = TodoState {
            items: state.todos.clone(),
            last_write_turn: self.clock.last_todo_write,
            tool_available: state.todo_tool_available,
        };
        let resumed = self.resumed.as_ref();
        ctx.background_tasks = match resumed {
            Some(resumed) if state.background_tasks.is_empty() => {
                resumed.background_tasks().to_vec()
            }
            Some(_) | None => state.background_tasks.clone(),
        };
        ctx.invoked_skills = match resumed {
            Some(resumed) if state.invoked_skills.is_empty() => resumed.invoked_skills().to_vec(),
            Some(_) | None => state.invoked_skills.clone(),
        };
        ctx.last_tool_results = match resumed {
            Some(resumed) if state.last_tool_results.is_empty() => {
                resumed.last_tool_results().to_vec()
            }
            Some(_) | None => state.last_tool_results.clone(),
        };
        ctx.token_usage = resumed.and_then(ReminderState::token_usage);
        if let Some((used, total)) = facts.token_usage {
            let used = i64::try_from(used).unwrap_or(i64::MAX);
            let total = i64::try_from(total).unwrap_or(i64::MAX);
            ctx.token_usage = Some(ContextTokenUsage {
                used,
                total,
                remaining: total.saturating_sub(used).max(0),
            });
        }
        ctx.micro_compact_cleared = facts.micro_compact_cleared;
        ctx.compact_file_references = facts.compact_file_references.clone();
        ctx
    }

    /// Runs every generator on `ctx` (from [`ReminderEngine::context`]) and places the
    /// reminders: recorded at the tail of the history, or kept for the prompt view, as the
    /// config says.
    pub(crate) async fn generate(&mut self, ctx: GeneratorContext) -> PlacedReminders {
        let plan_sent = self.throttle.session_count(AttachmentType::PlanMode);
        let reminders = self.orchestrator.generate_all(&ctx).await;
        if let Some(state) = &mut self.resumed {
            state.reminders_generated();
        }
        let main_agent = self.main_agent;
        let fired = reminders
            .iter()
            .map(|reminder| FiredReminder {
                attachment_type: reminder.attachment_type,
                tier: reminder.tier(),
                text: reminder.wrap_xml(),
                variant: (reminder.attachment_type == AttachmentType::PlanMode).then(|| {
                    if !main_agent {
                        "sub_agent"
                    } else if is_full_plan_reminder(plan_sent) {
                        "full"
                    } else {
                        "sparse"
                    }
                }),
            })
            .collect();
        let mut items = Vec::new();
        inject_system_reminders(&mut items, &reminders, ReminderPlacement::Tail);
        let mut placed = PlacedReminders {
            fired,
            ..PlacedReminders::default()
        };
        match self.config.placement {
            ReminderPlacement::Tail if self.record_tail => placed.record = items,
            ReminderPlacement::Tail => placed.prompt_tail = items,
            ReminderPlacement::AfterEnvironmentContext => placed.prompt_only = items,
        }
        placed
    }

    /// After a compaction: every generator starts over, and the files the compaction restored
    /// count as read again, so they are neither repeated nor lost.
    pub(crate) fn reset_after_compaction(
        &self,
        cwd: &Path,
        restored: &[(PathBuf, String)],
        turn: i32,
    ) {
        let ctx = GeneratorContext::new(cwd);
        let ctx = GeneratorContext {
            file_tracker: Arc::clone(&self.file_tracker),
            throttle: Arc::clone(&self.throttle),
            ..ctx
        };
        self.orchestrator.reset(&ctx);
        for (path, content) in restored {
            self.file_tracker
                .track_read(path.clone(), content.as_str(), turn, None, None);
        }
    }

    /// Reads the reminder state back from a recorded history (resume). Returns the todo list,
    /// the plan file and whether plan mode was on, for the session state.
    pub(crate) fn resume_from_history(&mut self, items: &[ResponseItem]) -> ResumedState {
        let mut state = ReminderState::default();
        // The live session's clock counts model requests; a request starts with the first
        // model output after anything else.
        let mut clock = 0;
        let mut in_response = false;
        for item in items {
            let from_model = is_model_generated(item);
            if from_model && !in_response {
                clock += 1;
                state.observe(HistoryEvent::TurnStarted(clock));
            }
            in_response = from_model;
            state.observe(HistoryEvent::Item(item, ItemFlags::default()));
        }
        let mut clock = ReminderClock::default();
        for item in items {
            clock.observe(item);
        }
        self.clock = clock;
        let mut ctx = GeneratorContext::new(".");
        state.apply_to(&mut ctx);
        let resumed = ResumedState {
            todos: ctx.todo.items.clone(),
            last_todo_write_turn: ctx.todo.last_write_turn,
            plan_mode: ctx.is_plan_mode(),
            plan_file: ctx.plan.plan_file_path.clone(),
        };
        self.resumed = Some(state);
        resumed
    }
}

/// What a recorded history says about the session's own state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResumedState {
    /// The todo list.
    pub todos: Vec<agentctx_protocol::TodoItem>,
    /// The turn of its last write.
    pub last_todo_write_turn: Option<i32>,
    /// Plan mode was on at the end.
    pub plan_mode: bool,
    /// The plan file, when recorded.
    pub plan_file: Option<PathBuf>,
}

struct TrackerObserver(Arc<FileTracker>);

impl FileObserver for TrackerObserver {
    fn file_read(
        &self,
        path: &Path,
        content: &str,
        turn: i32,
        offset: Option<usize>,
        limit: Option<usize>,
    ) {
        self.0
            .track_read(path.to_path_buf(), content, turn, offset, limit);
    }

    fn file_written(&self, path: &Path, content: &str, turn: i32) {
        self.0.track_write(path.to_path_buf(), content, turn);
    }
}
