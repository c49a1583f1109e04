//! The loop driver: runs a coding agent for many iterations with framework-owned git commits
//! and context passed from one iteration to the next.
//!
//! Floor 3: built on `agentctx-protocol`, `agentctx-context`, `agentctx-model` and
//! `agentctx-compact` (whose message filter and summary validation the iteration summaries
//! reuse). The core plugs its session in through [`LoopAgent`]; the CLI's `agentctx loop`
//! builds a [`LoopDriver`], calls [`LoopDriver::run`] or [`LoopDriver::resume`] and prints the
//! [`LoopResult`]. This is the only crate that runs `git`, always through [`process`].
//! The behaviour, constants and texts are described in `docs/design/loop-driver.md`.
//!
//! Each iteration: build the enhanced prompt ([`build_enhanced_prompt`]), submit it, wait for
//! the turn, summarise the turn's history ([`Summariser`]), commit the files it changed with a
//! generated message, record an [`IterationRecord`] in the [`LoopContext`] and save it. Budgets,
//! no-progress detection and a failure limit end a loop early; every loop ends with a
//! [`LoopOutcome`].
//!
//! ```
//! use agentctx_loop_driver::LoopCondition;
//! use agentctx_loop_driver::LoopContext;
//! use agentctx_loop_driver::build_enhanced_prompt;
//!
//! let condition: LoopCondition = "3".parse().unwrap();
//! let context = LoopContext::new(
//!     "0123456789abcdef0123456789abcdef01234567".to_owned(),
//!     "Add a --json flag".to_owned(),
//!     None,
//!     condition,
//! );
//! let prompt = build_enhanced_prompt("Add a --json flag", 0, &context);
//! assert!(prompt.starts_with("<task_context>\n## Original Task\nAdd a --json flag\n"));
//! assert!(prompt.contains("Iteration: 1 of 3\nBase commit: 0123456\n"));
//! assert!(prompt.contains("DO NOT run git commit yourself"));
//! ```

mod agent;
mod condition;
mod config;
mod context;
mod driver;
mod git_ops;
mod governance;
mod outcome;
mod porcelain;
pub mod process;
mod prompt;
mod summariser;

pub use agent::AgentError;
pub use agent::LoopAgent;
pub use agent::TurnReport;
pub use agent::TurnStatus;
pub use condition::LoopCondition;
pub use condition::ParseConditionError;
pub use config::CommitFailurePolicy;
pub use config::ContextPassingConfig;
pub use config::LoopBudget;
pub use config::LoopConfig;
pub use config::TokenPrices;
pub use context::ContextFileError;
pub use context::IterationRecord;
pub use context::LoopContext;
pub use context::LoopUsage;
pub use driver::CONTEXT_FILE;
pub use driver::LoopDriver;
pub use driver::LoopError;
pub use driver::LoopProgressEvent;
pub use driver::ProgressCallback;
pub use git_ops::GitError;
pub use git_ops::GitRepo;
pub use git_ops::PlanFile;
pub use git_ops::paths_of;
pub use outcome::Budget;
pub use outcome::LoopOutcome;
pub use outcome::LoopProgress;
pub use outcome::LoopResult;
pub use porcelain::PorcelainError;
pub use porcelain::StatusEntry;
pub use porcelain::parse_porcelain_z;
pub use prompt::ITERATION_RECORD_TEMPLATE;
pub use prompt::LOOP_CONTEXT_TEMPLATE;
pub use prompt::NO_BASE_COMMIT;
pub use prompt::NO_PREVIOUS_ITERATIONS;
pub use prompt::PLAN_SECTION_TEMPLATE;
pub use prompt::build_enhanced_prompt;
pub use summariser::COMMIT_MSG_SYSTEM_PROMPT;
pub use summariser::COMMIT_MSG_USER_PROMPT;
pub use summariser::EMPTY_ITERATION_SUMMARY;
pub use summariser::GeneratedText;
pub use summariser::ITERATION_SUMMARY_SYSTEM_PROMPT;
pub use summariser::ITERATION_SUMMARY_USER_PROMPT;
pub use summariser::Summariser;
pub use summariser::TextSource;
pub use summariser::fallback_commit_message;
/// The token that cancels a running loop, re-exported so hosts need no extra dependency.
pub use tokio_util::sync::CancellationToken;
