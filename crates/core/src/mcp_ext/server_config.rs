//! `[mcp_servers.<name>]`: one MCP server, in codex's keys (see docs/design/mcp.md,
//! "Configuration").
//!
//! A server is either a program spoken to over stdio (`command`, `args`, `env`, `cwd`) or a
//! streamable-HTTP endpoint (`url`); the timeouts and `enabled` apply to both. The keys and
//! defaults follow codex's `config.toml` (developers.openai.com/codex/mcp: startup timeout 10 s,
//! tool timeout 60 s, fractional seconds allowed).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

/// How long a server may take to start and answer `initialize` and `tools/list`.
pub(crate) const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(10);

/// How long one tool call or resource read may take.
pub(crate) const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(60);

/// One `[mcp_servers.<name>]` table.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct McpServerConfig {
    /// The program of a stdio server (exclusive with `url`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Variables set for it, on top of the inherited environment.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Its working directory (default: the session's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
    /// The endpoint of a streamable-HTTP server (exclusive with `command`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Seconds to wait for the server to start (default 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startup_timeout_sec: Option<f64>,
    /// Seconds one tool call or resource read may take (default 60).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_timeout_sec: Option<f64>,
    /// `false` keeps the entry without starting the server.
    #[serde(default = "enabled_default", skip_serializing_if = "is_true")]
    pub enabled: bool,
}

fn enabled_default() -> bool {
    true
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_true(value: &bool) -> bool {
    *value
}

/// How a server is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpTransport {
    /// A child process spoken to over stdin/stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// A streamable-HTTP endpoint.
    StreamableHttp {
        /// The URL.
        url: String,
    },
}

/// A server table that names neither or both of `command` and `url`, or a bad timeout.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpConfigError {
    /// Neither `command` nor `url`.
    #[error("mcp_servers.{server}: set `command` (a stdio server) or `url` (streamable HTTP)")]
    NoTransport {
        /// The server.
        server: String,
    },
    /// Both `command` and `url`.
    #[error("mcp_servers.{server}: `command` and `url` exclude each other")]
    BothTransports {
        /// The server.
        server: String,
    },
    /// A timeout that is negative, not a number or too large.
    #[error("mcp_servers.{server}.{key}: {value} is not a number of seconds")]
    BadTimeout {
        /// The server.
        server: String,
        /// `startup_timeout_sec` or `tool_timeout_sec`.
        key: &'static str,
        /// The value.
        value: String,
    },
}

impl McpServerConfig {
    /// A stdio server running `command` with `args`.
    pub fn stdio(command: impl Into<String>, args: impl IntoIterator<Item = String>) -> Self {
        Self {
            command: Some(command.into()),
            args: args.into_iter().collect(),
            enabled: true,
            ..Self::default()
        }
    }

    /// A streamable-HTTP server at `url`.
    pub fn http(url: impl Into<String>) -> Self {
        Self {
            url: Some(url.into()),
            enabled: true,
            ..Self::default()
        }
    }

    /// How `server` is reached.
    pub(crate) fn transport(&self, server: &str) -> Result<McpTransport, McpConfigError> {
        match (&self.command, &self.url) {
            (Some(command), None) => Ok(McpTransport::Stdio {
                command: command.clone(),
                args: self.args.clone(),
            }),
            (None, Some(url)) => Ok(McpTransport::StreamableHttp { url: url.clone() }),
            (None, None) => Err(McpConfigError::NoTransport {
                server: server.to_string(),
            }),
            (Some(_), Some(_)) => Err(McpConfigError::BothTransports {
                server: server.to_string(),
            }),
        }
    }

    /// The startup timeout.
    pub(crate) fn startup_timeout(&self, server: &str) -> Result<Duration, McpConfigError> {
        seconds(
            server,
            "startup_timeout_sec",
            self.startup_timeout_sec,
            DEFAULT_STARTUP_TIMEOUT,
        )
    }

    /// The timeout of one tool call or resource read.
    pub(crate) fn tool_timeout(&self, server: &str) -> Result<Duration, McpConfigError> {
        seconds(
            server,
            "tool_timeout_sec",
            self.tool_timeout_sec,
            DEFAULT_TOOL_TIMEOUT,
        )
    }
}

fn seconds(
    server: &str,
    key: &'static str,
    value: Option<f64>,
    default: Duration,
) -> Result<Duration, McpConfigError> {
    match value {
        None => Ok(default),
        Some(value) => Duration::try_from_secs_f64(value).map_err(|_| McpConfigError::BadTimeout {
            server: server.to_string(),
            key,
            value: value.to_string(),
        }),
    }
}
