//! The thin core of agentctx: a [`Session`] and its turn loop, the tools, subagents and plan
//! mode.
//!
//! Floor 4. The turn loop (`session.rs`) owns the model stream, the rollout, the session state
//! and the tools. What the model sees — history, reminders, micro-, session-memory- and full
//! compaction, restoration, usage — is decided by the context engine (`agentctx-engine`), which
//! the loop calls at its seams through `engine_ext.rs`. The loop reaches the other feature crates
//! only through its extension files, the pattern a Codex fork copies: `engine_ext.rs`,
//! `skills_ext.rs` (the `skill` tool), `slash_commands_ext.rs` (what the user types: `/name
//! args` through the skills registry and the session's built-in commands), `model_switch.rs`
//! (`/model` and a resume with another model, as codex switches), `memory_ext.rs` (the memory
//! pipeline at session start and the memory summary in the developer instructions),
//! `hooks_ext.rs` (Claude Code compatible hooks) and `subagent/executor.rs` (subagents with their
//! critical reminder). Delete one of them and its call sites and the core still builds. None of
//! them sees the session: each is handed the fields it reads and answers with data the session
//! acts on; the session's own steps that touch many of its fields live in `session/`.
//! `loop_driver_ext.rs` works from the other side: it drives a session for the loop driver. See
//! `docs/design/core.md`.
//!
//! # The host API
//!
//! Every module is private and `pub(crate)` is the default inside the crate, as in codex-rs:
//! what a host (the CLI, a TUI, an IDE, a Codex fork) may name is re-exported here and nothing
//! else. Types of the other agentctx crates that appear in it (the model client, the engine,
//! the reminder and compaction configs, the protocol's items) are named from their own crates.
//!
//! | group | items |
//! |---|---|
//! | session | [`Session`] (`new`, `resume`, `run_input`, `run_turn`, `switch_model`, `attach_mcp`, `tools_mut`, `history`, `engine`, …), [`SessionOptions`], [`TurnOutcome`], [`CoreError`], [`SessionState`] and [`PlanMode`] (read through [`Session::state`]), [`DEFAULT_BASE_INSTRUCTIONS`], [`DEFAULT_MAX_REQUESTS_PER_TURN`], [`COMPACTION_ACCURACY_WARNING`] |
//! | what the user types | [`InputOutcome`], [`SlashCommandError`], [`ContextView`] and [`ContextCategory`] (`/context`), [`SKILL_USAGE_FILE`] |
//! | model switch | [`ModelResolver`], [`SwitchTarget`], [`ModelSwitch`], [`ModelSwitchError`] |
//! | events | [`SessionEvent`] |
//! | approvals | [`ApprovalPolicy`], [`Approver`], [`ApprovalRequest`], [`ApprovalDecision`], [`ApprovalAnswer`], [`UserQuestion`], [`FixedApprover`] |
//! | configuration | [`Config`], [`LoadedConfig`], [`ConfigValue`], [`ValueSource`], [`ConfigError`], [`EnvVars`], [`CONFIG_FILE`]; from it to a session: [`session_setup`], [`SessionOverrides`], [`SessionSetup`], [`find_session`], [`SessionConfigError`]; the one model resolution of every command: [`resolve_model`], [`resolve_provider`], [`ModelSelection`], [`ModelChoice`] |
//! | tools | [`ToolHandler`], [`ToolRegistry`], [`ToolContext`], [`ToolOutput`] |
//! | MCP | [`McpConnectionManager`], [`McpServerConfig`], [`McpTransport`], [`McpServerState`], [`McpServerStatus`], [`McpConfigError`], [`McpCallError`], [`qualified_tool_name`] |
//! | hooks | [`HooksConfig`], [`HookMatcher`], [`HookCommand`] |
//! | reminder feeds | [`CommandQueue`] (prompts typed while a turn runs), [`SpendMeter`] |
//! | memory | [`MemorySettings`], [`MemoryExtractor`], [`MemoryUsageKey`] |
//! | thinking | [`ThinkingOptions`] |
//! | subagents | [`AgentDefinition`], [`AgentTools`], [`SubagentRunner`], [`SubagentOverrides`], [`ScopedHooks`], [`ToolLimit`], [`SubagentExecutor`], [`EXPLORE_CRITICAL_REMINDER`], [`PLAN_CRITICAL_REMINDER`] |
//! | loop driver | [`SessionLoopAgent`], [`TURN_CANCELLED`] |
//!
//! The configuration is one `config.toml` under `AGENTCTX_HOME` with a section per crate (each
//! crate's own config struct) and the environment overrides each crate documents, applied from
//! an explicit variable list (`docs/design/configuration.md`); [`session_setup`] turns it into
//! [`SessionOptions`] (provider, API key, model).
//!
//! A session against a scripted model, in a temporary working directory:
//!
//! ```
//! use std::sync::Arc;
//!
//! use agentctx_core::Session;
//! use agentctx_core::SessionOptions;
//! use agentctx_model::ScriptedModelClient;
//! use agentctx_model::ScriptedResponse;
//! use tokio_util::sync::CancellationToken;
//!
//! let cwd = tempfile::tempdir()?;
//! let home = tempfile::tempdir()?;
//! let model = ScriptedModelClient::new("test-model");
//! model.push(ScriptedResponse::text("Hello!"));
//! let options = SessionOptions::new(cwd.path(), home.path(), Arc::new(model.clone()));
//!
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! let outcome = runtime.block_on(async {
//!     let (mut session, _events) = Session::new(options)?;
//!     session.run_turn("say hello", &CancellationToken::new()).await
//! })?;
//! assert_eq!(outcome.last_message.as_deref(), Some("Hello!"));
//! assert_eq!(model.prompts().len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod approval;
mod background_agents;
mod config;
mod engine_ext;
mod error;
mod event;
mod hooks_ext;
mod host_inputs;
mod loop_driver_ext;
mod lsp_ext;
mod mcp_ext;
mod memory_ext;
mod model_switch;
mod path_guard;
mod plan_slug;
mod process;
mod reminder_feeds;
mod session;
mod session_config;
mod session_state;
mod skills_ext;
mod slash_commands_ext;
mod subagent;
mod thinking_ext;
mod tools;
mod turn_stream;

// The session and its turns.
pub use error::CoreError;
pub use session::COMPACTION_ACCURACY_WARNING;
pub use session::DEFAULT_BASE_INSTRUCTIONS;
pub use session::DEFAULT_MAX_REQUESTS_PER_TURN;
pub use session::InputOutcome;
pub use session::Session;
pub use session::SessionOptions;
pub use session::TurnOutcome;
pub use session_state::PlanMode;
pub use session_state::SessionState;
// What the user types.
pub use slash_commands_ext::ContextCategory;
pub use slash_commands_ext::ContextView;
pub use slash_commands_ext::SKILL_USAGE_FILE;
pub use slash_commands_ext::SlashCommandError;
// Model switch.
pub use model_switch::ModelResolver;
pub use model_switch::ModelSwitch;
pub use model_switch::ModelSwitchError;
pub use model_switch::SwitchTarget;
// Events.
pub use event::SessionEvent;
// Approvals.
pub use approval::ApprovalAnswer;
pub use approval::ApprovalDecision;
pub use approval::ApprovalPolicy;
pub use approval::ApprovalRequest;
pub use approval::Approver;
pub use approval::FixedApprover;
pub use approval::UserQuestion;
// Configuration.
pub use config::CONFIG_FILE;
pub use config::Config;
pub use config::ConfigError;
pub use config::ConfigValue;
pub use config::EnvVars;
pub use config::LoadedConfig;
pub use config::ValueSource;
pub use session_config::ModelChoice;
pub use session_config::ModelSelection;
pub use session_config::SessionConfigError;
pub use session_config::SessionOverrides;
pub use session_config::SessionSetup;
pub use session_config::find_session;
pub use session_config::resolve_model;
pub use session_config::resolve_provider;
pub use session_config::session_setup;
// Tools.
pub use tools::ToolContext;
pub use tools::ToolHandler;
pub use tools::ToolOutput;
pub use tools::ToolRegistry;
// MCP.
pub use mcp_ext::McpCallError;
pub use mcp_ext::McpConfigError;
pub use mcp_ext::McpConnectionManager;
pub use mcp_ext::McpServerConfig;
pub use mcp_ext::McpServerState;
pub use mcp_ext::McpServerStatus;
pub use mcp_ext::McpTransport;
pub use mcp_ext::qualified_tool_name;
// Hooks.
pub use hooks_ext::HookCommand;
pub use hooks_ext::HookMatcher;
pub use hooks_ext::HooksConfig;
pub use hooks_ext::SessionEndReason;
// Reminder feeds.
pub use host_inputs::HostInputs;
// What a host feeds through `HostInputs`, as the reminders crate defines it.
pub use agentctx_reminders::CollabChat;
pub use agentctx_reminders::IdeOpenedFile;
pub use agentctx_reminders::IdeSelection;
pub use agentctx_reminders::TeammateMessage;

pub use reminder_feeds::CommandQueue;
pub use reminder_feeds::SpendMeter;
// Memory.
pub use memory_ext::MemoryExtractor;
pub use memory_ext::MemorySettings;
pub use memory_ext::MemoryUsageKey;
// Thinking.
pub use thinking_ext::ThinkingOptions;
// Subagents.
pub use slash_commands_ext::ToolLimit;
pub use subagent::AgentDefinition;
pub use subagent::AgentTools;
pub use subagent::EXPLORE_CRITICAL_REMINDER;
pub use subagent::PLAN_CRITICAL_REMINDER;
pub use subagent::ScopedHooks;
pub use subagent::SubagentOverrides;
pub use subagent::SubagentRunner;
pub use subagent::executor::SubagentExecutor;
// The loop driver.
pub use loop_driver_ext::SessionLoopAgent;
pub use loop_driver_ext::TURN_CANCELLED;
