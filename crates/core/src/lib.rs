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
//! (`/model` and a resume with another model, as codex switches), `memory_ext.rs` (the memory pipeline at session start and
//! the memory summary in the developer instructions), `hooks_ext.rs` (Claude Code compatible
//! hooks) and `subagent/executor.rs`
//! (subagents with their critical reminder). Delete one of them and its call sites and the core
//! still builds. `loop_driver_ext.rs` works from the other side: it drives a session for the
//! loop driver. See `docs/design/core.md`.
//!
//! [`config`] is the aggregated configuration: one `config.toml` under `AGENTCTX_HOME` with a
//! section per crate (each crate's own config struct) and the environment overrides each crate
//! documents, applied from an explicit variable list (`docs/design/configuration.md`);
//! [`session_config`] turns it into [`SessionOptions`] (provider, API key, model).
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

pub mod approval;
pub mod config;
pub mod engine_ext;
mod error;
mod event;
pub mod hooks_ext;
pub mod loop_driver_ext;
pub mod mcp_ext;
pub mod memory_ext;
pub mod model_switch;
pub mod path_guard;
pub mod plan_slug;
pub mod process;
pub mod reminder_feeds;
mod session;
pub mod session_config;
pub mod session_state;
pub mod skills_ext;
pub mod slash_commands_ext;
pub mod subagent;
pub mod thinking_ext;
pub mod tools;
mod turn_stream;

pub use approval::ApprovalDecision;
pub use approval::ApprovalPolicy;
pub use approval::ApprovalRequest;
pub use approval::Approver;
pub use approval::FixedApprover;
pub use approval::UserQuestion;
pub use error::CoreError;
pub use event::SessionEvent;
pub use session::DEFAULT_BASE_INSTRUCTIONS;
pub use session::DEFAULT_MAX_REQUESTS_PER_TURN;
pub use session::Session;
pub use session::SessionOptions;
pub use session::TurnOutcome;
pub use slash_commands_ext::InputOutcome;
pub use slash_commands_ext::SlashCommandError;
pub use subagent::AgentDefinition;
pub use subagent::executor::SubagentExecutor;
pub use tools::ToolContext;
pub use tools::ToolHandler;
pub use tools::ToolOutput;
pub use tools::ToolRegistry;
