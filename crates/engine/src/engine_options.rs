//! [`EngineOptions`]: what an engine is built from, built in one place for every host, with the
//! one fallback chain of the context window ([`EngineOptions::window`]).

use std::path::PathBuf;

use agentctx_compact::CompactConfig;
use agentctx_reminders::SystemReminderConfig;

/// The window assumed when the session records none, none is given and the model table does
/// not know the session's model (Claude Code transcripts record no window).
pub const DEFAULT_CONTEXT_WINDOW: u64 = 200_000;

/// What an engine is built from.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// The working directory (reminders resolve paths against it).
    pub cwd: PathBuf,
    /// The agentctx home (tool results, session memory).
    pub home: PathBuf,
    /// The session id (session memory is kept per session).
    pub session_id: String,
    /// Reminders.
    pub reminders: SystemReminderConfig,
    /// Compaction.
    pub compact: CompactConfig,
    /// The model's context window, in tokens.
    pub context_window: i64,
    /// The model's output limit, when known.
    pub max_output_tokens: Option<i64>,
}

impl EngineOptions {
    /// Options for a session in `cwd` under `home` with the user's `[system_reminder]` and
    /// `[compact]` settings, on the default window until [`EngineOptions::with_window`] says
    /// otherwise. Every host (the live session, its subagents, replay, `agentctx compact`)
    /// builds its options here, so all of them run the user's configuration.
    pub fn new(
        cwd: impl Into<PathBuf>,
        home: impl Into<PathBuf>,
        session_id: impl Into<String>,
        reminders: SystemReminderConfig,
        compact: CompactConfig,
    ) -> Self {
        Self {
            cwd: cwd.into(),
            home: home.into(),
            session_id: session_id.into(),
            reminders,
            compact,
            context_window: i64::try_from(DEFAULT_CONTEXT_WINDOW).unwrap_or(i64::MAX),
            max_output_tokens: None,
        }
    }

    /// The model's window and output limit (the compaction thresholds scale to the window).
    pub fn with_window(mut self, context_window: i64, max_output_tokens: Option<i64>) -> Self {
        self.context_window = context_window;
        self.max_output_tokens = max_output_tokens;
        self
    }

    /// The window a session runs with, the first that is known of: the window the session
    /// `recorded` (a rollout's `model_context_window`), the one the caller `given` (a live
    /// model's own, `--context-window`), the model table's for the session's `model` (a `[1m]`
    /// suffix is the one-million-token window), else `default`.
    pub fn window(
        recorded: Option<i64>,
        given: Option<i64>,
        model: Option<&str>,
        default: u64,
    ) -> i64 {
        recorded
            .or(given)
            .or_else(|| model.and_then(agentctx_model::known_context_window))
            .unwrap_or_else(|| i64::try_from(default).unwrap_or(i64::MAX))
    }
}
