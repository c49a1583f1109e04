//! `agentctx-core`: the thin core of agentctx (floor 4).
//!
//! Core holds the state a session owns and reaches every other crate through small glue
//! modules. This build carries the aggregated configuration ([`config`]): one `config.toml`
//! under `AGENTCTX_HOME` with a section per crate, each crate's own config struct, and the
//! environment overrides each crate documents, applied from an explicit variable list.
//!
//! ```
//! use agentctx_core::config::Config;
//! use agentctx_core::config::EnvVars;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let home = tempfile::tempdir()?;
//! std::fs::write(
//!     home.path().join("config.toml"),
//!     "model = \"gpt-5\"\n\n[system_reminder]\nenable_token_usage = true\n",
//! )?;
//! let env = EnvVars::from_pairs([("AGENTCTX_DISABLE_AUTO_COMPACT", "1")]);
//! let loaded = Config::load(home.path(), &env)?;
//! assert_eq!(loaded.config.model.model.as_deref(), Some("gpt-5"));
//! assert!(loaded.config.system_reminder.enable_token_usage);
//! assert!(!loaded.config.compact.auto_compact);
//! # Ok(())
//! # }
//! ```

pub mod config;
