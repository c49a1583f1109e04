//! MCP servers as tools and resources: the client half of the Model Context Protocol, through
//! `rmcp` (the official Rust SDK). See docs/design/mcp.md.
//!
//! - `[mcp_servers.<name>]` ([`McpServerConfig`], codex's keys) names a stdio program or a
//!   streamable-HTTP URL; [`McpConnectionManager::start`] connects them all at once, each within
//!   its startup timeout.
//! - [`register_tools`] offers every server tool to the model as `mcp__<server>__<tool>`; a
//!   call is routed to its server within the tool timeout and its result recorded like any
//!   tool output (the history applies the context crate's truncation policy).
//! - [`McpResources`] is the reminder engine's `McpResourceProvider`: `@server:uri` in a
//!   prompt reads the resource into the `mcp_resources` reminder.
//! - [`withdraw_failed`], before every model request, reports each server that failed to
//!   start or died once ([`SessionEvent::McpServerUnavailable`]) and removes its tools.
//!
//! Delete this file, its folder and the session's `mcp_ext` calls and the core still builds.

mod connection_manager;
mod server_config;
mod stdio_process;

use std::sync::Arc;

use agentctx_model::ToolSpec;
use agentctx_reminders::McpResource;
use agentctx_reminders::McpResourceContent;
use agentctx_reminders::McpResourceProvider;
use agentctx_reminders::ProviderError;
use async_trait::async_trait;
use base64::Engine;
use rmcp::model::CallToolResult;
use rmcp::model::ContentBlock;
use rmcp::model::ResourceContents;
use rmcp::model::Tool;
use tokio::sync::mpsc::UnboundedSender;

pub use connection_manager::McpCallError;
pub use connection_manager::McpConnectionManager;
pub use connection_manager::McpServerState;
pub use connection_manager::McpServerStatus;
pub use server_config::McpConfigError;
pub use server_config::McpServerConfig;
pub use server_config::McpTransport;

use crate::event::SessionEvent;
use crate::tools::ToolContext;
use crate::tools::ToolHandler;
use crate::tools::ToolOutput;
use crate::tools::ToolRegistry;

/// Separates the parts of a qualified tool name (codex's `mcp__<server>__<tool>`).
pub(crate) const TOOL_NAME_DELIMITER: &str = "__";

/// The longest tool name the providers accept (OpenAI's function names: 64 characters of
/// `[a-zA-Z0-9_-]`).
pub(crate) const MAX_TOOL_NAME_LEN: usize = 64;

/// The name the model calls `tool` of `server` by: `mcp__<server>__<tool>`, with characters
/// outside `[a-zA-Z0-9_-]` replaced by `_`; `None` when longer than the 64 characters the
/// providers accept.
pub fn qualified_tool_name(server: &str, tool: &str) -> Option<String> {
    let raw = format!("mcp{TOOL_NAME_DELIMITER}{server}{TOOL_NAME_DELIMITER}{tool}");
    let name: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    (name.len() <= MAX_TOOL_NAME_LEN).then_some(name)
}

fn server_prefix(server: &str) -> String {
    qualified_tool_name(server, "")
        .unwrap_or_else(|| format!("mcp{TOOL_NAME_DELIMITER}{server}{TOOL_NAME_DELIMITER}"))
}

/// Adds a [`ToolHandler`] for every tool of every connected server to `registry`; returns how
/// many. A tool whose qualified name is too long is skipped and logged.
pub(crate) fn register_tools(
    manager: &Arc<McpConnectionManager>,
    registry: &mut ToolRegistry,
) -> usize {
    let mut added = 0;
    for (server, tool) in manager.ready_tools() {
        let Some(name) = qualified_tool_name(&server, &tool.name) else {
            tracing::warn!(server = %server, tool = %tool.name, "mcp tool name too long; skipped");
            continue;
        };
        registry.register(Arc::new(McpTool {
            manager: Arc::clone(manager),
            server,
            name,
            tool,
        }));
        added += 1;
    }
    added
}

/// Reports each server that failed to start or died since the last call, once, and removes
/// its tools from `registry`. The session calls it before every model request.
pub(crate) fn withdraw_failed(
    manager: &McpConnectionManager,
    registry: &mut ToolRegistry,
    events: &UnboundedSender<SessionEvent>,
) {
    for (server, reason) in manager.take_new_failures() {
        let prefix = server_prefix(&server);
        for name in registry.names() {
            if name.starts_with(&prefix) {
                registry.remove(&name);
            }
        }
        // A receiver gone means nobody renders: the session goes on.
        let _ = events.send(SessionEvent::McpServerUnavailable { server, reason });
    }
}

/// One server tool, as the model sees it.
struct McpTool {
    manager: Arc<McpConnectionManager>,
    server: String,
    name: String,
    tool: Tool,
}

#[async_trait]
impl ToolHandler for McpTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name.clone(),
            description: self
                .tool
                .description
                .as_deref()
                .unwrap_or_default()
                .to_string(),
            parameters: serde_json::Value::Object((*self.tool.input_schema).clone()),
        }
    }

    fn parallel_safe(&self) -> bool {
        // A server's own hint; read-only tools of one server may overlap.
        self.tool
            .annotations
            .as_ref()
            .and_then(|annotations| annotations.read_only_hint)
            .unwrap_or(false)
    }

    async fn handle(&self, ctx: &ToolContext, arguments: &str) -> ToolOutput {
        let arguments = if arguments.trim().is_empty() {
            None
        } else {
            match serde_json::from_str::<serde_json::Value>(arguments) {
                Ok(serde_json::Value::Object(object)) => Some(object),
                Ok(_) => {
                    return ToolOutput::error(format!(
                        "Error: invalid arguments for {}: expected a JSON object",
                        self.name
                    ));
                }
                Err(err) => {
                    return ToolOutput::error(format!(
                        "Error: invalid arguments for {}: {err}",
                        self.name
                    ));
                }
            }
        };
        let call = self
            .manager
            .call_tool(&self.server, &self.tool.name, arguments);
        let result = tokio::select! {
            result = call => result,
            () = ctx.cancel.cancelled() => {
                return ToolOutput::error(format!("Error: {} was cancelled", self.name));
            }
        };
        match result {
            Ok(result) => render_call_result(&result),
            Err(error) => ToolOutput::error(format!("Error: {error}")),
        }
    }
}

/// The text of a tool result: its content blocks in order (text as is, other kinds named),
/// or its structured content when it has no blocks; `isError` makes it a failed call.
pub(crate) fn render_call_result(result: &CallToolResult) -> ToolOutput {
    let mut parts: Vec<String> = result.content.iter().map(render_block).collect();
    if parts.is_empty()
        && let Some(structured) = &result.structured_content
    {
        parts.push(structured.to_string());
    }
    let text = parts.join("\n");
    if result.is_error.unwrap_or(false) {
        ToolOutput::error(text)
    } else {
        ToolOutput::ok(text)
    }
}

fn render_block(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::Image(image) => format!("[image: {}]", image.mime_type),
        ContentBlock::Audio(audio) => format!("[audio: {}]", audio.mime_type),
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::TextResourceContents { text, .. } => text.clone(),
            ResourceContents::BlobResourceContents { uri, mime_type, .. } => format!(
                "[resource {uri}: {}]",
                mime_type.as_deref().unwrap_or("binary")
            ),
            _ => "[resource]".to_string(),
        },
        ContentBlock::ResourceLink(link) => format!("[resource link: {}]", link.uri),
        // A content kind newer than this client: named, never dropped silently.
        _ => "[unsupported content]".to_string(),
    }
}

/// The reminder engine's view of the servers: `@server:uri` mentions read resources.
#[derive(Debug, Clone)]
pub(crate) struct McpResources(pub Arc<McpConnectionManager>);

#[async_trait]
impl McpResourceProvider for McpResources {
    fn has_server(&self, server: &str) -> bool {
        self.0.is_ready(server)
    }

    async fn read_resource(
        &self,
        server: &str,
        uri: &str,
    ) -> Result<Option<McpResource>, ProviderError> {
        let read = self
            .0
            .read_resource(server, uri)
            .await
            .map_err(|error| ProviderError::new("mcp", error.to_string()))?;
        let Some((listed, result)) = read else {
            return Ok(None);
        };
        Ok(Some(McpResource {
            server: server.to_string(),
            uri: uri.to_string(),
            name: listed
                .as_ref()
                .map_or_else(|| uri.to_string(), |resource| resource.name.clone()),
            description: listed.and_then(|resource| resource.description),
            content: resource_content(&result.contents)?,
        }))
    }
}

/// The texts of a read joined; a binary part (the first, when there is no text) decoded.
fn resource_content(contents: &[ResourceContents]) -> Result<McpResourceContent, ProviderError> {
    let texts: Vec<&str> = contents
        .iter()
        .filter_map(|content| match content {
            ResourceContents::TextResourceContents { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    if !texts.is_empty() {
        return Ok(McpResourceContent::Text(texts.join("\n")));
    }
    match contents.first() {
        Some(ResourceContents::BlobResourceContents {
            blob, mime_type, ..
        }) => {
            let data = base64::engine::general_purpose::STANDARD
                .decode(blob)
                .map_err(|err| ProviderError::new("mcp", format!("bad base64 blob: {err}")))?;
            Ok(McpResourceContent::Blob {
                data,
                mime_type: mime_type
                    .clone()
                    .unwrap_or_else(|| "application/octet-stream".to_string()),
            })
        }
        _ => Ok(McpResourceContent::Empty),
    }
}

#[cfg(test)]
#[path = "mcp_ext_tests.rs"]
mod tests;
