//! Provider traits through which generators read state that lives outside the session: the IDE,
//! diagnostics (LSP), MCP resources, hooks, the teammate mailbox and queued commands.
//!
//! The host implements the ones it has and leaves the rest at their no-op defaults
//! ([`NoopProvider`]), so a Codex fork plugs in its own sources without touching generators.
//! Methods named `take_*` hand over new items once: a provider returns each item a single time.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use serde::Deserialize;
use serde::Serialize;

/// A provider could not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{provider}: {message}")]
pub struct ProviderError {
    /// Which provider failed (`mcp`, `ide`, …).
    pub provider: String,
    /// What went wrong.
    pub message: String,
}

impl ProviderError {
    /// An error of `provider`.
    pub fn new(provider: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            provider: provider.into(),
            message: message.into(),
        }
    }
}

// ---------------------------------------------------------------- IDE

/// Text the user selected in the IDE.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdeSelection {
    /// The file.
    pub filename: PathBuf,
    /// First selected line (1-based).
    pub line_start: i32,
    /// Last selected line (1-based).
    pub line_end: i32,
    /// The selected text.
    pub content: String,
}

/// A file the user has open in the IDE.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdeOpenedFile {
    /// The file.
    pub filename: PathBuf,
}

/// The IDE the user works in.
pub trait IdeProvider: Send + Sync + fmt::Debug {
    /// The current selection, if any.
    fn selection(&self) -> Option<IdeSelection> {
        None
    }
    /// The file open in the editor when nothing is selected.
    fn opened_file(&self) -> Option<IdeOpenedFile> {
        None
    }
}

// ---------------------------------------------------------------- diagnostics

/// Severity of a diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiagnosticSeverity {
    /// An error.
    Error,
    /// A warning.
    Warning,
    /// Information.
    Info,
    /// A hint.
    Hint,
}

/// One diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// The message.
    pub message: String,
    /// Its severity.
    pub severity: DiagnosticSeverity,
    /// The line (1-based).
    pub line: i32,
    /// The column (1-based), when known.
    #[serde(default)]
    pub column: Option<i32>,
    /// The diagnostic's code (`E0308`), when known.
    #[serde(default)]
    pub code: Option<String>,
    /// The source (`rustc`, `clippy`), when known.
    #[serde(default)]
    pub source: Option<String>,
}

/// The diagnostics of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiagnosticFile {
    /// The file.
    pub file_path: PathBuf,
    /// Its diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}

/// New diagnostics from the diagnostics system and from LSP servers.
pub trait DiagnosticsProvider: Send + Sync + fmt::Debug {
    /// Diagnostics that appeared since the last call.
    fn take_new_diagnostics(&self) -> Vec<DiagnosticFile> {
        Vec::new()
    }
    /// LSP diagnostics that appeared since the last call.
    fn take_new_lsp_diagnostics(&self) -> Vec<DiagnosticFile> {
        Vec::new()
    }
}

// ---------------------------------------------------------------- MCP

/// The content of an MCP resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum McpResourceContent {
    /// Text content.
    Text(String),
    /// Binary content.
    Blob {
        /// The bytes.
        data: Vec<u8>,
        /// Their MIME type.
        mime_type: String,
    },
    /// No content.
    Empty,
}

/// An MCP resource read for an `@server:uri` mention.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpResource {
    /// The server name.
    pub server: String,
    /// The resource URI.
    pub uri: String,
    /// The resource name.
    pub name: String,
    /// Its description.
    #[serde(default)]
    pub description: Option<String>,
    /// Its content.
    pub content: McpResourceContent,
}

/// MCP servers the session is connected to.
#[async_trait]
pub trait McpResourceProvider: Send + Sync + fmt::Debug {
    /// Whether `server` is a connected server (so `@server:uri` is a resource mention).
    fn has_server(&self, _server: &str) -> bool {
        false
    }
    /// Reads a resource; `Ok(None)` when the server has no such resource.
    async fn read_resource(
        &self,
        _server: &str,
        _uri: &str,
    ) -> Result<Option<McpResource>, ProviderError> {
        Ok(None)
    }
}

// ---------------------------------------------------------------- hooks

/// The event a hook ran on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookEventType(pub String);

/// What a hook told the harness.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct HookResponse {
    /// A message for the model.
    #[serde(default)]
    pub system_message: Option<String>,
    /// Extra context for the model.
    #[serde(default)]
    pub additional_context: Option<String>,
}

/// The response of an async hook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AsyncHookResponse {
    /// The process id of the hook.
    pub process_id: String,
    /// The hook's name.
    pub hook_name: String,
    /// The event it ran on.
    pub hook_event: HookEventType,
    /// The tool it ran for, if any.
    #[serde(default)]
    pub tool_name: Option<String>,
    /// Its parsed response.
    pub response: HookResponse,
    /// Its stdout.
    #[serde(default)]
    pub stdout: Option<String>,
    /// Its stderr.
    #[serde(default)]
    pub stderr: Option<String>,
    /// Its exit code.
    #[serde(default)]
    pub exit_code: Option<i32>,
}

/// The outcome of a synchronous hook that the model should hear about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HookOutcome {
    /// The hook blocked the action.
    BlockingError {
        /// The hook's name.
        hook_name: String,
        /// The command it ran.
        command: String,
        /// Why it blocked.
        blocking_error: String,
    },
    /// The hook succeeded with content for the model.
    Success {
        /// The event it ran on.
        hook_event: HookEventType,
        /// The hook's name.
        hook_name: String,
        /// Its output.
        content: String,
    },
    /// The hook added context.
    AdditionalContext {
        /// The hook's name.
        hook_name: String,
        /// The context lines.
        content: Vec<String>,
    },
    /// The hook stopped continuation.
    StoppedContinuation {
        /// The hook's name.
        hook_name: String,
        /// Its message.
        message: String,
    },
}

/// Hook results waiting to be shown to the model.
pub trait HookResponseProvider: Send + Sync + fmt::Debug {
    /// Async hook responses that arrived since the last call.
    fn take_async_responses(&self) -> Vec<AsyncHookResponse> {
        Vec::new()
    }
    /// Synchronous hook outcomes since the last call.
    fn take_hook_outcomes(&self) -> Vec<HookOutcome> {
        Vec::new()
    }
}

// ---------------------------------------------------------------- teammate mailbox

/// Unread messages in one chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CollabChat {
    /// "teammate" or "self", or a teammate's handle.
    pub handle: String,
    /// Unread message count.
    pub unread_count: i32,
}

/// A message from a teammate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeammateMessage {
    /// Who sent it.
    pub from: String,
    /// Its text.
    pub text: String,
}

/// The teammate mailbox of a collaborating agent.
pub trait TeammateMailbox: Send + Sync + fmt::Debug {
    /// Chats with unread messages.
    fn unread_chats(&self) -> Vec<CollabChat> {
        Vec::new()
    }
    /// Messages that arrived since the last call.
    fn take_messages(&self) -> Vec<TeammateMessage> {
        Vec::new()
    }
}

// ---------------------------------------------------------------- queued commands

/// A command the user queued while the agent was working.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueuedCommand {
    /// The prompt text.
    pub prompt: String,
    /// The id of the input it came from.
    #[serde(default)]
    pub source_uuid: String,
    /// Ids of images pasted with it.
    #[serde(default)]
    pub image_paste_ids: Vec<String>,
}

/// Commands queued by the user.
pub trait QueuedCommandsProvider: Send + Sync + fmt::Debug {
    /// Commands queued since the last call.
    fn take_queued_commands(&self) -> Vec<QueuedCommand> {
        Vec::new()
    }
}

// ---------------------------------------------------------------- defaults

/// The provider of a host that has none of these sources: every method answers "nothing".
#[derive(Debug, Clone, Copy, Default)]
pub struct NoopProvider;

impl IdeProvider for NoopProvider {}
impl DiagnosticsProvider for NoopProvider {}
#[async_trait]
impl McpResourceProvider for NoopProvider {}
impl HookResponseProvider for NoopProvider {}
impl TeammateMailbox for NoopProvider {}
impl QueuedCommandsProvider for NoopProvider {}

/// All provider slots of a [`crate::GeneratorContext`]; `Default` fills them with [`NoopProvider`].
#[derive(Debug, Clone)]
pub struct Providers {
    /// The IDE.
    pub ide: Arc<dyn IdeProvider>,
    /// Diagnostics and LSP.
    pub diagnostics: Arc<dyn DiagnosticsProvider>,
    /// MCP resources.
    pub mcp: Arc<dyn McpResourceProvider>,
    /// Hook results.
    pub hooks: Arc<dyn HookResponseProvider>,
    /// The teammate mailbox.
    pub mailbox: Arc<dyn TeammateMailbox>,
    /// Queued commands.
    pub queued_commands: Arc<dyn QueuedCommandsProvider>,
}

impl Default for Providers {
    fn default() -> Self {
        Self {
            ide: Arc::new(NoopProvider),
            diagnostics: Arc::new(NoopProvider),
            mcp: Arc::new(NoopProvider),
            hooks: Arc::new(NoopProvider),
            mailbox: Arc::new(NoopProvider),
            queued_commands: Arc::new(NoopProvider),
        }
    }
}
